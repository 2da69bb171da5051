package kernels

// The typed kernels a kit calls on the []T blocks it is handed (issue 37):
// the obvious loop, written once with several partial results so that the
// CPU overlaps the additions a plain loop chains one after another. Each
// panics where the slices package's functions do: lengths that differ, or
// the extremes of no elements.

// Number is the element types of the typed kernels: Go's integers and
// floating-point types, and types defined on them.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint | ~float32 | ~float64
}

// Sum is the sum of x. Floating-point elements are summed pairwise as
// numpy sums a contiguous row (SumFloat64's order, in T's precision), so
// the result is numpy's and its error grows as O(log n); integers wrap as
// numpy's integer sums do.
func Sum[T Number](x []T) T {
	if f, ok := any(x).([]float64); ok {
		return T(SumFloat64(f))
	}
	if isFloat[T]() {
		return pairwise(x)
	}
	var s0, s1, s2, s3 T
	i := 0
	for ; i+4 <= len(x); i += 4 {
		a := (*[4]T)(x[i : i+4])
		s0 += a[0]
		s1 += a[1]
		s2 += a[2]
		s3 += a[3]
	}
	s := (s0 + s1) + (s2 + s3)
	for _, v := range x[i:] {
		s += v
	}
	return s
}

// pairwise is numpy's pairwise sum of a contiguous row in T (any
// floating-point T, any length): SumFloat64 without AVX2, and the typed
// Sum. Below 8 elements in order; up to 128 in 8 partial sums combined
// ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)) and the tail in order; above, the
// halves split at a multiple of 8.
func pairwise[T Number](x []T) T {
	n := len(x)
	if n < 8 {
		var s T
		for _, v := range x {
			s += v
		}
		return s
	}
	if n > pairBlock {
		n2 := n / 2
		n2 -= n2 % 8
		return pairwise(x[:n2]) + pairwise(x[n2:])
	}
	r0, r1, r2, r3 := x[0], x[1], x[2], x[3]
	r4, r5, r6, r7 := x[4], x[5], x[6], x[7]
	i := 8
	for ; i+8 <= n; i += 8 {
		a := (*[8]T)(x[i : i+8])
		r0 += a[0]
		r1 += a[1]
		r2 += a[2]
		r3 += a[3]
		r4 += a[4]
		r5 += a[5]
		r6 += a[6]
		r7 += a[7]
	}
	s := ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
	for _, v := range x[i:] {
		s += v
	}
	return s
}

// Dot is the sum of x[i]*y[i], in four partial sums added as
// (p0+p1)+(p2+p3) and then the last len%4 products in order (a BLAS dot
// rounds in its own order: compare floating-point results with a
// tolerance). It panics if x and y differ in length.
func Dot[T Number](x, y []T) T {
	if len(x) != len(y) {
		panic("kernels.Dot: x and y differ in length")
	}
	var s0, s1, s2, s3 T
	i := 0
	for ; i+4 <= len(x); i += 4 {
		a, b := (*[4]T)(x[i:i+4]), (*[4]T)(y[i:i+4])
		s0 += a[0] * b[0]
		s1 += a[1] * b[1]
		s2 += a[2] * b[2]
		s3 += a[3] * b[3]
	}
	s := (s0 + s1) + (s2 + s3)
	for j := i; j < len(x); j++ {
		s += x[j] * y[j]
	}
	return s
}

// SumSqDev is the sum of (x[i]-c)*(x[i]-c): with c the mean, n times the
// variance (numpy's var takes the same two passes). Four partial sums, as
// Dot; it is Dot's error bound that applies.
func SumSqDev[T Number](x []T, c T) T {
	var s0, s1, s2, s3 T
	i := 0
	for ; i+4 <= len(x); i += 4 {
		a := (*[4]T)(x[i : i+4])
		d0, d1, d2, d3 := a[0]-c, a[1]-c, a[2]-c, a[3]-c
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	s := (s0 + s1) + (s2 + s3)
	for j := i; j < len(x); j++ {
		d := x[j] - c
		s += d * d
	}
	return s
}

// Axpy adds alpha*x to y element by element (BLAS's axpy: y[i] +=
// alpha*x[i]). It panics if x and y differ in length.
func Axpy[T Number](alpha T, x, y []T) {
	if len(x) != len(y) {
		panic("kernels.Axpy: x and y differ in length")
	}
	i := 0
	for ; i+4 <= len(x); i += 4 {
		a, b := (*[4]T)(x[i:i+4]), (*[4]T)(y[i:i+4])
		b[0] += alpha * a[0]
		b[1] += alpha * a[1]
		b[2] += alpha * a[2]
		b[3] += alpha * a[3]
	}
	for j := i; j < len(x); j++ {
		y[j] += alpha * x[j]
	}
}

// Max is the largest element of x; for floating point, a NaN when x holds
// one (numpy's max, and Go's slices.Max). It panics if x is empty.
func Max[T Number](x []T) T {
	if len(x) == 0 {
		panic("kernels.Max: empty slice")
	}
	if f, ok := any(x).([]float64); ok {
		return T(MaxFloat64(f))
	}
	// four elements a step against the running result, folded in only when
	// one of them is above it or a NaN (as maxGo)
	m := x[0]
	i := 1
	for ; i+4 <= len(x) && m == m; i += 4 {
		a := (*[4]T)(x[i : i+4])
		if !(a[0] <= m && a[1] <= m && a[2] <= m && a[3] <= m) {
			m = foldMax(m, a[:])
		}
	}
	return foldMax(m, x[i:])
}

// Min is Max for the smallest element.
func Min[T Number](x []T) T {
	if len(x) == 0 {
		panic("kernels.Min: empty slice")
	}
	if f, ok := any(x).([]float64); ok {
		return T(MinFloat64(f))
	}
	m := x[0]
	i := 1
	for ; i+4 <= len(x) && m == m; i += 4 {
		a := (*[4]T)(x[i : i+4])
		if !(a[0] >= m && a[1] >= m && a[2] >= m && a[3] >= m) {
			m = foldMin(m, a[:])
		}
	}
	return foldMin(m, x[i:])
}

// foldMax is the maximum of m and x, the first NaN among them if any.
func foldMax[T Number](m T, x []T) T {
	for _, v := range x {
		if m != m {
			return m
		}
		if v != v {
			return v
		}
		m = max(m, v)
	}
	return m
}

func foldMin[T Number](m T, x []T) T {
	for _, v := range x {
		if m != m {
			return m
		}
		if v != v {
			return v
		}
		m = min(m, v)
	}
	return m
}

// isFloat reports whether T is a floating-point type (1/2 is 0 in every
// integer type).
func isFloat[T Number]() bool {
	var one T = 1
	return one/2 != 0
}
