package core

import "math"

// Rounding of float64 values to the narrow float types, as a Python float
// stored in such an array is rounded (pyext/scalar.c): float16 directly
// (round to nearest, ties to even), bfloat16 through float32 (ml_dtypes'
// and torch's conversion), float32 by Go's conversion.

// Float64ToFloat16 returns the float16 bits nearest to f (ties to even);
// values beyond the largest float16 become ±Inf, NaN stays NaN.
func Float64ToFloat16(f float64) uint16 {
	b := math.Float64bits(f)
	sign := uint16(b>>48) & 0x8000
	exp := int(b>>52) & 0x7ff
	man := b & (1<<52 - 1)
	if exp == 0x7ff {
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 1023
	if e > 15 {
		return sign | 0x7c00
	}
	full := man | 1<<52 // float64 subnormals (exp 0) return 0 below
	// Keep 10 fraction bits for normal results; subnormal results (e < -14)
	// keep fewer: the value in units of 2^-24.
	shift := uint(42)
	if e < -14 {
		shift = uint(28 - e)
		if shift > 53 {
			return sign
		}
	}
	m := full >> shift
	rem := full & (1<<shift - 1)
	half := uint64(1) << (shift - 1)
	if rem > half || (rem == half && m&1 == 1) {
		m++
	}
	if e < -14 {
		return sign | uint16(m) // m == 1<<10 is the smallest normal: the bits agree
	}
	if m == 1<<11 {
		m >>= 1
		e++
		if e > 15 {
			return sign | 0x7c00
		}
	}
	return sign | uint16(e+15)<<10 | uint16(m&0x3ff)
}

// Float64ToBFloat16 returns the bfloat16 bits of f rounded to float32 and
// then to bfloat16 (nearest, ties to even); NaN stays a quiet NaN.
func Float64ToBFloat16(f float64) uint16 {
	u := math.Float32bits(float32(f))
	if u&0x7fffffff > 0x7f800000 {
		return uint16(u>>16) | 0x40
	}
	u += 0x7fff + (u>>16)&1
	return uint16(u >> 16)
}

// roundTo returns f rounded to the real type dt (float16, bfloat16,
// float32; float64 and others unchanged), as a float64.
func roundTo(dt DataType, f float64) float64 {
	switch {
	case dt.Code == KDLFloat && dt.Bits == 16:
		return float64(Float16ToFloat32(Float64ToFloat16(f)))
	case dt.Code == KDLBfloat && dt.Bits == 16:
		return float64(BFloat16ToFloat32(Float64ToBFloat16(f)))
	case dt.Code == KDLFloat && dt.Bits == 32, dt.Code == KDLComplex && dt.Bits == 64:
		return float64(float32(f))
	}
	return f
}
