package kernels

import (
	"runtime"
	"unsafe"
)

// Conversions between dtypes (astype), with numpy's casting results:
// float -> int truncates toward zero (out of range and NaN give whatever
// the hardware gives, as in numpy: never a crash); complex -> real drops
// the imaginary part; x -> bool is x != 0 (NaN is true); bool -> x is 0 or
// 1; int -> float and float -> narrower float round to nearest even;
// float16, bfloat16 and float8 as in narrow.go.
//
// A conversion is planned like a copy (strided.go): dimensions of length 1
// dropped, negative destination strides flipped, dimensions ordered by
// decreasing destination stride and merged where both sides allow; then a
// row kernel chosen once for the dtype pair runs under an odometer over the
// outer dimensions. Large conversions split along the outermost dimension
// across GOMAXPROCS goroutines unless SetSerial(true). Nothing is allocated
// on the Go heap on the serial path.

// ckind is a dtype as the conversion kernels see it.
type ckind uint8

const (
	kBool ckind = iota
	kI8
	kI16
	kI32
	kI64
	kU8
	kU16
	kU32
	kU64
	kF32
	kF64 // last native kind: Go has a type for kBool+1..kF64
	kC64
	kC128
	kF16
	kBF16
	kF8
)

func (k ckind) native() bool  { return k >= kI8 && k <= kF64 }
func (k ckind) complex() bool { return k == kC64 || k == kC128 }
func (k ckind) narrow() bool  { return k >= kF16 }

// convSide is one side of a conversion: its kind, float8 table index and
// element size in bytes.
type convSide struct {
	k    ckind
	f8   uint8
	size int64
}

// sideOf maps Bool..Complex128 by number: ckind's first kinds are Kind's,
// in the same order (these fail to compile otherwise).
var (
	_ = [1]struct{}{}[int(kI8)-int(Int8)]
	_ = [1]struct{}{}[int(kU8)-int(Uint8)]
	_ = [1]struct{}{}[int(kF64)-int(Float64)]
	_ = [1]struct{}{}[int(kC128)-int(Complex128)]
)

// sideOf is kind k as the conversion kernels see it.
func sideOf(k Kind) convSide {
	s := convSide{size: k.Size()}
	switch {
	case k.IsFloat8():
		s.k, s.f8 = kF8, k.float8Index()
	case k == Float16:
		s.k = kF16
	case k == BFloat16:
		s.k = kBF16
	default:
		s.k = ckind(k) // Bool..Complex128 are ckind's first kinds, in order
	}
	return s
}

// cplan is a planned conversion, strides in bytes.
type cplan struct {
	loop
	d, s convSide
}

// Convert writes the size > 0 elements of kind sk of the layout (shape,
// srcStrides) at sp, converted to kind dk, to the layout (shape,
// dstStrides) at dp; strides in elements, both pointers at element 0, the
// two not overlapping.
func Convert(dp unsafe.Pointer, dstStrides []int64, dk Kind, sp unsafe.Pointer, srcStrides []int64, sk Kind,
	shape []int64, size int64) {
	d, s := sideOf(dk), sideOf(sk)
	var p cplan
	p.dp, p.sp, p.d, p.s = dp, sp, d, s
	p.load(shape, dstStrides, srcStrides, d.size, s.size)
	if p.n >= 1 && size*max(d.size, s.size) >= convertSplitMin && !Serial() {
		if w := min(int64(runtime.GOMAXPROCS(0)), p.shape[0]); w > 1 {
			p.runParallel(w)
			return
		}
	}
	p.exec()
}

// convertSplitMin is the byte size (of the wider side) from which a
// conversion runs on several goroutines. Below it the rows come from the
// last-level cache, where one goroutine converts about as fast as the
// memory serves, and waking a second one costs more than it saves.
const convertSplitMin = 16 << 20

func (p *cplan) runParallel(w int64) {
	q := *p
	splitRange(0, q.shape[0], w, func(lo, hi int64) {
		sub := q
		sub.shape[0] = hi - lo
		sub.dp = unsafe.Add(q.dp, lo*q.ds[0])
		sub.sp = unsafe.Add(q.sp, lo*q.ss[0])
		sub.exec()
	})
}

func (p *cplan) exec() {
	n := p.n
	if n == 0 {
		convRow(p.d, p.s, p.dp, p.sp, 1, 0, 0)
		return
	}
	var idx [MaxNdim]int64
	var doff, soff int64
	for {
		convRow(p.d, p.s, unsafe.Add(p.dp, doff), unsafe.Add(p.sp, soff), p.shape[n-1], p.ds[n-1], p.ss[n-1])
		if !Step(idx[:n-1], p.shape[:n-1], p.ds[:n-1], p.ss[:n-1], &doff, &soff) {
			return
		}
	}
}
