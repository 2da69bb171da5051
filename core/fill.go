package core

import (
	"fmt"
	"unsafe"

	"github.com/godlpack/godlpack/core/kernels"
)

// Fill writes the element elem (exactly one element's bytes, native byte
// order) to every element of the array described by h, shape and strides.
// It runs in parallel for large arrays unless SetSerial(true), and does not
// allocate on the Go heap on the serial path.
//
// Errors: ErrReadOnly, ErrDType (len(elem) is not the item size),
// ErrSubByteView, ErrDevice, ErrShape, ErrNullData.
func Fill(h *Header, shape, strides []int64, elem []byte) error {
	const where = "fill()"
	if h.ReadOnly() {
		return fmt.Errorf("%s: array is read-only: %w", where, ErrReadOnly)
	}
	if h.DType.IsSubByte() {
		return subByteErr(where, h)
	}
	k := h.DType.ItemSize()
	if k <= 0 || int64(len(elem)) != k {
		return fmt.Errorf("%s: fill value has %d bytes, %v needs %d: %w", where, len(elem), h.DType, k, ErrDType)
	}
	if !h.hostAccessible() && backendOf(h.Device.Type) != nil {
		hh := *h
		hh.Flags |= HeaderHost // checkWalk's device check: the backend stages it
		size, err := checkWalk(where, &hh, shape, strides)
		if err != nil || size == 0 {
			return err
		}
		return fillDevice(where, h, shape, strides, elem, k, size)
	}
	size, err := checkWalk(where, h, shape, strides)
	if err != nil || size == 0 {
		return err
	}
	kernels.Fill(unsafe.Add(h.Data, h.Offset*k), strides, unsafe.Pointer(&elem[0]), shape, k, size)
	return nil
}

// checkWalk validates what Fill and Sum need and returns the element count.
func checkWalk(where string, h *Header, shape, strides []int64) (int64, error) {
	if len(shape) != len(strides) || len(shape) > MaxNdim {
		return 0, fmt.Errorf("%s: %d dimensions with %d strides: %w", where, len(shape), len(strides), ErrShape)
	}
	if !h.hostAccessible() {
		return 0, notHostErr(where, h)
	}
	size, err := shapeSize(where, shape)
	if err != nil {
		return 0, err
	}
	if size > 0 && h.Data == nil {
		return 0, fmt.Errorf("%s: %w", where, ErrNullData)
	}
	return size, nil
}
