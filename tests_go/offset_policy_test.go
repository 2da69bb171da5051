package tests_go

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/tests_go/cfixture"
)

// The byte_offset policy (core.FoldsByteOffset) on import, on views and on
// export: CPU-addressable memory folds the offset into data; device memory,
// whose data may be an opaque handle, keeps data and carries the offset.
func TestByteOffsetPolicyRoundTrip(t *testing.T) {
	const handle = uintptr(0x10000)
	cases := []struct {
		name     string
		dev      core.Device
		dt       core.DataType
		off      uint64
		refused  error
		wantData uintptr // after import
		wantOff  int64   // Header.Offset after import (elements)
	}{
		{name: "cpu folds", dev: core.CPU, dt: core.Float32, off: 64, wantData: handle + 64},
		{name: "cpu folds an unaligned offset", dev: core.CPU, dt: core.Float32, off: 6, wantData: handle + 6},
		{name: "cuda_host folds", dev: core.Device{Type: core.KDLCUDAHost}, dt: core.Int16, off: 64, wantData: handle + 64},
		{name: "opencl keeps the handle", dev: core.Device{Type: core.KDLOpenCL}, dt: core.Float32, off: 64, wantData: handle, wantOff: 16},
		{name: "oneapi keeps the handle", dev: core.Device{Type: core.KDLOneAPI, ID: 1}, dt: core.Int32, off: 36, wantData: handle, wantOff: 9},
		{name: "cuda keeps the pointer", dev: core.Device{Type: core.KDLCUDA}, dt: core.Float64, off: 8, wantData: handle, wantOff: 1},
		{name: "vulkan: offset not a whole element", dev: core.Device{Type: core.KDLVulkan}, dt: core.Float32, off: 6, refused: core.ErrByteOffset},
		{name: "metal: packed sub-byte with an offset", dev: core.Device{Type: core.KDLMetal}, dt: core.Float4E2M1FN, off: 4, refused: core.ErrByteOffset},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := cfixture.Versioned(cfixture.Spec{
				Version: core.DLPackVersion, DataAddr: handle, Device: c.dev, Ndim: 1, DType: c.dt,
				Shape: []int64{10}, Strides: []int64{1}, ByteOffset: c.off,
			})
			defer cfixture.Free(m)
			var h core.Header
			var shape, strides [core.MaxNdim]int64
			err := core.DescribeVersioned(m, &h, shape[:], strides[:])
			if c.refused != nil {
				require.ErrorIs(t, err, c.refused)
				assert.Equal(t, core.ClassBuffer, core.ClassOf(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.wantData, uintptr(h.Data), "data after import")
			assert.Equal(t, c.wantOff, h.Offset, "element offset after import")

			// The same tensor exported again, and a view of it a[2:]:
			// the producer's data and byte_offset come back.
			a, err := core.ImportVersioned(m)
			require.NoError(t, err)
			defer a.Release()
			for _, view := range []struct {
				start int64
				name  string
			}{{0, "a"}, {2, "a[2:]"}} {
				v, err := a.Slice(0, view.start, 10, 1)
				require.NoError(t, err)
				out, err := v.ExportVersioned(0)
				require.NoError(t, err)
				wantBytes := c.off + uint64(view.start)*uint64(c.dt.ItemSize())
				if core.FoldsByteOffset(c.dev) {
					assert.Equal(t, handle+uintptr(wantBytes), uintptr(out.DLTensor.Data), "%s: data", view.name)
					assert.Zero(t, out.DLTensor.ByteOffset, "%s: byte_offset", view.name)
				} else {
					assert.Equal(t, handle, uintptr(out.DLTensor.Data), "%s: the handle is never offset", view.name)
					assert.Equal(t, wantBytes, out.DLTensor.ByteOffset, "%s: byte_offset", view.name)
					assert.Equal(t, handle, uintptr(v.DataPtr()), "%s: DataPtr is the handle", view.name)
					assert.Equal(t, int64(wantBytes), v.ByteOffset(), "%s: ByteOffset()", view.name)
				}
				cfixture.DeleteVersioned(unsafe.Pointer(out))
				v.Release()
			}
		})
	}
}

// S5: an empty tensor is exported with NULL data where data is an address,
// and keeps its handle (byte_offset 0) where data is one: dpctl finds the
// context from the pointer and refuses NULL.
func TestEmptyExportData(t *testing.T) {
	t.Parallel()
	const handle = uintptr(0x10000)
	for _, c := range []struct {
		dev  core.Device
		want uintptr
	}{
		{core.CPU, 0},
		{core.Device{Type: core.KDLCUDAHost}, 0},
		{core.Device{Type: core.KDLOneAPI}, handle},
		{core.Device{Type: core.KDLOpenCL}, handle},
	} {
		m := cfixture.Versioned(cfixture.Spec{
			Version: core.DLPackVersion, DataAddr: handle, Device: c.dev, Ndim: 1, DType: core.Float32,
			Shape: []int64{0}, Strides: []int64{1}, ByteOffset: 8,
		})
		a, err := core.ImportVersioned(m)
		require.NoError(t, err, c.dev)
		out, err := a.ExportVersioned(0)
		require.NoError(t, err, c.dev)
		assert.Equal(t, c.want, uintptr(out.DLTensor.Data), "%v: data", c.dev)
		assert.Zero(t, out.DLTensor.ByteOffset, "%v: byte_offset", c.dev)
		cfixture.DeleteVersioned(unsafe.Pointer(out))
		a.Release()
		cfixture.Free(m)
	}
}

// The device facts core decides in one place.
func TestDevicePolicyTable(t *testing.T) {
	t.Parallel()
	for _, dt := range core.DeviceTypes {
		host := dt == core.KDLCPU || dt == core.KDLCUDAHost || dt == core.KDLROCMHost || dt == core.KDLCUDAManaged
		assert.Equal(t, host, core.CPUAccessible(dt), "CPUAccessible(%s)", dt)
		assert.Equal(t, host, core.FoldsByteOffset(core.Device{Type: dt}), "FoldsByteOffset(%s)", dt)
	}
	assert.False(t, core.CPUAccessible(0))
	assert.False(t, core.CPUAccessible(99))
}

// ExportView: the exchange API's non-owning DLTensor follows the same
// byte_offset policy and refuses what it cannot describe.
func TestExportView(t *testing.T) {
	o, err := core.NewOwner(core.OwnNone, nil, nil)
	require.NoError(t, err)
	defer o.Release()
	base := cfixture.Alloc(256) // never read: only its address matters
	defer cfixture.FreeMem(base)
	addr := uintptr(base)
	shape, strides := []int64{3}, []int64{-1}
	cases := []struct {
		name     string
		h        core.Header
		wantData uintptr
		wantOff  uint64
		err      error
	}{
		{name: "cpu folds", h: core.Header{Data: base, Owner: o, Offset: 4, DType: core.Float32, Ndim: 1, Device: core.CPU},
			wantData: addr + 16},
		{name: "opencl keeps the handle", h: core.Header{Data: base, Owner: o, Offset: 4, DType: core.Float32, Ndim: 1, Device: core.Device{Type: core.KDLOpenCL}},
			wantData: addr, wantOff: 16},
		{name: "read-only refused", h: core.Header{Data: base, Owner: o, DType: core.Float32, Ndim: 1, Device: core.CPU, Flags: core.HeaderReadOnly},
			err: core.ErrReadOnlyLegacy},
		{name: "released refused", h: core.Header{DType: core.Float32, Ndim: 1, Device: core.CPU}, err: core.ErrReleased},
		{name: "packed sub-byte view refused", h: core.Header{Data: base, Owner: o, Offset: 1, DType: core.Float4E2M1FN, Ndim: 1, Device: core.CPU},
			err: core.ErrSubByteView},
	}
	for _, c := range cases {
		var dl core.DLTensor
		err := core.ExportView(&c.h, shape, strides, &dl)
		if c.err != nil {
			assert.ErrorIs(t, err, c.err, c.name)
			continue
		}
		require.NoError(t, err, c.name)
		assert.Equal(t, c.wantData, uintptr(dl.Data), c.name)
		assert.Equal(t, c.wantOff, dl.ByteOffset, c.name)
		assert.Equal(t, &shape[0], dl.Shape, "%s: the caller's shape", c.name)
		assert.Equal(t, &strides[0], dl.Strides, c.name)
		assert.Equal(t, c.h.Device, dl.Device, c.name)
	}
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		var dl core.DLTensor
		_ = core.ExportView(&cases[0].h, shape, strides, &dl)
	}), "ExportView allocates nothing on success")
}
