package core

import "unsafe"

// Header is the fixed part of an array: everything but shape and strides. It
// mirrors gd_header in godlpack.h so that the CPython skin can keep it inside
// the Python object (C memory) and hand Go a pointer to it: one crossing, no
// Go allocation. The element at index (i_0, ..., i_{n-1}) lives at
//
//	Data + (Offset + Σ i_k·strides_k) · itemsize
type Header struct {
	Data   unsafe.Pointer // byte address of element offset 0 (C memory)
	Owner  *Owner         // refcounted owner of the memory; nil only when released
	Offset int64          // in elements
	DType  DataType
	Ndim   int32
	Device Device
	Flags  uint64 // HeaderReadOnly, HeaderSubBytePadded and the derived flags
}

// SetDerivedFlags recomputes HeaderHost, HeaderCContig and HeaderFContig
// from h.Device, h.Data (HostAccessible) and the layout (shape and strides have h.Ndim entries).
// Every function of core that produces a header calls it, so the CPython
// skin answers the buffer protocol and its fast paths from flags, without
// deciding device or layout facts itself.
func (h *Header) SetDerivedFlags(shape, strides []int64) {
	host, _ := HostAccessible(h.Device, h.Data)
	h.setDerivedFlags(shape, strides, host)
}

// setDerivedFlags is SetDerivedFlags with HostAccessible already asked (an
// import asks once, and refuses a pointer the device does not know).
func (h *Header) setDerivedFlags(shape, strides []int64, host bool) {
	f := h.Flags &^ (HeaderHost | HeaderCContig | HeaderFContig)
	if host {
		f |= HeaderHost
	}
	if isCContiguous(shape, strides) {
		f |= HeaderCContig
	}
	if isFContiguous(shape, strides) {
		f |= HeaderFContig
	}
	h.Flags = f
}

// ReadOnly reports whether writes through this header are refused.
func (h *Header) ReadOnly() bool { return h.Flags&HeaderReadOnly != 0 }
