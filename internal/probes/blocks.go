package probes

import (
	"fmt"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/gofunc"
)

// Probes of core.Blocks and ReadBlocks, so that tests_py/test_blocks.py
// compares them with numpy over numpy's own layouts.

func init() {
	gofunc.Func1("_gofunc_blocks_sum", blocksSum, gofunc.Params(gofunc.Array("a")),
		gofunc.Doc("The sum of a's elements as a float64 and the number of blocks, through core.ReadBlocks "+
			"(a test probe)."))
	gofunc.Proc2("_gofunc_blocks_scale", blocksScale, gofunc.Params(gofunc.Array("a"), gofunc.Arg("k")),
		gofunc.Doc("Multiplies every element of a by k in place, through core.Blocks (a test probe)."))
	gofunc.Proc4("_gofunc_map_axpy", mapAxpy, gofunc.Params(gofunc.Array("out"), gofunc.Array("x"),
		gofunc.Array("y"), gofunc.Arg("alpha")),
		gofunc.Doc("out += alpha*x + y element-wise, x and y broadcast to out's shape, through core.MapBlocks\n"+
			"(a test probe; float64 and int64)."))
	gofunc.Func1("_gofunc_keep_block", keepBlock, gofunc.Params(gofunc.Array("a")),
		gofunc.Doc("Sums the float64 block the previous call kept, then keeps the first block of a: a kit\n"+
			"function that breaks Blocks' rule, which GODLPACK_CHECK_BLOCKS=1 catches (a test probe)."))
}

// keptBlock is what keepBlock kept, against the rule that a block is valid
// during its step only.
var keptBlock core.Reader[float64]

func keepBlock(a *core.Array) (float64, error) {
	s := core.SumOf(keptBlock)
	it, err := core.ReadBlocks[float64](a)
	if err != nil {
		return 0, err
	}
	for b := range it {
		keptBlock = b
		break
	}
	return s, nil
}

func mapAxpy(out, x, y *core.Array, alpha int64) error {
	switch out.DType() {
	case core.Float64:
		return mapAxpyOf[float64](out, x, y, alpha)
	case core.Int64:
		return mapAxpyOf[int64](out, x, y, alpha)
	}
	return fmt.Errorf("_gofunc_map_axpy: no probe for %v", out.DType())
}

func mapAxpyOf[T core.Number](out, x, y *core.Array, alpha int64) error {
	it, err := core.MapBlocks[T](out, x, y)
	if err != nil {
		return err
	}
	a := T(alpha)
	for o, in := range it {
		xs, ys := in[0], in[1]
		for i := range o {
			o[i] += a*xs.At(i) + ys.At(i)
		}
	}
	return nil
}

func blocksSum(a *core.Array) (gofunc.Tuple2[float64, int64], error) {
	var s float64
	var n int64
	var err error
	switch a.DType() {
	case core.Int8:
		s, n, err = sumBlocks[int8](a)
	case core.Int16:
		s, n, err = sumBlocks[int16](a)
	case core.Int32:
		s, n, err = sumBlocks[int32](a)
	case core.Int64:
		s, n, err = sumBlocks[int64](a)
	case core.Uint8:
		s, n, err = sumBlocks[uint8](a)
	case core.Uint16:
		s, n, err = sumBlocks[uint16](a)
	case core.Float32:
		s, n, err = sumBlocks[float32](a)
	case core.Float64:
		s, n, err = sumBlocks[float64](a)
	default:
		err = fmt.Errorf("_gofunc_blocks_sum: no probe for %v", a.DType())
	}
	return gofunc.T2(s, n), err
}

// sumBlocks adds the elements one by one in float64 (exact for the small
// integers the tests use, in any order).
func sumBlocks[T core.Number](a *core.Array) (float64, int64, error) {
	it, err := core.ReadBlocks[T](a)
	if err != nil {
		return 0, 0, err
	}
	var s float64
	var n int64
	for r := range it {
		n++
		for _, v := range r.All() {
			s += float64(v)
		}
	}
	return s, n, nil
}

func blocksScale(a *core.Array, k int64) error {
	switch a.DType() {
	case core.Int8:
		return scaleBlocks[int8](a, k)
	case core.Int16:
		return scaleBlocks[int16](a, k)
	case core.Int32:
		return scaleBlocks[int32](a, k)
	case core.Int64:
		return scaleBlocks[int64](a, k)
	case core.Uint8:
		return scaleBlocks[uint8](a, k)
	case core.Uint16:
		return scaleBlocks[uint16](a, k)
	case core.Float32:
		return scaleBlocks[float32](a, k)
	case core.Float64:
		return scaleBlocks[float64](a, k)
	}
	return fmt.Errorf("_gofunc_blocks_scale: no probe for %v", a.DType())
}

func scaleBlocks[T core.Number](a *core.Array, k int64) error {
	it, err := core.Blocks[T](a)
	if err != nil {
		return err
	}
	for b := range it {
		for i := range b {
			b[i] *= T(k)
		}
	}
	return nil
}
