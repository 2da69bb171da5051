package tests_go

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
)

// core.Blocks / ReadBlocks (issue 37): every element of any view exactly
// once, in contiguous blocks, whatever the strides (negative, stepped,
// transposed, broadcast, 0-d, empty, long strided runs that fill several
// buffers); writes through Blocks land on the view's elements and nowhere
// else; runs of stride 1 are the array's own memory.

// blockView is a view of base's memory: its elements at offset + Σ i·stride.
type blockView struct {
	name            string
	offset          int64
	shape, strides  []int64
	broadcast, zero bool
}

func blockViews() []blockView {
	return []blockView{
		{name: "contiguous 3-d", shape: []int64{3, 4, 5}, strides: []int64{20, 5, 1}},
		{name: "transposed", shape: []int64{5, 4, 3}, strides: []int64{1, 5, 20}},
		{name: "Fortran", shape: []int64{6, 10}, strides: []int64{1, 6}},
		{name: "negative inner", offset: 59, shape: []int64{3, 20}, strides: []int64{-20, -1}},
		{name: "negative outer", offset: 40, shape: []int64{3, 20}, strides: []int64{-20, 1}},
		{name: "stepped 2-d", offset: 3, shape: []int64{4, 7}, strides: []int64{30, 4}},
		{name: "short contiguous rows", shape: []int64{50, 3}, strides: []int64{7, 1}},
		{name: "long contiguous rows", shape: []int64{3, 200}, strides: []int64{250, 1}},
		{name: "long strided run", offset: 2, shape: []int64{9000}, strides: []int64{3}},
		{name: "column of a matrix", offset: 5, shape: []int64{3000}, strides: []int64{9}},
		{name: "size-1 axes", shape: []int64{1, 12, 1}, strides: []int64{99, 2, 7}},
		{name: "0-d", offset: 17, shape: []int64{}, strides: []int64{}},
		{name: "empty", shape: []int64{4, 0, 3}, strides: []int64{3, 3, 1}, zero: true},
		{name: "broadcast", offset: 4, shape: []int64{5, 6}, strides: []int64{0, 2}, broadcast: true},
		{name: "all broadcast", offset: 8, shape: []int64{3, 4}, strides: []int64{0, 0}, broadcast: true},
	}
}

// offsets lists the element offsets of v in C order.
func (v blockView) offsets() []int64 {
	var out []int64
	n := int64(1)
	for _, d := range v.shape {
		n *= d
	}
	for k := int64(0); k < n; k++ {
		off, rest := v.offset, k
		for i := len(v.shape) - 1; i >= 0; i-- {
			off += rest % v.shape[i] * v.strides[i]
			rest /= v.shape[i]
		}
		out = append(out, off)
	}
	return out
}

func viewOf(t testing.TB, base *core.Array, v blockView) *core.Array {
	t.Helper()
	h := base.Header()
	h.Offset, h.Ndim = v.offset, int32(len(v.shape))
	h.SetDerivedFlags(v.shape, v.strides)
	return core.NewArray(h, v.shape, v.strides)
}

const blockBase = 30000

func checkBlocks[T int8 | uint16 | int32 | float32 | float64 | complex64](t *testing.T, dt core.DataType, of func(int64) T) {
	for _, v := range blockViews() {
		name := fmt.Sprintf("%v %s", dt, v.name)
		base, err := core.Empty(dt, blockBase)
		require.NoError(t, err)
		mem := unsafe.Slice((*T)(base.DataPtr()), blockBase)
		for i := range mem {
			mem[i] = of(int64(i))
		}
		a := viewOf(t, base, v)
		offs := v.offsets()
		var want []T
		for _, o := range offs {
			want = append(want, mem[o])
		}

		it, err := core.ReadBlocks[T](a)
		require.NoError(t, err, name)
		var got []T
		blocks := 0
		for r := range it {
			require.Positive(t, r.Len(), name)
			blocks++
			for _, x := range r.All() {
				got = append(got, x)
			}
		}
		cmp := func(x, y T) int { return compareElems(x, y) }
		slices.SortFunc(got, cmp)
		slices.SortFunc(want, cmp)
		assert.Equal(t, want, got, "%s: the elements, each as often as the view holds it", name)

		bl, err := core.Blocks[T](a)
		if v.broadcast {
			require.ErrorIs(t, err, core.ErrReadOnly, name)
			base.Release()
			continue
		}
		require.NoError(t, err, name)
		for b := range bl {
			for i := range b {
				b[i] += 3
			}
		}
		touched := map[int64]bool{}
		for _, o := range offs {
			touched[o] = true
		}
		for i := range mem {
			w := of(int64(i))
			if touched[int64(i)] {
				w += 3
			}
			if mem[i] != w {
				t.Errorf("%s: element %d is %v after += 3 through Blocks, want %v", name, i, mem[i], w)
				break
			}
		}
		base.Release()
	}
}

// compareElems orders elements by value (complex: real, then imaginary).
func compareElems[T int8 | uint16 | int32 | float32 | float64 | complex64](x, y T) int {
	key := func(v T) [2]float64 {
		switch e := any(v).(type) {
		case complex64:
			return [2]float64{float64(real(e)), float64(imag(e))}
		case int8:
			return [2]float64{float64(e)}
		case uint16:
			return [2]float64{float64(e)}
		case int32:
			return [2]float64{float64(e)}
		case float32:
			return [2]float64{float64(e)}
		}
		return [2]float64{any(v).(float64)}
	}
	kx, ky := key(x), key(y)
	for i := range kx {
		if kx[i] != ky[i] {
			if kx[i] < ky[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func TestBlocksVisitEveryElementOnceAndWriteBack(t *testing.T) {
	t.Parallel()
	checkBlocks(t, core.Float64, func(i int64) float64 { return float64(i) })
	checkBlocks(t, core.Float32, func(i int64) float32 { return float32(i) })
	checkBlocks(t, core.Int32, func(i int64) int32 { return int32(i * 7) })
	checkBlocks(t, core.Uint16, func(i int64) uint16 { return uint16(i) })
	checkBlocks(t, core.Int8, func(i int64) int8 { return int8(i % 100) })
	checkBlocks(t, core.Complex64, func(i int64) complex64 { return complex(float32(i), -float32(i)) })
}

// A block is the array's own memory where a run of stride 1 lies there,
// and the whole of a C- or Fortran-contiguous array is one block; the
// blocks of a strided view are at most 16 KiB each and come in memory order.
func TestBlocksAreTheArraysMemoryWhereItIsContiguous(t *testing.T) {
	t.Parallel()
	base, err := core.Empty(core.Float64, blockBase)
	require.NoError(t, err)
	defer base.Release()
	mem := unsafe.Slice((*float64)(base.DataPtr()), blockBase)
	for i := range mem {
		mem[i] = float64(i)
	}
	for _, c := range []struct {
		v      blockView
		blocks int
		own    bool
	}{
		{blockView{shape: []int64{100, 300}, strides: []int64{300, 1}}, 1, true},
		{blockView{shape: []int64{300, 100}, strides: []int64{1, 300}}, 1, true}, // Fortran: one block too
		{blockView{offset: 29999, shape: []int64{30000}, strides: []int64{-1}}, 1, true},
		{blockView{shape: []int64{3, 200}, strides: []int64{250, 1}}, 3, true},
		{blockView{offset: 40, shape: []int64{2, 8}, strides: []int64{8, 1}}, 1, true}, // short, but one run: whole
		{blockView{offset: 7, shape: []int64{}, strides: []int64{}}, 1, true},          // 0-d
		{blockView{shape: []int64{10000}, strides: []int64{3}}, 5, false},              // 2,048 float64s a block
	} {
		a := viewOf(t, base, c.v)
		it, err := core.Blocks[float64](a)
		require.NoError(t, err)
		var firsts []float64
		n := 0
		for b := range it {
			n++
			own := uintptr(unsafe.Pointer(&b[0])) >= uintptr(base.DataPtr()) &&
				uintptr(unsafe.Pointer(&b[0])) < uintptr(base.DataPtr())+blockBase*8
			assert.Equal(t, c.own, own, "%v: a block in the array's memory", c.v.shape)
			if !c.own {
				assert.LessOrEqual(t, len(b)*8, 16<<10, "%v: a gathered block fits the buffer", c.v.shape)
			}
			assert.True(t, slices.IsSorted(b), "%v: memory order within a block", c.v.shape)
			firsts = append(firsts, b[0])
		}
		assert.Equal(t, c.blocks, n, "%v", c.v.shape)
		assert.True(t, slices.IsSorted(firsts), "%v: blocks in memory order", c.v.shape)
	}
}

func TestBlocksRefuseWhatTheyCannotServe(t *testing.T) {
	t.Parallel()
	a, err := core.Empty(core.Float32, 4)
	require.NoError(t, err)
	_, err = core.Blocks[float64](a)
	require.ErrorIs(t, err, core.ErrDType)
	_, err = core.ReadBlocks[int32](a)
	require.ErrorIs(t, err, core.ErrDType)
	h := a.Header()
	h.Flags |= core.HeaderReadOnly
	ro := core.NewArray(h, []int64{4}, nil)
	_, err = core.Blocks[float32](ro)
	require.ErrorIs(t, err, core.ErrReadOnly)
	it, err := core.ReadBlocks[float32](ro)
	require.NoError(t, err)
	n := 0
	for r := range it {
		n += r.Len()
	}
	assert.Equal(t, 4, n)
	a.Release()
	_, err = core.ReadBlocks[float32](a)
	require.ErrorIs(t, err, core.ErrReleased)
}

// Stopping a loop stops the iterator, and what a gathered block held is
// written back first.
func TestBlocksStopWhenTheLoopBreaks(t *testing.T) {
	t.Parallel()
	base, err := core.Empty(core.Int32, blockBase)
	require.NoError(t, err)
	defer base.Release()
	mem := unsafe.Slice((*int32)(base.DataPtr()), blockBase)
	clear(mem)
	a := viewOf(t, base, blockView{shape: []int64{10000}, strides: []int64{3}})
	it, err := core.Blocks[int32](a)
	require.NoError(t, err)
	n := 0
	for b := range it {
		for i := range b {
			b[i] = 1
		}
		if n++; n == 2 {
			break
		}
	}
	ones := 0
	for _, v := range mem {
		ones += int(v)
	}
	assert.Equal(t, 2*4096, ones, "two blocks of 4,096 int32s written back")
}

// SumOf, DotOf, SumSqDevOf, AxpyOf, MaxOf and MinOf over ReadBlocks' blocks give the answers
// of the plain loops over the view's elements.
func TestReaderKernelsOverBlocks(t *testing.T) {
	t.Parallel()
	base, err := core.Empty(core.Float64, blockBase)
	require.NoError(t, err)
	defer base.Release()
	mem := unsafe.Slice((*float64)(base.DataPtr()), blockBase)
	for i := range mem {
		mem[i] = float64(i%97) - 40
	}
	v := blockView{offset: 5, shape: []int64{3000}, strides: []int64{9}}
	it, err := core.ReadBlocks[float64](viewOf(t, base, v))
	require.NoError(t, err)
	var sum, dot, ssd float64
	acc := make([]float64, 0, 4096)
	hi, lo := mem[v.offset], mem[v.offset]
	for r := range it {
		sum += core.SumOf(r)
		dot += core.DotOf(r, r)
		ssd += core.SumSqDevOf(r, 3)
		hi, lo = max(hi, core.MaxOf(r)), min(lo, core.MinOf(r))
		if len(acc) < r.Len() {
			acc = acc[:r.Len()]
		}
		core.AxpyOf(2, r, acc[:r.Len()])
	}
	var wsum, wdot, wssd, wacc float64
	whi, wlo := mem[v.offset], mem[v.offset]
	for _, o := range v.offsets() {
		wsum += mem[o]
		wdot += mem[o] * mem[o]
		wssd += (mem[o] - 3) * (mem[o] - 3)
		whi, wlo = max(whi, mem[o]), min(wlo, mem[o])
	}
	for _, a := range acc {
		wacc += a
	}
	assert.Equal(t, wsum, sum) // small integers: exact in any order
	assert.Equal(t, wdot, dot)
	assert.Equal(t, wssd, ssd)
	assert.Equal(t, 2*wsum, wacc, "AxpyOf added every block, doubled, into acc")
	assert.Equal(t, whi, hi)
	assert.Equal(t, wlo, lo)
}

// MomentsOf merged over blocks gives the two-pass variance of the whole,
// for every way of cutting the values into blocks (empty blocks included),
// and NaN for no values.
func TestMomentsMerged(t *testing.T) {
	t.Parallel()
	vals := make([]float64, 1000)
	for i := range vals {
		vals[i] = 1e6 + float64((i*37)%101) - 0.25*float64(i%3) // a large mean: a one-pass sum of squares loses it
	}
	var mean, m2 float64
	for _, v := range vals {
		mean += v
	}
	mean /= float64(len(vals))
	for _, v := range vals {
		m2 += (v - mean) * (v - mean)
	}
	for _, tc := range []struct {
		name string
		cuts []int
	}{
		{"one block", []int{1000}},
		{"equal blocks", []int{250, 250, 250, 250}},
		{"ragged, with empty ones", []int{1, 0, 998, 0, 1}},
		{"single values", func() []int {
			c := make([]int, 1000)
			for i := range c {
				c[i] = 1
			}
			return c
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m core.Moments
			at := 0
			for _, n := range tc.cuts {
				m = m.Merge(momentsOver(t, vals[at:at+n]))
				at += n
			}
			require.Equal(t, len(vals), at)
			assert.Equal(t, float64(len(vals)), m.N)
			assert.InEpsilon(t, mean, m.Mean, 1e-14)
			assert.InEpsilon(t, m2/float64(len(vals)), m.Var(), 1e-10)
		})
	}
	assert.True(t, math.IsNaN(core.Moments{}.Var()), "no values: NaN, as numpy's var of an empty array")
	f32 := momentsOver(t, []float32{1, 2, 3, 4})
	assert.Equal(t, core.Moments{N: 4, Mean: 2.5, M2: 5}, f32)
}

// momentsOver is MomentsOf the Reader that ReadBlocks of a 1-d copy of
// vals yields (one block: fewer than a block's elements).
func momentsOver[T core.Float](t *testing.T, vals []T) core.Moments {
	t.Helper()
	if len(vals) == 0 {
		return core.MomentsOf(core.Reader[T]{})
	}
	var z T
	dt := core.Float64
	if unsafe.Sizeof(z) == 4 {
		dt = core.Float32
	}
	a, err := core.Empty(dt, int64(len(vals)))
	require.NoError(t, err)
	defer a.Release()
	copy(unsafe.Slice((*T)(a.DataPtr()), len(vals)), vals)
	it, err := core.ReadBlocks[T](a)
	require.NoError(t, err)
	var m core.Moments
	blocks := 0
	for b := range it {
		m, blocks = core.MomentsOf(b), blocks+1
	}
	require.Equal(t, 1, blocks)
	return m
}

// BenchmarkBlocks: the sum of a strided column of 2^20 float64s (stride 8)
// through ReadBlocks and SumOf, against Values (one element a step) and
// against kernels.Sum over the same elements contiguous:
//
//	go test ./tests_go -run '^$' -bench Blocks
func BenchmarkBlocks(b *testing.B) {
	const n, stride = 1 << 20, 8
	base, err := core.Empty(core.Float64, n*stride)
	require.NoError(b, err)
	defer base.Release()
	mem := unsafe.Slice((*float64)(base.DataPtr()), n*stride)
	for i := range mem {
		mem[i] = float64(i % 13)
	}
	col := viewOf(b, base, blockView{offset: 3, shape: []int64{n}, strides: []int64{stride}})
	contiguous := viewOf(b, base, blockView{shape: []int64{n}, strides: []int64{1}})
	var sink float64
	b.Run("strided/ReadBlocks+SumOf", func(b *testing.B) {
		for b.Loop() {
			it, _ := core.ReadBlocks[float64](col)
			s := 0.0
			for r := range it {
				s += core.SumOf(r)
			}
			sink = s
		}
	})
	b.Run("strided/Values", func(b *testing.B) {
		for b.Loop() {
			it, _ := core.Values[float64](col)
			s := 0.0
			for v := range it {
				s += v
			}
			sink = s
		}
	})
	b.Run("contiguous/ReadBlocks+SumOf", func(b *testing.B) {
		for b.Loop() {
			it, _ := core.ReadBlocks[float64](contiguous)
			s := 0.0
			for r := range it {
				s += core.SumOf(r)
			}
			sink = s
		}
	})
	_ = sink
}
