package kernels

import (
	"math"
	"runtime"
	"sync"
	"unsafe"
)

// The folds of the reduction kernels (reduce.go): a row reduced into one
// accumulator, a row folded element-wise into a row of accumulators, and
// the float rows read in place.

// ---- rows: n elements at byte stride st folded into the accumulator at ap

func (r *Reducer) row(p unsafe.Pointer, n, st int64, ap unsafe.Pointer) {
	switch r.Acc {
	case AccFloat64:
		a := (*float64)(ap)
		switch r.Op {
		case ReduceSum, ReduceMean:
			*a += r.sumF(p, n, st)
		case ReduceProd:
			*a *= r.prodF(p, n, st)
		case ReduceMax:
			*a = maxNaN(*a, r.extF(p, n, st, true))
		case ReduceMin:
			*a = minNaN(*a, r.extF(p, n, st, false))
		}
	case AccInt64:
		a := (*int64)(ap)
		var buf [blk]int64
		for i := int64(0); i < n; i += blk {
			m := min(blk, n-i)
			r.loadI(&buf, unsafe.Add(p, i*st), m, st)
			*a = foldInts(r.Op, *a, buf[:m])
		}
	case AccUint64:
		a := (*uint64)(ap)
		var buf [blk]uint64
		for i := int64(0); i < n; i += blk {
			m := min(blk, n-i)
			r.loadU(&buf, unsafe.Add(p, i*st), m, st)
			*a = foldInts(r.Op, *a, buf[:m])
		}
	case AccComplex128:
		a := (*complex128)(ap)
		if r.Op == ReduceSum || r.Op == ReduceMean {
			*a += r.sumC(p, n, st)
			return
		}
		var buf [blk]complex128
		for i := int64(0); i < n; i += blk {
			m := min(blk, n-i)
			r.loadC(&buf, unsafe.Add(p, i*st), m, st)
			*a = foldComplex(r.Op, *a, buf[:m])
		}
	default:
		a := (*uint8)(ap)
		want := r.Op == ReduceAny // the value that decides the result
		if (*a != 0) == want {
			return
		}
		var buf [blk]bool
		for i := int64(0); i < n; i += blk {
			m := min(blk, n-i)
			r.loadB(&buf, unsafe.Add(p, i*st), m, st)
			for _, b := range buf[:m] {
				if b == want {
					*a ^= 1
					return
				}
			}
		}
	}
}

// ---- columns: acc[i] op= in[i] for n elements (input stride st, accumulator stride as)

func (r *Reducer) col(p unsafe.Pointer, n, st int64, ap unsafe.Pointer, as int64) {
	for i := int64(0); i < n; i += blk {
		m := min(blk, n-i)
		ip, aq := unsafe.Add(p, i*st), unsafe.Add(ap, i*as)
		switch r.Acc {
		case AccFloat64:
			var buf [blk]float64
			r.loadF(&buf, ip, m, st)
			colF(r.Op, buf[:m], aq, as)
		case AccInt64:
			var buf [blk]int64
			r.loadI(&buf, ip, m, st)
			colInts(r.Op, buf[:m], aq, as)
		case AccUint64:
			var buf [blk]uint64
			r.loadU(&buf, ip, m, st)
			colInts(r.Op, buf[:m], aq, as)
		case AccComplex128:
			var buf [blk]complex128
			r.loadC(&buf, ip, m, st)
			for j := range buf[:m] {
				a := (*complex128)(unsafe.Add(aq, int64(j)*as))
				*a = foldComplex(r.Op, *a, buf[j:j+1])
			}
		default:
			var buf [blk]bool
			r.loadB(&buf, ip, m, st)
			for j, b := range buf[:m] {
				a := (*uint8)(unsafe.Add(aq, int64(j)*as))
				if r.Op == ReduceAny {
					if b {
						*a = 1
					}
				} else if !b {
					*a = 0
				}
			}
		}
	}
}

func colF(op ReduceOp, buf []float64, ap unsafe.Pointer, as int64) {
	for j, v := range buf {
		a := (*float64)(unsafe.Add(ap, int64(j)*as))
		switch op {
		case ReduceSum, ReduceMean:
			*a += v
		case ReduceProd:
			*a *= v
		case ReduceMax:
			if v > *a || v != v {
				*a = v
			}
		case ReduceMin:
			if v < *a || v != v {
				*a = v
			}
		}
	}
}

func colInts[A int64 | uint64](op ReduceOp, buf []A, ap unsafe.Pointer, as int64) {
	for j, v := range buf {
		a := (*A)(unsafe.Add(ap, int64(j)*as))
		switch op {
		case ReduceSum, ReduceMean:
			*a += v
		case ReduceProd:
			*a *= v
		case ReduceMax:
			*a = max(*a, v)
		case ReduceMin:
			*a = min(*a, v)
		}
	}
}

func foldInts[A int64 | uint64](op ReduceOp, a A, buf []A) A {
	switch op {
	case ReduceSum, ReduceMean:
		var s0, s1, s2, s3 A
		i := 0
		for ; i+4 <= len(buf); i += 4 {
			s0 += buf[i]
			s1 += buf[i+1]
			s2 += buf[i+2]
			s3 += buf[i+3]
		}
		for ; i < len(buf); i++ {
			s0 += buf[i]
		}
		return a + (s0 + s1) + (s2 + s3)
	case ReduceProd:
		for _, v := range buf {
			a *= v
		}
	case ReduceMax:
		for _, v := range buf {
			a = max(a, v)
		}
	case ReduceMin:
		for _, v := range buf {
			a = min(a, v)
		}
	}
	return a
}

// foldComplex: products in order; min/max compare lexicographically (real
// part first) and propagate NaN, as numpy's.
func foldComplex(op ReduceOp, a complex128, buf []complex128) complex128 {
	for _, v := range buf {
		switch op {
		case ReduceSum, ReduceMean:
			a += v
		case ReduceProd:
			a *= v
		default:
			if isNaNC(a) {
				return a
			}
			if isNaNC(v) {
				a = v
				continue
			}
			gt := real(v) > real(a) || (real(v) == real(a) && imag(v) > imag(a))
			lt := real(v) < real(a) || (real(v) == real(a) && imag(v) < imag(a))
			if (op == ReduceMax && gt) || (op == ReduceMin && lt) {
				a = v
			}
		}
	}
	return a
}

func isNaNC(c complex128) bool { return real(c) != real(c) || imag(c) != imag(c) }

func maxNaN(a, b float64) float64 {
	if a != a || b > a || b != b {
		if a != a {
			return a
		}
		return b
	}
	return a
}

func minNaN(a, b float64) float64 {
	if a != a || b < a || b != b {
		if a != a {
			return a
		}
		return b
	}
	return a
}

// ---- float rows

// sumF is the pairwise sum of a row, as float64. A long float64 row's two
// top halves of the pairwise tree run on two goroutines: the same additions
// in the same order, so the same bits as on one.
func (r *Reducer) sumF(p unsafe.Pointer, n, st int64) float64 {
	if n2 := splitRow(n, st); r.In == Float64 && n2 > 0 {
		var l float64
		var wg sync.WaitGroup
		rc := *r // the goroutine's own copy: r itself stays off the heap on every other path
		wg.Go(func() { l = rc.sumRow(p, n2, st) })
		rr := r.sumRow(unsafe.Add(p, n2*st), n-n2, st)
		wg.Wait()
		return l + rr
	}
	return r.sumRow(p, n, st)
}

// sumRow is sumF on the calling goroutine.
func (r *Reducer) sumRow(p unsafe.Pointer, n, st int64) float64 {
	switch {
	case r.In == Float64 && st == 8:
		return SumFloat64(unsafe.Slice((*float64)(p), n))
	case r.In == Float64:
		return pairS64(p, n, st)
	case r.In == Float32 && st == 4:
		return pairC32(p, n)
	case r.In == Float32:
		return pairS32(p, n, st)
	}
	return r.pairBuf(p, n, st)
}

// sumC sums a row into complex128: complex rows as two pairwise sums (real
// and imaginary parts are float rows of twice the element's stride).
func (r *Reducer) sumC(p unsafe.Pointer, n, st int64) complex128 {
	switch r.In {
	case Complex128:
		return complex(pairS64(p, n, st), pairS64(unsafe.Add(p, 8), n, st))
	case Complex64:
		return complex(pairS32(p, n, st), pairS32(unsafe.Add(p, 4), n, st))
	}
	return complex(r.sumF(p, n, st), 0)
}

func (r *Reducer) pairBuf(p unsafe.Pointer, n, st int64) float64 {
	if n <= blk {
		var buf [blk]float64
		r.loadF(&buf, p, n, st)
		return SumFloat64(buf[:n])
	}
	n2 := n / 2
	n2 -= n2 % 8
	return r.pairBuf(p, n2, st) + r.pairBuf(unsafe.Add(p, n2*st), n-n2, st)
}

func (r *Reducer) prodF(p unsafe.Pointer, n, st int64) float64 {
	var buf [blk]float64
	s := 1.0
	for i := int64(0); i < n; i += blk {
		m := min(blk, n-i)
		r.loadF(&buf, unsafe.Add(p, i*st), m, st)
		for _, v := range buf[:m] {
			s *= v
		}
	}
	return s
}

// contigSplitMin is the byte size from which a contiguous float64 row is
// reduced on two goroutines.
const contigSplitMin = 16 << 20

// splitRow is where a float64 row of n elements, st bytes apart, is cut
// for two goroutines (numpy's pairwise split: half, rounded down to a
// multiple of 8), or 0 when it runs on one: one CPU, SetSerial(true), or a
// row too short to pay for waking a second thread (a contiguous row under
// contigSplitMin bytes, which the AVX2 kernels finish in about as long; a
// strided one under parallelMin). Only the top level splits: two
// goroutines saturate the memory bus these rows need.
func splitRow(n, st int64) int64 {
	min := int64(parallelMin)
	if st == 8 {
		min = contigSplitMin
	}
	if n*8 < min || Serial() || runtime.GOMAXPROCS(0) < 2 {
		return 0
	}
	n2 := n / 2
	return n2 - n2%8
}

// extF is the maximum (isMax) or minimum of a row, NaN when it holds one.
func (r *Reducer) extF(p unsafe.Pointer, n, st int64, isMax bool) float64 {
	if n2 := splitRow(n, st); r.In == Float64 && n2 > 0 {
		var l float64
		var wg sync.WaitGroup
		rc := *r
		wg.Go(func() { l = rc.extRow(p, n2, st, isMax) })
		rr := r.extRow(unsafe.Add(p, n2*st), n-n2, st, isMax)
		wg.Wait()
		switch {
		case l != l: // the first NaN of the row, as one goroutine returns it
			return l
		case rr != rr:
			return rr
		case isMax:
			return max(l, rr)
		}
		return min(l, rr)
	}
	return r.extRow(p, n, st, isMax)
}

// extRow is extF on the calling goroutine.
func (r *Reducer) extRow(p unsafe.Pointer, n, st int64, isMax bool) float64 {
	switch r.In {
	case Float64:
		switch {
		case st == 8 && isMax:
			return MaxFloat64(unsafe.Slice((*float64)(p), n))
		case st == 8:
			return MinFloat64(unsafe.Slice((*float64)(p), n))
		case isMax:
			return maxRow[float64](p, n, st)
		}
		return minRow[float64](p, n, st)
	case Float32:
		if isMax {
			return maxRow[float32](p, n, st)
		}
		return minRow[float32](p, n, st)
	}
	var buf [blk]float64
	m := math.Inf(1)
	if isMax {
		m = math.Inf(-1)
	}
	for i := int64(0); i < n; i += blk {
		k := min(blk, n-i)
		r.loadF(&buf, unsafe.Add(p, i*st), k, st)
		if isMax {
			m = maxNaN(m, MaxFloat64(buf[:k]))
		} else {
			m = minNaN(m, MinFloat64(buf[:k]))
		}
		if m != m {
			return m
		}
	}
	return m
}
