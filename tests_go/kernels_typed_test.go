package tests_go

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core/kernels"
)

// The typed kernels kits call (kernels.Sum, Dot, SumSqDev, Axpy, Max, Min) against
// references written plainly here: integers exactly (wrapping as the
// type does), floating point bit for bit where the order is the
// reference's (Axpy, Max, Min; Sum of float64 against SumFloat64) and
// within the order's error bound where it is not.

type celsius float32 // a type defined on a float: the kernels take it too

func typedLens() []int {
	ns := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 127, 128, 129, 130, 255, 256, 257, 1000, 4099,
		100003}
	return ns
}

// exactSum is the sum of x as a big float (every float64 exactly).
func exactSum[T float32 | float64 | celsius](x []T) (s, abs float64) {
	acc, a := new(big.Float).SetPrec(4096), new(big.Float).SetPrec(4096)
	for _, v := range x {
		acc.Add(acc, big.NewFloat(float64(v)))
		a.Add(a, big.NewFloat(math.Abs(float64(v))))
	}
	s, _ = acc.Float64()
	abs, _ = a.Float64()
	return s, abs
}

func checkIntKernels[T int8 | int32 | int64 | uint8 | uint64 | int](t *testing.T, r *rand.Rand, name string) {
	for _, n := range typedLens() {
		x, y := make([]T, n), make([]T, n)
		for i := range x {
			x[i], y[i] = T(r.Uint64()), T(r.Uint64())
		}
		var sum, dot T
		for i := range x {
			sum += x[i]
			dot += x[i] * y[i]
		}
		assert.Equal(t, sum, kernels.Sum(x), "%s Sum n=%d", name, n)
		assert.Equal(t, dot, kernels.Dot(x, y), "%s Dot n=%d", name, n)
		c := T(r.Uint64())
		var ssd T
		for _, v := range x {
			ssd += (v - c) * (v - c)
		}
		assert.Equal(t, ssd, kernels.SumSqDev(x, c), "%s SumSqDev n=%d", name, n)
		alpha := T(r.Uint64())
		want := slices.Clone(y)
		for i := range want {
			want[i] += alpha * x[i]
		}
		kernels.Axpy(alpha, x, y)
		assert.Equal(t, want, y, "%s Axpy n=%d", name, n)
		if n > 0 {
			assert.Equal(t, slices.Max(x), kernels.Max(x), "%s Max n=%d", name, n)
			assert.Equal(t, slices.Min(x), kernels.Min(x), "%s Min n=%d", name, n)
		}
	}
}

func checkFloatKernels[T float32 | float64 | celsius](t *testing.T, r *rand.Rand, name string, eps float64) {
	for _, n := range typedLens() {
		x, y := make([]T, n), make([]T, n)
		for i := range x {
			x[i], y[i] = T(r.NormFloat64()*1e3), T(r.NormFloat64())
		}
		// the pairwise order's bound: about log2(n) roundings of the
		// absolute sum (numpy's), generously
		s, abs := exactSum(x)
		bound := (math.Log2(float64(n)+1) + 8) * eps * abs
		assert.InDelta(t, s, float64(kernels.Sum(x)), bound+1e-300, "%s Sum n=%d", name, n)
		p := make([]T, n)
		for i := range p {
			p[i] = x[i] * y[i]
		}
		ds, dabs := exactSum(p)
		assert.InDelta(t, ds, float64(kernels.Dot(x, y)), float64(n/4+8)*eps*dabs+1e-300, "%s Dot n=%d", name, n)
		c := T(r.NormFloat64() * 1e3)
		q := make([]T, n)
		for i := range q {
			q[i] = (x[i] - c) * (x[i] - c)
		}
		qs, qabs := exactSum(q)
		assert.InDelta(t, qs, float64(kernels.SumSqDev(x, c)), float64(n/4+8)*eps*qabs+1e-300, "%s SumSqDev n=%d",
			name, n)
		// small integers: every partial sum exact in any order
		ints := make([]T, n)
		var isum T
		for i := range ints {
			ints[i] = T(r.IntN(200) - 100)
			isum += ints[i]
		}
		assert.Equal(t, isum, kernels.Sum(ints), "%s Sum of integers n=%d", name, n)
		want := slices.Clone(y)
		for i := range want {
			want[i] += 3 * x[i]
		}
		kernels.Axpy(3, x, y)
		assert.Equal(t, want, y, "%s Axpy n=%d", name, n)
		if n == 0 {
			continue
		}
		assert.Equal(t, slices.Max(x), kernels.Max(x), "%s Max n=%d", name, n)
		assert.Equal(t, slices.Min(x), kernels.Min(x), "%s Min n=%d", name, n)
		for _, at := range []int{0, n / 2, n - 1} { // a NaN anywhere is the answer
			nan := slices.Clone(x)
			nan[at] = T(math.NaN())
			assert.True(t, math.IsNaN(float64(kernels.Max(nan))), "%s Max NaN at %d of %d", name, at, n)
			assert.True(t, math.IsNaN(float64(kernels.Min(nan))), "%s Min NaN at %d of %d", name, at, n)
		}
	}
}

func TestTypedKernelsAgainstPlainLoops(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(37, 1))
	checkIntKernels[int8](t, r, "int8")
	checkIntKernels[int32](t, r, "int32")
	checkIntKernels[int64](t, r, "int64")
	checkIntKernels[uint8](t, r, "uint8")
	checkIntKernels[uint64](t, r, "uint64")
	checkIntKernels[int](t, r, "int")
	checkFloatKernels[float32](t, r, "float32", 0x1p-24)
	checkFloatKernels[float64](t, r, "float64", 0x1p-53)
	checkFloatKernels[celsius](t, r, "celsius", 0x1p-24)
}

// Sum of floating point is numpy's pairwise order in T's precision: the
// float64 instantiation is SumFloat64 bit for bit, a type defined on
// float64 too, and float32 sums in float32 (not in float64 and rounded).
func TestTypedSumIsNumpysPairwiseOrder(t *testing.T) {
	t.Parallel()
	type metres float64
	r := rand.New(rand.NewPCG(37, 2))
	for _, n := range typedLens() {
		x, m, f := make([]float64, n), make([]metres, n), make([]float32, n)
		for i := range x {
			x[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(20)-10))
			m[i], f[i] = metres(x[i]), float32(x[i])
		}
		want := kernels.SumFloat64(x)
		assert.Equal(t, math.Float64bits(want), math.Float64bits(kernels.Sum(x)), "n=%d", n)
		assert.Equal(t, math.Float64bits(want), math.Float64bits(float64(kernels.Sum(m))), "metres n=%d", n)
		assert.Equal(t, math.Float32bits(refPairwise(f)), math.Float32bits(kernels.Sum(f)), "float32 n=%d", n)
	}
}

// refPairwise is numpy's pairwise_sum for a contiguous row, in T: below 8
// elements in order; up to 128 in 8 partial sums combined
// ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)) and the tail in order; above, the
// halves (split at a multiple of 8) added.
func refPairwise[T float32](x []T) T {
	n := len(x)
	var s T
	switch {
	case n < 8:
		for _, v := range x {
			s += v
		}
	case n <= 128:
		var r [8]T
		copy(r[:], x[:8])
		i := 8
		for ; i+8 <= n; i += 8 {
			for k := range r {
				r[k] += x[i+k]
			}
		}
		s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for _, v := range x[i:] {
			s += v
		}
	default:
		n2 := n / 2
		n2 -= n2 % 8
		s = refPairwise(x[:n2]) + refPairwise(x[n2:])
	}
	return s
}

func TestTypedKernelsPanicAsTheSlicesPackage(t *testing.T) {
	t.Parallel()
	require.PanicsWithValue(t, "kernels.Max: empty slice", func() { kernels.Max([]int32{}) })
	require.PanicsWithValue(t, "kernels.Min: empty slice", func() { kernels.Min([]float32(nil)) })
	require.PanicsWithValue(t, "kernels.Dot: x and y differ in length", func() { kernels.Dot([]int{1}, []int{1, 2}) })
	require.PanicsWithValue(t, "kernels.Axpy: x and y differ in length", func() { kernels.Axpy(1.0, []float64{1}, nil) })
}

// BenchmarkTypedKernels: each kernel and the plain loop a kit would write
// instead, over 2^20 elements (Axpy 2^16, which stays in cache):
//
//	go test ./tests_go -run '^$' -bench TypedKernels
func BenchmarkTypedKernels(b *testing.B) {
	const n = 1 << 20
	f64, g64, f32, i64 := make([]float64, n), make([]float64, n), make([]float32, n), make([]int64, n)
	for i := range n {
		f64[i], g64[i], f32[i], i64[i] = float64(i%7), float64(i%5), float32(i%7), int64(i%7)
	}
	var sf float64
	var s32 float32
	var si int64
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"sum/float64/loop", func() {
			s := 0.0
			for _, v := range f64 {
				s += v
			}
			sf = s
		}},
		{"sum/float64/kernels.Sum", func() { sf = kernels.Sum(f64) }},
		{"sum/float32/loop", func() {
			var s float32
			for _, v := range f32 {
				s += v
			}
			s32 = s
		}},
		{"sum/float32/kernels.Sum", func() { s32 = kernels.Sum(f32) }},
		{"sum/int64/loop", func() {
			var s int64
			for _, v := range i64 {
				s += v
			}
			si = s
		}},
		{"sum/int64/kernels.Sum", func() { si = kernels.Sum(i64) }},
		{"dot/float64/loop", func() {
			s := 0.0
			for i := range f64 {
				s += f64[i] * g64[i]
			}
			sf = s
		}},
		{"dot/float64/kernels.Dot", func() { sf = kernels.Dot(f64, g64) }},
		{"max/float32/loop", func() {
			m := f32[0]
			for _, v := range f32 {
				m = max(m, v)
			}
			s32 = m
		}},
		{"max/float32/kernels.Max", func() { s32 = kernels.Max(f32) }},
		{"axpy/float64/loop", func() {
			x, y := f64[:1<<16], g64[:1<<16]
			for i := range x {
				y[i] += 2 * x[i]
			}
		}},
		{"axpy/float64/kernels.Axpy", func() { kernels.Axpy(2, f64[:1<<16], g64[:1<<16]) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.f()
			}
		})
	}
	_, _, _ = sf, s32, si
}
