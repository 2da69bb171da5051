package core

import (
	"fmt"
	"unsafe"
)

// SumKind says which field of a SumResult holds the sum.
type SumKind uint8

// Sum kinds.
const (
	SumInt     SumKind = iota + 1 // I: signed integers and bool (count of true)
	SumUint                       // U: unsigned integers
	SumFloat                      // F: float16, bfloat16, float32, float64
	SumComplex                    // C: complex64, complex128
)

// SumResult is the sum of an array's elements. Integer sums wrap around on
// overflow (like numpy); floating-point sums accumulate in float64 and
// complex sums in complex128, whatever the element type.
type SumResult struct {
	Kind SumKind
	I    int64
	U    uint64
	F    float64
	C    complex128
}

// Sum adds up the elements of the array described by h, shape and strides
// (an empty array sums to zero of its kind). Bool sums count the true
// elements (as int). float16 and bfloat16 elements are converted to float64.
// float8, float6 and float4 types, and other unusual widths, return
// ErrUnsupported: godlpack does not decode them. It does not allocate.
//
// Errors: ErrUnsupported, ErrDevice, ErrShape, ErrNullData.
func Sum(h *Header, shape, strides []int64) (SumResult, error) {
	const where = "sum()"
	dt := h.DType
	var r SumResult
	var sz int64
	switch {
	case dt.Lanes != 1:
	case dt.Code == KDLInt && (dt.Bits == 8 || dt.Bits == 16 || dt.Bits == 32 || dt.Bits == 64):
		r.Kind, sz = SumInt, int64(dt.Bits/8)
	case dt.Code == KDLBool && dt.Bits == 8:
		r.Kind, sz = SumInt, 1
	case dt.Code == KDLUInt && (dt.Bits == 8 || dt.Bits == 16 || dt.Bits == 32 || dt.Bits == 64):
		r.Kind, sz = SumUint, int64(dt.Bits/8)
	case dt.Code == KDLFloat && (dt.Bits == 16 || dt.Bits == 32 || dt.Bits == 64),
		dt.Code == KDLBfloat && dt.Bits == 16:
		r.Kind, sz = SumFloat, int64(dt.Bits/8)
	case dt.Code == KDLComplex && (dt.Bits == 64 || dt.Bits == 128):
		r.Kind, sz = SumComplex, int64(dt.Bits/8)
	}
	if r.Kind == 0 {
		return r, fmt.Errorf("%s: summing %v is not supported: %w", where, dt, ErrUnsupported)
	}
	size, err := checkWalk(where, h, shape, strides)
	if err != nil || size == 0 {
		return r, err
	}
	var p plan
	p.k, p.fill = sz, true
	p.dp = unsafe.Add(h.Data, h.Offset*sz)
	p.build(shape, strides, nil)
	p.walk(func(ptr unsafe.Pointer, n, st int64) {
		switch {
		case dt.Code == KDLBool:
			for i := int64(0); i < n; i++ {
				if *(*uint8)(unsafe.Add(ptr, i*st)) != 0 {
					r.I++
				}
			}
		case dt.Code == KDLInt:
			switch sz {
			case 1:
				r.I += sumInts[int8](ptr, n, st)
			case 2:
				r.I += sumInts[int16](ptr, n, st)
			case 4:
				r.I += sumInts[int32](ptr, n, st)
			default:
				r.I += sumInts[int64](ptr, n, st)
			}
		case dt.Code == KDLUInt:
			switch sz {
			case 1:
				r.U += sumUints[uint8](ptr, n, st)
			case 2:
				r.U += sumUints[uint16](ptr, n, st)
			case 4:
				r.U += sumUints[uint32](ptr, n, st)
			default:
				r.U += sumUints[uint64](ptr, n, st)
			}
		case dt.Code == KDLBfloat:
			for i := int64(0); i < n; i++ {
				r.F += float64(BFloat16ToFloat32(*(*uint16)(unsafe.Add(ptr, i*st))))
			}
		case dt.Code == KDLFloat && sz == 2:
			for i := int64(0); i < n; i++ {
				r.F += float64(Float16ToFloat32(*(*uint16)(unsafe.Add(ptr, i*st))))
			}
		case dt.Code == KDLFloat && sz == 4:
			r.F += sumFloats[float32](ptr, n, st)
		case dt.Code == KDLFloat:
			r.F += sumFloats[float64](ptr, n, st)
		case sz == 8:
			for i := int64(0); i < n; i++ {
				r.C += complex128(*(*complex64)(unsafe.Add(ptr, i*st)))
			}
		default:
			for i := int64(0); i < n; i++ {
				r.C += *(*complex128)(unsafe.Add(ptr, i*st))
			}
		}
	})
	return r, nil
}

func sumInts[E int8 | int16 | int32 | int64](p unsafe.Pointer, n, st int64) int64 {
	var s int64
	for i := int64(0); i < n; i++ {
		s += int64(*(*E)(unsafe.Add(p, i*st)))
	}
	return s
}

func sumUints[E uint8 | uint16 | uint32 | uint64](p unsafe.Pointer, n, st int64) uint64 {
	var s uint64
	for i := int64(0); i < n; i++ {
		s += uint64(*(*E)(unsafe.Add(p, i*st)))
	}
	return s
}

// sumFloats adds with four accumulators (faster, and a little more
// accurate than one running sum).
func sumFloats[E float32 | float64](p unsafe.Pointer, n, st int64) float64 {
	var s0, s1, s2, s3 float64
	i := int64(0)
	for ; i+4 <= n; i += 4 {
		s0 += float64(*(*E)(unsafe.Add(p, i*st)))
		s1 += float64(*(*E)(unsafe.Add(p, (i+1)*st)))
		s2 += float64(*(*E)(unsafe.Add(p, (i+2)*st)))
		s3 += float64(*(*E)(unsafe.Add(p, (i+3)*st)))
	}
	for ; i < n; i++ {
		s0 += float64(*(*E)(unsafe.Add(p, i*st)))
	}
	return (s0 + s1) + (s2 + s3)
}
