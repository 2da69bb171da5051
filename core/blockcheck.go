package core

import (
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// Checked blocks: a block of Blocks, ReadBlocks or MapBlocks is valid
// during its step only (it may be the array's own memory, which its
// producer frees after the call, or a buffer the next step refills). A loop
// that keeps one reads freed or stale memory without a sign. With the check
// on (CheckBlocks, or GODLPACK_CHECK_BLOCKS=1 at start-up) every block is a
// copy in pages of its own, which are made unreadable when its step
// returns: the next use of a kept block faults at once, and a kit function
// called from Python fails with an error that says so (gofunc). Each step
// then costs a mapping and two copies: for tests, not for production.

var blockCheck atomic.Bool

func init() {
	v := os.Getenv("GODLPACK_CHECK_BLOCKS")
	blockCheck.Store(v != "" && v != "0")
}

// CheckBlocks switches the check of kept blocks on or off and returns the
// previous setting. For tests: the values every loop sees are the same
// either way.
func CheckBlocks(on bool) (prev bool) { return blockCheck.Swap(on) }

// BlocksChecked reports whether the check of kept blocks is on.
func BlocksChecked() bool { return blockCheck.Load() }

// sealedCap is how many sealed mappings are kept before the oldest are
// unmapped (and their addresses may be reused, after which a block kept
// that long is no longer caught).
const sealedCap = 1 << 12

var sealed struct {
	sync.Mutex
	maps [][]byte
}

// IsSealedBlock reports whether addr lies in the memory of a checked block
// whose step has returned: a fault there is a block used after its step.
func IsSealedBlock(addr uintptr) bool {
	sealed.Lock()
	defer sealed.Unlock()
	for _, m := range sealed.maps {
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
		if addr >= lo && addr < lo+uintptr(len(m)) {
			return true
		}
	}
	return false
}

// checkedSteps wraps the yield of runBlocks: each step's blocks are copied
// into a fresh mapping, handed to yield, the first copied back when write,
// and the mapping sealed (PROT_NONE) when the step returns.
func checkedSteps[T Element](write bool, yield func([]T, []Reader[T]) bool) func([]T, []Reader[T]) bool {
	return func(b []T, rs []Reader[T]) bool {
		if len(b) == 0 {
			return yield(b, rs)
		}
		n := len(b) * (1 + len(rs))
		m, err := syscall.Mmap(-1, 0, n*int(unsafe.Sizeof(b[0])), syscall.PROT_READ|syscall.PROT_WRITE,
			syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil { // no memory for the check: the step runs unchecked
			return yield(b, rs)
		}
		all := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(m))), n)
		gb := all[:len(b):len(b)]
		copy(gb, b)
		grs := make([]Reader[T], len(rs))
		for k, r := range rs {
			g := all[(1+k)*len(b) : (2+k)*len(b) : (2+k)*len(b)]
			copy(g, r.s)
			grs[k] = Reader[T]{g}
		}
		more := yield(gb, grs)
		if write {
			copy(b, gb)
		}
		seal(m)
		return more
	}
}

func seal(m []byte) {
	if syscall.Mprotect(m, syscall.PROT_NONE) != nil {
		_ = syscall.Munmap(m)
		return
	}
	sealed.Lock()
	defer sealed.Unlock()
	if len(sealed.maps) == sealedCap {
		for _, old := range sealed.maps[:sealedCap/2] {
			_ = syscall.Munmap(old)
		}
		sealed.maps = append(sealed.maps[:0], sealed.maps[sealedCap/2:]...)
	}
	sealed.maps = append(sealed.maps, m)
}
