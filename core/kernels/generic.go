package kernels

import "math"

// The pure-Go kernels: the fallback where AVX2 is missing or switched off,
// and the reference the assembly is tested against. Keep each in step with
// its assembly twin in kernels_amd64.s.

// The pure-Go pairwise sum is pairwise (typed.go), which the typed Sum
// shares.

// maxGo is the maximum of x, its first NaN when it holds one. Four
// elements a step are compared with the running result; only a step with
// a new maximum (rare after the first few) or a NaN folds them in. Go's
// max builtin on every element is slower: its NaN and signed-zero handling
// is a chain of several instructions.
func maxGo(x []float64) float64 {
	m := math.Inf(-1)
	i := 0
	for ; i+4 <= len(x); i += 4 {
		a := (*[4]float64)(x[i : i+4])
		if !(a[0] <= m && a[1] <= m && a[2] <= m && a[3] <= m) {
			if a[0] != a[0] || a[1] != a[1] || a[2] != a[2] || a[3] != a[3] {
				return firstNaN(a[:])
			}
			m = max(m, a[0], a[1], a[2], a[3])
		}
	}
	return maxTail(m, x[i:])
}

// minGo is maxGo for the minimum.
func minGo(x []float64) float64 {
	m := math.Inf(1)
	i := 0
	for ; i+4 <= len(x); i += 4 {
		a := (*[4]float64)(x[i : i+4])
		if !(a[0] >= m && a[1] >= m && a[2] >= m && a[3] >= m) {
			if a[0] != a[0] || a[1] != a[1] || a[2] != a[2] || a[3] != a[3] {
				return firstNaN(a[:])
			}
			m = min(m, a[0], a[1], a[2], a[3])
		}
	}
	return minTail(m, x[i:])
}

func f64ToF32(dst []float32, src []float64) {
	dst = dst[:len(src)]
	i := 0
	for ; i+4 <= len(src); i += 4 {
		s, d := (*[4]float64)(src[i:i+4]), (*[4]float32)(dst[i:i+4])
		d[0], d[1], d[2], d[3] = float32(s[0]), float32(s[1]), float32(s[2]), float32(s[3])
	}
	for ; i < len(src); i++ {
		dst[i] = float32(src[i])
	}
}

// bf16 rounds as ml_dtypes: add 0x7fff plus the lowest kept bit, keep
// the high half; NaN becomes the quiet NaN with its sign.
func bf16(x float32) uint16 {
	u := math.Float32bits(x)
	r := (u + 0x7fff + (u>>16)&1) >> 16
	if u&0x7fffffff > 0x7f800000 { // branch-free (CMOV): NaN is rare
		r = u>>16&0x8000 | 0x7fc0
	}
	return uint16(r)
}

func f32ToBF16(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = bf16(v)
	}
}

func i64ToF64(dst []float64, src []int64) {
	dst = dst[:len(src)]
	i := 0
	for ; i+4 <= len(src); i += 4 {
		s, d := (*[4]int64)(src[i:i+4]), (*[4]float64)(dst[i:i+4])
		d[0], d[1], d[2], d[3] = float64(s[0]), float64(s[1]), float64(s[2]), float64(s[3])
	}
	for ; i < len(src); i++ {
		dst[i] = float64(src[i])
	}
}
