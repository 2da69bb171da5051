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
// step only (CheckBlocks catches one kept longer). The iterator holds its own owner reference while a loop runs.
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

// walkBlocks yields the blocks of the array over (shape, strides), one
// operand of the walk MapBlocks makes over several.
func walkBlocks[T Element](a *Array, where string, shape, strides []int64, write bool, yield func([]T) bool) {
	h, err := a.acquire(where)
	if err != nil {
		return // released before the loop started: nothing to yield
	}
	defer h.Owner.Release()
	for _, n := range shape {
		if n == 0 {
			return
		}
	}
	var z T
	size := int64(unsafe.Sizeof(z))
	ops := []blockOperand{{unsafe.Add(h.Data, h.Offset*size), strides}}
	dims, steps := blockAxes(shape, ops, size)
	runBlocks(dims, steps, ops, size, write, func(b []T, _ []Reader[T]) bool { return yield(b) })
}

// blockOperand is one operand of a walk: the address of its element 0 and
// its strides (in elements) over the walk's axes (the first operand's), 0
// where it broadcasts.
type blockOperand struct {
	p       unsafe.Pointer
	strides []int64
}

// blockAxes is the walk's layout in memory order, the first operand's:
// size-1 axes dropped, its negative strides reversed in every operand (ops'
// addresses move to the far end), its largest stride first, axes merged
// where one continues the other in every operand (a C- or
// Fortran-contiguous array is one axis). steps[axis][operand].
func blockAxes(shape []int64, ops []blockOperand, size int64) (dims []int64, steps [][]int64) {
	type axis struct {
		n int64
		s []int64
	}
	ax := make([]axis, 0, len(shape))
	for d, n := range shape {
		if n == 1 {
			continue
		}
		s := make([]int64, len(ops))
		for k := range ops {
			s[k] = ops[k].strides[d]
		}
		if s[0] < 0 {
			for k := range ops {
				ops[k].p = unsafe.Add(ops[k].p, (n-1)*s[k]*size)
				s[k] = -s[k]
			}
		}
		ax = append(ax, axis{n, s})
	}
	slices.SortStableFunc(ax, func(x, y axis) int { // largest first stride first
		switch {
		case x.s[0] > y.s[0]:
			return -1
		case x.s[0] < y.s[0]:
			return 1
		}
		return 0
	})
	for _, a := range ax {
		if j := len(dims) - 1; j >= 0 && continues(steps[j], a.s, a.n) {
			dims[j] *= a.n
			steps[j] = a.s
			continue
		}
		dims, steps = append(dims, a.n), append(steps, a.s)
	}
	if len(dims) == 0 { // one element: a run of one in every operand
		ones := make([]int64, len(ops))
		for k := range ones {
			ones[k] = 1
		}
		dims, steps = []int64{1}, [][]int64{ones}
	}
	return dims, steps
}

// continues reports whether, in every operand, the outer axis's stride is
// the inner one's times its length.
func continues(outer, inner []int64, n int64) bool {
	for k := range outer {
		if outer[k] != inner[k]*n {
			return false
		}
	}
	return true
}

// runBlocks walks the runs of the innermost axis (dims, steps from
// blockAxes) and hands them to yield, the first operand's block and a
// Reader of each other's: as the operands' memory where every operand's run
// is contiguous and at least minSliceRun long (or the walk is one run), else
// gathered into one buffer per operand, the first's written back after
// each step when write.
func runBlocks[T Element](dims []int64, steps [][]int64, ops []blockOperand, size int64, write bool,
	yield func([]T, []Reader[T]) bool) {
	if blockCheck.Load() {
		yield = checkedSteps(write, yield)
	}
	nd, nops := len(dims), len(ops)
	n, inner := dims[nd-1], steps[nd-1]
	outer, outerSteps := dims[:nd-1], steps[:nd-1]
	readers := make([]Reader[T], nops-1)
	ptrs := make([]unsafe.Pointer, nops)
	for k := range ops {
		ptrs[k] = ops[k].p
	}
	direct := n >= minSliceRun || nd == 1
	for _, s := range inner {
		direct = direct && s == 1
	}
	var bufs [][]T
	var fill int
	type piece struct {
		p unsafe.Pointer
		k int
	}
	var pieces []piece
	flush := func() bool {
		for k := range readers {
			readers[k] = Reader[T]{bufs[1+k][:fill]}
		}
		more := yield(bufs[0][:fill], readers)
		at := 0
		for _, pc := range pieces {
			scatter(pc.p, inner[0]*size, bufs[0][at:at+pc.k])
			at += pc.k
		}
		pieces, fill = pieces[:0], 0
		return more
	}
	if !direct {
		total := n
		for _, d := range outer {
			total *= d
		}
		bufs = make([][]T, nops)
		for k := range bufs {
			bufs[k] = make([]T, min(total, max(blockBytes/size, 1)))
		}
	}
	idx := make([]int64, len(outer))
	for {
		if direct {
			for k := range readers {
				readers[k] = Reader[T]{unsafe.Slice((*T)(ptrs[1+k]), n)}
			}
			if !yield(unsafe.Slice((*T)(ptrs[0]), n), readers) {
				return
			}
		} else {
			for done := int64(0); done < n; {
				k := min(n-done, int64(len(bufs[0])-fill))
				for op := range ops {
					gather(unsafe.Add(ptrs[op], done*inner[op]*size), inner[op]*size, bufs[op][fill:fill+int(k)])
				}
				if write {
					pieces = append(pieces, piece{unsafe.Add(ptrs[0], done*inner[0]*size), int(k)})
				}
				done += k
				if fill += int(k); fill == len(bufs[0]) && !flush() {
					return
				}
			}
		}
		j := len(outer) - 1
		for ; j >= 0; j-- {
			idx[j]++
			for k := range ptrs {
				ptrs[k] = unsafe.Add(ptrs[k], outerSteps[j][k]*size)
			}
			if idx[j] < outer[j] {
				break
			}
			for k := range ptrs {
				ptrs[k] = unsafe.Add(ptrs[k], -outerSteps[j][k]*outer[j]*size)
			}
			idx[j] = 0
		}
		if j < 0 {
			break
		}
	}
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
