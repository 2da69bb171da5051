package tests_go

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
)

// deviceOracle: DLPack 1.3's device types, written from dlpack.h.
var deviceOracle = []struct {
	num         int32
	enum, short string
	cpu         bool // CPU-accessible
}{
	{1, "kDLCPU", "cpu", true},
	{2, "kDLCUDA", "cuda", false},
	{3, "kDLCUDAHost", "cuda_host", true},
	{4, "kDLOpenCL", "opencl", false},
	{7, "kDLVulkan", "vulkan", false},
	{8, "kDLMetal", "metal", false},
	{9, "kDLVPI", "vpi", false},
	{10, "kDLROCM", "rocm", false},
	{11, "kDLROCMHost", "rocm_host", true},
	{12, "kDLExtDev", "ext_dev", false},
	{13, "kDLCUDAManaged", "cuda_managed", true},
	{14, "kDLOneAPI", "oneapi", false},
	{15, "kDLWebGPU", "webgpu", false},
	{16, "kDLHexagon", "hexagon", false},
	{17, "kDLMAIA", "maia", false},
	{18, "kDLTrn", "trn", false},
}

func TestDeviceTypeNames(t *testing.T) {
	t.Parallel()
	require.Len(t, core.DeviceTypes, len(deviceOracle))
	for i, o := range deviceOracle {
		dt := core.DeviceType(o.num)
		assert.Equal(t, dt, core.DeviceTypes[i])
		assert.True(t, core.KnownDeviceType(dt), "%d", o.num)
		assert.Equal(t, o.enum, dt.String())
		assert.Equal(t, o.short, dt.ShortName())
		assert.Equalf(t, o.cpu, core.CPUAccessible(dt), "CPUAccessible(%s)", o.enum)
	}
}

func TestUnknownDeviceTypes(t *testing.T) {
	t.Parallel()
	for _, n := range []int32{-1, 0, 5, 6, 19, 100, 1 << 30} {
		dt := core.DeviceType(n)
		assert.False(t, core.KnownDeviceType(dt), "%d", n)
		assert.False(t, core.CPUAccessible(dt), "%d", n)
		assert.Empty(t, dt.ShortName())
		err := core.ValidateDevice(core.Device{Type: dt})
		assert.Truef(t, errors.Is(err, core.ErrDevice), "ValidateDevice(%d) = %v", n, err)
		assert.Equal(t, core.ClassBuffer, core.ClassOf(err))
	}
	assert.Equal(t, "DeviceType(5)", core.DeviceType(5).String())
	assert.Equal(t, "DeviceType(99):3", core.Device{Type: 99, ID: 3}.String())
}

func TestDeviceString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d           core.Device
		want, tuple string
	}{
		{core.CPU, "cpu:0", "(1, 0)"},
		{core.Device{Type: core.KDLCUDA, ID: 1}, "cuda:1", "(2, 1)"},
		{core.Device{Type: core.KDLOneAPI, ID: 0}, "oneapi:0", "(14, 0)"},
		{core.Device{Type: core.KDLCUDAManaged}, "cuda_managed:0", "(13, 0)"},
		{core.Device{Type: core.KDLTrn, ID: 7}, "trn:7", "(18, 7)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.d.String())
		assert.Equal(t, tt.tuple, tt.d.Tuple())
	}
}

func TestParseDeviceRoundTrip(t *testing.T) {
	t.Parallel()
	for _, o := range deviceOracle {
		dt := core.DeviceType(o.num)
		ids := []int32{0}
		if !(o.num == 1 || o.num == 3 || o.num == 13) {
			ids = append(ids, 1, 7, 1<<31-1)
		}
		for _, id := range ids {
			d := core.Device{Type: dt, ID: id}
			got, err := core.ParseDevice(d.String())
			require.NoErrorf(t, err, "ParseDevice(%q)", d.String())
			assert.Equal(t, d, got)
			require.NoError(t, core.ValidateDevice(d))
		}
		got, err := core.ParseDevice(o.short)
		require.NoError(t, err)
		assert.Equal(t, core.Device{Type: dt}, got)
		got, err = core.ParseDevice(o.enum)
		require.NoError(t, err)
		assert.Equal(t, core.Device{Type: dt}, got)
	}
}

func TestParseDeviceErrors(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", ":", ":0", "gpu", "CPU", "cpu:", "cuda:", "cuda:-1", "cuda:+1", "cuda:x", "cuda: 1",
		" cpu", "cuda:1:2", "cuda:2147483648", "cpu:1", "cuda_host:2", "cuda_managed:1", "kDLCPU:1",
		"cuda:0x1", "DeviceType(5):0",
	} {
		_, err := core.ParseDevice(s)
		require.Errorf(t, err, "ParseDevice(%q)", s)
		assert.Truef(t, errors.Is(err, core.ErrDevice), "ParseDevice(%q) = %v, want ErrDevice", s, err)
		assert.Equalf(t, core.ClassValue, core.ClassOf(err), "ParseDevice(%q) class", s)
	}
}

// DeviceArg is the one rule for device arguments: text in ParseDevice's
// forms, or a (type, id) pair; a refusal is ErrDevice as a ValueError that
// starts with the entry point and names the argument.
func TestDeviceArg(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s       string
		pair    bool
		typ, id int64
		want    core.Device
		refusal string // "" when accepted
	}{
		{"cuda:1", false, 0, 0, core.Device{Type: core.KDLCUDA, ID: 1}, ""},
		{"cpu", false, 0, 0, core.Device{Type: core.KDLCPU}, ""},
		{"(2, 1)", true, 2, 1, core.Device{Type: core.KDLCUDA, ID: 1}, ""},
		{"(2, 2147483647)", true, 2, 2147483647, core.Device{Type: core.KDLCUDA, ID: 2147483647}, ""},
		{"(1, 0)", true, 1, 0, core.Device{Type: core.KDLCPU}, ""},
		{"gpu", false, 0, 0, core.Device{}, `E(): unknown device "gpu"`},
		{"cpu:1", false, 0, 0, core.Device{}, `E(): device "cpu:1": the id of cpu memory must be 0`},
		{"(99, 0)", true, 99, 0, core.Device{}, "E(): unknown DLPack device type 99 in (99, 0)"},
		{"(5, 0)", true, 5, 0, core.Device{}, "E(): unknown DLPack device type 5 in (5, 0)"},
		{"(4294967298, 0)", true, 1<<32 + 2, 0, core.Device{}, "E(): unknown DLPack device type 4294967298"},
		{"(2, -1)", true, 2, -1, core.Device{}, "E(): invalid device id in (2, -1)"},
		{"(2, 2147483648)", true, 2, 2147483648, core.Device{}, "E(): invalid device id in (2, 2147483648)"},
		{"(1, 1)", true, 1, 1, core.Device{}, `E(): device (1, 1): the id of cpu memory must be 0; use "cpu"`},
		{"(13, 2)", true, 13, 2, core.Device{}, "the id of cuda_managed memory must be 0"},
	} {
		d, err := core.DeviceArg("E()", c.s, c.pair, c.typ, c.id)
		if c.refusal == "" {
			require.NoError(t, err, c.s)
			assert.Equal(t, c.want, d, c.s)
			continue
		}
		require.Error(t, err, c.s)
		assert.Contains(t, err.Error(), c.refusal)
		assert.ErrorIs(t, err, core.ErrDevice, c.s)
		assert.Equal(t, core.ClassValue, core.ClassOf(err), c.s)
	}
}

func TestValidateDevice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d  core.Device
		ok bool
	}{
		{core.CPU, true},
		{core.Device{Type: core.KDLCPU, ID: 1}, false},
		{core.Device{Type: core.KDLCUDAHost, ID: 1}, false},
		{core.Device{Type: core.KDLCUDAManaged, ID: 2}, false},
		{core.Device{Type: core.KDLROCMHost, ID: 1}, true},
		{core.Device{Type: core.KDLCUDA, ID: 3}, true},
		{core.Device{Type: core.KDLCUDA, ID: -1}, false},
		{core.Device{Type: 6}, false},
	}
	for _, tt := range tests {
		err := core.ValidateDevice(tt.d)
		if tt.ok {
			assert.NoErrorf(t, err, "ValidateDevice(%v)", tt.d)
		} else {
			assert.Truef(t, errors.Is(err, core.ErrDevice), "ValidateDevice(%v) = %v, want ErrDevice", tt.d, err)
		}
	}
}

func TestValidateDeviceNoAlloc(t *testing.T) {
	// Not parallel: AllocsPerRun refuses parallel tests.
	allocs := testing.AllocsPerRun(100, func() { _ = core.ValidateDevice(core.Device{Type: core.KDLCUDA, ID: 3}) })
	assert.Zero(t, allocs)
}
