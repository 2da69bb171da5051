package tests_go

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
)

// numpy's np.promote_types over its own dtypes (numpy 2.4.6): row a,
// column b of numpyDTypes.
var numpyDTypes = []string{"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128"}

var numpyPromotions = map[string][]string{
	"bool":       {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128"},
	"int8":       {"int8", "int8", "int16", "int32", "int64", "int16", "int32", "int64", "float64", "float16", "float32", "float64", "complex64", "complex128"},
	"int16":      {"int16", "int16", "int16", "int32", "int64", "int16", "int32", "int64", "float64", "float32", "float32", "float64", "complex64", "complex128"},
	"int32":      {"int32", "int32", "int32", "int32", "int64", "int32", "int32", "int64", "float64", "float64", "float64", "float64", "complex128", "complex128"},
	"int64":      {"int64", "int64", "int64", "int64", "int64", "int64", "int64", "int64", "float64", "float64", "float64", "float64", "complex128", "complex128"},
	"uint8":      {"uint8", "int16", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128"},
	"uint16":     {"uint16", "int32", "int32", "int32", "int64", "uint16", "uint16", "uint32", "uint64", "float32", "float32", "float64", "complex64", "complex128"},
	"uint32":     {"uint32", "int64", "int64", "int64", "int64", "uint32", "uint32", "uint32", "uint64", "float64", "float64", "float64", "complex128", "complex128"},
	"uint64":     {"uint64", "float64", "float64", "float64", "float64", "uint64", "uint64", "uint64", "uint64", "float64", "float64", "float64", "complex128", "complex128"},
	"float16":    {"float16", "float16", "float32", "float64", "float64", "float16", "float32", "float64", "float64", "float16", "float32", "float64", "complex64", "complex128"},
	"float32":    {"float32", "float32", "float32", "float64", "float64", "float32", "float32", "float64", "float64", "float32", "float32", "float64", "complex64", "complex128"},
	"float64":    {"float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "complex128", "complex128"},
	"complex64":  {"complex64", "complex64", "complex64", "complex128", "complex128", "complex64", "complex64", "complex128", "complex128", "complex64", "complex64", "complex128", "complex64", "complex128"},
	"complex128": {"complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128"},
}

func dt(t *testing.T, name string) core.DataType {
	t.Helper()
	d, err := core.ParseDataType(name)
	require.NoError(t, err, name)
	return d
}

// TestPromoteTypesIsNumpys: core's promotion (asarray of a list of arrays,
// np.stack's dtype) gives numpy's answer for every pair of numpy's dtypes.
func TestPromoteTypesIsNumpys(t *testing.T) {
	t.Parallel()
	for a, row := range numpyPromotions {
		for j, want := range row {
			got, ok := core.PromoteTypes(dt(t, a), dt(t, numpyDTypes[j]))
			assert.True(t, ok, "%s with %s", a, numpyDTypes[j])
			assert.Equal(t, want, got.String(), "%s with %s", a, numpyDTypes[j])
		}
	}
}

// TestPromoteTypesMLDTypes: bfloat16 and the float8 kinds take bool and
// yield to numpy's floats wider than 16 bits, as ml_dtypes promotes them;
// every other pair is left to the caller (ok false), where ml_dtypes may
// answer: godlpack never answers another dtype than ml_dtypes would.
func TestPromoteTypesMLDTypes(t *testing.T) {
	t.Parallel()
	cases := []struct{ a, b, want string }{
		{"bfloat16", "bool", "bfloat16"},
		{"bool", "float8_e4m3fn", "float8_e4m3fn"},
		{"bfloat16", "float32", "float32"},
		{"float64", "float8_e5m2", "float64"},
		{"bfloat16", "complex64", "complex64"},
		{"float8_e4m3fn", "float8_e4m3fn", "float8_e4m3fn"},
		{"bfloat16", "float16", ""}, // ml_dtypes: float32
		{"bfloat16", "int8", ""},    // ml_dtypes: bfloat16
		{"float8_e4m3fn", "bfloat16", ""},
		{"float8_e5m2", "uint16", ""}, // ml_dtypes: float32
		{"float4_e2m1fn", "float32", ""},
		{"float4_e2m1fn", "float4_e2m1fn", "float4_e2m1fn"},
	}
	for _, c := range cases {
		for _, pair := range [][2]string{{c.a, c.b}, {c.b, c.a}} {
			got, ok := core.PromoteTypes(dt(t, pair[0]), dt(t, pair[1]))
			if c.want == "" {
				assert.False(t, ok, "%s with %s gave %v", pair[0], pair[1], got)
				continue
			}
			assert.True(t, ok, "%s with %s", pair[0], pair[1])
			assert.Equal(t, c.want, got.String(), "%s with %s", pair[0], pair[1])
		}
	}
}

// TestResultType folds the promotion over a list and names the pair it
// cannot promote, with the way out, as a TypeError.
func TestResultType(t *testing.T) {
	t.Parallel()
	got, err := core.ResultType("asarray()", []core.DataType{core.Int8, core.Uint8, core.Float16})
	require.NoError(t, err)
	assert.Equal(t, core.Float32, got, "int8, uint8 -> int16; int16, float16 -> float32")
	_, err = core.ResultType("asarray()", []core.DataType{core.Int8, core.BFloat16})
	require.ErrorIs(t, err, core.ErrDType)
	assert.Equal(t, core.ClassType, core.ClassOf(err))
	assert.True(t, strings.HasPrefix(err.Error(), "asarray(): cannot promote int8 with bfloat16"), err.Error())
	assert.Contains(t, err.Error(), "pass dtype=")
	_, err = core.ResultType("asarray()", nil)
	require.ErrorIs(t, err, core.ErrDType)
}
