package tests_go

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/backends"
	"github.com/godlpack/godlpack/backends/cpu"
	"github.com/godlpack/godlpack/core"
)

func TestCPUAllocAlignment(t *testing.T) {
	t.Parallel()
	for _, n := range []int64{0, 1, 7, 63, 255, 256, 257, 4096, 1 << 20, 3<<20 + 5} {
		p, err := cpu.Alloc(n)
		require.NoError(t, err, "n=%d", n)
		require.NotNil(t, p, "n=%d", n)
		assert.Zero(t, uintptr(p)%256, "n=%d: %p not 256-aligned", n, p)
		if n > 0 {
			b := unsafe.Slice((*byte)(p), n)
			b[0], b[n-1] = 1, 2 // writable end to end
		}
		cpu.Free(p)
	}
	assert.Equal(t, 256, cpu.Alignment)
}

func TestCPUZeroSizeIsUniqueAndFreeable(t *testing.T) {
	t.Parallel()
	p, err := cpu.Alloc(0)
	require.NoError(t, err)
	q, err := cpu.Alloc(0)
	require.NoError(t, err)
	assert.NotNil(t, p)
	assert.NotEqual(t, p, q, "zero-size allocations are unique")
	cpu.Free(p)
	cpu.Free(q)
	cpu.Free(nil) // allowed
}

func TestCPUAllocErrors(t *testing.T) {
	t.Parallel()
	_, err := cpu.Alloc(-1)
	assert.ErrorIs(t, err, backends.ErrInvalidSize)
	_, err = cpu.Alloc(1 << 62)
	assert.ErrorIs(t, err, backends.ErrNoMemory)
	_, err = cpu.AllocZeroed(-5)
	assert.ErrorIs(t, err, backends.ErrInvalidSize)
	_, err = cpu.AllocZeroed(1 << 62)
	assert.ErrorIs(t, err, backends.ErrNoMemory)
}

func TestCPUAllocZeroedCopyMemset(t *testing.T) {
	t.Parallel()
	const n = 1000
	p, err := cpu.AllocZeroed(n)
	require.NoError(t, err)
	defer cpu.Free(p)
	b := unsafe.Slice((*byte)(p), n)
	for i, v := range b {
		require.Zero(t, v, "byte %d", i)
	}
	cpu.Memset(p, 0x5a, n)
	assert.Equal(t, byte(0x5a), b[n-1])
	for i := range b {
		b[i] = byte(i)
	}
	// Overlapping copy (memmove semantics).
	cpu.Copy(unsafe.Add(p, 1), p, n-1)
	assert.Equal(t, []byte{0, 0, 1, 2, 3}, b[:5])
	cpu.Copy(p, p, 0)
	cpu.Memset(p, 1, 0)
}

// The Backend interface, and the C free function pointer that owners call
// from C on the last reference.
func TestCPUBackendInterface(t *testing.T) {
	t.Parallel()
	be := backends.For(int32(core.KDLCPU))
	require.NotNil(t, be, "backends/cpu registers itself for kDLCPU")
	assert.Equal(t, int32(core.KDLCPU), be.Type())
	assert.True(t, be.HostAccessible())
	assert.True(t, be.FoldsByteOffset())
	require.NoError(t, be.Synchronize(0))
	p, err := be.Allocate(0, 64, false)
	require.NoError(t, err)
	q, err := be.Allocate(0, 64, true)
	require.NoError(t, err)
	assert.Equal(t, make([]byte, 64), unsafe.Slice((*byte)(q), 64), "zero=true zeroes")
	src := unsafe.Slice((*byte)(p), 64)
	for i := range src {
		src[i] = byte(i * 3)
	}
	require.NoError(t, be.Copy(0, q, p, 64))
	assert.Equal(t, src, unsafe.Slice((*byte)(q), 64))
	r, err := be.Allocate(0, 64, false)
	require.NoError(t, err)
	require.NoError(t, be.CopyToHost(0, r, p, 64))
	assert.Equal(t, src, unsafe.Slice((*byte)(r), 64))
	require.NoError(t, be.CopyFromHost(0, r, q, 32))
	assert.Equal(t, src, unsafe.Slice((*byte)(r), 64))
	be.Free(q)
	be.Free(r)

	fn := be.FreeFunc()
	require.NotNil(t, fn)
	assert.Equal(t, cpu.FreeFunc(), fn)
	o, err := core.NewOwner(core.OwnFree, p, fn)
	require.NoError(t, err)
	o.Retain()
	assert.Equal(t, int64(2), o.Refs())
	o.Release()
	o.Release() // frees p in C through FreeFunc (ASan/valgrind would flag a leak otherwise)
}

func TestCPUAllocNoGoAllocation(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		p, err := cpu.Alloc(1024)
		if err != nil {
			panic(err)
		}
		cpu.Free(p)
	})
	assert.Zero(t, allocs)
}

// Zeroed memory comes from calloc: the pages of a large block are zero
// without being written, so allocating it costs no resident memory (as
// numpy's zeros), and reading it gives zeros.
func TestCPUAllocZeroedTouchesNoPages(t *testing.T) {
	const n = 256 << 20
	before := residentMiB(t)
	p, err := cpu.AllocZeroed(n)
	require.NoError(t, err)
	defer cpu.Free(p)
	assert.Less(t, residentMiB(t)-before, int64(32), "MiB resident after a 256 MiB zeroed allocation")
	b := unsafe.Slice((*byte)(p), n)
	assert.Zero(t, b[0]+b[n/2]+b[n-1])
}

func residentMiB(t *testing.T) int64 {
	status, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kib, err := strconv.ParseInt(f[1], 10, 64)
			require.NoError(t, err)
			return kib >> 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}
