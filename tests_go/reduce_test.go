package tests_go

import (
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
)

// redIn builds a C-contiguous array of dt and shape holding vals (cast from
// float64; complex gets imaginary part -v).
func redIn(t *testing.T, dt core.DataType, shape []int64, vals []float64) *core.Array {
	t.Helper()
	a, err := core.Zeros(dt, shape...)
	require.NoError(t, err)
	b, err := a.Bytes()
	require.NoError(t, err)
	k := dt.ItemSize()
	for i, v := range vals {
		p := unsafe.Pointer(&b[int64(i)*k])
		switch dt {
		case core.Bool:
			*(*bool)(p) = v != 0
		case core.Int8:
			*(*int8)(p) = int8(v)
		case core.Int16:
			*(*int16)(p) = int16(v)
		case core.Int32:
			*(*int32)(p) = int32(v)
		case core.Int64:
			*(*int64)(p) = int64(v)
		case core.Uint8:
			*(*uint8)(p) = uint8(v)
		case core.Uint16:
			*(*uint16)(p) = uint16(v)
		case core.Uint32:
			*(*uint32)(p) = uint32(v)
		case core.Uint64:
			*(*uint64)(p) = uint64(v)
		case core.Float16:
			*(*uint16)(p) = core.Float64ToFloat16(v)
		case core.BFloat16:
			*(*uint16)(p) = core.Float64ToBFloat16(v)
		case core.Float32:
			*(*float32)(p) = float32(v)
		case core.Float64:
			*(*float64)(p) = v
		case core.Complex64:
			*(*complex64)(p) = complex(float32(v), float32(-v))
		case core.Complex128:
			*(*complex128)(p) = complex(v, -v)
		}
	}
	return a
}

// redOut reads every element of a (any strides) as float64 (complex: the
// real part), in C order.
func redOut(t *testing.T, a *core.Array) []float64 {
	t.Helper()
	c, err := a.Copy()
	require.NoError(t, err)
	defer c.Release()
	b, err := c.Bytes()
	require.NoError(t, err)
	k := c.DType().ItemSize()
	out := make([]float64, c.Size())
	for i := range out {
		p := unsafe.Pointer(&b[int64(i)*k])
		switch c.DType() {
		case core.Bool:
			out[i] = map[bool]float64{false: 0, true: 1}[*(*bool)(p)]
		case core.Int8:
			out[i] = float64(*(*int8)(p))
		case core.Int16:
			out[i] = float64(*(*int16)(p))
		case core.Int32:
			out[i] = float64(*(*int32)(p))
		case core.Int64:
			out[i] = float64(*(*int64)(p))
		case core.Uint8:
			out[i] = float64(*(*uint8)(p))
		case core.Uint16:
			out[i] = float64(*(*uint16)(p))
		case core.Uint32:
			out[i] = float64(*(*uint32)(p))
		case core.Uint64:
			out[i] = float64(*(*uint64)(p))
		case core.Float16:
			out[i] = float64(core.Float16ToFloat32(*(*uint16)(p)))
		case core.BFloat16:
			out[i] = float64(core.BFloat16ToFloat32(*(*uint16)(p)))
		case core.Float32:
			out[i] = float64(*(*float32)(p))
		case core.Float64:
			out[i] = *(*float64)(p)
		case core.Complex64:
			out[i] = float64(real(*(*complex64)(p)))
		case core.Complex128:
			out[i] = real(*(*complex128)(p))
		}
	}
	return out
}

type redOpts struct {
	axes     []int64 // nil: all axes
	keepdims bool
	dtype    core.DataType
	out      *core.Array
}

// reduceGo runs a reduction the way the Python skin does (plan, begin,
// accumulate in blocks split along axis 0 when split, end) and returns the
// result as an array (a 0-d one for a scalar result).
func reduceGo(t *testing.T, op core.ReduceOp, a *core.Array, o redOpts, split bool) (*core.Array, error) {
	t.Helper()
	h := a.Header()
	shape, strides := a.Shape(), a.Strides()
	r, err := core.PlanReduce(op, &h, shape, o.axes, o.axes == nil, false, o.keepdims, o.dtype, o.dtype != core.DataType{})
	if err != nil {
		return nil, err
	}
	var tg core.ReduceTarget
	var area [core.ScalarBytes / 8]uint64
	var oh *core.Header
	var osh, ost []int64
	if o.out != nil {
		hh := o.out.Header()
		oh, osh, ost = &hh, o.out.Shape(), o.out.Strides()
	}
	if err := r.Begin(&tg, oh, osh, ost, unsafe.Pointer(&area)); err != nil {
		return nil, err
	}
	nd := len(shape)
	if split && nd > 0 && shape[0] > 1 {
		sub := append([]int64(nil), shape...)
		sub[0] = 1
		for i := int64(0); i < shape[0]; i++ {
			hi, acc := h, tg.Acc
			hi.Offset += i * strides[0]
			acc.Offset += i * tg.AccStrides[0]
			require.NoError(t, r.Accumulate(&hi, sub, strides, &acc, tg.AccStrides[:nd]))
		}
	} else {
		require.NoError(t, r.Accumulate(&h, shape, strides, &tg.Acc, tg.AccStrides[:nd]))
	}
	r.End(&tg, false)
	if o.out != nil {
		return o.out, nil
	}
	if tg.Scalar {
		z, err := core.Zeros(r.Result)
		require.NoError(t, err)
		b, err := z.Bytes()
		require.NoError(t, err)
		copy(b, unsafe.Slice((*byte)(unsafe.Pointer(&area)), len(b)))
		return z, nil
	}
	n := int(tg.Res.Ndim)
	res := core.NewArray(tg.Res, tg.ResShape[:n], tg.ResStrides[:n])
	tg.Res.Owner.Release() // NewArray holds its own reference
	return res, nil
}

func TestReduceTable(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	iota12 := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	cases := []struct {
		name      string
		op        core.ReduceOp
		dt        core.DataType
		shape     []int64
		vals      []float64
		view      func(*core.Array) *core.Array
		o         redOpts
		wantDT    core.DataType
		wantShape []int64
		want      []float64
	}{
		{"sum all float64", core.ReduceSum, core.Float64, []int64{3, 4}, iota12, nil, redOpts{}, core.Float64, []int64{}, []float64{66}},
		{"sum axis 0", core.ReduceSum, core.Float64, []int64{3, 4}, iota12, nil, redOpts{axes: []int64{0}}, core.Float64, []int64{4}, []float64{12, 15, 18, 21}},
		{"sum axis -1 keepdims", core.ReduceSum, core.Int32, []int64{3, 4}, iota12, nil, redOpts{axes: []int64{-1}, keepdims: true}, core.Int64, []int64{3, 1}, []float64{6, 22, 38}},
		{"sum all keepdims", core.ReduceSum, core.Int8, []int64{3, 4}, iota12, nil, redOpts{keepdims: true}, core.Int64, []int64{1, 1}, []float64{66}},
		{"sum no axes", core.ReduceSum, core.Uint8, []int64{2, 2}, []float64{1, 2, 3, 4}, nil, redOpts{axes: []int64{}}, core.Uint64, []int64{2, 2}, []float64{1, 2, 3, 4}},
		{"sum transposed axis 0", core.ReduceSum, core.Float32, []int64{3, 4}, iota12, (*core.Array).T, redOpts{axes: []int64{0}}, core.Float32, []int64{3}, []float64{6, 22, 38}},
		{"sum bool counts", core.ReduceSum, core.Bool, []int64{4}, []float64{1, 0, 1, 1}, nil, redOpts{}, core.Int64, []int64{}, []float64{3}},
		{"sum int8 dtype=int8 wraps", core.ReduceSum, core.Int8, []int64{3}, []float64{100, 100, 100}, nil, redOpts{dtype: core.Int8}, core.Int8, []int64{}, []float64{44}},
		{"sum int64 wraps", core.ReduceSum, core.Int64, []int64{2}, []float64{math.MaxInt64, 2}, nil, redOpts{}, core.Int64, []int64{}, []float64{math.MinInt64 + 1}},
		{"sum float16 keeps dtype", core.ReduceSum, core.Float16, []int64{3}, []float64{1, 2, 3.5}, nil, redOpts{axes: []int64{0}}, core.Float16, []int64{}, []float64{6.5}},
		{"sum bfloat16 axis", core.ReduceSum, core.BFloat16, []int64{2, 2}, []float64{1, 2, 3, 4}, nil, redOpts{axes: []int64{0}}, core.BFloat16, []int64{2}, []float64{4, 6}},
		{"sum complex", core.ReduceSum, core.Complex128, []int64{3}, []float64{1, 2, 3}, nil, redOpts{}, core.Complex128, []int64{}, []float64{6}},
		{"sum empty", core.ReduceSum, core.Float64, []int64{0, 3}, nil, nil, redOpts{}, core.Float64, []int64{}, []float64{0}},
		{"sum empty axis 0", core.ReduceSum, core.Int64, []int64{0, 3}, nil, nil, redOpts{axes: []int64{0}}, core.Int64, []int64{3}, []float64{0, 0, 0}},
		{"prod axis 1", core.ReduceProd, core.Int16, []int64{2, 3}, []float64{1, 2, 3, 4, 5, 6}, nil, redOpts{axes: []int64{1}}, core.Int64, []int64{2}, []float64{6, 120}},
		{"prod empty", core.ReduceProd, core.Float32, []int64{0}, nil, nil, redOpts{}, core.Float32, []int64{}, []float64{1}},
		{"max float64 NaN", core.ReduceMax, core.Float64, []int64{5}, []float64{1, nan, 3, 9, 2}, nil, redOpts{}, core.Float64, []int64{}, []float64{nan}},
		{"min float32 NaN axis 0", core.ReduceMin, core.Float32, []int64{2, 2}, []float64{1, nan, 0, 4}, nil, redOpts{axes: []int64{0}}, core.Float32, []int64{2}, []float64{0, nan}},
		{"max int8 keeps dtype", core.ReduceMax, core.Int8, []int64{4}, []float64{-5, -2, -9, -3}, nil, redOpts{}, core.Int8, []int64{}, []float64{-2}},
		{"min uint16 axis", core.ReduceMin, core.Uint16, []int64{2, 2}, []float64{7, 2, 3, 9}, nil, redOpts{axes: []int64{1}}, core.Uint16, []int64{2}, []float64{2, 3}},
		{"max float16", core.ReduceMax, core.Float16, []int64{3}, []float64{-1, 0.5, -7}, nil, redOpts{}, core.Float16, []int64{}, []float64{0.5}},
		{"max bool", core.ReduceMax, core.Bool, []int64{3}, []float64{0, 1, 0}, nil, redOpts{}, core.Bool, []int64{}, []float64{1}},
		{"max complex lexicographic", core.ReduceMax, core.Complex128, []int64{3}, []float64{1, 3, 2}, nil, redOpts{}, core.Complex128, []int64{}, []float64{3}},
		{"any axis 1", core.ReduceAny, core.Float64, []int64{2, 2}, []float64{0, 0, 0, nan}, nil, redOpts{axes: []int64{1}}, core.Bool, []int64{2}, []float64{0, 1}},
		{"all", core.ReduceAll, core.Int32, []int64{3}, []float64{1, 2, 0}, nil, redOpts{}, core.Bool, []int64{}, []float64{0}},
		{"any empty", core.ReduceAny, core.Int32, []int64{0}, nil, nil, redOpts{}, core.Bool, []int64{}, []float64{0}},
		{"all empty", core.ReduceAll, core.Int32, []int64{0}, nil, nil, redOpts{}, core.Bool, []int64{}, []float64{1}},
		{"mean int -> float64", core.ReduceMean, core.Int32, []int64{2, 2}, []float64{1, 2, 3, 5}, nil, redOpts{axes: []int64{0}}, core.Float64, []int64{2}, []float64{2, 3.5}},
		{"mean float16 keeps dtype", core.ReduceMean, core.Float16, []int64{4}, []float64{1, 2, 3, 4}, nil, redOpts{}, core.Float16, []int64{}, []float64{2.5}},
		{"mean dtype=int64 truncates", core.ReduceMean, core.Int32, []int64{2}, []float64{1, 2}, nil, redOpts{dtype: core.Int64}, core.Int64, []int64{}, []float64{1}},
		{"mean empty is NaN", core.ReduceMean, core.Float64, []int64{0}, nil, nil, redOpts{}, core.Float64, []int64{}, []float64{nan}},
		{"sum 0-d", core.ReduceSum, core.Float64, []int64{}, []float64{4}, nil, redOpts{}, core.Float64, []int64{}, []float64{4}},
		{"sum 3-d axes (0, 2)", core.ReduceSum, core.Float64, []int64{2, 3, 2}, iota12, nil, redOpts{axes: []int64{0, 2}}, core.Float64, []int64{3}, []float64{14, 22, 30}},
	}
	for _, c := range cases {
		for _, split := range []bool{false, true} {
			a := redIn(t, c.dt, c.shape, c.vals)
			if c.view != nil {
				a = c.view(a)
			}
			res, err := reduceGo(t, c.op, a, c.o, split)
			require.NoError(t, err, c.name)
			assert.Equal(t, c.wantDT, res.DType(), c.name)
			assert.Equal(t, c.wantShape, res.Shape(), c.name)
			got := redOut(t, res)
			require.Len(t, got, len(c.want), c.name)
			for i := range got {
				if math.IsNaN(c.want[i]) {
					assert.True(t, math.IsNaN(got[i]), "%s[%d]: got %v, want NaN", c.name, i, got[i])
				} else {
					assert.Equal(t, c.want[i], got[i], "%s[%d] (split %v)", c.name, i, split)
				}
			}
			res.Release()
			a.Release()
		}
	}
}

func TestReduceNaNEveryPosition(t *testing.T) {
	t.Parallel()
	vals := make([]float64, 300)
	for i := range vals {
		vals[i] = float64(i % 17)
	}
	for _, dt := range []core.DataType{core.Float64, core.Float32, core.Float16} {
		for _, pos := range []int{0, 3, 7, 8, 127, 128, 299} {
			v := append([]float64(nil), vals...)
			v[pos] = math.NaN()
			a := redIn(t, dt, []int64{300}, v)
			for _, op := range []core.ReduceOp{core.ReduceMax, core.ReduceMin} {
				res, err := reduceGo(t, op, a, redOpts{}, false)
				require.NoError(t, err)
				assert.True(t, math.IsNaN(redOut(t, res)[0]), "%v %v NaN at %d", dt, op, pos)
				res.Release()
			}
			a.Release()
		}
	}
}

func TestReducePairwiseAccuracy(t *testing.T) {
	t.Parallel()
	// 1e6 times 0.1: a running sum is off by ~1e-6 relative, pairwise ~1e-14.
	const n = 1000000
	v := make([]float64, n)
	for i := range v {
		v[i] = 0.1
	}
	a := redIn(t, core.Float64, []int64{n}, v)
	defer a.Release()
	h := a.Header()
	s, err := core.Sum(&h, a.Shape(), a.Strides())
	require.NoError(t, err)
	assert.InDelta(t, 100000.0, s.F, 1e-8)
	st, err := a.Slice(0, 0, n, 3)
	require.NoError(t, err)
	defer st.Release()
	h = st.Header()
	s, err = core.Sum(&h, st.Shape(), st.Strides())
	require.NoError(t, err)
	assert.InDelta(t, 0.1*float64((n+2)/3), s.F, 1e-8)
}

func TestReduceErrors(t *testing.T) {
	t.Parallel()
	a := redIn(t, core.Float64, []int64{2, 3}, []float64{1, 2, 3, 4, 5, 6})
	defer a.Release()
	h := a.Header()
	cases := []struct {
		name  string
		op    core.ReduceOp
		h     core.Header
		shape []int64
		axes  []int64
		dt    core.DataType
		err   error
		class core.Class
		msg   string
	}{
		{"axis out of bounds", core.ReduceSum, h, []int64{2, 3}, []int64{2}, core.DataType{}, core.ErrAxis, core.ClassValue,
			"sum(): axis 2 is out of bounds for array of dimension 2; pass an axis in [-2, 2)"},
		{"negative axis out of bounds", core.ReduceMax, h, []int64{2, 3}, []int64{-3}, core.DataType{}, core.ErrAxis, core.ClassValue,
			"max(): axis -3 is out of bounds"},
		{"duplicate axis", core.ReduceAny, h, []int64{2, 3}, []int64{1, -1}, core.DataType{}, core.ErrAxis, core.ClassValue,
			"any(): duplicate value in 'axis'"},
		{"float into int", core.ReduceSum, h, []int64{2, 3}, nil, core.Int32, core.ErrDType, core.ClassType,
			"sum(): cannot accumulate float64 values in dtype=int32"},
		{"dtype for min", core.ReduceMin, h, []int64{2, 3}, nil, core.Float32, core.ErrUnsupported, core.ClassType,
			"min(): dtype= is not supported"},
		{"empty max", core.ReduceMax, h, []int64{0, 3}, nil, core.DataType{}, core.ErrNoIdentity, core.ClassValue,
			"max(): zero-size array to reduction operation maximum which has no identity"},
		{"float8", core.ReduceSum, core.Header{DType: core.Float8E4M3FN, Device: core.CPU}, []int64{2}, nil, core.DataType{}, core.ErrUnsupported, core.ClassType,
			"sum(): float8_e4m3fn arrays cannot be reduced; convert them first"},
		{"device", core.ReduceSum, core.Header{DType: core.Float64, Device: core.Device{Type: core.KDLCUDA}}, []int64{2}, nil, core.DataType{}, core.ErrDevice, core.ClassBuffer,
			"sum(): "},
	}
	for _, c := range cases {
		hh := c.h
		_, err := core.PlanReduce(c.op, &hh, c.shape, c.axes, c.axes == nil, false, false, c.dt, c.dt != core.DataType{})
		require.Error(t, err, c.name)
		assert.ErrorIs(t, err, c.err, c.name)
		assert.Equal(t, c.class, core.ClassOf(err), c.name)
		assert.Contains(t, err.Error(), c.msg, c.name)
	}
	// out=: shape, read-only
	bad := redIn(t, core.Float64, []int64{2}, nil)
	defer bad.Release()
	_, err := reduceGo(t, core.ReduceSum, a, redOpts{axes: []int64{0}, out: bad}, false)
	require.ErrorIs(t, err, core.ErrShape)
	assert.Equal(t, core.ClassValue, core.ClassOf(err))
	assert.Contains(t, err.Error(), "sum(): out has shape (2,), the result has shape (3,)")
}

func TestReduceOutCastsAndStrides(t *testing.T) {
	t.Parallel()
	a := redIn(t, core.Float64, []int64{2, 3}, []float64{1.5, 2, 3, 4, 5, 6.5})
	defer a.Release()
	big := redIn(t, core.Int32, []int64{6}, nil)
	defer big.Release()
	out, err := big.Slice(0, 0, 6, 2)
	require.NoError(t, err)
	defer out.Release()
	res, err := reduceGo(t, core.ReduceSum, a, redOpts{axes: []int64{0}, out: out}, true)
	require.NoError(t, err)
	assert.Equal(t, []float64{5, 0, 7, 0, 9, 0}, redOut(t, big), "sum cast to int32 into every other element")
	assert.Same(t, out, res)
}

func TestFloat64ToFloat16Rounding(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   float64
		want uint16
	}{
		{1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {65520, 0x7c00}, {1e6, 0x7c00},
		{5.960464477539063e-08, 0x0001}, {2.98e-08, 0x0000}, {2.9802322387695312e-08, 0x0000}, {2.99e-08, 0x0001},
		{1 + 1.0/2048, 0x3c00}, {1 + 3.0/2048, 0x3c02}, {math.Inf(-1), 0xfc00}, {0, 0},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, core.Float64ToFloat16(c.in), "%v", c.in)
	}
	assert.True(t, math.IsNaN(float64(core.Float16ToFloat32(core.Float64ToFloat16(math.NaN())))))
	assert.Equal(t, uint16(0x3f80), core.Float64ToBFloat16(1))
	assert.Equal(t, uint16(0x3f80), core.Float64ToBFloat16(1+1.0/256), "tie to even")
	// through float32, as ml_dtypes converts: 1+2^-8+1e-9 becomes the float32
	// tie 1+2^-8 first, which then goes to even
	assert.Equal(t, uint16(0x3f80), core.Float64ToBFloat16(1+1.0/256+1e-9))
	assert.Equal(t, uint16(0x3f81), core.Float64ToBFloat16(1+1.0/256+1e-6))
}

func TestReduceZeroAlloc(t *testing.T) {
	a := redIn(t, core.Float64, []int64{64, 33}, nil)
	defer a.Release()
	tr := a.T()
	defer tr.Release()
	h := tr.Header()
	shape, strides := tr.Shape(), tr.Strides()
	r, err := core.PlanReduce(core.ReduceMax, &h, shape, []int64{1}, false, false, false, core.DataType{}, false)
	require.NoError(t, err)
	var tg core.ReduceTarget
	var area [2]uint64
	require.NoError(t, r.Begin(&tg, nil, nil, nil, unsafe.Pointer(&area)))
	defer r.End(&tg, true)
	defer tg.Res.Owner.Release()
	allocs := testing.AllocsPerRun(20, func() {
		_ = r.Accumulate(&h, shape, strides, &tg.Acc, tg.AccStrides[:2])
	})
	assert.Zero(t, allocs)
}
