package core

import (
	"fmt"
	"math"
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
//
// This file holds the rules: the operands' checks, broadcasting, the
// element a scalar stands for, and the errors; the plan, its walk and the
// row kernels are core/kernels' (compare.go, compare_rows.go).

// CompareOp is an element-wise comparison. The values are CPython's
// (Py_LT .. Py_GE).
type CompareOp int32

// The comparisons: the kernels' numbers, which are CPython's (checked
// against GD_CMP_* in ops_plans.go), so that a CompareOp converts to a
// kernels.CompareOp as it is.
const (
	CmpLT = CompareOp(kernels.CmpLT) // <
	CmpLE = CompareOp(kernels.CmpLE) // <=
	CmpEQ = CompareOp(kernels.CmpEQ) // ==
	CmpNE = CompareOp(kernels.CmpNE) // !=
	CmpGT = CompareOp(kernels.CmpGT) // >
	CmpGE = CompareOp(kernels.CmpGE) // >=
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

// cmpComparable reports whether the kernels compare arrays of dtype dt:
// bool, the integers, float16/32/64, bfloat16 and complex; not the float8,
// float6 and float4 types.
func cmpComparable(dt DataType) bool {
	k, ok := elemKind(dt)
	return ok && !k.IsFloat8()
}

// checkCmpArray refuses arrays a comparison cannot read.
func checkCmpArray(where string, o *Operand) error {
	h := o.H
	if len(o.Shape) != len(o.Strides) || len(o.Shape) > MaxNdim {
		return fmt.Errorf("%s: %d dimensions with %d strides: %w", where, len(o.Shape), len(o.Strides), ErrShape)
	}
	if !cmpComparable(h.DType) {
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
// result in interruptible ranges. A range of at least 4 MiB of work (the
// kernels' parallelMin) is split over GOMAXPROCS goroutines unless
// SetSerial(true); it does not allocate on the Go heap otherwise.
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
	out := unsafe.Add(dst.Data, dst.Offset)
	xk, xp := cmpData(x)
	if y.H != nil {
		yk, yp := cmpData(y)
		kernels.Compare(kernels.CompareOp(op), out, dstShape, start, stop,
			xk, xp, x.Shape, x.Strides, yk, yp, y.Shape, y.Strides)
		return nil
	}
	ys, konst := scalarValue(&y.S, x.H.DType, op)
	if konst >= 0 {
		kernels.CompareConst(out, start, stop, xk, konst == 1)
		return nil
	}
	kernels.CompareScalar(kernels.CompareOp(op), out, dstShape, start, stop, xk, xp, x.Shape, x.Strides, ys)
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

// ---- the operands as the kernels see them (core/kernels/compare.go) ----

// cmpData is the kind and element 0 of the array operand o (checked by
// CompareShape). The kernels take its shape and strides apart from its
// data: in one struct the data, which the kernels' goroutines keep, would
// make escape analysis move the operand's Header to the heap too.
func cmpData(o *Operand) (kernels.Kind, unsafe.Pointer) {
	k, _ := elemKind(o.H.DType)
	return k, unsafe.Add(o.H.Data, o.H.Offset*k.Size())
}

// scalarValue returns sc as the element numpy 2 compares with an array of
// dtype adt, and -1; or, when sc is a weak integer that no integer dtype
// holds compared with an integer array, or no number, the constant result
// (0 or 1) and no element.
func scalarValue(sc *Scalar, adt DataType, op CompareOp) (kernels.CmpValue, int8) {
	var s kernels.CmpValue
	intArray := adt.Code == KDLBool || adt.Code == KDLInt || adt.Code == KDLUInt
	switch sc.Kind {
	case ScalarOther:
		return s, cmpConst(op, false) // == and != only (CompareShape)
	case ScalarBool:
		s.Kind, s.Val[0] = kernels.Bool, sc.Mag&1
	case ScalarInt:
		fits := !sc.Big && (!sc.Neg || sc.Mag <= 1<<63) // an int64 or a uint64 holds it
		switch {
		case intArray && !fits:
			return s, cmpConst(op, sc.Neg)
		case intArray || !sc.Weak && fits:
			if sc.Neg {
				s.Kind, s.Val[0] = kernels.Int64, -sc.Mag // two's complement of the magnitude
			} else if sc.Mag > math.MaxInt64 {
				s.Kind, s.Val[0] = kernels.Uint64, sc.Mag
			} else {
				s.Kind, s.Val[0] = kernels.Int64, sc.Mag
			}
		default: // a weak int, or one beyond 64 bits, against a float or complex array
			s = realScalar(sc.Re, sc.Weak, adt)
		}
	case ScalarFloat:
		s = realScalar(sc.Re, sc.Weak && !intArray, adt)
	default:
		re, im := sc.Re, sc.Im
		if sc.Weak && !intArray {
			pdt := adt // the precision of the parts
			if adt == Float16 || adt == BFloat16 || adt == Float32 || adt == Complex64 {
				pdt = Float32
			}
			re, im = roundTo(pdt, re), roundTo(pdt, im)
		}
		s.Kind = kernels.Complex128
		s.Val[0], s.Val[1] = math.Float64bits(re), math.Float64bits(im)
	}
	return s, -1
}

// realScalar is f as a float64 element, rounded to the precision of adt
// when round is set.
func realScalar(f float64, round bool, adt DataType) kernels.CmpValue {
	if round {
		f = roundTo(adt, f)
	}
	return kernels.CmpValue{Kind: kernels.Float64, Val: [2]uint64{math.Float64bits(f)}}
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
