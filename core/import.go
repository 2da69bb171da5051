package core

/*
#include "godlpack.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// ImportVersioned takes ownership of m, a DLManagedTensorVersioned in C
// memory, and returns an Array viewing its memory without copying. The rules
// are those of DescribeVersioned; READ_ONLY makes the array read-only.
//
// Ownership: from the call on, m belongs to godlpack. On any failure the
// deleter of m has been called exactly once before ImportVersioned returns
// (a NULL deleter is simply not called). On success it is called exactly
// once, in C, when the last Array sharing the memory (views included, even
// views that outlive the array returned here) is released.
func ImportVersioned(m *DLManagedTensorVersioned) (*Array, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: NULL DLManagedTensorVersioned", ErrInternal)
	}
	var h Header
	var shape, strides [MaxNdim]int64
	if err := DescribeVersioned(m, &h, shape[:], strides[:]); err != nil {
		C.gd_call_deleter_versioned((*C.DLManagedTensorVersioned)(unsafe.Pointer(m)))
		return nil, err
	}
	o, err := NewOwner(OwnVersioned, unsafe.Pointer(m), nil)
	if err != nil {
		C.gd_call_deleter_versioned((*C.DLManagedTensorVersioned)(unsafe.Pointer(m)))
		return nil, err
	}
	return adopt(&h, o, shape[:h.Ndim], strides[:h.Ndim]), nil
}

// ImportLegacy is ImportVersioned for a legacy DLManagedTensor. Legacy
// tensors cannot say whether they are writable; the array is writable (see
// DescribeLegacy).
func ImportLegacy(m *DLManagedTensor) (*Array, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: NULL DLManagedTensor", ErrInternal)
	}
	var h Header
	var shape, strides [MaxNdim]int64
	if err := DescribeLegacy(m, &h, shape[:], strides[:]); err != nil {
		C.gd_call_deleter_legacy((*C.DLManagedTensor)(unsafe.Pointer(m)))
		return nil, err
	}
	o, err := NewOwner(OwnLegacy, unsafe.Pointer(m), nil)
	if err != nil {
		C.gd_call_deleter_legacy((*C.DLManagedTensor)(unsafe.Pointer(m)))
		return nil, err
	}
	return adopt(&h, o, shape[:h.Ndim], strides[:h.Ndim]), nil
}

// adopt wraps a described tensor and its fresh owner (one reference) in an
// Array. NewArray takes its own reference; ours is dropped, so the Array
// holds the only one.
func adopt(h *Header, o *Owner, shape, strides []int64) *Array {
	h.Owner = o
	a := NewArray(*h, shape, strides)
	o.Release()
	return a
}
