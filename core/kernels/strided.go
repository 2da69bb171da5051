package kernels

import (
	"runtime"
	"unsafe"
)

// Strided copy kernels.
//
// A copy is planned once: dimensions of length 1 are dropped, dimensions
// where the destination stride is negative are flipped (both sides), the
// dimensions are ordered by decreasing destination stride, and neighbours
// that are contiguous with each other on both sides are merged. What is left
// runs as
//
//   - one memmove when both sides are contiguous;
//   - a cache-blocked 2-D transpose (32×32 tiles) over the two innermost
//     dimensions when the source's fastest axis is not the destination's
//     (a.T.copy(), C↔Fortran order, batched transposes);
//   - otherwise an inner loop specialised for element sizes 1, 2, 4, 8 and
//     16 bytes (a per-element memmove for other sizes) under an odometer over
//     the outer dimensions.
//
// Copies of at least parallelMin bytes are split along the outermost
// dimension across GOMAXPROCS goroutines, unless SetSerial(true) was called.
// Nothing is allocated on the Go
// heap on the serial path.

// loop is the nest of loops of a copy, fill or conversion: the dimensions
// of more than one element, strides in bytes, each destination stride
// positive.
type loop struct {
	n      int
	shape  [MaxNdim]int64
	ds, ss [MaxNdim]int64
	dp, sp unsafe.Pointer
}

// load fills l from shape and element strides of dsize and ssize bytes (dp
// and sp point to element 0; ssize 0: a fill, whose source is one element
// and srcStrides is ignored). Dimensions with a negative destination stride
// are flipped, the rest ordered by decreasing destination stride (ties by
// decreasing |source stride|; a stable insertion sort) and neighbours
// contiguous on both sides merged.
func (l *loop) load(shape, dstStrides, srcStrides []int64, dsize, ssize int64) {
	n := 0
	for i, e := range shape {
		if e == 1 {
			continue
		}
		l.shape[n], l.ds[n], l.ss[n] = e, dstStrides[i]*dsize, 0
		if ssize != 0 {
			l.ss[n] = srcStrides[i] * ssize
		}
		if l.ds[n] < 0 {
			l.dp = unsafe.Add(l.dp, (e-1)*l.ds[n])
			l.sp = unsafe.Add(l.sp, (e-1)*l.ss[n])
			l.ds[n], l.ss[n] = -l.ds[n], -l.ss[n]
		}
		n++
	}
	l.n = orderAxes(l.shape[:n], l.ds[:n], l.ss[:n])
}

// plan is a copy or fill of elements of k bytes.
type plan struct {
	loop
	k    int64
	fill bool // sp points to one element (the fill value)
}

// build fills p from element strides; dp and sp point to element 0 and size
// must be > 0. srcStrides is ignored for a fill.
func (p *plan) build(shape, dstStrides, srcStrides []int64) {
	ssize := p.k
	if p.fill {
		ssize = 0
	}
	p.load(shape, dstStrides, srcStrides, p.k, ssize)
}

// run executes the plan, in parallel when large enough.
func (p *plan) run(size int64) {
	if p.n >= 1 && size*p.k >= parallelMin && !Serial() {
		w := int64(runtime.GOMAXPROCS(0))
		if w > p.shape[0] {
			w = p.shape[0]
		}
		if w > 1 {
			p.runParallel(w)
			return
		}
	}
	p.exec()
}

func (p *plan) runParallel(w int64) {
	q := *p
	splitRange(0, q.shape[0], w, func(lo, hi int64) {
		sub := q
		sub.shape[0] = hi - lo
		sub.dp = unsafe.Add(q.dp, lo*q.ds[0])
		if !q.fill {
			sub.sp = unsafe.Add(q.sp, lo*q.ss[0])
		}
		sub.exec()
	})
}

// exec runs the plan on the calling goroutine.
func (p *plan) exec() {
	n := p.n
	if n == 0 {
		p.body1(p.dp, p.sp, 1, 0, 0)
		return
	}
	innerDims := 1
	if !p.fill && n >= 2 && p.k <= 16 && p.k&(p.k-1) == 0 &&
		abs64(p.ss[n-1]) > abs64(p.ss[n-2]) && p.shape[n-1] >= 8 && p.shape[n-2] >= 8 {
		innerDims = 2
	}
	outer := n - innerDims
	var idx [MaxNdim]int64
	var doff, soff int64
	for {
		dp, sp := unsafe.Add(p.dp, doff), p.sp
		if !p.fill {
			sp = unsafe.Add(p.sp, soff)
		}
		if innerDims == 1 {
			p.body1(dp, sp, p.shape[n-1], p.ds[n-1], p.ss[n-1])
		} else {
			p.body2(dp, sp, n)
		}
		if !Step(idx[:outer], p.shape[:outer], p.ds[:outer], p.ss[:outer], &doff, &soff) {
			return
		}
	}
}

// body1 copies (or fills) n elements with byte strides ds, ss.
func (p *plan) body1(dp, sp unsafe.Pointer, n, ds, ss int64) {
	k := p.k
	if p.fill {
		fillInner(dp, sp, n, ds, k)
		return
	}
	if ds == k && ss == k {
		copy(unsafe.Slice((*byte)(dp), n*k), unsafe.Slice((*byte)(sp), n*k))
		return
	}
	switch k {
	case 1:
		stridedCopy[uint8](dp, sp, n, ds, ss)
	case 2:
		stridedCopy[uint16](dp, sp, n, ds, ss)
	case 4:
		stridedCopy[uint32](dp, sp, n, ds, ss)
	case 8:
		stridedCopy[uint64](dp, sp, n, ds, ss)
	case 16:
		stridedCopy[[2]uint64](dp, sp, n, ds, ss)
	default:
		for i := int64(0); i < n; i++ {
			copy(unsafe.Slice((*byte)(unsafe.Add(dp, i*ds)), k), unsafe.Slice((*byte)(unsafe.Add(sp, i*ss)), k))
		}
	}
}

// body2 is the blocked transpose over the two innermost dimensions.
func (p *plan) body2(dp, sp unsafe.Pointer, n int) {
	n0, n1 := p.shape[n-2], p.shape[n-1]
	d0, d1, s0, s1 := p.ds[n-2], p.ds[n-1], p.ss[n-2], p.ss[n-1]
	switch p.k {
	case 1:
		tileCopy[uint8](dp, sp, n0, n1, d0, d1, s0, s1)
	case 2:
		tileCopy[uint16](dp, sp, n0, n1, d0, d1, s0, s1)
	case 4:
		tileCopy[uint32](dp, sp, n0, n1, d0, d1, s0, s1)
	case 8:
		tileCopy[uint64](dp, sp, n0, n1, d0, d1, s0, s1)
	default:
		tileCopy[[2]uint64](dp, sp, n0, n1, d0, d1, s0, s1)
	}
}

// stridedCopy walks both pointers, eight elements a step (no multiply per
// element): the eight loads are issued before the stores, so that the
// strided reads, which miss the cache most, overlap.
func stridedCopy[E any](dp, sp unsafe.Pointer, n, ds, ss int64) {
	s2, s3, s4, s5, s6, s7 := 2*ss, 3*ss, 4*ss, 5*ss, 6*ss, 7*ss
	d2, d3, d4, d5, d6, d7 := 2*ds, 3*ds, 4*ds, 5*ds, 6*ds, 7*ds
	i := int64(0)
	for ; i+8 <= n; i += 8 {
		a0 := *(*E)(sp)
		a1 := *(*E)(unsafe.Add(sp, ss))
		a2 := *(*E)(unsafe.Add(sp, s2))
		a3 := *(*E)(unsafe.Add(sp, s3))
		a4 := *(*E)(unsafe.Add(sp, s4))
		a5 := *(*E)(unsafe.Add(sp, s5))
		a6 := *(*E)(unsafe.Add(sp, s6))
		a7 := *(*E)(unsafe.Add(sp, s7))
		*(*E)(dp) = a0
		*(*E)(unsafe.Add(dp, ds)) = a1
		*(*E)(unsafe.Add(dp, d2)) = a2
		*(*E)(unsafe.Add(dp, d3)) = a3
		*(*E)(unsafe.Add(dp, d4)) = a4
		*(*E)(unsafe.Add(dp, d5)) = a5
		*(*E)(unsafe.Add(dp, d6)) = a6
		*(*E)(unsafe.Add(dp, d7)) = a7
		dp, sp = unsafe.Add(dp, 8*ds), unsafe.Add(sp, 8*ss)
	}
	for ; i < n; i++ {
		*(*E)(dp) = *(*E)(sp)
		dp, sp = unsafe.Add(dp, ds), unsafe.Add(sp, ss)
	}
}

// tile is the edge of the square blocks of the transpose path (elements).
const tile = 32

func tileCopy[E any](dp, sp unsafe.Pointer, n0, n1, d0, d1, s0, s1 int64) {
	for i0 := int64(0); i0 < n0; i0 += tile {
		i1 := min(i0+tile, n0)
		for j0 := int64(0); j0 < n1; j0 += tile {
			j1 := min(j0+tile, n1)
			for i := i0; i < i1; i++ {
				dr, sr := unsafe.Add(dp, i*d0), unsafe.Add(sp, i*s0)
				for j := j0; j < j1; j++ {
					*(*E)(unsafe.Add(dr, j*d1)) = *(*E)(unsafe.Add(sr, j*s1))
				}
			}
		}
	}
}

// fillInner writes the k-byte element at vp to n elements at byte stride ds.
func fillInner(dp, vp unsafe.Pointer, n, ds, k int64) {
	if ds == k && n > 1 {
		// Contiguous: write one element, then double the filled prefix.
		buf := unsafe.Slice((*byte)(dp), n*k)
		copy(buf[:k], unsafe.Slice((*byte)(vp), k))
		for filled := k; filled < n*k; filled *= 2 {
			copy(buf[filled:], buf[:filled])
		}
		return
	}
	switch k {
	case 1:
		stridedFill(dp, *(*uint8)(vp), n, ds)
	case 2:
		stridedFill(dp, *(*uint16)(vp), n, ds)
	case 4:
		stridedFill(dp, *(*uint32)(vp), n, ds)
	case 8:
		stridedFill(dp, *(*uint64)(vp), n, ds)
	case 16:
		stridedFill(dp, *(*[2]uint64)(vp), n, ds)
	default:
		v := unsafe.Slice((*byte)(vp), k)
		for i := int64(0); i < n; i++ {
			copy(unsafe.Slice((*byte)(unsafe.Add(dp, i*ds)), k), v)
		}
	}
}

func stridedFill[E any](dp unsafe.Pointer, v E, n, ds int64) {
	for i := int64(0); i < n; i++ {
		*(*E)(unsafe.Add(dp, i*ds)) = v
	}
}

// Copy copies size > 0 elements of k bytes from the layout (shape,
// srcStrides) at sp to the layout (shape, dstStrides) at dp, strides in
// elements, sp and dp at element 0. The two must not overlap unless they
// are the same layout (core goes through a temporary otherwise).
func Copy(dp unsafe.Pointer, dstStrides []int64, sp unsafe.Pointer, srcStrides []int64, shape []int64, k, size int64) {
	var p plan
	p.k, p.dp, p.sp = k, dp, sp
	p.build(shape, dstStrides, srcStrides)
	p.run(size)
}

// Fill writes the k-byte element at elem to each of the size > 0 elements
// of the layout (shape, strides) at dp.
func Fill(dp unsafe.Pointer, strides []int64, elem unsafe.Pointer, shape []int64, k, size int64) {
	var p plan
	p.k, p.fill = k, true
	p.dp, p.sp = dp, elem
	p.build(shape, strides, nil)
	p.run(size)
}
