// Package oneapi_test checks the device rules that the oneAPI backend brings
// into core, without dpctl: the backend is registered (its own test binary,
// so tests_go keeps kDLOneAPI backend-less) but its library is never loaded
// unless GODLPACK_DPCTL_LIB or an already loaded dpctl provides it.
package oneapi_test

import (
	"errors"
	"os"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/backends"
	"github.com/godlpack/godlpack/backends/oneapi"
	"github.com/godlpack/godlpack/core"
)

var (
	one  = core.Device{Type: core.KDLOneAPI, ID: 0}
	cuda = core.Device{Type: core.KDLCUDA, ID: 0}
	host = core.Device{Type: core.KDLCUDAHost, ID: 0}
)

func TestOneAPIRules(t *testing.T) {
	t.Parallel()
	assert.True(t, core.Reachable(one))
	assert.False(t, core.Reachable(cuda))
	assert.False(t, core.CPUAccessible(core.KDLOneAPI), "per pointer, not per type")
	assert.False(t, core.FoldsByteOffset(one), "dpctl keeps byte_offset")
	assert.Equal(t, one, core.CopyDevice(one))
	assert.Equal(t, core.CPU, core.CopyDevice(host))
	assert.False(t, core.AsksHostCopy(core.KDLOneAPI), "kept on its device")
	assert.False(t, core.SkinCopies(one, core.CPU))
	assert.True(t, core.SkinCopies(core.CPU, core.CPU))
}

func TestCanCopyWithOneAPI(t *testing.T) {
	t.Parallel()
	cases := []struct {
		src, dst core.Device
		want     bool
	}{
		{core.CPU, one, true},
		{one, core.CPU, true},
		{one, one, true},
		{one, core.Device{Type: core.KDLOneAPI, ID: 3}, true},
		{host, one, true},
		{cuda, one, false},
		{one, cuda, false},
		{one, host, false},
	}
	for _, c := range cases {
		assert.Equalf(t, c.want, core.CanCopy(c.src, c.dst), "%v -> %v", c.src, c.dst)
	}
}

func TestPlanWithOneAPI(t *testing.T) {
	t.Parallel()
	v13 := core.Version{Major: 1, Minor: 3}
	cases := []struct {
		name    string
		src     core.Device
		req     core.ExportRequest
		copy    bool
		target  core.Device
		wantErr error
	}{
		{"to device", core.CPU, core.ExportRequest{MaxVersion: v13, HasMaxVersion: true, DLDevice: one, HasDLDevice: true}, true, one, nil},
		{"to host", one, core.ExportRequest{MaxVersion: v13, HasMaxVersion: true, DLDevice: core.CPU, HasDLDevice: true}, true, core.CPU, nil},
		{"same device", one, core.ExportRequest{MaxVersion: v13, HasMaxVersion: true, DLDevice: one, HasDLDevice: true}, false, one, nil},
		{"copy=True stays", one, core.ExportRequest{MaxVersion: v13, HasMaxVersion: true, Copy: core.CopyAlways}, true, one, nil},
		{"queue object", one, core.ExportRequest{HasStream: true, StreamObject: true, StreamQueue: true}, false, one, nil},
		{"another object", one, core.ExportRequest{HasStream: true, StreamObject: true}, false, one, core.ErrUnsupported},
		{"stream -1", one, core.ExportRequest{HasStream: true, Stream: -1}, false, one, nil},
		{"int stream", one, core.ExportRequest{HasStream: true, Stream: 1}, false, one, core.ErrStream},
		{"queue on cpu", core.CPU, core.ExportRequest{HasStream: true, StreamObject: true, StreamQueue: true}, false, core.CPU, core.ErrUnsupported},
		{"copy=False to host", one, core.ExportRequest{MaxVersion: v13, HasMaxVersion: true, DLDevice: core.CPU, HasDLDevice: true, Copy: core.CopyNever}, false, core.CPU, core.ErrCopyNeeded},
	}
	for _, c := range cases {
		p, err := core.PlanExport(c.src, false, c.req)
		if c.wantErr != nil {
			assert.ErrorIsf(t, err, c.wantErr, c.name)
			continue
		}
		require.NoErrorf(t, err, c.name)
		assert.Equalf(t, c.copy, p.Copy, c.name)
		assert.Equalf(t, c.target, p.Target, c.name)
	}
	_, err := core.PlanImport(one, 0, core.ImportRequest{Device: one, HasDevice: true})
	assert.NoError(t, err, "from_dlpack(device=oneapi:0) has a backend")
}

// Without dpctl's library: allocations name what to install, an imported
// pointer is held as opaque memory (not host-accessible, no error).
func TestWithoutLibrary(t *testing.T) {
	if os.Getenv("GODLPACK_DPCTL_LIB") != "" || oneapi.Load() == nil {
		t.Skip("dpctl's library is loadable here")
	}
	t.Parallel()
	var h core.Header
	st := make([]int64, 1)
	err := core.AllocContiguousOn("zeros()", one, core.Float32, []int64{4}, &h, st, true)
	require.Error(t, err)
	assert.ErrorIs(t, err, core.ErrDevice)
	assert.Contains(t, err.Error(), "zeros(): cannot allocate on oneapi:0: oneAPI devices need dpctl's SYCL runtime")
	assert.Contains(t, err.Error(), "pip install dpctl (or dpnp)")
	x := 1.0
	ok, err := core.HostAccessible(one, unsafe.Pointer(&x))
	assert.NoError(t, err)
	assert.False(t, ok)
	var b oneapi.Backend
	_, err = b.PointerInfo(0, unsafe.Pointer(&x))
	assert.True(t, errors.Is(err, backends.ErrUnavailable))
	_, err = b.Allocate(0, -1, false)
	assert.ErrorIs(t, err, backends.ErrInvalidSize)
}
