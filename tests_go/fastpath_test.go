package tests_go

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/tests_go/cfixture"
)

// The pure-C fast paths (core/fastpath.c) against the Go path they shortcut.
// The rule under test: whenever C accepts, Go accepts too and produces the
// same bytes (export) or the same header, shape and strides (import). What C
// declines goes to Go unchanged, so declining is always safe; the tables also
// pin each boundary of the accepted subset, so that widening it is a
// deliberate change.

// ---- export ----------------------------------------------------------------

// goExport runs what the skin runs for __dlpack__ when the fast path
// declines: core/glue.h with core.ServeExport behind it, fast path off. It
// returns the managed tensor, whether it is versioned, and the error class
// and message (class 0 on success).
func goExport(h *core.Header, shape, strides []int64, req core.ExportRequest) (unsafe.Pointer, bool, cfixture.GlueResult) {
	return cfixture.GlueExport(cfixture.SlowOnly, h, shape, strides, cfixture.NewExportReq(req))
}

// exportDims returns the block offsets of the shape and strides arrays.
func exportDims(versioned bool, ndim int32) (head, dims uintptr) {
	head = unsafe.Sizeof(core.DLManagedTensor{})
	if versioned {
		head = unsafe.Sizeof(core.DLManagedTensorVersioned{})
	}
	return head, uintptr(max(ndim, 1)) * 8
}

// tensorOf returns the DLTensor inside an exported block.
func tensorOf(block unsafe.Pointer, versioned bool) *core.DLTensor {
	if versioned {
		return &(*core.DLManagedTensorVersioned)(block).DLTensor
	}
	return &(*core.DLManagedTensor)(block).DLTensor
}

// diffExport runs core/glue.h's export as the skin does, but with nothing
// behind the fast path, then, when the fast path answered, with the fast
// path off (core.ServeExport), and compares the two managed tensors byte for
// byte (the shape and strides pointers as offsets into their own block). It
// returns whether the fast path answered and releases both exports.
func diffExport(t *testing.T, h *core.Header, shape, strides []int64, req core.ExportRequest) bool {
	t.Helper()
	cr := cfixture.NewExportReq(req)
	require.Equal(t, req, core.ExportRequestOf(unsafe.Pointer(cr)), "core reads the C request back unchanged")
	var refs int64
	if h.Owner != nil {
		refs = h.Owner.Refs()
	}
	bc, versioned, rc := cfixture.GlueExport(cfixture.FastOnly, h, shape, strides, cr)
	if !rc.Fast {
		require.Equal(t, cfixture.Declined, rc.Class, "the fast path either answers or declines")
		return false
	}
	bg, gv, rg := goExport(h, shape, strides, req)
	if rg.Class != 0 {
		t.Fatalf("C accepted header %+v shape %v strides %v request %+v, Go refuses: %s", *h, shape, strides, req, rg.Msg)
	}
	require.False(t, rg.Fast)
	require.Equal(t, gv, versioned, "versioned")
	require.Equal(t, refs+2, h.Owner.Refs(), "each export retains the owner once")
	head, dims := exportDims(versioned, h.Ndim)
	for _, b := range []unsafe.Pointer{bc, bg} {
		dl := tensorOf(b, versioned)
		require.Equal(t, unsafe.Add(b, head), unsafe.Pointer(dl.Shape), "shape follows the struct")
		require.Equal(t, unsafe.Add(b, head+dims), unsafe.Pointer(dl.Strides), "strides follow the shape")
	}
	used := head + 2*dims // the rest of the block is not written by either
	cb := bytes.Clone(unsafe.Slice((*byte)(bc), used))
	gb := bytes.Clone(unsafe.Slice((*byte)(bg), used))
	off := unsafe.Offsetof(core.DLTensor{}.Shape) + uintptr(unsafe.Pointer(tensorOf(bc, versioned))) - uintptr(bc)
	clear(cb[off : off+16]) // shape and strides pointers, compared above
	clear(gb[off : off+16])
	if !bytes.Equal(cb, gb) {
		t.Fatalf("header %+v shape %v strides %v request %+v: blocks differ\nC  %x\nGo %x", *h, shape, strides, req, cb, gb)
	}
	if versioned {
		cfixture.DeleteVersioned(bc)
		cfixture.DeleteVersioned(bg)
	} else {
		cfixture.DeleteLegacy(bc)
		cfixture.DeleteLegacy(bg)
	}
	require.Equal(t, refs, h.Owner.Refs(), "the deleters release both references")
	return true
}

type fastExportCase struct {
	name     string
	mod      func(h *core.Header, shape, strides *[]int64, req *core.ExportRequest)
	accept   bool
	goRefuse bool // Go refuses too: C must not accept it
}

func TestFastExportTable(t *testing.T) {
	setReq := func(f func(*core.ExportRequest)) func(*core.Header, *[]int64, *[]int64, *core.ExportRequest) {
		return func(_ *core.Header, _, _ *[]int64, r *core.ExportRequest) { f(r) }
	}
	setHdr := func(f func(*core.Header)) func(*core.Header, *[]int64, *[]int64, *core.ExportRequest) {
		return func(h *core.Header, _, _ *[]int64, _ *core.ExportRequest) { f(h) }
	}
	dims := func(shape, strides []int64) func(*core.Header, *[]int64, *[]int64, *core.ExportRequest) {
		return func(h *core.Header, sh, st *[]int64, _ *core.ExportRequest) {
			*sh, *st = shape, strides
			h.Ndim = int32(len(shape))
		}
	}
	cpu1 := core.Device{Type: core.KDLCPU, ID: 1}
	cases := []fastExportCase{
		{name: "base: versioned 1.3", accept: true},
		{name: "max_version (1, 0)", mod: setReq(func(r *core.ExportRequest) { r.MaxVersion = core.Version{Major: 1} }), accept: true},
		{name: "max_version (7, 0)", mod: setReq(func(r *core.ExportRequest) { r.MaxVersion = core.Version{Major: 7} }), accept: true},
		{name: "max_version None: legacy", mod: setReq(func(r *core.ExportRequest) { r.HasMaxVersion = false }), accept: true},
		{name: "max_version (0, 9): legacy", mod: setReq(func(r *core.ExportRequest) { r.MaxVersion = core.Version{Minor: 9} }), accept: true},
		{name: "copy=False", mod: setReq(func(r *core.ExportRequest) { r.Copy = core.CopyNever }), accept: true},
		{name: "copy=True copies", mod: setReq(func(r *core.ExportRequest) { r.Copy = core.CopyAlways })},
		{name: "invalid copy mode", mod: setReq(func(r *core.ExportRequest) { r.Copy = 5 }), goRefuse: true},
		{name: "stream=-1 is Go's", mod: setReq(func(r *core.ExportRequest) { r.HasStream, r.Stream = true, -1 })},
		{name: "stream=0", mod: setReq(func(r *core.ExportRequest) { r.HasStream = true }), goRefuse: true},
		{name: "dl_device (1, 0)", mod: setReq(func(r *core.ExportRequest) { r.HasDLDevice, r.DLDevice = true, core.CPU }), accept: true},
		{name: "dl_device (1, 0) copy=False", mod: setReq(func(r *core.ExportRequest) {
			r.HasDLDevice, r.DLDevice, r.Copy = true, core.CPU, core.CopyNever
		}), accept: true},
		{name: "dl_device (1, 1)", mod: setReq(func(r *core.ExportRequest) { r.HasDLDevice, r.DLDevice = true, cpu1 }), goRefuse: true},
		{name: "dl_device (2, 0)", mod: setReq(func(r *core.ExportRequest) {
			r.HasDLDevice, r.DLDevice = true, core.Device{Type: core.KDLCUDA}
		}), goRefuse: true},
		{name: "array on CUDAHost is Go's", mod: setHdr(func(h *core.Header) { h.Device = core.Device{Type: core.KDLCUDAHost} })},
		{name: "array on cpu:1 is Go's", mod: setHdr(func(h *core.Header) { h.Device = cpu1 })},
		{name: "read-only versioned", mod: setHdr(func(h *core.Header) { h.Flags = core.HeaderReadOnly }), accept: true},
		{name: "read-only legacy", mod: func(h *core.Header, _, _ *[]int64, r *core.ExportRequest) {
			h.Flags, r.HasMaxVersion = core.HeaderReadOnly, false
		}, goRefuse: true},
		{name: "read-only max_version (0, 5)", mod: func(h *core.Header, _, _ *[]int64, r *core.ExportRequest) {
			h.Flags, r.MaxVersion = core.HeaderReadOnly, core.Version{Minor: 5}
		}, goRefuse: true},
		{name: "padded bit on a byte type is ignored", mod: setHdr(func(h *core.Header) { h.Flags = core.HeaderSubBytePadded }), accept: true},
		{name: "padded bit legacy", mod: func(h *core.Header, _, _ *[]int64, r *core.ExportRequest) {
			h.Flags, r.HasMaxVersion = core.HeaderSubBytePadded, false
		}, accept: true},
		{name: "released", mod: setHdr(func(h *core.Header) { h.Owner = nil }), goRefuse: true},
		{name: "0-d", mod: dims([]int64{}, []int64{}), accept: true},
		{name: "0-d legacy", mod: func(h *core.Header, sh, st *[]int64, r *core.ExportRequest) {
			*sh, *st, h.Ndim, r.HasMaxVersion = nil, nil, 0, false
		}, accept: true},
		{name: "ndim 64", mod: dims(make([]int64, 64), make([]int64, 64)), accept: true},
		{name: "ndim 65", mod: dims(make([]int64, 65), make([]int64, 65)), goRefuse: true},
		{name: "ndim -1", mod: setHdr(func(h *core.Header) { h.Ndim = -1 }), goRefuse: true},
		{name: "size 0: NULL data", mod: dims([]int64{3, 0}, []int64{0, 1}), accept: true},
		{name: "negative strides and offset", mod: func(h *core.Header, sh, st *[]int64, _ *core.ExportRequest) {
			*sh, *st, h.Offset = []int64{2, 3}, []int64{-3, -1}, 5
		}, accept: true},
		{name: "NULL data, size > 0", mod: setHdr(func(h *core.Header) { h.Data = nil }), accept: true},
		{name: "element count overflows", mod: dims([]int64{1 << 32, 1 << 32}, []int64{0, 0})},
		{name: "negative dimension", mod: dims([]int64{-1}, []int64{1})},
		{name: "offset * itemsize overflows", mod: setHdr(func(h *core.Header) { h.Offset = math.MaxInt64 / 4 })},
		{name: "lanes 2", mod: setHdr(func(h *core.Header) { h.DType.Lanes = 2 })},
		{name: "packed float4", mod: func(h *core.Header, sh, st *[]int64, _ *core.ExportRequest) {
			h.DType, *sh, *st = core.Float4E2M1FN, []int64{2, 8}, []int64{8, 1}
		}},
		{name: "padded float4 legacy", mod: func(h *core.Header, sh, st *[]int64, r *core.ExportRequest) {
			h.DType, h.Flags, r.HasMaxVersion = core.Float4E2M1FN, core.HeaderSubBytePadded, false
		}, goRefuse: true},
		{name: "12-bit int", mod: setHdr(func(h *core.Header) { h.DType = core.DataType{Code: core.KDLInt, Bits: 12, Lanes: 1} })},
	}
	for _, dt := range core.DataTypes {
		if dt.IsSubByte() {
			continue
		}
		cases = append(cases, fastExportCase{name: "dtype " + dt.String(), mod: setHdr(func(h *core.Header) { h.DType = dt }), accept: true})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := cHeader(t, core.Float64, 1024, 2)
			shape, strides := []int64{2, 3}, []int64{3, 1}
			req := core.ExportRequest{HasMaxVersion: true, MaxVersion: core.DLPackVersion}
			if c.mod != nil {
				c.mod(h, &shape, &strides, &req)
			}
			if c.goRefuse {
				_, _, r := goExport(h, shape, strides, req)
				require.NotZero(t, r.Class, "this case must be one Go refuses")
			}
			got := diffExport(t, h, shape, strides, req)
			assert.Equal(t, c.accept, got, "fast path accepted")
		})
	}
}

// FuzzFastExport: random headers and requests. Whenever the C fast export
// accepts, the Go path accepts too and writes the same block.
func FuzzFastExport(f *testing.F) {
	f.Add(uint8(2), uint8(64), uint16(1), int32(1), int32(0), int8(2), []byte{102, 103, 103, 101}, int64(0), uint8(1),
		true, uint32(1), uint32(3), false, int32(0), int32(0), int8(0), false, int64(0))
	f.Add(uint8(0), uint8(8), uint16(1), int32(1), int32(0), int8(0), []byte{}, int64(3), uint8(2),
		false, uint32(0), uint32(0), true, int32(1), int32(0), int8(2), false, int64(0))
	f.Add(uint8(17), uint8(4), uint16(1), int32(1), int32(0), int8(1), []byte{108, 101}, int64(0), uint8(4),
		true, uint32(1), uint32(1), false, int32(0), int32(0), int8(0), true, int64(-1))
	f.Add(uint8(5), uint8(128), uint16(1), int32(3), int32(0), int8(3), []byte{100, 102, 205, 99, 1, 1}, int64(-7), uint8(3),
		true, uint32(2), uint32(0), true, int32(2), int32(0), int8(1), false, int64(0))
	f.Add(uint8(2), uint8(32), uint16(1), int32(1), int32(0), int8(2), []byte{208, 208, 101, 101}, int64(1<<60), uint8(0),
		true, uint32(1), uint32(0), false, int32(0), int32(0), int8(0), false, int64(0))
	f.Fuzz(func(t *testing.T, code, bits uint8, lanes uint16, devType, devID int32, ndim int8, dimBytes []byte,
		offset int64, mode uint8, hasMax bool, major, minor uint32, hasDev bool, dlType, dlID int32, copyMode int8,
		hasStream bool, stream int64) {
		data := cfixture.Alloc(64)
		defer cfixture.FreeMem(data)
		o, err := core.NewOwner(core.OwnNone, nil, nil)
		require.NoError(t, err)
		defer o.Release()
		h := &core.Header{
			Data: data, Owner: o, Offset: offset, Ndim: int32(ndim),
			DType:  core.DataType{Code: core.DataTypeCode(code), Bits: bits, Lanes: lanes},
			Device: core.Device{Type: core.DeviceType(devType), ID: devID},
		}
		if mode&1 != 0 {
			h.Flags |= core.HeaderReadOnly
		}
		if mode&2 != 0 {
			h.Flags |= core.HeaderSubBytePadded
		}
		if mode&4 != 0 {
			h.Data = nil
		}
		if mode&8 != 0 {
			h.Owner = nil
		}
		var shape, strides []int64
		if ndim >= 0 && int(ndim) <= core.MaxNdim {
			shape, strides = fuzzDims(dimBytes, int(ndim))
		}
		req := core.ExportRequest{
			MaxVersion: core.Version{Major: major, Minor: minor}, HasMaxVersion: hasMax,
			DLDevice: core.Device{Type: core.DeviceType(dlType), ID: dlID}, HasDLDevice: hasDev,
			Copy: core.CopyMode(copyMode), Stream: stream, HasStream: hasStream,
		}
		diffExport(t, h, shape, strides, req)
	})
}

// ---- import ----------------------------------------------------------------

// diffDescribe runs core/glue.h's import as the skin does, but with nothing
// behind the fast path, then, when the fast path answered, with the fast
// path off (core.ServeImport: Describe + PlanImport + owner), and compares
// header (but the owner), shape and strides. It returns whether the fast path
// answered. The owners are dropped unreleased: the deleter must not run.
func diffDescribe(t *testing.T, m unsafe.Pointer, versioned bool, req core.ImportRequest, calls func() int64) bool {
	t.Helper()
	cr := cfixture.NewImportReq(req)
	require.Equal(t, req, core.ImportRequestOf(unsafe.Pointer(cr)), "core reads the C request back unchanged")
	var hc, hg core.Header
	var sc, tc, sg, tg [core.MaxNdim]int64
	rc := cfixture.GlueImport(cfixture.FastOnly, m, versioned, cr, &hc, sc[:], tc[:])
	require.Zero(t, calls(), "the fast path called the deleter")
	if !rc.Fast {
		require.Equal(t, cfixture.Declined, rc.Class, "the fast path either answers or declines")
		require.False(t, rc.Consumed)
		return false
	}
	require.True(t, rc.Consumed)
	defer cfixture.DropOwner(hc.Owner)
	rg := cfixture.GlueImport(cfixture.SlowOnly, m, versioned, cfixture.NewImportReq(req), &hg, sg[:], tg[:])
	if rg.Class != 0 || !rg.Consumed {
		t.Fatalf("C accepted (header %+v) request %+v, Go refuses: %s", hc, req, rg.Msg)
	}
	defer cfixture.DropOwner(hg.Owner)
	require.Zero(t, calls(), "Go copied (and released the producer's tensor) where C did not")
	hc.Owner, hg.Owner = nil, nil
	if hc != hg {
		t.Fatalf("headers differ: C %+v, Go %+v", hc, hg)
	}
	n := int(hg.Ndim)
	if !slices.Equal(sc[:n], sg[:n]) || !slices.Equal(tc[:n], tg[:n]) {
		t.Fatalf("dims differ: C shape %v strides %v, Go shape %v strides %v", sc[:n], tc[:n], sg[:n], tg[:n])
	}
	return true
}

// diffDescribeSpec builds s as a versioned or legacy fixture and diffs it.
func diffDescribeSpec(t *testing.T, s cfixture.Spec, versioned bool, req core.ImportRequest) bool {
	t.Helper()
	if versioned {
		m := cfixture.Versioned(s)
		defer cfixture.Free(m)
		return diffDescribe(t, unsafe.Pointer(m), true, req, func() int64 { return cfixture.Calls(m) })
	}
	m := cfixture.Legacy(s)
	defer cfixture.Free(m)
	return diffDescribe(t, unsafe.Pointer(m), false, req, func() int64 { return cfixture.Calls(m) })
}

// goDescribeRefuses reports whether Go's Describe or PlanImport refuses.
func goDescribeRefuses(s cfixture.Spec, versioned bool, req core.ImportRequest) bool {
	var h core.Header
	var sh, st [core.MaxNdim]int64
	var err error
	var flags uint64
	if versioned {
		m := cfixture.Versioned(s)
		defer cfixture.Free(m)
		err, flags = core.DescribeVersioned(m, &h, sh[:], st[:]), m.Flags
	} else {
		m := cfixture.Legacy(s)
		defer cfixture.Free(m)
		err = core.DescribeLegacy(m, &h, sh[:], st[:])
	}
	if err == nil {
		_, err = core.PlanImport(h.Device, flags, req)
	}
	return err != nil
}

type fastDescribeCase struct {
	name     string
	spec     func(*cfixture.Spec)
	req      core.ImportRequest
	only     string // "v" versioned only, "l" legacy only
	accept   bool
	goRefuse bool
}

func TestFastDescribeTable(t *testing.T) {
	guardFaults(t)
	cuda := core.Device{Type: core.KDLCUDA}
	cpu1 := core.Device{Type: core.KDLCPU, ID: 1}
	setFlags := func(fl uint64) func(*cfixture.Spec) { return func(s *cfixture.Spec) { s.Flags = fl } }
	shapeOf := func(shape, strides []int64) func(*cfixture.Spec) {
		return func(s *cfixture.Spec) { s.Shape, s.Strides, s.Ndim = shape, strides, int32(len(shape)) }
	}
	copied := uint64(core.FlagIsCopied)
	cases := []fastDescribeCase{
		{name: "base", accept: true},
		{name: "major 0", only: "v", spec: func(s *cfixture.Spec) { s.Version = core.Version{Minor: 9} }, goRefuse: true},
		{name: "major 2", only: "v", spec: func(s *cfixture.Spec) { s.Version = core.Version{Major: 2} }, goRefuse: true},
		{name: "1.0", only: "v", spec: func(s *cfixture.Spec) { s.Version = core.Version{Major: 1} }, accept: true},
		{name: "1.99", only: "v", spec: func(s *cfixture.Spec) { s.Version = core.Version{Major: 1, Minor: 99} }, accept: true},
		{name: "READ_ONLY", only: "v", spec: setFlags(core.FlagReadOnly), accept: true},
		{name: "IS_COPIED", only: "v", spec: setFlags(copied), accept: true},
		{name: "READ_ONLY|IS_COPIED", only: "v", spec: setFlags(core.FlagReadOnly | copied), accept: true},
		{name: "padded bit is Go's", only: "v", spec: setFlags(core.FlagIsSubbyteTypePadded)},
		{name: "unknown flag bit is Go's", only: "v", spec: setFlags(1 << 3)},
		{name: "flags ignored in legacy", only: "l", spec: setFlags(1 << 3), accept: true},
		{name: "CUDAHost is Go's", spec: func(s *cfixture.Spec) { s.Device = core.Device{Type: core.KDLCUDAHost} }},
		{name: "CUDA is Go's", spec: func(s *cfixture.Spec) { s.Device = cuda }},
		{name: "cpu:1", spec: func(s *cfixture.Spec) { s.Device = cpu1 }, goRefuse: true},
		{name: "device type 0", spec: func(s *cfixture.Spec) { s.Device = core.Device{} }, goRefuse: true},
		{name: "lanes 2", spec: func(s *cfixture.Spec) { s.DType.Lanes = 2 }, goRefuse: true},
		{name: "lanes 0", spec: func(s *cfixture.Spec) { s.DType.Lanes = 0 }, goRefuse: true},
		{name: "opaque handle", spec: func(s *cfixture.Spec) { s.DType = core.DataType{Code: core.KDLOpaqueHandle, Bits: 64, Lanes: 1} }, goRefuse: true},
		{name: "float 8 bits", spec: func(s *cfixture.Spec) { s.DType = core.DataType{Code: core.KDLFloat, Bits: 8, Lanes: 1} }, goRefuse: true},
		{name: "code 18", spec: func(s *cfixture.Spec) { s.DType = core.DataType{Code: 18, Bits: 8, Lanes: 1} }, goRefuse: true},
		{name: "packed float4 is Go's", spec: func(s *cfixture.Spec) { s.DType = core.Float4E2M1FN }},
		{name: "float6 bits 8", spec: func(s *cfixture.Spec) { s.DType = core.DataType{Code: core.KDLFloat6E2M3FN, Bits: 8, Lanes: 1} }, goRefuse: true},
		{name: "0-d NULL shape", spec: shapeOf(nil, nil), accept: true},
		{name: "0-d", spec: shapeOf([]int64{}, []int64{}), accept: true},
		{name: "ndim 64", spec: shapeOf(make([]int64, 64), make([]int64, 64)), accept: true},
		{name: "ndim 65", spec: func(s *cfixture.Spec) { s.Ndim = 65 }, goRefuse: true},
		{name: "ndim -1", spec: func(s *cfixture.Spec) { s.Ndim = -1 }, goRefuse: true},
		{name: "NULL shape", spec: func(s *cfixture.Spec) { s.Shape = nil }, goRefuse: true},
		{name: "negative dimension", spec: shapeOf([]int64{2, -1}, []int64{1, 1}), goRefuse: true},
		{name: "element count overflows", spec: shapeOf([]int64{1 << 32, 1 << 31}, []int64{0, 0}), goRefuse: true},
		{name: "element count MaxInt64", spec: func(s *cfixture.Spec) {
			s.DType, s.Shape, s.Strides, s.Ndim = core.Int8, []int64{math.MaxInt64}, []int64{0}, 1
		}, accept: true},
		{name: "zero dimension beside huge ones", spec: func(s *cfixture.Spec) {
			s.Shape, s.Strides, s.Ndim, s.DataBytes = []int64{0, math.MaxInt64, math.MaxInt64}, []int64{1, 1, 1}, 3, 0
		}, accept: true},
		{name: "NULL strides", spec: func(s *cfixture.Spec) { s.Strides = nil }, accept: true},
		{name: "NULL strides, zero dimension", spec: func(s *cfixture.Spec) {
			s.Shape, s.Strides, s.Ndim, s.DataBytes = []int64{3, 0, 5}, nil, 3, 0
		}, accept: true},
		{name: "NULL strides overflow", spec: func(s *cfixture.Spec) {
			s.Shape, s.Strides, s.Ndim, s.DataBytes = []int64{0, 1 << 32, 1 << 32}, nil, 3, 0
		}, goRefuse: true},
		{name: "NULL strides, last product unused", spec: func(s *cfixture.Spec) {
			s.DType, s.Shape, s.Strides, s.Ndim, s.DataBytes = core.Int8, []int64{1 << 32, 1 << 31, 0}, nil, 3, 0
		}, accept: true},
		{name: "negative strides", spec: func(s *cfixture.Spec) {
			s.Strides, s.ByteOffset = []int64{-3, -1}, 20
		}, accept: true},
		{name: "negative strides below data", spec: func(s *cfixture.Spec) { s.Strides = []int64{-3, -1} }, accept: true},
		{name: "byte_offset 8", spec: func(s *cfixture.Spec) { s.ByteOffset = 8 }, accept: true},
		{name: "byte_offset MaxInt64", spec: func(s *cfixture.Spec) { s.ByteOffset = math.MaxInt64 }, goRefuse: true},
		{name: "byte_offset > MaxInt64", spec: func(s *cfixture.Spec) { s.ByteOffset = 1 << 63 }, goRefuse: true},
		{name: "NULL data", spec: func(s *cfixture.Spec) { s.DataBytes = 0 }, goRefuse: true},
		{name: "NULL data, empty", spec: func(s *cfixture.Spec) {
			s.DataBytes, s.Shape, s.Strides = 0, []int64{2, 0}, []int64{0, 1}
		}, accept: true},
		{name: "extent overflows", spec: shapeOf([]int64{2, 2}, []int64{math.MaxInt64 / 2, 1}), goRefuse: true},
		{name: "extent * itemsize overflows", spec: shapeOf([]int64{2}, []int64{math.MaxInt64 / 4}), goRefuse: true},
		{name: "past the top of memory", spec: func(s *cfixture.Spec) { s.DataBytes, s.DataAddr = 0, ^uintptr(0)-15 }, goRefuse: true},
		{name: "below address 0", spec: func(s *cfixture.Spec) {
			s.DataBytes, s.DataAddr, s.Strides = 0, 4096, []int64{-3000, 1}
		}, goRefuse: true},
		{name: "top of memory, exactly", spec: func(s *cfixture.Spec) { s.DataBytes, s.DataAddr = 0, ^uintptr(0)-24 }, accept: true},
		{name: "device cpu", req: core.ImportRequest{HasDevice: true, Device: core.CPU}, accept: true},
		{name: "device cpu:1", req: core.ImportRequest{HasDevice: true, Device: cpu1}, goRefuse: true},
		{name: "device cuda", req: core.ImportRequest{HasDevice: true, Device: cuda}, goRefuse: true},
		{name: "device CUDAHost", req: core.ImportRequest{HasDevice: true, Device: core.Device{Type: core.KDLCUDAHost}}, goRefuse: true},
		{name: "copy=False", req: core.ImportRequest{Copy: core.CopyNever}, accept: true},
		{name: "copy=False device cpu", req: core.ImportRequest{Copy: core.CopyNever, HasDevice: true, Device: core.CPU}, accept: true},
		{name: "copy=True copies", req: core.ImportRequest{Copy: core.CopyAlways, Negotiated: true}},
		{name: "copy=True, producer copied", only: "v", spec: setFlags(copied),
			req: core.ImportRequest{Copy: core.CopyAlways, Negotiated: true}, accept: true},
		{name: "copy=True, IS_COPIED not negotiated", only: "v", spec: setFlags(copied),
			req: core.ImportRequest{Copy: core.CopyAlways}},
		{name: "copy=True, legacy", only: "l", req: core.ImportRequest{Copy: core.CopyAlways, Negotiated: true}},
		{name: "invalid copy mode", req: core.ImportRequest{Copy: 7}, goRefuse: true},
	}
	for _, dt := range core.DataTypes {
		if dt.IsSubByte() {
			continue
		}
		cases = append(cases, fastDescribeCase{name: "dtype " + dt.String(), spec: func(s *cfixture.Spec) { s.DType = dt }, accept: true})
	}
	for _, c := range cases {
		for _, versioned := range []bool{true, false} {
			if c.only == "v" && !versioned || c.only == "l" && versioned {
				continue
			}
			t.Run(fmt.Sprintf("%s/versioned=%v", c.name, versioned), func(t *testing.T) {
				s := cfixture.Spec{
					Version: core.DLPackVersion, Device: core.CPU, DType: core.Float32, Ndim: 2,
					Shape: []int64{2, 3}, Strides: []int64{3, 1}, DataBytes: 64,
				}
				if c.spec != nil {
					c.spec(&s)
				}
				if c.goRefuse {
					require.True(t, goDescribeRefuses(s, versioned, c.req), "this case must be one Go refuses")
				}
				assert.Equal(t, c.accept, diffDescribeSpec(t, s, versioned, c.req), "fast path accepted")
			})
		}
	}
}

// FuzzFastDescribe: random versioned and legacy managed tensors in guarded C
// memory (the fixtures of FuzzDescribeVersioned) and random requests.
// Whenever the C fast path accepts, Describe + PlanImport accept with the
// same header, shape and strides and no copy.
func FuzzFastDescribe(f *testing.F) {
	f.Add(true, uint32(1), uint32(3), uint64(0), int32(2), uint8(2), uint8(32), uint16(1), int32(1), int32(0), uint64(0),
		uint8(1), false, false, []byte{102, 103, 103, 101}, false, int32(0), int32(0), int8(0), false)
	f.Add(false, uint32(0), uint32(0), uint64(0), int32(1), uint8(2), uint8(64), uint16(1), int32(1), int32(0), uint64(8),
		uint8(1), false, true, []byte{104}, true, int32(1), int32(0), int8(2), true)
	f.Add(true, uint32(1), uint32(0), uint64(3), int32(1), uint8(0), uint8(8), uint16(1), int32(1), int32(0), uint64(0),
		uint8(1), false, false, []byte{104, 99}, false, int32(0), int32(0), int8(1), true)
	f.Add(true, uint32(1), uint32(3), uint64(0), int32(0), uint8(6), uint8(8), uint16(1), int32(1), int32(0), uint64(0),
		uint8(0), true, true, []byte{}, false, int32(0), int32(0), int8(0), false)
	f.Add(true, uint32(1), uint32(3), uint64(0), int32(3), uint8(5), uint8(128), uint16(1), int32(1), int32(0), uint64(0),
		uint8(0), false, true, []byte{100, 234, 234}, false, int32(0), int32(0), int8(0), false)
	f.Add(true, uint32(1), uint32(3), uint64(0), int32(1), uint8(0), uint8(8), uint16(1), int32(1), int32(0), uint64(0),
		uint8(2), false, false, []byte{102, 215}, false, int32(0), int32(0), int8(0), false)
	f.Fuzz(func(t *testing.T, versioned bool, major, minor uint32, flags uint64, ndim int32, code, bits uint8, lanes uint16,
		devType, devID int32, off uint64, dataMode uint8, nullShape, nullStrides bool, dims []byte,
		hasDev bool, reqType, reqID int32, copyMode int8, negotiated bool) {
		ft := fuzzTensor{
			versioned: versioned, major: major, minor: minor, flags: flags, ndim: ndim,
			dtype:  core.DataType{Code: core.DataTypeCode(code), Bits: bits, Lanes: lanes},
			device: core.Device{Type: core.DeviceType(devType), ID: devID}, byteOffset: off,
			dataMode: dataMode, nullShape: nullShape, nullStride: nullStrides, dims: dims,
		}
		req := core.ImportRequest{
			Device: core.Device{Type: core.DeviceType(reqType), ID: reqID}, HasDevice: hasDev,
			Copy: core.CopyMode(copyMode), Negotiated: negotiated,
		}
		diffDescribeSpec(t, ft.spec(), versioned, req)
	})
}

// The C twins of the constants and sizes the fast paths rely on.
func TestFastPathConstants(t *testing.T) {
	for _, n := range []int32{-1, 0, 1, 2, 64} {
		assert.EqualValues(t, core.ExportBlockSize(int(n)), cfixture.ExportBlockSizeC(n), "block size, ndim %d", n)
	}
}

// gd_fast_import_device never accepts a device core.CheckImportDevice refuses.
func TestFastImportDevice(t *testing.T) {
	t.Parallel()
	accepted := 0
	for typ := int32(-1); typ <= 20; typ++ {
		for _, id := range []int32{-1, 0, 1, 7} {
			d := core.Device{Type: core.DeviceType(typ), ID: id}
			if !cfixture.FastImportDevice(d) {
				continue
			}
			accepted++
			assert.NoError(t, core.CheckImportDevice(core.ImportRequest{HasDevice: true, Device: d}), "%v", d)
		}
	}
	assert.Equal(t, 1, accepted, "only (kDLCPU, 0) is the C side's to accept")
}
