package cpu

/*
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "../hostalloc.h"

static void *gd_cpu_free_fn(void) { return (void *)&gd_cpu_free; }

static void gd_cpu_memmove(void *dst, const void *src, size_t n) {
	memmove(dst, src, n);
}

static void gd_cpu_memset(void *dst, int c, size_t n) { memset(dst, c, n); }
*/
import "C"

import (
	"math"
	"unsafe"

	"github.com/godlpack/godlpack/backends"
)

// Alignment is the alignment in bytes of every allocation.
const Alignment = backends.Alignment

// Backend is the CPU backend (kDLCPU): host memory addressed by plain
// pointers. Its zero value is ready to use and holds no state; it implements
// backends.Backend and registers itself for kDLCPU.
type Backend struct{}

var _ backends.Backend = Backend{}

func init() { backends.Register(Backend{}) }

// Type returns kDLCPU.
func (Backend) Type() backends.DeviceType { return kDLCPU }

// HostAccessible is true: this is host memory.
func (Backend) HostAccessible() bool { return true }

// FoldsByteOffset is true: CPU data pointers are plain addresses.
func (Backend) FoldsByteOffset() bool { return true }

// Allocate returns n bytes of 256-byte aligned C memory (see Alloc and
// AllocZeroed). The CPU has one device: id is not used.
func (Backend) Allocate(_ int32, n int64, zero bool) (unsafe.Pointer, error) {
	if zero {
		return AllocZeroed(n)
	}
	return Alloc(n)
}

// Free releases memory from Allocate (see Free).
func (Backend) Free(p unsafe.Pointer) { Free(p) }

// FreeFunc returns the C free function of this backend (see FreeFunc).
func (Backend) FreeFunc() unsafe.Pointer { return FreeFunc() }

// Copy copies n bytes with memmove (see Copy).
func (Backend) Copy(_ int32, dst, src unsafe.Pointer, n int64) error {
	Copy(dst, src, n)
	return nil
}

// CopyFromHost is Copy: the device is the host.
func (Backend) CopyFromHost(_ int32, dst, src unsafe.Pointer, n int64) error {
	Copy(dst, src, n)
	return nil
}

// CopyToHost is Copy: the device is the host.
func (Backend) CopyToHost(_ int32, dst, src unsafe.Pointer, n int64) error {
	Copy(dst, src, n)
	return nil
}

// Synchronize does nothing: CPU work is synchronous.
func (Backend) Synchronize(int32) error { return nil }

// kDLCPU in DLPack's numbering (core.KDLCPU; backends never imports core).
const kDLCPU backends.DeviceType = 1

// Alloc returns n bytes of C memory aligned to Alignment. n == 0 returns a
// valid, unique pointer (one byte) that must be freed. It returns
// backends.ErrInvalidSize for n < 0 and backends.ErrNoMemory when the
// allocation fails. It does not allocate on the Go heap.
func Alloc(n int64) (unsafe.Pointer, error) {
	if n < 0 {
		return nil, backends.ErrInvalidSize
	}
	if uint64(n) > math.MaxUint64>>1 {
		return nil, backends.ErrNoMemory
	}
	p := C.gd_cpu_alloc(C.size_t(n), C.size_t(Alignment))
	if p == nil {
		return nil, backends.ErrNoMemory
	}
	return p, nil
}

// AllocZeroed is Alloc of zeroed memory (calloc: a large block's pages are
// zero without being written, so they cost nothing until used).
func AllocZeroed(n int64) (unsafe.Pointer, error) {
	if n < 0 {
		return nil, backends.ErrInvalidSize
	}
	p := C.gd_cpu_alloc_zeroed(C.size_t(n), C.size_t(Alignment))
	if p == nil {
		return nil, backends.ErrNoMemory
	}
	return p, nil
}

// Free releases memory returned by Alloc or AllocZeroed. Free(nil) does
// nothing.
func Free(p unsafe.Pointer) { C.gd_cpu_free(p) }

// FreeFunc returns the C function pointer void(*)(void*) that frees memory
// from Alloc. core owners of kind OwnFree store it and call it from C on the
// last reference, without the Go runtime.
func FreeFunc() unsafe.Pointer { return C.gd_cpu_free_fn() }

// Copy copies n bytes from src to dst with C memmove (the regions may
// overlap). n <= 0 does nothing.
func Copy(dst, src unsafe.Pointer, n int64) {
	if n <= 0 {
		return
	}
	C.gd_cpu_memmove(dst, src, C.size_t(n))
}

// Memset sets n bytes at dst to c. n <= 0 does nothing.
func Memset(dst unsafe.Pointer, c byte, n int64) {
	if n <= 0 {
		return
	}
	C.gd_cpu_memset(dst, C.int(c), C.size_t(n))
}
