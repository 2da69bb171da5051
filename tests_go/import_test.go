package tests_go

import (
	"errors"
	"math"
	"runtime/debug"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/tests_go/cfixture"
)

var (
	v13    = core.Version{Major: 1, Minor: 3}
	cpuDev = core.CPU
)

// guardFaults turns a read of unmapped memory (cfixture guard pages) into a
// panic that fails the test with a stack instead of killing the process.
func guardFaults(t *testing.T) {
	t.Helper()
	old := debug.SetPanicOnFault(true)
	t.Cleanup(func() { debug.SetPanicOnFault(old) })
}

// importCase is one row of the validation table. Spec is used for both the
// versioned and the legacy struct unless only says otherwise (Version and
// Flags only exist in the versioned one).
type importCase struct {
	name string
	spec cfixture.Spec
	only string      // "", "v" (versioned only) or "l" (legacy only)
	want *core.Error // nil: accepted

	// Expectations for accepted tensors. wantStrides nil: the spec's strides.
	wantStrides []int64
	wantFlags   uint64 // Header.Flags
}

func f32(shape ...int64) cfixture.Spec {
	n := int64(4)
	for _, d := range shape {
		n *= d
	}
	return cfixture.Spec{
		Version: v13, Device: cpuDev, DType: core.Float32, Ndim: int32(len(shape)),
		Shape: shape, DataBytes: max(n, 1),
	}
}

func with(s cfixture.Spec, mod func(*cfixture.Spec)) cfixture.Spec {
	mod(&s)
	return s
}

func importCases() []importCase {
	ones64 := make([]int64, core.MaxNdim)
	for i := range ones64 {
		ones64[i] = 1
	}
	return []importCase{
		// ---- accepted ----
		{name: "1-d contiguous", spec: with(f32(4), func(s *cfixture.Spec) { s.Strides = []int64{1} })},
		{name: "NULL strides mean C-contiguous", spec: f32(2, 3, 4), wantStrides: []int64{12, 4, 1}},
		{name: "NULL strides from a 1.3 producer (lenient)", spec: with(f32(2, 3), func(s *cfixture.Spec) { s.Version = v13 }),
			only: "v", wantStrides: []int64{3, 1}},
		{name: "NULL strides with a zero dim", spec: with(f32(2, 0, 3), func(s *cfixture.Spec) { s.DataBytes = 0 }),
			wantStrides: []int64{3, 3, 1}},
		{name: "0-d with NULL shape and strides", spec: f32()},
		{name: "0-d with guarded empty shape and strides", spec: with(f32(), func(s *cfixture.Spec) {
			s.Shape, s.Strides = []int64{}, []int64{}
		}), wantStrides: []int64{}},
		{name: "size 0 with NULL data", spec: with(f32(0), func(s *cfixture.Spec) { s.DataBytes = 0; s.Strides = []int64{1} })},
		{name: "size 0 (3,0,1) with NULL data", spec: with(f32(3, 0, 1), func(s *cfixture.Spec) {
			s.DataBytes = 0
			s.Strides = []int64{7, -3, math.MinInt64}
		})},
		{name: "size 0 with non-NULL data", spec: with(f32(1, 0), func(s *cfixture.Spec) { s.DataBytes = 16 })},
		{name: "zero dim beside huge dims has size 0", spec: with(f32(0), func(s *cfixture.Spec) {
			s.Ndim, s.Shape, s.Strides, s.DataBytes = 3, []int64{1 << 62, 4, 0}, []int64{1, 1, 1}, 0
		})},
		{name: "negative stride with byte_offset", spec: with(f32(4), func(s *cfixture.Spec) {
			s.Strides, s.ByteOffset = []int64{-1}, 12
		})},
		{name: "negative strides 2-d", spec: with(f32(3, 4), func(s *cfixture.Spec) {
			s.Strides, s.ByteOffset = []int64{-4, -1}, 44
		})},
		{name: "zero stride (broadcast)", spec: with(f32(5), func(s *cfixture.Spec) { s.Strides = []int64{0}; s.DataBytes = 4 })},
		{name: "size-1 dims keep odd strides", spec: with(f32(1, 3, 1), func(s *cfixture.Spec) {
			s.Strides = []int64{12345, 1, -77}
		})},
		{name: "size-1 dim with MinInt64 stride", spec: with(f32(1, 2), func(s *cfixture.Spec) {
			s.Strides = []int64{math.MinInt64, 1}
		})},
		{name: "Fortran order", spec: with(f32(2, 3), func(s *cfixture.Spec) { s.Strides = []int64{1, 2} })},
		{name: "byte_offset honoured", spec: with(f32(2), func(s *cfixture.Spec) { s.DataBytes, s.ByteOffset = 64, 40 })},
		{name: "ndim MaxNdim", spec: with(f32(), func(s *cfixture.Spec) { s.Ndim, s.Shape = core.MaxNdim, ones64 }),
			wantStrides: ones64},
		{name: "READ_ONLY flag", spec: with(f32(2), func(s *cfixture.Spec) { s.Flags = core.FlagReadOnly }),
			only: "v", wantStrides: []int64{1}, wantFlags: core.HeaderReadOnly},
		{name: "IS_COPIED and unknown flag bits ignored", spec: with(f32(2), func(s *cfixture.Spec) {
			s.Flags = core.FlagIsCopied | 1<<40
		}), only: "v", wantStrides: []int64{1}},
		{name: "version 1.0", spec: with(f32(2), func(s *cfixture.Spec) { s.Version = core.Version{Major: 1} }),
			only: "v", wantStrides: []int64{1}},
		{name: "newer minor version 1.9", spec: with(f32(2), func(s *cfixture.Spec) { s.Version = core.Version{Major: 1, Minor: 9} }),
			only: "v", wantStrides: []int64{1}},
		{name: "CUDA device described as is", spec: with(f32(2), func(s *cfixture.Spec) {
			s.Device = core.Device{Type: core.KDLCUDA, ID: 3}
		}), wantStrides: []int64{1}},
		{name: "Trn device", spec: with(f32(2), func(s *cfixture.Spec) { s.Device = core.Device{Type: core.KDLTrn} }),
			wantStrides: []int64{1}},
		{name: "bool", spec: with(f32(3), func(s *cfixture.Spec) { s.DType = core.Bool }), wantStrides: []int64{1}},
		{name: "bfloat16", spec: with(f32(3), func(s *cfixture.Spec) { s.DType = core.BFloat16 }), wantStrides: []int64{1}},
		{name: "complex128", spec: with(f32(3), func(s *cfixture.Spec) { s.DType = core.Complex128; s.DataBytes = 48 }),
			wantStrides: []int64{1}},
		{name: "float8_e4m3fn", spec: with(f32(3), func(s *cfixture.Spec) { s.DType = core.Float8E4M3FN }), wantStrides: []int64{1}},
		{name: "packed float4 contiguous", spec: with(f32(2, 8), func(s *cfixture.Spec) { s.DType = core.Float4E2M1FN }),
			wantStrides: []int64{8, 1}},
		{name: "packed float6 contiguous, size-1 dim odd stride", spec: with(f32(1, 8), func(s *cfixture.Spec) {
			s.DType, s.Strides = core.Float6E2M3FN, []int64{99, 1}
		})},
		{name: "padded float4 with strides", spec: with(f32(4), func(s *cfixture.Spec) {
			s.DType, s.Strides, s.Flags = core.Float4E2M1FN, []int64{-2}, core.FlagIsSubbyteTypePadded
			s.ByteOffset = 6
		}), only: "v", wantFlags: core.HeaderSubBytePadded},
		{name: "NULL deleter", spec: with(f32(2), func(s *cfixture.Spec) { s.NullDeleter = true }), wantStrides: []int64{1}},
		{name: "NULL manager_ctx", spec: with(f32(2), func(s *cfixture.Spec) { s.ManagerCtx = nil }), wantStrides: []int64{1}},

		// ---- refused ----
		{name: "ndim -1", spec: with(f32(), func(s *cfixture.Spec) { s.Ndim = -1 }), want: core.ErrNdim},
		{name: "ndim MaxNdim+1", spec: with(f32(), func(s *cfixture.Spec) { s.Ndim = core.MaxNdim + 1 }), want: core.ErrNdim},
		{name: "ndim MinInt32", spec: with(f32(), func(s *cfixture.Spec) { s.Ndim = math.MinInt32 }), want: core.ErrNdim},
		{name: "NULL shape with ndim 2", spec: with(f32(), func(s *cfixture.Spec) { s.Ndim = 2 }), want: core.ErrNullShape},
		{name: "negative dim", spec: with(f32(2, -1), nil2), want: core.ErrShape},
		{name: "MinInt64 dim", spec: with(f32(math.MinInt64), nil2), want: core.ErrShape},
		{name: "element count overflow", spec: with(f32(1<<32, 1<<32), nil2), want: core.ErrOverflow},
		{name: "element count just overflows", spec: with(f32(math.MaxInt64, 2), nil2), want: core.ErrOverflow},
		{name: "contiguous strides of an empty shape overflow", spec: with(f32(0, 1<<40, 1<<40), func(s *cfixture.Spec) {
			s.DataBytes = 0
		}), want: core.ErrOverflow},
		{name: "byte extent overflow (positive strides)", spec: with(f32(2, 2), func(s *cfixture.Spec) {
			s.DType, s.Strides = core.Float64, []int64{1 << 61, 1 << 61}
		}), want: core.ErrOverflow},
		{name: "byte extent overflow (MinInt64 stride)", spec: with(f32(2), func(s *cfixture.Spec) {
			s.Strides = []int64{math.MinInt64}
		}), want: core.ErrOverflow},
		{name: "element extent overflow (stride*dim)", spec: with(f32(3), func(s *cfixture.Spec) {
			s.DType, s.Strides = core.Int8, []int64{math.MaxInt64}
		}), want: core.ErrOverflow},
		{name: "negative extent overflow", spec: with(f32(3, 3), func(s *cfixture.Spec) {
			s.DType, s.Strides = core.Int8, []int64{-(1 << 62), -(1 << 62)}
		}), want: core.ErrOverflow},
		{name: "byte_offset > MaxInt64", spec: with(f32(1), func(s *cfixture.Spec) { s.ByteOffset = 1 << 63 }), want: core.ErrOverflow},
		{name: "byte_offset + extent overflow", spec: with(f32(1), func(s *cfixture.Spec) { s.ByteOffset = math.MaxInt64 - 2 }),
			want: core.ErrOverflow},
		{name: "strides reach below address 0", spec: with(f32(2), func(s *cfixture.Spec) {
			s.DType, s.Strides = core.Int8, []int64{-(1 << 60)}
		}), want: core.ErrOverflow},
		{name: "element extent overflow (int8, MaxInt64 stride)", spec: with(f32(2), func(s *cfixture.Spec) {
			s.DType, s.Strides = core.Int8, []int64{math.MaxInt64}
		}), want: core.ErrOverflow},
		{name: "strides reach past the top of the address space", spec: with(f32(2), func(s *cfixture.Spec) {
			s.DType, s.Strides, s.DataBytes, s.DataAddr = core.Int8, []int64{4096}, 0, ^uintptr(0)-4095
		}), want: core.ErrOverflow},
		{name: "byte_offset reaches past the top of the address space", spec: with(f32(0), func(s *cfixture.Spec) {
			s.DataBytes, s.DataAddr, s.ByteOffset = 0, ^uintptr(0)-4095, 8192
		}), want: core.ErrOverflow},
		{name: "negative strides reach below address 0 (low data)", spec: with(f32(2), func(s *cfixture.Spec) {
			s.DType, s.Strides, s.DataBytes, s.DataAddr = core.Int8, []int64{-8192}, 0, 4096
		}), want: core.ErrOverflow},
		{name: "top of the address space, last byte", spec: with(f32(2), func(s *cfixture.Spec) {
			s.DType, s.Strides, s.DataBytes, s.DataAddr = core.Int8, []int64{4094}, 0, ^uintptr(0)-4095
		})},
		{name: "lanes 2", spec: with(f32(2), func(s *cfixture.Spec) { s.DType.Lanes = 2 }), want: core.ErrLanes},
		{name: "lanes 0", spec: with(f32(2), func(s *cfixture.Spec) { s.DType.Lanes = 0 }), want: core.ErrLanes},
		{name: "opaque handle", spec: with(f32(2), func(s *cfixture.Spec) { s.DType.Code = core.KDLOpaqueHandle }), want: core.ErrDType},
		{name: "unknown code 18", spec: with(f32(2), func(s *cfixture.Spec) { s.DType.Code = 18 }), want: core.ErrDType},
		{name: "unknown code 255", spec: with(f32(2), func(s *cfixture.Spec) { s.DType.Code = 255 }), want: core.ErrDType},
		{name: "float 8 bits", spec: with(f32(2), func(s *cfixture.Spec) { s.DType.Bits = 8 }), want: core.ErrDType},
		{name: "float 0 bits", spec: with(f32(2), func(s *cfixture.Spec) { s.DType.Bits = 0 }), want: core.ErrDType},
		{name: "int 4 bits", spec: with(f32(2), func(s *cfixture.Spec) { s.DType = core.DataType{Code: core.KDLInt, Bits: 4, Lanes: 1} }),
			want: core.ErrDType},
		{name: "float4 says 8 bits", spec: with(f32(2), func(s *cfixture.Spec) { s.DType = core.DataType{Code: core.KDLFloat4E2M1FN, Bits: 8, Lanes: 1} }),
			want: core.ErrSubByte},
		{name: "float6 says 8 bits", spec: with(f32(2), func(s *cfixture.Spec) { s.DType = core.DataType{Code: core.KDLFloat6E3M2FN, Bits: 8, Lanes: 1} }),
			want: core.ErrSubByte},
		{name: "packed float4 strided", spec: with(f32(4), func(s *cfixture.Spec) {
			s.DType, s.Strides = core.Float4E2M1FN, []int64{2}
		}), want: core.ErrSubByte},
		{name: "packed float6 Fortran order", spec: with(f32(2, 3), func(s *cfixture.Spec) {
			s.DType, s.Strides = core.Float6E2M3FN, []int64{1, 2}
		}), want: core.ErrSubByte},
		{name: "device type 0", spec: with(f32(2), func(s *cfixture.Spec) { s.Device.Type = 0 }), want: core.ErrDevice},
		{name: "device type 5 (retired)", spec: with(f32(2), func(s *cfixture.Spec) { s.Device.Type = 5 }), want: core.ErrDevice},
		{name: "device type 19", spec: with(f32(2), func(s *cfixture.Spec) { s.Device.Type = 19 }), want: core.ErrDevice},
		{name: "device type -1", spec: with(f32(2), func(s *cfixture.Spec) { s.Device.Type = -1 }), want: core.ErrDevice},
		{name: "cpu device id 1", spec: with(f32(2), func(s *cfixture.Spec) { s.Device.ID = 1 }), want: core.ErrDevice},
		{name: "cuda device id -1", spec: with(f32(2), func(s *cfixture.Spec) { s.Device = core.Device{Type: core.KDLCUDA, ID: -1} }),
			want: core.ErrDevice},
		{name: "NULL data, 2 elements", spec: with(f32(2), func(s *cfixture.Spec) { s.DataBytes = 0 }), want: core.ErrNullData},
		{name: "NULL data, 0-d", spec: with(f32(), func(s *cfixture.Spec) { s.DataBytes = 0 }), want: core.ErrNullData},
		{name: "NULL data on CUDA", spec: with(f32(2), func(s *cfixture.Spec) {
			s.DataBytes, s.Device = 0, core.Device{Type: core.KDLCUDA}
		}), want: core.ErrNullData},
		{name: "NULL data with NULL deleter", spec: with(f32(2), func(s *cfixture.Spec) {
			s.DataBytes, s.NullDeleter = 0, true
		}), want: core.ErrNullData},
	}
}

func nil2(s *cfixture.Spec) { s.DataBytes = 64 }

// expectedStrides returns the strides an accepted case must describe.
func (c importCase) expectedStrides() []int64 {
	if c.wantStrides != nil {
		return c.wantStrides
	}
	if c.spec.Strides != nil {
		return c.spec.Strides
	}
	st := make([]int64, len(c.spec.Shape))
	acc := int64(1)
	for k := len(st) - 1; k >= 0; k-- {
		st[k] = acc
		acc *= max(c.spec.Shape[k], 1)
	}
	return st
}

// checkDescribed compares an accepted description with the struct.
func checkDescribed(t *testing.T, c importCase, dl *core.DLTensor, versioned bool, h *core.Header, shape, strides []int64) {
	t.Helper()
	n := int(dl.Ndim)
	wantData := dl.Data
	if wantData != nil {
		wantData = unsafe.Add(wantData, dl.ByteOffset)
	}
	assert.Equal(t, wantData, h.Data, "Data = data + byte_offset")
	assert.Nil(t, h.Owner, "Owner")
	assert.Zero(t, h.Offset, "Offset")
	assert.Equal(t, dl.DType, h.DType)
	assert.Equal(t, dl.Ndim, h.Ndim)
	assert.Equal(t, dl.Device, h.Device)
	wantFlags := c.wantFlags
	if !versioned {
		wantFlags = 0
	}
	assert.Equal(t, wantFlags, h.Flags&^derivedFlags, "Flags")
	if n > 0 {
		assert.Equal(t, modelDerivedFlags(dl.Device, shape[:n], strides[:n]), h.Flags&derivedFlags, "derived flags")
	}
	if n > 0 {
		assert.Equal(t, unsafe.Slice(dl.Shape, n), shape[:n], "shape")
		assert.Equal(t, c.expectedStrides()[:n], strides[:n], "strides")
	}
}

func TestDescribeTable(t *testing.T) {
	for _, c := range importCases() {
		if c.only != "l" {
			t.Run("versioned/"+c.name, func(t *testing.T) {
				guardFaults(t)
				m := cfixture.Versioned(c.spec)
				defer cfixture.Free(m)
				var h core.Header
				var shape, strides [core.MaxNdim]int64
				err := core.DescribeVersioned(m, &h, shape[:], strides[:])
				assert.Zero(t, cfixture.Calls(m), "Describe never calls the deleter")
				if c.want != nil {
					require.ErrorIs(t, err, c.want)
					assert.Equal(t, core.ClassBuffer, core.ClassOf(err), "import errors are BufferError: %v", err)
					return
				}
				require.NoError(t, err)
				checkDescribed(t, c, &m.DLTensor, true, &h, shape[:], strides[:])
			})
		}
		if c.only != "v" {
			t.Run("legacy/"+c.name, func(t *testing.T) {
				guardFaults(t)
				m := cfixture.Legacy(c.spec)
				defer cfixture.Free(m)
				var h core.Header
				var shape, strides [core.MaxNdim]int64
				err := core.DescribeLegacy(m, &h, shape[:], strides[:])
				assert.Zero(t, cfixture.Calls(m), "Describe never calls the deleter")
				if c.want != nil {
					require.ErrorIs(t, err, c.want)
					assert.Equal(t, core.ClassBuffer, core.ClassOf(err), "import errors are BufferError: %v", err)
					return
				}
				require.NoError(t, err)
				checkDescribed(t, c, &m.DLTensor, false, &h, shape[:], strides[:])
			})
		}
	}
}

// A legacy struct cannot say its sub-byte data is padded: strided float4 is
// refused even if the versioned twin would be accepted.
func TestDescribeLegacyPackedSubByteStrided(t *testing.T) {
	guardFaults(t)
	m := cfixture.Legacy(with(f32(4), func(s *cfixture.Spec) { s.DType, s.Strides = core.Float4E2M1FN, []int64{-2} }))
	defer cfixture.Free(m)
	var h core.Header
	var shape, strides [core.MaxNdim]int64
	require.ErrorIs(t, core.DescribeLegacy(m, &h, shape[:], strides[:]), core.ErrSubByte)
}

// DLPack S1: with a major version other than 1, nothing but the version (and
// the deleter, to free it) may be read. The truncated fixture faults on any
// other read.
func TestVersionMismatchReadsNothingElse(t *testing.T) {
	for _, v := range []core.Version{{Major: 0, Minor: 8}, {Major: 2}, {Major: 100, Minor: 3}, {Major: math.MaxUint32}} {
		t.Run("", func(t *testing.T) {
			guardFaults(t)
			m := cfixture.Truncated(v)
			defer cfixture.Free(m)
			var h core.Header
			var shape, strides [core.MaxNdim]int64
			err := core.DescribeVersioned(m, &h, shape[:], strides[:])
			require.ErrorIs(t, err, core.ErrVersion)
			assert.Equal(t, core.ClassBuffer, core.ClassOf(err))
			assert.Zero(t, cfixture.Calls(m))

			a, err := core.ImportVersioned(m)
			require.ErrorIs(t, err, core.ErrVersion)
			assert.Nil(t, a)
			assert.EqualValues(t, 1, cfixture.Calls(m), "Import calls the deleter once on a version mismatch")
		})
	}
}

func TestDescribeShortBuffers(t *testing.T) {
	m := cfixture.Versioned(f32(2, 3))
	defer cfixture.Free(m)
	var h core.Header
	var shape, strides [1]int64
	err := core.DescribeVersioned(m, &h, shape[:], strides[:])
	require.Error(t, err)
	assert.True(t, errors.Is(err, core.ErrInternal))
	require.Error(t, core.DescribeVersioned(nil, &h, shape[:], strides[:]))
	require.Error(t, core.DescribeLegacy(nil, &h, shape[:], strides[:]))
}

// Import takes ownership: on failure the deleter has run exactly once; on
// success it runs exactly once, when the array is released.
func TestImportTableDeleterCounts(t *testing.T) {
	for _, c := range importCases() {
		if c.only != "l" {
			t.Run("versioned/"+c.name, func(t *testing.T) {
				guardFaults(t)
				m := cfixture.Versioned(c.spec)
				defer cfixture.Free(m)
				a, err := core.ImportVersioned(m)
				checkImport(t, c, a, err, func() int64 { return cfixture.Calls(m) }, core.OwnVersioned)
			})
		}
		if c.only != "v" {
			t.Run("legacy/"+c.name, func(t *testing.T) {
				guardFaults(t)
				m := cfixture.Legacy(c.spec)
				defer cfixture.Free(m)
				a, err := core.ImportLegacy(m)
				checkImport(t, c, a, err, func() int64 { return cfixture.Calls(m) }, core.OwnLegacy)
			})
		}
	}
}

func checkImport(t *testing.T, c importCase, a *core.Array, err error, calls func() int64, kind core.OwnerKind) {
	t.Helper()
	want := int64(1)
	if c.spec.NullDeleter {
		want = 0 // a NULL deleter is never called (and nothing crashes)
	}
	if c.want != nil {
		require.ErrorIs(t, err, c.want)
		assert.Nil(t, a)
		assert.Equal(t, want, calls(), "deleter calls after a failed import")
		return
	}
	require.NoError(t, err)
	require.NotNil(t, a)
	h := a.Header()
	require.NotNil(t, h.Owner)
	assert.Equal(t, kind, h.Owner.Kind())
	assert.EqualValues(t, 1, h.Owner.Refs(), "the array holds the only reference")
	assert.Zero(t, calls(), "deleter not called while the array lives")
	a.Release()
	assert.Equal(t, want, calls(), "deleter calls after release")
	a.Release() // idempotent
	assert.Equal(t, want, calls(), "deleter calls after a second release")
}

// Views (arrays sharing the owner) may outlive the imported array: the
// deleter runs once, when the last of them is released.
func TestImportViewsOutliveParent(t *testing.T) {
	for _, versioned := range []bool{true, false} {
		spec := with(f32(3, 4), func(s *cfixture.Spec) { s.Strides = []int64{4, 1} })
		var a *core.Array
		var calls func() int64
		if versioned {
			m := cfixture.Versioned(spec)
			defer cfixture.Free(m)
			var err error
			a, err = core.ImportVersioned(m)
			require.NoError(t, err)
			calls = func() int64 { return cfixture.Calls(m) }
		} else {
			m := cfixture.Legacy(spec)
			defer cfixture.Free(m)
			var err error
			a, err = core.ImportLegacy(m)
			require.NoError(t, err)
			calls = func() int64 { return cfixture.Calls(m) }
		}
		assert.False(t, a.ReadOnly(), "legacy and writable versioned imports are writable")
		h := a.Header()
		// Two views over the same memory: a row and a transpose.
		row := h
		row.Offset = 4
		row.Ndim = 1
		v1 := core.NewArray(row, []int64{4}, []int64{1})
		v2 := core.NewArray(h, []int64{4, 3}, []int64{1, 4})
		assert.EqualValues(t, 3, h.Owner.Refs())
		a.Release()
		assert.Zero(t, calls())
		v1.Release()
		assert.Zero(t, calls())
		assert.EqualValues(t, 1, h.Owner.Refs())
		v2.Release()
		assert.EqualValues(t, 1, calls(), "deleter once, after the last view")
	}
}

func TestImportNil(t *testing.T) {
	_, err := core.ImportVersioned(nil)
	require.Error(t, err)
	_, err = core.ImportLegacy(nil)
	require.Error(t, err)
}

func TestDescribeAllocatesNothing(t *testing.T) {
	mv := cfixture.Versioned(with(f32(3, 4), func(s *cfixture.Spec) {
		s.Strides, s.Flags, s.ByteOffset = []int64{-4, 1}, core.FlagReadOnly, 32
	}))
	defer cfixture.Free(mv)
	ml := cfixture.Legacy(f32(3, 4))
	defer cfixture.Free(ml)
	var h core.Header
	var shape, strides [core.MaxNdim]int64
	allocs := testing.AllocsPerRun(100, func() {
		if core.DescribeVersioned(mv, &h, shape[:], strides[:]) != nil {
			panic("describe failed")
		}
		if core.DescribeLegacy(ml, &h, shape[:], strides[:]) != nil {
			panic("describe failed")
		}
	})
	assert.Zero(t, allocs)
}

// Views released concurrently from many goroutines: the deleter still runs
// exactly once (the owner count is atomic, the deleter runs in C).
func TestImportConcurrentRelease(t *testing.T) {
	t.Parallel()
	for round := 0; round < 20; round++ {
		m := cfixture.Versioned(f32(8))
		a, err := core.ImportVersioned(m)
		require.NoError(t, err)
		views := make([]*core.Array, 16)
		for i := range views {
			views[i] = core.NewArray(a.Header(), []int64{8}, []int64{1})
		}
		done := make(chan struct{})
		for _, v := range append(views, a) {
			go func() {
				v.Release()
				v.Release()
				done <- struct{}{}
			}()
		}
		for range len(views) + 1 {
			<-done
		}
		assert.EqualValues(t, 1, cfixture.Calls(m))
		cfixture.Free(m)
	}
}

// Real views (Index, Slice with a negative step, Transpose) of an imported
// tensor outlive it; an export of such a view points at its first element
// with its own (negative) strides; the foreign deleter runs once, after the
// last view and the last export are gone.
func TestImportedViewsAndExportOfAView(t *testing.T) {
	for _, versioned := range []bool{true, false} {
		spec := with(f32(3, 4), func(s *cfixture.Spec) { s.DType, s.Strides, s.DataBytes = core.Float64, []int64{4, 1}, 96 })
		var a *core.Array
		var calls func() int64
		if versioned {
			m := cfixture.Versioned(spec)
			defer cfixture.Free(m)
			var err error
			a, err = core.ImportVersioned(m)
			require.NoError(t, err)
			calls = func() int64 { return cfixture.Calls(m) }
		} else {
			m := cfixture.Legacy(spec)
			defer cfixture.Free(m)
			var err error
			a, err = core.ImportLegacy(m)
			require.NoError(t, err)
			calls = func() int64 { return cfixture.Calls(m) }
		}
		for i := int64(0); i < 12; i++ {
			require.NoError(t, core.Set(a, float64(i), i/4, i%4))
		}
		row, err := a.Index(1)
		require.NoError(t, err)
		rev, err := row.Slice(0, 3, math.MinInt64, -1)
		require.NoError(t, err)
		tr, err := a.Transpose()
		require.NoError(t, err)
		a.Release()
		assert.Zero(t, calls())

		assert.Equal(t, []int64{-1}, rev.Strides())
		out, err := rev.ExportVersioned(0)
		require.NoError(t, err)
		assert.Equal(t, 7.0, *(*float64)(out.DLTensor.Data), "data points at the view's first element")
		assert.Equal(t, []int64{-1}, unsafe.Slice(out.DLTensor.Strides, 1))
		assert.Zero(t, out.DLTensor.ByteOffset)
		v, err := core.At[float64](tr, 3, 2)
		require.NoError(t, err)
		assert.Equal(t, 11.0, v)
		row.Release()
		rev.Release()
		tr.Release()
		assert.Zero(t, calls(), "the export still holds the memory")

		back, err := core.ImportVersioned(out)
		require.NoError(t, err)
		for i := int64(0); i < 4; i++ {
			v, err := core.At[float64](back, i)
			require.NoError(t, err)
			assert.Equal(t, float64(7-i), v)
		}
		back.Release()
		assert.EqualValues(t, 1, calls())
	}
}

// Padded sub-byte imports occupy one byte per element; packed ones ceil(n*bits/8).
func TestImportSubByteSizes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		flags        uint64
		wantItemSize int64
		wantNBytes   int64
	}{
		{"packed", 0, 0, 5},                             // ceil(10*4/8)
		{"padded", core.FlagIsSubbyteTypePadded, 1, 10}, // one byte each
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := cfixture.Versioned(cfixture.Spec{
				Version: v13, Flags: c.flags, Device: cpuDev, DType: core.Float4E2M1FN,
				Ndim: 1, Shape: []int64{10}, DataBytes: 16,
			})
			defer cfixture.Free(m)
			a, err := core.ImportVersioned(m)
			require.NoError(t, err)
			defer a.Release()
			assert.Equal(t, c.wantItemSize, a.ItemSize(), "ItemSize")
			assert.Equal(t, c.wantNBytes, a.NBytes(), "NBytes")
		})
	}
}
