package kernels

import (
	"math"
	"unsafe"
)

// Reduction kernels.
//
// A block is planned like a copy (strided.go): dimensions of length 1
// dropped, negative input strides flipped (with the accumulator's), the
// dimensions ordered by decreasing input stride and neighbours contiguous on
// both sides merged. The innermost dimension is then either reduced (a row
// folded into one accumulator element) or kept (element-wise folding into a
// row of accumulators); an odometer walks the others.
//
// Rows of float64 and float32 are read in place: pairwise sums in blocks of
// 128 with 8 partial sums (numpy's scheme), and min/max with Go's NaN-
// propagating builtins (reduce_rows.go); contiguous float64 rows go to
// SumFloat64, MaxFloat64 and MinFloat64 (AVX2 where the CPU has it). Other
// kinds are converted 128 elements at a time into a buffer of the
// accumulator type on the stack (reduce_load.go), then folded
// (reduce_fold.go). Nothing is allocated on the Go heap.
//
// core plans a reduction (axes, result and accumulator dtypes, numpy's
// rules) and hands the kernels a Reducer: the op, the input's kind and the
// accumulator's kind.

// ReduceOp names a reduction as the kernels run it; core's ReduceOp
// constants are these numbers.
type ReduceOp uint8

// The reductions. Mean folds as a sum; Finish divides.
const (
	ReduceSum ReduceOp = iota + 1
	ReduceProd
	ReduceMin
	ReduceMax
	ReduceAny
	ReduceAll
	ReduceMean
)

// AccKind is the type values accumulate in.
type AccKind uint8

// The accumulators. Their numbers lay out the kernels' switches over them
// (row, col): the kinds' numbers compiled the same code into another order
// of blocks, which made a float64 column max a quarter slower and a
// float32 column sum a third faster (256×256, moving these kernels here).
const (
	AccFloat64    AccKind = iota + 1 // float64: real floats, and mean of integers
	AccInt64                         // int64: signed integers and bool
	AccUint64                        // uint64: unsigned integers
	AccComplex128                    // complex128
	AccBool                          // bool, one byte: any and all
)

// Size is the bytes of one accumulator of kind a.
func (a AccKind) Size() int64 {
	switch a {
	case AccComplex128:
		return 16
	case AccBool:
		return 1
	}
	return 8
}

// Reducer is a reduction as the kernels see it: In is the input's kind, one
// CanReduce accepts, and Acc the type values accumulate in. Which
// accumulator goes with which input and op is core's rule (numpy's); the
// kernels fold any pair.
type Reducer struct {
	Op  ReduceOp
	In  Kind
	Acc AccKind
}

// CanReduce reports whether the reduction kernels read elements of kind k
// (and write results of it): bool, the integers, float16, bfloat16,
// float32, float64 and the complex kinds; not the float8 kinds.
func CanReduce(k Kind) bool { return k < numKinds && !k.IsFloat8() }

const blk = 128

type redPlan struct {
	n      int
	shape  [MaxNdim]int64
	is, as [MaxNdim]int64 // byte strides: input, accumulator
	ip     unsafe.Pointer
	// a0 is the accumulator's first element as a byte offset: exec gets the
	// accumulator's address, so that a caller's stack accumulator (core's
	// Sum) does not escape through the plan.
	a0 int64
}

func (p *redPlan) build(shape, strides, accStrides []int64, k, ak int64) {
	n := 0
	for i, d := range shape {
		if d == 1 {
			continue
		}
		p.shape[n], p.is[n], p.as[n] = d, strides[i]*k, accStrides[i]*ak
		n++
	}
	for i := 0; i < n; i++ {
		if p.is[i] < 0 {
			p.ip = unsafe.Add(p.ip, (p.shape[i]-1)*p.is[i])
			p.a0 += (p.shape[i] - 1) * p.as[i]
			p.is[i], p.as[i] = -p.is[i], -p.as[i]
		}
	}
	p.n = orderAxes(p.shape[:n], p.is[:n], p.as[:n])
}

func (p *redPlan) exec(r *Reducer, acc unsafe.Pointer) {
	base := unsafe.Add(acc, p.a0)
	n := p.n
	if n == 0 {
		r.row(p.ip, 1, 0, base)
		return
	}
	ln, is, as := p.shape[n-1], p.is[n-1], p.as[n-1]
	outer := n - 1
	var idx [MaxNdim]int64
	var ioff, aoff int64
	for {
		ip, ap := unsafe.Add(p.ip, ioff), unsafe.Add(base, aoff)
		if as == 0 {
			r.row(ip, ln, is, ap)
		} else {
			r.col(ip, ln, is, ap, as)
		}
		if !Step(idx[:outer], p.shape[:outer], p.is[:outer], p.as[:outer], &ioff, &aoff) {
			return
		}
	}
}

// Fold folds the elements of kind r.In of the layout (shape, strides) at
// ip, at least one, into the accumulators of kind r.Acc at acc, accStrides
// giving one entry per input axis (0 on a reduced axis); strides in
// elements, both pointers at the block's first element. Blocks of one
// reduction must not repeat elements. It does not allocate on the Go heap
// on its serial path (a long float64 row may be summed on two goroutines).
func (r *Reducer) Fold(acc unsafe.Pointer, accStrides []int64, ip unsafe.Pointer, strides, shape []int64) {
	var p redPlan
	p.ip = ip
	p.build(shape, strides, accStrides, r.In.Size(), r.Acc.Size())
	p.exec(r, acc)
}

// Identity fills n accumulators of kind r.Acc at p with the identity of
// r.Op: 0 (sum, mean, any), 1 (prod), true (all), +Inf or the largest
// integer (min), -Inf or the smallest (max).
func (r *Reducer) Identity(p unsafe.Pointer, n int64) {
	var v accVal
	switch r.Op {
	case ReduceProd:
		v = accVal{f: 1, i: 1, u: 1, c: 1, b: true}
	case ReduceAll:
		v.b = true
	case ReduceMin:
		v = accVal{f: math.Inf(1), i: math.MaxInt64, u: math.MaxUint64, c: complex(math.Inf(1), math.Inf(1))}
	case ReduceMax:
		v = accVal{f: math.Inf(-1), i: math.MinInt64, c: complex(math.Inf(-1), math.Inf(-1))}
	}
	ak := r.Acc.Size()
	for i := int64(0); i < n; i++ {
		v.store(r.Acc, unsafe.Add(p, i*ak))
	}
}

// Finish writes the n results of a reduction whose blocks were all folded:
// the C-contiguous accumulators at acc, finished (a mean divides by count,
// the elements folded into each), cast as numpy's unsafe casting does into
// elements of kind dk (one CanReduce accepts) at dst, laid out over shape
// with strides in elements (the last axis fastest).
func (r *Reducer) Finish(dst unsafe.Pointer, dk Kind, shape, strides []int64, acc unsafe.Pointer, n, count int64) {
	ak, k := r.Acc.Size(), dk.Size()
	nd := len(shape)
	var idx [MaxNdim]int64
	var off int64
	for i := int64(0); i < n; i++ {
		var v accVal
		v.load(r.Acc, unsafe.Add(acc, i*ak))
		r.finish(&v, count)
		storeVal(r.Acc, &v, dk, unsafe.Add(dst, off*k))
		Step(idx[:nd], shape, strides, nil, &off, nil)
	}
}

// FinishOne is Finish for the one result of a reduction over every axis:
// the accumulator at acc, finished, cast into an element of kind dk at dst,
// which may be acc itself (the caller's scalar area).
func (r *Reducer) FinishOne(dst unsafe.Pointer, dk Kind, acc unsafe.Pointer, count int64) {
	var v accVal
	v.load(r.Acc, acc)
	r.finish(&v, count)
	storeVal(r.Acc, &v, dk, dst)
}

// FinishInPlace finishes the n contiguous accumulators at acc where they
// are, which are the results (their dtype is the accumulator's): a mean
// divides each by count; other reductions are left as they are.
func (r *Reducer) FinishInPlace(acc unsafe.Pointer, n, count int64) {
	if r.Op != ReduceMean {
		return
	}
	ak := r.Acc.Size()
	for i := int64(0); i < n; i++ {
		p := unsafe.Add(acc, i*ak)
		var v accVal
		v.load(r.Acc, p)
		r.finish(&v, count)
		v.store(r.Acc, p)
	}
}

// finish turns an accumulated value into the result value (mean divides by
// count).
func (r *Reducer) finish(v *accVal, count int64) {
	if r.Op != ReduceMean {
		return
	}
	n := float64(count)
	switch r.Acc {
	case AccFloat64:
		v.f /= n
	case AccComplex128:
		v.c /= complex(n, 0)
	case AccInt64:
		v.i = int64(float64(v.i) / n) // numpy: dtype.type(sum / count)
	case AccUint64:
		v.u = uint64(float64(v.u) / n)
	}
}
