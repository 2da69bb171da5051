package tests_go

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
)

// Python slice semantics: expected indices computed with CPython
// (list(range(n))[slice(start, stop, step)]).
var vwSliceCases = []struct {
	n        int64
	start    int64
	hasStart bool
	stop     int64
	hasStop  bool
	step     int64
	want     []int64
}{
	{0, 0, false, 0, false, 1, []int64{}},
	{0, 0, false, 0, false, -1, []int64{}},
	{0, 1, true, 0, false, 2, []int64{}},
	{0, 0, false, 0, false, -2, []int64{}},
	{0, -1, true, 0, false, -1, []int64{}},
	{0, -2, true, 1, true, -1, []int64{}},
	{0, 0, true, 100, true, 3, []int64{}},
	{0, -100, true, 100, true, 1, []int64{}},
	{0, 100, true, -100, true, -1, []int64{}},
	{0, 3, true, 1, true, 1, []int64{}},
	{0, 1, true, 3, true, -1, []int64{}},
	{0, 0, false, -100, true, -1, []int64{}},
	{0, 2, true, 0, false, -3, []int64{}},
	{0, -3, true, -1, true, 1, []int64{}},
	{0, 6, true, 0, true, -4, []int64{}},
	{0, 0, false, 0, false, 5, []int64{}},
	{0, 0, false, 0, false, -7, []int64{}},
	{0, 0, true, 0, true, 1, []int64{}},
	{0, 0, false, 3, true, -1, []int64{}},
	{0, 4, true, 0, false, 1, []int64{}},
	{0, 0, false, 0, false, math.MinInt64, []int64{}},
	{0, math.MinInt64, true, math.MaxInt64, true, math.MaxInt64, []int64{}},
	{1, 0, false, 0, false, 1, []int64{0}},
	{1, 0, false, 0, false, -1, []int64{0}},
	{1, 1, true, 0, false, 2, []int64{}},
	{1, 0, false, 0, false, -2, []int64{0}},
	{1, -1, true, 0, false, -1, []int64{0}},
	{1, -2, true, 1, true, -1, []int64{}},
	{1, 0, true, 100, true, 3, []int64{0}},
	{1, -100, true, 100, true, 1, []int64{0}},
	{1, 100, true, -100, true, -1, []int64{0}},
	{1, 3, true, 1, true, 1, []int64{}},
	{1, 1, true, 3, true, -1, []int64{}},
	{1, 0, false, -100, true, -1, []int64{0}},
	{1, 2, true, 0, false, -3, []int64{0}},
	{1, -3, true, -1, true, 1, []int64{}},
	{1, 6, true, 0, true, -4, []int64{}},
	{1, 0, false, 0, false, 5, []int64{0}},
	{1, 0, false, 0, false, -7, []int64{0}},
	{1, 0, true, 0, true, 1, []int64{}},
	{1, 0, false, 3, true, -1, []int64{}},
	{1, 4, true, 0, false, 1, []int64{}},
	{1, 0, false, 0, false, math.MinInt64, []int64{0}},
	{1, math.MinInt64, true, math.MaxInt64, true, math.MaxInt64, []int64{0}},
	{5, 0, false, 0, false, 1, []int64{0, 1, 2, 3, 4}},
	{5, 0, false, 0, false, -1, []int64{4, 3, 2, 1, 0}},
	{5, 1, true, 0, false, 2, []int64{1, 3}},
	{5, 0, false, 0, false, -2, []int64{4, 2, 0}},
	{5, -1, true, 0, false, -1, []int64{4, 3, 2, 1, 0}},
	{5, -2, true, 1, true, -1, []int64{3, 2}},
	{5, 0, true, 100, true, 3, []int64{0, 3}},
	{5, -100, true, 100, true, 1, []int64{0, 1, 2, 3, 4}},
	{5, 100, true, -100, true, -1, []int64{4, 3, 2, 1, 0}},
	{5, 3, true, 1, true, 1, []int64{}},
	{5, 1, true, 3, true, -1, []int64{}},
	{5, 0, false, -100, true, -1, []int64{4, 3, 2, 1, 0}},
	{5, 2, true, 0, false, -3, []int64{2}},
	{5, -3, true, -1, true, 1, []int64{2, 3}},
	{5, 6, true, 0, true, -4, []int64{4}},
	{5, 0, false, 0, false, 5, []int64{0}},
	{5, 0, false, 0, false, -7, []int64{4}},
	{5, 0, true, 0, true, 1, []int64{}},
	{5, 0, false, 3, true, -1, []int64{4}},
	{5, 4, true, 0, false, 1, []int64{4}},
	{5, 0, false, 0, false, math.MinInt64, []int64{4}},
	{5, math.MinInt64, true, math.MaxInt64, true, math.MaxInt64, []int64{0}},
	{7, 0, false, 0, false, 1, []int64{0, 1, 2, 3, 4, 5, 6}},
	{7, 0, false, 0, false, -1, []int64{6, 5, 4, 3, 2, 1, 0}},
	{7, 1, true, 0, false, 2, []int64{1, 3, 5}},
	{7, 0, false, 0, false, -2, []int64{6, 4, 2, 0}},
	{7, -1, true, 0, false, -1, []int64{6, 5, 4, 3, 2, 1, 0}},
	{7, -2, true, 1, true, -1, []int64{5, 4, 3, 2}},
	{7, 0, true, 100, true, 3, []int64{0, 3, 6}},
	{7, -100, true, 100, true, 1, []int64{0, 1, 2, 3, 4, 5, 6}},
	{7, 100, true, -100, true, -1, []int64{6, 5, 4, 3, 2, 1, 0}},
	{7, 3, true, 1, true, 1, []int64{}},
	{7, 1, true, 3, true, -1, []int64{}},
	{7, 0, false, -100, true, -1, []int64{6, 5, 4, 3, 2, 1, 0}},
	{7, 2, true, 0, false, -3, []int64{2}},
	{7, -3, true, -1, true, 1, []int64{4, 5}},
	{7, 6, true, 0, true, -4, []int64{6, 2}},
	{7, 0, false, 0, false, 5, []int64{0, 5}},
	{7, 0, false, 0, false, -7, []int64{6}},
	{7, 0, true, 0, true, 1, []int64{}},
	{7, 0, false, 3, true, -1, []int64{6, 5, 4}},
	{7, 4, true, 0, false, 1, []int64{4, 5, 6}},
	{7, 0, false, 0, false, math.MinInt64, []int64{6}},
	{7, math.MinInt64, true, math.MaxInt64, true, math.MaxInt64, []int64{0}},
}

func vwValues(t testing.TB, a *core.Array) []float64 {
	t.Helper()
	vals, err := core.Values[float64](a)
	require.NoError(t, err)
	out := []float64{}
	for v := range vals {
		out = append(out, v)
	}
	return out
}

func TestSlicePythonSemantics(t *testing.T) {
	t.Parallel()
	for _, c := range vwSliceCases {
		a := arIota(t, c.n)
		v, err := a.SliceOps(core.IndexOp{Kind: core.IdxSlice, Start: c.start, Stop: c.stop, Step: c.step, HasStart: c.hasStart, HasStop: c.hasStop})
		require.NoError(t, err, "%+v", c)
		want := make([]float64, len(c.want))
		for i, x := range c.want {
			want[i] = float64(x)
		}
		assert.Equal(t, want, vwValues(t, v), "%+v", c)
		assert.Equal(t, []int64{int64(len(c.want))}, v.Shape())
		v.Release()

		// Array.Slice takes explicit bounds; with None it is the same case
		// through MinInt64 / MaxInt64.
		if c.step == math.MinInt64 {
			continue
		}
		start, stop := c.start, c.stop
		if !c.hasStart {
			start = map[bool]int64{true: math.MaxInt64, false: 0}[c.step < 0]
		}
		if !c.hasStop {
			stop = map[bool]int64{true: math.MinInt64, false: math.MaxInt64}[c.step < 0]
		}
		v, err = a.Slice(0, start, stop, c.step)
		require.NoError(t, err)
		assert.Equal(t, want, vwValues(t, v), "Slice %+v", c)
		v.Release()
	}
}

func TestSlice2D(t *testing.T) {
	t.Parallel()
	a := arIota(t, 3, 5)
	cases := []struct {
		axis              int
		start, stop, step int64
		shape, strides    []int64
		offset            int64
		values            []float64
	}{
		{1, 1, 4, 2, []int64{3, 2}, []int64{5, 2}, 1, []float64{1, 3, 6, 8, 11, 13}},
		{-1, -1, math.MinInt64, -2, []int64{3, 3}, []int64{5, -2}, 4, []float64{4, 2, 0, 9, 7, 5, 14, 12, 10}},
		{0, 2, math.MinInt64, -1, []int64{3, 5}, []int64{-5, 1}, 10, []float64{10, 11, 12, 13, 14, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4}},
		{0, 1, 1, 1, []int64{0, 5}, []int64{5, 1}, 0, []float64{}},
		{0, -1, 100, 7, []int64{1, 5}, []int64{5, 1}, 10, []float64{10, 11, 12, 13, 14}},
	}
	for _, c := range cases {
		v, err := a.Slice(c.axis, c.start, c.stop, c.step)
		require.NoError(t, err, "%+v", c)
		assert.Equal(t, c.shape, v.Shape(), "%+v", c)
		assert.Equal(t, c.strides, v.Strides(), "%+v", c)
		assert.Equal(t, c.offset, v.Header().Offset, "%+v", c)
		assert.Equal(t, c.values, vwValues(t, v), "%+v", c)
		v.Release()
	}
	_, err := a.Slice(0, 0, 3, 0)
	assert.ErrorIs(t, err, core.ErrIndex, "step 0")
	assert.Equal(t, core.ClassIndex, core.ClassOf(err))
	_, err = a.Slice(2, 0, 3, 1)
	assert.ErrorIs(t, err, core.ErrAxis)
	_, err = a.Slice(-3, 0, 3, 1)
	assert.ErrorIs(t, err, core.ErrAxis)
}

func TestIndex(t *testing.T) {
	t.Parallel()
	a := arIota(t, 3, 4)
	r, err := a.Index(-1)
	require.NoError(t, err)
	defer r.Release()
	assert.Equal(t, []int64{4}, r.Shape())
	assert.Equal(t, []float64{8, 9, 10, 11}, vwValues(t, r))
	s, err := r.Index(2)
	require.NoError(t, err)
	defer s.Release()
	assert.Equal(t, 0, s.Ndim())
	assert.Equal(t, []float64{10}, vwValues(t, s))
	_, err = s.Index(0)
	assert.ErrorIs(t, err, core.ErrIndex, "0-d arrays cannot be indexed")
	for _, i := range []int64{3, -4, math.MaxInt64, math.MinInt64} {
		_, err = a.Index(i)
		assert.ErrorIs(t, err, core.ErrIndex, "index %d", i)
	}
}

func TestApplyIndex(t *testing.T) {
	t.Parallel()
	a := arIota(t, 2, 3, 4)
	h := a.Header()
	I := func(i int64) core.IndexOp { return core.IndexOp{Kind: core.IdxInt, I: i} }
	all := core.IndexOp{Kind: core.IdxSlice, Step: 1}
	rev := core.IndexOp{Kind: core.IdxSlice, Step: -1}
	ell := core.IndexOp{Kind: core.IdxEllipsis}
	na := core.IndexOp{Kind: core.IdxNewAxis}
	cases := []struct {
		name           string
		ops            []core.IndexOp
		shape, strides []int64
		offset         int64
	}{
		{"empty", nil, []int64{2, 3, 4}, []int64{12, 4, 1}, 0},
		{"int", []core.IndexOp{I(1)}, []int64{3, 4}, []int64{4, 1}, 12},
		{"ints", []core.IndexOp{I(1), I(-1), I(2)}, []int64{}, []int64{}, 12 + 8 + 2},
		{"ellipsis int", []core.IndexOp{ell, I(1)}, []int64{2, 3}, []int64{12, 4}, 1},
		{"int ellipsis int", []core.IndexOp{I(1), ell, I(-1)}, []int64{3}, []int64{4}, 15},
		{"newaxis", []core.IndexOp{na, all, na, ell, na}, []int64{1, 2, 1, 3, 4, 1}, []int64{0, 12, 0, 4, 1, 0}, 0},
		{"rev", []core.IndexOp{rev, ell, rev}, []int64{2, 3, 4}, []int64{-12, 4, -1}, 12 + 3},
		{"lone ellipsis", []core.IndexOp{ell}, []int64{2, 3, 4}, []int64{12, 4, 1}, 0},
		{"ellipsis covers nothing", []core.IndexOp{I(0), I(0), ell, I(0)}, []int64{}, []int64{}, 0},
	}
	for _, c := range cases {
		var out core.Header
		var sh, st [core.MaxNdim]int64
		n, err := core.ApplyIndex(&h, a.Shape(), a.Strides(), c.ops, &out, sh[:], st[:])
		require.NoError(t, err, c.name)
		assert.Equal(t, c.shape, sh[:n], c.name)
		assert.Equal(t, c.strides, st[:n], c.name)
		assert.Equal(t, c.offset, out.Offset, c.name)
		assert.Equal(t, int32(n), out.Ndim, c.name)
		assert.Equal(t, h.Owner, out.Owner, c.name)
		assert.Equal(t, int64(1), h.Owner.Refs(), "descriptors take no reference")
	}
	bad := []struct {
		name string
		ops  []core.IndexOp
		want error
	}{
		{"two ellipses", []core.IndexOp{ell, ell}, core.ErrIndex},
		{"too many", []core.IndexOp{I(0), I(0), I(0), I(0)}, core.ErrIndex},
		{"out of range", []core.IndexOp{all, I(3)}, core.ErrIndex},
		{"step 0", []core.IndexOp{{Kind: core.IdxSlice}}, core.ErrIndex},
		{"unknown kind", []core.IndexOp{{Kind: 99}}, core.ErrIndex},
	}
	for _, c := range bad {
		var out core.Header
		var sh, st [core.MaxNdim]int64
		_, err := core.ApplyIndex(&h, a.Shape(), a.Strides(), c.ops, &out, sh[:], st[:])
		assert.ErrorIs(t, err, c.want, c.name)
	}
	// Too many new axes.
	ops := make([]core.IndexOp, core.MaxNdim)
	for i := range ops {
		ops[i] = na
	}
	var out core.Header
	var sh, st [core.MaxNdim]int64
	_, err := core.ApplyIndex(&h, a.Shape(), a.Strides(), ops, &out, sh[:], st[:])
	assert.ErrorIs(t, err, core.ErrNdim)
	// Short output buffers.
	_, err = core.ApplyIndex(&h, a.Shape(), a.Strides(), nil, &out, sh[:2], st[:2])
	assert.ErrorIs(t, err, core.ErrNdim)

	// Outputs may alias inputs.
	shape, strides := a.Shape(), a.Strides()
	hh := h
	n, err := core.ApplyIndex(&hh, shape, strides, []core.IndexOp{rev, I(1)}, &hh, shape, strides)
	require.NoError(t, err)
	assert.Equal(t, []int64{2, 4}, shape[:n])
	assert.Equal(t, []int64{-12, 1}, strides[:n])
	assert.Equal(t, int64(16), hh.Offset)
}

func TestTranspose(t *testing.T) {
	t.Parallel()
	a := arIota(t, 2, 3, 4)
	cases := []struct {
		axes           []int
		shape, strides []int64
	}{
		{nil, []int64{4, 3, 2}, []int64{1, 4, 12}},
		{[]int{0, 1, 2}, []int64{2, 3, 4}, []int64{12, 4, 1}},
		{[]int{1, 0, 2}, []int64{3, 2, 4}, []int64{4, 12, 1}},
		{[]int{-1, 0, -2}, []int64{4, 2, 3}, []int64{1, 12, 4}},
	}
	for _, c := range cases {
		v, err := a.Transpose(c.axes...)
		require.NoError(t, err)
		assert.Equal(t, c.shape, v.Shape(), "%v", c.axes)
		assert.Equal(t, c.strides, v.Strides(), "%v", c.axes)
		v.Release()
	}
	tv := a.T()
	require.NotNil(t, tv)
	defer tv.Release()
	assert.True(t, tv.IsFContiguous())
	x, err := core.At[float64](tv, 3, 2, 1)
	require.NoError(t, err)
	assert.Equal(t, float64(1*12+2*4+3), x)
	for _, axes := range [][]int{{0, 1}, {0, 0, 1}, {0, 1, 3}, {0, 1, -4}, {0, 1, 2, 3}} {
		_, err := a.Transpose(axes...)
		assert.ErrorIs(t, err, core.ErrAxis, "%v", axes)
	}
	s := arIota(t)
	st := s.T()
	require.NotNil(t, st)
	assert.Equal(t, 0, st.Ndim())
	st.Release()
}

func TestReshape(t *testing.T) {
	t.Parallel()
	a := arIota(t, 2, 3, 4)
	cases := []struct {
		name    string
		src     func() *core.Array
		shape   []int64
		want    []int64 // resolved shape
		strides []int64
	}{
		{"flat", func() *core.Array { return a }, []int64{24}, []int64{24}, []int64{1}},
		{"infer", func() *core.Array { return a }, []int64{-1, 6}, []int64{4, 6}, []int64{6, 1}},
		{"ones", func() *core.Array { return a }, []int64{1, 2, 1, 12, 1}, []int64{1, 2, 1, 12, 1}, []int64{24, 12, 12, 1, 1}},
		{"0-d to 1", func() *core.Array { return arIota(t) }, []int64{1, 1}, []int64{1, 1}, []int64{1, 1}},
		{"to 0-d", func() *core.Array { return arIota(t, 1, 1) }, []int64{}, []int64{}, []int64{}},
		{"strided split", func() *core.Array {
			v, err := a.Slice(2, 0, 4, 2) // (2,3,2) strides (12,4,2)
			require.NoError(t, err)
			t.Cleanup(v.Release)
			return v
		}, []int64{6, 2}, []int64{6, 2}, []int64{4, 2}},
		{"reversed merge", func() *core.Array {
			v, err := a.Slice(0, math.MaxInt64, math.MinInt64, -1) // strides (-12,4,1)
			require.NoError(t, err)
			t.Cleanup(v.Release)
			return v
		}, []int64{2, 12}, []int64{2, 12}, []int64{-12, 1}},
		{"transposed split", func() *core.Array { v := a.T(); t.Cleanup(v.Release); return v }, []int64{2, 2, 3, 2}, []int64{2, 2, 3, 2}, []int64{2, 1, 4, 12}},
		{"empty", func() *core.Array { return arIota(t, 0, 3) }, []int64{3, -1, 5}, []int64{3, 0, 5}, []int64{5, 5, 1}},
	}
	for _, c := range cases {
		src := c.src()
		before := vwValues(t, src)
		v, err := src.Reshape(c.shape...)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, v.Shape(), c.name)
		assert.Equal(t, c.strides, v.Strides(), c.name)
		assert.Equal(t, before, vwValues(t, v), "%s: same elements in C order", c.name)
		v.Release()
	}

	// Views are impossible: ErrReshape pointing to Copy().Reshape.
	tv := a.T()
	defer tv.Release()
	_, err := tv.Reshape(24)
	require.ErrorIs(t, err, core.ErrReshape)
	assert.Contains(t, err.Error(), "Copy().Reshape")
	c, err := tv.Copy()
	require.NoError(t, err)
	defer c.Release()
	flat, err := c.Reshape(24)
	require.NoError(t, err)
	defer flat.Release()
	assert.Equal(t, vwValues(t, tv), vwValues(t, flat))

	sl, err := a.Slice(2, 0, 4, 2) // uniform stride 2: merges into a view
	require.NoError(t, err)
	defer sl.Release()
	m, err := sl.Reshape(12)
	require.NoError(t, err)
	assert.Equal(t, []int64{2}, m.Strides())
	m.Release()
	sl2, err := a.Slice(1, 0, 2, 1) // (2,2,4) strides (12,4,1): a gap
	require.NoError(t, err)
	defer sl2.Release()
	_, err = sl2.Reshape(16)
	assert.ErrorIs(t, err, core.ErrReshape)
	m, err = sl2.Reshape(2, 8)
	require.NoError(t, err, "merging the contiguous inner axes is a view")
	assert.Equal(t, []int64{12, 1}, m.Strides())
	m.Release()

	for _, shape := range [][]int64{{25}, {-1, -1}, {5, -1}, {-2, 12}, {0, -1}} {
		_, err := a.Reshape(shape...)
		assert.ErrorIs(t, err, core.ErrReshape, "%v", shape)
	}
	big := make([]int64, core.MaxNdim+1)
	for i := range big {
		big[i] = 1
	}
	_, err = arIota(t).Reshape(big...)
	assert.ErrorIs(t, err, core.ErrNdim)
}

func TestReshapeDescWritesInferred(t *testing.T) {
	t.Parallel()
	a := arIota(t, 4, 6)
	h := a.Header()
	ns := []int64{2, -1, 3}
	var out core.Header
	st := make([]int64, 3)
	require.NoError(t, core.ReshapeDesc(&h, a.Shape(), a.Strides(), ns, &out, st))
	assert.Equal(t, []int64{2, 4, 3}, ns)
	assert.Equal(t, []int64{12, 3, 1}, st)
	assert.Equal(t, int32(3), out.Ndim)
}

// Views hold their own reference: they outlive the parent, and releasing
// everything brings the owner back to its baseline.
func TestViewsOutliveParent(t *testing.T) {
	t.Parallel()
	a, err := core.Empty(core.Float64, 4, 5)
	require.NoError(t, err)
	xs, err := a.Float64s()
	require.NoError(t, err)
	for i := range xs {
		xs[i] = float64(i)
	}
	o := a.Header().Owner
	o.Retain() // baseline 1: ours
	defer o.Release()

	idx, err := a.Index(2)
	require.NoError(t, err)
	sl, err := a.Slice(1, math.MaxInt64, math.MinInt64, -2)
	require.NoError(t, err)
	tr := a.T()
	rs, err := a.Reshape(10, 2)
	require.NoError(t, err)
	nested, err := tr.Slice(0, 1, 3, 1)
	require.NoError(t, err)
	assert.Equal(t, int64(7), o.Refs())

	a.Release()
	assert.Equal(t, int64(6), o.Refs())
	assert.Equal(t, []float64{10, 11, 12, 13, 14}, vwValues(t, idx))
	assert.Equal(t, []float64{4, 2, 0, 9, 7, 5, 14, 12, 10, 19, 17, 15}, vwValues(t, sl))
	assert.Equal(t, []float64{1, 6, 11, 16, 2, 7, 12, 17}, vwValues(t, nested))
	v, err := core.At[float64](rs, 9, 1)
	require.NoError(t, err)
	assert.Equal(t, 19.0, v)

	for _, v := range []*core.Array{idx, sl, tr, rs, nested} {
		v.Release()
		v.Release()
	}
	assert.Equal(t, int64(1), o.Refs(), "back to the baseline")
}

func TestSubByteViews(t *testing.T) {
	t.Parallel()
	for _, dt := range []core.DataType{core.Float4E2M1FN, core.Float6E2M3FN} {
		a, err := core.Zeros(dt, 4, 4)
		require.NoError(t, err)
		_, err = a.Index(0)
		assert.ErrorIs(t, err, core.ErrSubByteView)
		_, err = a.Slice(0, 0, 2, 1)
		assert.ErrorIs(t, err, core.ErrSubByteView)
		_, err = a.Transpose()
		assert.ErrorIs(t, err, core.ErrSubByteView)
		assert.Nil(t, a.T())
		_, err = a.Reshape(16)
		assert.ErrorIs(t, err, core.ErrSubByteView)
		_, err = a.Copy()
		assert.ErrorIs(t, err, core.ErrSubByteView)
		h := a.Header()
		var out core.Header
		var sh, st [core.MaxNdim]int64
		_, err = core.ApplyIndex(&h, a.Shape(), a.Strides(), nil, &out, sh[:], st[:])
		assert.ErrorIs(t, err, core.ErrSubByteView)
		b, err := core.Empty(dt, 4, 4)
		require.NoError(t, err)
		bh := b.Header()
		assert.ErrorIs(t, core.CopyInto(&bh, b.Shape(), b.Strides(), &h, a.Shape(), a.Strides()), core.ErrSubByteView)
		raw, err := a.Bytes()
		require.NoError(t, err, "raw bytes of a contiguous packed array are fine")
		assert.Len(t, raw, int(a.NBytes()))
		b.Release()
		a.Release()
	}
}

// Offsets and strides are int64 with overflow checks: absurd strides (only
// possible through NewArray, imports are validated) give ErrOverflow, never
// a wrapped offset.
func TestViewOverflow(t *testing.T) {
	t.Parallel()
	a := arIota(t, 4)
	v := core.NewArray(a.Header(), []int64{3}, []int64{1 << 62})
	defer v.Release()
	_, err := v.Index(2)
	assert.ErrorIs(t, err, core.ErrOverflow)
	_, err = v.Slice(0, 0, 3, 2)
	assert.ErrorIs(t, err, core.ErrOverflow)
	w := core.NewArray(a.Header(), []int64{3}, []int64{-(1 << 62) - 1})
	defer w.Release()
	_, err = w.Slice(0, 0, 3, 2)
	assert.ErrorIs(t, err, core.ErrOverflow)
	x, err := w.Slice(0, 0, 3, 5) // a single element: the stride is not multiplied
	require.NoError(t, err)
	x.Release()
	assert.Equal(t, "Array(dtype=float64, shape=[3], strides=[4611686018427387904], device=cpu:0)", v.String())
}

// ReshapeOrCopy is numpy's reshape: a view when the strides allow it (one
// new reference on the same owner), else a C-contiguous copy on the array's
// own device (a new owner); a size mismatch is refused either way.
func TestReshapeOrCopy(t *testing.T) {
	t.Parallel()
	a := arIota(t, 4, 6)
	at, err := a.Transpose()
	require.NoError(t, err)
	defer at.Release()
	cases := []struct {
		name    string
		src     *core.Array
		shape   []int64
		want    []int64 // the resolved shape
		view    bool
		refused bool
	}{
		{"contiguous: a view", a, []int64{2, -1}, []int64{2, 12}, true, false},
		{"transposed: a copy", at, []int64{24}, []int64{24}, false, false},
		{"transposed, -1: a copy", at, []int64{-1, 2}, []int64{12, 2}, false, false},
		{"transposed, same shape: a view", at, []int64{6, -1}, []int64{6, 4}, true, false},
		{"size mismatch", a, []int64{5, 5}, nil, false, true},
		{"size mismatch, transposed", at, []int64{25}, nil, false, true},
		{"two unknowns", at, []int64{-1, -1}, nil, false, true},
	}
	for _, c := range cases {
		h := c.src.Header()
		before := h.Owner.Refs()
		var out core.Header
		st := make([]int64, len(c.shape))
		ns := append([]int64(nil), c.shape...)
		err := core.ReshapeOrCopy(&h, c.src.Shape(), c.src.Strides(), ns, &out, st)
		if c.refused {
			require.ErrorIs(t, err, core.ErrReshape, c.name)
			assert.Equal(t, before, h.Owner.Refs(), "%s: no reference taken", c.name)
			continue
		}
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, ns, c.name)
		assert.Equal(t, c.view, out.Owner == h.Owner, "%s: same owner", c.name)
		assert.Equal(t, out.Device, h.Device, c.name)
		if c.view {
			assert.Equal(t, before+1, h.Owner.Refs(), "%s: one new reference", c.name)
		}
		v := core.NewArray(out, ns, st)
		vc, err := v.Copy()
		require.NoError(t, err, c.name)
		flat, err := vc.Float64s()
		require.NoError(t, err, c.name)
		src, err := c.src.Copy()
		require.NoError(t, err)
		want, err := src.Float64s()
		require.NoError(t, err)
		assert.Equal(t, want, flat, "%s: C order of the source", c.name)
		src.Release()
		vc.Release()
		v.Release()
	}
}

// TestViewDTypeDesc: a.view(dtype) as numpy: the same itemsize keeps any
// layout; another needs a C-contiguous array and rescales its last axis
// (the first element's address kept when an offset is not a whole number
// of the new elements); sub-byte dtypes and other layouts are refused.
func TestViewDTypeDesc(t *testing.T) {
	t.Parallel()
	a, err := core.Empty(core.Uint8, 3, 8)
	require.NoError(t, err)
	defer a.Release()
	h, shape, strides := a.Header(), a.Shape(), a.Strides()
	cases := []struct {
		name           string
		shape, strides []int64
		offset         int64
		dt             core.DataType
		wantShape      []int64
		wantStrides    []int64
		wantErr        error
		wantDataShift  int64
		wantOffsetKept bool
	}{
		{"same size, any layout", []int64{8, 3}, []int64{1, 8}, 0, core.Int8, []int64{8, 3}, []int64{1, 8}, nil, 0, true},
		{"wider", shape, strides, 0, core.Float32, []int64{3, 2}, []int64{2, 1}, nil, 0, false},
		{"wider from an offset", []int64{2, 8}, []int64{8, 1}, 8, core.Uint16, []int64{2, 4}, []int64{4, 1}, nil, 8, false},
		{"bytes that do not fill the last", []int64{3, 6}, []int64{6, 1}, 0, core.Float32, nil, nil, core.ErrArgument, 0, false},
		{"a transposed array, another size", []int64{8, 3}, []int64{1, 8}, 0, core.Uint16, nil, nil, core.ErrArgument, 0, false},
		{"0-d, another size", []int64{}, []int64{}, 0, core.Uint16, nil, nil, core.ErrArgument, 0, false},
		{"to a sub-byte dtype", shape, strides, 0, core.Float4E2M1FN, nil, nil, core.ErrSubByteView, 0, false},
	}
	for _, c := range cases {
		in := h
		in.Offset = c.offset
		var out core.Header
		osh, ost := make([]int64, core.MaxNdim), make([]int64, core.MaxNdim)
		err := core.ViewDTypeDesc(&in, c.shape, c.strides, c.dt, &out, osh, ost)
		if c.wantErr != nil {
			require.ErrorIs(t, err, c.wantErr, c.name)
			assert.Equal(t, core.ClassValue, core.ClassOf(err), c.name)
			assert.True(t, strings.HasPrefix(err.Error(), "view(): "), err.Error())
			continue
		}
		require.NoError(t, err, c.name)
		nd := len(c.shape)
		assert.Equal(t, c.wantShape, osh[:nd], c.name)
		assert.Equal(t, c.wantStrides, ost[:nd], c.name)
		assert.Equal(t, c.dt, out.DType, c.name)
		assert.Equal(t, h.Owner, out.Owner, c.name)
		if c.wantOffsetKept {
			assert.Equal(t, c.offset, out.Offset, c.name)
			assert.Equal(t, h.Data, out.Data, c.name)
		} else {
			assert.Equal(t, int64(0), out.Offset, c.name)
			assert.Equal(t, uintptr(h.Data)+uintptr(c.wantDataShift), uintptr(out.Data), c.name)
		}
	}
}
