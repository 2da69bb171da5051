package core

import "unsafe"

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
