package kernels

import "unsafe"

// The loaders of the reduction kernels (reduce.go): up to blk elements of
// the input converted into a buffer of the accumulator's type on the
// stack, or into truth values.

type realElem interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64
}

func ld[E realElem, A int64 | uint64 | float64](buf *[blk]A, p unsafe.Pointer, n, st int64) {
	for i := range buf[:n] {
		buf[i] = A(*(*E)(unsafe.Add(p, int64(i)*st)))
	}
}

func (r *Reducer) loadF(buf *[blk]float64, p unsafe.Pointer, n, st int64) {
	switch r.In {
	case Float16:
		for i := range buf[:n] {
			buf[i] = float64(Float16ToFloat32(*(*uint16)(unsafe.Add(p, int64(i)*st))))
		}
	case BFloat16:
		for i := range buf[:n] {
			buf[i] = float64(BFloat16ToFloat32(*(*uint16)(unsafe.Add(p, int64(i)*st))))
		}
	case Float32:
		ld[float32](buf, p, n, st)
	case Float64, Complex128: // complex into float: the real part (never planned)
		ld[float64](buf, p, n, st)
	case Complex64:
		ld[float32](buf, p, n, st)
	default:
		loadInts(r.In, buf, p, n, st)
	}
}

// loadInts loads n bools or integers st bytes apart into buf as A.
func loadInts[A int64 | uint64 | float64](in Kind, buf *[blk]A, p unsafe.Pointer, n, st int64) {
	switch in {
	case Bool, Uint8:
		ld[uint8](buf, p, n, st)
	case Int8:
		ld[int8](buf, p, n, st)
	case Int16:
		ld[int16](buf, p, n, st)
	case Int32:
		ld[int32](buf, p, n, st)
	case Int64:
		ld[int64](buf, p, n, st)
	case Uint16:
		ld[uint16](buf, p, n, st)
	case Uint32:
		ld[uint32](buf, p, n, st)
	case Uint64:
		ld[uint64](buf, p, n, st)
	}
}

func (r *Reducer) loadI(buf *[blk]int64, p unsafe.Pointer, n, st int64) {
	loadInts(r.In, buf, p, n, st)
}
func (r *Reducer) loadU(buf *[blk]uint64, p unsafe.Pointer, n, st int64) {
	loadInts(r.In, buf, p, n, st)
}

func (r *Reducer) loadC(buf *[blk]complex128, p unsafe.Pointer, n, st int64) {
	switch r.In {
	case Complex128:
		for i := range buf[:n] {
			buf[i] = *(*complex128)(unsafe.Add(p, int64(i)*st))
		}
	case Complex64:
		for i := range buf[:n] {
			buf[i] = complex128(*(*complex64)(unsafe.Add(p, int64(i)*st)))
		}
	default:
		var f [blk]float64
		r.loadF(&f, p, n, st)
		for i, v := range f[:n] {
			buf[i] = complex(v, 0)
		}
	}
}

func truth[E realElem](buf *[blk]bool, p unsafe.Pointer, n, st int64) {
	for i := range buf[:n] {
		buf[i] = *(*E)(unsafe.Add(p, int64(i)*st)) != 0
	}
}

// loadB loads truth values: non-zero (NaN included; -0.0 is false).
func (r *Reducer) loadB(buf *[blk]bool, p unsafe.Pointer, n, st int64) {
	switch r.In {
	case Bool, Int8, Uint8:
		truth[uint8](buf, p, n, st)
	case Int16, Uint16:
		truth[uint16](buf, p, n, st)
	case Int32, Uint32:
		truth[uint32](buf, p, n, st)
	case Int64, Uint64:
		truth[uint64](buf, p, n, st)
	case Float16, BFloat16:
		for i := range buf[:n] {
			buf[i] = *(*uint16)(unsafe.Add(p, int64(i)*st))&0x7fff != 0
		}
	case Float32:
		truth[float32](buf, p, n, st)
	case Float64:
		truth[float64](buf, p, n, st)
	case Complex64:
		for i := range buf[:n] {
			buf[i] = *(*complex64)(unsafe.Add(p, int64(i)*st)) != 0
		}
	case Complex128:
		for i := range buf[:n] {
			buf[i] = *(*complex128)(unsafe.Add(p, int64(i)*st)) != 0
		}
	}
}
