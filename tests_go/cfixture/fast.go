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
