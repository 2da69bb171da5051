package tests_go

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/tests_go/cfixture"
)

// The C view twins of core/fastpath.c (gd_fast_index, gd_fast_transpose,
// gd_fast_reshape), which the skin runs before Go and a forked child runs
// instead of Go, against core.ApplyIndex, core.TransposeDesc and
// core.ReshapeDesc: whenever a twin answers it gives exactly core's view,
// and for ordinary arrays (CPU, byte-sized dtype, no overflow) it answers
// whenever core succeeds.

// fvHeader is a header over 64 bytes of C memory with core's derived flags.
func fvHeader(t *testing.T, dt core.DataType, dev core.Device, shape, strides []int64, offset int64, flags uint64) *core.Header {
	data := cfixture.Alloc(64)
	t.Cleanup(func() { cfixture.FreeMem(data) })
	o, err := core.NewOwner(core.OwnNone, nil, nil)
	require.NoError(t, err)
	t.Cleanup(o.Release)
	h := &core.Header{Data: data, Owner: o, Offset: offset, DType: dt, Ndim: int32(len(shape)), Device: dev, Flags: flags}
	h.SetDerivedFlags(shape, strides)
	return h
}

// small: no product of these can overflow, so core succeeds only where the twin must answer too.
func fvSmall(shape, strides []int64, offset int64) bool {
	for i := range shape {
		if shape[i] > 1<<16 || strides[i] > 1<<16 || strides[i] < -(1<<16) {
			return false
		}
	}
	return offset < 1<<20 && offset > -(1<<20)
}

func fvOrdinary(h *core.Header) bool {
	return h.Device == core.CPU && !h.DType.IsSubByte() && h.DType.Lanes == 1 && h.DType.ItemSize() > 0
}

func checkFastIndex(t *testing.T, h *core.Header, shape, strides []int64, ops []core.IndexOp) {
	t.Helper()
	var want core.Header
	wsh, wst := make([]int64, core.MaxNdim), make([]int64, core.MaxNdim)
	k, err := core.ApplyIndex(h, shape, strides, ops, &want, wsh, wst)
	got, gsh, gst, ok := cfixture.FastIndex(h, shape, strides, ops)
	if !ok {
		if err == nil && fvOrdinary(h) && fvSmall(shape, strides, h.Offset) {
			t.Fatalf("the twin declined %v of shape %v strides %v, which core serves", ops, shape, strides)
		}
		return
	}
	require.NoError(t, err, "the twin answered %v where core refuses", ops)
	require.Equal(t, k, len(gsh))
	assert.Equal(t, wsh[:k], gsh, "shape of %v", ops)
	assert.Equal(t, wst[:k], gst, "strides of %v", ops)
	assert.Equal(t, want, got, "header of %v", ops)
}

var fvF64 = core.Float64

func fvSlice(start, stop, step int64, hasStart, hasStop bool) core.IndexOp {
	return core.IndexOp{Kind: core.IdxSlice, Start: start, Stop: stop, Step: step, HasStart: hasStart, HasStop: hasStop}
}

func TestFastIndexTable(t *testing.T) {
	t.Parallel()
	I := func(i int64) core.IndexOp { return core.IndexOp{Kind: core.IdxInt, I: i} }
	all := fvSlice(0, 0, 1, false, false)
	rev := fvSlice(0, 0, -1, false, false)
	ell := core.IndexOp{Kind: core.IdxEllipsis}
	nax := core.IndexOp{Kind: core.IdxNewAxis}
	cases := []struct {
		name    string
		shape   []int64
		strides []int64
		offset  int64
		ops     []core.IndexOp
	}{
		{"int", []int64{4, 6}, []int64{6, 1}, 0, []core.IndexOp{I(1)}},
		{"negative int", []int64{4, 6}, []int64{6, 1}, 3, []core.IndexOp{I(-1), I(-6)}},
		{"reversed", []int64{4, 6}, []int64{6, 1}, 0, []core.IndexOp{rev, fvSlice(0, 0, -2, false, false)}},
		{"strided", []int64{4, 6}, []int64{6, 1}, 0, []core.IndexOp{fvSlice(1, 0, 2, true, false), fvSlice(0, 5, 3, false, true)}},
		{"ellipsis and new axes", []int64{2, 3, 4}, []int64{12, 4, 1}, 0, []core.IndexOp{nax, ell, I(1), nax}},
		{"empty slice", []int64{4, 6}, []int64{6, 1}, 0, []core.IndexOp{fvSlice(2, 2, 1, true, true)}},
		{"empty array", []int64{0, 6}, []int64{6, 1}, 0, []core.IndexOp{all, I(5)}},
		{"negative strides", []int64{5, 3}, []int64{-3, -1}, 14, []core.IndexOp{fvSlice(-1, -6, -2, true, true)}},
		{"0-d", []int64{}, []int64{}, 0, []core.IndexOp{ell, nax}},
		{"no ops", []int64{3}, []int64{1}, 0, nil},
		{"huge slice bounds", []int64{7}, []int64{1}, 0, []core.IndexOp{fvSlice(math.MinInt64, math.MaxInt64, math.MinInt64, true, true)}},
		{"out of range", []int64{4}, []int64{1}, 0, []core.IndexOp{I(4)}},
		{"too many", []int64{4}, []int64{1}, 0, []core.IndexOp{I(0), I(0)}},
		{"two ellipses", []int64{4}, []int64{1}, 0, []core.IndexOp{ell, ell}},
		{"step zero", []int64{4}, []int64{1}, 0, []core.IndexOp{fvSlice(0, 0, 0, false, false)}},
		{"offset overflow", []int64{4}, []int64{math.MaxInt64 / 2}, 0, []core.IndexOp{I(3)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, flags := range []uint64{0, core.HeaderReadOnly} {
				h := fvHeader(t, fvF64, core.CPU, c.shape, c.strides, c.offset, flags)
				checkFastIndex(t, h, c.shape, c.strides, c.ops)
			}
		})
	}
	// what the twin leaves to Go: another device, a sub-byte or multi-lane dtype
	for _, h := range []*core.Header{
		fvHeader(t, fvF64, core.Device{Type: 14, ID: 0}, []int64{3}, []int64{1}, 0, 0),
		fvHeader(t, core.DataType{Code: core.KDLInt, Bits: 4, Lanes: 1}, core.CPU, []int64{3}, []int64{1}, 0, 0),
		fvHeader(t, core.DataType{Code: core.KDLFloat, Bits: 32, Lanes: 4}, core.CPU, []int64{3}, []int64{1}, 0, 0),
	} {
		_, _, _, ok := cfixture.FastIndex(h, []int64{3}, []int64{1}, []core.IndexOp{I(1)})
		assert.False(t, ok, "%v on %v", h.DType, h.Device)
	}
}

// fvOps decodes fuzz bytes into index ops (3 bytes each).
func fvOps(b []byte) []core.IndexOp {
	var ops []core.IndexOp
	for i := 0; i+2 < len(b) && len(ops) < 8; i += 3 {
		v1, v2 := int64(int8(b[i+1])), int64(int8(b[i+2]))
		switch b[i] % 5 {
		case 0:
			ops = append(ops, core.IndexOp{Kind: core.IdxInt, I: v1})
		case 1, 2:
			ops = append(ops, fvSlice(v1%9, v2%9, v2/32, b[i]&8 != 0, b[i]&16 != 0))
		case 3:
			ops = append(ops, core.IndexOp{Kind: core.IdxEllipsis})
		case 4:
			ops = append(ops, core.IndexOp{Kind: core.IdxNewAxis})
		}
	}
	return ops
}

// fvLayout decodes fuzz bytes into a shape (dims 0..6) and strides (-20..20).
func fvLayout(b []byte) (shape, strides []int64) {
	for i := 0; i+1 < len(b) && len(shape) < 5; i += 2 {
		shape = append(shape, int64(b[i]%7))
		strides = append(strides, int64(int8(b[i+1]))%21)
	}
	return shape, strides
}

func FuzzFastIndex(f *testing.F) {
	f.Add([]byte{4, 6, 6, 1}, []byte{1, 1, 0, 2, 255, 200}, int64(0), false)
	f.Add([]byte{3, 253, 2, 1}, []byte{3, 0, 0, 4, 0, 0, 0, 255, 0}, int64(9), true)
	f.Add([]byte{0, 5, 2, 1}, []byte{9, 1, 255}, int64(0), false)
	f.Fuzz(func(t *testing.T, layout, ops []byte, offset int64, readonly bool) {
		shape, strides := fvLayout(layout)
		flags := uint64(0)
		if readonly {
			flags = core.HeaderReadOnly
		}
		h := fvHeader(t, fvF64, core.CPU, shape, strides, offset, flags)
		checkFastIndex(t, h, shape, strides, fvOps(ops))
	})
}

func TestFastIndexRandomLayouts(t *testing.T) {
	t.Parallel()
	// every small layout against a spread of index expressions
	seed := byte(7)
	next := func() byte { seed = seed*73 + 41; return seed }
	for n := 0; n < 4000; n++ {
		layout := make([]byte, 2*int(next()%5))
		for i := range layout {
			layout[i] = next()
		}
		ops := make([]byte, 3*int(next()%5))
		for i := range ops {
			ops[i] = next()
		}
		shape, strides := fvLayout(layout)
		h := fvHeader(t, fvF64, core.CPU, shape, strides, int64(next()), 0)
		checkFastIndex(t, h, shape, strides, fvOps(ops))
	}
}

func TestFastTranspose(t *testing.T) {
	t.Parallel()
	shape, strides := []int64{2, 3, 4}, []int64{12, 4, 1}
	for _, axes := range [][]int{nil, {0, 1, 2}, {2, 0, 1}, {-1, 0, 1}, {1, 1, 0}, {0, 1}, {0, 1, 3}, {-4, 0, 1}} {
		h := fvHeader(t, fvF64, core.CPU, shape, strides, 5, core.HeaderReadOnly)
		var want core.Header
		wsh, wst := make([]int64, 3), make([]int64, 3)
		err := core.TransposeDesc(h, shape, strides, axes, &want, wsh, wst)
		got, gsh, gst, ok := cfixture.FastTranspose(h, shape, strides, axes)
		assert.Equal(t, err == nil, ok, "axes %v: core %v", axes, err)
		if ok {
			assert.Equal(t, want, got, "axes %v", axes)
			assert.Equal(t, wsh, gsh, "axes %v", axes)
			assert.Equal(t, wst, gst, "axes %v", axes)
		}
	}
}

func TestFastReshape(t *testing.T) {
	t.Parallel()
	cases := []struct {
		shape, strides, newShape []int64
		fast                     bool // the twin answers (C-contiguous input, valid shape)
	}{
		{[]int64{2, 3, 4}, []int64{12, 4, 1}, []int64{6, 4}, true},
		{[]int64{2, 3, 4}, []int64{12, 4, 1}, []int64{-1}, true},
		{[]int64{2, 3, 4}, []int64{12, 4, 1}, []int64{4, -1, 2}, true},
		{[]int64{2, 3, 4}, []int64{12, 4, 1}, []int64{}, false},
		{[]int64{1}, []int64{5}, []int64{}, true},
		{[]int64{0, 3}, []int64{-7, 2}, []int64{3, 0, 5}, true},
		{[]int64{2, 3, 4}, []int64{12, 4, 1}, []int64{5, -1}, false},
		{[]int64{2, 3, 4}, []int64{12, 4, 1}, []int64{-1, -1}, false},
		{[]int64{2, 3}, []int64{1, 2}, []int64{6}, false},    // Fortran order: Go copies or refuses
		{[]int64{2, 3}, []int64{6, 2}, []int64{3, 2}, false}, // strided: Go's nocopy rule
	}
	for _, c := range cases {
		h := fvHeader(t, fvF64, core.CPU, c.shape, c.strides, 2, 0)
		ws := append([]int64(nil), c.newShape...)
		var want core.Header
		wst := make([]int64, len(ws))
		err := core.ReshapeDesc(h, c.shape, c.strides, ws, &want, wst)
		gs := append([]int64(nil), c.newShape...)
		got, gst, ok := cfixture.FastReshape(h, c.shape, c.strides, gs)
		require.Equal(t, c.fast, ok, "%v -> %v", c.shape, c.newShape)
		if ok {
			require.NoError(t, err)
			assert.Equal(t, want, got, "%v -> %v", c.shape, c.newShape)
			assert.Equal(t, ws, gs, "resolved shape")
			assert.Equal(t, wst, gst, "%v -> %v", c.shape, c.newShape)
		}
	}
}
