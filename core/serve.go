package core

/*
#include "godlpack.h"
*/
import "C"

import "unsafe"

// The two hot operations of the CPython skin, whole: __dlpack__ and the
// import of from_dlpack, on typed Go values. pyext's Go exports read the
// request structs of godlpack.h into them (ExportRequestOf, ImportRequestOf
// and the skin's own chunking fields), call these and write the answer back;
// tests_go drives the same functions through the same C glue (fastpath.c
// first, then these), so the fast path is compared with what the skin runs.

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
		StreamQueue:   r.stream_object == 1,
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

// ExportServe is a __dlpack__ request as ServeExport takes it: the DLPack
// keywords, and how a long copy is shared with the caller.
type ExportServe struct {
	Req ExportRequest
	// DeferCopyOver > 0 leaves a planned copy of more bytes than this to the
	// caller (ExportServed.CopyDeferred), which copies in interruptible
	// chunks and calls again with the copy in Precopied.
	DeferCopyOver    int64
	Precopied        *Header
	PrecopiedStrides []int64
}

// ExportServed is ServeExport's answer.
type ExportServed struct {
	Managed      unsafe.Pointer // the managed tensor in block; nil when CopyDeferred
	Versioned    bool           // Managed is a DLManagedTensorVersioned
	CopyDeferred bool
}

// ExportServeOf reads a C gd_export_req, chunking fields included, into an
// ExportServe; ExportServed.WriteTo writes the answer back. The skin and the
// tests' C glue use the same two.
func ExportServeOf(req unsafe.Pointer, ndim int) ExportServe {
	r := (*C.gd_export_req)(req)
	s := ExportServe{Req: ExportRequestOf(req), DeferCopyOver: int64(r.defer_copy_over)}
	if r.precopied != nil {
		s.Precopied = (*Header)(unsafe.Pointer(r.precopied))
		s.PrecopiedStrides = unsafe.Slice((*int64)(unsafe.Pointer(r.precopied_strides)), ndim)
	}
	return s
}

// WriteTo sets the C request's copy_deferred.
func (r ExportServed) WriteTo(req unsafe.Pointer) {
	if r.CopyDeferred {
		(*C.gd_export_req)(req).copy_deferred = 1
	}
}

// ServeExport answers __dlpack__ for the array h, shape, strides with the
// request s: PlanExport (P1–P5), then the export of a view, or of a copy.
// block is a C buffer of ExportBlockSize(h.Ndim) bytes that becomes the
// managed tensor (no C allocation from Go). scratch holds MaxNdim int64. A
// refused request copies nothing.
func ServeExport(h *Header, shape, strides []int64, s *ExportServe, block unsafe.Pointer, scratch []int64) (ExportServed, error) {
	var plan ExportPlan
	if err := PlanExportTo(h.Device, h.ReadOnly(), &s.Req, &plan); err != nil {
		return ExportServed{}, err
	}
	nd := int(h.Ndim)
	if nd < 0 || nd > MaxNdim || len(shape) < nd || len(strides) < nd {
		return ExportServed{}, errorf(ErrNdim, "__dlpack__(): the array has %d dimensions (shape %d, strides %d entries)",
			nd, len(shape), len(strides))
	}
	if plan.Copy && h.DType.IsSubByte() {
		return ExportServed{}, subByteCopyErr("__dlpack__()", h)
	}
	src, srcStrides := h, strides
	var tmp Header
	switch {
	case plan.Copy && s.Precopied != nil:
		src, srcStrides = s.Precopied, s.PrecopiedStrides[:nd]
	case plan.Copy && s.DeferCopyOver > 0 && SkinCopies(h.Device, plan.Target) && bytesOver(h, shape, s.DeferCopyOver):
		return ExportServed{CopyDeferred: true}, nil
	case plan.Copy:
		sc := scratch[:nd]
		if err := AllocContiguousOn("__dlpack__()", plan.Target, h.DType, shape, &tmp, sc, false); err != nil {
			return ExportServed{}, err
		}
		defer tmp.Owner.Release() // the export holds its own reference
		if err := CopyInto(&tmp, shape, sc, h, shape, strides); err != nil {
			return ExportServed{}, err
		}
		src, srcStrides = &tmp, sc
	}
	if plan.Versioned {
		m, err := ExportVersionedIn(block, src, shape, srcStrides, plan.ExtraFlags)
		return ExportServed{Managed: unsafe.Pointer(m), Versioned: err == nil}, err
	}
	m, err := ExportLegacyIn(block, src, shape, srcStrides)
	return ExportServed{Managed: unsafe.Pointer(m)}, err
}

// ImportServe is a from_dlpack import as ServeImport takes it: the request,
// and how a long copy is shared with the caller.
type ImportServe struct {
	Req ImportRequest
	// DeferCopyOver > 0 leaves a planned copy of more bytes than this to the
	// caller (ImportServed.CopyDeferred; h then describes the producer's
	// tensor, owned), which copies in interruptible chunks.
	DeferCopyOver int64
}

// ImportServed is ServeImport's answer.
type ImportServed struct {
	// Consumed: the owner exists; the caller must treat the tensor as taken
	// (rename the capsule), even when a later step failed (the deleter has
	// run by then).
	Consumed bool
	// Retry: the tensor was left untouched, and the producer must be asked
	// again (RetryHostCopy, RetryDLPack, RetryStream).
	Retry        Retry
	CopyDeferred bool
}

// ImportServeOf reads a C gd_import_req into an ImportServe;
// ImportServed.WriteTo writes the answer back.
func ImportServeOf(req unsafe.Pointer) ImportServe {
	return ImportServe{Req: ImportRequestOf(req), DeferCopyOver: int64((*C.gd_import_req)(req).defer_copy_over)}
}

// WriteTo sets the C request's retry and copy_deferred.
func (r ImportServed) WriteTo(req unsafe.Pointer) {
	c := (*C.gd_import_req)(req)
	c.retry = C.int32_t(r.Retry)
	if r.CopyDeferred {
		c.copy_deferred = 1
	}
}

// ServeImport takes the managed tensor of a capsule (or of an exchange API)
// for from_dlpack with the request s: Describe (validation; never calls the
// deleter), PlanImport (C5–C7, C9), a new owner in ownerBlock
// (sizeof(gd_owner) bytes of C memory) that will call the deleter, and an
// optional copy. Before the owner exists a refusal leaves the tensor
// untouched (C4), and so does a retry. shape, strides and scratch hold
// MaxNdim int64.
func ServeImport(managed unsafe.Pointer, versioned bool, s *ImportServe, ownerBlock unsafe.Pointer,
	h *Header, shape, strides, scratch []int64) (ImportServed, error) {
	var flags uint64
	kind := OwnLegacy
	if versioned {
		m := (*DLManagedTensorVersioned)(managed)
		if s.Req.NoSync && m != nil && m.Version.Major != DLPackMajor {
			// S1 through an exchange API: read nothing else, and let
			// __dlpack__ negotiate a version we speak.
			return ImportServed{Retry: RetryDLPack}, nil
		}
		if err := DescribeVersioned(m, h, shape, strides); err != nil {
			return ImportServed{}, err
		}
		flags = m.Flags
		kind = OwnVersioned
	} else if err := DescribeLegacy((*DLManagedTensor)(managed), h, shape, strides); err != nil {
		return ImportServed{}, err
	}
	plan, err := PlanImport(h.Device, flags, s.Req)
	if err != nil {
		return ImportServed{}, err
	}
	if plan.Retry != RetryNone {
		return ImportServed{Retry: plan.Retry}, nil
	}
	if plan.Copy && h.DType.IsSubByte() {
		return ImportServed{}, subByteCopyErr("from_dlpack()", h) // not taken: the capsule keeps its tensor (C4)
	}
	taken := ImportServed{Consumed: true}
	var o *Owner
	if ownerBlock != nil {
		o = InitOwner(ownerBlock, kind, managed, nil) // C memory from the caller: no Go->C call
	} else if o, err = NewOwner(kind, managed, nil); err != nil {
		return ImportServed{}, err
	}
	h.Owner = o
	if plan.Sync {
		if err := backendOf(h.Device.Type).Synchronize(h.Device.ID); err != nil {
			h.Owner = nil
			o.Release()
			return taken, deviceErr("from_dlpack()", h.Device, err)
		}
	}
	if !plan.Copy {
		return taken, nil
	}
	nd := int(h.Ndim)
	if over := s.DeferCopyOver; over > 0 && SkinCopies(h.Device, plan.Device) && bytesOver(h, shape[:nd], over) {
		taken.CopyDeferred = true
		return taken, nil
	}
	var tmp Header
	sc := scratch[:nd]
	if err := AllocContiguousOn("from_dlpack()", plan.Device, h.DType, shape[:nd], &tmp, sc, false); err != nil {
		h.Owner = nil
		o.Release()
		return taken, err
	}
	err = CopyInto(&tmp, shape[:nd], sc, h, shape[:nd], strides[:nd])
	h.Owner = nil
	o.Release() // calls the producer's deleter: we hold a copy now
	if err != nil {
		tmp.Owner.Release()
		return taken, err
	}
	*h = tmp
	copy(strides[:nd], sc)
	return taken, nil
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
