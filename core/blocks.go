package core

import (
	"fmt"
	"iter"
	"slices"
	"unsafe"
)

// Buffered iteration (issue 37), numpy's nditer with buffering as the
// model: every element of an array, each once, handed to a loop in
// contiguous []T blocks, in the order its memory lies in rather than C
// order. For the loops whose answer does not depend on the order (a sum, a
// variance, an element-wise update), which then run at slice speed on any
// view: the typed kernels of core/kernels apply to each block.

// blockBytes is the size of a gathered block: small enough to stay in the
// first-level cache next to what the loop reads besides.
const blockBytes = 16 << 10

// minSliceRun is the shortest contiguous run handed out as a slice of the
// array's memory (but an array that is one run is handed out whole);
// shorter runs are packed into the block buffer, so that a loop body is not
// called for every two or three elements.
const minSliceRun = 64

// Blocks returns an iterator over every element of a in contiguous blocks
// of T, for reading and writing: a block is a slice of a's memory where a
// contiguous run of at least 64 elements (or the whole array) lies there, else the elements
// gathered into a buffer (16 KiB, reused) and written back when the step
// returns. The order is memory order, not C order: the axes are walked
// with the smallest stride innermost, negative strides reversed, axes that
// continue one another merged (a C- or Fortran-contiguous array of any
// shape is one block). T must match the dtype exactly (ErrDType); a
// read-only array returns ErrReadOnly (use ReadBlocks); a broadcast view
// (an axis of stride 0), whose elements share memory, returns ErrReadOnly
// too; memory the CPU cannot access ErrDevice. A block is valid during its
// step only. The iterator holds its own owner reference while a loop runs.
func Blocks[T Element](a *Array) (iter.Seq[[]T], error) {
	const where = "Blocks()"
	h, err := rowsCheck[T](where, a)
	if err == nil && h.ReadOnly() {
		err = fmt.Errorf("%s: array is read-only; read it with ReadBlocks, or Copy() it: %w", where, ErrReadOnly)
	}
	if err == nil && broadcasts(a.shape, a.strides) {
		err = fmt.Errorf("%s: a broadcast view (an axis of stride 0) holds each element once for many indices; "+
			"write to a Copy() of it: %w", where, ErrReadOnly)
	}
	if err != nil {
		return nil, err
	}
	shape, strides := a.shape, a.strides
	return func(yield func([]T) bool) {
		walkBlocks[T](a, where, shape, strides, true, yield)
	}, nil
}

// ReadBlocks is Blocks for reading: it accepts read-only arrays and
// broadcast views (an element an axis of stride 0 repeats comes once per
// index, as the array's values are), and yields each block as a Reader.
func ReadBlocks[T Element](a *Array) (iter.Seq[Reader[T]], error) {
	const where = "ReadBlocks()"
	if _, err := rowsCheck[T](where, a); err != nil {
		return nil, err
	}
	shape, strides := a.shape, a.strides
	return func(yield func(Reader[T]) bool) {
		walkBlocks[T](a, where, shape, strides, false, func(b []T) bool { return yield(Reader[T]{b}) })
	}, nil
}

func broadcasts(shape, strides []int64) bool {
	for i, d := range shape {
		if d > 1 && strides[i] == 0 {
			return true
		}
	}
	return false
}

// blockAxes is a layout in memory order: the offset (in elements) of the
// first element and the axes, outermost first, with the smallest stride
// last; size-1 axes dropped, negative strides reversed, axes merged where
// one continues the other. Zero elements: ok is false.
func blockAxes(off int64, shape, strides []int64) (first int64, dims, steps []int64, ok bool) {
	type axis struct{ n, s int64 }
	ax := make([]axis, 0, len(shape))
	for i, n := range shape {
		if n == 0 {
			return 0, nil, nil, false
		}
		if n == 1 {
			continue
		}
		s := strides[i]
		if s < 0 { // walk it forwards from its far end
			off += (n - 1) * s
			s = -s
		}
		ax = append(ax, axis{n, s})
	}
	slices.SortStableFunc(ax, func(x, y axis) int { // largest stride first
		switch {
		case x.s > y.s:
			return -1
		case x.s < y.s:
			return 1
		}
		return 0
	})
	for _, a := range ax {
		if k := len(dims) - 1; k >= 0 && steps[k] == a.s*a.n { // the last axis continues into this one
			dims[k] *= a.n
			steps[k] = a.s
			continue
		}
		dims, steps = append(dims, a.n), append(steps, a.s)
	}
	if len(dims) == 0 { // one element
		dims, steps = []int64{1}, []int64{1}
	}
	return off, dims, steps, true
}

// walkBlocks yields the blocks of the array over (shape, strides): runs of
// the innermost axis of stride 1 and at least minSliceRun elements as
// slices of the memory, everything else gathered into a buffer in memory
// order and, when write, scattered back after the step.
func walkBlocks[T Element](a *Array, where string, shape, strides []int64, write bool, yield func([]T) bool) {
	h, err := a.acquire(where)
	if err != nil {
		return // released before the loop started: nothing to yield
	}
	defer h.Owner.Release()
	first, dims, steps, ok := blockAxes(h.Offset, shape, strides)
	if !ok {
		return
	}
	var z T
	size := int64(unsafe.Sizeof(z))
	nd := len(dims)
	n, step := dims[nd-1], steps[nd-1]
	// the runs of the innermost axis: walkIndex over the outer axes from
	// the first element in memory order
	runs := Header{Data: h.Data, Offset: first, DType: h.DType}
	outer, outerSteps := dims[:nd-1], steps[:nd-1]
	if step == 1 && (n >= minSliceRun || nd == 1) { // a long run, or the whole array in one
		walkIndex(runs, outer, outerSteps, func(_ []int64, p unsafe.Pointer) bool {
			return yield(unsafe.Slice((*T)(p), n))
		})
		return
	}
	total := n
	for _, d := range outer {
		total *= d
	}
	buf := make([]T, min(total, max(blockBytes/size, 1)))
	// the pieces of runs the buffer holds, for the write-back
	type piece struct {
		p unsafe.Pointer
		k int
	}
	var pieces []piece
	fill := 0
	flush := func() bool {
		more := yield(buf[:fill])
		at := 0
		for _, pc := range pieces {
			scatter(pc.p, step*size, buf[at:at+pc.k])
			at += pc.k
		}
		pieces, fill = pieces[:0], 0
		return more
	}
	walkIndex(runs, outer, outerSteps, func(_ []int64, p unsafe.Pointer) bool {
		for left := int(n); left > 0; {
			k := min(left, len(buf)-fill)
			gather(p, step*size, buf[fill:fill+k])
			if write {
				pieces = append(pieces, piece{p, k})
			}
			p = unsafe.Add(p, int64(k)*step*size)
			left -= k
			if fill += k; fill == len(buf) && !flush() {
				return false
			}
		}
		return true
	})
	if fill > 0 {
		flush()
	}
}

// gather copies len(dst) elements spaced by stride bytes from p into dst;
// scatter is its inverse.
func gather[T Element](p unsafe.Pointer, stride int64, dst []T) {
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		d := (*[4]T)(dst[i : i+4])
		d[0] = *(*T)(p)
		d[1] = *(*T)(unsafe.Add(p, stride))
		d[2] = *(*T)(unsafe.Add(p, 2*stride))
		d[3] = *(*T)(unsafe.Add(p, 3*stride))
		p = unsafe.Add(p, 4*stride)
	}
	for ; i < len(dst); i++ {
		dst[i] = *(*T)(p)
		p = unsafe.Add(p, stride)
	}
}

func scatter[T Element](p unsafe.Pointer, stride int64, src []T) {
	for _, v := range src {
		*(*T)(p) = v
		p = unsafe.Add(p, stride)
	}
}
