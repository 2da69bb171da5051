package core

import (
	"fmt"
	"iter"
	"unsafe"
)

// Rows returns an iterator over the rows of a (its last axis) in C order,
// whatever its strides: each step yields the indices of the row on the
// leading axes and the row as a []T. A row of unit stride is a slice of a's
// memory; any other row (a transposed or stepped view) is gathered into a
// buffer reused between steps and written back when the step returns, so a
// loop body reads and writes rows at slice speed either way. A 0-d array is
// one row of one element. The indices slice is reused between steps. T must
// match the dtype exactly (ErrDType); a read-only array returns ErrReadOnly
// (use ReadRows); memory the CPU cannot access ErrDevice. The iterator holds
// its own owner reference while a loop runs.
func Rows[T Element](a *Array) (iter.Seq2[[]int64, []T], error) {
	const where = "Rows()"
	h, err := rowsCheck[T](where, a)
	if err == nil && h.ReadOnly() {
		err = fmt.Errorf("%s: array is read-only; read it with ReadRows, or Copy() it: %w", where, ErrReadOnly)
	}
	if err != nil {
		return nil, err
	}
	shape, strides := a.shape, a.strides
	return func(yield func([]int64, []T) bool) {
		walkRows[T](a, where, shape, strides, true, yield)
	}, nil
}

// ReadRows is Rows for reading: it accepts read-only arrays and yields each
// row as a Reader.
func ReadRows[T Element](a *Array) (iter.Seq2[[]int64, Reader[T]], error) {
	const where = "ReadRows()"
	if _, err := rowsCheck[T](where, a); err != nil {
		return nil, err
	}
	shape, strides := a.shape, a.strides
	return func(yield func([]int64, Reader[T]) bool) {
		walkRows[T](a, where, shape, strides, false, func(idx []int64, row []T) bool { return yield(idx, Reader[T]{row}) })
	}, nil
}

func rowsCheck[T Element](where string, a *Array) (Header, error) {
	h, err := a.live(where)
	if err != nil {
		return h, err
	}
	if h.DType != DataTypeOf[T]() {
		return h, typeErr[T](where, h.DType)
	}
	if !h.hostAccessible() {
		return h, fmt.Errorf("%s: %v memory is not accessible from the CPU: %w", where, h.Device, ErrDevice)
	}
	return h, nil
}

// walkRows yields every row of the array over h; a row of another stride
// than 1 goes through a buffer, written back after the step when write.
func walkRows[T Element](a *Array, where string, shape, strides []int64, write bool, yield func([]int64, []T) bool) {
	h, err := a.acquire(where)
	if err != nil {
		return // released before the loop started: nothing to yield
	}
	defer h.Owner.Release()
	nd := len(shape)
	n, step := int64(1), int64(1)
	if nd > 0 {
		n, step = shape[nd-1], strides[nd-1]
		shape, strides = shape[:nd-1], strides[:nd-1]
	}
	if n == 0 {
		return
	}
	var buf []T
	if step != 1 && n > 1 {
		buf = make([]T, n)
	}
	walkIndex(h, shape, strides, func(idx []int64, p unsafe.Pointer) bool {
		if buf == nil {
			return yield(idx, unsafe.Slice((*T)(p), n))
		}
		for i := range buf {
			buf[i] = *(*T)(unsafe.Add(p, int64(i)*step*int64(unsafe.Sizeof(buf[0]))))
		}
		more := yield(idx, buf)
		if write {
			for i, v := range buf {
				*(*T)(unsafe.Add(p, int64(i)*step*int64(unsafe.Sizeof(buf[0])))) = v
			}
		}
		return more
	})
}
