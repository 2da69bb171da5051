package core

import (
	"fmt"
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
// A conversion is planned like a copy (copy.go): dimensions of length 1
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

// convSideOf maps a dtype to its conversion kind; ok is false for dtypes
// the kernels do not convert (sub-byte, lanes != 1, unknown).
func convSideOf(dt DataType) (convSide, bool) {
	if dt.Lanes != 1 {
		return convSide{}, false
	}
	s := convSide{size: dt.ItemSize()}
	switch dt.Code {
	case KDLBool:
		s.k = kBool
		return s, dt.Bits == 8
	case KDLInt, KDLUInt:
		base := kI8
		if dt.Code == KDLUInt {
			base = kU8
		}
		switch dt.Bits {
		case 8:
			s.k = base
		case 16:
			s.k = base + 1
		case 32:
			s.k = base + 2
		case 64:
			s.k = base + 3
		default:
			return s, false
		}
		return s, true
	case KDLFloat:
		switch dt.Bits {
		case 16:
			s.k = kF16
		case 32:
			s.k = kF32
		case 64:
			s.k = kF64
		default:
			return s, false
		}
		return s, true
	case KDLBfloat:
		s.k = kBF16
		return s, dt.Bits == 16
	case KDLComplex:
		switch dt.Bits {
		case 64:
			s.k = kC64
		case 128:
			s.k = kC128
		default:
			return s, false
		}
		return s, true
	}
	if dt.Code >= KDLFloat8E3M4 && dt.Code <= KDLFloat8E8M0FNU && dt.Bits == 8 {
		s.k, s.f8 = kF8, uint8(dt.Code-KDLFloat8E3M4)
		return s, true
	}
	return s, false
}

// CanConvert reports whether ConvertInto converts between from and to:
// every pair of byte-sized dtypes of the DLPack table (bool, int, uint,
// float16/32/64, bfloat16, complex, float8). Packed sub-byte dtypes
// (float6, float4) are not converted.
func CanConvert(from, to DataType) bool {
	_, ok1 := convSideOf(from)
	_, ok2 := convSideOf(to)
	return ok1 && ok2
}

// CheckConvert returns nil when ConvertInto converts from into to (equal
// byte-sized dtypes included), else ErrDType with a message that starts
// with where and names the way out.
func CheckConvert(where string, from, to DataType) error {
	if from == to && !from.IsSubByte() || CanConvert(from, to) {
		return nil
	}
	return convertTypeErr(where, from, to)
}

// ConvertInto writes the elements of src, converted to dst's dtype, into
// dst. Shapes must be equal; dtypes may differ (equal dtypes copy, as
// CopyInto). Both must be CPU-accessible. An overlapping source and
// destination of different dtypes go through a temporary C buffer. It does
// not allocate on the Go heap unless it runs in parallel (large arrays) or
// fails.
//
// Errors: ErrReadOnly, ErrDType (a packed sub-byte or unknown dtype; the
// message names the way out), ErrShape, ErrDevice, ErrNullData, ErrNoMemory.
func ConvertInto(dst *Header, dstShape, dstStrides []int64, src *Header, srcShape, srcStrides []int64) error {
	const where = "astype()"
	if dst.DType == src.DType {
		return CopyInto(dst, dstShape, dstStrides, src, srcShape, srcStrides)
	}
	if dst.ReadOnly() {
		return fmt.Errorf("%s: destination is read-only: %w", where, ErrReadOnly)
	}
	ds, ok1 := convSideOf(dst.DType)
	ss, ok2 := convSideOf(src.DType)
	if !ok1 || !ok2 {
		return convertTypeErr(where, src.DType, dst.DType)
	}
	nd := len(dstShape)
	if len(srcShape) != nd || len(dstStrides) != nd || len(srcStrides) != nd || nd > MaxNdim {
		return fmt.Errorf("%s: shapes %s and %s differ: %w", where, dimsString(srcShape), dimsString(dstShape), ErrShape)
	}
	for i := range dstShape {
		if dstShape[i] != srcShape[i] {
			return fmt.Errorf("%s: shapes %s and %s differ: %w", where, dimsString(srcShape), dimsString(dstShape), ErrShape)
		}
	}
	if !src.hostAccessible() {
		return notHostErr(where, src)
	}
	if !dst.hostAccessible() {
		return notHostErr(where, dst)
	}
	size, err := shapeSize(where, dstShape)
	if err != nil || size == 0 {
		return err
	}
	if dst.Data == nil || src.Data == nil {
		return fmt.Errorf("%s: %w", where, ErrNullData)
	}
	dp := unsafe.Add(dst.Data, dst.Offset*ds.size)
	sp := unsafe.Add(src.Data, src.Offset*ss.size)
	dlo, dhi := extent(dp, dstShape, dstStrides, ds.size)
	slo, shi := extent(sp, srcShape, srcStrides, ss.size)
	if dlo < shi && slo < dhi {
		// Overlap: convert into a contiguous temporary, then copy.
		host := hostBackend()
		tmp, err := host.Allocate(0, size*ds.size, false)
		if err != nil {
			return fmt.Errorf("%s: cannot allocate a %d-byte temporary: %w", where, size*ds.size, ErrNoMemory)
		}
		defer host.Free(tmp)
		var cs [MaxNdim]int64
		cStrides(dstShape, cs[:nd])
		convertRaw(tmp, cs[:nd], ds, sp, srcStrides, ss, dstShape, size)
		copyRaw(dp, dstStrides, tmp, cs[:nd], dstShape, ds.size, size)
		return nil
	}
	convertRaw(dp, dstStrides, ds, sp, srcStrides, ss, dstShape, size)
	return nil
}

func convertTypeErr(where string, from, to DataType) error {
	if from.IsSubByte() || to.IsSubByte() {
		return WithClass(ClassType, fmt.Sprintf("%s: cannot convert %v to %v: packed sub-byte dtypes (float6, float4) are not converted; convert with ml_dtypes after np.from_dlpack(a)", where, from, to), ErrDType)
	}
	return WithClass(ClassType, fmt.Sprintf("%s: cannot convert %v to %v; use one of godlpack's dtypes (bool, int8..uint64, float16..float64, bfloat16, complex64, complex128, float8_*)", where, from, to), ErrDType)
}

// AsType returns a new C-contiguous CPU array with a's elements converted to
// dt (a copy even when dt is a's dtype). Errors: as Copy, and ErrDType for
// dtypes ConvertInto does not convert.
func (a *Array) AsType(dt DataType) (*Array, error) {
	const where = "AsType()"
	h, err := a.acquire(where)
	if err != nil {
		return nil, err
	}
	defer h.Owner.Release()
	if !CanConvert(h.DType, dt) {
		if h.DType == dt && !dt.IsSubByte() {
			return a.Copy()
		}
		return nil, convertTypeErr(where, h.DType, dt)
	}
	nd := len(a.shape)
	var st [MaxNdim]int64
	var out Header
	if err := allocContiguous(where, CPU, dt, a.shape, &out, st[:nd], false, true); err != nil {
		return nil, err
	}
	if err := ConvertInto(&out, a.shape, st[:nd], &h, a.shape, a.strides); err != nil {
		out.Owner.Release()
		return nil, err
	}
	return newOwnedArray(out, a.shape, st[:nd]), nil
}

// cplan is a planned conversion, strides in bytes.
type cplan struct {
	loop
	d, s convSide
}

func convertRaw(dp unsafe.Pointer, dstStrides []int64, d convSide, sp unsafe.Pointer, srcStrides []int64, s convSide,
	shape []int64, size int64) {
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
		if !step(idx[:n-1], p.shape[:n-1], p.ds[:n-1], p.ss[:n-1], &doff, &soff) {
			return
		}
	}
}
