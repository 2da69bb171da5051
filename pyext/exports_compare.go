//go:build pyext

package pyext

/*
#include "bridge.h"
#include "compare.h"
*/
import "C"

import "github.com/godlpack/godlpack/core"

// The numbers of compare.h are core's: `[1]struct{}{}[a-b]` compiles only
// when a == b.
var (
	_ = [1]struct{}{}[C.GD_CMP_LT-int64(core.CmpLT)]
	_ = [1]struct{}{}[C.GD_CMP_LE-int64(core.CmpLE)]
	_ = [1]struct{}{}[C.GD_CMP_EQ-int64(core.CmpEQ)]
	_ = [1]struct{}{}[C.GD_CMP_NE-int64(core.CmpNE)]
	_ = [1]struct{}{}[C.GD_CMP_GT-int64(core.CmpGT)]
	_ = [1]struct{}{}[C.GD_CMP_GE-int64(core.CmpGE)]

	_ = [1]struct{}{}[C.GD_SCALAR_BOOL-int64(core.ScalarBool)]
	_ = [1]struct{}{}[C.GD_SCALAR_INT-int64(core.ScalarInt)]
	_ = [1]struct{}{}[C.GD_SCALAR_FLOAT-int64(core.ScalarFloat)]
	_ = [1]struct{}{}[C.GD_SCALAR_COMPLEX-int64(core.ScalarComplex)]
)

// gdgo_compare is x == y, x < y, ...: core.CompareShape, then
// core.CompareInto for the result elements [req.start, req.stop). The first
// call (out.owner NULL) allocates the C-contiguous bool result (new owner
// reference; released again if this call fails) and sets req.size; the C
// skin calls again for the next ranges of a long comparison (Ctrl-C between
// them), and releases the result if one fails. y is read when req.kind is
// 0, else the scalar in req. oshape and ostrides hold MaxNdim entries.
//
//export gdgo_compare
func gdgo_compare(req *C.gd_cmp_req, x *C.gd_header, xshape, xstrides *C.int64_t, y *C.gd_header,
	yshape, ystrides *C.int64_t, out *C.gd_header, oshape, ostrides *C.int64_t, msg *C.char) (cls C.int) {
	op := core.CompareOp(req.op)
	where := op.String()
	defer guard(&cls, msg, where)
	X := core.Operand{H: hdr(x)}
	X.Shape, X.Strides = dims(xshape, int(X.H.Ndim)), dims(xstrides, int(X.H.Ndim))
	var Y core.Operand
	if req.kind == 0 {
		Y.H = hdr(y)
		Y.Shape, Y.Strides = dims(yshape, int(Y.H.Ndim)), dims(ystrides, int(Y.H.Ndim))
	} else {
		Y.S = core.Scalar{Kind: core.ScalarKind(req.kind), Weak: req.weak != 0, Neg: req.neg != 0,
			Big: req.big != 0, Mag: uint64(req.mag), Re: float64(req.re), Im: float64(req.im)}
	}
	O := hdr(out)
	osh := dims(oshape, core.MaxNdim)
	fresh := O.Owner == nil
	if fresh {
		n, err := core.CompareShape(op, &X, &Y, osh)
		if err != nil {
			return failAt(msg, where, err)
		}
		if err := core.AllocContiguousOn(where, core.CompareDevice(&X, &Y), core.Bool, osh[:n], O, dims(ostrides, core.MaxNdim), false); err != nil {
			return failAt(msg, where, err)
		}
		req.size = C.int64_t(product(osh[:n])) // the allocation proved it fits
	}
	stop := min(int64(req.stop), int64(req.size))
	err := core.CompareInto(op, O, osh[:O.Ndim], &X, &Y, int64(req.start), stop)
	if err != nil {
		if fresh {
			O.Owner.Release()
			O.Owner = nil
		}
		return failAt(msg, where, err)
	}
	return 0
}

func product(s []int64) int64 {
	p := int64(1)
	for _, d := range s {
		p *= d
	}
	return p
}
