package kernels

import (
	"math"
	"os"
	"sync/atomic"
)

// simd is true while the AVX2 kernels run. An atomic, so that a test may
// switch paths while other tests run; its load is a plain move.
var simd atomic.Bool

func init() {
	v := os.Getenv("GODLPACK_NOSIMD")
	simd.Store(hasAVX2 && (v == "" || v == "0"))
}

// HasAVX2 reports whether the CPU and the OS support the AVX2 kernels.
func HasAVX2() bool { return hasAVX2 }

// SIMD reports whether the AVX2 kernels are in use.
func SIMD() bool { return simd.Load() }

// SetSIMD switches the AVX2 kernels on or off (on only takes effect where
// HasAVX2) and returns the previous setting. For tests and benchmarks: the
// results are the same either way.
func SetSIMD(on bool) (prev bool) { return simd.Swap(on && hasAVX2) }

// pairBlock is the leaf of the pairwise sum (numpy's PW_BLOCKSIZE).
const pairBlock = 128

// batchLeaves is the most leaves summed in one call of the AVX2 kernel; a
// node of up to batchMax elements has at most that many (a node of more
// than 128 elements halves into rows of at least 64).
const (
	batchLeaves = 128
	batchMax    = 64 * batchLeaves
)

// SumFloat64 is numpy's pairwise sum of x: leaves of at most 128 elements
// summed with 8 partial sums, combined ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))
// and followed by the leaf's last len%8 elements in order; longer rows
// split at half the length rounded down to a multiple of 8 and the halves
// added. The result is numpy's for a contiguous row, bit for bit; the error
// grows as O(log n) rather than O(n).
func SumFloat64(x []float64) float64 {
	n := len(x)
	if n < 8 {
		s := 0.0
		for _, v := range x {
			s += v
		}
		return s
	}
	if !simd.Load() {
		return pairwise(x)
	}
	if n <= pairBlock { // one leaf: no arrays to clear
		var s float64
		sumLeavesAVX2(&x[0], &n, 1, &s)
		return s
	}
	if n <= batchMax {
		// The leaves of the node in one call (one stream through memory),
		// then the additions of the tree above them.
		var lens [batchLeaves]int
		var sums [batchLeaves]float64
		k := leafLens(n, &lens, 0)
		sumLeavesAVX2(&x[0], &lens[0], k, &sums[0])
		i := 0
		return combine(n, &sums, &i)
	}
	n2 := n / 2
	n2 -= n2 % 8
	return SumFloat64(x[:n2]) + SumFloat64(x[n2:])
}

// leafLens appends the lengths of the leaves of a node of n >= 8 elements
// to lens from index k, in order, and returns the new count.
func leafLens(n int, lens *[batchLeaves]int, k int) int {
	if n <= pairBlock {
		lens[k] = n
		return k + 1
	}
	n2 := n / 2
	n2 -= n2 % 8
	if n-n2 <= pairBlock { // two leaves (most nodes): no calls
		lens[k], lens[k+1] = n2, n-n2
		return k + 2
	}
	return leafLens(n-n2, lens, leafLens(n2, lens, k))
}

// combine adds the leaf sums of a node of n >= 8 elements from sums[*i]
// on, as the recursion of SumFloat64 would.
func combine(n int, sums *[batchLeaves]float64, i *int) float64 {
	if n <= pairBlock {
		s := sums[*i]
		*i++
		return s
	}
	n2 := n / 2
	n2 -= n2 % 8
	if n-n2 <= pairBlock { // two leaves
		s := sums[*i] + sums[*i+1]
		*i += 2
		return s
	}
	l := combine(n2, sums, i)
	return l + combine(n-n2, sums, i)
}

// simdMin is the row length from which the AVX2 min/max run (they take
// 16 elements of each of four streams a step, and at least one step).
const simdMin = 64

// MaxFloat64 is the maximum of x, -Inf when x is empty; the first NaN of x
// when it holds one.
func MaxFloat64(x []float64) float64 {
	if len(x) >= simdMin && simd.Load() {
		k := len(x) &^ (simdMin - 1)
		m, nan := maxAVX2(&x[0], k)
		if nan < 0 {
			return maxTail(m, x[k:])
		}
		return firstNaN(x[nan:])
	}
	return maxGo(x)
}

// MinFloat64 is the minimum of x, +Inf when x is empty; the first NaN of x
// when it holds one.
func MinFloat64(x []float64) float64 {
	if len(x) >= simdMin && simd.Load() {
		k := len(x) &^ (simdMin - 1)
		m, nan := minAVX2(&x[0], k)
		if nan < 0 {
			return minTail(m, x[k:])
		}
		return firstNaN(x[nan:])
	}
	return minGo(x)
}

// maxTail folds the last few elements into m; the first NaN wins.
func maxTail(m float64, x []float64) float64 {
	for _, v := range x {
		if v != v {
			return v
		}
		m = max(m, v)
	}
	return m
}

func minTail(m float64, x []float64) float64 {
	for _, v := range x {
		if v != v {
			return v
		}
		m = min(m, v)
	}
	return m
}

// firstNaN is the first NaN of x, which the caller knows holds one: the
// one numpy returns, sign and payload included.
func firstNaN(x []float64) float64 {
	for _, v := range x {
		if v != v {
			return v
		}
	}
	return math.NaN() // not reached
}

// convStep is the number of elements the AVX2 conversions take a step; the
// last len%convStep go through the Go loops.
const convStep = 16

// Float64ToFloat32 sets dst[i] = float32(src[i]) (round to nearest even,
// NaN stays NaN) for every i < len(src); dst must be at least as long.
func Float64ToFloat32(dst []float32, src []float64) {
	dst = dst[:len(src)]
	k := 0
	if len(src) >= convStep && simd.Load() {
		k = len(src) &^ (convStep - 1)
		f64ToF32AVX2(&dst[0], &src[0], k)
	}
	f64ToF32(dst[k:], src[k:])
}

// Float32ToBFloat16 sets dst[i] to the bfloat16 code of src[i] as ml_dtypes
// rounds it: to nearest, ties to even (overflow to infinity), and a NaN to
// the quiet NaN 0x7fc0 with the source's sign.
func Float32ToBFloat16(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	k := 0
	if len(src) >= convStep && simd.Load() {
		k = len(src) &^ (convStep - 1)
		f32ToBF16AVX2(&dst[0], &src[0], k)
	}
	f32ToBF16(dst[k:], src[k:])
}

// Int64ToFloat64 sets dst[i] = float64(src[i]) (round to nearest even).
func Int64ToFloat64(dst []float64, src []int64) {
	dst = dst[:len(src)]
	k := 0
	if len(src) >= convStep && simd.Load() {
		k = len(src) &^ (convStep - 1)
		i64ToF64AVX2(&dst[0], &src[0], k)
	}
	i64ToF64(dst[k:], src[k:])
}
