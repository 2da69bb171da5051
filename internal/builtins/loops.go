package builtins

import (
	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/gofunc"
)

// Kit loops written the way docs/go.md shows (core.ReadBlocks, ReadRows
// and the typed kernels), which make bench times against the loops a numba
// user writes for the same answer (group gofunc): what a kit author gets
// without writing assembly.

func init() {
	gofunc.Func1("_bench_sum", benchSum, gofunc.Params(gofunc.Array("a").DType(core.Float64)),
		gofunc.Doc("The sum of a float64 array of any layout, through core.ReadBlocks and core.SumOf (make bench)."))
	gofunc.Func1("_bench_colmean", colMean, gofunc.Params(gofunc.Array("a").DType(core.Float64).NDim(2)),
		gofunc.Doc("The mean of each column of a 2-d float64 array of any layout, as numpy.mean(a, axis=0)\n"+
			"(make bench: core.ReadRows and the typed kernels)."))
	gofunc.Func1("_bench_var", variance, gofunc.Params(gofunc.Array("a").DType(core.Float64)),
		gofunc.Doc("The variance of a float64 array of any layout, as numpy.var(a): one core.ReadBlocks walk,\n"+
			"each block's core.MomentsOf merged (make bench)."))
}

func benchSum(a *core.Array) (float64, error) {
	blocks, err := core.ReadBlocks[float64](a)
	if err != nil {
		return 0, err
	}
	var s float64
	for b := range blocks {
		s += core.SumOf(b)
	}
	return s, nil
}

// colMean walks the memory in order either way: where a's columns are the
// runs of its memory (a transposed C array, a Fortran one) each column is a
// row of a's transpose, summed at once; else each row is added into the
// result.
func colMean(a *core.Array) (*core.Array, error) {
	out, err := core.Zeros(core.Float64, a.Shape()[1])
	if err != nil {
		return nil, err
	}
	o, err := out.Float64s()
	if err == nil {
		err = columnSums(a, o)
	}
	if err != nil {
		out.Release()
		return nil, err
	}
	n := float64(a.Shape()[0])
	for j := range o {
		o[j] /= n // no rows: 0/0, numpy's NaN
	}
	return out, nil
}

func columnSums(a *core.Array, o []float64) error {
	if st := a.Strides(); abs(st[0]) >= abs(st[1]) {
		rows, err := core.ReadRows[float64](a)
		if err != nil {
			return err
		}
		for _, r := range rows {
			core.AxpyOf(1, r, o)
		}
		return nil
	}
	t, err := a.Transpose()
	if err != nil {
		return err
	}
	defer t.Release()
	cols, err := core.ReadRows[float64](t)
	if err != nil {
		return err
	}
	for idx, c := range cols {
		o[idx[0]] = core.SumOf(c)
	}
	return nil
}

// variance walks a once: each block's mean and M2 while it is in cache,
// merged into the running Moments.
func variance(a *core.Array) (float64, error) {
	blocks, err := core.ReadBlocks[float64](a)
	if err != nil {
		return 0, err
	}
	var m core.Moments
	for b := range blocks {
		m = m.Merge(core.MomentsOf(b))
	}
	return m.Var(), nil
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
