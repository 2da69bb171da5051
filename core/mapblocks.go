package core

import (
	"fmt"
	"iter"
	"slices"
	"unsafe"
)

// Buffered iteration over several operands (issue 37): an element-wise
// loop out = f(in0, in1, ...) on arrays of any layout, broadcasting as
// numpy's ufuncs do, handed contiguous blocks as Blocks hands one array's.

// MapBlocks returns an iterator over out and the inputs in step, for an
// element-wise loop: each step yields a block of out, to read and write,
// and a block of each input, to read, all of one length; element i of each
// block belongs to the same index of out. The inputs broadcast to out's
// shape as numpy's do (a row of shape (m,) against out (n, m) repeats for
// every row); out must have the broadcast shape. The axes are walked in
// out's memory order (smallest stride innermost, negative strides
// reversed, axes that continue one another in every operand merged). Where
// every operand's run along the innermost axis is contiguous and at least
// 64 elements long (or the whole array is one run), the blocks are the
// arrays' own memory; otherwise every operand is gathered into a buffer
// (16 KiB each, reused) and out's buffer is written back when the step
// returns, so a loop may read out's block before writing it (o[i] +=
// x.At(i)).
//
// An input whose memory overlaps out's, other than as the very same view,
// is read from a copy MapBlocks makes (ErrNoMemory if it cannot): the
// result is as if every input were read before out is written, numpy's
// rule for overlapping operands. The iterator runs once, and releases the
// copies when its loop ends. T must match every dtype (ErrDType); out read-only or
// broadcast returns ErrReadOnly; shapes that do not broadcast to out's
// ErrBroadcast; memory the CPU cannot access ErrDevice. Blocks are valid
// during their step only; the slice of Readers is reused between steps.
func MapBlocks[T Element](out *Array, ins ...*Array) (iter.Seq2[[]T, []Reader[T]], error) {
	const where = "MapBlocks()"
	h, err := rowsCheck[T](where, out)
	if err == nil && h.ReadOnly() {
		err = fmt.Errorf("%s: out is read-only; write into a Copy() of it: %w", where, ErrReadOnly)
	}
	if err == nil && broadcasts(out.shape, out.strides) {
		err = fmt.Errorf("%s: out is a broadcast view (an axis of stride 0), which holds each element once for "+
			"many indices; write into a Copy() of it: %w", where, ErrReadOnly)
	}
	for k := 0; err == nil && k < len(ins); k++ {
		if _, err = rowsCheck[T](where, ins[k]); err == nil {
			err = broadcastsTo(where, k, ins[k].shape, out.shape)
		}
	}
	if err != nil {
		return nil, err
	}
	ins = slices.Clone(ins)
	copies, err := copyOverlapping[T](where, out, ins)
	if err != nil {
		return nil, err
	}
	ran := false
	return func(yield func([]T, []Reader[T]) bool) {
		if ran {
			panic(where + ": the iterator runs once (its copies of overlapping inputs are gone); call MapBlocks again")
		}
		ran = true
		defer func() {
			for _, c := range copies {
				c.Release()
			}
		}()
		walkMap(where, out, ins, yield)
	}, nil
}

// copyOverlapping replaces each input whose memory overlaps out's, other
// than as out's very view, by a copy (read before out is written, as numpy
// does); the caller releases the copies.
func copyOverlapping[T Element](where string, out *Array, ins []*Array) ([]*Array, error) {
	var copies []*Array
	oh, err := out.live(where)
	if err != nil || out.Size() == 0 {
		return nil, err
	}
	var z T
	size := int64(unsafe.Sizeof(z))
	op := unsafe.Add(oh.Data, oh.Offset*size)
	for k, in := range ins {
		ih, err := in.live(where)
		if err == nil && in.Size() > 0 && overlapsOut(unsafe.Add(ih.Data, ih.Offset*size), in, op, out, size) {
			var c *Array
			if c, err = in.Copy(); err == nil {
				copies, ins[k] = append(copies, c), c
			}
		}
		if err != nil {
			for _, c := range copies {
				c.Release()
			}
			return nil, fmt.Errorf("%s: input %d overlaps out and could not be copied: %w", where, k, err)
		}
	}
	return copies, nil
}

// broadcastsTo checks that an input of shape in broadcasts to out's shape.
func broadcastsTo(where string, k int, in, out []int64) error {
	ok := len(in) <= len(out)
	for i := 1; ok && i <= len(in); i++ {
		d := in[len(in)-i]
		ok = d == 1 || d == out[len(out)-i]
	}
	if !ok {
		return errorf(ErrBroadcast, "%s: input %d of shape %s does not broadcast to out's shape %s; make each "+
			"dimension equal to out's or 1 (a.reshape(...), or index with None to add one)", where, k, npShape(in),
			npShape(out))
	}
	return nil
}

func walkMap[T Element](where string, out *Array, ins []*Array, yield func([]T, []Reader[T]) bool) {
	var z T
	size := int64(unsafe.Sizeof(z))
	nd := len(out.shape)
	oh, err := out.acquire(where)
	if err != nil {
		return // released before the loop started: nothing to yield
	}
	defer oh.Owner.Release()
	ops := make([]blockOperand, 1+len(ins))
	ops[0] = blockOperand{unsafe.Add(oh.Data, oh.Offset*size), out.strides}
	for k, in := range ins {
		ih, err := in.acquire(where)
		if err != nil {
			return
		}
		defer ih.Owner.Release()
		p := unsafe.Add(ih.Data, ih.Offset*size)
		st := make([]int64, nd)
		lead := nd - len(in.shape)
		for d, n := range in.shape {
			if n != 1 {
				st[lead+d] = in.strides[d]
			}
		}
		ops[1+k] = blockOperand{p, st}
	}
	for _, n := range out.shape {
		if n == 0 {
			return
		}
	}
	dims, steps := blockAxes(out.shape, ops, size)
	runBlocks(dims, steps, ops, size, true, yield)
}

// overlapsOut reports whether input in (element 0 at p) shares bytes with
// out other than as out's very view.
func overlapsOut(p unsafe.Pointer, in *Array, op unsafe.Pointer, out *Array, size int64) bool {
	lo, hi := extent(p, in.shape, in.strides, size)
	olo, ohi := extent(op, out.shape, out.strides, size)
	if lo >= ohi || olo >= hi {
		return false
	}
	return p != op || !slices.Equal(in.shape, out.shape) || !sameStrides(out.shape, in.strides, out.strides)
}
