package core

/*
#include <stddef.h>
#include "godlpack.h"

enum {
  gd_rt_res_shape = offsetof(gd_reduce_target, res_shape),
  gd_rt_res_strides = offsetof(gd_reduce_target, res_strides),
  gd_rt_acc = offsetof(gd_reduce_target, acc),
  gd_rt_acc_strides = offsetof(gd_reduce_target, acc_strides),
  gd_rt_acc_is_res = offsetof(gd_reduce_target, acc_is_res),
  gd_rt_scalar = offsetof(gd_reduce_target, scalar),
  gd_rt_size = sizeof(gd_reduce_target),
  gd_rq_scalar_area = offsetof(gd_reduce_req, scalar_area)
};
*/
import "C"

import "unsafe"

// The operations of RunOp whose requests outlive one call: comparisons
// (one range of the result per call) and reductions (plan, chunks, end),
// with their C request structs of godlpack.h.

// Build-time proof that gd_reduce_target is ReduceTarget field for field,
// that Reduction fits the request's plan words, that the scalar area is
// 8-aligned and big enough, and that GD_RED_* / GD_CMP_* / GD_SCALAR_* are
// core's numbers: `[1]struct{}{}[a-b]` compiles only when a == b.
var (
	_ = [1]struct{}{}[unsafe.Offsetof(ReduceTarget{}.ResShape)-C.gd_rt_res_shape]
	_ = [1]struct{}{}[unsafe.Offsetof(ReduceTarget{}.ResStrides)-C.gd_rt_res_strides]
	_ = [1]struct{}{}[unsafe.Offsetof(ReduceTarget{}.Acc)-C.gd_rt_acc]
	_ = [1]struct{}{}[unsafe.Offsetof(ReduceTarget{}.AccStrides)-C.gd_rt_acc_strides]
	_ = [1]struct{}{}[unsafe.Offsetof(ReduceTarget{}.AccIsRes)-C.gd_rt_acc_is_res]
	_ = [1]struct{}{}[unsafe.Offsetof(ReduceTarget{}.Scalar)-C.gd_rt_scalar]
	_ = [1]struct{}{}[unsafe.Sizeof(ReduceTarget{})-C.gd_rt_size]
	_ = [1]struct{}{}[C.gd_rt_size-unsafe.Sizeof(ReduceTarget{})]
	_ = [1]struct{}{}[C.gd_rq_scalar_area%8]
	_ = [1]struct{}{}[16-ScalarBytes]
	_ [8*C.GD_REDUCE_PLAN_WORDS - unsafe.Sizeof(Reduction{})]byte // compiles only if it fits
	_ = [1]struct{}{}[C.GD_RED_SUM-int64(ReduceSum)]
	_ = [1]struct{}{}[C.GD_RED_PROD-int64(ReduceProd)]
	_ = [1]struct{}{}[C.GD_RED_MIN-int64(ReduceMin)]
	_ = [1]struct{}{}[C.GD_RED_MAX-int64(ReduceMax)]
	_ = [1]struct{}{}[C.GD_RED_ANY-int64(ReduceAny)]
	_ = [1]struct{}{}[C.GD_RED_ALL-int64(ReduceAll)]
	_ = [1]struct{}{}[C.GD_RED_MEAN-int64(ReduceMean)]
	_ = [1]struct{}{}[C.GD_CMP_LT-int64(CmpLT)]
	_ = [1]struct{}{}[C.GD_CMP_LE-int64(CmpLE)]
	_ = [1]struct{}{}[C.GD_CMP_EQ-int64(CmpEQ)]
	_ = [1]struct{}{}[C.GD_CMP_NE-int64(CmpNE)]
	_ = [1]struct{}{}[C.GD_CMP_GT-int64(CmpGT)]
	_ = [1]struct{}{}[C.GD_CMP_GE-int64(CmpGE)]
	_ = [1]struct{}{}[C.GD_SCALAR_BOOL-int64(ScalarBool)]
	_ = [1]struct{}{}[C.GD_SCALAR_INT-int64(ScalarInt)]
	_ = [1]struct{}{}[C.GD_SCALAR_FLOAT-int64(ScalarFloat)]
	_ = [1]struct{}{}[C.GD_SCALAR_COMPLEX-int64(ScalarComplex)]
	_ = [1]struct{}{}[C.GD_SCALAR_OTHER-int64(ScalarOther)]
)

// compareOp is GD_OP_COMPARE: CompareShape, then CompareInto for the
// result elements [req.start, req.stop). The first call (out.Owner nil)
// allocates the C-contiguous bool result (released again if this call
// fails) and sets req.size; the skin calls again for the next ranges of a
// long comparison (Ctrl-C between them) and releases the result if one
// fails. b is read when req.kind is 0, else the scalar in req.
func compareOp(where string, o *C.gd_op, x *Operand, out *Header, osh, ost []int64) error {
	req := (*C.gd_cmp_req)(o.ptr)
	op := CompareOp(req.op)
	var y Operand
	if req.kind == 0 {
		y.H = (*Header)(unsafe.Pointer(o.b))
		y.Shape, y.Strides = cdims(o.b_shape, int(y.H.Ndim)), cdims(o.b_strides, int(y.H.Ndim))
	} else {
		y.S = Scalar{Kind: ScalarKind(req.kind), Weak: req.weak != 0, Neg: req.neg != 0, Big: req.big != 0,
			Mag: uint64(req.mag), Re: float64(req.re), Im: float64(req.im)}
	}
	fresh := out.Owner == nil
	if fresh {
		n, err := CompareShape(op, x, &y, osh)
		if err != nil {
			return err
		}
		if err := AllocContiguousOn(where, CompareDevice(x, &y), Bool, osh[:n], out, ost, false); err != nil {
			return err
		}
		p := int64(1) // the allocation proved the product fits
		for _, d := range osh[:n] {
			p *= d
		}
		req.size = C.int64_t(p)
	}
	err := CompareInto(op, out, osh[:out.Ndim], x, &y, int64(req.start), min(int64(req.stop), int64(req.size)))
	if fresh {
		return releaseOnError(out, err)
	}
	return err
}

// reduceOp is GD_OP_REDUCE: PlanReduce and Reduction.Begin into the
// request (C memory). With req.run set it also accumulates all of a and
// ends, in this one crossing; else the skin accumulates in chunks
// (GD_OP_REDUCE_CHUNK) and ends with GD_OP_REDUCE_END.
func reduceOp(a *Header, shape, strides []int64, req *C.gd_reduce_req) error {
	var axes []int64
	if req.all == 0 {
		axes = unsafe.Slice((*int64)(unsafe.Pointer(&req.axes[0])), int(min(max(req.naxes, 0), MaxNdim)))
	}
	dt := DataType{Code: DataTypeCode(req.dtype.code), Bits: uint8(req.dtype.bits), Lanes: uint16(req.dtype.lanes)}
	r, err := PlanReduce(ReduceOp(req.op), a, shape, axes, req.all != 0, req.lone != 0, req.keepdims != 0, dt,
		req.has_dtype != 0)
	if err != nil {
		return err
	}
	plan, t := reducePlan(req), (*ReduceTarget)(unsafe.Pointer(&req.t))
	*plan = r
	var out *Header
	var osh, ost []int64
	if req.out != nil {
		out = (*Header)(unsafe.Pointer(req.out))
		osh, ost = cdims(req.out_shape, int(out.Ndim)), cdims(req.out_strides, int(out.Ndim))
	}
	if err := plan.Begin(t, out, osh, ost, unsafe.Pointer(&req.scalar_area[0])); err != nil {
		return err
	}
	if req.run == 0 {
		return nil
	}
	err = plan.Accumulate(a, shape, strides, &t.Acc, t.AccStrides[:len(shape)])
	endReduce(req, err != nil)
	return err
}

func reducePlan(req *C.gd_reduce_req) *Reduction { return (*Reduction)(unsafe.Pointer(&req.plan[0])) }

// endReduce writes the result into req.t (scalar area or result array);
// after a failure or an interrupt it frees the accumulator and a new result
// array instead.
func endReduce(req *C.gd_reduce_req, failed bool) {
	t := (*ReduceTarget)(unsafe.Pointer(&req.t))
	reducePlan(req).End(t, failed)
	if failed && req.out == nil && !t.Scalar && t.Res.Owner != nil {
		t.Res.Owner.Release()
		t.Res = Header{}
	}
}
