package core

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/godlpack/godlpack/core/kernels"
)

// Reductions: sum, prod, min, max, any, all and mean over all axes or some,
// with numpy's result dtypes and identities.
//
// A reduction is planned once (PlanReduce: axes, dtypes, result shape), then
// runs in three steps so that the Python skin can split a long one into
// chunks and check for Ctrl-C between them:
//
//   - Begin picks the accumulator: the result array itself when the result
//     dtype is the accumulator's, else a temporary C array (or the caller's
//     16-byte scalar area for a full reduction), filled with the identity;
//   - Accumulate folds a block of the input into the accumulator, and may be
//     called on consecutive sub-blocks (each element once);
//   - End casts the accumulator into the result (dividing for mean) and
//     frees the temporary.
//
// Accumulators are float64 (real floats, and mean of integers), int64
// (signed integers and bool), uint64 (unsigned), complex128 and bool
// (any/all). Integer sums and products wrap around, as numpy's; a float
// accumulator holds float16, bfloat16 and float32 values exactly, so min
// and max are exact and sums are at least as accurate as numpy's (pairwise
// summation along the innermost axis, blocks of 128 with 8 partial sums).
//
// Here are the checks, numpy's dtype rules and the errors; the loops (the
// walk of a block, the row kernels, the identities and the casts of the
// results) are the kernels' Reducer (core/kernels/reduce.go).

// ReduceOp names a reduction.
type ReduceOp uint8

// Reductions: the kernels' numbers, so that a ReduceOp converts to a
// kernels.ReduceOp as it is.
const (
	ReduceSum  = ReduceOp(kernels.ReduceSum)
	ReduceProd = ReduceOp(kernels.ReduceProd)
	ReduceMin  = ReduceOp(kernels.ReduceMin)
	ReduceMax  = ReduceOp(kernels.ReduceMax)
	ReduceAny  = ReduceOp(kernels.ReduceAny)
	ReduceAll  = ReduceOp(kernels.ReduceAll)
	ReduceMean = ReduceOp(kernels.ReduceMean)
)

var reduceEntries = [...]string{"reduce()", "sum()", "prod()", "min()", "max()", "any()", "all()", "mean()"}

// numpy's name of the ufunc behind each reduction (for its error texts).
var reduceUfuncs = [...]string{"", "add", "multiply", "minimum", "maximum", "logical_or", "logical_and", "add"}

// String returns the Python entry point of the reduction, e.g. "sum()".
func (op ReduceOp) String() string {
	if int(op) < len(reduceEntries) {
		return reduceEntries[op]
	}
	return reduceEntries[0]
}

// redKind is dt as the reduction kernels read and write it; ok is false
// for the dtypes they do not take (float8/6/4, sub-byte, lanes, unusual
// widths).
func redKind(dt DataType) (kernels.Kind, bool) {
	k, ok := elemKind(dt)
	return k, ok && kernels.CanReduce(k)
}

// accDType is the dtype of an accumulator array of kind k.
func accDType(k kernels.AccKind) DataType {
	switch k {
	case kernels.AccFloat64:
		return Float64
	case kernels.AccInt64:
		return Int64
	case kernels.AccUint64:
		return Uint64
	case kernels.AccComplex128:
		return Complex128
	}
	return Bool
}

// Reduction is a planned reduction. It is plain data without Go pointers:
// the Python skin keeps it in C memory between the chunks of a long
// reduction.
type Reduction struct {
	Op       ReduceOp
	In       DataType // the input's dtype
	Result   DataType // the result's dtype (out= casts from it)
	Keepdims bool
	Ndim     int32  // the input's ndim
	OutNdim  int32  // the result's ndim
	Mask     uint64 // bit i set: input axis i is reduced
	Count    int64  // input elements folded into each result element
	OutSize  int64  // result elements
	OutShape [MaxNdim]int64
	Device   Device // where a new result is allocated: CopyDevice of the input's

	in  kernels.Kind    // In as the kernels read it
	acc kernels.AccKind // the type values accumulate in
}

// kern is r as the kernels run it.
func (r *Reduction) kern() kernels.Reducer {
	return kernels.Reducer{Op: kernels.ReduceOp(r.Op), In: r.in, Acc: r.acc}
}

// ReduceTarget says where a reduction accumulates and what it returns; Begin
// fills it. Like Reduction it holds no Go pointers (the headers describe C
// memory).
type ReduceTarget struct {
	// Res is the result array: a new one (Owner holds one reference), or the
	// caller's out array (Owner not retained). Unused when Scalar.
	Res        Header
	ResShape   [MaxNdim]int64 // Res.Ndim entries
	ResStrides [MaxNdim]int64
	// Acc is the accumulator: Res itself (AccIsRes), a temporary C array
	// (Owner set, freed by End or by the caller on failure), or the scalar
	// area given to Begin (Owner nil).
	Acc Header
	// AccStrides has one entry per INPUT axis, in accumulator elements: the
	// stride of the matching result axis, 0 on reduced axes.
	AccStrides [MaxNdim]int64
	AccIsRes   bool
	// Scalar: the result is one element of dtype Result that End writes
	// into the scalar area (no out=, 0-d result).
	Scalar bool
}

// ScalarBytes is the size of the scalar area Begin needs (8-aligned).
const ScalarBytes = 16

// PlanReduce plans reduction op of an array of dtype h.DType and shape
// shape. axes lists the axes to reduce (negative ones count from the end);
// all reduces every axis (axis=None); lone says axes came as one int
// rather than a tuple (numpy then accepts axis 0 or -1 on a 0-d array, and
// reduces nothing; not for mean, as numpy). keepdims keeps reduced axes as length 1. dtype, when hasDType, is numpy's dtype= argument (sum, prod and mean
// only): the accumulator and result type.
//
// Errors (messages start with op's entry point): ErrUnsupported (TypeError:
// a dtype the kernels cannot read, such as float8, or dtype= with min, max,
// any or all), ErrDType (TypeError: dtype= that numpy's same_kind casting
// refuses), ErrAxis (ValueError: out of bounds or repeated), ErrNoIdentity
// (min/max of a size-0 reduction), ErrDevice, ErrShape, ErrOverflow.
func PlanReduce(op ReduceOp, h *Header, shape []int64, axes []int64, all, lone, keepdims bool, dtype DataType,
	hasDType bool) (Reduction, error) {
	where := op.String()
	var r Reduction
	if op < ReduceSum || op > ReduceMean {
		return r, fmt.Errorf("%s: unknown reduction %d: %w", where, op, ErrInternal)
	}
	nd := len(shape)
	if nd > MaxNdim {
		return r, fmt.Errorf("%s: %d dimensions, at most %d are supported: %w", where, nd, MaxNdim, ErrNdim)
	}
	if !h.hostAccessible() {
		return r, notHostErr(where, h)
	}
	in, ok := redKind(h.DType)
	if !ok || h.DType.IsSubByte() {
		return r, fmt.Errorf("%s: %v arrays cannot be reduced; convert them first (a.astype(\"float32\")): %w",
			where, h.DType, ErrUnsupported)
	}
	size, err := shapeSize(where, shape)
	if err != nil {
		return r, err
	}
	r.Op, r.In, r.in, r.Keepdims, r.Ndim = op, h.DType, in, keepdims, int32(nd)
	r.Device = CopyDevice(h.Device)
	if err := r.types(where, dtype, hasDType); err != nil {
		return r, err
	}
	if all {
		if nd == 64 {
			r.Mask = ^uint64(0)
		} else {
			r.Mask = 1<<uint(nd) - 1
		}
	}
	if lone && op != ReduceMean && nd == 0 && len(axes) == 1 && (axes[0] == 0 || axes[0] == -1) {
		axes = nil
	}
	for _, a := range axes {
		if all {
			break
		}
		if a < -int64(nd) || a >= int64(nd) {
			msg := fmt.Sprintf("%s: axis %d is out of bounds for array of dimension %d; pass an axis in [-%d, %d)",
				where, a, nd, nd, nd)
			if nd == 0 {
				msg = fmt.Sprintf("%s: axis %d is out of bounds for array of dimension 0; pass axis=None", where, a)
			}
			return r, errorf(ErrAxis, "%s", msg)
		}
		if a < 0 {
			a += int64(nd)
		}
		if r.Mask&(1<<uint(a)) != 0 {
			return r, errorf(ErrAxis, "%s: duplicate value in 'axis' (axis %d); pass each axis once", where, a)
		}
		r.Mask |= 1 << uint(a)
	}
	r.Count, r.OutSize = 1, 1
	for i, d := range shape {
		if r.Mask&(1<<uint(i)) != 0 {
			r.Count *= d // no overflow: a factor of size (or one dimension is 0)
			if keepdims {
				r.OutShape[r.OutNdim] = 1
				r.OutNdim++
			}
			continue
		}
		r.OutSize *= d
		r.OutShape[r.OutNdim] = d
		r.OutNdim++
	}
	if size == 0 {
		// the products above may have multiplied a huge dimension by 0 late
		r.Count, r.OutSize = 1, 1
		for i, d := range shape {
			if r.Mask&(1<<uint(i)) != 0 {
				r.Count = mulZero(r.Count, d)
			} else {
				r.OutSize = mulZero(r.OutSize, d)
			}
		}
	}
	if (op == ReduceMin || op == ReduceMax) && r.Count == 0 && r.OutSize > 0 {
		return r, fmt.Errorf("%s: zero-size array to reduction operation %s which has no identity; reduce a non-empty array or axis: %w",
			where, reduceUfuncs[op], ErrNoIdentity)
	}
	return r, nil
}

// mulZero multiplies dimensions of which one at least is 0 somewhere: the
// result saturates instead of overflowing (only 0 or "non-zero" matters).
func mulZero(a, d int64) int64 {
	if a == 0 || d == 0 {
		return 0
	}
	if p, ok := mulCheck(a, d); ok {
		return p
	}
	return math.MaxInt64
}

// types sets the result dtype and accumulator of r (numpy's rules).
func (r *Reduction) types(where string, dtype DataType, hasDType bool) error {
	in := r.In.Code // a dtype redKind takes: bool, int, uint, float, bfloat or complex
	switch r.Op {
	case ReduceAny, ReduceAll:
		if hasDType {
			return fmt.Errorf("%s: dtype= is not supported; the result is bool: %w", where, ErrUnsupported)
		}
		r.Result, r.acc = Bool, kernels.AccBool
		return nil
	case ReduceMin, ReduceMax:
		if hasDType {
			return fmt.Errorf("%s: dtype= is not supported; the result has the array's dtype: %w", where, ErrUnsupported)
		}
		r.Result = r.In
		switch in {
		case KDLInt:
			r.acc = kernels.AccInt64
		case KDLBool, KDLUInt:
			r.acc = kernels.AccUint64
		case KDLComplex:
			r.acc = kernels.AccComplex128
		default:
			r.acc = kernels.AccFloat64
		}
		return nil
	}
	if !hasDType {
		switch {
		case r.Op == ReduceMean && (in == KDLBool || in == KDLInt || in == KDLUInt):
			r.Result, r.acc = Float64, kernels.AccFloat64
		case in == KDLBool || in == KDLInt:
			r.Result, r.acc = Int64, kernels.AccInt64
		case in == KDLUInt:
			r.Result, r.acc = Uint64, kernels.AccUint64
		case in == KDLComplex:
			r.Result, r.acc = r.In, kernels.AccComplex128
		default:
			r.Result, r.acc = r.In, kernels.AccFloat64
		}
		return nil
	}
	if _, ok := redKind(dtype); !ok {
		return fmt.Errorf("%s: dtype=%v is not supported; pass a bool, integer, float or complex dtype: %w", where, dtype, ErrUnsupported)
	}
	out := dtype.Code
	// numpy's same_kind casting of the input into dtype
	inFloat, outFloat := in == KDLFloat || in == KDLBfloat, out == KDLFloat || out == KDLBfloat
	refuse := (in == KDLComplex && out != KDLComplex) || (inFloat && !outFloat && out != KDLComplex)
	if refuse {
		return WithClass(ClassType, fmt.Sprintf("%s: cannot accumulate %v values in dtype=%v (numpy's same_kind rule); pass dtype=%v or a wider type",
			where, r.In, dtype, r.In), ErrDType)
	}
	r.Result = dtype
	switch out {
	case KDLBool, KDLInt:
		r.acc = kernels.AccInt64
	case KDLUInt:
		r.acc = kernels.AccUint64
	case KDLComplex:
		r.acc = kernels.AccComplex128
	default:
		r.acc = kernels.AccFloat64
	}
	return nil
}

// AccDType is the dtype of r's accumulator.
func (r *Reduction) AccDType() DataType { return accDType(r.acc) }

// Begin prepares the accumulator and result of r (see ReduceTarget). out,
// when not nil, is numpy's out= array (outShape, outStrides): it must have
// the result's shape, be writable and CPU-accessible; any dtype the kernels
// can write (values are cast). scalar is the caller's ScalarBytes-byte area
// (C memory, 8-aligned) used for full reductions. On failure nothing is
// left allocated.
//
// Errors: ErrShape (ValueError: out's shape), ErrReadOnly, ErrDevice,
// ErrUnsupported (out's dtype), ErrNoMemory.
func (r *Reduction) Begin(t *ReduceTarget, out *Header, outShape, outStrides []int64, scalar unsafe.Pointer) error {
	where := r.Op.String()
	*t = ReduceTarget{}
	nout := int(r.OutNdim)
	var accStr [MaxNdim]int64 // result-axis strides of the accumulator
	switch {
	case out != nil:
		if len(outShape) != nout || !sameDims(outShape, r.OutShape[:nout]) {
			return WithClass(ClassValue, fmt.Sprintf("%s: out has shape %s, the result has shape %s; pass out= of that shape",
				where, dimsString(outShape), dimsString(r.OutShape[:nout])), ErrShape)
		}
		if out.ReadOnly() {
			return fmt.Errorf("%s: out is read-only; pass a writable array: %w", where, ErrReadOnly)
		}
		if !out.hostAccessible() {
			return fmt.Errorf("%s: out is in %v memory; pass a CPU array: %w", where, out.Device, ErrDevice)
		}
		if _, ok := redKind(out.DType); !ok || out.DType.IsSubByte() {
			return fmt.Errorf("%s: cannot write results into a %v array; pass out= of a bool, integer, float or complex dtype: %w",
				where, out.DType, ErrUnsupported)
		}
		if r.OutSize > 0 && out.Data == nil {
			return fmt.Errorf("%s: out: %w", where, ErrNullData)
		}
		t.Res = *out
		copy(t.ResStrides[:nout], outStrides)
		if nout == 0 {
			t.Acc = Header{Data: scalar, DType: accDType(r.acc), Device: CPU}
			break
		}
		if err := allocContiguous(where, CPU, accDType(r.acc), r.OutShape[:nout], &t.Acc, accStr[:nout], false, true); err != nil {
			return err
		}
	case nout == 0:
		t.Scalar = true
		t.Res.DType = r.Result
		t.Acc = Header{Data: scalar, DType: accDType(r.acc), Device: CPU}
	default:
		if err := allocContiguous(where, r.Device, r.Result, r.OutShape[:nout], &t.Res, t.ResStrides[:nout], false, true); err != nil {
			return err
		}
		if r.Result == accDType(r.acc) {
			t.Acc, t.AccIsRes = t.Res, true
			copy(accStr[:nout], t.ResStrides[:nout])
			break
		}
		if err := allocContiguous(where, CPU, accDType(r.acc), r.OutShape[:nout], &t.Acc, accStr[:nout], false, true); err != nil {
			t.Res.Owner.Release()
			t.Res = Header{}
			return err
		}
	}
	copy(t.ResShape[:nout], r.OutShape[:nout])
	j := 0
	for i := 0; i < int(r.Ndim); i++ {
		if r.Mask&(1<<uint(i)) != 0 {
			t.AccStrides[i] = 0
			if r.Keepdims {
				j++
			}
			continue
		}
		t.AccStrides[i] = accStr[j]
		j++
	}
	n := r.OutSize
	if t.Acc.Data == nil {
		n = 0 // an empty result
	}
	red := r.kern()
	red.Identity(t.Acc.Data, n)
	return nil
}

func sameDims(a, b []int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Accumulate folds the block of the input described by h, shape and strides
// into the accumulator acc (accStrides per input axis, see ReduceTarget),
// both offset to the block's first element. Blocks must not repeat elements.
// It does not allocate on the Go heap.
//
// Errors: ErrShape, ErrDevice, ErrNullData.
func (r *Reduction) Accumulate(h *Header, shape, strides []int64, acc *Header, accStrides []int64) error {
	where := r.Op.String()
	size, err := checkWalk(where, h, shape, strides)
	if err != nil || size == 0 {
		return err
	}
	if len(accStrides) < len(shape) || h.DType != r.In {
		return fmt.Errorf("%s: accumulator does not match the input: %w", where, ErrInternal)
	}
	ap := unsafe.Add(acc.Data, acc.Offset*r.acc.Size())
	ip := unsafe.Add(h.Data, h.Offset*h.DType.ItemSize())
	red := r.kern()
	red.Fold(ap, accStrides, ip, strides, shape)
	return nil
}

// End writes the result of a reduction whose blocks were all accumulated:
// the accumulator cast into t.Res (mean divides by Count), or into the
// scalar area when t.Scalar; then frees a temporary accumulator. It is
// called once, also after a failure (then with failed set: it only frees).
func (r *Reduction) End(t *ReduceTarget, failed bool) {
	defer func() {
		if !t.AccIsRes && t.Acc.Owner != nil {
			t.Acc.Owner.Release()
		}
		t.Acc = Header{}
	}()
	if failed {
		return
	}
	red := r.kern()
	if t.Scalar {
		if rk, ok := redKind(r.Result); ok {
			red.FinishOne(t.Acc.Data, rk, t.Acc.Data, r.Count)
		}
		return
	}
	if r.OutSize == 0 {
		return
	}
	nout := int(r.OutNdim)
	if t.AccIsRes {
		red.FinishInPlace(t.Acc.Data, r.OutSize, r.Count) // a mean divides; the others are done
		return
	}
	// Cast the (C-contiguous) accumulator into the result, any strides.
	rk, ok := redKind(t.Res.DType)
	if !ok {
		return
	}
	base := unsafe.Add(t.Res.Data, t.Res.Offset*rk.Size())
	red.Finish(base, rk, r.OutShape[:nout], t.ResStrides[:nout], t.Acc.Data, r.OutSize, r.Count)
}

// Sum adds up the elements of the array described by h, shape and strides
// (an empty array sums to zero of its kind): the full reduction ReduceSum
// with its accumulator returned unrounded. Bool sums count the true elements
// (as int). It does not allocate on the Go heap.
//
// Errors: ErrUnsupported (float8/6/4 and other dtypes the kernels cannot
// read), ErrDevice, ErrShape, ErrNullData.
func Sum(h *Header, shape, strides []int64) (SumResult, error) {
	var res SumResult
	r, err := PlanReduce(ReduceSum, h, shape, nil, true, false, false, DataType{}, false)
	if err != nil {
		return res, err
	}
	var area [ScalarBytes / 8]uint64
	acc := Header{Data: unsafe.Pointer(&area), DType: accDType(r.acc), Device: CPU}
	red := r.kern()
	red.Identity(acc.Data, 1)
	var zero [MaxNdim]int64
	if err := r.Accumulate(h, shape, strides, &acc, zero[:len(shape)]); err != nil {
		return res, err
	}
	switch r.acc { // the accumulator's bits: area[0], and area[1] the imaginary part
	case kernels.AccInt64:
		res.Kind, res.I = SumInt, int64(area[0])
	case kernels.AccUint64:
		res.Kind, res.U = SumUint, area[0]
	case kernels.AccFloat64:
		res.Kind, res.F = SumFloat, math.Float64frombits(area[0])
	default:
		res.Kind, res.C = SumComplex, complex(math.Float64frombits(area[0]), math.Float64frombits(area[1]))
	}
	return res, nil
}

// SumKind says which field of a SumResult holds the sum.
type SumKind uint8

// Sum kinds.
const (
	SumInt     SumKind = iota + 1 // I: signed integers and bool (count of true)
	SumUint                       // U: unsigned integers
	SumFloat                      // F: float16, bfloat16, float32, float64
	SumComplex                    // C: complex64, complex128
)

// SumResult is the sum of an array's elements (Sum). Integer sums wrap
// around on overflow (like numpy); floating-point sums accumulate in float64
// and complex sums in complex128, whatever the element type.
type SumResult struct {
	Kind SumKind
	I    int64
	U    uint64
	F    float64
	C    complex128
}
