package core

import "math"

// Float16ToFloat32 converts IEEE 754 half-precision bits to float32
// (exactly: every float16 is a float32).
func Float16ToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf / NaN
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		if man == 0 {
			return math.Float32frombits(sign)
		}
		// Subnormal: value = man * 2^-24.
		f := float32(man) * (1.0 / (1 << 24))
		if sign != 0 {
			return -f
		}
		return f
	default:
		return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
	}
}

// BFloat16ToFloat32 converts bfloat16 bits to float32 (exactly).
func BFloat16ToFloat32(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// Float64ToFloat16 rounds f to float16 bits as numpy converts float64 to
// float16: nearest, ties to even, ±Inf beyond the range, NaN stays NaN
// (f16FromF64 in narrow.go, the conversion kernels' own).
func Float64ToFloat16(f float64) uint16 { return f16FromF64(f) }

// Float64ToBFloat16 rounds f to bfloat16 bits as ml_dtypes and torch store a
// Python float: to float32 first, then nearest, ties to even; NaN quiet
// (bf16FromF32 in narrow.go).
func Float64ToBFloat16(f float64) uint16 { return bf16FromF32(float32(f)) }
