package cfixture

/*
#cgo CFLAGS: -I${SRCDIR}/../../core
#include <stdlib.h>
#include "godlpack.h"
#include "glue_modes.h"

// glue.c: core/glue.h with cf_export_slow / cf_import_slow behind it.
int cf_export_glue(int mode, gd_header *h, int64_t *shape, int64_t *strides, gd_export_req *req,
                   void **out, int32_t *versioned, char *msg, int *fast);
int cf_import_glue(int mode, void *managed, int versioned, gd_import_req *req, gd_header *h,
                   int64_t *shape, int64_t *strides, int32_t *consumed, char *msg, int *fast);
*/
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/core"
)

// ExportReq and ImportReq are the C request structs (gd_export_req,
// gd_import_req) the CPython skin fills from Python arguments.
type (
	ExportReq = C.gd_export_req
	ImportReq = C.gd_import_req
)

// NewExportReq and NewImportReq fill a C request from its Go form; the
// tests check that core.ExportRequestOf / ImportRequestOf read them back.
func NewExportReq(r core.ExportRequest) *ExportReq {
	c := exportReq(&r)
	return &c
}

// NewImportReq: see NewExportReq.
func NewImportReq(r core.ImportRequest) *ImportReq {
	c := importReq(&r)
	return &c
}

// GlueMode says what runs behind core/glue.h's fast path.
type GlueMode int

// Glue modes.
const (
	Normal   GlueMode = C.CF_NORMAL    // as the skin runs it: fast path, else core
	FastOnly GlueMode = C.CF_FAST_ONLY // fast path, else nothing (Declined)
	SlowOnly GlueMode = C.CF_SLOW_ONLY // core only
)

// Declined is GlueResult.Class when FastOnly found the fast path declining.
const Declined = int(C.CF_DECLINED)

// GlueResult is what one run of a core/glue.h function gave.
type GlueResult struct {
	Fast     bool // the fast path answered
	Class    int  // 0, a core.Class, -1 (the glue's malloc failed) or Declined
	Msg      string
	Consumed bool // import: an owner holds the tensor
}

// GlueExport runs gd_export_glue, the skin's __dlpack__, in mode. It returns
// the managed tensor (nil on error, when declined or when a copy was
// deferred) and whether it is versioned.
func GlueExport(mode GlueMode, h *core.Header, shape, strides []int64, req *ExportReq) (unsafe.Pointer, bool, GlueResult) {
	var out unsafe.Pointer
	var v C.int32_t
	var fast C.int
	var msg [msgCap]C.char
	cls := C.cf_export_glue(C.int(mode), (*C.gd_header)(unsafe.Pointer(h)), ptr(shape), ptr(strides), req,
		&out, &v, &msg[0], &fast)
	return out, v != 0, GlueResult{Fast: fast != 0, Class: int(cls), Msg: C.GoString(&msg[0])}
}

// GlueImport runs gd_import_glue, the skin's import of from_dlpack, in mode
// on m (a *DLManagedTensorVersioned or *DLManagedTensor). shape and strides
// need MaxNdim entries. When it consumed the tensor, h.Owner holds it.
func GlueImport(mode GlueMode, m unsafe.Pointer, versioned bool, req *ImportReq, h *core.Header, shape, strides []int64) GlueResult {
	var consumed C.int32_t
	var fast C.int
	var msg [msgCap]C.char
	cls := C.cf_import_glue(C.int(mode), m, cbool32(versioned), req, (*C.gd_header)(unsafe.Pointer(h)),
		ptr(shape), ptr(strides), &consumed, &msg[0], &fast)
	return GlueResult{Fast: fast != 0, Class: int(cls), Msg: C.GoString(&msg[0]), Consumed: consumed != 0}
}

// DropOwner frees an owner made by GlueImport without releasing it: the
// deleter of the tensor it holds is not called (tests that import the same
// fixture twice).
func DropOwner(o *core.Owner) { C.free(unsafe.Pointer(o)) }

func cbool32(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
