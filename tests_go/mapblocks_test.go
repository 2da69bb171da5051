package tests_go

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
)

// core.MapBlocks (issue 37): an element-wise loop over out and inputs of
// any layout, broadcast as numpy's ufuncs do, gives what the same loop over
// indices gives, with every input read before out is written (numpy's rule
// for overlapping operands); out's memory changes at its elements only.

type mapCase struct {
	name string
	out  blockView
	ins  []blockView
	// inOut[k]: input k lies in out's memory (else in a base of its own)
	inOut []bool
}

func mapCases() []mapCase {
	c3 := blockView{shape: []int64{3, 4, 5}, strides: []int64{20, 5, 1}}
	return []mapCase{
		{name: "contiguous", out: c3, ins: []blockView{c3, c3}},
		{name: "transposed out, C inputs", out: blockView{shape: []int64{5, 4, 3}, strides: []int64{1, 5, 20}},
			ins: []blockView{{shape: []int64{5, 4, 3}, strides: []int64{12, 3, 1}}, {offset: 7, shape: []int64{3},
				strides: []int64{-2}}}},
		{name: "long rows, a broadcast row", out: blockView{shape: []int64{3, 200}, strides: []int64{250, 1}},
			ins: []blockView{{shape: []int64{3, 200}, strides: []int64{200, 1}}, {shape: []int64{200}, strides: []int64{1}}}},
		{name: "0-d input", out: blockView{shape: []int64{6, 70}, strides: []int64{70, 1}},
			ins: []blockView{{offset: 3, shape: []int64{6, 70}, strides: []int64{71, 1}}, {offset: 9, shape: []int64{}}}},
		{name: "negative out", out: blockView{offset: 59, shape: []int64{3, 20}, strides: []int64{-20, -1}},
			ins: []blockView{{shape: []int64{3, 20}, strides: []int64{20, 1}}, {offset: 2, shape: []int64{3, 1},
				strides: []int64{5, 1}}}},
		{name: "long strided run", out: blockView{offset: 1, shape: []int64{9000}, strides: []int64{3}},
			ins: []blockView{{shape: []int64{9000}, strides: []int64{1}}, {offset: 20000, shape: []int64{9000},
				strides: []int64{-1}}}},
		{name: "Fortran out, a column", out: blockView{shape: []int64{6, 10}, strides: []int64{1, 6}},
			ins: []blockView{{shape: []int64{6, 1}, strides: []int64{1, 1}}, {shape: []int64{1, 10}, strides: []int64{1, 3}}}},
		{name: "0-d", out: blockView{offset: 17, shape: []int64{}},
			ins: []blockView{{offset: 4, shape: []int64{}}, {offset: 5, shape: []int64{}}}},
		{name: "empty", out: blockView{shape: []int64{4, 0, 3}, strides: []int64{3, 3, 1}},
			ins: []blockView{{shape: []int64{0, 1}, strides: []int64{1, 1}}, {shape: []int64{3}, strides: []int64{1}}}},
		{name: "in place (input 0 is out)", out: blockView{offset: 3, shape: []int64{40, 30}, strides: []int64{31, 1}},
			ins: []blockView{{offset: 3, shape: []int64{40, 30}, strides: []int64{31, 1}}, {shape: []int64{30},
				strides: []int64{2}}}, inOut: []bool{true, false}},
		{name: "overlap shifted by one", out: blockView{offset: 1, shape: []int64{5000}, strides: []int64{1}},
			ins: []blockView{{shape: []int64{5000}, strides: []int64{1}}, {offset: 2, shape: []int64{5000},
				strides: []int64{1}}}, inOut: []bool{true, true}},
		{name: "overlap reversed", out: blockView{shape: []int64{100, 30}, strides: []int64{30, 1}},
			ins: []blockView{{offset: 2999, shape: []int64{100, 30}, strides: []int64{-30, -1}}, {offset: 7,
				shape: []int64{30}, strides: []int64{0}}}, inOut: []bool{true, false}},
		{name: "overlap, strided out", out: blockView{shape: []int64{9000}, strides: []int64{2}},
			ins: []blockView{{offset: 1, shape: []int64{9000}, strides: []int64{2}}, {shape: []int64{9000},
				strides: []int64{1}}}, inOut: []bool{true, true}},
	}
}

// inOffset is the element offset of input v at out's C-order index idx
// (v's axes aligned to out's last ones, size-1 axes repeating).
func inOffset(v blockView, idx []int64) int64 {
	off, lead := v.offset, len(idx)-len(v.shape)
	for d, n := range v.shape {
		if n != 1 {
			off += idx[lead+d] * v.strides[d]
		}
	}
	return off
}

func TestMapBlocksIsTheIndexLoopWithInputsReadFirst(t *testing.T) {
	t.Parallel()
	checkMapBlocks(t)
}

func checkMapBlocks(t *testing.T) {
	for _, c := range mapCases() {
		mems := make([][]float64, 3) // out's base, then each input's own
		bases := make([]*core.Array, 3)
		for k := range bases {
			b, err := core.Empty(core.Float64, blockBase)
			require.NoError(t, err)
			defer b.Release()
			bases[k], mems[k] = b, unsafe.Slice((*float64)(b.DataPtr()), blockBase)
			for i := range mems[k] {
				mems[k][i] = float64((i*7+k*13)%101) - 50
			}
		}
		baseOf := func(k int) int { // the base of input k
			if c.inOut != nil && c.inOut[k] {
				return 0
			}
			return 1 + k
		}
		want := slices.Clone(mems[0])
		before := [][]float64{slices.Clone(mems[0]), slices.Clone(mems[1]), slices.Clone(mems[2])}
		offs := c.out.offsets()
		n := int64(1)
		for _, d := range c.out.shape {
			n *= d
		}
		for k := int64(0); k < n; k++ {
			idx, rest := make([]int64, len(c.out.shape)), k
			for d := len(idx) - 1; d >= 0; d-- {
				idx[d], rest = rest%c.out.shape[d], rest/c.out.shape[d]
			}
			x := before[baseOf(0)][inOffset(c.ins[0], idx)]
			y := before[baseOf(1)][inOffset(c.ins[1], idx)]
			want[offs[k]] = before[0][offs[k]] + 2*x + y
		}
		out := viewOf(t, bases[0], c.out)
		ins := []*core.Array{viewOf(t, bases[baseOf(0)], c.ins[0]), viewOf(t, bases[baseOf(1)], c.ins[1])}
		it, err := core.MapBlocks[float64](out, ins...)
		require.NoError(t, err, c.name)
		var seen int64
		for o, in := range it {
			require.Len(t, in, 2, c.name)
			require.Equal(t, len(o), in[0].Len(), c.name)
			require.Equal(t, len(o), in[1].Len(), c.name)
			require.Positive(t, len(o), c.name)
			for i := range o {
				o[i] += 2*in[0].At(i) + in[1].At(i) // read-modify-write
			}
			seen += int64(len(o))
		}
		assert.Equal(t, n, seen, "%s: every element of out once", c.name)
		sameMemory(t, want, mems[0], "%s: out's memory is the index loop's, inputs read before any write", c.name)
		for k := 1; k < 3; k++ {
			sameMemory(t, before[k], mems[k], "%s: input base %d untouched", c.name, k)
		}
		assert.Panics(t, func() {
			for range it {
			}
		}, "%s: a second range", c.name)
	}
}

// sameMemory compares two memories element by element and names the
// first difference (testify's diff of 30,000 elements takes minutes).
func sameMemory(t *testing.T, want, got []float64, msg string, args ...any) {
	t.Helper()
	for i := range want {
		if want[i] != got[i] {
			diffs := 0
			for j := i; j < len(want); j++ {
				if want[j] != got[j] {
					diffs++
				}
			}
			t.Errorf("%s: element %d is %v, want %v (%d elements differ)", fmt.Sprintf(msg, args...), i, got[i],
				want[i], diffs)
			return
		}
	}
}

// Contiguous operands of long runs are their own memory (no copy); a
// gathered out is written back after each step.
func TestMapBlocksHandsOutContiguousMemoryItself(t *testing.T) {
	t.Parallel()
	a, err := core.Zeros(core.Float64, 4, 300)
	require.NoError(t, err)
	defer a.Release()
	b, err := core.Zeros(core.Float64, 300)
	require.NoError(t, err)
	defer b.Release()
	it, err := core.MapBlocks[float64](a, b)
	require.NoError(t, err)
	steps := 0
	for o := range it {
		steps++
		assert.Equal(t, unsafe.Add(a.DataPtr(), (steps-1)*300*8), unsafe.Pointer(&o[0]), "row %d in place", steps)
	}
	assert.Equal(t, 4, steps, "one block per row: b broadcasts along the rows")
}

func TestMapBlocksRefusals(t *testing.T) {
	t.Parallel()
	base, err := core.Zeros(core.Float64, 100)
	require.NoError(t, err)
	defer base.Release()
	f32, err := core.Zeros(core.Float32, 4, 5)
	require.NoError(t, err)
	defer f32.Release()
	v := func(shape, strides []int64) *core.Array {
		return viewOf(t, base, blockView{shape: shape, strides: strides})
	}
	out := v([]int64{4, 5}, []int64{5, 1})
	cases := []struct {
		name    string
		out     *core.Array
		ins     []*core.Array
		err     error
		message string
	}{
		{"an input that does not broadcast", out, []*core.Array{v([]int64{4}, []int64{1})}, core.ErrBroadcast,
			"MapBlocks(): input 0 of shape (4,) does not broadcast to out's shape (4,5)"},
		{"an input with more axes", out, []*core.Array{v([]int64{2, 4, 5}, []int64{0, 5, 1})}, core.ErrBroadcast,
			"does not broadcast"},
		{"a broadcast out", v([]int64{4, 5}, []int64{0, 1}), nil, core.ErrReadOnly, "out is a broadcast view"},
		{"another dtype", out, []*core.Array{f32}, core.ErrDType, "MapBlocks()"},
	}
	for _, c := range cases {
		_, err := core.MapBlocks[float64](c.out, c.ins...)
		require.ErrorIs(t, err, c.err, c.name)
		assert.Contains(t, err.Error(), c.message, c.name)
	}
}
