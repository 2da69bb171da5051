//go:build pyext

package pyext

/*
#include <stddef.h>
#include "reduce.h"

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

import (
	"unsafe"

	"github.com/godlpack/godlpack/core"
)

// Build-time proof that gd_reduce_target is core.ReduceTarget field for
// field, that core.Reduction fits the request's plan words, that the scalar
// area is 8-aligned and big enough, and that GD_RED_* are core's.
var (
	_ = [1]struct{}{}[unsafe.Offsetof(core.ReduceTarget{}.ResShape)-C.gd_rt_res_shape]
	_ = [1]struct{}{}[unsafe.Offsetof(core.ReduceTarget{}.ResStrides)-C.gd_rt_res_strides]
	_ = [1]struct{}{}[unsafe.Offsetof(core.ReduceTarget{}.Acc)-C.gd_rt_acc]
	_ = [1]struct{}{}[unsafe.Offsetof(core.ReduceTarget{}.AccStrides)-C.gd_rt_acc_strides]
	_ = [1]struct{}{}[unsafe.Offsetof(core.ReduceTarget{}.AccIsRes)-C.gd_rt_acc_is_res]
	_ = [1]struct{}{}[unsafe.Offsetof(core.ReduceTarget{}.Scalar)-C.gd_rt_scalar]
	_ = [1]struct{}{}[unsafe.Sizeof(core.ReduceTarget{})-C.gd_rt_size]
	_ = [1]struct{}{}[C.gd_rt_size-unsafe.Sizeof(core.ReduceTarget{})]
	_ = [1]struct{}{}[C.gd_rq_scalar_area%8]
	_ = [1]struct{}{}[16-core.ScalarBytes]

	_ [8*C.GD_REDUCE_PLAN_WORDS - unsafe.Sizeof(core.Reduction{})]byte // compiles only if it fits

	_ = [1]struct{}{}[C.GD_RED_SUM-int64(core.ReduceSum)]
	_ = [1]struct{}{}[C.GD_RED_PROD-int64(core.ReduceProd)]
	_ = [1]struct{}{}[C.GD_RED_MIN-int64(core.ReduceMin)]
	_ = [1]struct{}{}[C.GD_RED_MAX-int64(core.ReduceMax)]
	_ = [1]struct{}{}[C.GD_RED_ANY-int64(core.ReduceAny)]
	_ = [1]struct{}{}[C.GD_RED_ALL-int64(core.ReduceAll)]
	_ = [1]struct{}{}[C.GD_RED_MEAN-int64(core.ReduceMean)]
)

func reqPlan(req *C.gd_reduce_req) *core.Reduction {
	return (*core.Reduction)(unsafe.Pointer(&req.plan[0]))
}

func reqTarget(req *C.gd_reduce_req) *core.ReduceTarget {
	return (*core.ReduceTarget)(unsafe.Pointer(&req.t))
}

func opEntry(req *C.gd_reduce_req) string { return core.ReduceOp(req.op).String() }

// gdgo_reduce is a.sum(...), prod, min, max, any, all, mean: core.PlanReduce
// and Reduction.Begin into req (C memory). With req.run set it also
// accumulates all of the array and finishes, in this one crossing; else
// chunk.c accumulates in chunks (gdgo_reduce_chunk) and calls
// gdgo_reduce_end.
//
//export gdgo_reduce
func gdgo_reduce(h *C.gd_header, shape, strides *C.int64_t, req *C.gd_reduce_req, msg *C.char) (cls C.int) {
	where := opEntry(req)
	defer guard(&cls, msg, where)
	H := hdr(h)
	nd := int(H.Ndim)
	sh, st := dims(shape, nd), dims(strides, nd)
	var axes []int64
	if req.all == 0 {
		axes = unsafe.Slice((*int64)(unsafe.Pointer(&req.axes[0])), int(min(max(req.naxes, 0), core.MaxNdim)))
	}
	r, err := core.PlanReduce(core.ReduceOp(req.op), H, sh, axes, req.all != 0, req.lone != 0, req.keepdims != 0,
		dataType(req.dtype), req.has_dtype != 0)
	if err != nil {
		return failAt(msg, where, err)
	}
	plan, t := reqPlan(req), reqTarget(req)
	*plan = r
	var out *core.Header
	var osh, ost []int64
	if req.out != nil {
		out = hdr(req.out)
		osh, ost = dims(req.out_shape, int(out.Ndim)), dims(req.out_strides, int(out.Ndim))
	}
	if err := plan.Begin(t, out, osh, ost, unsafe.Pointer(&req.scalar_area[0])); err != nil {
		return failAt(msg, where, err)
	}
	if req.run == 0 {
		return 0
	}
	if err := plan.Accumulate(H, sh, st, &t.Acc, t.AccStrides[:nd]); err != nil {
		endReduce(req, true)
		return failAt(msg, where, err)
	}
	endReduce(req, false)
	return 0
}

// gdgo_reduce_chunk folds one block of the input (h, shape, strides; h's
// offset at the block) into the accumulator acc (offset at the block's
// first result element): one chunk of a long reduction (chunk.c).
//
//export gdgo_reduce_chunk
func gdgo_reduce_chunk(h *C.gd_header, shape, strides *C.int64_t, acc *C.gd_header, accStrides *C.int64_t,
	req *C.gd_reduce_req, msg *C.char) (cls C.int) {
	where := opEntry(req)
	defer guard(&cls, msg, where)
	H := hdr(h)
	nd := int(H.Ndim)
	if err := reqPlan(req).Accumulate(H, dims(shape, nd), dims(strides, nd), hdr(acc), dims(accStrides, nd)); err != nil {
		return failAt(msg, where, err)
	}
	return 0
}

// gdgo_reduce_end finishes a chunked reduction (failed == 0): the result
// written into req.t (scalar area or result array); or, after a failure or
// an interrupt (failed != 0), frees the accumulator and a new result array.
//
//export gdgo_reduce_end
func gdgo_reduce_end(req *C.gd_reduce_req, failed C.int, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, opEntry(req))
	endReduce(req, failed != 0)
	return 0
}

func endReduce(req *C.gd_reduce_req, failed bool) {
	t := reqTarget(req)
	reqPlan(req).End(t, failed)
	if failed && req.out == nil && !t.Scalar && t.Res.Owner != nil {
		t.Res.Owner.Release()
		t.Res = core.Header{}
	}
}
