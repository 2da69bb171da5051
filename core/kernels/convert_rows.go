package kernels

import (
	"math"
	"unsafe"
)

// Row kernels of Convert: n elements from sp (byte stride ss) to dp
// (byte stride ds). convRow picks one per dtype pair; the generic kernels
// are instantiated per Go type, so each loop body is a plain conversion.

type native interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64
}

type cplx interface{ complex64 | complex128 }

type number interface{ native | cplx }

func convRow(d, s convSide, dp, sp unsafe.Pointer, n, ds, ss int64) {
	if ds == d.size && ss == s.size && contigRow(d.k, s.k, dp, sp, n) {
		return
	}
	switch {
	case s.k.native() && d.k.native():
		nativeRow(s.k, d.k, dp, sp, n, ds, ss)
	case d.k == kBool:
		toBoolRow(s, dp, sp, n, ds, ss)
	case s.k == kBool:
		fromBoolRow(d, dp, sp, n, ds, ss)
	case s.k.narrow():
		fromNarrowRow(d, s, dp, sp, n, ds, ss)
	case d.k.narrow():
		toNarrowRow(d, s.k, dp, sp, n, ds, ss)
	case s.k.complex():
		fromComplexRow(d.k, s.k, dp, sp, n, ds, ss)
	default: // native -> complex
		if d.k == kC64 {
			withNative(s.k, toC64Row{}, dp, sp, n, ds, ss)
		} else {
			withNative(s.k, toC128Row{}, dp, sp, n, ds, ss)
		}
	}
}

// contigRow converts a contiguous row of the pairs kernels.go has rows for
// (AVX2 where the CPU has it), and reports whether it did.
func contigRow(d, s ckind, dp, sp unsafe.Pointer, n int64) bool {
	switch {
	case s == kF64 && d == kF32:
		Float64ToFloat32(unsafe.Slice((*float32)(dp), n), unsafe.Slice((*float64)(sp), n))
	case s == kF32 && d == kBF16:
		Float32ToBFloat16(unsafe.Slice((*uint16)(dp), n), unsafe.Slice((*float32)(sp), n))
	case s == kI64 && d == kF64:
		Int64ToFloat64(unsafe.Slice((*float64)(dp), n), unsafe.Slice((*int64)(sp), n))
	default:
		return false
	}
	return true
}

// nativeTarget is a kernel over one native source type; withNative calls it
// with the type of kind k.
type nativeTarget interface {
	i8(dp, sp unsafe.Pointer, n, ds, ss int64)
	i16(dp, sp unsafe.Pointer, n, ds, ss int64)
	i32(dp, sp unsafe.Pointer, n, ds, ss int64)
	i64(dp, sp unsafe.Pointer, n, ds, ss int64)
	u8(dp, sp unsafe.Pointer, n, ds, ss int64)
	u16(dp, sp unsafe.Pointer, n, ds, ss int64)
	u32(dp, sp unsafe.Pointer, n, ds, ss int64)
	u64(dp, sp unsafe.Pointer, n, ds, ss int64)
	f32(dp, sp unsafe.Pointer, n, ds, ss int64)
	f64(dp, sp unsafe.Pointer, n, ds, ss int64)
}

func withNative[T nativeTarget](k ckind, t T, dp, sp unsafe.Pointer, n, ds, ss int64) {
	switch k {
	case kI8:
		t.i8(dp, sp, n, ds, ss)
	case kI16:
		t.i16(dp, sp, n, ds, ss)
	case kI32:
		t.i32(dp, sp, n, ds, ss)
	case kI64:
		t.i64(dp, sp, n, ds, ss)
	case kU8:
		t.u8(dp, sp, n, ds, ss)
	case kU16:
		t.u16(dp, sp, n, ds, ss)
	case kU32:
		t.u32(dp, sp, n, ds, ss)
	case kU64:
		t.u64(dp, sp, n, ds, ss)
	case kF32:
		t.f32(dp, sp, n, ds, ss)
	case kF64:
		t.f64(dp, sp, n, ds, ss)
	}
}

// ---- native -> native ----

func nativeRow(s, d ckind, dp, sp unsafe.Pointer, n, ds, ss int64) {
	switch s {
	case kI8:
		nativeTo[int8](d, dp, sp, n, ds, ss)
	case kI16:
		nativeTo[int16](d, dp, sp, n, ds, ss)
	case kI32:
		nativeTo[int32](d, dp, sp, n, ds, ss)
	case kI64:
		nativeTo[int64](d, dp, sp, n, ds, ss)
	case kU8:
		nativeTo[uint8](d, dp, sp, n, ds, ss)
	case kU16:
		nativeTo[uint16](d, dp, sp, n, ds, ss)
	case kU32:
		nativeTo[uint32](d, dp, sp, n, ds, ss)
	case kU64:
		nativeTo[uint64](d, dp, sp, n, ds, ss)
	case kF32:
		nativeTo[float32](d, dp, sp, n, ds, ss)
	case kF64:
		nativeTo[float64](d, dp, sp, n, ds, ss)
	}
}

func nativeTo[S native](d ckind, dp, sp unsafe.Pointer, n, ds, ss int64) {
	switch d {
	case kI8:
		cvt[S, int8](dp, sp, n, ds, ss)
	case kI16:
		cvt[S, int16](dp, sp, n, ds, ss)
	case kI32:
		cvt[S, int32](dp, sp, n, ds, ss)
	case kI64:
		cvt[S, int64](dp, sp, n, ds, ss)
	case kU8:
		cvt[S, uint8](dp, sp, n, ds, ss)
	case kU16:
		cvt[S, uint16](dp, sp, n, ds, ss)
	case kU32:
		cvt[S, uint32](dp, sp, n, ds, ss)
	case kU64:
		cvt[S, uint64](dp, sp, n, ds, ss)
	case kF32:
		cvt[S, float32](dp, sp, n, ds, ss)
	case kF64:
		cvt[S, float64](dp, sp, n, ds, ss)
	}
}

// cvt is Go's conversion D(v), which is numpy's C cast for these types.
func cvt[S, D native](dp, sp unsafe.Pointer, n, ds, ss int64) {
	if ds == int64(unsafe.Sizeof(D(0))) && ss == int64(unsafe.Sizeof(S(0))) {
		src := unsafe.Slice((*S)(sp), n)
		dst := unsafe.Slice((*D)(dp), n)
		dst = dst[:len(src)]
		i := 0
		for ; i+4 <= len(src); i += 4 {
			dst[i] = D(src[i])
			dst[i+1] = D(src[i+1])
			dst[i+2] = D(src[i+2])
			dst[i+3] = D(src[i+3])
		}
		for ; i < len(src); i++ {
			dst[i] = D(src[i])
		}
		return
	}
	for i := int64(0); i < n; i++ {
		pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
		*(*D)(pd) = D(*(*S)(ps))
	}
}

// ---- to and from bool ----

// byWidth is a row kernel instantiated for each storage a bool conversion
// tells apart: integers by width alone (only v != 0, and 0 and 1, matter),
// the floats, the complexes. of picks the one for kind k, nil for the
// narrow floats (their codes are decoded one by one).
type byWidth [8]func(dp, sp unsafe.Pointer, n, ds, ss int64)

func (r *byWidth) of(k ckind) func(dp, sp unsafe.Pointer, n, ds, ss int64) {
	switch k {
	case kBool, kI8, kU8:
		return r[0]
	case kI16, kU16:
		return r[1]
	case kI32, kU32:
		return r[2]
	case kI64, kU64:
		return r[3]
	case kF32:
		return r[4]
	case kF64:
		return r[5]
	case kC64:
		return r[6]
	case kC128:
		return r[7]
	}
	return nil
}

var (
	toBoolRows = byWidth{toBool[uint8], toBool[uint16], toBool[uint32], toBool[uint64], toBool[float32],
		toBool[float64], toBool[complex64], toBool[complex128]}
	fromBoolRows = byWidth{fromBool[uint8], fromBool[uint16], fromBool[uint32], fromBool[uint64],
		fromBool[float32], fromBool[float64], fromBool[complex64], fromBool[complex128]}
)

func toBoolRow(s convSide, dp, sp unsafe.Pointer, n, ds, ss int64) {
	if f := toBoolRows.of(s.k); f != nil {
		f(dp, sp, n, ds, ss)
		return
	}
	for i := int64(0); i < n; i++ {
		pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
		*(*uint8)(pd) = b2u8(loadNarrow(s, ps) != 0) // NaN != 0
	}
}

func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// toBool is v != 0 (for floats -0.0 is false and NaN true).
func toBool[S number](dp, sp unsafe.Pointer, n, ds, ss int64) {
	for i := int64(0); i < n; i++ {
		pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
		*(*uint8)(pd) = b2u8(*(*S)(ps) != 0)
	}
}

func fromBoolRow(d convSide, dp, sp unsafe.Pointer, n, ds, ss int64) {
	if f := fromBoolRows.of(d.k); f != nil {
		f(dp, sp, n, ds, ss)
		return
	}
	var c [2]uint16 // narrow: the codes of 0 and 1
	for v := range c {
		c[v] = encodeNarrow(d, float32(v))
	}
	for i := int64(0); i < n; i++ {
		pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
		storeCode(d, pd, c[b2u8(*(*uint8)(ps) != 0)])
	}
}

func fromBool[D number](dp, sp unsafe.Pointer, n, ds, ss int64) {
	for i := int64(0); i < n; i++ {
		pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
		var v D
		if *(*uint8)(ps) != 0 {
			v = 1
		}
		*(*D)(pd) = v
	}
}

// ---- complex ----

type toC64Row struct{}

func (toC64Row) i8(dp, sp unsafe.Pointer, n, ds, ss int64)  { toC64[int8](dp, sp, n, ds, ss) }
func (toC64Row) i16(dp, sp unsafe.Pointer, n, ds, ss int64) { toC64[int16](dp, sp, n, ds, ss) }
func (toC64Row) i32(dp, sp unsafe.Pointer, n, ds, ss int64) { toC64[int32](dp, sp, n, ds, ss) }
func (toC64Row) i64(dp, sp unsafe.Pointer, n, ds, ss int64) { toC64[int64](dp, sp, n, ds, ss) }
func (toC64Row) u8(dp, sp unsafe.Pointer, n, ds, ss int64)  { toC64[uint8](dp, sp, n, ds, ss) }
func (toC64Row) u16(dp, sp unsafe.Pointer, n, ds, ss int64) { toC64[uint16](dp, sp, n, ds, ss) }
func (toC64Row) u32(dp, sp unsafe.Pointer, n, ds, ss int64) { toC64[uint32](dp, sp, n, ds, ss) }
func (toC64Row) u64(dp, sp unsafe.Pointer, n, ds, ss int64) { toC64[uint64](dp, sp, n, ds, ss) }
func (toC64Row) f32(dp, sp unsafe.Pointer, n, ds, ss int64) { toC64[float32](dp, sp, n, ds, ss) }
func (toC64Row) f64(dp, sp unsafe.Pointer, n, ds, ss int64) { toC64[float64](dp, sp, n, ds, ss) }

type toC128Row struct{}

func (toC128Row) i8(dp, sp unsafe.Pointer, n, ds, ss int64)  { toC128[int8](dp, sp, n, ds, ss) }
func (toC128Row) i16(dp, sp unsafe.Pointer, n, ds, ss int64) { toC128[int16](dp, sp, n, ds, ss) }
func (toC128Row) i32(dp, sp unsafe.Pointer, n, ds, ss int64) { toC128[int32](dp, sp, n, ds, ss) }
func (toC128Row) i64(dp, sp unsafe.Pointer, n, ds, ss int64) { toC128[int64](dp, sp, n, ds, ss) }
func (toC128Row) u8(dp, sp unsafe.Pointer, n, ds, ss int64)  { toC128[uint8](dp, sp, n, ds, ss) }
func (toC128Row) u16(dp, sp unsafe.Pointer, n, ds, ss int64) { toC128[uint16](dp, sp, n, ds, ss) }
func (toC128Row) u32(dp, sp unsafe.Pointer, n, ds, ss int64) { toC128[uint32](dp, sp, n, ds, ss) }
func (toC128Row) u64(dp, sp unsafe.Pointer, n, ds, ss int64) { toC128[uint64](dp, sp, n, ds, ss) }
func (toC128Row) f32(dp, sp unsafe.Pointer, n, ds, ss int64) { toC128[float32](dp, sp, n, ds, ss) }
func (toC128Row) f64(dp, sp unsafe.Pointer, n, ds, ss int64) { toC128[float64](dp, sp, n, ds, ss) }

// toC64 rounds the source to float32 directly (an int64 is not rounded
// through float64 first), as numpy does.
func toC64[S native](dp, sp unsafe.Pointer, n, ds, ss int64) {
	for i := int64(0); i < n; i++ {
		pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
		*(*complex64)(pd) = complex(float32(*(*S)(ps)), 0)
	}
}

func toC128[S native](dp, sp unsafe.Pointer, n, ds, ss int64) {
	for i := int64(0); i < n; i++ {
		pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
		*(*complex128)(pd) = complex(float64(*(*S)(ps)), 0)
	}
}

// fromComplexRow: complex -> complex or native (the real part).
func fromComplexRow(d, s ckind, dp, sp unsafe.Pointer, n, ds, ss int64) {
	switch {
	case s == kC64 && d == kC128:
		for i := int64(0); i < n; i++ {
			pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
			*(*complex128)(pd) = complex128(*(*complex64)(ps))
		}
	case s == kC128 && d == kC64:
		for i := int64(0); i < n; i++ {
			pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
			*(*complex64)(pd) = complex64(*(*complex128)(ps))
		}
	case s == kC64:
		// The real part is the first float32 of each element.
		nativeRow(kF32, d, dp, sp, n, ds, ss)
	default:
		nativeRow(kF64, d, dp, sp, n, ds, ss)
	}
}

// ---- narrow floats ----

// loadNarrow decodes the narrow element at p to float32 (exact).
func loadNarrow(s convSide, p unsafe.Pointer) float32 {
	switch s.k {
	case kF16:
		return Float16ToFloat32(*(*uint16)(p))
	case kBF16:
		return math.Float32frombits(uint32(*(*uint16)(p)) << 16)
	}
	return f8Decode[s.f8][*(*uint8)(p)]
}

// encodeNarrow rounds a float32 to d's kind (float16 with numpy's NaN
// rule for float32 sources).
func encodeNarrow(d convSide, x float32) uint16 {
	switch d.k {
	case kF16:
		return f16FromF32(x)
	case kBF16:
		return bf16FromF32(x)
	}
	return fmtF8[d.f8].encode(float64(x))
}

func storeCode(d convSide, p unsafe.Pointer, c uint16) {
	if d.size == 2 {
		*(*uint16)(p) = c
	} else {
		*(*uint8)(p) = uint8(c)
	}
}

// fromNarrowRow: float16, bfloat16, float8 -> anything but bool.
func fromNarrowRow(d, s convSide, dp, sp unsafe.Pointer, n, ds, ss int64) {
	switch {
	case d.k == kF64 && s.k == kF16:
		for i := int64(0); i < n; i++ {
			pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
			*(*float64)(pd) = f16ToF64(*(*uint16)(ps))
		}
	case d.k == kF32 && s.k == kBF16:
		for i := int64(0); i < n; i++ {
			pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
			*(*uint32)(pd) = uint32(*(*uint16)(ps)) << 16
		}
	case d.k.native():
		withNative(d.k, fromNarrow{s}, dp, sp, n, ds, ss)
	case d.k == kC64:
		for i := int64(0); i < n; i++ {
			pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
			*(*complex64)(pd) = complex(loadNarrow(s, ps), 0)
		}
	case d.k == kC128:
		for i := int64(0); i < n; i++ {
			pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
			*(*complex128)(pd) = complex(float64(loadNarrow(s, ps)), 0)
		}
	case d.k == kF16:
		// ml_dtypes' float16 NaN is the quiet NaN; a float16 source is
		// the same dtype (a copy) and never gets here.
		for i := int64(0); i < n; i++ {
			pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
			*(*uint16)(pd) = f16FromF32Quiet(loadNarrow(s, ps))
		}
	default:
		for i := int64(0); i < n; i++ {
			pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
			storeCode(d, pd, encodeNarrow(d, loadNarrow(s, ps)))
		}
	}
}

type fromNarrow struct{ s convSide }

func (f fromNarrow) i8(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowTo[int8](f.s, dp, sp, n, ds, ss)
}
func (f fromNarrow) i16(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowTo[int16](f.s, dp, sp, n, ds, ss)
}
func (f fromNarrow) i32(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowTo[int32](f.s, dp, sp, n, ds, ss)
}
func (f fromNarrow) i64(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowTo[int64](f.s, dp, sp, n, ds, ss)
}
func (f fromNarrow) u8(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowTo[uint8](f.s, dp, sp, n, ds, ss)
}
func (f fromNarrow) u16(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowTo[uint16](f.s, dp, sp, n, ds, ss)
}
func (f fromNarrow) u32(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowTo[uint32](f.s, dp, sp, n, ds, ss)
}
func (f fromNarrow) u64(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowTo[uint64](f.s, dp, sp, n, ds, ss)
}
func (f fromNarrow) f32(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowTo[float32](f.s, dp, sp, n, ds, ss)
}
func (f fromNarrow) f64(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowTo[float64](f.s, dp, sp, n, ds, ss)
}

// narrowTo converts through the exact float32 value, as numpy and ml_dtypes
// do (float -> int truncates toward zero).
func narrowTo[D native](s convSide, dp, sp unsafe.Pointer, n, ds, ss int64) {
	switch s.k {
	case kF16:
		for i := int64(0); i < n; i++ {
			pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
			*(*D)(pd) = D(Float16ToFloat32(*(*uint16)(ps)))
		}
	case kBF16:
		for i := int64(0); i < n; i++ {
			pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
			*(*D)(pd) = D(math.Float32frombits(uint32(*(*uint16)(ps)) << 16))
		}
	default:
		t := &f8Decode[s.f8]
		for i := int64(0); i < n; i++ {
			pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
			*(*D)(pd) = D(t[*(*uint8)(ps)])
		}
	}
}

// toNarrowRow: native or complex (real part) -> float16, bfloat16, float8.
// ml_dtypes rounds every source to float32 first; numpy rounds float64 to
// float16 directly.
func toNarrowRow(d convSide, s ckind, dp, sp unsafe.Pointer, n, ds, ss int64) {
	switch s {
	case kC64:
		s = kF32 // the real part leads each element
	case kC128:
		s = kF64
	}
	if s == kF64 && d.k == kF16 {
		for i := int64(0); i < n; i++ {
			pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
			*(*uint16)(pd) = f16FromF64(*(*float64)(ps))
		}
		return
	}
	withNative(s, toNarrow{d}, dp, sp, n, ds, ss)
}

type toNarrow struct{ d convSide }

func (t toNarrow) i8(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowFrom[int8](t.d, dp, sp, n, ds, ss)
}
func (t toNarrow) i16(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowFrom[int16](t.d, dp, sp, n, ds, ss)
}
func (t toNarrow) i32(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowFrom[int32](t.d, dp, sp, n, ds, ss)
}
func (t toNarrow) i64(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowFrom[int64](t.d, dp, sp, n, ds, ss)
}
func (t toNarrow) u8(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowFrom[uint8](t.d, dp, sp, n, ds, ss)
}
func (t toNarrow) u16(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowFrom[uint16](t.d, dp, sp, n, ds, ss)
}
func (t toNarrow) u32(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowFrom[uint32](t.d, dp, sp, n, ds, ss)
}
func (t toNarrow) u64(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowFrom[uint64](t.d, dp, sp, n, ds, ss)
}
func (t toNarrow) f32(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowFrom[float32](t.d, dp, sp, n, ds, ss)
}
func (t toNarrow) f64(dp, sp unsafe.Pointer, n, ds, ss int64) {
	narrowFrom[float64](t.d, dp, sp, n, ds, ss)
}

func narrowFrom[S native](d convSide, dp, sp unsafe.Pointer, n, ds, ss int64) {
	switch d.k {
	case kBF16:
		if ds == 2 && ss == int64(unsafe.Sizeof(S(0))) {
			src := unsafe.Slice((*S)(sp), n)
			dst := unsafe.Slice((*uint16)(dp), n)
			dst = dst[:len(src)]
			for i, v := range src {
				dst[i] = bf16FromF32(float32(v))
			}
			return
		}
		for i := int64(0); i < n; i++ {
			pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
			*(*uint16)(pd) = bf16FromF32(float32(*(*S)(ps)))
		}
	case kF16:
		for i := int64(0); i < n; i++ {
			pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
			*(*uint16)(pd) = f16FromF32(float32(*(*S)(ps)))
		}
	default:
		f := &fmtF8[d.f8]
		for i := int64(0); i < n; i++ {
			pd, ps := unsafe.Add(dp, i*ds), unsafe.Add(sp, i*ss)
			*(*uint8)(pd) = uint8(f.encode(float64(float32(*(*S)(ps)))))
		}
	}
}
