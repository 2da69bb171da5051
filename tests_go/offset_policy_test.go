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
