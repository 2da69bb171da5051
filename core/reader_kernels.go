package core

import "github.com/godlpack/godlpack/core/kernels"

// The typed kernels (core/kernels) over a Reader, whose elements a kit may
// read but not write: what a ReadBlocks, ReadRows or ReadSlice loop calls
// to run at slice speed.

// Number is the element types the typed kernels take: the real ones.
type Number interface {
	Element
	kernels.Number
}

// Float is the floating-point element types: what MomentsOf takes.
type Float interface {
	Number
	~float32 | ~float64
}

// SumOf is the sum of r's elements (kernels.Sum: numpy's pairwise order
// for floating point).
func SumOf[T Number](r Reader[T]) T { return kernels.Sum(r.s) }

// DotOf is the sum of x[i]*y[i] (kernels.Dot); it panics if x and y differ
// in length.
func DotOf[T Number](x, y Reader[T]) T { return kernels.Dot(x.s, y.s) }

// SumSqDevOf is the sum of (r[i]-c)^2 (kernels.SumSqDev): with c the
// mean, the second pass of a variance.
func SumSqDevOf[T Number](r Reader[T], c T) T { return kernels.SumSqDev(r.s, c) }

// AxpyOf adds alpha*x to y (kernels.Axpy): a row added into a result, as a
// reduction along the first axis does; it panics if x and y differ in
// length.
func AxpyOf[T Number](alpha T, x Reader[T], y []T) { kernels.Axpy(alpha, x.s, y) }

// MaxOf is the largest element, a NaN when r holds one (kernels.Max); it
// panics if r is empty.
func MaxOf[T Number](r Reader[T]) T { return kernels.Max(r.s) }

// MinOf is MaxOf for the smallest element.
func MinOf[T Number](r Reader[T]) T { return kernels.Min(r.s) }

// Moments is what a variance needs of the values seen so far: how many,
// their mean and the sum of their squared deviations from it (M2).
// MomentsOf gives one block's, in two passes over the block while it is in
// cache (SumOf, then SumSqDevOf); Merge adds one Moments to another. So a
// variance of any layout takes one ReadBlocks walk: a strided array is
// gathered once, not once per pass, and the result is as accurate as two
// passes over the whole (Chan, Golub and LeVeque's pairwise update).
type Moments struct {
	N, Mean, M2 float64
}

// MomentsOf is r's Moments, the mean and M2 computed in T (as numpy's var
// of a float32 array computes in float32).
func MomentsOf[T Float](r Reader[T]) Moments {
	n := len(r.s)
	if n == 0 {
		return Moments{}
	}
	mean := kernels.Sum(r.s) / T(n)
	return Moments{N: float64(n), Mean: float64(mean), M2: float64(kernels.SumSqDev(r.s, mean))}
}

// Merge is the Moments of m's values and o's together.
func (m Moments) Merge(o Moments) Moments {
	if o.N == 0 {
		return m
	}
	if m.N == 0 {
		return o
	}
	n := m.N + o.N
	d := o.Mean - m.Mean
	return Moments{N: n, Mean: m.Mean + d*(o.N/n), M2: m.M2 + o.M2 + d*d*(m.N*o.N/n)}
}

// Var is the variance, M2/N (numpy's var with ddof 0): NaN with no values,
// as numpy's var of an empty array.
func (m Moments) Var() float64 {
	return m.M2 / m.N
}
