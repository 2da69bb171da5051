package tests_go

import (
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/tests_go/cfixture"
)

// core/arange.c plans numpy's arange: the lengths and default dtypes are
// numpy 2's (np.arange(*args).shape, .dtype), the refusals its classes.
func TestArangePlan(t *testing.T) {
	t.Parallel()
	i := func(v ...any) []*big.Int {
		out := make([]*big.Int, len(v))
		for k, x := range v {
			switch x := x.(type) {
			case int:
				out[k] = big.NewInt(int64(x))
			case *big.Int:
				out[k] = x
			}
		}
		return out
	}
	pow := func(e uint, add int64) *big.Int {
		return new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), e), big.NewInt(add))
	}
	neg := func(x *big.Int) *big.Int { return new(big.Int).Neg(x) }
	dt := func(d core.DataType) *core.DataType { return &d }
	for _, c := range []struct {
		name  string
		ints  []*big.Int
		f     []float64
		dtype *core.DataType
		n     int64
		kind  int
		want  core.DataType
		class core.Class
		msg   string
	}{
		{"range", i(0, 5, 1), nil, nil, 5, cfixture.ArangeI64, core.Int64, 0, ""},
		{"down by 2", i(5, 0, -2), nil, nil, 3, cfixture.ArangeI64, core.Int64, 0, ""},
		{"a partial step", i(0, 10, 3), nil, nil, 4, cfixture.ArangeI64, core.Int64, 0, ""},
		{"down, partial", i(10, 0, -3), nil, nil, 4, cfixture.ArangeI64, core.Int64, 0, ""},
		{"empty", i(5, 2, 1), nil, nil, 0, cfixture.ArangeI64, core.Int64, 0, ""},
		{"past 2**63 in uint64", i(pow(63, -1), pow(63, 2), 1), nil, dt(core.Uint64), 3, cfixture.ArangeU64, core.Uint64, 0, ""},
		{"from -2**63", i(neg(pow(63, 0)), neg(pow(63, -3)), 1), nil, dt(core.Int64), 3, cfixture.ArangeI64, core.Int64, 0, ""},
		{"beyond 2**64 into float64", i(pow(64, 0), pow(64, 3), 1), nil, dt(core.Float64), 3, cfixture.ArangeF64, core.Float64, 0, ""},
		{"a step of 2**70", i(0, 5, pow(70, 0)), nil, dt(core.Int8), 1, cfixture.ArangeI64, core.Int8, 0, ""},
		{"-1 into uint64", i(-1, 2, 1), nil, dt(core.Uint64), 0, 0, core.DataType{}, core.ClassOverflow,
			"arange(): Python integer -1 out of bounds for uint64"},
		{"259 into uint8", i(250, 260, 1), nil, dt(core.Uint8), 0, 0, core.DataType{}, core.ClassOverflow,
			"arange(): Python integer 259 out of bounds for uint8"},
		{"2**200", i(pow(200, 0)), nil, nil, 0, 0, core.DataType{}, core.ClassOverflow, "beyond 126 bits"},
		{"step 0", i(0, 5, 0), nil, nil, 0, 0, core.DataType{}, core.ClassValue, "arange(): step must not be zero"},
		{"2**64 elements", i(0, pow(64, 0), 1), nil, nil, 0, 0, core.DataType{}, core.ClassValue, "Maximum allowed size exceeded"},
		{"reals", nil, []float64{0, 1, 0.3}, nil, 4, cfixture.ArangeF64, core.Float64, 0, ""},
		{"a whole number of steps", nil, []float64{0, 2.5, 0.5}, nil, 5, cfixture.ArangeF64, core.Float64, 0, ""},
		{"reals, empty", nil, []float64{0, -1, 0.5}, nil, 0, cfixture.ArangeF64, core.Float64, 0, ""},
		{"reals into int32", nil, []float64{0, 5.5, 1.5}, dt(core.Int32), 4, cfixture.ArangeTrunc, core.Int32, 0, ""},
		{"reals into bool", nil, []float64{0, 2, 1}, dt(core.Bool), 2, cfixture.ArangeF64, core.Bool, 0, ""},
		{"200 into int8", nil, []float64{0, 300, 100}, dt(core.Int8), 0, 0, core.DataType{}, core.ClassOverflow,
			"arange(): Python integer 200 out of bounds for int8"},
		{"infinite", nil, []float64{0, math.Inf(1), 1}, nil, 0, 0, core.DataType{}, core.ClassValue,
			"arange(): cannot compute the length of [0, inf) in steps of 1; pass finite bounds"},
		{"real step 0", nil, []float64{0, 1, 0}, nil, 0, 0, core.DataType{}, core.ClassValue, "step must not be zero"},
		{"2**63 real steps", nil, []float64{0, 0x1p63, 1}, nil, 0, 0, core.DataType{}, core.ClassValue,
			"Maximum allowed size exceeded"},
		{"a packed dtype", i(0, 4, 1), nil, dt(core.Float4E2M1FN), 0, 0, core.DataType{}, core.ClassValue,
			"no values of this dtype"},
	} {
		var ints []*big.Int
		if c.ints != nil {
			ints = append(ints, c.ints...)
			if len(ints) == 1 { // arange(stop)
				ints = []*big.Int{big.NewInt(0), ints[0], big.NewInt(1)}
			}
		}
		p, class, msg := cfixture.Arange(ints, c.f, c.dtype)
		if c.class != 0 {
			assert.Equal(t, int(c.class), class, c.name)
			assert.Contains(t, msg, c.msg, c.name)
			continue
		}
		if assert.Zero(t, class, "%s: %s", c.name, msg) {
			assert.Equal(t, cfixture.ArangePlan{N: c.n, Kind: c.kind, DType: c.want}, p, c.name)
		}
	}
}
