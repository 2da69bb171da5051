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
