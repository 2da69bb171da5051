package tests_go

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/tests_go/cfixture"
)

// cHeader returns a header over nbytes of fresh C memory owned by an OwnFree
// owner (one reference, released at cleanup after checking the count is
// back to 1).
func cHeader(t *testing.T, dt core.DataType, nbytes int64, ndim int) *core.Header {
	t.Helper()
	p := cfixture.Alloc(nbytes)
	o, err := core.NewOwner(core.OwnFree, p, cfixture.FreeFunc())
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.EqualValues(t, 1, o.Refs(), "owner references back to baseline")
		o.Release()
	})
	return &core.Header{Data: p, Owner: o, DType: dt, Ndim: int32(ndim), Device: core.CPU}
}

type exportCase struct {
	name            string
	dt              core.DataType
	shape, strides  []int64
	offset          int64
	flags           uint64 // Header.Flags
	device          core.Device
	extra           uint64 // extraFlags
	wantFlags       uint64 // versioned flags
	wantNilData     bool
	legacyRefusedBy *core.Error
}

func exportCases() []exportCase {
	return []exportCase{
		{name: "2-d contiguous float32", dt: core.Float32, shape: []int64{2, 3}, strides: []int64{3, 1}},
		{name: "negative strides with offset", dt: core.Float64, shape: []int64{3, 2}, strides: []int64{-2, -1}, offset: 5},
		{name: "transpose", dt: core.Int16, shape: []int64{3, 2}, strides: []int64{1, 3}},
		{name: "size-1 dims keep odd strides", dt: core.Int8, shape: []int64{1, 4, 1}, strides: []int64{999, 1, -5}},
		{name: "broadcast zero stride", dt: core.Complex128, shape: []int64{4}, strides: []int64{0}},
		{name: "0-d", dt: core.Float64, shape: []int64{}, strides: []int64{}, offset: 1},
		{name: "size 0 exports NULL data", dt: core.Float32, shape: []int64{3, 0}, strides: []int64{0, 1}, offset: 2, wantNilData: true},
		{name: "read-only", dt: core.Uint8, shape: []int64{5}, strides: []int64{1}, flags: core.HeaderReadOnly,
			wantFlags: core.FlagReadOnly, legacyRefusedBy: core.ErrReadOnlyLegacy},
		{name: "read-only copied", dt: core.Uint8, shape: []int64{5}, strides: []int64{1}, flags: core.HeaderReadOnly,
			extra: core.FlagIsCopied, wantFlags: core.FlagReadOnly | core.FlagIsCopied, legacyRefusedBy: core.ErrReadOnlyLegacy},
		{name: "IS_COPIED", dt: core.Bool, shape: []int64{5}, strides: []int64{1}, extra: core.FlagIsCopied, wantFlags: core.FlagIsCopied},
		{name: "padded bit in extraFlags ignored", dt: core.Float32, shape: []int64{5}, strides: []int64{1},
			extra: core.FlagIsSubbyteTypePadded},
		{name: "packed float4", dt: core.Float4E2M1FN, shape: []int64{2, 8}, strides: []int64{8, 1}},
		{name: "packed float6 size-1 dim odd stride", dt: core.Float6E2M3FN, shape: []int64{1, 4}, strides: []int64{77, 1}},
		{name: "padded float4 view", dt: core.Float4E2M1FN, shape: []int64{4}, strides: []int64{-2}, offset: 7,
			flags: core.HeaderSubBytePadded, wantFlags: core.FlagIsSubbyteTypePadded, legacyRefusedBy: core.ErrSubByte},
		{name: "CUDA header keeps its device", dt: core.Float32, shape: []int64{2}, strides: []int64{1},
			device: core.Device{Type: core.KDLCUDA, ID: 1}},
		{name: "OpenCL view keeps its handle, offset in byte_offset", dt: core.Float32, shape: []int64{3}, strides: []int64{-1},
			offset: 16, device: core.Device{Type: core.KDLOpenCL, ID: 0}},
		{name: "oneAPI view keeps its handle", dt: core.Int32, shape: []int64{2, 2}, strides: []int64{2, 1},
			offset: 2, device: core.Device{Type: core.KDLOneAPI, ID: 0}},
		{name: "CUDA managed memory is host memory: offset folded", dt: core.Float64, shape: []int64{2}, strides: []int64{1},
			offset: 3, device: core.Device{Type: core.KDLCUDAManaged, ID: 0}},
	}
}

func (c exportCase) header(t *testing.T) *core.Header {
	h := cHeader(t, c.dt, 1024, len(c.shape))
	h.Offset = c.offset
	h.Flags = c.flags
	if c.device != (core.Device{}) {
		h.Device = c.device
	}
	return h
}

func (c exportCase) wantData(h *core.Header) unsafe.Pointer {
	if c.wantNilData {
		return nil
	}
	if !modelFolds(h.Device.Type) {
		return h.Data // a device handle is never offset
	}
	return unsafe.Add(h.Data, c.offset*c.itemsize())
}

func (c exportCase) itemsize() int64 {
	if c.flags&core.HeaderSubBytePadded != 0 {
		return 1
	}
	return c.dt.ItemSize()
}

// wantByteOffset: 0 where the policy folds the offset into data, the
// element offset in bytes on devices whose data may be a handle.
func (c exportCase) wantByteOffset(h *core.Header) uint64 {
	if c.wantNilData || modelFolds(h.Device.Type) {
		return 0
	}
	return uint64(c.offset * c.itemsize())
}

// checkExportedTensor checks the DLTensor part and the single-allocation
// layout: shape right after the struct, strides right after max(ndim,1)
// shape entries.
func checkExportedTensor(t *testing.T, c exportCase, h *core.Header, base unsafe.Pointer, structSize uintptr, dl *core.DLTensor) {
	t.Helper()
	n := len(c.shape)
	assert.Equal(t, c.wantData(h), dl.Data, "data at the first element")
	assert.Equal(t, h.Device, dl.Device)
	assert.EqualValues(t, n, dl.Ndim)
	assert.Equal(t, c.dt, dl.DType)
	assert.Equal(t, c.wantByteOffset(h), dl.ByteOffset, "byte_offset")
	require.NotNil(t, dl.Shape, "shape is never NULL")
	require.NotNil(t, dl.Strides, "strides are always filled")
	assert.Equal(t, unsafe.Add(base, structSize), unsafe.Pointer(dl.Shape), "shape follows the struct")
	assert.Equal(t, unsafe.Add(base, structSize+uintptr(max(n, 1))*8), unsafe.Pointer(dl.Strides), "strides follow shape")
	if n > 0 {
		assert.Equal(t, c.shape, unsafe.Slice(dl.Shape, n))
		assert.Equal(t, c.strides, unsafe.Slice(dl.Strides, n), "strides verbatim")
	}
}

func TestExportVersionedLayout(t *testing.T) {
	for _, c := range exportCases() {
		t.Run(c.name, func(t *testing.T) {
			h := c.header(t)
			m, err := core.ExportVersioned(h, c.shape, c.strides, c.extra)
			require.NoError(t, err)
			assert.Equal(t, core.Version{Major: 1, Minor: 3}, m.Version)
			assert.Equal(t, unsafe.Pointer(h.Owner), m.ManagerCtx, "manager_ctx is the owner")
			assert.NotNil(t, m.Deleter)
			assert.Equal(t, c.wantFlags, m.Flags, "flags")
			checkExportedTensor(t, c, h, unsafe.Pointer(m), unsafe.Sizeof(*m), &m.DLTensor)
			assert.EqualValues(t, 2, h.Owner.Refs(), "export retains the owner")
			releaseVersioned(t, m)
		})
	}
}

func TestExportLegacyLayout(t *testing.T) {
	for _, c := range exportCases() {
		t.Run(c.name, func(t *testing.T) {
			h := c.header(t)
			m, err := core.ExportLegacy(h, c.shape, c.strides)
			if c.legacyRefusedBy != nil {
				require.ErrorIs(t, err, c.legacyRefusedBy)
				assert.Equal(t, core.ClassBuffer, core.ClassOf(err))
				assert.Nil(t, m)
				assert.EqualValues(t, 1, h.Owner.Refs(), "a refused export retains nothing")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, unsafe.Pointer(h.Owner), m.ManagerCtx)
			assert.NotNil(t, m.Deleter)
			checkExportedTensor(t, c, h, unsafe.Pointer(m), unsafe.Sizeof(*m), &m.DLTensor)
			assert.EqualValues(t, 2, h.Owner.Refs())
			releaseLegacy(t, m)
		})
	}
}

// releaseVersioned runs the exported deleter the way a consumer would (a
// C owner of kind OwnVersioned calls it from C).
func releaseVersioned(t *testing.T, m *core.DLManagedTensorVersioned) {
	t.Helper()
	o, err := core.NewOwner(core.OwnVersioned, unsafe.Pointer(m), nil)
	require.NoError(t, err)
	o.Release()
}

func releaseLegacy(t *testing.T, m *core.DLManagedTensor) {
	t.Helper()
	o, err := core.NewOwner(core.OwnLegacy, unsafe.Pointer(m), nil)
	require.NoError(t, err)
	o.Release()
}

func TestExportRefusals(t *testing.T) {
	cases := []struct {
		name           string
		dt             core.DataType
		shape, strides []int64
		offset         int64
		ndim           int
		released       bool
		want           *core.Error
	}{
		{name: "released header", dt: core.Float32, shape: []int64{2}, strides: []int64{1}, released: true, want: core.ErrReleased},
		{name: "packed float4 with offset", dt: core.Float4E2M1FN, shape: []int64{2}, strides: []int64{1}, offset: 2, want: core.ErrSubByteView},
		{name: "packed float4 strided", dt: core.Float4E2M1FN, shape: []int64{2}, strides: []int64{2}, want: core.ErrSubByteView},
		{name: "packed float6 transposed", dt: core.Float6E3M2FN, shape: []int64{2, 3}, strides: []int64{1, 2}, want: core.ErrSubByteView},
		{name: "shape shorter than ndim", dt: core.Float32, shape: []int64{2}, strides: []int64{1}, ndim: 2, want: core.ErrNdim},
		{name: "ndim too large", dt: core.Float32, shape: []int64{2}, strides: []int64{1}, ndim: core.MaxNdim + 1, want: core.ErrNdim},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := cHeader(t, c.dt, 64, len(c.shape))
			h.Offset = c.offset
			if c.ndim != 0 {
				h.Ndim = int32(c.ndim)
			}
			hh := *h
			if c.released {
				hh.Owner = nil
			}
			mv, err := core.ExportVersioned(&hh, c.shape, c.strides, 0)
			require.ErrorIs(t, err, c.want)
			assert.Nil(t, mv)
			ml, err := core.ExportLegacy(&hh, c.shape, c.strides)
			require.ErrorIs(t, err, c.want)
			assert.Nil(t, ml)
			assert.EqualValues(t, 1, h.Owner.Refs(), "a refused export retains nothing")
		})
	}
	_, err := core.ExportVersioned(nil, nil, nil, 0)
	require.ErrorIs(t, err, core.ErrReleased)
}

// Export then import gives the same memory, shape, strides and read-only
// state; releasing everything brings the owner back to its baseline.
func TestExportImportRoundTrip(t *testing.T) {
	for _, c := range exportCases() {
		if c.device != (core.Device{}) || c.wantNilData {
			continue // the round trip of those is covered by the layout tests
		}
		t.Run("versioned/"+c.name, func(t *testing.T) {
			h := c.header(t)
			m, err := core.ExportVersioned(h, c.shape, c.strides, c.extra)
			require.NoError(t, err)
			a, err := core.ImportVersioned(m)
			require.NoError(t, err)
			got := a.Header()
			assert.Equal(t, c.wantData(h), got.Data, "same data pointer")
			assert.Equal(t, dims(c.shape), dims(a.Shape()))
			assert.Equal(t, dims(c.strides), dims(a.Strides()))
			assert.Equal(t, c.flags&core.HeaderReadOnly != 0, a.ReadOnly())
			assert.Equal(t, c.flags, got.Flags&^derivedFlags, "header flags survive the trip")
			assert.Equal(t, modelDerivedFlags(h.Device, c.shape, c.strides), got.Flags&derivedFlags, "derived flags")
			assert.EqualValues(t, 2, h.Owner.Refs())
			a.Release()
		})
		if c.legacyRefusedBy != nil {
			continue
		}
		t.Run("legacy/"+c.name, func(t *testing.T) {
			h := c.header(t)
			m, err := core.ExportLegacy(h, c.shape, c.strides)
			require.NoError(t, err)
			a, err := core.ImportLegacy(m)
			require.NoError(t, err)
			assert.Equal(t, c.wantData(h), a.Header().Data)
			assert.Equal(t, dims(c.shape), dims(a.Shape()))
			assert.Equal(t, dims(c.strides), dims(a.Strides()))
			a.Release()
		})
	}
}

// Exporting an imported foreign tensor chains the owners: the foreign
// deleter runs once, after both our array and the consumer are done.
func TestReexportForeignTensor(t *testing.T) {
	m := cfixture.Versioned(with(f32(2, 2), func(s *cfixture.Spec) { s.Flags = core.FlagReadOnly }))
	defer cfixture.Free(m)
	a, err := core.ImportVersioned(m)
	require.NoError(t, err)
	out, err := a.ExportVersioned(0)
	require.NoError(t, err)
	assert.Equal(t, core.FlagReadOnly, out.Flags)
	_, err = a.ExportLegacy()
	require.ErrorIs(t, err, core.ErrReadOnlyLegacy)
	a.Release()
	assert.Zero(t, cfixture.Calls(m), "the consumer still holds the memory")
	releaseVersioned(t, out)
	assert.EqualValues(t, 1, cfixture.Calls(m))
}

func TestArrayExport(t *testing.T) {
	h := cHeader(t, core.Int32, 64, 2)
	a := core.NewArray(*h, []int64{2, 2}, []int64{2, 1})
	mv, err := a.ExportVersioned(core.FlagIsCopied)
	require.NoError(t, err)
	assert.Equal(t, core.FlagIsCopied, mv.Flags)
	ml, err := a.ExportLegacy()
	require.NoError(t, err)
	assert.EqualValues(t, 4, h.Owner.Refs())
	a.Release()
	releaseVersioned(t, mv)
	releaseLegacy(t, ml)
	_, err = a.ExportVersioned(0)
	require.ErrorIs(t, err, core.ErrReleased, "a released array cannot be exported")
}

func TestExportAllocatesNothing(t *testing.T) {
	h := cHeader(t, core.Float32, 256, 2)
	shape, strides := []int64{4, 4}, []int64{-4, 1}
	h.Offset = 12
	a := core.NewArray(*h, shape, strides)
	defer a.Release()
	allocs := testing.AllocsPerRun(100, func() {
		mv, err := core.ExportVersioned(h, shape, strides, core.FlagIsCopied)
		if err != nil {
			panic(err)
		}
		o, _ := core.NewOwner(core.OwnVersioned, unsafe.Pointer(mv), nil)
		o.Release()
		ml, err := core.ExportLegacy(h, shape, strides)
		if err != nil {
			panic(err)
		}
		o, _ = core.NewOwner(core.OwnLegacy, unsafe.Pointer(ml), nil)
		o.Release()
		mv, err = a.ExportVersioned(0)
		if err != nil {
			panic(err)
		}
		o, _ = core.NewOwner(core.OwnVersioned, unsafe.Pointer(mv), nil)
		o.Release()
	})
	assert.Zero(t, allocs)
}

// dims makes nil and empty dimension lists compare equal.
func dims(v []int64) []int64 { return append([]int64{}, v...) }

func BenchmarkDescribeVersioned(b *testing.B) {
	m := cfixture.Versioned(with(f32(3, 4, 5), func(s *cfixture.Spec) { s.Strides = []int64{20, 5, 1} }))
	defer cfixture.Free(m)
	var h core.Header
	var shape, strides [core.MaxNdim]int64
	b.ReportAllocs()
	for b.Loop() {
		if err := core.DescribeVersioned(m, &h, shape[:], strides[:]); err != nil {
			b.Fatal(err)
		}
	}
}

// One export and its release by a consumer (deleter run from C).
func BenchmarkExportVersionedRelease(b *testing.B) {
	p := cfixture.Alloc(240)
	o, err := core.NewOwner(core.OwnFree, p, cfixture.FreeFunc())
	require.NoError(b, err)
	defer o.Release()
	h := &core.Header{Data: p, Owner: o, DType: core.Float32, Ndim: 3, Device: core.CPU}
	shape, strides := []int64{3, 4, 5}, []int64{20, 5, 1}
	b.ReportAllocs()
	for b.Loop() {
		m, err := core.ExportVersioned(h, shape, strides, 0)
		if err != nil {
			b.Fatal(err)
		}
		mo, _ := core.NewOwner(core.OwnVersioned, unsafe.Pointer(m), nil)
		mo.Release()
	}
}
