package tests_go

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
)

// dtypeOracle is an independent statement of DLPack 1.3's valid (code, bits)
// pairs with their names, written from dlpack.h rather than from dtype.go.
var dtypeOracle = []struct {
	code uint8
	bits uint8
	name string
}{
	{0, 8, "int8"}, {0, 16, "int16"}, {0, 32, "int32"}, {0, 64, "int64"},
	{1, 8, "uint8"}, {1, 16, "uint16"}, {1, 32, "uint32"}, {1, 64, "uint64"},
	{2, 16, "float16"}, {2, 32, "float32"}, {2, 64, "float64"},
	{4, 16, "bfloat16"},
	{5, 64, "complex64"}, {5, 128, "complex128"},
	{6, 8, "bool"},
	{7, 8, "float8_e3m4"}, {8, 8, "float8_e4m3"}, {9, 8, "float8_e4m3b11fnuz"},
	{10, 8, "float8_e4m3fn"}, {11, 8, "float8_e4m3fnuz"}, {12, 8, "float8_e5m2"},
	{13, 8, "float8_e5m2fnuz"}, {14, 8, "float8_e8m0fnu"},
	{15, 6, "float6_e2m3fn"}, {16, 6, "float6_e3m2fn"},
	{17, 4, "float4_e2m1fn"},
}

func oracleName(code, bits uint8) (string, bool) {
	for _, o := range dtypeOracle {
		if o.code == code && o.bits == bits {
			return o.name, true
		}
	}
	return "", false
}

// Every code 0..255 × bits 0..255 with lanes 1, and flags with and without
// IS_SUBBYTE_TYPE_PADDED: accepted exactly when the oracle lists the pair;
// a wrong width of a float6/float4 code is ErrSubByte, anything else ErrDType.
func TestValidateDataTypeEveryCodeBits(t *testing.T) {
	t.Parallel()
	for _, flags := range []uint64{0, core.FlagIsSubbyteTypePadded, core.FlagReadOnly | core.FlagIsCopied} {
		for code := 0; code < 256; code++ {
			for bits := 0; bits < 256; bits++ {
				d := core.DataType{Code: core.DataTypeCode(code), Bits: uint8(bits), Lanes: 1}
				err := core.ValidateDataType(d, flags)
				_, ok := oracleName(uint8(code), uint8(bits))
				if ok {
					if err != nil {
						t.Errorf("ValidateDataType(%v, %#x) = %v, want nil", d, flags, err)
					}
					continue
				}
				want := core.ErrDType
				if code >= 15 && code <= 17 {
					want = core.ErrSubByte
				}
				if !errors.Is(err, want) {
					t.Errorf("ValidateDataType(code=%d, bits=%d, flags=%#x) = %v, want %v", code, bits, flags, err, want)
					continue
				}
				if got := core.ClassOf(err); got != core.ClassBuffer {
					t.Errorf("ClassOf(ValidateDataType(code=%d, bits=%d)) = %v, want BufferError", code, bits, got)
				}
			}
		}
	}
}

func TestValidateDataTypeLanes(t *testing.T) {
	t.Parallel()
	for _, dt := range core.DataTypes {
		for _, lanes := range []uint16{0, 2, 4, 16, 65535} {
			d := dt
			d.Lanes = lanes
			err := core.ValidateDataType(d, 0)
			assert.Truef(t, errors.Is(err, core.ErrLanes), "ValidateDataType(%v) = %v, want ErrLanes", d, err)
			assert.Equal(t, core.ClassBuffer, core.ClassOf(err))
		}
	}
}

func TestValidateDataTypeMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    core.DataType
		want string
	}{
		{core.DataType{Code: 3, Bits: 64, Lanes: 1}, "unsupported data type (code=3, bits=64, lanes=1): opaque handles cannot be imported"},
		{core.DataType{Code: 15, Bits: 8, Lanes: 1}, "unsupported sub-byte data type layout (code=15, bits=8, lanes=1): float6 bits must be 6"},
		{core.DataType{Code: 17, Bits: 8, Lanes: 1}, "unsupported sub-byte data type layout (code=17, bits=8, lanes=1): float4 bits must be 4"},
		{core.DataType{Code: 2, Bits: 32, Lanes: 4}, "unsupported dtype lanes (code=2, bits=32, lanes=4): lanes must be 1"},
		{core.DataType{Code: 18, Bits: 8, Lanes: 1}, "unsupported data type (code=18, bits=8, lanes=1): unknown type code"},
		{core.DataType{Code: 6, Bits: 1, Lanes: 1}, "unsupported data type (code=6, bits=1, lanes=1): bool bits must be 8"},
	}
	for _, tt := range tests {
		err := core.ValidateDataType(tt.d, 0)
		require.Error(t, err)
		assert.Equal(t, tt.want, err.Error())
	}
}

func TestValidateDataTypeNoAlloc(t *testing.T) {
	// Not parallel: AllocsPerRun is disturbed by other goroutines' allocations.
	for _, dt := range core.DataTypes {
		allocs := testing.AllocsPerRun(100, func() {
			if core.ValidateDataType(dt, core.FlagIsSubbyteTypePadded) != nil {
				panic("invalid")
			}
		})
		assert.Zerof(t, allocs, "ValidateDataType(%v) allocates %v times", dt, allocs)
	}
}

func TestDataTypeNamesRoundTrip(t *testing.T) {
	t.Parallel()
	require.Len(t, core.DataTypes, len(dtypeOracle))
	seen := map[string]bool{}
	for _, d := range core.DataTypes {
		want, ok := oracleName(uint8(d.Code), d.Bits)
		require.Truef(t, ok, "%#v is not in the oracle", d)
		assert.Equal(t, uint16(1), d.Lanes)
		assert.Equal(t, want, d.String())
		assert.False(t, seen[want], "duplicate %s", want)
		seen[want] = true
		got, err := core.ParseDataType(want)
		require.NoError(t, err)
		assert.Equalf(t, d, got, "ParseDataType(%q)", want)
		assert.NoError(t, core.ValidateDataType(d, 0))
	}
}

func TestPredefinedDataTypes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d          core.DataType
		code, bits uint8
	}{
		{core.Bool, 6, 8}, {core.Int8, 0, 8}, {core.Int16, 0, 16}, {core.Int32, 0, 32}, {core.Int64, 0, 64},
		{core.Uint8, 1, 8}, {core.Uint16, 1, 16}, {core.Uint32, 1, 32}, {core.Uint64, 1, 64},
		{core.Float16, 2, 16}, {core.Float32, 2, 32}, {core.Float64, 2, 64}, {core.BFloat16, 4, 16},
		{core.Complex64, 5, 64}, {core.Complex128, 5, 128},
		{core.Float8E3M4, 7, 8}, {core.Float8E4M3, 8, 8}, {core.Float8E4M3B11FNUZ, 9, 8},
		{core.Float8E4M3FN, 10, 8}, {core.Float8E4M3FNUZ, 11, 8}, {core.Float8E5M2, 12, 8},
		{core.Float8E5M2FNUZ, 13, 8}, {core.Float8E8M0FNU, 14, 8},
		{core.Float6E2M3FN, 15, 6}, {core.Float6E3M2FN, 16, 6}, {core.Float4E2M1FN, 17, 4},
	}
	for _, tt := range tests {
		want := core.DataType{Code: core.DataTypeCode(tt.code), Bits: tt.bits, Lanes: 1}
		assert.Equalf(t, want, tt.d, "%s", tt.d)
	}
}

func TestParseDataTypeAliases(t *testing.T) {
	t.Parallel()
	tests := map[string]core.DataType{
		"bool_": core.Bool, "?": core.Bool, "b1": core.Bool,
		"i1": core.Int8, "i2": core.Int16, "i4": core.Int32, "i8": core.Int64,
		"u1": core.Uint8, "u2": core.Uint16, "u4": core.Uint32, "u8": core.Uint64,
		"f2": core.Float16, "f4": core.Float32, "f8": core.Float64,
		"c8": core.Complex64, "c16": core.Complex128,
	}
	for name, want := range tests {
		got, err := core.ParseDataType(name)
		require.NoErrorf(t, err, "ParseDataType(%q)", name)
		assert.Equalf(t, want, got, "ParseDataType(%q)", name)
	}
}

func TestParseDataTypeErrors(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", "float", "Float32", "float32 ", "<f4", "int128", "float8", "DataType(code=2, bits=32, lanes=1)", "bool__"} {
		_, err := core.ParseDataType(name)
		require.Errorf(t, err, "ParseDataType(%q)", name)
		assert.Truef(t, errors.Is(err, core.ErrDType), "ParseDataType(%q) = %v, want ErrDType", name, err)
		assert.Equalf(t, core.ClassValue, core.ClassOf(err), "ParseDataType(%q) class", name)
		assert.Contains(t, err.Error(), fmt.Sprintf("%q", name))
	}
}

func TestDataTypeStringUnknown(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "DataType(code=3, bits=64, lanes=1)", core.DataType{Code: 3, Bits: 64, Lanes: 1}.String())
	assert.Equal(t, "DataType(code=2, bits=32, lanes=4)", core.DataType{Code: 2, Bits: 32, Lanes: 4}.String())
	assert.Equal(t, "DataType(code=15, bits=8, lanes=1)", core.DataType{Code: 15, Bits: 8, Lanes: 1}.String())
	assert.Equal(t, "DataType(code=2, bits=8, lanes=1)", core.DataType{Code: 2, Bits: 8, Lanes: 1}.String())
}

func TestDataTypeSizes(t *testing.T) {
	t.Parallel()
	for _, d := range core.DataTypes {
		bits := int(d.Bits)
		assert.Equal(t, bits, d.ItemBits(), "%s", d)
		if bits < 8 {
			assert.True(t, d.IsSubByte(), "%s", d)
			assert.Zero(t, d.ItemSize(), "%s", d)
			assert.Zero(t, d.StorageItemSize(0), "%s", d)
			assert.Equal(t, int64(1), d.StorageItemSize(core.FlagIsSubbyteTypePadded), "%s", d)
		} else {
			assert.False(t, d.IsSubByte(), "%s", d)
			assert.Equal(t, int64(bits/8), d.ItemSize(), "%s", d)
			assert.Equal(t, int64(bits/8), d.StorageItemSize(core.FlagIsSubbyteTypePadded), "%s", d)
		}
	}
	assert.Equal(t, int64(16), core.DataType{Code: 2, Bits: 32, Lanes: 4}.ItemSize())
	assert.Equal(t, int64(0), core.DataType{Code: 0, Bits: 12, Lanes: 1}.ItemSize())
}

func TestPackedBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    core.DataType
		n    int64
		want int64
	}{
		{core.Float4E2M1FN, 0, 0},
		{core.Float4E2M1FN, 1, 1},
		{core.Float4E2M1FN, 2, 1},
		{core.Float4E2M1FN, 3, 2},
		{core.Float6E2M3FN, 4, 3},
		{core.Float6E2M3FN, 5, 4},
		{core.Float32, 3, 12},
		{core.Float4E2M1FN, -1, -1},
		{core.Float4E2M1FN, 1 << 62, 1 << 61},
		{core.Float64, 1 << 62, -1},
		{core.Float64, 1<<63 - 1, -1},
		{core.Uint8, 1<<63 - 1, 1<<63 - 1},
		{core.Float4E2M1FN, 1<<63 - 1, 1 << 62},
		{core.Float64, (1<<63 - 1) / 8, (1<<63 - 1) / 8 * 8},
		{core.Float64, (1<<63-1)/8 + 1, -1},
	}
	for _, tt := range tests {
		assert.Equalf(t, tt.want, tt.d.PackedBytes(tt.n), "%s.PackedBytes(%d)", tt.d, tt.n)
	}
}

func TestParseDataTypeNoAlloc(t *testing.T) {
	// Not parallel: AllocsPerRun refuses parallel tests.
	for _, name := range []string{"float64", "bool_", "f4", "float4_e2m1fn", "float8_e8m0fnu"} {
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := core.ParseDataType(name); err != nil {
				panic(err)
			}
		})
		assert.Zerof(t, allocs, "ParseDataType(%q) allocates", name)
	}
}
