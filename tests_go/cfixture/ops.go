package cfixture

/*
#cgo CFLAGS: -I${SRCDIR}/../../core
#include <stdlib.h>
#include <string.h>
#include "godlpack.h"

typedef struct {
  gd_op op;
  gd_header a, b, out;
  int64_t a_shape[GD_MAX_NDIM], a_strides[GD_MAX_NDIM], b_strides[GD_MAX_NDIM];
  int64_t out_shape[GD_MAX_NDIM], out_strides[GD_MAX_NDIM], ints[GD_MAX_NDIM], scratch[2 * GD_MAX_NDIM];
  gd_index_op index[GD_MAX_INDEX_OPS];
  unsigned char elem[16];
  char entry[64];
  void *ptr_out;
} cf_op;
*/
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/core"
)

// Op is a gd_op (godlpack.h) in Go terms, for driving core.RunOp through
// the C struct the skin fills (tests_go/ops_test.go). Nil fields stay NULL;
// every array lives in C memory while the operation runs.
type Op struct {
	Op, Flag   int
	Entry      string
	A          *core.Header
	AShape     []int64
	AStrides   []int64
	B          *core.Header
	BStrides   []int64
	Out        *core.Header // receives the result
	OutShape   []int64      // receives the result's shape (MaxNdim entries are written)
	OutStrides []int64
	Elem       []byte
	Ints       []int64 // read back after the call (reshape resolves a -1)
	Index      []core.IndexOp
	DType      core.DataType
	Device     core.Device
	Ptr        unsafe.Pointer // DESCRIBE, EXPORT_VIEW: passed as is
	PtrOut     unsafe.Pointer // ALLOC_EXPORT, STREAM: what the op stored
}

// The operation numbers.
const (
	OpAlloc       = int(C.GD_OP_ALLOC)
	OpCopy        = int(C.GD_OP_COPY)
	OpCopyInto    = int(C.GD_OP_COPY_INTO)
	OpConvert     = int(C.GD_OP_CONVERT)
	OpConvertInto = int(C.GD_OP_CONVERT_INTO)
	OpFill        = int(C.GD_OP_FILL)
	OpIndex       = int(C.GD_OP_INDEX)
	OpSetitem     = int(C.GD_OP_SETITEM)
	OpReshape     = int(C.GD_OP_RESHAPE)
	OpTranspose   = int(C.GD_OP_TRANSPOSE)
	OpDescribe    = int(C.GD_OP_DESCRIBE)
	OpExportView  = int(C.GD_OP_EXPORT_VIEW)
	OpAllocExport = int(C.GD_OP_ALLOC_EXPORT)
	OpStream      = int(C.GD_OP_STREAM)
	OpCheckDevice = int(C.GD_OP_CHECK_DEVICE)
	OpDevice      = int(C.GD_OP_DEVICE)
)

func putDims(dst *[C.GD_MAX_NDIM]C.int64_t, src []int64) *C.int64_t {
	for i, v := range src {
		dst[i] = C.int64_t(v)
	}
	return &dst[0]
}

func hdrIn(dst *C.gd_header, h *core.Header) *C.gd_header {
	*(*core.Header)(unsafe.Pointer(dst)) = *h
	return dst
}

// RunOp runs o through core.RunOp as the skin does and copies the results
// back into o.
func RunOp(o *Op) error {
	c := (*C.cf_op)(C.calloc(1, C.sizeof_cf_op))
	defer C.free(unsafe.Pointer(c))
	op := &c.op
	op.op, op.flag = C.int32_t(o.Op), C.int32_t(o.Flag)
	if o.Entry != "" {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&c.entry[0])), len(c.entry)-1), o.Entry)
		op.entry = &c.entry[0]
	}
	if o.A != nil {
		op.a = hdrIn(&c.a, o.A)
		op.a_shape, op.a_strides = putDims(&c.a_shape, o.AShape), putDims(&c.a_strides, o.AStrides)
	}
	if o.B != nil {
		op.b = hdrIn(&c.b, o.B)
		op.b_strides = putDims(&c.b_strides, o.BStrides)
	}
	if o.Out != nil {
		op.out = &c.out
	}
	if o.OutShape != nil {
		op.out_shape = &c.out_shape[0]
	}
	if o.OutStrides != nil {
		op.out_strides = &c.out_strides[0]
	}
	if o.Elem != nil {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&c.elem[0])), 16), o.Elem)
		op.elem = unsafe.Pointer(&c.elem[0])
	}
	if o.Ints != nil {
		op.ints, op.nints = putDims(&c.ints, o.Ints), C.int32_t(len(o.Ints))
	}
	for i, x := range o.Index {
		c.index[i] = C.gd_index_op{kind: C.int32_t(x.Kind), i: C.int64_t(x.I), start: C.int64_t(x.Start),
			stop: C.int64_t(x.Stop), step: C.int64_t(x.Step), has_start: cbool(x.HasStart), has_stop: cbool(x.HasStop)}
	}
	op.index, op.nindex = &c.index[0], C.int32_t(len(o.Index))
	op.dtype = cdt(o.DType)
	op.device = C.DLDevice{device_type: C.DLDeviceType(o.Device.Type), device_id: C.int32_t(o.Device.ID)}
	switch {
	case o.Ptr != nil:
		op.ptr = o.Ptr
	case o.Op == OpSetitem:
		op.ptr = unsafe.Pointer(&c.scratch[0])
	default:
		op.ptr = unsafe.Pointer(&c.ptr_out)
	}
	err := core.RunOp(unsafe.Pointer(op))
	if o.Out != nil {
		*o.Out = *(*core.Header)(unsafe.Pointer(&c.out))
	}
	copy(o.OutShape, godims(&c.out_shape[0], len(o.OutShape)))
	copy(o.OutStrides, godims(&c.out_strides[0], len(o.OutStrides)))
	if o.Ints != nil {
		copy(o.Ints, godims(&c.ints[0], len(o.Ints)))
	}
	o.PtrOut = c.ptr_out
	return err
}
