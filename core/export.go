package core

/*
#include <stdlib.h>
#include "godlpack.h"

// Plain malloc: cgo's C.malloc never returns NULL (it aborts instead), and
// export must report ErrNoMemory.
static void *gd_export_malloc(size_t n) { return malloc(n); }
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// ExportVersioned exports h (with its shape and strides) as a
// DLManagedTensorVersioned in C memory. The caller owns the result: hand it
// to a consumer (a capsule) or call its deleter.
//
// Export rules (docs/rules.md S3-S5, P2). ExportVersioned and ExportLegacy
// share one path and produce:
//
//   - one C allocation holding the managed struct, then shape[ndim], then
//     strides[ndim] (for ndim == 0 one int64 each, so that shape and strides
//     are never NULL); the deleter frees it with one free();
//   - strides always filled, copied verbatim (never normalised);
//   - the device's byte_offset policy (FoldsByteOffset): on the CPU and host
//     kinds byte_offset 0 and data at the first element, Data +
//     Offset*itemsize; on other devices data = Data (it may be an opaque
//     handle) and byte_offset = Offset*itemsize. A tensor with no element
//     carries a NULL data pointer on the CPU (S5 says it should; numpy and
//     torch accept NULL for zero-size tensors), and its handle with
//     byte_offset 0 where data is one (dpctl needs the pointer);
//   - manager_ctx = the header's owner, retained once; the deleter
//     (gd_export_deleter_*, pure C, any thread) releases that reference;
//   - versioned: version (1, 3); flags READ_ONLY when the header is read-only,
//     IS_SUBBYTE_TYPE_PADDED when its sub-byte data is padded, plus
//     extraFlags (e.g. FlagIsCopied; a padded bit in extraFlags is ignored).
//
// Refusals: a released header (nil Owner) → ErrReleased; ndim outside
// 0..MaxNdim or shape/strides shorter than ndim → ErrNdim; packed sub-byte
// data with Offset != 0 or not C-contiguous → ErrSubByteView; legacy export
// of a read-only header → ErrReadOnlyLegacy (P2) and of padded sub-byte data
// → ErrSubByte (legacy cannot say so). ErrNoMemory if malloc fails.
// Nothing is allocated on the Go heap on success.
func ExportVersioned(h *Header, shape, strides []int64, extraFlags uint64) (*DLManagedTensorVersioned, error) {
	return ExportVersionedIn(nil, h, shape, strides, extraFlags)
}

// ExportBlockSize is the size of the single C allocation that holds an
// exported tensor of ndim dimensions, versioned or legacy (the larger of the
// two): the struct, then shape and strides.
func ExportBlockSize(ndim int) uintptr {
	return sizeofVersioned + 2*uintptr(max(ndim, 1))*8
}

// ExportVersionedIn is ExportVersioned into block, a malloc'ed C buffer of
// at least ExportBlockSize(h.Ndim) bytes that becomes the managed tensor (its
// deleter frees it); nil allocates one. On error block is left to the caller.
// The CPython skin allocates the block in C before its one call into Go, so
// an export makes no Go->C call.
func ExportVersionedIn(block unsafe.Pointer, h *Header, shape, strides []int64, extraFlags uint64) (*DLManagedTensorVersioned, error) {
	p, err := exportTensor(block, h, shape, strides, true)
	if err != nil {
		return nil, err
	}
	m := (*DLManagedTensorVersioned)(p)
	m.Version = DLPackVersion
	m.ManagerCtx = unsafe.Pointer(h.Owner)
	m.Deleter = unsafe.Pointer(C.gd_export_deleter_versioned)
	flags := extraFlags &^ FlagIsSubbyteTypePadded
	if h.Flags&HeaderReadOnly != 0 {
		flags |= FlagReadOnly
	}
	if h.Flags&HeaderSubBytePadded != 0 && h.DType.IsSubByte() {
		flags |= FlagIsSubbyteTypePadded
	}
	m.Flags = flags
	h.Owner.Retain()
	return m, nil
}

// ExportLegacy exports h as a legacy DLManagedTensor in C memory. A read-only
// header cannot be exported this way (ErrReadOnlyLegacy): legacy tensors
// cannot carry READ_ONLY.
func ExportLegacy(h *Header, shape, strides []int64) (*DLManagedTensor, error) {
	return ExportLegacyIn(nil, h, shape, strides)
}

// ExportLegacyIn is ExportLegacy into block (see ExportVersionedIn).
func ExportLegacyIn(block unsafe.Pointer, h *Header, shape, strides []int64) (*DLManagedTensor, error) {
	if h != nil && h.Owner != nil {
		if h.Flags&HeaderReadOnly != 0 {
			return nil, fmt.Errorf("%w; export with max_version=(1, 0) or newer, or make a writable copy", ErrReadOnlyLegacy)
		}
		if h.Flags&HeaderSubBytePadded != 0 && h.DType.IsSubByte() {
			return nil, fmt.Errorf("%w: padded sub-byte data needs a versioned export (max_version=(1, 1) or newer)", ErrSubByte)
		}
	}
	p, err := exportTensor(block, h, shape, strides, false)
	if err != nil {
		return nil, err
	}
	m := (*DLManagedTensor)(p)
	m.ManagerCtx = unsafe.Pointer(h.Owner)
	m.Deleter = unsafe.Pointer(C.gd_export_deleter_legacy)
	h.Owner.Retain()
	return m, nil
}

// ExportVersioned exports the array; see the package-level ExportVersioned.
// A released array gives ErrReleased. Safe against a concurrent Release.
func (a *Array) ExportVersioned(extraFlags uint64) (*DLManagedTensorVersioned, error) {
	defer a.lock().Unlock()
	return ExportVersioned(&a.hdr, a.shape, a.strides, extraFlags)
}

// ExportLegacy exports the array; see the package-level ExportLegacy.
func (a *Array) ExportLegacy() (*DLManagedTensor, error) {
	defer a.lock().Unlock()
	return ExportLegacy(&a.hdr, a.shape, a.strides)
}

const (
	sizeofVersioned = unsafe.Sizeof(DLManagedTensorVersioned{})
	sizeofLegacy    = unsafe.Sizeof(DLManagedTensor{})
	offsetTensorV   = unsafe.Offsetof(DLManagedTensorVersioned{}.DLTensor)
)

// exportTensor checks h, allocates struct+shape+strides and fills the
// DLTensor part. The caller fills the rest and retains the owner.
func exportTensor(block unsafe.Pointer, h *Header, shape, strides []int64, versioned bool) (unsafe.Pointer, error) {
	if h == nil || h.Owner == nil {
		return nil, fmt.Errorf("%w; cannot export it", ErrReleased)
	}
	ndim := h.Ndim
	if ndim < 0 || ndim > MaxNdim {
		return nil, fmt.Errorf("%w: ndim is %d", ErrNdim, ndim)
	}
	n := int(ndim)
	if n > len(shape) || n > len(strides) {
		return nil, fmt.Errorf("%w: header has ndim %d but %d shape and %d strides entries",
			ErrNdim, n, len(shape), len(strides))
	}
	size := int64(1)
	for _, d := range shape[:n] {
		size *= d // shapes of live arrays fit int64 and are non-negative
	}
	dt := h.DType
	itemsize := dt.ItemSize()
	if dt.IsSubByte() {
		if h.Flags&HeaderSubBytePadded != 0 {
			itemsize = 1
		} else if h.Offset != 0 || !isCContiguous(shape[:n], strides[:n]) {
			return nil, fmt.Errorf("%w: only a whole C-contiguous packed sub-byte array can be exported; export the array it was taken from",
				ErrSubByteView)
		}
	}

	head := sizeofLegacy
	if versioned {
		head = sizeofVersioned
	}
	dims := uintptr(max(n, 1)) * 8
	p := block
	if p == nil {
		p = C.gd_export_malloc(C.size_t(head + 2*dims))
	}
	if p == nil {
		return nil, fmt.Errorf("%w: exporting a DLPack tensor", ErrNoMemory)
	}
	t := (*DLTensor)(p) // legacy: dl_tensor is the first field
	if versioned {
		t = (*DLTensor)(unsafe.Add(p, offsetTensorV))
	}
	sh := (*int64)(unsafe.Add(p, head))
	st := (*int64)(unsafe.Add(p, head+dims))
	copy(unsafe.Slice(sh, n), shape[:n])
	copy(unsafe.Slice(st, n), strides[:n])
	if n == 0 {
		*sh, *st = 1, 1
	}
	fillTensor(t, h, size, itemsize, sh, st)
	return p, nil
}

// fillTensor writes the DLTensor of h (size elements of itemsize bytes) with
// the given shape and strides arrays. The byte_offset policy of the device
// (FoldsByteOffset): data at the first element, or data as held and the
// offset in byte_offset. Offsets of live arrays lie inside their buffer: the
// product fits int64.
func fillTensor(t *DLTensor, h *Header, size, itemsize int64, shape, strides *int64) {
	var data unsafe.Pointer
	var byteOffset uint64
	switch {
	case h.Data == nil:
	case FoldsByteOffset(h.Device):
		if size != 0 {
			data = unsafe.Add(h.Data, h.Offset*itemsize)
		}
	case size != 0:
		data, byteOffset = h.Data, uint64(h.Offset*itemsize)
	default:
		// S5: an empty tensor keeps its handle where data is one (oneAPI):
		// dpctl finds the context from the pointer and refuses NULL.
		data = h.Data
	}
	*t = DLTensor{
		Data:       data,
		Device:     h.Device,
		Ndim:       h.Ndim,
		DType:      h.DType,
		Shape:      shape,
		Strides:    strides,
		ByteOffset: byteOffset,
	}
}

// ExportView fills t with a non-owning DLTensor of the array h, shape,
// strides (the exchange API's dltensor_from_py_object_no_sync): t.shape and
// t.strides point at the caller's arrays, and t is valid only while they and
// the array live. Like a legacy export it cannot say read-only, so a
// read-only array is refused (ErrReadOnlyLegacy, P2), and so is a released
// one (ErrReleased), an ndim outside 0..MaxNdim (ErrNdim) and a view of
// packed sub-byte data (ErrSubByteView). It allocates nothing on success.
func ExportView(h *Header, shape, strides []int64, t *DLTensor) error {
	if h == nil || h.Owner == nil {
		return fmt.Errorf("%w; cannot export it", ErrReleased)
	}
	if h.Flags&HeaderReadOnly != 0 {
		// no capsule is involved here (the C exchange API's DLTensor view):
		// the words say what is refused, the sentinel stays P2's
		return errorf(ErrReadOnlyLegacy, "a read-only array has no bare DLTensor (a DLTensor cannot say read-only); "+
			"take a DLManagedTensorVersioned instead (managed_tensor_from_py_object_no_sync, or __dlpack__ with "+
			"max_version=(1, 0) or newer), or make a writable copy")
	}
	n := int(h.Ndim)
	if n < 0 || n > MaxNdim || n > len(shape) || n > len(strides) {
		return fmt.Errorf("%w: ndim is %d", ErrNdim, h.Ndim)
	}
	size := int64(1)
	for _, d := range shape[:n] {
		size *= d
	}
	itemsize := h.DType.ItemSize()
	if h.DType.IsSubByte() {
		if h.Flags&HeaderSubBytePadded != 0 {
			itemsize = 1
		} else if h.Offset != 0 || !isCContiguous(shape[:n], strides[:n]) {
			return fmt.Errorf("%w: only a whole C-contiguous packed sub-byte array can be exported", ErrSubByteView)
		}
	}
	var sh, st *int64
	if n > 0 {
		sh, st = &shape[0], &strides[0]
	}
	fillTensor(t, h, size, itemsize, sh, st)
	return nil
}
