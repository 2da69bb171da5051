package cfixture

/*
#cgo CFLAGS: -I${SRCDIR}/../../core
#include <stdlib.h>
#include "godlpack.h"

static void gd_fx_write_f32s(DLDataType dt, const float *src, int64_t n, uint8_t *out) {
  gd_elem e = {.kind = GD_ELEM_REAL};
  for (int64_t i = 0; i < n; i++) {
    e.re = src[i];
    gd_elem_write(dt, &e, out + i);
  }
}
*/
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/core"
)

// The element codecs of core/fastpath.c (gd_elem_read, gd_elem_write) and
// the buffer formats of core/bufferfmt.c, for the differential tests against
// core.ConvertInto (tests_go/element_test.go).

// Elem is a gd_elem.
type Elem struct {
	Kind   int
	I      int64
	U      uint64
	Re, Im float64
}

// The gd_elem kinds and write refusals.
const (
	ElemNone    = int(C.GD_ELEM_NONE)
	ElemBool    = int(C.GD_ELEM_BOOL)
	ElemInt     = int(C.GD_ELEM_INT)
	ElemUint    = int(C.GD_ELEM_UINT)
	ElemReal    = int(C.GD_ELEM_REAL)
	ElemComplex = int(C.GD_ELEM_COMPLEX)
	ElemERange  = int(C.GD_ELEM_E_RANGE)
	ElemEKind   = int(C.GD_ELEM_E_KIND)
)

func cdt(dt core.DataType) C.DLDataType {
	return C.DLDataType{code: C.uint8_t(dt.Code), bits: C.uint8_t(dt.Bits), lanes: C.uint16_t(dt.Lanes)}
}

// ElemKind is gd_elem_kind.
func ElemKind(dt core.DataType) int { return int(C.gd_elem_kind(cdt(dt))) }

// ElemRead is gd_elem_read of the element in b.
func ElemRead(dt core.DataType, b []byte) Elem {
	p := C.malloc(16)
	defer C.free(p)
	copy(unsafe.Slice((*byte)(p), 16), b)
	var e C.gd_elem
	C.gd_elem_read(cdt(dt), p, &e)
	return Elem{Kind: int(e.kind), I: int64(e.i), U: uint64(e.u), Re: float64(e.re), Im: float64(e.im)}
}

// ElemWrite is gd_elem_write: the element's bytes, and the return code.
func ElemWrite(dt core.DataType, e Elem) ([]byte, int) {
	p := C.calloc(1, 16)
	defer C.free(p)
	ce := C.gd_elem{kind: C.int32_t(e.Kind), i: C.int64_t(e.I), u: C.uint64_t(e.U), re: C.double(e.Re), im: C.double(e.Im)}
	rc := C.gd_elem_write(cdt(dt), &ce, p)
	return append([]byte(nil), unsafe.Slice((*byte)(p), dt.ItemSize())...), int(rc)
}

// BufferFormat is gd_buffer_format ("" for NULL).
func BufferFormat(dt core.DataType) string {
	f := C.gd_buffer_format(cdt(dt))
	if f == nil {
		return ""
	}
	return C.GoString(f)
}

// DTypeFromFormat is gd_dtype_from_format; ok is false for -1.
func DTypeFromFormat(format string, itemsize int64) (core.DataType, bool) {
	f := C.CString(format)
	defer C.free(unsafe.Pointer(f))
	var dt C.DLDataType
	if C.gd_dtype_from_format(f, C.int64_t(itemsize), &dt) != 0 {
		return core.DataType{}, false
	}
	return core.DataType{Code: core.DataTypeCode(dt.code), Bits: uint8(dt.bits), Lanes: uint16(dt.lanes)}, true
}

// ElemWriteFloat32s is gd_elem_write of each of src as a real (a Python
// float holding a float32 value) into a one-byte dtype, in one C loop.
func ElemWriteFloat32s(dt core.DataType, src []float32, out []byte) {
	if len(src) == 0 {
		return
	}
	C.gd_fx_write_f32s(cdt(dt), (*C.float)(unsafe.Pointer(&src[0])), C.int64_t(len(src)), (*C.uint8_t)(unsafe.Pointer(&out[0])))
}
