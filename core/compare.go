package core

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"unsafe"

	"github.com/godlpack/godlpack/core/kernels"
)

// Element-wise comparisons (==, !=, <, <=, >, >=) of two arrays, or of an
// array and a scalar, into a new C-contiguous bool array of their broadcast
// shape, with the answers numpy 2 gives:
//
//   - shapes broadcast as in numpy (aligned on the right; a dimension of 1,
//     or a missing one, stretches);
//   - integers and bools compare exactly, whatever their signedness and
//     width (int64 against uint64 included; bool is 0 or 1);
//   - a 64-bit integer compared with a float or a complex is first rounded
//     to float64 (numpy promotes such a pair to float64); every other pair
//     compares exactly, since the promoted type holds both values;
//   - NaN compares unequal to everything: every comparison is false except
//     !=, which is true;
//   - complex values order lexicographically, real part first, then
//     imaginary part, and an ordering that a NaN part decides is false;
//   - a Python scalar (Scalar.Weak) is "weak" (NEP 50): an int compares
//     exactly with integer arrays, at any size (uint8 == 300 is false
//     everywhere, int64 < 2**70 true everywhere); against a float or complex
//     array an int, float or complex is first rounded to the array's
//     precision (float16 == 0.1 is true where the array holds float16(0.1));
//     a complex against float16, bfloat16 or float32 is rounded to
//     complex64.
//
// float8, float6 and float4 arrays are refused (ErrUnsupported).

// CompareOp is an element-wise comparison. The values are CPython's
// (Py_LT .. Py_GE).
type CompareOp int32

// The comparisons.
const (
	CmpLT CompareOp = iota // <
	CmpLE                  // <=
	CmpEQ                  // ==
	CmpNE                  // !=
	CmpGT                  // >
	CmpGE                  // >=
)

// String returns the operator: "<", "<=", "==", "!=", ">", ">=". It names
// the entry point in errors.
func (op CompareOp) String() string {
	switch op {
	case CmpLT:
		return "<"
	case CmpLE:
		return "<="
	case CmpEQ:
		return "=="
	case CmpNE:
		return "!="
	case CmpGT:
		return ">"
	case CmpGE:
		return ">="
	}
	return "CompareOp(" + strconv.Itoa(int(op)) + ")"
}

// swapped returns the operator with its operands exchanged: x < y is y > x.
func (op CompareOp) swapped() CompareOp {
	switch op {
	case CmpLT:
		return CmpGT
	case CmpLE:
		return CmpGE
	case CmpGT:
		return CmpLT
	case CmpGE:
		return CmpLE
	}
	return op
}

// ScalarKind says which fields of a Scalar hold its value.
type ScalarKind int32

// Scalar kinds.
const (
	ScalarBool    ScalarKind = iota + 1 // Mag: 0 or 1
	ScalarInt                           // Neg, Mag, Big; Re: the value rounded to float64
	ScalarFloat                         // Re
	ScalarComplex                       // Re, Im
	// ScalarOther is an object that is no number (None, a str): numpy 2
	// compares it with each element and finds none equal, so == is all
	// false and != all true; it has no order.
	ScalarOther
)

// Scalar is a comparison operand that is one number rather than an array.
type Scalar struct {
	Kind ScalarKind
	// Weak marks a Python bool, int, float or complex, which numpy 2
	// compares in the array's precision (NEP 50); a Go value or a numpy
	// scalar is not weak: it compares like a 0-d array of its value.
	Weak bool
	// Integers: Neg (negative), Mag (the magnitude) and Big (beyond every
	// int64 and uint64: below -2^63 or above 2^64-1; Mag is then unused).
	Neg, Big bool
	Mag      uint64
	// Floats and complex numbers; for integers Re is the value rounded to
	// float64 (±Inf beyond its range).
	Re, Im float64
}

// IntScalar returns v as a (strong) comparison operand.
func IntScalar(v int64) Scalar {
	return Scalar{Kind: ScalarInt, Neg: v < 0, Mag: absU(v), Re: float64(v)}
}

// UintScalar returns v as a (strong) comparison operand.
func UintScalar(v uint64) Scalar { return Scalar{Kind: ScalarInt, Mag: v, Re: float64(v)} }

// FloatScalar returns f as a (strong) comparison operand.
func FloatScalar(f float64) Scalar { return Scalar{Kind: ScalarFloat, Re: f} }

// ComplexScalar returns c as a (strong) comparison operand.
func ComplexScalar(c complex128) Scalar {
	return Scalar{Kind: ScalarComplex, Re: real(c), Im: imag(c)}
}

// BoolScalar returns b as a (strong) comparison operand.
func BoolScalar(b bool) Scalar {
	s := Scalar{Kind: ScalarBool}
	if b {
		s.Mag = 1
	}
	return s
}

// Operand is one side of a comparison: the array described by H, Shape and
// Strides (in elements), or, when H is nil, the scalar S.
type Operand struct {
	H       *Header
	Shape   []int64
	Strides []int64
	S       Scalar
}

// CompareDevice is where the bool result of comparing x with y is allocated
// (CopyDevice of it): the arrays' device when they share one; the other
// one's when one of them is on the CPU (a list, a tuple or a range is made a
// CPU array), so that comparing a device array never moves the answer to
// the CPU, as a scalar's does not; else the CPU, whose kernels read both.
func CompareDevice(x, y *Operand) Device {
	d := x.H.Device
	if y.H != nil && y.H.Device != d {
		switch {
		case d.Type == KDLCPU:
			d = y.H.Device
		case y.H.Device.Type != KDLCPU:
			return CPU
		}
	}
	return CopyDevice(d)
}

// cmpClass is the family of a dtype for comparisons.
type cmpClass uint8

const (
	clsNone cmpClass = iota // not comparable
	clsBool
	clsInt
	clsUint
	clsFloat
	clsComplex
)

func cmpClassOf(dt DataType) cmpClass {
	if dt.Lanes != 1 {
		return clsNone
	}
	switch dt.Code {
	case KDLBool:
		if dt.Bits == 8 {
			return clsBool
		}
	case KDLInt, KDLUInt:
		switch dt.Bits {
		case 8, 16, 32, 64:
			if dt.Code == KDLInt {
				return clsInt
			}
			return clsUint
		}
	case KDLFloat:
		switch dt.Bits {
		case 16, 32, 64:
			return clsFloat
		}
	case KDLBfloat:
		if dt.Bits == 16 {
			return clsFloat
		}
	case KDLComplex:
		switch dt.Bits {
		case 64, 128:
			return clsComplex
		}
	}
	return clsNone
}

// checkCmpArray refuses arrays a comparison cannot read.
func checkCmpArray(where string, o *Operand) error {
	h := o.H
	if len(o.Shape) != len(o.Strides) || len(o.Shape) > MaxNdim {
		return fmt.Errorf("%s: %d dimensions with %d strides: %w", where, len(o.Shape), len(o.Strides), ErrShape)
	}
	if cmpClassOf(h.DType) == clsNone {
		return errorf(ErrUnsupported, "%s: comparing %v arrays is not supported; compare after a.astype('float32')",
			where, h.DType)
	}
	if !h.hostAccessible() {
		return notHostErr(where, h)
	}
	size, err := shapeSize(where, o.Shape)
	if err != nil {
		return err
	}
	if size > 0 && h.Data == nil {
		return fmt.Errorf("%s: %w", where, ErrNullData)
	}
	return nil
}

// CompareShape checks that op can compare x (an array) with y (an array or
// a scalar) and writes their broadcast shape into out (MaxNdim entries). It
// returns the number of dimensions. It does not allocate on success.
//
// Errors: ErrBroadcast (shapes that do not broadcast), ErrUnsupported
// (float8, float6, float4 or other dtypes without comparisons), ErrDevice
// (memory the CPU cannot read), ErrShape, ErrOverflow, ErrNullData.
func CompareShape(op CompareOp, x, y *Operand, out []int64) (int, error) {
	where := op.String()
	if op < CmpLT || op > CmpGE {
		return 0, fmt.Errorf("%s: unknown comparison: %w", where, ErrInternal)
	}
	if x.H == nil {
		return 0, fmt.Errorf("%s: the first operand must be an array: %w", where, ErrInternal)
	}
	if err := checkCmpArray(where, x); err != nil {
		return 0, err
	}
	var yShape []int64
	if y.H != nil {
		if err := checkCmpArray(where, y); err != nil {
			return 0, err
		}
		yShape = y.Shape
	} else if y.S.Kind < ScalarBool || y.S.Kind > ScalarOther {
		return 0, fmt.Errorf("%s: unknown scalar kind %d: %w", where, y.S.Kind, ErrInternal)
	} else if y.S.Kind == ScalarOther && op != CmpEQ && op != CmpNE {
		return 0, errorf(ErrUnsupported, "%s: an array has no order against an object that is no number; compare numbers",
			where)
	}
	return broadcastShapes(where, x.Shape, yShape, out)
}

// broadcastShapes writes numpy's broadcast of a and b into out.
func broadcastShapes(where string, a, b, out []int64) (int, error) {
	n := max(len(a), len(b))
	if n > len(out) {
		return 0, fmt.Errorf("%s: %d dimensions, at most %d are supported: %w", where, n, len(out), ErrNdim)
	}
	for i := 1; i <= n; i++ {
		da, db := int64(1), int64(1)
		if i <= len(a) {
			da = a[len(a)-i]
		}
		if i <= len(b) {
			db = b[len(b)-i]
		}
		switch {
		case da == db, db == 1:
			out[n-i] = da
		case da == 1:
			out[n-i] = db
		default:
			return 0, errorf(ErrBroadcast, "%s: operands could not be broadcast together with shapes %s %s; "+
				"make each dimension equal or 1 (a.reshape(...), or index with None to add one)",
				where, npShape(a), npShape(b))
		}
	}
	return n, nil
}

// npShape formats dims as numpy's broadcast error does: (2,3) and (4,).
func npShape(dims []int64) string {
	b := []byte{'('}
	for i, d := range dims {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, d, 10)
	}
	if len(dims) == 1 {
		b = append(b, ',')
	}
	return string(append(b, ')'))
}

// CompareInto writes op(x, y) for the elements [start, stop) in C order of
// the broadcast result into dst, a C-contiguous CPU bool array of the
// broadcast shape dstShape (CompareShape's): the Python skin fills a big
// result in interruptible ranges. A range of at least kernels.ParallelMin bytes of
// work is split over GOMAXPROCS goroutines unless SetSerial(true); it does
// not allocate on the Go heap otherwise.
//
// Errors: those of CompareShape; ErrShape (dstShape is not the broadcast
// shape, or a range outside it), ErrDType (dst is not bool), ErrReadOnly.
func CompareInto(op CompareOp, dst *Header, dstShape []int64, x, y *Operand, start, stop int64) error {
	where := op.String()
	var bs [MaxNdim]int64
	n, err := CompareShape(op, x, y, bs[:])
	if err != nil {
		return err
	}
	if len(dstShape) != n {
		return fmt.Errorf("%s: result of %d dimensions for a broadcast shape of %d: %w", where, len(dstShape), n, ErrShape)
	}
	for i := range n {
		if dstShape[i] != bs[i] {
			return fmt.Errorf("%s: result shape %s is not the broadcast shape %s: %w", where,
				dimsString(dstShape), dimsString(bs[:n]), ErrShape)
		}
	}
	if dst.DType != Bool {
		return fmt.Errorf("%s: the result must be bool, not %v: %w", where, dst.DType, ErrDType)
	}
	if dst.ReadOnly() {
		return fmt.Errorf("%s: the result is read-only: %w", where, ErrReadOnly)
	}
	if !dst.hostAccessible() {
		return fmt.Errorf("%s: the result must be in CPU memory: %w", where, ErrDevice)
	}
	size, err := shapeSize(where, dstShape)
	if err != nil {
		return err
	}
	if start < 0 || stop < start || stop > size {
		return fmt.Errorf("%s: range [%d, %d) outside the %d elements of the result: %w", where, start, stop, size, ErrShape)
	}
	if start == stop {
		return nil
	}
	if dst.Data == nil {
		return fmt.Errorf("%s: %w", where, ErrNullData)
	}
	var p cmpPlan
	p.build(op, dstShape, x, y)
	out := unsafe.Add(dst.Data, dst.Offset)
	w := int64(runtime.GOMAXPROCS(0))
	if Serial() || w < 2 || (stop-start)*max(x.H.DType.ItemSize(), 8) < kernels.ParallelMin {
		p.run(out, start, stop)
		return nil
	}
	q := p // the goroutines' copy: p stays on the stack on the serial path
	kernels.SplitRange(start, stop, w, func(lo, hi int64) { q.run(out, lo, hi) })
	return nil
}

// Compare returns op(a, b) element-wise as a new C-contiguous bool array of
// the broadcast shape. Errors: those of CompareShape, ErrReleased,
// ErrNoMemory.
func (a *Array) Compare(op CompareOp, b *Array) (*Array, error) {
	hb, err := b.acquire(op.String())
	if err != nil {
		return nil, err
	}
	defer hb.Owner.Release()
	return a.compare(op, &Operand{H: &hb, Shape: b.shape, Strides: b.strides})
}

// CompareScalar returns op(a, s) element-wise as a new C-contiguous bool
// array of a's shape. Errors: those of Compare.
func (a *Array) CompareScalar(op CompareOp, s Scalar) (*Array, error) {
	return a.compare(op, &Operand{S: s})
}

func (a *Array) compare(op CompareOp, y *Operand) (*Array, error) {
	where := op.String()
	ha, err := a.acquire(where)
	if err != nil {
		return nil, err
	}
	defer ha.Owner.Release()
	x := Operand{H: &ha, Shape: a.shape, Strides: a.strides}
	var shape, st [MaxNdim]int64
	n, err := CompareShape(op, &x, y, shape[:])
	if err != nil {
		return nil, err
	}
	var out Header
	if err := AllocContiguousOn(where, CompareDevice(&x, y), Bool, shape[:n], &out, st[:n], false); err != nil {
		return nil, err
	}
	size, _ := shapeSize(where, shape[:n])
	if err := CompareInto(op, &out, shape[:n], &x, y, 0, size); err != nil {
		out.Owner.Release()
		return nil, err
	}
	return newOwnedArray(out, shape[:n], st[:n]), nil
}

// ---- the kernel ----

// cmpDomain is the type both operands are converted to before comparing.
type cmpDomain uint8

const (
	domI64   cmpDomain = iota // bools and integers that int64 holds
	domU64                    // bools and unsigned integers, one of them uint64
	domMixed                  // a signed integer (x) and a uint64 (y)
	domF64                    // real, one side a float: exact in float64 but for 64-bit integers
	domC128                   // complex, one side complex
)

// cmpSide is one operand of a planned comparison.
type cmpSide struct {
	dt     DataType
	cls    cmpClass
	scalar bool           // the value is in val (stride 0)
	p      unsafe.Pointer // element 0 of an array
	val    [2]uint64      // a scalar's element, of dtype dt
	st     [MaxNdim]int64 // byte strides over the merged dimensions
}

// cmpPlan is a comparison over at most MaxNdim merged dimensions.
type cmpPlan struct {
	op    CompareOp
	dom   cmpDomain
	konst int8 // -1, or 0/1: every element of the result is that (a weak int no integer dtype holds)
	same  bool // both operands hold the same fast type (sameKernel): compared without conversion
	n     int
	shape [MaxNdim]int64
	x, y  cmpSide
}

// build plans op(x, y) over the broadcast shape (checked by CompareShape).
func (p *cmpPlan) build(op CompareOp, shape []int64, x, y *Operand) {
	p.op, p.konst = op, -1
	nd := len(shape)
	p.x.setArray(x, nd)
	if y.H != nil {
		p.y.setArray(y, nd)
	} else {
		p.konst = p.y.setScalar(&y.S, p.x.dt, op)
	}
	// Drop dimensions of length 1 and merge neighbours that are contiguous
	// on both sides (the result is C-contiguous): C order is kept.
	m := 0
	for i := 0; i < nd; i++ {
		d := shape[i]
		if d == 1 {
			continue
		}
		xs, ys := p.x.st[i], p.y.st[i]
		if m > 0 && p.x.st[m-1] == xs*d && p.y.st[m-1] == ys*d {
			p.shape[m-1] *= d
			p.x.st[m-1], p.y.st[m-1] = xs, ys
			continue
		}
		p.shape[m], p.x.st[m], p.y.st[m] = d, xs, ys
		m++
	}
	p.n = m
	p.pickDomain()
	if p.y.scalar && p.konst < 0 {
		p.narrowScalar()
	}
	p.same = p.x.dt == p.y.dt && sameKernel(p.x.dt)
}

// sameKernel reports whether two operands of dtype dt compare directly in
// Go's type for it (bool excepted: a foreign bool byte may be neither 0
// nor 1; float16 and bfloat16 have no Go type).
func sameKernel(dt DataType) bool {
	switch cmpClassOf(dt) {
	case clsInt, clsUint:
		return true
	case clsFloat:
		return dt.Code == KDLFloat && dt.Bits >= 32
	}
	return false
}

// narrowScalar stores the scalar operand in the array's own dtype when that
// changes no answer: the array's values are exact in the comparison's
// domain (not a 64-bit integer rounded to float64) and the scalar's value
// in that domain is one of the dtype's values. The comparison then runs
// without conversions.
func (p *cmpPlan) narrowScalar() {
	xt := p.x.dt
	if p.x.scalar || !sameKernel(xt) || xt == p.y.dt {
		return
	}
	yp := unsafe.Pointer(&p.y.val)
	var v [1]float64
	switch p.dom {
	case domI64:
		var i [1]int64
		decodeI64(p.y.dt, i[:], yp, 0)
		if xt.Bits == 64 { // int64: uint64 arrays are not in this domain
			p.y.val[0], p.y.dt, p.y.cls = uint64(i[0]), xt, clsInt
			return
		}
		v[0] = float64(i[0]) // exact; the dtype's range is checked below
	case domU64:
		var u [1]uint64
		decodeU64(p.y.dt, u[:], yp, 0)
		if xt.Bits == 64 {
			p.y.val[0], p.y.dt, p.y.cls = u[0], xt, clsUint
			return
		}
		if u[0] > math.MaxUint32 {
			return
		}
		v[0] = float64(u[0])
	case domF64:
		if xt.Bits == 64 && xt.Code != KDLFloat {
			return // numpy rounds the 64-bit integers to float64
		}
		decodeF64(p.y.dt, v[:], yp, 0)
	default:
		return
	}
	f := v[0]
	switch {
	case xt == Float64:
		*(*float64)(yp) = f
	case xt == Float32:
		if float64(float32(f)) != f && f == f { //nolint:gocritic // f == f: not NaN
			return
		}
		*(*float32)(yp) = float32(f)
	default: // integers of at most 32 bits
		lo, hi := intRange(xt)
		if f != math.Trunc(f) || f < lo || f > hi {
			return
		}
		switch xt.Bits {
		case 8:
			*(*uint8)(yp) = uint8(int64(f))
		case 16:
			*(*uint16)(yp) = uint16(int64(f))
		default:
			*(*uint32)(yp) = uint32(int64(f))
		}
	}
	p.y.dt, p.y.cls = xt, cmpClassOf(xt)
}

// intRange returns the range of an integer dtype of at most 32 bits.
func intRange(dt DataType) (float64, float64) {
	if dt.Code == KDLUInt {
		return 0, math.Ldexp(1, int(dt.Bits)) - 1
	}
	h := math.Ldexp(1, int(dt.Bits)-1)
	return -h, h - 1
}

// setArray describes an array operand with strides aligned on the right to
// nd output dimensions, 0 where it is broadcast.
func (s *cmpSide) setArray(o *Operand, nd int) {
	h := o.H
	s.dt, s.cls = h.DType, cmpClassOf(h.DType)
	k := h.DType.ItemSize()
	s.p = unsafe.Add(h.Data, h.Offset*k)
	off := nd - len(o.Shape)
	for i := 0; i < nd; i++ {
		s.st[i] = 0
		if j := i - off; j >= 0 && o.Shape[j] != 1 {
			s.st[i] = o.Strides[j] * k
		}
	}
}

// setScalar stores sc as the element numpy 2 compares with an array of
// dtype adt, and returns -1, or the constant result when sc is a weak
// integer that no integer dtype holds compared with an integer array.
func (s *cmpSide) setScalar(sc *Scalar, adt DataType, op CompareOp) int8 {
	s.scalar = true
	acls := cmpClassOf(adt)
	intArray := acls == clsBool || acls == clsInt || acls == clsUint
	switch sc.Kind {
	case ScalarOther:
		s.dt, s.cls = Bool, clsBool
		return cmpConst(op, false) // == and != only (CompareShape)
	case ScalarBool:
		s.dt, s.val[0] = Bool, sc.Mag&1
	case ScalarInt:
		fits := !sc.Big && (!sc.Neg || sc.Mag <= 1<<63) // an int64 or a uint64 holds it
		switch {
		case intArray && !fits:
			return cmpConst(op, sc.Neg)
		case intArray || !sc.Weak && fits:
			if sc.Neg {
				s.dt, s.val[0] = Int64, -sc.Mag // two's complement of the magnitude
			} else if sc.Mag > math.MaxInt64 {
				s.dt, s.val[0] = Uint64, sc.Mag
			} else {
				s.dt, s.val[0] = Int64, sc.Mag
			}
		default: // a weak int, or one beyond 64 bits, against a float or complex array
			s.setReal(sc.Re, sc.Weak, adt)
		}
	case ScalarFloat:
		s.setReal(sc.Re, sc.Weak && !intArray, adt)
	default:
		re, im := sc.Re, sc.Im
		if sc.Weak && !intArray {
			pdt := adt // the precision of the parts
			if acls == clsFloat && adt.Bits < 64 || acls == clsComplex && adt.Bits == 64 {
				pdt = Float32
			}
			re, im = roundTo(pdt, re), roundTo(pdt, im)
		}
		s.dt = Complex128
		s.val[0], s.val[1] = math.Float64bits(re), math.Float64bits(im)
	}
	s.cls = cmpClassOf(s.dt)
	return -1
}

// setReal stores f, rounded to the precision of adt when round is set.
func (s *cmpSide) setReal(f float64, round bool, adt DataType) {
	if round {
		f = roundTo(adt, f)
	}
	s.dt, s.val[0] = Float64, math.Float64bits(f)
}

// cmpConst is the result of comparing any 64-bit integer x with an integer
// y beyond them all (below them all when neg).
func cmpConst(op CompareOp, neg bool) int8 {
	var r bool
	switch op {
	case CmpNE:
		r = true
	case CmpLT, CmpLE:
		r = !neg
	case CmpGT, CmpGE:
		r = neg
	}
	if r {
		return 1
	}
	return 0
}

func (p *cmpPlan) pickDomain() {
	xc, yc := p.x.cls, p.y.cls
	switch {
	case xc == clsComplex || yc == clsComplex:
		p.dom = domC128
	case xc == clsFloat || yc == clsFloat:
		p.dom = domF64
	default:
		xu := xc == clsUint && p.x.dt.Bits == 64
		yu := yc == clsUint && p.y.dt.Bits == 64
		switch {
		case !xu && !yu:
			p.dom = domI64
		case xc != clsInt && yc != clsInt:
			p.dom = domU64
		default:
			p.dom = domMixed
			if xu { // keep the signed side in x
				p.x, p.y = p.y, p.x
				p.op = p.op.swapped()
			}
		}
	}
}

// run computes the result elements [start, stop) (C order); out is the
// result's element 0.
func (p *cmpPlan) run(out unsafe.Pointer, start, stop int64) {
	if p.konst >= 0 {
		b := unsafe.Slice((*byte)(unsafe.Add(out, start)), stop-start)
		for i := range b {
			b[i] = byte(p.konst)
		}
		return
	}
	n := p.n
	if n == 0 {
		p.row(p.x.p, p.y.p, 0, 0, 1, unsafe.Add(out, start))
		return
	}
	// The multi-index of start, and the operands' byte offsets there.
	var idx [MaxNdim]int64
	var xo, yo int64
	r := start
	for j := n - 1; j >= 0; j-- {
		idx[j] = r % p.shape[j]
		r /= p.shape[j]
		xo += idx[j] * p.x.st[j]
		yo += idx[j] * p.y.st[j]
	}
	xs, ys := p.x.st[n-1], p.y.st[n-1]
	for pos := start; pos < stop; {
		m := min(p.shape[n-1]-idx[n-1], stop-pos)
		p.row(unsafe.Add(p.x.p, xo), unsafe.Add(p.y.p, yo), xs, ys, m, unsafe.Add(out, pos))
		pos += m
		xo += m * xs
		yo += m * ys
		idx[n-1] += m
		for j := n - 1; j > 0 && idx[j] == p.shape[j]; j-- {
			xo -= idx[j] * p.x.st[j]
			yo -= idx[j] * p.y.st[j]
			idx[j] = 0
			idx[j-1]++
			xo += p.x.st[j-1]
			yo += p.y.st[j-1]
		}
	}
}

// cmpBlock is the number of elements converted at a time (on the stack).
const cmpBlock = 128

// row compares n elements at byte strides xs and ys (0 for a scalar or a
// broadcast operand) into n bools at out. Each domain has its own function
// (and stack frame) for its conversion buffers.
func (p *cmpPlan) row(xp, yp unsafe.Pointer, xs, ys, n int64, out unsafe.Pointer) {
	if p.x.scalar {
		xp, xs = unsafe.Pointer(&p.x.val), 0
	}
	if p.y.scalar {
		yp, ys = unsafe.Pointer(&p.y.val), 0
	}
	res := unsafe.Slice((*bool)(out), n)
	if p.same {
		sameRow(p.x.dt, p.op, xp, yp, xs, ys, res)
		return
	}
	switch p.dom {
	case domF64:
		rowOrdered[float64](p, xp, yp, xs, ys, res)
	case domC128:
		p.rowC128(xp, yp, xs, ys, res)
	case domU64:
		rowOrdered[uint64](p, xp, yp, xs, ys, res)
	case domMixed:
		p.rowMixed(xp, yp, xs, ys, res)
	default:
		rowOrdered[int64](p, xp, yp, xs, ys, res)
	}
}

// rowOrdered compares a row in the ordered domain T (float64, uint64 or
// int64), each operand decoded into it a block at a time.
func rowOrdered[T float64 | uint64 | int64](p *cmpPlan, xp, yp unsafe.Pointer, xs, ys int64, res []bool) {
	var a, b [cmpBlock]T
	n := int64(len(res))
	if ys == 0 {
		decodeTo(p.y.dt, b[:1], yp, 0)
	}
	for i := int64(0); i < n; i += cmpBlock {
		m := min(cmpBlock, n-i)
		decodeTo(p.x.dt, a[:m], unsafe.Add(xp, i*xs), xs)
		if ys == 0 {
			cmpScalar(p.op, a[:m], b[0], res[i:i+m])
			continue
		}
		decodeTo(p.y.dt, b[:m], unsafe.Add(yp, i*ys), ys)
		cmpOrdered(p.op, a[:m], b[:m], res[i:i+m])
	}
}

func (p *cmpPlan) rowC128(xp, yp unsafe.Pointer, xs, ys int64, res []bool) {
	var a, b [cmpBlock]complex128
	n := int64(len(res))
	if ys == 0 {
		decodeC128(p.y.dt, b[:1], yp, 0)
	}
	for i := int64(0); i < n; i += cmpBlock {
		m := min(cmpBlock, n-i)
		decodeC128(p.x.dt, a[:m], unsafe.Add(xp, i*xs), xs)
		yy := b[:1]
		if ys != 0 {
			yy = b[:m]
			decodeC128(p.y.dt, yy, unsafe.Add(yp, i*ys), ys)
		}
		cmpComplex(p.op, a[:m], yy, res[i:i+m])
	}
}

func (p *cmpPlan) rowMixed(xp, yp unsafe.Pointer, xs, ys int64, res []bool) {
	var a [cmpBlock]int64
	var b [cmpBlock]uint64
	n := int64(len(res))
	if ys == 0 {
		decodeU64(p.y.dt, b[:1], yp, 0)
	}
	for i := int64(0); i < n; i += cmpBlock {
		m := min(cmpBlock, n-i)
		decodeI64(p.x.dt, a[:m], unsafe.Add(xp, i*xs), xs)
		yy := b[:1]
		if ys != 0 {
			yy = b[:m]
			decodeU64(p.y.dt, yy, unsafe.Add(yp, i*ys), ys)
		}
		cmpMixed(p.op, a[:m], yy, res[i:i+m])
	}
}

// sameRow compares operands of one fast dtype (sameKernel) in its Go type.
func sameRow(dt DataType, op CompareOp, xp, yp unsafe.Pointer, xs, ys int64, res []bool) {
	switch {
	case dt == Float64:
		cmpSame[float64](op, xp, yp, xs, ys, res)
	case dt == Float32:
		cmpSame[float32](op, xp, yp, xs, ys, res)
	case dt.Code == KDLInt:
		switch dt.Bits {
		case 8:
			cmpSame[int8](op, xp, yp, xs, ys, res)
		case 16:
			cmpSame[int16](op, xp, yp, xs, ys, res)
		case 32:
			cmpSame[int32](op, xp, yp, xs, ys, res)
		default:
			cmpSame[int64](op, xp, yp, xs, ys, res)
		}
	default:
		switch dt.Bits {
		case 8:
			cmpSame[uint8](op, xp, yp, xs, ys, res)
		case 16:
			cmpSame[uint16](op, xp, yp, xs, ys, res)
		case 32:
			cmpSame[uint32](op, xp, yp, xs, ys, res)
		default:
			cmpSame[uint64](op, xp, yp, xs, ys, res)
		}
	}
}

type sameElem interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64
}

// cmpSame compares len(res) elements of T at byte strides xs and ys:
// contiguous operands and a scalar (stride 0) as Go slices, others
// through pointers.
func cmpSame[T sameElem](op CompareOp, xp, yp unsafe.Pointer, xs, ys int64, res []bool) {
	n := len(res)
	k := int64(unsafe.Sizeof(*(*T)(xp)))
	switch {
	case xs == k && ys == k:
		cmpOrdered(op, unsafe.Slice((*T)(xp), n), unsafe.Slice((*T)(yp), n), res)
	case xs == k && ys == 0:
		cmpScalar(op, unsafe.Slice((*T)(xp), n), *(*T)(yp), res)
	case xs == 0 && ys == k:
		cmpScalar(op.swapped(), unsafe.Slice((*T)(yp), n), *(*T)(xp), res)
	default:
		cmpStrided[T](op, xp, yp, xs, ys, res)
	}
}

func cmpStrided[T sameElem](op CompareOp, xp, yp unsafe.Pointer, xs, ys int64, out []bool) {
	at := func(p unsafe.Pointer, i int, s int64) T { return *(*T)(unsafe.Add(p, int64(i)*s)) }
	switch op {
	case CmpLT:
		for i := range out {
			out[i] = at(xp, i, xs) < at(yp, i, ys)
		}
	case CmpLE:
		for i := range out {
			out[i] = at(xp, i, xs) <= at(yp, i, ys)
		}
	case CmpEQ:
		for i := range out {
			out[i] = at(xp, i, xs) == at(yp, i, ys)
		}
	case CmpNE:
		for i := range out {
			out[i] = at(xp, i, xs) != at(yp, i, ys)
		}
	case CmpGT:
		for i := range out {
			out[i] = at(xp, i, xs) > at(yp, i, ys)
		}
	default:
		for i := range out {
			out[i] = at(xp, i, xs) >= at(yp, i, ys)
		}
	}
}

// ---- conversions (len(dst) elements at byte stride st) ----

func decodeAs[E int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64,
	D int64 | uint64 | float64](dst []D, p unsafe.Pointer, st int64) {
	for i := range dst {
		dst[i] = D(*(*E)(unsafe.Add(p, int64(i)*st)))
	}
}

func decodeBool[D int64 | uint64 | float64](dst []D, p unsafe.Pointer, st int64) {
	for i := range dst {
		var v D
		if *(*uint8)(unsafe.Add(p, int64(i)*st)) != 0 {
			v = 1
		}
		dst[i] = v
	}
}

// decodeTo is decodeF64, decodeU64 or decodeI64, by dst's type.
func decodeTo[T float64 | uint64 | int64](dt DataType, dst []T, p unsafe.Pointer, st int64) {
	switch d := any(dst).(type) {
	case []float64:
		decodeF64(dt, d, p, st)
	case []uint64:
		decodeU64(dt, d, p, st)
	case []int64:
		decodeI64(dt, d, p, st)
	}
}

// decodeI64 converts bools and integers that int64 holds.
func decodeI64(dt DataType, dst []int64, p unsafe.Pointer, st int64) {
	switch {
	case dt.Code == KDLBool:
		decodeBool(dst, p, st)
	case dt.Code == KDLInt && dt.Bits == 8:
		decodeAs[int8](dst, p, st)
	case dt.Code == KDLInt && dt.Bits == 16:
		decodeAs[int16](dst, p, st)
	case dt.Code == KDLInt && dt.Bits == 32:
		decodeAs[int32](dst, p, st)
	case dt.Code == KDLInt:
		decodeAs[int64](dst, p, st)
	case dt.Bits == 8:
		decodeAs[uint8](dst, p, st)
	case dt.Bits == 16:
		decodeAs[uint16](dst, p, st)
	default:
		decodeAs[uint32](dst, p, st)
	}
}

// decodeU64 converts bools and unsigned integers.
func decodeU64(dt DataType, dst []uint64, p unsafe.Pointer, st int64) {
	switch {
	case dt.Code == KDLBool:
		decodeBool(dst, p, st)
	case dt.Bits == 8:
		decodeAs[uint8](dst, p, st)
	case dt.Bits == 16:
		decodeAs[uint16](dst, p, st)
	case dt.Bits == 32:
		decodeAs[uint32](dst, p, st)
	default:
		decodeAs[uint64](dst, p, st)
	}
}

// decodeF64 converts any real dtype (64-bit integers rounded to nearest).
func decodeF64(dt DataType, dst []float64, p unsafe.Pointer, st int64) {
	switch {
	case dt.Code == KDLFloat && dt.Bits == 64:
		decodeAs[float64](dst, p, st)
	case dt.Code == KDLFloat && dt.Bits == 32:
		decodeAs[float32](dst, p, st)
	case dt.Code == KDLFloat:
		for i := range dst {
			dst[i] = float64(Float16ToFloat32(*(*uint16)(unsafe.Add(p, int64(i)*st))))
		}
	case dt.Code == KDLBfloat:
		for i := range dst {
			dst[i] = float64(BFloat16ToFloat32(*(*uint16)(unsafe.Add(p, int64(i)*st))))
		}
	case dt.Code == KDLBool:
		decodeBool(dst, p, st)
	case dt.Code == KDLInt:
		switch dt.Bits {
		case 8:
			decodeAs[int8](dst, p, st)
		case 16:
			decodeAs[int16](dst, p, st)
		case 32:
			decodeAs[int32](dst, p, st)
		default:
			decodeAs[int64](dst, p, st)
		}
	default:
		switch dt.Bits {
		case 8:
			decodeAs[uint8](dst, p, st)
		case 16:
			decodeAs[uint16](dst, p, st)
		case 32:
			decodeAs[uint32](dst, p, st)
		default:
			decodeAs[uint64](dst, p, st)
		}
	}
}

// decodeC128 converts any dtype to complex128 (reals with imaginary 0).
func decodeC128(dt DataType, dst []complex128, p unsafe.Pointer, st int64) {
	switch {
	case dt.Code == KDLComplex && dt.Bits == 128:
		for i := range dst {
			dst[i] = *(*complex128)(unsafe.Add(p, int64(i)*st))
		}
	case dt.Code == KDLComplex:
		for i := range dst {
			dst[i] = complex128(*(*complex64)(unsafe.Add(p, int64(i)*st)))
		}
	default:
		var re [cmpBlock]float64
		for j := 0; j < len(dst); j += cmpBlock {
			m := min(cmpBlock, len(dst)-j)
			decodeF64(dt, re[:m], unsafe.Add(p, int64(j)*st), st)
			for i := range m {
				dst[j+i] = complex(re[i], 0)
			}
		}
	}
}

// ---- comparisons of converted blocks ----

func cmpOrdered[T sameElem](op CompareOp, a, b []T, out []bool) {
	b = b[:len(a)]
	out = out[:len(a)]
	switch op {
	case CmpLT:
		for i := range a {
			out[i] = a[i] < b[i]
		}
	case CmpLE:
		for i := range a {
			out[i] = a[i] <= b[i]
		}
	case CmpEQ:
		for i := range a {
			out[i] = a[i] == b[i]
		}
	case CmpNE:
		for i := range a {
			out[i] = a[i] != b[i]
		}
	case CmpGT:
		for i := range a {
			out[i] = a[i] > b[i]
		}
	default:
		for i := range a {
			out[i] = a[i] >= b[i]
		}
	}
}

func cmpScalar[T sameElem](op CompareOp, a []T, b T, out []bool) {
	out = out[:len(a)]
	switch op {
	case CmpLT:
		for i := range a {
			out[i] = a[i] < b
		}
	case CmpLE:
		for i := range a {
			out[i] = a[i] <= b
		}
	case CmpEQ:
		for i := range a {
			out[i] = a[i] == b
		}
	case CmpNE:
		for i := range a {
			out[i] = a[i] != b
		}
	case CmpGT:
		for i := range a {
			out[i] = a[i] > b
		}
	default:
		for i := range a {
			out[i] = a[i] >= b
		}
	}
}

// cmpMixed compares signed a with unsigned b (len(b) is len(a), or 1 for
// a scalar or broadcast b).
func cmpMixed(op CompareOp, a []int64, b []uint64, out []bool) {
	out = out[:len(a)]
	for i := range a {
		bi := b[0]
		if len(b) > 1 {
			bi = b[i]
		}
		// sign: -1, 0, 1 for a < b, a == b, a > b
		var c int
		switch {
		case a[i] < 0 || uint64(a[i]) < bi:
			c = -1
		case uint64(a[i]) > bi:
			c = 1
		}
		out[i] = signHolds(op, c)
	}
}

func signHolds(op CompareOp, c int) bool {
	switch op {
	case CmpLT:
		return c < 0
	case CmpLE:
		return c <= 0
	case CmpEQ:
		return c == 0
	case CmpNE:
		return c != 0
	case CmpGT:
		return c > 0
	}
	return c >= 0
}

// cmpComplex compares lexicographically as numpy does: an ordering decided
// by the real parts needs both imaginary parts to be numbers.
func cmpComplex(op CompareOp, a, b []complex128, out []bool) {
	out = out[:len(a)]
	for i := range a {
		bi := b[0]
		if len(b) > 1 {
			bi = b[i]
		}
		xr, xi, yr, yi := real(a[i]), imag(a[i]), real(bi), imag(bi)
		ordered := xi == xi && yi == yi //nolint:gocritic // false for NaN
		var r bool
		switch op {
		case CmpEQ:
			r = xr == yr && xi == yi
		case CmpNE:
			r = xr != yr || xi != yi
		case CmpLT:
			r = xr < yr && ordered || xr == yr && xi < yi
		case CmpLE:
			r = xr < yr && ordered || xr == yr && xi <= yi
		case CmpGT:
			r = xr > yr && ordered || xr == yr && xi > yi
		default:
			r = xr > yr && ordered || xr == yr && xi >= yi
		}
		out[i] = r
	}
}
