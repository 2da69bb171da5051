package cfixture

/*
#cgo CFLAGS: -I${SRCDIR}/../../core
#include <stdlib.h>
#include "godlpack.h"

static size_t cf_export_block_size(int32_t ndim) { return GD_EXPORT_BLOCK_SIZE(ndim); }
*/
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/core"
)

// Helpers for the tests of the C fast paths of core/fastpath.c, which run
// through core/glue.h (glue.go). exportReq and importReq fill the C request
// structs; core.ExportRequestOf / ImportRequestOf, which pyext's exports use,
// must read them back unchanged (tests_go/fastpath_test.go).

// exportReq and importReq are the C gd_export_req / gd_import_req of r.
func exportReq(r *core.ExportRequest) C.gd_export_req {
	var c C.gd_export_req
	c.max_major = C.uint32_t(r.MaxVersion.Major)
	c.max_minor = C.uint32_t(r.MaxVersion.Minor)
	c.has_max_version = cbool(r.HasMaxVersion)
	c.dl_type = C.int32_t(r.DLDevice.Type)
	c.dl_id = C.int32_t(r.DLDevice.ID)
	c.has_dl_device = cbool(r.HasDLDevice)
	c.copy = C.int32_t(r.Copy)
	c.has_stream = cbool(r.HasStream)
	c.stream = C.int64_t(r.Stream)
	return c
}

func importReq(r *core.ImportRequest) C.gd_import_req {
	var c C.gd_import_req
	c.dev_type = C.int32_t(r.Device.Type)
	c.dev_id = C.int32_t(r.Device.ID)
	c.has_device = cbool(r.HasDevice)
	c.copy = C.int32_t(r.Copy)
	c.negotiated = cbool(r.Negotiated)
	return c
}

func cbool(b bool) C.int32_t {
	if b {
		return 1
	}
	return 0
}

// ExportBlockSizeC is GD_EXPORT_BLOCK_SIZE(ndim), the C twin of
// core.ExportBlockSize.
func ExportBlockSizeC(ndim int32) uintptr { return uintptr(C.cf_export_block_size(C.int32_t(ndim))) }

// Malloc returns n bytes from C malloc, each set to fill: an exported block
// the export deleters may free().
func Malloc(n uintptr, fill byte) unsafe.Pointer {
	p := C.malloc(C.size_t(n))
	if p == nil {
		panic("cfixture: out of memory")
	}
	b := unsafe.Slice((*byte)(p), n)
	for i := range b {
		b[i] = fill
	}
	return p
}

// DeleteVersioned and DeleteLegacy call the deleter of an exported tensor.
func DeleteVersioned(m unsafe.Pointer) {
	C.gd_call_deleter_versioned((*C.DLManagedTensorVersioned)(m))
}

// DeleteLegacy: see DeleteVersioned.
func DeleteLegacy(m unsafe.Pointer) { C.gd_call_deleter_legacy((*C.DLManagedTensor)(m)) }

// FastImportDevice is gd_fast_import_device: whether the C side accepts
// from_dlpack(x, device=d) without asking core.CheckImportDevice.
func FastImportDevice(d core.Device) bool {
	return C.gd_fast_import_device(C.int32_t(d.Type), C.int32_t(d.ID)) != 0
}

// The C view twins of core/fastpath.c (gd_fast_index, gd_fast_transpose,
// gd_fast_reshape), for the differential tests against core.ApplyIndex,
// core.TransposeDesc and core.ReshapeDesc. ok is false when the twin
// declined; out, shape and strides are then meaningless.

// FastIndex is gd_fast_index.
func FastIndex(h *core.Header, shape, strides []int64, ops []core.IndexOp) (out core.Header, oshape, ostrides []int64, ok bool) {
	cops := make([]C.gd_index_op, len(ops)+1) // +1: a valid pointer for no ops
	for i, op := range ops {
		c := &cops[i]
		c.kind = C.int32_t(op.Kind)
		c.i = C.int64_t(op.I)
		c.start = C.int64_t(op.Start)
		c.stop = C.int64_t(op.Stop)
		c.step = C.int64_t(op.Step)
		c.has_start = cbool(op.HasStart)
		c.has_stop = cbool(op.HasStop)
	}
	sh, st, osh, ost, free := viewDims(shape, strides)
	defer free()
	k := C.gd_fast_index((*C.gd_header)(unsafe.Pointer(h)), sh, st, &cops[0], C.int32_t(len(ops)),
		(*C.gd_header)(unsafe.Pointer(&out)), osh, ost)
	if k < 0 {
		return out, nil, nil, false
	}
	return out, godims(osh, int(k)), godims(ost, int(k)), true
}

// FastTranspose is gd_fast_transpose.
func FastTranspose(h *core.Header, shape, strides []int64, axes []int) (out core.Header, oshape, ostrides []int64, ok bool) {
	ax := make([]C.int32_t, len(axes)+1)
	for i, a := range axes {
		ax[i] = C.int32_t(a)
	}
	sh, st, osh, ost, free := viewDims(shape, strides)
	defer free()
	if C.gd_fast_transpose((*C.gd_header)(unsafe.Pointer(h)), sh, st, &ax[0], C.int32_t(len(axes)),
		(*C.gd_header)(unsafe.Pointer(&out)), osh, ost) == 0 {
		return out, nil, nil, false
	}
	return out, godims(osh, int(h.Ndim)), godims(ost, int(h.Ndim)), true
}

// FastReshape is gd_fast_reshape; newShape gets its -1 resolved, as ReshapeDesc does.
func FastReshape(h *core.Header, shape, strides, newShape []int64) (out core.Header, ostrides []int64, ok bool) {
	sh, st, ns := cdims(shape), cdims(strides), cdims(newShape)
	defer C.free(unsafe.Pointer(sh))
	defer C.free(unsafe.Pointer(st))
	defer C.free(unsafe.Pointer(ns))
	ost := cdims(make([]int64, core.MaxNdim))
	defer C.free(unsafe.Pointer(ost))
	if C.gd_fast_reshape((*C.gd_header)(unsafe.Pointer(h)), sh, st, ns, C.int32_t(len(newShape)),
		(*C.gd_header)(unsafe.Pointer(&out)), ost) == 0 {
		return out, nil, false
	}
	copy(newShape, godims(ns, len(newShape)))
	return out, godims(ost, len(newShape)), true
}

// viewDims returns C copies of shape and strides and two MaxNdim output
// arrays, with the func that frees all four.
func viewDims(shape, strides []int64) (sh, st, osh, ost *C.int64_t, free func()) {
	sh, st = cdims(shape), cdims(strides)
	osh, ost = cdims(make([]int64, core.MaxNdim)), cdims(make([]int64, core.MaxNdim))
	return sh, st, osh, ost, func() {
		for _, p := range []*C.int64_t{sh, st, osh, ost} {
			C.free(unsafe.Pointer(p))
		}
	}
}

// cdims copies v into C memory (at least one entry, so the pointer is valid).
func cdims(v []int64) *C.int64_t {
	p := (*C.int64_t)(C.malloc(C.size_t(8 * (len(v) + 1))))
	copy(unsafe.Slice((*int64)(unsafe.Pointer(p)), len(v)+1), v)
	return p
}

func godims(p *C.int64_t, n int) []int64 {
	return append([]int64{}, unsafe.Slice((*int64)(unsafe.Pointer(p)), n)...)
}
