package kernels

import "math"

// Narrow floats: float16, bfloat16 and the eight float8 kinds, encoded and
// decoded the way numpy (float16) and ml_dtypes (bfloat16, float8) do, so
// that a conversion gives the bits np.ndarray.astype gives:
//
//   - rounding is to nearest, ties to even, from the exact value;
//   - ml_dtypes rounds every source to float32 first (static_cast<float>),
//     so float64 and int64 sources round twice; numpy rounds float64 to
//     float16 directly;
//   - overflow gives inf where the kind has one (IEEE-like kinds), else NaN
//     (fn: S.1111.111, fnuz: 0x80, e8m0fnu: 0xff);
//   - fnuz kinds have no negative zero: -0.0 and negative values that round
//     to zero give +0;
//   - NaN: numpy's float16 keeps the sign and the top payload bits (quiet or
//     not); ml_dtypes writes its quiet NaN with the source's sign.
//
// Decoding is exact: every narrow value is a float32.

// Narrow kinds' encoding styles.
const (
	styleIEEE = iota // all-ones exponent: inf (mantissa 0) or NaN
	styleFN          // no inf; only the all-ones code (either sign) is NaN
	styleFNUZ        // no inf, no -0; 0x80 is the only NaN
	styleE8M0        // exponent only: no sign, no zero, 0xff is NaN
)

// nfmt describes one narrow float kind.
type nfmt struct {
	ebits, mbits uint
	bias         int
	style        uint8
	maxCode      uint64 // largest finite magnitude code
}

func (f *nfmt) width() uint { return 1 + f.ebits + f.mbits }

// Narrow kinds, indexed by narrowIndex.
var (
	fmtF16  = nfmt{ebits: 5, mbits: 10, bias: 15, style: styleIEEE, maxCode: 0x7bff}
	fmtBF16 = nfmt{ebits: 8, mbits: 7, bias: 127, style: styleIEEE, maxCode: 0x7f7f}
	fmtF8   = [8]nfmt{
		Float8E3M4 - Float8E3M4:        {ebits: 3, mbits: 4, bias: 3, style: styleIEEE, maxCode: 0x6f},
		Float8E4M3 - Float8E3M4:        {ebits: 4, mbits: 3, bias: 7, style: styleIEEE, maxCode: 0x77},
		Float8E4M3B11FNUZ - Float8E3M4: {ebits: 4, mbits: 3, bias: 11, style: styleFNUZ, maxCode: 0x7f},
		Float8E4M3FN - Float8E3M4:      {ebits: 4, mbits: 3, bias: 7, style: styleFN, maxCode: 0x7e},
		Float8E4M3FNUZ - Float8E3M4:    {ebits: 4, mbits: 3, bias: 8, style: styleFNUZ, maxCode: 0x7f},
		Float8E5M2 - Float8E3M4:        {ebits: 5, mbits: 2, bias: 15, style: styleIEEE, maxCode: 0x7b},
		Float8E5M2FNUZ - Float8E3M4:    {ebits: 5, mbits: 2, bias: 16, style: styleFNUZ, maxCode: 0x7f},
		Float8E8M0FNU - Float8E3M4:     {ebits: 8, mbits: 0, bias: 127, style: styleE8M0, maxCode: 0xfe},
	}
	// f8Decode[k][code] is the float32 value of code in float8 kind k.
	f8Decode = buildF8Tables()
)

func buildF8Tables() (t [8][256]float32) {
	for k := range fmtF8 {
		for c := 0; c < 256; c++ {
			t[k][c] = fmtF8[k].decode(uint16(c))
		}
	}
	return t
}

// quietNaN32 is ml_dtypes' NaN: float32's quiet NaN with the given sign.
func quietNaN32(neg bool) float32 {
	if neg {
		return math.Float32frombits(0xffc00000)
	}
	return math.Float32frombits(0x7fc00000)
}

// decode returns the value of code (exact; NaN is ml_dtypes' quiet NaN with
// the code's sign bit).
func (f *nfmt) decode(code uint16) float32 {
	if f.style == styleE8M0 {
		if code == 0xff {
			return quietNaN32(false)
		}
		return float32(math.Ldexp(1, int(code)-f.bias))
	}
	signShift := f.ebits + f.mbits
	neg := code>>signShift&1 != 0
	mag := uint64(code) & (1<<signShift - 1)
	e := int(mag >> f.mbits)
	m := mag & (1<<f.mbits - 1)
	switch {
	case f.style == styleFNUZ && code == 0x80:
		return quietNaN32(true)
	case f.style == styleIEEE && e == 1<<f.ebits-1:
		if m != 0 {
			return quietNaN32(neg)
		}
		return float32(math.Copysign(math.Inf(1), b2f(neg)))
	case f.style == styleFN && mag > f.maxCode:
		return quietNaN32(neg)
	}
	var v float64
	if e == 0 {
		v = math.Ldexp(float64(m), 1-f.bias-int(f.mbits))
	} else {
		v = math.Ldexp(float64(m|1<<f.mbits), e-f.bias-int(f.mbits))
	}
	return float32(math.Copysign(v, b2f(neg)))
}

func b2f(neg bool) float64 {
	if neg {
		return -1
	}
	return 1
}

// encode rounds x to the nearest code of f, ties to even. A NaN gives
// ml_dtypes' NaN code; float16's numpy NaN rule is in f16FromF64 and f16FromF32.
func (f *nfmt) encode(x float64) uint16 {
	b := math.Float64bits(x)
	neg := b>>63 != 0
	a := b &^ (1 << 63)
	if f.style == styleE8M0 {
		return f.encodeE8M0(x, a)
	}
	signBit := uint16(0)
	if neg {
		signBit = 1 << (f.ebits + f.mbits)
	}
	if a > 0x7ff0000000000000 { // NaN
		switch f.style {
		case styleIEEE:
			return signBit | uint16((1<<f.ebits-1)<<f.mbits|1<<(f.mbits-1))
		case styleFN:
			return signBit | uint16(1<<(f.ebits+f.mbits)-1)
		}
		return 0x80
	}
	var code uint64
	if a == 0x7ff0000000000000 {
		code = f.maxCode + 1 // inf: overflow below
	} else if exp := int(a>>52) - 1023; exp > -1023 { // float64 subnormals round to 0 in every kind
		mant := a&(1<<52-1) | 1<<52
		emin := 1 - f.bias
		e := max(exp, emin)
		shift := uint(52 + e - exp - int(f.mbits)) // bits of mant below the kind's quantum
		var r uint64
		if shift < 64 {
			r = mant >> shift
			rem := mant & (1<<shift - 1)
			half := uint64(1) << (shift - 1)
			if rem > half || rem == half && r&1 == 1 {
				r++
			}
		}
		// A carry out of the mantissa moves into the exponent field.
		code = r + uint64(e-emin)<<f.mbits
	}
	if code > f.maxCode {
		switch f.style {
		case styleIEEE:
			return signBit | uint16((1<<f.ebits-1)<<f.mbits)
		case styleFN:
			return signBit | uint16(1<<(f.ebits+f.mbits)-1)
		}
		return 0x80
	}
	if code == 0 && f.style == styleFNUZ {
		return 0
	}
	return signBit | uint16(code)
}

// encodeE8M0: powers of two 2^-127..2^127, ties to the larger; zero,
// negative values, inf and NaN give NaN (0xff); values below 2^-126 round
// as ml_dtypes rounds them (see below).
func (f *nfmt) encodeE8M0(x float64, a uint64) uint16 {
	if !(x > 0) || a >= 0x7ff0000000000000 {
		return 0xff
	}
	exp := int(a>>52) - 1023
	if exp < 1-f.bias {
		// Below 2^-126 ml_dtypes rounds x/2^-126 to 0 or 1 (the float32
		// subnormal's bits), ties to even.
		if exp == -f.bias && a&(1<<52-1) != 0 {
			return 1
		}
		return 0
	}
	code := exp + f.bias
	if a&(1<<52-1) >= 1<<51 { // mantissa >= 1.5: round up (ties: 2 is even)
		code++
	}
	if code > int(f.maxCode) {
		return 0xff
	}
	return uint16(code)
}

// f16FromF64 is numpy's float64 -> float16 (npy_doublebits_to_halfbits).
func f16FromF64(x float64) uint16 {
	b := math.Float64bits(x)
	if b&^(1<<63) > 0x7ff0000000000000 {
		h := uint16(0x7c00 + (b&(1<<52-1))>>42)
		if h == 0x7c00 {
			h++
		}
		return uint16(b>>48)&0x8000 | h
	}
	return fmtF16.encode(x)
}

// f16FromF32 is numpy's float32 -> float16 (npy_floatbits_to_halfbits).
func f16FromF32(x float32) uint16 {
	b := math.Float32bits(x)
	if b&0x7fffffff > 0x7f800000 {
		h := uint16(0x7c00 + (b&0x7fffff)>>13)
		if h == 0x7c00 {
			h++
		}
		return uint16(b>>16)&0x8000 | h
	}
	return fmtF16.encode(float64(x))
}

// f16FromF32Quiet is ml_dtypes' float32 -> float16 (bfloat16 and float8
// sources): NaN becomes the quiet NaN with the source's sign.
func f16FromF32Quiet(x float32) uint16 {
	b := math.Float32bits(x)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16)&0x8000 | 0x7e00
	}
	return fmtF16.encode(float64(x))
}

// f16ToF64 is numpy's float16 -> float64: exact, NaN payload kept.
func f16ToF64(h uint16) float64 {
	if h&0x7c00 == 0x7c00 {
		return math.Float64frombits(uint64(h&0x8000)<<48 | 0x7ff0000000000000 | uint64(h&0x3ff)<<42)
	}
	return float64(Float16ToFloat32(h))
}

// bf16FromF32 is ml_dtypes' float32 -> bfloat16: ties to even, NaN quiet
// with the source's sign.
func bf16FromF32(x float32) uint16 {
	u := math.Float32bits(x)
	r := (u + 0x7fff + (u>>16)&1) >> 16
	if u&0x7fffffff > 0x7f800000 { // branch-free (CMOV): NaN is rare
		r = u>>16&0x8000 | 0x7fc0
	}
	return uint16(r)
}

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
// (f16FromF64).
func Float64ToFloat16(f float64) uint16 { return f16FromF64(f) }

// Float64ToBFloat16 rounds f to bfloat16 bits as ml_dtypes and torch store a
// Python float: to float32 first, then nearest, ties to even; NaN quiet
// (bf16FromF32).
func Float64ToBFloat16(f float64) uint16 { return bf16FromF32(float32(f)) }
