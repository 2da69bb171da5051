//go:build pyext

package pyext

/*
#include "bridge.h"
*/
import "C"

import "github.com/godlpack/godlpack/core"

// gdgo_convert is a.astype(dt) and asarray(x, dtype=dt): a new C-contiguous
// array on h's device (core.CopyDevice) of dtype dt (new owner reference in out) holding h's elements
// converted (core.ConvertInto). entry names the user's entry point.
//
//export gdgo_convert
func gdgo_convert(h *C.gd_header, shape, strides *C.int64_t, dt C.DLDataType, out *C.gd_header,
	ostrides *C.int64_t, entry, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "astype()")
	where := C.GoString(entry)
	H, O := hdr(h), hdr(out)
	nd := int(H.Ndim)
	sh, st := dims(shape, nd), dims(strides, nd)
	ost := dims(ostrides, core.MaxNdim)[:nd]
	d := dataType(dt)
	if err := core.CheckConvert(where, H.DType, d); err != nil {
		return failAt(msg, where, err)
	}
	if err := core.AllocContiguousOn(where, core.CopyDevice(H.Device), d, sh, O, ost, false); err != nil {
		return failAt(msg, where, err)
	}
	if err := core.ConvertInto(O, sh, ost, H, sh, st); err != nil {
		O.Owner.Release()
		O.Owner = nil
		return failAt(msg, where, err)
	}
	return 0
}

// gdgo_convert_into converts src (shape, sstrides) into dst (same shape,
// dstrides, any dtype): one chunk of a long conversion done in pieces by
// chunk.c, or one element of a stack (asarray of a list of arrays).
//
//export gdgo_convert_into
func gdgo_convert_into(dst *C.gd_header, dstrides *C.int64_t, src *C.gd_header, shape, sstrides *C.int64_t,
	entry, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "astype()")
	D, S := hdr(dst), hdr(src)
	nd := int(S.Ndim)
	sh := dims(shape, nd)
	if err := core.ConvertInto(D, sh, dims(dstrides, nd), S, sh, dims(sstrides, nd)); err != nil {
		return failAt(msg, C.GoString(entry), err)
	}
	return 0
}
