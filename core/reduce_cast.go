package core

import (
	"math"
	"unsafe"
)

// Accumulator values and the casts from them into any result dtype (the
// value casts of out= and of results narrower than their accumulator).

// accVal holds one accumulator value; the accKind says which field.
type accVal struct {
	f float64
	i int64
	u uint64
	c complex128
	b bool
}

func (v *accVal) load(k accKind, p unsafe.Pointer) {
	switch k {
	case accF:
		v.f = *(*float64)(p)
	case accI:
		v.i = *(*int64)(p)
	case accU:
		v.u = *(*uint64)(p)
	case accC:
		v.c = *(*complex128)(p)
	default:
		v.b = *(*uint8)(p) != 0
	}
}

func (v *accVal) store(k accKind, p unsafe.Pointer) {
	switch k {
	case accF:
		*(*float64)(p) = v.f
	case accI:
		*(*int64)(p) = v.i
	case accU:
		*(*uint64)(p) = v.u
	case accC:
		*(*complex128)(p) = v.c
	default:
		*(*uint8)(p) = 0
		if v.b {
			*(*uint8)(p) = 1
		}
	}
}

func (v *accVal) asF(k accKind) float64 {
	switch k {
	case accF:
		return v.f
	case accI:
		return float64(v.i)
	case accU:
		return float64(v.u)
	case accC:
		return real(v.c) // numpy drops the imaginary part (with a warning)
	}
	if v.b {
		return 1
	}
	return 0
}

func (v *accVal) asI(k accKind) int64 {
	switch k {
	case accI:
		return v.i
	case accU:
		return int64(v.u)
	case accF, accC:
		return int64(v.asF(k))
	}
	if v.b {
		return 1
	}
	return 0
}

func (v *accVal) asU(k accKind) uint64 {
	switch k {
	case accU:
		return v.u
	case accI:
		return uint64(v.i)
	case accF, accC:
		f := v.asF(k)
		if f < 0 {
			return uint64(int64(f)) // C's wrap-around of a negative value
		}
		return uint64(f)
	}
	if v.b {
		return 1
	}
	return 0
}

func (v *accVal) asB(k accKind) bool {
	switch k {
	case accF:
		return v.f != 0
	case accI:
		return v.i != 0
	case accU:
		return v.u != 0
	case accC:
		return v.c != 0
	}
	return v.b
}

// storeVal writes v (of accumulator kind k) into one element of dtype dt
// at p, cast as numpy's unsafe casting does.
func storeVal(k accKind, v *accVal, dt DataType, p unsafe.Pointer) {
	switch kindOf(dt) {
	case inBool:
		*(*uint8)(p) = 0
		if v.asB(k) {
			*(*uint8)(p) = 1
		}
	case inI8:
		*(*int8)(p) = int8(v.asI(k))
	case inI16:
		*(*int16)(p) = int16(v.asI(k))
	case inI32:
		*(*int32)(p) = int32(v.asI(k))
	case inI64:
		*(*int64)(p) = v.asI(k)
	case inU8:
		*(*uint8)(p) = uint8(v.asU(k))
	case inU16:
		*(*uint16)(p) = uint16(v.asU(k))
	case inU32:
		*(*uint32)(p) = uint32(v.asU(k))
	case inU64:
		*(*uint64)(p) = v.asU(k)
	case inF16:
		*(*uint16)(p) = Float64ToFloat16(v.asF(k))
	case inBF16:
		*(*uint16)(p) = Float64ToBFloat16(v.asF(k))
	case inF32:
		*(*float32)(p) = float32(v.asF(k))
	case inF64:
		*(*float64)(p) = v.asF(k)
	case inC64:
		c := v.c
		if k != accC {
			c = complex(v.asF(k), 0)
		}
		*(*complex64)(p) = complex64(c)
	case inC128:
		c := v.c
		if k != accC {
			c = complex(v.asF(k), 0)
		}
		*(*complex128)(p) = c
	}
}

// Float64ToFloat16 rounds f to the nearest IEEE 754 half-precision value
// (ties to even; overflow to ±Inf; NaN stays NaN) and returns its bits.
func Float64ToFloat16(f float64) uint16 { return uint16(narrowFloat(f, 10, 5)) }

// Float64ToBFloat16 rounds f to the nearest bfloat16 value (ties to even)
// and returns its bits. Rounding once from float64 avoids the double
// rounding of going through float32.
func Float64ToBFloat16(f float64) uint16 { return uint16(narrowFloat(f, 7, 8)) }

// narrowFloat rounds f to a binary format with mbits mantissa bits and
// ebits exponent bits (IEEE layout, bias 2^(ebits-1)-1), ties to even.
func narrowFloat(f float64, mbits, ebits uint) uint64 {
	bias := int(1)<<(ebits-1) - 1
	b := math.Float64bits(f)
	sign := (b >> 63) << (mbits + ebits)
	exp := int(b>>52) & 0x7ff
	man := b & (1<<52 - 1)
	inf := uint64(1<<ebits-1) << mbits
	if exp == 0x7ff {
		if man != 0 {
			return sign | inf | 1<<(mbits-1) // quiet NaN
		}
		return sign | inf
	}
	if exp == 0 {
		return sign // float64 subnormals are far below the target's range
	}
	e := exp - 1023
	if e > bias {
		return sign | inf
	}
	var shift uint
	var base, full uint64
	if e >= 1-bias { // normal in the target
		shift, base, full = 52-mbits, uint64(e+bias)<<mbits, man
	} else { // subnormal in the target: units of 2^(1-bias-mbits)
		s := int(52-mbits) + (1 - bias - e)
		if s > 53 {
			return sign // below half the smallest subnormal
		}
		shift, full = uint(s), 1<<52|man
	}
	m := full >> shift
	rem := full & (1<<shift - 1)
	half := uint64(1) << (shift - 1)
	if rem > half || (rem == half && m&1 == 1) {
		m++ // a carry out of the mantissa moves to the next exponent, as it should
	}
	r := base + m
	if r >= inf {
		return sign | inf
	}
	return sign | r
}
