package core

import (
	"fmt"
	"unsafe"
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
	var p plan
	p.k, p.fill = k, true
	p.dp = unsafe.Add(h.Data, h.Offset*k)
	p.sp = unsafe.Pointer(&elem[0])
	p.build(shape, strides, nil)
	p.run(size)
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

// walk calls f for every innermost row of a (fill-built) plan, serially.
func (p *plan) walk(f func(ptr unsafe.Pointer, n, stride int64)) {
	n := p.n
	if n == 0 {
		f(p.dp, 1, 0)
		return
	}
	outer := n - 1
	var idx [MaxNdim]int64
	var off int64
	for {
		f(unsafe.Add(p.dp, off), p.shape[n-1], p.ds[n-1])
		if !step(idx[:outer], p.shape[:outer], p.ds[:outer], nil, &off, nil) {
			return
		}
	}
}
