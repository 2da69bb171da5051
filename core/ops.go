package core

/*
#include "godlpack.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// RunOp runs the operation that the C gd_op at p describes (godlpack.h):
// every operation of the CPython skin on arrays other than the exchange
// itself, in one crossing. The skin's single Go export calls it, and
// tests_go drives it through the same struct. It allocates nothing on the
// Go heap on success; errors start with the op's entry point.
//
// A switch rather than a table of functions: a call through a function
// value would move the request's Go views to the heap.
func RunOp(p unsafe.Pointer) error {
	o := (*C.gd_op)(p)
	where := opEntry(o)
	var a *Header
	var ash, ast []int64
	if o.a != nil {
		a = (*Header)(unsafe.Pointer(o.a))
		ash, ast = cdims(o.a_shape, int(a.Ndim)), cdims(o.a_strides, int(a.Ndim))
	}
	out := (*Header)(unsafe.Pointer(o.out))
	osh, ost := cdims(o.out_shape, MaxNdim), cdims(o.out_strides, MaxNdim)
	ints := cdims(o.ints, int(o.nints))
	dt := DataType{Code: DataTypeCode(o.dtype.code), Bits: uint8(o.dtype.bits), Lanes: uint16(o.dtype.lanes)}
	dev := Device{Type: DeviceType(o.device.device_type), ID: int32(o.device.device_id)}
	switch o.op {
	case C.GD_OP_ALLOC:
		return newFilled(where, dt, ints, dev, o.flag != 0, o.elem, out, ost)
	case C.GD_OP_COPY:
		return newCopy(where, a, ash, ast, a.DType, out, ost, false)
	case C.GD_OP_CONVERT:
		if err := CheckConvert(where, a.DType, dt); err != nil {
			return err
		}
		return newCopy(where, a, ash, ast, dt, out, ost, true)
	case C.GD_OP_COPY_INTO, C.GD_OP_CONVERT_INTO:
		b := (*Header)(unsafe.Pointer(o.b))
		bst := cdims(o.b_strides, int(a.Ndim))
		if o.op == C.GD_OP_COPY_INTO {
			return CopyInto(a, ash, ast, b, ash, bst)
		}
		return ConvertInto(a, ash, ast, b, ash, bst)
	case C.GD_OP_FILL:
		return Fill(a, ash, ast, elemOf(o.elem, a.DType))
	case C.GD_OP_INDEX:
		var buf [C.GD_MAX_INDEX_OPS]IndexOp
		n, err := ApplyIndexAt(where, a, ash, ast, indexOps(o, &buf), out, osh, ost)
		out.Ndim = int32(n)
		return err
	case C.GD_OP_SETITEM:
		return setItem(where, a, ash, ast, o, (*[2 * MaxNdim]int64)(unsafe.Pointer(o.ptr)))
	case C.GD_OP_RESHAPE:
		out.Ndim = int32(len(ints))
		return ReshapeOrCopy(a, ash, ast, ints, out, ost)
	case C.GD_OP_TRANSPOSE:
		var ax [MaxNdim]int
		for i, x := range ints[:min(len(ints), MaxNdim)] {
			ax[i] = int(x)
		}
		out.Ndim = a.Ndim
		return TransposeDesc(a, ash, ast, ax[:min(len(ints), MaxNdim)], out, osh, ost)
	case C.GD_OP_DESCRIBE:
		return DescribeVersioned((*DLManagedTensorVersioned)(o.ptr), out, osh, ost)
	case C.GD_OP_EXPORT_VIEW:
		return ExportView(a, ash, ast, (*DLTensor)(o.ptr))
	case C.GD_OP_ALLOC_EXPORT:
		if o.nints < 0 || o.nints > MaxNdim {
			return fmt.Errorf("%s: %d dimensions: %w", where, o.nints, ErrNdim)
		}
		return allocExport(where, dt, ints, dev, (*unsafe.Pointer)(o.ptr), ost)
	case C.GD_OP_STREAM:
		q, err := ConsumerStream(dev)
		if err == nil {
			*(*unsafe.Pointer)(o.ptr) = q
		}
		return err
	case C.GD_OP_DEVICE:
		pair, t, id := len(ints) == 2, int64(0), int64(0)
		if pair {
			t, id = ints[0], ints[1]
		}
		d, err := DeviceArg(where, C.GoString((*C.char)(o.ptr)), pair, t, id)
		out.Device = d
		return err
	case C.GD_OP_CHECK_DEVICE:
		return CheckImportDevice(ImportRequest{HasDevice: true, Device: dev})
	case C.GD_OP_COMPARE:
		return compareOp(where, o, &Operand{H: a, Shape: ash, Strides: ast}, out, osh, ost)
	case C.GD_OP_REDUCE:
		return reduceOp(a, ash, ast, (*C.gd_reduce_req)(o.ptr))
	case C.GD_OP_REDUCE_CHUNK:
		req := (*C.gd_reduce_req)(o.ptr)
		return reducePlan(req).Accumulate(a, ash, ast, (*Header)(unsafe.Pointer(o.b)), cdims(o.b_strides, len(ash)))
	case C.GD_OP_REDUCE_END:
		endReduce((*C.gd_reduce_req)(o.ptr), o.flag != 0)
		return nil
	case C.GD_OP_JUDGE_EXPORT:
		return judgeOp(where, (*C.gd_judge)(o.ptr), o.flag != 0)
	case C.GD_OP_RESULT_TYPE:
		return resultTypeOp(where, o, out)
	case C.GD_OP_VIEW_DTYPE:
		out.Ndim = a.Ndim
		return ViewDTypeDesc(a, ash, ast, dt, out, osh, ost)
	}
	return fmt.Errorf("%s: no operation %d: %w", where, o.op, ErrInternal)
}

// resultTypeOp is GD_OP_RESULT_TYPE: ResultType of the nints DLDataTypes at
// ptr, written as out's dtype; it allocates nothing.
func resultTypeOp(where string, o *C.gd_op, out *Header) error {
	var dts []DataType
	if o.nints > 0 && o.ptr != nil {
		dts = unsafe.Slice((*DataType)(o.ptr), int(o.nints)) // DataType is DLDataType (abi_check.go)
	}
	r, err := ResultType(where, dts)
	if err == nil {
		out.DType = r
	}
	return err
}

// Judge grades one conformance case given as JSON (an ExportCase; an
// ImportCase when imports; "" asks for the catalogue of checks) and returns
// the results as JSON. Package core/conformance sets it as it initialises:
// the judge imports core, not the reverse (GD_OP_JUDGE_EXPORT reaches it).
var Judge func(in string, managed unsafe.Pointer, imports bool) ([]byte, error)

// judgeOp is GD_OP_JUDGE_EXPORT: Judge between C strings.
func judgeOp(where string, j *C.gd_judge, imports bool) error {
	if Judge == nil {
		return fmt.Errorf("%s: the conformance judge is not linked (import github.com/godlpack/godlpack/core/conformance): %w", where, ErrInternal)
	}
	out, err := Judge(C.GoString(j.in), j.managed, imports)
	if err != nil {
		return fmt.Errorf("%s: %v: %w", where, err, ErrArgument)
	}
	j.out = C.CString(string(out))
	return nil
}

// opEntry is the entry point of o as a Go string over the C string (no
// copy: it is read while the operation runs, and messages copy it). The
// length is counted in Go: C.strlen would be a call into C on every
// operation.
func opEntry(o *C.gd_op) string {
	if o.entry == nil {
		return "godlpack"
	}
	p := unsafe.Pointer(o.entry)
	n := 0
	for *(*byte)(unsafe.Add(p, n)) != 0 && n < 256 {
		n++
	}
	return unsafe.String((*byte)(p), n)
}

func cdims(p *C.int64_t, n int) []int64 {
	if n <= 0 || p == nil {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(p)), n)
}

func elemOf(elem unsafe.Pointer, dt DataType) []byte {
	n := dt.ItemSize()
	if elem == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(elem), n)
}

// indexOps converts the C index list of o into buf.
func indexOps(o *C.gd_op, buf *[C.GD_MAX_INDEX_OPS]IndexOp) []IndexOp {
	n := min(max(int(o.nindex), 0), len(buf))
	if n == 0 {
		return buf[:0]
	}
	for i, c := range unsafe.Slice(o.index, n) {
		buf[i] = IndexOp{Kind: IndexKind(c.kind), I: int64(c.i), Start: int64(c.start), Stop: int64(c.stop),
			Step: int64(c.step), HasStart: c.has_start != 0, HasStop: c.has_stop != 0}
	}
	return buf[:n]
}

// newFilled allocates a C-contiguous array (on the device a copy from dev
// goes to when like is set; CPU arrays only of dtypes godlpack exchanges)
// and fills it with elem when elem is not nil.
func newFilled(where string, dt DataType, shape []int64, dev Device, like bool, elem unsafe.Pointer, out *Header, ost []int64) error {
	zero := elem != nil &&
		C.gd_fill_is_zero(C.DLDataType{code: C.uint8_t(dt.Code), bits: C.uint8_t(dt.Bits), lanes: C.uint16_t(dt.Lanes)}, elem) != 0
	var err error
	switch {
	case like:
		err = AllocContiguousOn(where, CopyDevice(dev), dt, shape, out, ost, zero)
	case dev == CPU:
		err = allocContiguous(where, CPU, dt, shape, out, ost, zero, true)
	default:
		err = AllocContiguousOn(where, dev, dt, shape, out, ost, zero)
	}
	if err != nil || elem == nil || zero {
		return err
	}
	return releaseOnError(out, Fill(out, shape, ost[:len(shape)], elemOf(elem, dt)))
}

// newCopy is a C-contiguous copy of a (of dtype dt: convert) on the device
// a's copies go to.
func newCopy(where string, a *Header, shape, strides []int64, dt DataType, out *Header, ost []int64, convert bool) error {
	nd := len(shape)
	if err := AllocContiguousOn(where, CopyDevice(a.Device), dt, shape, out, ost[:nd], false); err != nil {
		return err
	}
	if convert {
		return releaseOnError(out, ConvertInto(out, shape, ost[:nd], a, shape, strides))
	}
	return releaseOnError(out, CopyInto(out, shape, ost[:nd], a, shape, strides))
}

// releaseOnError drops the new array in out when err is not nil.
func releaseOnError(out *Header, err error) error {
	if err != nil {
		out.Owner.Release()
		out.Owner = nil
	}
	return err
}

// setItem is a[index] = elem in one crossing: the view, then its fill.
// scratch holds the view's shape and strides (C memory).
func setItem(where string, a *Header, shape, strides []int64, o *C.gd_op, scratch *[2 * MaxNdim]int64) error {
	var buf [C.GD_MAX_INDEX_OPS]IndexOp
	var vh Header
	vs, vst := scratch[:MaxNdim], scratch[MaxNdim:]
	n, err := ApplyIndexAt(where, a, shape, strides, indexOps(o, &buf), &vh, vs, vst)
	if err != nil {
		return err
	}
	vh.Ndim = int32(n)
	return Fill(&vh, vs[:n], vst[:n], elemOf(o.elem, a.DType))
}

// allocExport is the managed_tensor_allocator of the C exchange API: a new
// C-contiguous CPU tensor handed out as a DLManagedTensorVersioned that
// owns the memory. scratch holds MaxNdim int64.
func allocExport(where string, dt DataType, shape []int64, dev Device, out *unsafe.Pointer, scratch []int64) error {
	if dev != CPU {
		return fmt.Errorf("%s: cannot allocate on %s; only cpu:0 is supported: %w", where, dev, ErrDevice)
	}
	var h Header
	st := scratch[:len(shape)]
	if err := AllocContiguous(dt, shape, &h, st); err != nil {
		return err
	}
	defer h.Owner.Release() // the managed tensor holds its own reference
	m, err := ExportVersioned(&h, shape, st, 0)
	if err != nil {
		return err
	}
	*out = unsafe.Pointer(m)
	return nil
}
