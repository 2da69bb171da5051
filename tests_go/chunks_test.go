package tests_go

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"github.com/godlpack/godlpack/tests_go/cfixture"
)

// core's chunk plan (core/chunk.c), which the skin runs one Go call per
// chunk with Ctrl-C checked between: the chunks tile the array in C order,
// each element once, and none is bigger than a chunk's bytes unless one
// index of its run axis already is. Shapes are planned, never allocated.
func TestChunksTileTheArray(t *testing.T) {
	t.Parallel()
	const mib = int64(1) << 20
	for _, c := range []struct {
		name     string
		shape    []int64
		itemsize int64
		chunks   int
	}{
		{"1-d, 3.5 chunks", []int64{14 * mib}, 8, 4},
		{"rows of half a chunk", []int64{5, 16 * mib}, 1, 3},
		{"rows bigger than a chunk", []int64{3, 5, 4 * mib}, 8, 15},
		{"one row far bigger than a chunk", []int64{2, 1, 96 * mib}, 1, 6},
		{"small", []int64{10, 10}, 8, 1},
		{"an empty axis", []int64{4, 0, 64 * mib}, 8, 0},
		{"complex rows of three quarters of a chunk", []int64{4, 3, mib / 2}, 16, 4},
	} {
		chunks, bytes := cfixture.Chunks(c.shape, c.itemsize)
		assert.Equal(t, 32*mib, bytes, "GODLPACK_CHUNK_MIB is unset in the test")
		assert.Len(t, chunks, c.chunks, c.name)
		total, next := int64(1), int64(0)
		for _, d := range c.shape {
			total *= d
		}
		for i, ch := range chunks {
			n := int64(1)
			for _, d := range ch.Sub {
				n *= d
			}
			assert.Equal(t, next, ch.First, "%s: chunk %d starts where the last ended", c.name, i)
			next += n
			one := c.itemsize // a chunk is one index of its run axis at least
			for j := len(ch.Sub) - 1; j >= 0 && ch.Sub[j] == c.shape[j]; j-- {
				one *= c.shape[j]
			}
			assert.True(t, n*c.itemsize <= bytes || n*c.itemsize <= one, "%s: chunk %d has %d bytes", c.name, i, n*c.itemsize)
		}
		assert.Equal(t, total, next, "%s: every element in one chunk", c.name)
	}
}

// The checker's counting deleters (core/probe.c): every call is counted,
// the original deleter runs on the first only.
func TestProbeCountsDeleterCalls(t *testing.T) {
	t.Parallel()
	for _, versioned := range []bool{true, false} {
		var m unsafe.Pointer
		var orig func() int64
		if versioned {
			v := cfixture.Versioned(cfixture.Spec{Shape: []int64{2}})
			m, orig = unsafe.Pointer(v), func() int64 { return cfixture.Calls(v) }
		} else {
			l := cfixture.Legacy(cfixture.Spec{Shape: []int64{2}})
			m, orig = unsafe.Pointer(l), func() int64 { return cfixture.Calls(l) }
		}
		p, calls := cfixture.Probe(m, versioned)
		assert.Equal(t, int64(0), calls())
		for range 2 {
			if versioned {
				cfixture.DeleteVersioned(p)
			} else {
				cfixture.DeleteLegacy(p)
			}
		}
		assert.Equal(t, int64(2), calls(), "versioned=%v", versioned)
		assert.Equal(t, int64(1), orig(), "versioned=%v: the original deleter once", versioned)
	}
}

// The checker's deleters counted in place (gd_probe_patch, for P6 and P7):
// the tensor keeps its struct, every call through its deleter field is
// counted, the producer's deleter runs on the first only.
func TestPatchedDeleterCountsInPlace(t *testing.T) {
	t.Parallel()
	for _, versioned := range []bool{true, false} {
		var m unsafe.Pointer
		var orig func() int64
		del := func() { cfixture.DeleteLegacy(m) }
		if versioned {
			v := cfixture.Versioned(cfixture.Spec{Shape: []int64{2}})
			m, orig = unsafe.Pointer(v), func() int64 { return cfixture.Calls(v) }
			del = func() { cfixture.DeleteVersioned(m) }
		} else {
			l := cfixture.Legacy(cfixture.Spec{Shape: []int64{2}})
			m, orig = unsafe.Pointer(l), func() int64 { return cfixture.Calls(l) }
		}
		calls := cfixture.Patch(m, versioned)
		assert.Equal(t, int64(0), calls())
		del()
		del()
		del()
		assert.Equal(t, int64(3), calls(), "versioned=%v", versioned)
		assert.Equal(t, int64(1), orig(), "versioned=%v: the producer's deleter once", versioned)
	}
}

// core/owner.c's parking: an owner whose release may run Python code
// (GD_OWNER_PYTHON) is parked by the skin's hook when its last reference
// drops on a thread Python does not know, and finished by gd_owner_drain,
// each exactly once, with one drain asked for per batch; an owner that
// frees C memory only is finished at once, whatever the hook.
func TestOwnersParkUntilDrained(t *testing.T) {
	before, after, drains := cfixture.Park(5, true)
	assert.Equal(t, 0, before, "parked owners are not finished before the drain")
	assert.Equal(t, 5, after, "the drain finishes each parked owner once")
	assert.Equal(t, 1, drains, "one drain is asked for until it runs")
	before, after, drains = cfixture.Park(3, true)
	assert.Equal(t, []int{0, 3, 1}, []int{before, after, drains}, "after a drain, the next park asks again")
	before, after, drains = cfixture.Park(4, false)
	assert.Equal(t, []int{4, 4, 0}, []int{before, after, drains}, "C-only owners are finished at once")
}
