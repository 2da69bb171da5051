// Package kernels is the bottom layer of godlpack's core: the loops that
// run over raw memory. It knows nothing of DLPack, arrays or errors: core
// checks the operands, decides numpy's rules (result dtypes, broadcasting,
// which element a Python scalar stands for, devices) and then calls one
// function here with plain pointers, shapes, strides and element kinds.
// core maps a DLPack data type to a Kind (elemKind, core/dtype.go);
// sub-byte, vector and opaque types never reach a kernel. The functions
// over unsafe.Pointer are core's and check nothing; a Go program or kit
// reaches them through core's Array methods, and calls the typed kernels
// (below) on its own slices.
//
// What it runs:
//
//   - strided copies and fills (one memmove, a blocked transpose, or a
//     loop specialised for the element size), conversions between every
//     pair of kinds with numpy's and ml_dtypes' casts, element-wise
//     comparisons, and reductions with numpy's accumulators, each planned
//     once (copies, fills, conversions and reductions drop length-1 axes,
//     order and merge the rest; comparisons walk the result in C order)
//     and walked with Step; large ones split across goroutines unless
//     SetSerial(true). The serial paths allocate nothing on the Go heap;
//   - the hot contiguous rows: pairwise sum, maximum and minimum of float64
//     rows and the float64 -> float32, float32 -> bfloat16 and
//     int64 -> float64 conversions. On amd64 CPUs with AVX2 they run as Go
//     assembly (kernels_amd64.s); everywhere else, and when GODLPACK_NOSIMD
//     is set to a non-empty value other than "0" at start-up, as the
//     pure-Go loops of generic.go. Both give the same bits (a max or min of
//     a row holding NaNs is its first NaN), except the sign of a zero
//     maximum or minimum of mixed signed zeros; tests_go/kernels_test.go
//     compares them;
//   - the typed kernels kits call on []T of any integer or float type
//     (typed.go: Sum, Dot, Axpy, Max, Min), plain Go with several partial
//     results.
//
// The package is plain Go and Go assembly: a cgo package cannot hold
// assembly (its .s files go to the C compiler), and it imports nothing but
// the standard library (tests_go/layers_test.go keeps both true).
//
// # Files
//
//	kind.go               Kind: an element type as the loops see it
//	walk.go               MaxNdim, the axis order of a walk, Step
//	parallel.go           SetSerial, Serial, the split across goroutines
//	strided.go            Copy and Fill over strided layouts
//	convert.go            Convert: the plan of a conversion and its walk
//	convert_rows.go       the conversions' row kernels, one per kind pair
//	narrow.go             float16, bfloat16 and float8 codecs (numpy's and
//	                      ml_dtypes' rounding, overflow, NaN, -0)
//	compare.go            the element-wise comparisons: CompareOp, CmpValue,
//	                      Compare, CompareScalar, CompareConst; the plan
//	                      (merged axes, domain, scalar narrowing), its walk
//	                      and parallel split
//	compare_rows.go       the comparisons' row kernels and decoders
//	reduce.go             reductions as the kernels run them: Reducer
//	                      (ReduceOp, AccKind, CanReduce), the walk of a
//	                      block, Fold, Identity, Finish, FinishOne,
//	                      FinishInPlace
//	reduce_fold.go        the folds: a row into one accumulator, a row into
//	                      a row of accumulators, float rows read in place
//	reduce_rows.go        pairwise float32/float64 sums, max and min rows
//	reduce_load.go        the loaders: up to 128 elements into a buffer of
//	                      the accumulator's type, or into truth values
//	reduce_cast.go        accumulator values and their casts into any kind
//	kernels.go            the hot rows and the switch between their paths
//	typed.go              the typed kernels for kits, generic over Number
//	generic.go            the pure-Go hot rows (fallback and reference)
//	cpu_amd64.go, .s      CPUID/XGETBV: does the CPU and OS support AVX2
//	kernels_amd64.go, .s  the AVX2 rows and their declarations
//	kernels_other.go      stubs for other architectures (never called)
package kernels
