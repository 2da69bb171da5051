package core

import (
	"math"

	"github.com/godlpack/godlpack/core/kernels"
)

// Float16ToFloat32 converts IEEE 754 half-precision bits to float32
// (exactly: every float16 is a float32).
func Float16ToFloat32(h uint16) float32 { return kernels.Float16ToFloat32(h) }

// BFloat16ToFloat32 converts bfloat16 bits to float32 (exactly).
func BFloat16ToFloat32(b uint16) float32 { return kernels.BFloat16ToFloat32(b) }

// Float64ToFloat16 rounds f to float16 bits as numpy converts float64 to
// float16: nearest, ties to even, ±Inf beyond the range, NaN stays NaN.
func Float64ToFloat16(f float64) uint16 { return kernels.Float64ToFloat16(f) }

// Float64ToBFloat16 rounds f to bfloat16 bits as ml_dtypes and torch store a
// Python float: to float32 first, then nearest, ties to even; NaN quiet.
func Float64ToBFloat16(f float64) uint16 { return kernels.Float64ToBFloat16(f) }

// SubByteToFloat64 is the value of one float6 or float4 element given its
// code (the element's bits, low-aligned in a byte): sign, exponent and
// mantissa as OCP's microscaling formats define them, finite only (no Inf
// or NaN codes); ok is false for any other dtype. float4_e2m1fn has bias 1,
// float6_e2m3fn 1, float6_e3m2fn 3.
func SubByteToFloat64(dt DataType, code byte) (v float64, ok bool) {
	var ebits, mbits, bias int
	switch dt {
	case Float4E2M1FN:
		ebits, mbits, bias = 2, 1, 1
	case Float6E2M3FN:
		ebits, mbits, bias = 2, 3, 1
	case Float6E3M2FN:
		ebits, mbits, bias = 3, 2, 3
	default:
		return 0, false
	}
	m := int(code) & (1<<mbits - 1)
	e := int(code) >> mbits & (1<<ebits - 1)
	frac := float64(m) / float64(int(1)<<mbits)
	if e == 0 { // subnormal
		v = math.Ldexp(frac, 1-bias)
	} else {
		v = math.Ldexp(1+frac, e-bias)
	}
	if code>>(mbits+ebits)&1 == 1 {
		v = -v
	}
	return v, true
}
