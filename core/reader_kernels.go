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
