package kernels

import "unsafe"

// Accumulator values and the casts from them into any result kind (the
// value casts of out= and of results narrower than their accumulator).

// accVal holds one accumulator value; the AccKind says which field.
type accVal struct {
	f float64
	i int64
	u uint64
	c complex128
	b bool
}

func (v *accVal) load(k AccKind, p unsafe.Pointer) {
	switch k {
	case AccFloat64:
		v.f = *(*float64)(p)
	case AccInt64:
		v.i = *(*int64)(p)
	case AccUint64:
		v.u = *(*uint64)(p)
	case AccComplex128:
		v.c = *(*complex128)(p)
	default:
		v.b = *(*uint8)(p) != 0
	}
}

func (v *accVal) store(k AccKind, p unsafe.Pointer) {
	switch k {
	case AccFloat64:
		*(*float64)(p) = v.f
	case AccInt64:
		*(*int64)(p) = v.i
	case AccUint64:
		*(*uint64)(p) = v.u
	case AccComplex128:
		*(*complex128)(p) = v.c
	default:
		*(*uint8)(p) = 0
		if v.b {
			*(*uint8)(p) = 1
		}
	}
}

func (v *accVal) asF(k AccKind) float64 {
	switch k {
	case AccFloat64:
		return v.f
	case AccInt64:
		return float64(v.i)
	case AccUint64:
		return float64(v.u)
	case AccComplex128:
		return real(v.c) // numpy drops the imaginary part (with a warning)
	}
	if v.b {
		return 1
	}
	return 0
}

func (v *accVal) asI(k AccKind) int64 {
	switch k {
	case AccInt64:
		return v.i
	case AccUint64:
		return int64(v.u)
	case AccFloat64, AccComplex128:
		return int64(v.asF(k))
	}
	if v.b {
		return 1
	}
	return 0
}

func (v *accVal) asU(k AccKind) uint64 {
	switch k {
	case AccUint64:
		return v.u
	case AccInt64:
		return uint64(v.i)
	case AccFloat64, AccComplex128:
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

func (v *accVal) asB(k AccKind) bool {
	switch k {
	case AccFloat64:
		return v.f != 0
	case AccInt64:
		return v.i != 0
	case AccUint64:
		return v.u != 0
	case AccComplex128:
		return v.c != 0
	}
	return v.b
}

// storeVal writes v (of accumulator kind k) into one element of kind dk at
// p, cast as numpy's unsafe casting does (nothing for a kind CanReduce
// refuses).
func storeVal(k AccKind, v *accVal, dk Kind, p unsafe.Pointer) {
	switch dk {
	case Bool:
		*(*uint8)(p) = 0
		if v.asB(k) {
			*(*uint8)(p) = 1
		}
	case Int8:
		*(*int8)(p) = int8(v.asI(k))
	case Int16:
		*(*int16)(p) = int16(v.asI(k))
	case Int32:
		*(*int32)(p) = int32(v.asI(k))
	case Int64:
		*(*int64)(p) = v.asI(k)
	case Uint8:
		*(*uint8)(p) = uint8(v.asU(k))
	case Uint16:
		*(*uint16)(p) = uint16(v.asU(k))
	case Uint32:
		*(*uint32)(p) = uint32(v.asU(k))
	case Uint64:
		*(*uint64)(p) = v.asU(k)
	case Float16:
		*(*uint16)(p) = Float64ToFloat16(v.asF(k))
	case BFloat16:
		*(*uint16)(p) = Float64ToBFloat16(v.asF(k))
	case Float32:
		*(*float32)(p) = float32(v.asF(k))
	case Float64:
		*(*float64)(p) = v.asF(k)
	case Complex64:
		c := v.c
		if k != AccComplex128 {
			c = complex(v.asF(k), 0)
		}
		*(*complex64)(p) = complex64(c)
	case Complex128:
		c := v.c
		if k != AccComplex128 {
			c = complex(v.asF(k), 0)
		}
		*(*complex128)(p) = c
	}
}
