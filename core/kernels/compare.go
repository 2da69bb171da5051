package kernels

import (
	"math"
	"runtime"
	"unsafe"
)

// Element-wise comparisons (==, !=, <, <=, >, >=) of two arrays, or of an
// array and one element, into bools: the plan and its walk over the
// broadcast result. core (core/compare.go) holds numpy 2's rules, checks
// the operands and works out the element a scalar stands for; the row
// kernels that compare are in compare_rows.go.
//
// Each pair of kinds compares in one domain: int64 for bools and integers
// that int64 holds, uint64 for bools and unsigned integers with a uint64,
// a mixed domain for a signed integer against a uint64, float64 for reals
// with a float (exact but for 64-bit integers, which numpy rounds to
// float64 too), complex128 with a complex. Two operands of one kind that
// Go has a type for compare in that type, without conversions.

// CompareOp is an element-wise comparison, numbered as CPython's Py_LT ..
// Py_GE; core's CompareOp constants are these numbers.
type CompareOp uint8

// The comparisons.
const (
	CmpLT CompareOp = iota // <
	CmpLE                  // <=
	CmpEQ                  // ==
	CmpNE                  // !=
	CmpGT                  // >
	CmpGE                  // >=
)

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

// CmpValue is a scalar operand of a comparison: one element of Kind (Bool,
// Int64, Uint64, Float64 or Complex128) in Val. Val[0] holds its 64 bits
// (a bool 0 or 1, an integer in two's complement, a float64's
// math.Float64bits, a complex's real part) and Val[1] a complex's
// imaginary part.
type CmpValue struct {
	Kind Kind
	Val  [2]uint64
}

// Compare writes op(x, y) as bools (bytes 0 or 1) for the elements
// [start, stop), in C order, of the result of shape (the broadcast of x's
// and y's shapes, at most MaxNdim axes) whose element 0 is at out; the
// result is C-contiguous. x is an array of kind xk (any but the float8
// kinds) with element 0 at xp, of shape xShape and strides xStrides (in
// elements); y likewise. An operand's axes align on the right with the
// result's; an axis of length 1, or a missing one, is broadcast. A range of
// at least parallelMin bytes of work is split over GOMAXPROCS goroutines
// unless Serial(); it does not allocate on the Go heap otherwise. The
// shapes and strides are parameters of their own, apart from the data
// pointers the goroutines keep, so that they do not escape.
func Compare(op CompareOp, out unsafe.Pointer, shape []int64, start, stop int64,
	xk Kind, xp unsafe.Pointer, xShape, xStrides []int64,
	yk Kind, yp unsafe.Pointer, yShape, yStrides []int64) {
	var p cmpPlan
	p.op, p.konst = op, -1
	p.x.setArray(xk, xp, xShape, xStrides, len(shape))
	p.y.setArray(yk, yp, yShape, yStrides, len(shape))
	p.build(shape)
	p.exec(out, start, stop, xk.Size())
}

// CompareScalar is Compare of the array x with the one element y.
func CompareScalar(op CompareOp, out unsafe.Pointer, shape []int64, start, stop int64,
	xk Kind, xp unsafe.Pointer, xShape, xStrides []int64, y CmpValue) {
	var p cmpPlan
	p.op, p.konst = op, -1
	p.x.setArray(xk, xp, xShape, xStrides, len(shape))
	p.y.scalar, p.y.k, p.y.val = true, y.Kind, y.Val
	p.build(shape)
	p.exec(out, start, stop, xk.Size())
}

// CompareConst writes v into the elements [start, stop) of a comparison's
// result at out, for a comparison whose every answer is v whatever the
// elements (core knows when: a weak int beyond every 64-bit integer
// against an integer array, an object that is no number); xk is the kind
// of the array compared, which sizes the work as in Compare.
func CompareConst(out unsafe.Pointer, start, stop int64, xk Kind, v bool) {
	var p cmpPlan
	p.konst = 0
	if v {
		p.konst = 1
	}
	p.exec(out, start, stop, xk.Size())
}

// cmpClass is the family of a kind for comparisons.
type cmpClass uint8

const (
	clsNone cmpClass = iota // not compared (the float8 kinds: core refuses them)
	clsBool
	clsInt
	clsUint
	clsFloat
	clsComplex
)

func cmpClassOf(k Kind) cmpClass {
	switch {
	case k == Bool:
		return clsBool
	case k >= Int8 && k <= Int64:
		return clsInt
	case k >= Uint8 && k <= Uint64:
		return clsUint
	case k == Float32 || k == Float64 || k == Float16 || k == BFloat16:
		return clsFloat
	case k == Complex64 || k == Complex128:
		return clsComplex
	}
	return clsNone
}

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
	k      Kind
	scalar bool           // the value is in val (stride 0)
	p      unsafe.Pointer // element 0 of an array
	val    [2]uint64      // a scalar's element, of kind k
	st     [MaxNdim]int64 // byte strides over the merged dimensions
}

// cmpPlan is a comparison over at most MaxNdim merged dimensions.
type cmpPlan struct {
	op    CompareOp
	dom   cmpDomain
	konst int8 // -1, or 0/1: every element of the result is that (CompareConst)
	same  bool // both operands hold the same fast kind (sameKernel): compared without conversion
	n     int
	shape [MaxNdim]int64
	x, y  cmpSide
}

// build plans the comparison of the sides x and y (set) over the
// broadcast shape.
func (p *cmpPlan) build(shape []int64) {
	nd := len(shape)
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
	if p.y.scalar {
		p.narrowScalar()
	}
	p.same = p.x.k == p.y.k && sameKernel(p.x.k)
}

// sameKernel reports whether two operands of kind k compare directly in
// Go's type for it (bool excepted: a foreign bool byte may be neither 0
// nor 1; float16 and bfloat16 have no Go type).
func sameKernel(k Kind) bool {
	switch cmpClassOf(k) {
	case clsInt, clsUint:
		return true
	case clsFloat:
		return k == Float32 || k == Float64
	}
	return false
}

// narrowScalar stores the scalar operand in the array's own kind when that
// changes no answer: the array's values are exact in the comparison's
// domain (not a 64-bit integer rounded to float64) and the scalar's value
// in that domain is one of the kind's values. The comparison then runs
// without conversions.
func (p *cmpPlan) narrowScalar() {
	xt := p.x.k
	if p.x.scalar || !sameKernel(xt) || xt == p.y.k {
		return
	}
	yp := unsafe.Pointer(&p.y.val)
	var v [1]float64
	switch p.dom {
	case domI64:
		var i [1]int64
		decodeI64(p.y.k, i[:], yp, 0)
		if xt.Size() == 8 { // int64: uint64 arrays are not in this domain
			p.y.val[0], p.y.k = uint64(i[0]), xt
			return
		}
		v[0] = float64(i[0]) // exact; the kind's range is checked below
	case domU64:
		var u [1]uint64
		decodeU64(p.y.k, u[:], yp, 0)
		if xt.Size() == 8 {
			p.y.val[0], p.y.k = u[0], xt
			return
		}
		if u[0] > math.MaxUint32 {
			return
		}
		v[0] = float64(u[0])
	case domF64:
		if xt.Size() == 8 && xt != Float64 {
			return // numpy rounds the 64-bit integers to float64
		}
		decodeF64(p.y.k, v[:], yp, 0)
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
		switch xt.Size() {
		case 1:
			*(*uint8)(yp) = uint8(int64(f))
		case 2:
			*(*uint16)(yp) = uint16(int64(f))
		default:
			*(*uint32)(yp) = uint32(int64(f))
		}
	}
	p.y.k = xt
}

// intRange returns the range of an integer kind of at most 32 bits.
func intRange(k Kind) (float64, float64) {
	bits := 8 * int(k.Size())
	if cmpClassOf(k) == clsUint {
		return 0, math.Ldexp(1, bits) - 1
	}
	h := math.Ldexp(1, bits-1)
	return -h, h - 1
}

// setArray describes an array operand (kind k, element 0 at data, the
// layout shape and strides in elements) with byte strides aligned on the
// right to nd output dimensions, 0 where it is broadcast.
func (s *cmpSide) setArray(k Kind, data unsafe.Pointer, shape, strides []int64, nd int) {
	s.k, s.p = k, data
	size := k.Size()
	off := nd - len(shape)
	for i := 0; i < nd; i++ {
		s.st[i] = 0
		if j := i - off; j >= 0 && shape[j] != 1 {
			s.st[i] = strides[j] * size
		}
	}
}

func (p *cmpPlan) pickDomain() {
	xc, yc := cmpClassOf(p.x.k), cmpClassOf(p.y.k)
	switch {
	case xc == clsComplex || yc == clsComplex:
		p.dom = domC128
	case xc == clsFloat || yc == clsFloat:
		p.dom = domF64
	default:
		xu := p.x.k == Uint64
		yu := p.y.k == Uint64
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

// exec computes the result elements [start, stop) (C order) into out, the
// result's element 0: on the calling goroutine below parallelMin bytes of
// work (stop-start elements of xsize bytes, at least 8), else split over
// GOMAXPROCS goroutines unless Serial().
func (p *cmpPlan) exec(out unsafe.Pointer, start, stop, xsize int64) {
	w := int64(runtime.GOMAXPROCS(0))
	if Serial() || w < 2 || (stop-start)*max(xsize, 8) < parallelMin {
		p.run(out, start, stop)
		return
	}
	q := *p // the goroutines' copy: the caller's plan stays on the stack on the serial path
	splitRange(start, stop, w, func(lo, hi int64) { q.run(out, lo, hi) })
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
