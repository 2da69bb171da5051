package cfixture

/*
#cgo CFLAGS: -I${SRCDIR}/../../core
#include <stdlib.h>
#include "godlpack.h"
*/
import "C"

import "unsafe"

// BufferView is what the skin reads from a Py_buffer (gd_buffer_view);
// nil Shape or Strides are the buffer's NULL.
type BufferView struct {
	Len, Itemsize int64
	Format        string // "" is NULL ("B")
	Ndim          int32
	Suboffsets    bool
	Shape         []int64
	Strides       []int64 // in bytes
}

// BytesAs is what core made of bytes: dtype, shape and strides in elements
// (nil: C-contiguous), or the refusal.
type BytesAs struct {
	DType   [3]int // code, bits, lanes
	Shape   []int64
	Strides []int64
	Err     string
}

func tensorOf(rc C.int, t *C.DLTensor, msg *C.char) BytesAs {
	if rc != 0 {
		return BytesAs{Err: C.GoString(msg)}
	}
	out := BytesAs{DType: [3]int{int(t.dtype.code), int(t.dtype.bits), int(t.dtype.lanes)}}
	nd := int(t.ndim)
	if t.shape != nil {
		out.Shape = append([]int64{}, unsafe.Slice((*int64)(unsafe.Pointer(t.shape)), nd)...)
	}
	if t.strides != nil {
		out.Strides = append([]int64{}, unsafe.Slice((*int64)(unsafe.Pointer(t.strides)), nd)...)
	}
	return out
}

func cInts(v []int64) *C.int64_t {
	if v == nil {
		return nil
	}
	p := (*C.int64_t)(C.malloc(C.size_t(8 * (len(v) + 1))))
	copy(unsafe.Slice((*int64)(unsafe.Pointer(p)), len(v)), v)
	return p
}

// BufferTensor is gd_buffer_tensor of v.
func BufferTensor(v BufferView) BytesAs {
	var cv C.gd_buffer_view
	cv.len, cv.itemsize, cv.ndim = C.int64_t(v.Len), C.int64_t(v.Itemsize), C.int32_t(v.Ndim)
	if v.Suboffsets {
		cv.suboffsets = 1
	}
	if v.Format != "" {
		cv.format = C.CString(v.Format)
		defer C.free(unsafe.Pointer(cv.format))
	}
	cv.shape, cv.strides = cInts(v.Shape), cInts(v.Strides)
	defer C.free(unsafe.Pointer(cv.shape))
	defer C.free(unsafe.Pointer(cv.strides))
	var t C.DLTensor
	var shape, strides [C.GD_MAX_NDIM]C.int64_t
	var msg [512]C.char
	rc := C.gd_buffer_tensor(&cv, &t, &shape[0], &strides[0], &msg[0], 512)
	return tensorOf(rc, &t, &msg[0])
}

// BytesTensor is gd_bytes_tensor of nbytes bytes as dtype (code, bits,
// lanes) and dims (ndim is len(dims), or ndim when it is given < 0).
func BytesTensor(nbytes int64, dtype [3]int, dims []int64, ndim int32, fortran, padded bool) BytesAs {
	dt := C.DLDataType{code: C.uint8_t(dtype[0]), bits: C.uint8_t(dtype[1]), lanes: C.uint16_t(dtype[2])}
	cd := cInts(append(dims, 0))
	defer C.free(unsafe.Pointer(cd))
	var t C.DLTensor
	var shape, strides [C.GD_MAX_NDIM]C.int64_t
	var msg [512]C.char
	b := func(x bool) C.int {
		if x {
			return 1
		}
		return 0
	}
	rc := C.gd_bytes_tensor(nil, C.int64_t(nbytes), dt, C.int32_t(ndim), cd, b(fortran), b(padded), &t, &shape[0],
		&strides[0], &msg[0], 512)
	return tensorOf(rc, &t, &msg[0])
}
