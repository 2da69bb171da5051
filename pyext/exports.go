//go:build pyext

// Package pyext is the CPython skin shared by every extension module built
// with godlpack (godlpack._native and the modules of the extension kit): a C
// skin (module.c, array.c, capsule.c, scalar.c, errors.c; abi3, limited API
// 3.11) around the Go core. This file holds every crossing from C into Go: one
// exported function per Python operation, each taking plain C pointers and
// integers, returning 0 or a core.Class with a message written into the
// caller's buffer (bridge.h), and recovering panics into ErrInternal.
//
// The exports never touch Python objects and never keep the pointers they
// are given. On success they allocate nothing on the Go heap: headers, shapes
// and strides live in the Python objects (C memory) or on the C stack.
//
// Build: see stub.go (the "pyext" build tag and CGO_CFLAGS with the CPython
// include directory).
package pyext

/*
#cgo LDFLAGS: -ldl
#cgo CFLAGS: -DPy_LIMITED_API=0x030B0000 -I${SRCDIR}/../core -O2 -fvisibility=hidden -Wall -Werror=implicit-function-declaration -Werror=int-conversion -Werror=incompatible-pointer-types
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"runtime/metrics"
	"unsafe"

	"github.com/godlpack/godlpack/core"
	_ "github.com/godlpack/godlpack/internal/builtins" // may_share_memory and the probes, in every module
)

// ---- helpers (no allocation on success) ----

func hdr(h *C.gd_header) *core.Header { return (*core.Header)(unsafe.Pointer(h)) }

func dims(p *C.int64_t, n int) []int64 {
	if n <= 0 || p == nil {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(p)), n)
}

func writeMsg(msg *C.char, s string) {
	if msg == nil {
		return
	}
	buf := unsafe.Slice((*byte)(unsafe.Pointer(msg)), C.GD_MSG_CAP)
	n := copy(buf[:len(buf)-1], s)
	buf[n] = 0
}

func fail(msg *C.char, err error) C.int {
	writeMsg(msg, err.Error())
	return C.int(core.ClassOf(err))
}

// failAt is fail for errors that may lack the entry point: messages start
// with it ("from_dlpack(): ...") whichever core function produced them.
func failAt(msg *C.char, where string, err error) C.int {
	s := err.Error()
	if len(s) >= len(where) && s[:len(where)] == where {
		writeMsg(msg, s)
	} else {
		writeMsg(msg, where+": "+s)
	}
	return C.int(core.ClassOf(err))
}

// guard is deferred by every export: a panic becomes ErrInternal
// (RuntimeError) instead of aborting the interpreter.
func guard(cls *C.int, msg *C.char, where string) {
	if r := recover(); r != nil {
		*cls = fail(msg, fmt.Errorf("%s: godlpack internal error (recovered Go panic: %v); please report it: %w",
			where, r, core.ErrInternal))
	}
}

func dataType(dt C.DLDataType) core.DataType {
	return core.DataType{Code: core.DataTypeCode(dt.code), Bits: uint8(dt.bits), Lanes: uint16(dt.lanes)}
}

func elemBytes(elem unsafe.Pointer, dt core.DataType) []byte {
	n := dt.ItemSize()
	if elem == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(elem), n)
}

// ---- DLPack ----

// gdgo_export answers __dlpack__: core.ServeExport. block is a C buffer of
// core.ExportBlockSize(ndim) bytes (core/glue.h allocates it) that becomes the
// managed tensor: no Go->C call on success. *out receives the managed tensor
// (NULL when Go deferred a planned copy to the C skin, req.copy_deferred),
// *versioned says which struct it is. scratch holds MaxNdim int64.
//
//export gdgo_export
func gdgo_export(h *C.gd_header, shape, strides *C.int64_t, req *C.gd_export_req, block unsafe.Pointer,
	out *unsafe.Pointer, versioned *C.int32_t, scratch *C.int64_t, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "__dlpack__()")
	H := hdr(h)
	nd := int(H.Ndim)
	s := core.ExportServeOf(unsafe.Pointer(req), nd)
	r, err := core.ServeExport(H, dims(shape, nd), dims(strides, nd), &s, block, dims(scratch, core.MaxNdim))
	if err != nil {
		return failAt(msg, "__dlpack__()", err)
	}
	*out = r.Managed
	*versioned = 0
	if r.Versioned {
		*versioned = 1
	}
	r.WriteTo(unsafe.Pointer(req))
	return 0
}

// gdgo_import takes a managed tensor out of a capsule (or an exchange API)
// for from_dlpack: core.ServeImport. *consumed is set once our owner exists:
// the C side must then rename the capsule, even if a later step failed (the
// deleter has run by then). Before that, a refusal or a retry (req.retry)
// leaves the capsule untouched (C4). ownerBlock is sizeof(gd_owner) bytes of
// malloc'ed C memory (core/glue.h) that becomes the owner; it stays the
// caller's while *consumed is 0.
//
//export gdgo_import
func gdgo_import(managed unsafe.Pointer, versioned C.int, req *C.gd_import_req, ownerBlock unsafe.Pointer,
	h *C.gd_header, shape, strides, scratch *C.int64_t, consumed *C.int32_t, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "from_dlpack()")
	s := core.ImportServeOf(unsafe.Pointer(req))
	r, err := core.ServeImport(managed, versioned != 0, &s, ownerBlock, hdr(h),
		dims(shape, core.MaxNdim), dims(strides, core.MaxNdim), dims(scratch, core.MaxNdim))
	if r.Consumed {
		*consumed = 1
	}
	r.WriteTo(unsafe.Pointer(req))
	if err != nil {
		return failAt(msg, "from_dlpack()", err)
	}
	return 0
}

// gdgo_export_view is the exchange API's dltensor_from_py_object_no_sync:
// core.ExportView into out (a DLTensor pointing at the array's own shape and
// strides).
//
//export gdgo_export_view
func gdgo_export_view(h *C.gd_header, shape, strides *C.int64_t, out unsafe.Pointer, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "dltensor_from_py_object_no_sync()")
	H := hdr(h)
	nd := int(H.Ndim)
	if err := core.ExportView(H, dims(shape, nd), dims(strides, nd), (*core.DLTensor)(out)); err != nil {
		return failAt(msg, "dltensor_from_py_object_no_sync()", err)
	}
	return 0
}

// gdgo_check_import_device is core.CheckImportDevice for from_dlpack(x,
// device=(t, id)), before the producer is asked for anything.
//
//export gdgo_check_import_device
func gdgo_check_import_device(t, id C.int32_t, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "from_dlpack()")
	err := core.CheckImportDevice(core.ImportRequest{
		HasDevice: true, Device: core.Device{Type: core.DeviceType(t), ID: int32(id)},
	})
	if err != nil {
		return failAt(msg, "from_dlpack()", err)
	}
	return 0
}

// gdgo_host_copy_types is core.AsksHostCopy of every device type below 64
// as a bit mask: the registry's answer the exchange model reads
// (gd_import_state.host_copy_types), asked once per process.
//
//export gdgo_host_copy_types
func gdgo_host_copy_types() (mask C.uint64_t) {
	defer func() {
		if recover() != nil {
			mask = 0
		}
	}()
	for t := 1; t < 64; t++ {
		if core.AsksHostCopy(core.DeviceType(t)) {
			mask |= 1 << t
		}
	}
	return mask
}

// gdgo_describe validates and describes a CPU tensor that the C skin built
// over host memory (a Python buffer for asarray(), pickled bytes):
// core.DescribeVersioned, which also sets the derived flags; no owner, no
// deleter. shape and strides hold MaxNdim entries; entry names the user's
// entry point in errors.
//
//export gdgo_describe
func gdgo_describe(managed unsafe.Pointer, h *C.gd_header, shape, strides *C.int64_t, entry, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "describe")
	err := core.DescribeVersioned((*core.DLManagedTensorVersioned)(managed), hdr(h),
		dims(shape, core.MaxNdim), dims(strides, core.MaxNdim))
	if err != nil {
		return failAt(msg, C.GoString(entry), err)
	}
	return 0
}

// ---- creation and whole-array operations ----

// gdgo_alloc allocates a C-contiguous CPU array (core.AllocContiguous) and,
// when elem is not NULL, fills it with that element (core.Fill). out
// receives a new owner reference.
//
//export gdgo_alloc
func gdgo_alloc(dt C.DLDataType, ndim C.int32_t, shape *C.int64_t, elem unsafe.Pointer,
	out *C.gd_header, ostrides *C.int64_t, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "empty()")
	d := dataType(dt)
	nd := int(ndim)
	sh, ost := dims(shape, nd), dims(ostrides, core.MaxNdim)
	O := hdr(out)
	if err := core.AllocContiguousAt("empty()", d, sh, O, ost); err != nil {
		return failAt(msg, "empty()", err)
	}
	if elem != nil {
		if err := core.Fill(O, sh, ost[:nd], elemBytes(elem, d)); err != nil {
			O.Owner.Release()
			O.Owner = nil
			return fail(msg, err)
		}
	}
	return 0
}

// gdgo_alloc_export is the managed_tensor_allocator of our C exchange API: a
// new C-contiguous CPU tensor (core.AllocContiguous) handed out as a
// DLManagedTensorVersioned (core.ExportVersioned) that owns the memory.
//
//export gdgo_alloc_export
func gdgo_alloc_export(dt C.DLDataType, ndim C.int32_t, shape *C.int64_t, dev C.DLDevice,
	out *unsafe.Pointer, scratch *C.int64_t, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "managed_tensor_allocator()")
	d := core.Device{Type: core.DeviceType(dev.device_type), ID: int32(dev.device_id)}
	if d != core.CPU {
		return failAt(msg, "managed_tensor_allocator()", fmt.Errorf("cannot allocate on %s; only cpu:0 is supported: %w", d, core.ErrDevice))
	}
	nd := int(ndim)
	if nd < 0 || nd > core.MaxNdim {
		return failAt(msg, "managed_tensor_allocator()", fmt.Errorf("%d dimensions: %w", nd, core.ErrNdim))
	}
	sh := dims(shape, nd)
	st := dims(scratch, core.MaxNdim)[:nd]
	var h core.Header
	if err := core.AllocContiguous(dataType(dt), sh, &h, st); err != nil {
		return failAt(msg, "managed_tensor_allocator()", err)
	}
	defer h.Owner.Release() // the managed tensor holds its own reference
	m, err := core.ExportVersioned(&h, sh, st, 0)
	if err != nil {
		return failAt(msg, "managed_tensor_allocator()", err)
	}
	*out = unsafe.Pointer(m)
	return 0
}

// gdgo_copy is Array.copy(): a C-contiguous deep copy (new owner reference).
//
//export gdgo_copy
func gdgo_copy(h *C.gd_header, shape, strides *C.int64_t, out *C.gd_header, ostrides *C.int64_t,
	msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "copy()")
	H, O := hdr(h), hdr(out)
	nd := int(H.Ndim)
	sh, st := dims(shape, nd), dims(strides, nd)
	ost := dims(ostrides, core.MaxNdim)[:nd]
	if err := core.AllocContiguousOn("copy()", core.CopyDevice(H.Device), H.DType, sh, O, ost, false); err != nil {
		return failAt(msg, "copy()", err)
	}
	if err := core.CopyInto(O, sh, ost, H, sh, st); err != nil {
		O.Owner.Release()
		O.Owner = nil
		return failAt(msg, "copy()", err)
	}
	return 0
}

// gdgo_fill is Array.fill(value): core.Fill with one packed element.
//
//export gdgo_fill
func gdgo_fill(h *C.gd_header, shape, strides *C.int64_t, elem unsafe.Pointer, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "fill()")
	H := hdr(h)
	nd := int(H.Ndim)
	if err := core.Fill(H, dims(shape, nd), dims(strides, nd), elemBytes(elem, H.DType)); err != nil {
		return failAt(msg, "fill()", err)
	}
	return 0
}

// ---- views ----

// indexOps converts the C index list into dst (a caller's stack array).
func indexOps(ops *C.gd_index_op, n int, dst *[C.GD_MAX_INDEX_OPS]core.IndexOp) []core.IndexOp {
	if n > len(dst) {
		n = len(dst)
	}
	src := unsafe.Slice(ops, n)
	for i := range src {
		o := &src[i]
		dst[i] = core.IndexOp{
			Kind: core.IndexKind(o.kind), I: int64(o.i),
			Start: int64(o.start), Stop: int64(o.stop), Step: int64(o.step),
			HasStart: o.has_start != 0, HasStop: o.has_stop != 0,
		}
	}
	return dst[:n]
}

// gdgo_index is a[idx] for views: core.ApplyIndex. out.owner is h.owner
// WITHOUT a new reference (the C side adds it). setitem names
// "__setitem__()" in errors: a[slice] = v on a big array fills such a view.
//
//export gdgo_index
func gdgo_index(h *C.gd_header, shape, strides *C.int64_t, ops *C.gd_index_op, nops C.int, setitem C.int,
	out *C.gd_header, oshape, ostrides *C.int64_t, msg *C.char) (cls C.int) {
	where := "__getitem__()"
	if setitem != 0 {
		where = "__setitem__()"
	}
	defer guard(&cls, msg, where)
	H, O := hdr(h), hdr(out)
	nd := int(H.Ndim)
	var buf [C.GD_MAX_INDEX_OPS]core.IndexOp
	n, err := core.ApplyIndexAt(where, H, dims(shape, nd), dims(strides, nd), indexOps(ops, int(nops), &buf),
		O, dims(oshape, core.MaxNdim), dims(ostrides, core.MaxNdim))
	if err != nil {
		return failAt(msg, where, err)
	}
	O.Ndim = int32(n)
	return 0
}

// gdgo_setitem is a[idx] = scalar: core.ApplyIndex then core.Fill of the
// selected view, in one crossing.
//
//export gdgo_setitem
func gdgo_setitem(h *C.gd_header, shape, strides *C.int64_t, ops *C.gd_index_op, nops C.int,
	elem unsafe.Pointer, scratch *C.int64_t, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "__setitem__()")
	H := hdr(h)
	nd := int(H.Ndim)
	var buf [C.GD_MAX_INDEX_OPS]core.IndexOp
	var vh core.Header
	sc := dims(scratch, 2*core.MaxNdim) // the view's shape and strides (C stack)
	vs, vst := sc[:core.MaxNdim], sc[core.MaxNdim:]
	n, err := core.ApplyIndexAt("__setitem__()", H, dims(shape, nd), dims(strides, nd), indexOps(ops, int(nops), &buf),
		&vh, vs, vst)
	if err != nil {
		return failAt(msg, "__setitem__()", err)
	}
	vh.Ndim = int32(n)
	if err := core.Fill(&vh, vs[:n], vst[:n], elemBytes(elem, H.DType)); err != nil {
		return failAt(msg, "__setitem__()", err)
	}
	return 0
}

// gdgo_reshape is a.reshape(shape): core.ReshapeOrCopy, which resolves a
// -1 in newShape in place (C memory), so the C side builds the result from
// it. out.owner is a NEW reference in both cases.
//
//export gdgo_reshape
func gdgo_reshape(h *C.gd_header, shape, strides *C.int64_t, newShape *C.int64_t, n C.int,
	out *C.gd_header, ostrides *C.int64_t, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "reshape()")
	H, O := hdr(h), hdr(out)
	nd := int(H.Ndim)
	sh, st := dims(shape, nd), dims(strides, nd)
	ns := dims(newShape, int(n))
	ost := dims(ostrides, core.MaxNdim)
	if err := core.ReshapeOrCopy(H, sh, st, ns, O, ost); err != nil {
		return failAt(msg, "reshape()", err)
	}
	O.Ndim = int32(n)
	return 0
}

// gdgo_transpose is a.transpose(*axes) / a.T (naxes 0 reverses the axes):
// core.TransposeDesc. out.owner is h.owner WITHOUT a new reference.
//
//export gdgo_transpose
func gdgo_transpose(h *C.gd_header, shape, strides *C.int64_t, axes *C.int32_t, naxes C.int32_t,
	out *C.gd_header, oshape, ostrides *C.int64_t, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "transpose()")
	H, O := hdr(h), hdr(out)
	nd := int(H.Ndim)
	var ax [core.MaxNdim]int
	k := int(naxes)
	if k > len(ax) {
		k = len(ax)
	}
	if k > 0 {
		for i, a := range unsafe.Slice((*int32)(unsafe.Pointer(axes)), k) {
			ax[i] = int(a)
		}
	}
	if err := core.TransposeDesc(H, dims(shape, nd), dims(strides, nd), ax[:k], O,
		dims(oshape, core.MaxNdim), dims(ostrides, core.MaxNdim)); err != nil {
		return failAt(msg, "transpose()", err)
	}
	O.Ndim = int32(nd)
	return 0
}

// gdgo_go_allocs returns the number of Go heap objects allocated so far
// (runtime/metrics, no stop-the-world), for tests asserting that hot paths
// allocate nothing on the Go heap.
//
//export gdgo_go_allocs
func gdgo_go_allocs() (n C.uint64_t) {
	defer func() { _ = recover() }()
	metrics.Read(allocSample[:])
	if allocSample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return C.uint64_t(allocSample[0].Value.Uint64())
}

var allocSample = [1]metrics.Sample{{Name: "/gc/heap/allocs:objects"}}
