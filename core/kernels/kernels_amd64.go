package kernels

// The AVX2 kernels of kernels_amd64.s. Callers guarantee the lengths each
// one states; none keeps a pointer past its return.

// sumLeavesAVX2 sets sums[j] to pairwise's sum of the j-th of k consecutive rows
// from p, of lens[j] elements each (8 <= lens[j] <= 128).
//
//go:noescape
func sumLeavesAVX2(p *float64, lens *int, k int, sums *float64)

// maxAVX2 is the maximum of p[:n], n a positive multiple of 64, when no
// element is NaN (nan = -1); otherwise nan is an index at or before the
// first NaN and m is undefined.
//
//go:noescape
func maxAVX2(p *float64, n int) (m float64, nan int)

// minAVX2 is maxAVX2 for the minimum.
//
//go:noescape
func minAVX2(p *float64, n int) (m float64, nan int)

// f64ToF32AVX2 is f64ToF32 of n elements, n a positive multiple of 16.
//
//go:noescape
func f64ToF32AVX2(dst *float32, src *float64, n int)

// f32ToBF16AVX2 is f32ToBF16 of n elements, n a positive multiple of 16.
//
//go:noescape
func f32ToBF16AVX2(dst *uint16, src *float32, n int)

// i64ToF64AVX2 is i64ToF64 of n elements, n a positive multiple of 16.
//
//go:noescape
func i64ToF64AVX2(dst *float64, src *int64, n int)
