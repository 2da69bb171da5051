package kernels

import "math"

// The pure-Go kernels: the fallback where AVX2 is missing or switched off,
// and the reference the assembly is tested against. Keep each in step with
// its assembly twin in kernels_amd64.s.

// sumLeaf is a pairwise leaf (8 <= len(x) <= 128) in numpy's order.
func sumLeaf(x []float64) float64 {
	r0, r1, r2, r3 := x[0], x[1], x[2], x[3]
	r4, r5, r6, r7 := x[4], x[5], x[6], x[7]
	i := 8
	for ; i+8 <= len(x); i += 8 {
		a := (*[8]float64)(x[i : i+8])
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

// maxGo: Go's max builtin propagates NaN without branches; 4 running
// results keep the dependency chains short.
func maxGo(x []float64) float64 {
	inf := math.Inf(-1)
	m0, m1, m2, m3 := inf, inf, inf, inf
	i := 0
	for ; i+4 <= len(x); i += 4 {
		a := (*[4]float64)(x[i : i+4])
		m0 = max(m0, a[0])
		m1 = max(m1, a[1])
		m2 = max(m2, a[2])
		m3 = max(m3, a[3])
	}
	for _, v := range x[i:] {
		m0 = max(m0, v)
	}
	return max(m0, m1, m2, m3)
}

func minGo(x []float64) float64 {
	inf := math.Inf(1)
	m0, m1, m2, m3 := inf, inf, inf, inf
	i := 0
	for ; i+4 <= len(x); i += 4 {
		a := (*[4]float64)(x[i : i+4])
		m0 = min(m0, a[0])
		m1 = min(m1, a[1])
		m2 = min(m2, a[2])
		m3 = min(m3, a[3])
	}
	for _, v := range x[i:] {
		m0 = min(m0, v)
	}
	return min(m0, m1, m2, m3)
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
