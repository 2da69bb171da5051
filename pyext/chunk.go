//go:build pyext

package pyext

/*
#include "bridge.h"
*/
import "C"

import "github.com/godlpack/godlpack/core"

// gdgo_copy_into copies src (shape, sstrides) into dst (same shape,
// dstrides): one chunk of a long copy done in pieces by chunk.c, which
// re-takes the GIL and checks signals between chunks (Ctrl-C).
//
//export gdgo_copy_into
func gdgo_copy_into(dst *C.gd_header, dstrides *C.int64_t, src *C.gd_header, shape, sstrides *C.int64_t,
	msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "copy()")
	D, S := hdr(dst), hdr(src)
	nd := int(S.Ndim)
	sh := dims(shape, nd)
	if err := core.CopyInto(D, sh, dims(dstrides, nd), S, sh, dims(sstrides, nd)); err != nil {
		return failAt(msg, "copy()", err)
	}
	return 0
}
