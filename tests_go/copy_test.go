package tests_go

import (
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
)

// Element sizes 1, 2, 4, 8, 16 have specialised kernels; 3, 6 and 31 go
// through the generic per-element path (no DLPack type has those sizes, so
// arEmpty relabels uint8 buffers; Copy accepts any byte-sized dtype).
var cpTypes = []core.DataType{
	core.Uint8, core.Int16, core.Float32, core.Float64, core.Complex128,
	{Code: core.KDLUInt, Bits: 24, Lanes: 1},
	{Code: core.KDLUInt, Bits: 48, Lanes: 1},
	{Code: core.KDLUInt, Bits: 248, Lanes: 1},
}

// cpLayout builds a (possibly strided) view over a fresh patterned array.
type cpLayout struct {
	name string
	make func(t *testing.T, dt core.DataType) *core.Array
}

// cpView(t)(a.View(...)) checks the error and releases the view at the end.
func cpView(t *testing.T) func(*core.Array, error) *core.Array {
	return func(v *core.Array, err error) *core.Array {
		t.Helper()
		require.NoError(t, err)
		t.Cleanup(v.Release)
		return v
	}
}

// cpOnes returns n dimensions: twos of length 2 spread out, the rest 1.
func cpOnes(n int, twos int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = 1
	}
	for i := 0; i < twos; i++ {
		s[i*n/twos] = 2
	}
	return s
}

var cpLayouts = []cpLayout{
	{"contiguous", func(t *testing.T, dt core.DataType) *core.Array { return arNew(t, dt, 2, 3, 4) }},
	{"1-d", func(t *testing.T, dt core.DataType) *core.Array { return arNew(t, dt, 37) }},
	{"reversed", func(t *testing.T, dt core.DataType) *core.Array {
		a := arNew(t, dt, 3, 4, 5)
		r := core.IndexOp{Kind: core.IdxSlice, Step: -1}
		return cpView(t)(a.SliceOps(r, r, r))
	}},
	{"reversed 1-d", func(t *testing.T, dt core.DataType) *core.Array {
		return cpView(t)(arNew(t, dt, 41).Slice(0, math.MaxInt64, math.MinInt64, -1))
	}},
	{"transpose 3-d", func(t *testing.T, dt core.DataType) *core.Array {
		return cpView(t)(arNew(t, dt, 5, 7, 9).Transpose())
	}},
	{"fortran", func(t *testing.T, dt core.DataType) *core.Array {
		v := cpView(t)(arNew(t, dt, 9, 7).Transpose())
		require.True(t, v.IsFContiguous())
		return v
	}},
	{"big 2-d transpose (tiles with edges)", func(t *testing.T, dt core.DataType) *core.Array {
		return cpView(t)(arNew(t, dt, 77, 45).Transpose())
	}},
	{"batched transpose", func(t *testing.T, dt core.DataType) *core.Array {
		return cpView(t)(arNew(t, dt, 3, 40, 33).Transpose(0, 2, 1))
	}},
	{"negative transpose", func(t *testing.T, dt core.DataType) *core.Array {
		v := cpView(t)(arNew(t, dt, 40, 50).Slice(1, math.MaxInt64, math.MinInt64, -1))
		return cpView(t)(v.Transpose())
	}},
	{"steps", func(t *testing.T, dt core.DataType) *core.Array {
		a := arNew(t, dt, 6, 10, 4)
		return cpView(t)(a.SliceOps(
			core.IndexOp{Kind: core.IdxSlice, Start: 1, HasStart: true, Step: 2},
			core.IndexOp{Kind: core.IdxSlice, Step: -3},
			core.IndexOp{Kind: core.IdxSlice, Start: 1, Stop: 3, HasStart: true, HasStop: true, Step: 1},
		))
	}},
	{"size-1 odd strides", func(t *testing.T, dt core.DataType) *core.Array {
		a := arNew(t, dt, 12)
		v := core.NewArray(a.Header(), []int64{3, 1, 4, 1}, []int64{4, 999, 1, -77})
		t.Cleanup(v.Release)
		return v
	}},
	{"zero stride (broadcast source)", func(t *testing.T, dt core.DataType) *core.Array {
		a := arNew(t, dt, 5)
		v := core.NewArray(a.Header(), []int64{3, 5}, []int64{0, 1})
		t.Cleanup(v.Release)
		return v
	}},
	{"0-d", func(t *testing.T, dt core.DataType) *core.Array {
		a := arNew(t, dt, 4, 3)
		return cpView(t)(a.SliceOps(core.IndexOp{Kind: core.IdxInt, I: 2}, core.IndexOp{Kind: core.IdxInt, I: -1}))
	}},
	{"zero-size", func(t *testing.T, dt core.DataType) *core.Array { return arNew(t, dt, 3, 0, 2) }},
	{"zero-size strided", func(t *testing.T, dt core.DataType) *core.Array {
		return cpView(t)(arNew(t, dt, 3, 4).Slice(1, 2, 2, -1))
	}},
	{"ndim 32", func(t *testing.T, dt core.DataType) *core.Array {
		a := arNew(t, dt, 1024)
		r := cpView(t)(a.Reshape(cpOnes(32, 10)...))
		return cpView(t)(r.Transpose())
	}},
	{"ndim 64", func(t *testing.T, dt core.DataType) *core.Array {
		a := arNew(t, dt, 512)
		r := cpView(t)(a.Reshape(cpOnes(64, 9)...))
		ax := make([]int, 64)
		for i := range ax {
			ax[i] = (i * 5) % 64
		}
		return cpView(t)(r.Transpose(ax...))
	}},
}

func TestCopyEverySizeAndLayout(t *testing.T) {
	t.Parallel()
	for _, dt := range cpTypes {
		for _, l := range cpLayouts {
			t.Run(fmt.Sprintf("%d-byte/%s", dt.ItemSize(), l.name), func(t *testing.T) {
				t.Parallel()
				src := l.make(t, dt)
				c, err := src.Copy()
				require.NoError(t, err)
				defer c.Release()
				assert.True(t, c.IsCContiguous())
				assert.Equal(t, src.Shape(), c.Shape())
				assert.Zero(t, uintptr(c.Header().Data)%core.Alignment)
				arSameElements(t, c, src)

				// Strided destination: the transpose of a fresh array.
				rs := src.Shape()
				for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
					rs[i], rs[j] = rs[j], rs[i]
				}
				base := arEmpty(t, dt, rs...)
				dst := base.T()
				defer dst.Release()
				dh, sh := dst.Header(), src.Header()
				require.NoError(t, core.CopyInto(&dh, dst.Shape(), dst.Strides(), &sh, src.Shape(), src.Strides()))
				arSameElements(t, dst, src)

				// Reversed destination.
				base2 := arEmpty(t, dt, src.Shape()...)
				ops := make([]core.IndexOp, base2.Ndim())
				for i := range ops {
					ops[i] = core.IndexOp{Kind: core.IdxSlice, Step: -1}
				}
				dst2 := cpView(t)(base2.SliceOps(ops...))
				dh2 := dst2.Header()
				require.NoError(t, core.CopyInto(&dh2, dst2.Shape(), dst2.Strides(), &sh, src.Shape(), src.Strides()))
				arSameElements(t, dst2, src)
			})
		}
	}
}

// Large copies run on several goroutines unless SetSerial(true); both paths
// must give the same result.
func TestCopyLargeParallelAndSerial(t *testing.T) {
	shapes := []struct {
		name string
		make func(t *testing.T) *core.Array
	}{
		{"transpose 16 MiB", func(t *testing.T) *core.Array { return cpView(t)(arNew(t, core.Float64, 1024, 2048).Transpose()) }},
		{"contiguous 8 MiB", func(t *testing.T) *core.Array { return arNew(t, core.Int32, 2<<20) }},
		{"reversed 4 MiB", func(t *testing.T) *core.Array {
			return cpView(t)(arNew(t, core.Uint16, 2<<20).Slice(0, math.MaxInt64, math.MinInt64, -1))
		}},
		{"3-d strided 6 MiB", func(t *testing.T) *core.Array {
			return cpView(t)(arNew(t, core.Complex128, 3, 512, 512).Transpose(2, 0, 1))
		}},
	}
	for _, s := range shapes {
		for _, serial := range []bool{false, true} {
			src := s.make(t)
			core.SetSerial(serial)
			assert.Equal(t, serial, core.Serial())
			c, err := src.Copy()
			core.SetSerial(false)
			require.NoError(t, err, s.name)
			arSameElements(t, c, src)
			c.Release()
		}
	}
}

func TestCopyIntoOverlap(t *testing.T) {
	t.Parallel()
	mk := func() (*core.Array, []int64) {
		a, err := core.Empty(core.Int64, 10)
		require.NoError(t, err)
		t.Cleanup(a.Release)
		xs, err := a.Int64s()
		require.NoError(t, err)
		for i := range xs {
			xs[i] = int64(i)
		}
		return a, xs
	}
	// a[:] = a[::-1]
	a, xs := mk()
	r := cpView(t)(a.Slice(0, math.MaxInt64, math.MinInt64, -1))
	ah, rh := a.Header(), r.Header()
	require.NoError(t, core.CopyInto(&ah, a.Shape(), a.Strides(), &rh, r.Shape(), r.Strides()))
	assert.Equal(t, []int64{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, xs)
	// a[1:] = a[:-1]
	a, xs = mk()
	d := cpView(t)(a.Slice(0, 1, math.MaxInt64, 1))
	s := cpView(t)(a.Slice(0, 0, -1, 1))
	dh, sh := d.Header(), s.Header()
	require.NoError(t, core.CopyInto(&dh, d.Shape(), d.Strides(), &sh, s.Shape(), s.Strides()))
	assert.Equal(t, []int64{0, 0, 1, 2, 3, 4, 5, 6, 7, 8}, xs)
	// a = a (same layout: nothing to do)
	a, xs = mk()
	ah = a.Header()
	require.NoError(t, core.CopyInto(&ah, a.Shape(), a.Strides(), &ah, a.Shape(), a.Strides()))
	assert.Equal(t, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, xs)
	// 2-D in-place transpose of a square matrix: m = m.T
	m := arIota(t, 3, 3)
	mt := cpView(t)(m.Transpose())
	mh, mth := m.Header(), mt.Header()
	require.NoError(t, core.CopyInto(&mh, m.Shape(), m.Strides(), &mth, mt.Shape(), mt.Strides()))
	assert.Equal(t, []float64{0, 3, 6, 1, 4, 7, 2, 5, 8}, vwValues(t, m))
}

func TestCopyIntoErrors(t *testing.T) {
	t.Parallel()
	a := arNew(t, core.Float32, 2, 3)
	b := arNew(t, core.Float32, 2, 3)
	ah, bh := a.Header(), b.Header()
	ro := arReadOnly(t, a)
	roh := ro.Header()
	c := arNew(t, core.Float64, 2, 3)
	ch := c.Header()
	d := arNew(t, core.Float32, 3, 2)
	dh := d.Header()
	gpu := bh
	gpu.Device = core.Device{Type: core.KDLCUDA, ID: 0}
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"read-only", core.CopyInto(&roh, ro.Shape(), ro.Strides(), &bh, b.Shape(), b.Strides()), core.ErrReadOnly},
		{"dtype", core.CopyInto(&ch, c.Shape(), c.Strides(), &bh, b.Shape(), b.Strides()), core.ErrDType},
		{"shape", core.CopyInto(&dh, d.Shape(), d.Strides(), &bh, b.Shape(), b.Strides()), core.ErrShape},
		{"ndim", core.CopyInto(&ah, a.Shape(), a.Strides(), &bh, []int64{6}, []int64{1}), core.ErrShape},
		{"device", core.CopyInto(&ah, a.Shape(), a.Strides(), &gpu, b.Shape(), b.Strides()), core.ErrDevice},
	}
	for _, c := range cases {
		assert.ErrorIs(t, c.err, c.want, c.name)
	}
	host := gpu
	host.Device = core.Device{Type: core.KDLCUDAHost, ID: 0}
	assert.NoError(t, core.CopyInto(&ah, a.Shape(), a.Strides(), &host, b.Shape(), b.Strides()), "pinned host memory is CPU-accessible")
	// Copy of a read-only array is writable.
	rc, err := ro.Copy()
	require.NoError(t, err)
	defer rc.Release()
	assert.False(t, rc.ReadOnly())
}

// The descriptor and kernel entry points the Python skin calls allocate
// nothing on the Go heap (not parallel: AllocsPerRun counts every goroutine).
func TestZeroAllocKernels(t *testing.T) {
	a := arNew(t, core.Float64, 4, 6)
	b := arNew(t, core.Float64, 6, 4)
	ah, bh := a.Header(), b.Header()
	ashape, astr := a.Shape(), a.Strides()
	bshape, bstr := b.Shape(), b.Strides()
	var out core.Header
	var sh, st [core.MaxNdim]int64
	ops := []core.IndexOp{
		{Kind: core.IdxNewAxis},
		{Kind: core.IdxSlice, Start: -1, HasStart: true, Step: -2},
		{Kind: core.IdxEllipsis},
		{Kind: core.IdxInt, I: 3},
	}
	newShape := []int64{3, -1, 2}
	axes := []int{1, 0}
	elem := make([]byte, 8)
	small := []int64{3, 4}
	cases := []struct {
		name string
		f    func()
	}{
		{"ApplyIndex", func() {
			if _, err := core.ApplyIndex(&ah, ashape, astr, ops, &out, sh[:], st[:]); err != nil {
				panic(err)
			}
		}},
		{"ReshapeDesc", func() {
			newShape[1] = -1
			if err := core.ReshapeDesc(&ah, ashape, astr, newShape, &out, st[:]); err != nil {
				panic(err)
			}
		}},
		{"TransposeDesc", func() {
			if err := core.TransposeDesc(&ah, ashape, astr, axes, &out, sh[:], st[:]); err != nil {
				panic(err)
			}
		}},
		{"TransposeDesc reverse", func() {
			if err := core.TransposeDesc(&ah, ashape, astr, nil, &out, sh[:], st[:]); err != nil {
				panic(err)
			}
		}},
		{"AllocContiguous", func() {
			var h core.Header
			if err := core.AllocContiguous(core.Float32, small, &h, st[:]); err != nil {
				panic(err)
			}
			h.Owner.Release()
		}},
		{"CopyInto transpose", func() {
			// b = a.T
			if err := core.CopyInto(&bh, bshape, bstr, &ah, []int64{6, 4}, []int64{1, 6}); err != nil {
				panic(err)
			}
		}},
		{"CopyInto contiguous", func() {
			if err := core.CopyInto(&bh, ashape, astr, &ah, ashape, astr); err != nil {
				panic(err)
			}
		}},
		{"CopyInto overlap", func() {
			if err := core.CopyInto(&ah, []int64{24}, []int64{1}, &ah, []int64{24}, []int64{-1}); err != nil {
				panic(err)
			}
		}},
		{"Fill", func() {
			if err := core.Fill(&ah, []int64{6, 4}, []int64{1, 6}, elem); err != nil {
				panic(err)
			}
		}},
		{"Sum", func() {
			if _, err := core.Sum(&ah, ashape, astr); err != nil {
				panic(err)
			}
		}},
	}
	for _, c := range cases {
		assert.Zero(t, testing.AllocsPerRun(100, c.f), c.name)
	}
}

func TestCopyElementsUnchangedSource(t *testing.T) {
	t.Parallel()
	src := arNew(t, core.Int16, 8, 8)
	before, err := src.Bytes()
	require.NoError(t, err)
	snap := append([]byte(nil), before...)
	c, err := cpView(t)(src.Transpose()).Copy()
	require.NoError(t, err)
	defer c.Release()
	after, _ := src.Bytes()
	assert.Equal(t, snap, after)
	_ = unsafe.Pointer(nil)
}

func TestFillGenericSizes(t *testing.T) {
	t.Parallel()
	for _, dt := range cpTypes {
		k := dt.ItemSize()
		a := arNew(t, dt, 7, 9)
		v := cpView(t)(a.SliceOps(core.IndexOp{Kind: core.IdxSlice, Step: -2}, core.IndexOp{Kind: core.IdxSlice, Start: 1, HasStart: true, Step: 3}))
		elem := make([]byte, k)
		for i := range elem {
			elem[i] = byte(200 - i)
		}
		h := v.Header()
		require.NoError(t, core.Fill(&h, v.Shape(), v.Strides(), elem))
		arEachIndex(v.Shape(), func(idx []int64) {
			assert.Equal(t, elem, unsafe.Slice((*byte)(arElem(v, idx)), k))
		})
		// Contiguous fill (the doubling path) of the whole array.
		ah := a.Header()
		require.NoError(t, core.Fill(&ah, a.Shape(), a.Strides(), elem))
		b, err := a.Bytes()
		require.NoError(t, err)
		for i := range b {
			if b[i] != elem[int64(i)%k] {
				t.Fatalf("%v byte %d", dt, i)
			}
		}
	}
}
