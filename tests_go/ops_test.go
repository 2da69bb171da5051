package tests_go

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/tests_go/cfixture"
)

// core.RunOp driven through the C gd_op the skin fills (cfixture.RunOp):
// each operation reads the fields it should, writes its result, releases a
// new result when it fails, and names the entry point in its errors.

// arangeF64 is a float64 array 0..n-1 of shape sh.
func arangeF64(t *testing.T, sh ...int64) *core.Array {
	t.Helper()
	a, err := core.Empty(core.Float64, sh...)
	require.NoError(t, err)
	s, err := a.Float64s()
	require.NoError(t, err)
	for i := range s {
		s[i] = float64(i)
	}
	return a
}

// values reads a CPU result described by h, shape and strides (C order).
func values(t *testing.T, h core.Header, shape, strides []int64) []float64 {
	t.Helper()
	b := core.Borrow(h, shape, strides)
	defer b.Release()
	c, err := b.Copy()
	require.NoError(t, err)
	defer c.Release()
	switch h.DType {
	case core.Float64:
		s, err := c.Float64s()
		require.NoError(t, err)
		return append([]float64(nil), s...)
	case core.Int32:
		s, err := core.AsSlice[int32](c)
		require.NoError(t, err)
		out := make([]float64, len(s))
		for i, v := range s {
			out[i] = float64(v)
		}
		return out
	}
	t.Fatalf("values: dtype %v", h.DType)
	return nil
}

func onA(op int, a *core.Array) *cfixture.Op {
	h := a.Header()
	return &cfixture.Op{Op: op, Entry: "op()", A: &h, AShape: a.Shape(), AStrides: a.Strides(),
		Out: &core.Header{}, OutShape: make([]int64, core.MaxNdim), OutStrides: make([]int64, core.MaxNdim)}
}

func TestRunOpResults(t *testing.T) {
	t.Parallel()
	base := arangeF64(t, 2, 3)
	defer base.Release()
	tr := base.T()
	defer tr.Release()
	one := []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x3f} // 1.5

	cases := []struct {
		name   string
		op     *cfixture.Op
		shape  []int64
		want   []float64
		view   bool // shares the operand's owner without a new reference
		newRef bool // holds a new owner reference
	}{
		{"alloc filled", &cfixture.Op{Op: cfixture.OpAlloc, Entry: "empty()", DType: core.Float64, Device: core.CPU, Ints: []int64{2, 2},
			Elem: one, Out: &core.Header{}, OutStrides: make([]int64, core.MaxNdim)}, []int64{2, 2}, []float64{1.5, 1.5, 1.5, 1.5}, false, true},
		{"copy of a transpose", onA(cfixture.OpCopy, tr), []int64{3, 2}, []float64{0, 3, 1, 4, 2, 5}, false, true},
		{"convert", func() *cfixture.Op { o := onA(cfixture.OpConvert, tr); o.DType = core.Int32; return o }(),
			[]int64{3, 2}, []float64{0, 3, 1, 4, 2, 5}, false, true},
		{"index row 1", func() *cfixture.Op {
			o := onA(cfixture.OpIndex, base)
			o.Index = []core.IndexOp{{Kind: core.IdxInt, I: 1}}
			return o
		}(), []int64{3}, []float64{3, 4, 5}, true, false},
		{"transpose", func() *cfixture.Op { o := onA(cfixture.OpTranspose, base); o.Ints = []int64{1, 0}; return o }(),
			[]int64{3, 2}, []float64{0, 3, 1, 4, 2, 5}, true, false},
		{"reshape a view", func() *cfixture.Op { o := onA(cfixture.OpReshape, base); o.Ints = []int64{-1}; return o }(),
			[]int64{6}, []float64{0, 1, 2, 3, 4, 5}, false, true},
		{"reshape a transpose copies", func() *cfixture.Op { o := onA(cfixture.OpReshape, tr); o.Ints = []int64{6}; return o }(),
			[]int64{6}, []float64{0, 3, 1, 4, 2, 5}, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			refs := base.Header().Owner.Refs()
			require.NoError(t, cfixture.RunOp(c.op))
			out := *c.op.Out
			require.NotNil(t, out.Owner)
			nd := len(c.shape)
			shape := c.shape
			if c.op.OutShape != nil && c.op.Op != cfixture.OpCopy && c.op.Op != cfixture.OpConvert && c.op.Op != cfixture.OpReshape {
				shape = c.op.OutShape[:nd]
			}
			assert.Equal(t, c.shape, shape)
			if c.op.Op == cfixture.OpReshape {
				assert.Equal(t, c.shape, c.op.Ints, "reshape resolves -1 in the request")
			}
			assert.Equal(t, c.want, values(t, out, shape, c.op.OutStrides[:nd]))
			sameOwner := out.Owner == base.Header().Owner
			assert.Equal(t, c.view, sameOwner && base.Header().Owner.Refs() == refs, "a view takes no reference")
			if c.newRef {
				if sameOwner {
					assert.Equal(t, refs+1, base.Header().Owner.Refs())
				}
				out.Owner.Release()
			}
		})
	}
}

func TestRunOpWritesInPlace(t *testing.T) {
	t.Parallel()
	a := arangeF64(t, 2, 3)
	defer a.Release()
	seven := []byte{0, 0, 0, 0, 0, 0, 0x1c, 0x40}
	o := onA(cfixture.OpSetitem, a)
	o.Index = []core.IndexOp{{Kind: core.IdxSlice, Start: 1, HasStart: true, Step: 1}, {Kind: core.IdxInt, I: 2}}
	o.Elem = seven
	require.NoError(t, cfixture.RunOp(o))
	s, _ := a.Float64s()
	assert.Equal(t, []float64{0, 1, 2, 3, 4, 7}, s)

	o = onA(cfixture.OpFill, a)
	o.Elem = seven
	require.NoError(t, cfixture.RunOp(o))
	assert.Equal(t, []float64{7, 7, 7, 7, 7, 7}, s)

	src := arangeF64(t, 3, 2)
	defer src.Release()
	srcT := src.T()
	defer srcT.Release()
	for _, op := range []int{cfixture.OpCopyInto, cfixture.OpConvertInto} {
		o = onA(op, a)
		hb := srcT.Header()
		o.B, o.BStrides = &hb, srcT.Strides()
		require.NoError(t, cfixture.RunOp(o))
		assert.Equal(t, []float64{0, 2, 4, 1, 3, 5}, s)
	}
}

func TestRunOpRefusals(t *testing.T) {
	t.Parallel()
	a := arangeF64(t, 2, 3)
	defer a.Release()
	ro := a.Header()
	ro.Flags |= core.FlagReadOnly
	roOp := onA(cfixture.OpFill, a)
	roOp.Entry, roOp.A = "fill()", &ro
	roOp.Elem = make([]byte, 8)
	cases := []struct {
		name   string
		op     *cfixture.Op
		want   error
		prefix string
	}{
		{"negative shape", &cfixture.Op{Op: cfixture.OpAlloc, Entry: "empty()", DType: core.Float64, Device: core.CPU, Ints: []int64{-1},
			Out: &core.Header{}, OutStrides: make([]int64, core.MaxNdim)}, core.ErrShape, "empty(): "},
		{"read-only fill", roOp, core.ErrReadOnly, "fill(): "},
		{"transpose axes", func() *cfixture.Op {
			o := onA(cfixture.OpTranspose, a)
			o.Entry, o.Ints = "transpose()", []int64{0, 5}
			return o
		}(), core.ErrAxis, "transpose(): "},
		{"convert to a packed dtype", func() *cfixture.Op { o := onA(cfixture.OpConvert, a); o.DType = core.Float4E2M1FN; return o }(),
			core.ErrDType, "op(): "},
		{"reshape size", func() *cfixture.Op {
			o := onA(cfixture.OpReshape, a)
			o.Entry, o.Ints = "reshape()", []int64{4}
			return o
		}(), core.ErrReshape, "reshape(): "},
		{"allocator off the CPU", &cfixture.Op{Op: cfixture.OpAllocExport, Entry: "managed_tensor_allocator()",
			DType: core.Float32, Device: core.Device{Type: core.KDLCUDA}, OutStrides: make([]int64, core.MaxNdim)},
			core.ErrDevice, "managed_tensor_allocator(): "},
		{"device without a backend", &cfixture.Op{Op: cfixture.OpCheckDevice, Entry: "from_dlpack()",
			Device: core.Device{Type: core.KDLVulkan}}, core.ErrDevice, "from_dlpack(): "},
		{"no such operation", &cfixture.Op{Op: 999, Entry: "op()"}, core.ErrInternal, "op(): "},
	}
	for _, c := range cases {
		refs := a.Header().Owner.Refs()
		err := cfixture.RunOp(c.op)
		require.ErrorIs(t, err, c.want, c.name)
		assert.True(t, strings.HasPrefix(err.Error(), c.prefix), "%s: %q", c.name, err)
		assert.Equal(t, refs, a.Header().Owner.Refs(), "%s: a failed operation keeps no reference", c.name)
		if c.op.Out != nil {
			assert.Nil(t, c.op.Out.Owner, "%s: a failed operation returns no array", c.name)
		}
	}
}

func TestRunOpAllocExport(t *testing.T) {
	t.Parallel()
	o := &cfixture.Op{Op: cfixture.OpAllocExport, Entry: "managed_tensor_allocator()", DType: core.Float32, Device: core.CPU,
		Ints: []int64{2, 3}, OutStrides: make([]int64, core.MaxNdim)}
	require.NoError(t, cfixture.RunOp(o))
	require.NotNil(t, o.PtrOut)
	m := (*core.DLManagedTensorVersioned)(o.PtrOut)
	assert.Equal(t, int32(2), m.DLTensor.Ndim)
	cfixture.DeleteVersioned(o.PtrOut)
}

// GD_OP_DEVICE reads the text at ptr, or the pair in ints (the text then
// names it), and writes the device into out's header: core.DeviceArg's
// verdict, its refusals starting with the entry point.
func TestRunOpDevice(t *testing.T) {
	for _, c := range []struct {
		text string
		ints []int64
		want core.Device
		err  string
	}{
		{"cuda:2", nil, core.Device{Type: core.KDLCUDA, ID: 2}, ""},
		{"(2, 3)", []int64{2, 3}, core.Device{Type: core.KDLCUDA, ID: 3}, ""},
		{"gpu", nil, core.Device{}, `d(): unknown device "gpu"`},
		{"(1, 4)", []int64{1, 4}, core.Device{}, "d(): device (1, 4): the id of cpu memory must be 0"},
	} {
		p := cfixture.Alloc(int64(len(c.text) + 1))
		copy(unsafe.Slice((*byte)(p), len(c.text)+1), c.text+"\x00")
		var out core.Header
		err := cfixture.RunOp(&cfixture.Op{Op: cfixture.OpDevice, Entry: "d()", Ptr: p, Ints: c.ints, Out: &out})
		cfixture.FreeMem(p)
		if c.err != "" {
			require.Error(t, err, c.text)
			assert.Contains(t, err.Error(), c.err)
			assert.Equal(t, core.ClassValue, core.ClassOf(err))
			continue
		}
		require.NoError(t, err, c.text)
		assert.Equal(t, c.want, out.Device, c.text)
	}
}
