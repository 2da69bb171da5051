package core

import (
	"fmt"
	"iter"
	"runtime"
)

// What the extension kit (package gofunc) needs from Array: arrays lent to a
// Go function for one call, arrays a Go function keeps, arrays it hands back.

// Borrow returns an Array over h, shape and strides (copied) that holds no
// owner reference of its own: it is valid while the caller's reference to
// h.Owner lives, and the caller must Release it before dropping that
// reference. Release of a borrowed array only marks it released. Use Retain
// to keep the memory beyond the borrow. h.Ndim is set to len(shape).
func Borrow(h Header, shape, strides []int64) *Array {
	n := len(shape)
	var a *Array
	var buf []int64
	if n <= borrowInline {
		b := &borrowedArray{} // one allocation for the common ranks
		a, buf = &b.a, b.dims[:2*n]
	} else {
		a, buf = &Array{}, make([]int64, 2*n)
	}
	a.setBorrowed(h, shape, strides, buf)
	return a
}

// setBorrowed makes a a borrowed Array over h, shape and strides, copied
// into buf (at least 2*len(shape) entries): what Borrow, BorrowSlab.Borrow
// and LendSlot.Lend each hand out. An ownerless header is released at once.
func (a *Array) setBorrowed(h Header, shape, strides, buf []int64) {
	n := len(shape)
	a.hdr, a.borrowed, a.pinned, a.released, a.cleanup = h, true, true, h.Owner == nil, runtime.Cleanup{}
	a.shape = buf[:n:n]
	a.strides = buf[n : 2*n : 2*n]
	copy(a.shape, shape)
	copy(a.strides, strides)
	a.hdr.Ndim = int32(n)
}

const borrowInline = 8

type borrowedArray struct {
	a    Array
	dims [2 * borrowInline]int64
}

// BorrowSlab hands out borrowed Arrays (as Borrow does) cut from slabs: one
// of borrowSlabLen Arrays and one of their shapes and strides (no pointers:
// the collector does not scan it), so that a call allocates nothing but,
// now and then, a new slab. Each Array is handed out once and never reused,
// so a pointer kept beyond its borrow (without Retain) reads ErrReleased for
// good, as with Borrow; it keeps its slabs' memory alive while it lives.
// A BorrowSlab is not safe for concurrent use: its owner (a call's frame)
// serves one call at a time. The zero value is ready to use.
type BorrowSlab struct {
	arrays []Array
	dims   []int64
}

const (
	borrowSlabLen  = 32
	borrowSlabDims = 4 * borrowSlabLen // room for 32 arrays of 2 dimensions
)

// Borrow returns an Array over h, shape and strides as core.Borrow does.
func (s *BorrowSlab) Borrow(h Header, shape, strides []int64) *Array {
	n := len(shape)
	if len(s.arrays) == 0 {
		s.arrays = make([]Array, borrowSlabLen)
	}
	if len(s.dims) < 2*n {
		s.dims = make([]int64, max(borrowSlabDims, 2*n))
	}
	a := &s.arrays[0]
	s.arrays = s.arrays[1:]
	a.setBorrowed(h, shape, strides, s.dims)
	s.dims = s.dims[2*n:]
	return a
}

// LendSlot is storage for one borrowed Array that is lent again and again,
// one call at a time, without allocating: the same object each time. It is
// for callers whose code promises to keep no pointer to a lent Array beyond
// the call (gofunc.Quick), and who lend from one thread at a time (the
// skin holds the GIL): Lend and Return take no lock, which would cost more
// than the rest of a Quick call's bookkeeping. A pointer kept anyway
// breaks that promise: it reads ErrReleased until the slot is lent again,
// and after that whatever the slot holds, a later call's array, possibly
// while Lend writes it.
type LendSlot struct{ b borrowedArray }

// Lend returns the slot's Array over h, shape and strides, as Borrow does;
// the slot's previous Array (the same object) must have been returned.
// Arrays of more than 8 dimensions are borrowed afresh (Borrow).
func (s *LendSlot) Lend(h Header, shape, strides []int64) *Array {
	n := len(shape)
	if n > borrowInline {
		return Borrow(h, shape, strides)
	}
	a := &s.b.a
	a.setBorrowed(h, shape, strides, s.b.dims[:])
	return a
}

// Return ends the lending of a, which Lend handed out: it reads
// ErrReleased from now on (an Array Lend borrowed afresh is released).
func (s *LendSlot) Return(a *Array) {
	if a != &s.b.a {
		a.Release()
		return
	}
	a.released = true
}

// Retain returns a new Array over the same memory, shape and strides that
// holds a reference of its own: it stays valid after a is released (and
// after the call that lent a borrowed array returns) until it is released
// itself; the last reference frees the memory or calls the producer's
// deleter. Errors: ErrReleased.
func (a *Array) Retain() (*Array, error) {
	h, err := a.acquire("Retain()")
	if err != nil {
		return nil, err
	}
	return newOwnedArray(h, a.shape, a.strides), nil
}

// AcquireHeader writes a's header with a new owner reference into out, and
// its shape and strides into shape and strides (each at least Ndim long),
// for a caller that keeps the memory in a structure of its own (the CPython
// skin's Array objects); the caller releases out.Owner. Errors: ErrReleased,
// ErrInternal (buffers too short).
func (a *Array) AcquireHeader(out *Header, shape, strides []int64) error {
	if len(shape) < len(a.shape) || len(strides) < len(a.shape) {
		return fmt.Errorf("AcquireHeader(): buffers hold %d and %d entries, %d needed: %w", len(shape), len(strides), len(a.shape), ErrInternal)
	}
	h, err := a.acquire("AcquireHeader()")
	if err != nil {
		return err
	}
	*out = h
	copy(shape, a.shape)
	copy(strides, a.strides)
	return nil
}

// Reader reads the elements of a C-contiguous array in place and cannot
// write them: ReadSlice hands one out for read-only arrays too. It is valid
// until the array is released.
type Reader[T Element] struct{ s []T }

// ReadSlice returns a Reader over the elements of a C-contiguous array, for
// read-only arrays as well as writable ones. Errors as for AsSlice, except
// ErrReadOnly.
func ReadSlice[T Element](a *Array) (Reader[T], error) {
	const where = "ReadSlice()"
	h, err := a.live(where)
	if err != nil {
		return Reader[T]{}, err
	}
	s, err := asSlice[T](where, a, h)
	return Reader[T]{s}, err
}

// Len returns the number of elements.
func (r Reader[T]) Len() int { return len(r.s) }

// At returns element i (C order); it panics when i is out of range, like a
// slice index.
func (r Reader[T]) At(i int) T { return r.s[i] }

// CopyTo copies the elements into dst and returns how many were copied.
func (r Reader[T]) CopyTo(dst []T) int { return copy(dst, r.s) }

// All iterates over the index and value of every element.
func (r Reader[T]) All() iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		for i, v := range r.s {
			if !yield(i, v) {
				return
			}
		}
	}
}
