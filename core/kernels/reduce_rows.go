package kernels

// The pairwise sums are written per element type from one template (keep
// them alike, and alike the contiguous float64 sum, SumFloat64): so
// written, the compiler folds the loads into the adds and keeps the 8
// partial sums in registers. The max and min rows are generic over float32
// and float64: Go compiles a function per float type, with no call in it.

import (
	"math"
	"unsafe"
)

// pairS64 is numpy's pairwise sum of n float64 elements st bytes apart:
// blocks of at most 128 summed with 8 partial sums, halves added
// recursively (SumFloat64 is the contiguous twin).
func pairS64(p unsafe.Pointer, n, st int64) float64 {
	if n < 8 {
		s := 0.0
		for i := int64(0); i < n; i++ {
			s += *(*float64)(unsafe.Add(p, i*st))
		}
		return s
	}
	if n <= blk {
		s1, s2, s3, s4, s5, s6, s7, s8 := st, 2*st, 3*st, 4*st, 5*st, 6*st, 7*st, 8*st
		r0 := *(*float64)(p)
		r1 := *(*float64)(unsafe.Add(p, s1))
		r2 := *(*float64)(unsafe.Add(p, s2))
		r3 := *(*float64)(unsafe.Add(p, s3))
		r4 := *(*float64)(unsafe.Add(p, s4))
		r5 := *(*float64)(unsafe.Add(p, s5))
		r6 := *(*float64)(unsafe.Add(p, s6))
		r7 := *(*float64)(unsafe.Add(p, s7))
		q := unsafe.Add(p, s8)
		i := int64(8)
		for ; i+8 <= n; i += 8 {
			r0 += *(*float64)(q)
			r1 += *(*float64)(unsafe.Add(q, s1))
			r2 += *(*float64)(unsafe.Add(q, s2))
			r3 += *(*float64)(unsafe.Add(q, s3))
			r4 += *(*float64)(unsafe.Add(q, s4))
			r5 += *(*float64)(unsafe.Add(q, s5))
			r6 += *(*float64)(unsafe.Add(q, s6))
			r7 += *(*float64)(unsafe.Add(q, s7))
			q = unsafe.Add(q, s8)
		}
		s := ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
		for ; i < n; i++ {
			s += *(*float64)(q)
			q = unsafe.Add(q, st)
		}
		return s
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairS64(p, n2, st) + pairS64(unsafe.Add(p, n2*st), n-n2, st)
}

// pairC32 is numpy's pairwise sum of n contiguous float32 elements: blocks of
// at most 128 summed with 8 partial sums, halves added recursively.
func pairC32(p unsafe.Pointer, n int64) float64 {
	if n < 8 {
		s := 0.0
		for i := int64(0); i < n; i++ {
			s += float64(*(*float32)(unsafe.Add(p, i*4)))
		}
		return s
	}
	if n <= blk {
		a := (*[8]float32)(p)
		r0, r1, r2, r3 := float64(a[0]), float64(a[1]), float64(a[2]), float64(a[3])
		r4, r5, r6, r7 := float64(a[4]), float64(a[5]), float64(a[6]), float64(a[7])
		i := int64(8)
		for ; i+8 <= n; i += 8 {
			a := (*[8]float32)(unsafe.Add(p, i*4))
			r0 += float64(a[0])
			r1 += float64(a[1])
			r2 += float64(a[2])
			r3 += float64(a[3])
			r4 += float64(a[4])
			r5 += float64(a[5])
			r6 += float64(a[6])
			r7 += float64(a[7])
		}
		s := ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
		for ; i < n; i++ {
			s += float64(*(*float32)(unsafe.Add(p, i*4)))
		}
		return s
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairC32(p, n2) + pairC32(unsafe.Add(p, n2*4), n-n2)
}

// pairS32 is pairC32 for elements st bytes apart.
func pairS32(p unsafe.Pointer, n, st int64) float64 {
	if n < 8 {
		s := 0.0
		for i := int64(0); i < n; i++ {
			s += float64(*(*float32)(unsafe.Add(p, i*st)))
		}
		return s
	}
	if n <= blk {
		s1, s2, s3, s4, s5, s6, s7, s8 := st, 2*st, 3*st, 4*st, 5*st, 6*st, 7*st, 8*st
		r0 := float64(*(*float32)(p))
		r1 := float64(*(*float32)(unsafe.Add(p, s1)))
		r2 := float64(*(*float32)(unsafe.Add(p, s2)))
		r3 := float64(*(*float32)(unsafe.Add(p, s3)))
		r4 := float64(*(*float32)(unsafe.Add(p, s4)))
		r5 := float64(*(*float32)(unsafe.Add(p, s5)))
		r6 := float64(*(*float32)(unsafe.Add(p, s6)))
		r7 := float64(*(*float32)(unsafe.Add(p, s7)))
		q := unsafe.Add(p, s8)
		i := int64(8)
		for ; i+8 <= n; i += 8 {
			r0 += float64(*(*float32)(q))
			r1 += float64(*(*float32)(unsafe.Add(q, s1)))
			r2 += float64(*(*float32)(unsafe.Add(q, s2)))
			r3 += float64(*(*float32)(unsafe.Add(q, s3)))
			r4 += float64(*(*float32)(unsafe.Add(q, s4)))
			r5 += float64(*(*float32)(unsafe.Add(q, s5)))
			r6 += float64(*(*float32)(unsafe.Add(q, s6)))
			r7 += float64(*(*float32)(unsafe.Add(q, s7)))
			q = unsafe.Add(q, s8)
		}
		s := ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
		for ; i < n; i++ {
			s += float64(*(*float32)(q))
			q = unsafe.Add(q, st)
		}
		return s
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairS32(p, n2, st) + pairS32(unsafe.Add(p, n2*st), n-n2, st)
}

// maxRow is the maximum of n float32 or float64 elements st bytes apart;
// the first NaN when one is NaN. Four elements a step are compared with the
// running result and only a step holding a new maximum (rare after the
// first few steps, so the branch predicts well) or a NaN folds them in:
// cheaper than Go's max builtin on every element, whose NaN and signed-zero
// handling takes a chain of several instructions. A generic function over
// two float types is compiled once per type, as if written for it.
func maxRow[T float32 | float64](p unsafe.Pointer, n, st int64) float64 {
	m := T(math.Inf(-1))
	s1, s2, s3, s4 := st, 2*st, 3*st, 4*st
	q := p
	i := int64(0)
	for ; i+4 <= n; i += 4 {
		v0 := *(*T)(q)
		v1 := *(*T)(unsafe.Add(q, s1))
		v2 := *(*T)(unsafe.Add(q, s2))
		v3 := *(*T)(unsafe.Add(q, s3))
		if !(v0 <= m && v1 <= m && v2 <= m && v3 <= m) { // a new maximum, or a NaN
			if v0 != v0 || v1 != v1 || v2 != v2 || v3 != v3 {
				return float64(firstNaNAt[T](q, 4, st))
			}
			m = max(m, v0, v1, v2, v3)
		}
		q = unsafe.Add(q, s4)
	}
	for ; i < n; i++ {
		v := *(*T)(q)
		if !(v <= m) {
			if v != v {
				return float64(v)
			}
			m = v
		}
		q = unsafe.Add(q, st)
	}
	return float64(m)
}

// minRow is maxRow for the minimum.
func minRow[T float32 | float64](p unsafe.Pointer, n, st int64) float64 {
	m := T(math.Inf(1))
	s1, s2, s3, s4 := st, 2*st, 3*st, 4*st
	q := p
	i := int64(0)
	for ; i+4 <= n; i += 4 {
		v0 := *(*T)(q)
		v1 := *(*T)(unsafe.Add(q, s1))
		v2 := *(*T)(unsafe.Add(q, s2))
		v3 := *(*T)(unsafe.Add(q, s3))
		if !(v0 >= m && v1 >= m && v2 >= m && v3 >= m) { // a new minimum, or a NaN
			if v0 != v0 || v1 != v1 || v2 != v2 || v3 != v3 {
				return float64(firstNaNAt[T](q, 4, st))
			}
			m = min(m, v0, v1, v2, v3)
		}
		q = unsafe.Add(q, s4)
	}
	for ; i < n; i++ {
		v := *(*T)(q)
		if !(v >= m) {
			if v != v {
				return float64(v)
			}
			m = v
		}
		q = unsafe.Add(q, st)
	}
	return float64(m)
}

// firstNaNAt is the first NaN of n elements st bytes apart, which the
// caller knows hold one (firstNaN of kernels.go for a contiguous float64
// slice).
func firstNaNAt[T float32 | float64](p unsafe.Pointer, n, st int64) T {
	for i := int64(0); i < n; i++ {
		if v := *(*T)(unsafe.Add(p, i*st)); v != v {
			return v
		}
	}
	return T(math.NaN())
}
