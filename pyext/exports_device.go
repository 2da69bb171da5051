//go:build pyext

package pyext

/*
#include "bridge.h"
*/
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/core"
)

// gdgo_alloc_on allocates a C-contiguous array on device dev
// (core.AllocContiguousOn), or, when like is set, on the device that a copy
// of an array on dev goes to (core.CopyDevice). When elem is not NULL it is
// filled with that element (core.Fill, through the device's backend when
// the CPU cannot address it). out receives a new owner reference. entry
// names the user's entry point in errors.
//
//export gdgo_alloc_on
func gdgo_alloc_on(dt C.DLDataType, ndim C.int32_t, shape *C.int64_t, dev C.DLDevice, like C.int,
	elem unsafe.Pointer, out *C.gd_header, ostrides *C.int64_t, entry, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "empty()")
	where := C.GoString(entry)
	d := dataType(dt)
	nd := int(ndim)
	sh, ost := dims(shape, nd), dims(ostrides, core.MaxNdim)
	target := core.Device{Type: core.DeviceType(dev.device_type), ID: int32(dev.device_id)}
	if like != 0 {
		target = core.CopyDevice(target)
	}
	O := hdr(out)
	if err := core.AllocContiguousOn(where, target, d, sh, O, ost, false); err != nil {
		return failAt(msg, where, err)
	}
	if elem != nil {
		if err := core.Fill(O, sh, ost[:nd], elemBytes(elem, d)); err != nil {
			O.Owner.Release()
			O.Owner = nil
			return failAt(msg, where, err)
		}
	}
	return 0
}

// gdgo_consumer_stream stores in out godlpack's queue on device dev as its
// runtime's handle (core.ConsumerStream: a DPCTLSyclQueueRef for oneAPI).
//
//export gdgo_consumer_stream
func gdgo_consumer_stream(dev C.DLDevice, out *unsafe.Pointer, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "from_dlpack()")
	q, err := core.ConsumerStream(core.Device{Type: core.DeviceType(dev.device_type), ID: int32(dev.device_id)})
	if err != nil {
		return failAt(msg, "from_dlpack()", err)
	}
	*out = q
	return 0
}
