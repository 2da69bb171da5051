package core

/*
#include "godlpack.h"
*/
import "C"

import "unsafe"

// The two hot operations of the CPython skin, whole: __dlpack__ and the
// import of from_dlpack, reading the request structs of godlpack.h exactly
// as the skin filled them. pyext's Go exports only call these and turn the
// error into a message; tests_go drives the same functions through the same
// C glue (fastpath.c first, then these) with the same structs, so the fast
// path is compared with what the skin really runs.

// ExportRequestOf converts a C gd_export_req into an ExportRequest.
func ExportRequestOf(req unsafe.Pointer) ExportRequest {
	r := (*C.gd_export_req)(req)
	return ExportRequest{
		MaxVersion:    Version{Major: uint32(r.max_major), Minor: uint32(r.max_minor)},
		HasMaxVersion: r.has_max_version != 0,
		DLDevice:      Device{Type: DeviceType(r.dl_type), ID: int32(r.dl_id)},
		HasDLDevice:   r.has_dl_device != 0,
		Copy:          CopyMode(r.copy),
		Stream:        int64(r.stream),
		HasStream:     r.has_stream != 0,
		StreamObject:  r.stream_object != 0,
	}
}

// ImportRequestOf converts a C gd_import_req into an ImportRequest.
func ImportRequestOf(req unsafe.Pointer) ImportRequest {
	r := (*C.gd_import_req)(req)
	return ImportRequest{
		Device:         Device{Type: DeviceType(r.dev_type), ID: int32(r.dev_id)},
		HasDevice:      r.has_device != 0,
		Copy:           CopyMode(r.copy),
		Negotiated:     r.negotiated != 0,
		MayAskHostCopy: r.may_ask_host_copy != 0,
		NoSync:         r.no_sync != 0,
		MayAskStream:   r.may_ask_stream != 0,
		StreamGiven:    r.stream_given != 0,
	}
}

// ServeExport answers __dlpack__ for the array h, shape, strides with the
// request req (a *gd_export_req): PlanExport (P1–P5), then the export of a
// view, or of a copy. block is a C buffer of ExportBlockSize(h.Ndim) bytes
// that becomes the managed tensor (no C allocation from Go). scratch holds
// MaxNdim int64. It returns the managed tensor and whether it is versioned,
// or nil with no error when it planned a copy of more than
// req.defer_copy_over bytes: it then sets req.copy_deferred and the caller
// copies (in interruptible chunks) and calls again with req.precopied. A
// refused request copies nothing.
func ServeExport(h *Header, shape, strides []int64, req unsafe.Pointer, block unsafe.Pointer, scratch []int64) (unsafe.Pointer, bool, error) {
	r := (*C.gd_export_req)(req)
	er := ExportRequestOf(req)
	var plan ExportPlan
	if err := PlanExportTo(h.Device, h.ReadOnly(), &er, &plan); err != nil {
		return nil, false, err
	}
	nd := int(h.Ndim)
	if nd < 0 || nd > MaxNdim || len(shape) < nd || len(strides) < nd {
		return nil, false, errorf(ErrNdim, "__dlpack__(): the array has %d dimensions (shape %d, strides %d entries)",
			nd, len(shape), len(strides))
	}
	if plan.Copy && h.DType.IsSubByte() {
		return nil, false, subByteCopyErr("__dlpack__()", h)
	}
	src, srcStrides := h, strides
	var tmp Header
	switch {
	case plan.Copy && r.precopied != nil:
		src = (*Header)(unsafe.Pointer(r.precopied))
		srcStrides = unsafe.Slice((*int64)(unsafe.Pointer(r.precopied_strides)), nd)
	case plan.Copy && r.defer_copy_over > 0 && SkinCopies(h.Device, plan.Target) && bytesOver(h, shape, int64(r.defer_copy_over)):
		r.copy_deferred = 1
		return nil, false, nil
	case plan.Copy:
		sc := scratch[:nd]
		if err := AllocContiguousOn("__dlpack__()", plan.Target, h.DType, shape, &tmp, sc, false); err != nil {
			return nil, false, err
		}
		defer tmp.Owner.Release() // the export holds its own reference
		if err := CopyInto(&tmp, shape, sc, h, shape, strides); err != nil {
			return nil, false, err
		}
		src, srcStrides = &tmp, sc
	}
	if plan.Versioned {
		m, err := ExportVersionedIn(block, src, shape, srcStrides, plan.ExtraFlags)
		return unsafe.Pointer(m), err == nil, err
	}
	m, err := ExportLegacyIn(block, src, shape, srcStrides)
	return unsafe.Pointer(m), false, err
}

// ServeImport takes the managed tensor of a capsule (or of an exchange API)
// for from_dlpack with the request req (a *gd_import_req): Describe
// (validation; never calls the deleter), PlanImport (C5–C7, C9), a new owner
// in ownerBlock (sizeof(gd_owner) bytes of C memory) that will call the
// deleter, and an optional copy. consumed is true once the owner exists: the
// caller must then treat the tensor as taken (rename the capsule), even when
// a later step failed (the deleter has run by then). Before that a refusal
// leaves the tensor untouched (C4), and so does a retry (req.retry set, no
// error): the caller asks the producer again. shape, strides and scratch
// hold MaxNdim int64. A planned copy of more than req.defer_copy_over bytes
// is left to the caller (req.copy_deferred set; h then describes the
// producer's tensor, owned).
func ServeImport(managed unsafe.Pointer, versioned bool, req unsafe.Pointer, ownerBlock unsafe.Pointer,
	h *Header, shape, strides, scratch []int64) (consumed bool, err error) {
	r := (*C.gd_import_req)(req)
	ir := ImportRequestOf(req)
	var flags uint64
	kind := OwnLegacy
	if versioned {
		m := (*DLManagedTensorVersioned)(managed)
		if ir.NoSync && m != nil && m.Version.Major != DLPackMajor {
			// S1 through an exchange API: read nothing else, and let
			// __dlpack__ negotiate a version we speak.
			r.retry = C.int32_t(RetryDLPack)
			return false, nil
		}
		if err := DescribeVersioned(m, h, shape, strides); err != nil {
			return false, err
		}
		flags = m.Flags
		kind = OwnVersioned
	} else if err := DescribeLegacy((*DLManagedTensor)(managed), h, shape, strides); err != nil {
		return false, err
	}
	plan, err := PlanImport(h.Device, flags, ir)
	if err != nil {
		return false, err
	}
	if plan.Retry != RetryNone {
		r.retry = C.int32_t(plan.Retry)
		return false, nil
	}
	if plan.Copy && h.DType.IsSubByte() {
		return false, subByteCopyErr("from_dlpack()", h) // not taken: the capsule keeps its tensor (C4)
	}
	var o *Owner
	if ownerBlock != nil {
		o = InitOwner(ownerBlock, kind, managed, nil) // C memory from the caller: no Go->C call
	} else if o, err = NewOwner(kind, managed, nil); err != nil {
		return false, err
	}
	h.Owner = o
	if plan.Sync {
		if err := backendOf(h.Device.Type).Synchronize(h.Device.ID); err != nil {
			h.Owner = nil
			o.Release()
			return true, deviceErr("from_dlpack()", h.Device, err)
		}
	}
	if !plan.Copy {
		return true, nil
	}
	nd := int(h.Ndim)
	if over := int64(r.defer_copy_over); over > 0 && SkinCopies(h.Device, plan.Device) && bytesOver(h, shape[:nd], over) {
		r.copy_deferred = 1
		return true, nil
	}
	var tmp Header
	sc := scratch[:nd]
	if err := AllocContiguousOn("from_dlpack()", plan.Device, h.DType, shape[:nd], &tmp, sc, false); err != nil {
		h.Owner = nil
		o.Release()
		return true, err
	}
	err = CopyInto(&tmp, shape[:nd], sc, h, shape[:nd], strides[:nd])
	h.Owner = nil
	o.Release() // calls the producer's deleter: we hold a copy now
	if err != nil {
		tmp.Owner.Release()
		return true, err
	}
	*h = tmp
	copy(strides[:nd], sc)
	return true, nil
}

// SkinCopies reports whether a planned copy from src to dst may be left to
// the C skin (defer_copy_over), which copies host memory to host memory in
// interruptible chunks: the CPU types only. Copies that involve a device
// backend run in the one Go call.
func SkinCopies(src, dst Device) bool {
	return dst == CPU && CPUAccessible(src.Type)
}

// bytesOver reports whether a tensor of byte-sized elements holds more than
// n bytes (shape already validated); sub-byte tensors report false.
func bytesOver(h *Header, shape []int64, n int64) bool {
	bits := int64(h.DType.Bits) * int64(h.DType.Lanes)
	if bits < 8 || bits%8 != 0 {
		return false
	}
	for _, d := range shape {
		if d == 0 {
			return false
		}
	}
	size := bits / 8
	for _, d := range shape {
		if size > n {
			return true
		}
		size *= d
	}
	return size > n
}
