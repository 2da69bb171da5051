package core

import (
	"fmt"
	"iter"
	"unsafe"

	"github.com/godlpack/godlpack/core/kernels"
)

// All returns an iterator over the elements of a in C (row-major) order,
// whatever its strides (negative and zero strides included), yielding each
// element's index and value. A loop started after a is released yields
// nothing. The index slice is reused between steps: copy
// it to keep it (modifying it does not disturb the iteration). T must match the dtype exactly (ErrDType). The iterator
// holds its own owner reference while a loop runs, so releasing a during the
// loop is safe.
func All[T Element](a *Array) (iter.Seq2[[]int64, T], error) {
	const where = "All()"
	h, err := a.live(where)
	if err != nil {
		return nil, err
	}
	if h.DType != DataTypeOf[T]() {
		return nil, typeErr[T](where, h.DType)
	}
	if !h.hostAccessible() {
		return nil, fmt.Errorf("%s: %v memory is not accessible from the CPU: %w", where, h.Device, ErrDevice)
	}
	shape, strides := a.shape, a.strides
	return func(yield func([]int64, T) bool) {
		h, err := a.acquire(where)
		if err != nil {
			return // released before the loop started: nothing to yield
		}
		defer h.Owner.Release()
		walkIndex(h, shape, strides, func(idx []int64, p unsafe.Pointer) bool {
			return yield(idx, *(*T)(p))
		})
	}, nil
}

// Values returns an iterator over the values of a in C order (see All).
func Values[T Element](a *Array) (iter.Seq[T], error) {
	all, err := All[T](a)
	if err != nil {
		return nil, err
	}
	return func(yield func(T) bool) {
		for _, v := range all {
			if !yield(v) {
				return
			}
		}
	}, nil
}

// walkIndex calls f with every index in C order and the element's address,
// until f returns false.
func walkIndex(h Header, shape, strides []int64, f func([]int64, unsafe.Pointer) bool) {
	nd := len(shape)
	for _, d := range shape {
		if d == 0 {
			return
		}
	}
	k := h.DType.ItemSize()
	idx := make([]int64, nd)
	pub := make([]int64, nd) // what f sees; f may modify it
	off := h.Offset
	for {
		copy(pub, idx)
		if !f(pub, unsafe.Add(h.Data, off*k)) {
			return
		}
		if !kernels.Step(idx, shape, strides, nil, &off, nil) {
			return
		}
	}
}
