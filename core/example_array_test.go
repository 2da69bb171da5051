package core_test

import (
	"fmt"
	"math"

	"github.com/godlpack/godlpack/core"
)

// Create an array, fill it through a typed slice, and release it.
func ExampleEmpty() {
	a, err := core.Empty(core.Float64, 2, 3)
	if err != nil {
		panic(err)
	}
	defer a.Release()
	xs, _ := a.Float64s() // aliases the array's C memory until Release
	for i := range xs {
		xs[i] = float64(i)
	}
	fmt.Println(a.Shape(), a.Strides(), a.NBytes(), a.IsCContiguous())
	v, _ := core.At[float64](a, 1, 2)
	fmt.Println(v)
	// Output:
	// [2 3] [3 1] 48 true
	// 5
}

// Views share memory with their parent and hold their own reference, so
// they stay valid after the parent is released.
func ExampleArray_Slice() {
	a, _ := core.Zeros(core.Int32, 6)
	for i := int64(0); i < 6; i++ {
		_ = core.Set(a, int32(i*10), i)
	}
	// a[::-2]: a negative step; MinInt64 plays Python's None as the stop.
	v, err := a.Slice(0, math.MaxInt64, math.MinInt64, -2)
	if err != nil {
		panic(err)
	}
	a.Release()
	defer v.Release()
	vals, _ := core.Values[int32](v)
	for x := range vals {
		fmt.Print(x, " ")
	}
	fmt.Println(v.Strides())
	// Output: 50 30 10 [-2]
}

// Reshape returns a view when the strides allow it, and ErrReshape
// otherwise; copying first always works.
func ExampleArray_Reshape() {
	a, _ := core.Zeros(core.Float32, 2, 3)
	defer a.Release()
	r, _ := a.Reshape(3, -1)
	defer r.Release()
	fmt.Println(r.Shape())

	t := a.T()
	defer t.Release()
	_, err := t.Reshape(6)
	fmt.Println(err != nil)
	c, _ := t.Copy() // C-contiguous
	defer c.Release()
	flat, _ := c.Reshape(6)
	defer flat.Release()
	fmt.Println(flat.Shape())
	// Output:
	// [3 2]
	// true
	// [6]
}

// Iterate over a strided view in C order.
func ExampleAll() {
	a, _ := core.Empty(core.Int64, 2, 2)
	defer a.Release()
	xs, _ := a.Int64s()
	copy(xs, []int64{1, 2, 3, 4})
	t := a.T()
	defer t.Release()
	all, _ := core.All[int64](t)
	for idx, x := range all {
		fmt.Println(idx, x)
	}
	// Output:
	// [0 0] 1
	// [0 1] 3
	// [1 0] 2
	// [1 1] 4
}

// Fill and Sum work on headers, the form the Python skin uses.
func ExampleSum() {
	a, _ := core.Empty(core.Float32, 4, 5)
	defer a.Release()
	h := a.Header()
	_ = core.Fill(&h, a.Shape(), a.Strides(), []byte{0, 0, 0x00, 0x3f}) // 0.5f
	s, _ := core.Sum(&h, a.Shape(), a.Strides())
	fmt.Println(s.Kind == core.SumFloat, s.F)
	// Output: true 10
}

// The zero-allocation descriptor kernels compute views from headers.
func ExampleApplyIndex() {
	a, _ := core.Zeros(core.Uint8, 3, 4)
	defer a.Release()
	h := a.Header()
	var out core.Header
	var shape, strides [core.MaxNdim]int64
	// a[None, -1, ::-2]
	n, _ := core.ApplyIndex(&h, a.Shape(), a.Strides(), []core.IndexOp{
		{Kind: core.IdxNewAxis},
		{Kind: core.IdxInt, I: -1},
		{Kind: core.IdxSlice, Step: -2},
	}, &out, shape[:], strides[:])
	fmt.Println(shape[:n], strides[:n], out.Offset)
	// Output: [1 2] [0 -2] 11
}

// An element-wise loop over arrays of any layout: out = 10*x + y, with y
// a row broadcast over x's rows and x a transposed view.
func ExampleMapBlocks() {
	out, _ := core.Zeros(core.Float64, 2, 3)
	defer out.Release()
	base, _ := core.Empty(core.Float64, 3, 2)
	defer base.Release()
	b, _ := base.Float64s()
	for i := range b {
		b[i] = float64(i) // base is [[0 1] [2 3] [4 5]]
	}
	x := base.T() // [[0 2 4] [1 3 5]]
	defer x.Release()
	y, _ := core.Empty(core.Float64, 3)
	defer y.Release()
	ys, _ := y.Float64s()
	copy(ys, []float64{0.1, 0.2, 0.3})
	it, err := core.MapBlocks[float64](out, x, y)
	if err != nil {
		panic(err)
	}
	for o, in := range it {
		for i := range o {
			o[i] = 10*in[0].At(i) + in[1].At(i)
		}
	}
	res, _ := out.Float64s()
	fmt.Println(res)
	// Output:
	// [0.1 20.2 40.3 10.1 30.2 50.3]
}
