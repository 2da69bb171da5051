package cfixture

/*
#include "godlpack.h"
*/
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/core"
)

// The slow paths of core/glue.h for the tests: the same core functions
// pyext's gdgo_export and gdgo_import call, with the error turned into a
// class and a message the same way. (A file with //export may only declare
// C in its preamble, hence its own file.)

//export cf_export_slow
func cf_export_slow(h *C.gd_header, shape, strides *C.int64_t, req *C.gd_export_req, block unsafe.Pointer,
	out *unsafe.Pointer, versioned *C.int32_t, scratch *C.int64_t, msg *C.char) C.int {
	H := (*core.Header)(unsafe.Pointer(h))
	nd := int(H.Ndim)
	s := core.ExportServeOf(unsafe.Pointer(req), nd)
	r, err := core.ServeExport(H, slice(shape, nd), slice(strides, nd), &s, block, slice(scratch, core.MaxNdim))
	if err != nil {
		return failWith(msg, err)
	}
	*out = r.Managed
	*versioned = 0
	if r.Versioned {
		*versioned = 1
	}
	r.WriteTo(unsafe.Pointer(req))
	return 0
}

//export cf_import_slow
func cf_import_slow(managed unsafe.Pointer, versioned C.int, req *C.gd_import_req, ownerBlock unsafe.Pointer,
	h *C.gd_header, shape, strides, scratch *C.int64_t, consumed *C.int32_t, msg *C.char) C.int {
	s := core.ImportServeOf(unsafe.Pointer(req))
	r, err := core.ServeImport(managed, versioned != 0, &s, ownerBlock,
		(*core.Header)(unsafe.Pointer(h)), slice(shape, core.MaxNdim), slice(strides, core.MaxNdim),
		slice(scratch, core.MaxNdim))
	if r.Consumed {
		*consumed = 1
	}
	r.WriteTo(unsafe.Pointer(req))
	if err != nil {
		return failWith(msg, err)
	}
	return 0
}

func slice(p *C.int64_t, n int) []int64 {
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(p)), n)
}

// msgCap is the size of the message buffers glue.go hands to the slow paths.
const msgCap = 512

func failWith(msg *C.char, err error) C.int {
	buf := unsafe.Slice((*byte)(unsafe.Pointer(msg)), msgCap)
	n := copy(buf[:msgCap-1], err.Error())
	buf[n] = 0
	return C.int(core.ClassOf(err))
}
