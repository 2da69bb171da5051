package tests_go

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
)

// Element-wise comparisons (core/compare.go): numpy 2's answers, checked
// against values worked out by hand.

var (
	cmpF16  = core.DataType{Code: core.KDLFloat, Bits: 16, Lanes: 1}
	cmpBF16 = core.DataType{Code: core.KDLBfloat, Bits: 16, Lanes: 1}
)

// cmpArr returns a 1-d array of dtype dt holding vals (int64, uint64,
// float64, complex128 or bool, converted to dt), released when the test
// ends.
func cmpArr(t *testing.T, dt core.DataType, vals ...any) *core.Array {
	t.Helper()
	a, err := core.Empty(dt, int64(len(vals)))
	require.NoError(t, err)
	t.Cleanup(a.Release)
	b, err := a.Bytes()
	require.NoError(t, err)
	k := int(dt.ItemSize())
	for i, v := range vals {
		cmpPut(t, dt, b[i*k:(i+1)*k], v)
	}
	return a
}

func cmpPut(t *testing.T, dt core.DataType, b []byte, v any) {
	t.Helper()
	var i int64
	var u uint64
	var f float64
	var c complex128
	switch x := v.(type) {
	case int:
		i, u, f, c = int64(x), uint64(x), float64(x), complex(float64(x), 0)
	case int64:
		i, u, f, c = x, uint64(x), float64(x), complex(float64(x), 0)
	case uint64:
		i, u, f, c = int64(x), x, float64(x), complex(float64(x), 0)
	case float64:
		f, c = x, complex(x, 0)
	case complex128:
		f, c = real(x), x
	case bool:
		if x {
			i, u, f, c = 1, 1, 1, 1
		}
	default:
		t.Fatalf("cmpPut: %T", v)
	}
	le := binary.LittleEndian
	switch {
	case dt.Code == core.KDLBool:
		b[0] = byte(u & 1)
	case dt.Code == core.KDLInt || dt.Code == core.KDLUInt:
		if dt.Code == core.KDLUInt {
			i = int64(u)
		}
		switch dt.Bits {
		case 8:
			b[0] = byte(i)
		case 16:
			le.PutUint16(b, uint16(i))
		case 32:
			le.PutUint32(b, uint32(i))
		default:
			le.PutUint64(b, uint64(i))
		}
	case dt == cmpF16:
		le.PutUint16(b, core.Float64ToFloat16(f))
	case dt == cmpBF16:
		le.PutUint16(b, core.Float64ToBFloat16(f))
	case dt == core.Float32:
		le.PutUint32(b, math.Float32bits(float32(f)))
	case dt == core.Float64:
		le.PutUint64(b, math.Float64bits(f))
	case dt == core.Complex64:
		le.PutUint32(b, math.Float32bits(float32(real(c))))
		le.PutUint32(b[4:], math.Float32bits(float32(imag(c))))
	default:
		le.PutUint64(b, math.Float64bits(real(c)))
		le.PutUint64(b[8:], math.Float64bits(imag(c)))
	}
}

func cmpBools(t *testing.T, r *core.Array) []bool {
	t.Helper()
	t.Cleanup(r.Release)
	require.Equal(t, core.Bool, r.DType())
	require.True(t, r.IsCContiguous())
	v, err := r.Bools()
	require.NoError(t, err)
	return append([]bool(nil), v...)
}

var cmpOps = []core.CompareOp{core.CmpLT, core.CmpLE, core.CmpEQ, core.CmpNE, core.CmpGT, core.CmpGE}

// cmpAll gives the six answers (<, <=, ==, !=, >, >=) of x op y for 1-element
// arrays, as a string of 0 and 1.
func cmpAll(t *testing.T, x, y *core.Array) string {
	t.Helper()
	s := ""
	for _, op := range cmpOps {
		r, err := x.Compare(op, y)
		require.NoError(t, err)
		if cmpBools(t, r)[0] {
			s += "1"
		} else {
			s += "0"
		}
	}
	return s
}

const (
	lt  = "110100" // x < y
	eq  = "011001" // x == y
	gt  = "000111" // x > y
	nan = "000100" // unordered: only != holds
)

func TestCompareMixedDtypes(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	cases := []struct {
		name string
		xdt  core.DataType
		x    any
		ydt  core.DataType
		y    any
		want string
	}{
		{"int64 -1 vs uint64 max", core.Int64, int64(-1), core.Uint64, uint64(math.MaxUint64), lt},
		{"uint64 max vs int64 -1", core.Uint64, uint64(math.MaxUint64), core.Int64, int64(-1), gt},
		{"int64 min vs uint64 2^63", core.Int64, int64(math.MinInt64), core.Uint64, uint64(1 << 63), lt},
		{"int64 max vs uint64 2^63", core.Int64, int64(math.MaxInt64), core.Uint64, uint64(1 << 63), lt},
		{"int64 2^53 vs uint64 2^53+1 (exact)", core.Int64, int64(1 << 53), core.Uint64, uint64(1<<53 + 1), lt},
		{"int64 max vs uint64 max-... equal", core.Int64, int64(math.MaxInt64), core.Uint64, uint64(math.MaxInt64), eq},
		{"uint8 255 vs int8 -1", core.Uint8, 255, core.Int8, -1, gt},
		{"uint32 max vs int32 -1", core.Uint32, uint64(math.MaxUint32), core.Int32, -1, gt},
		{"uint64 vs uint8", core.Uint64, uint64(1 << 63), core.Uint8, 255, gt},
		{"bool true vs int8 1", core.Bool, true, core.Int8, 1, eq},
		{"bool true vs uint64 max", core.Bool, true, core.Uint64, uint64(math.MaxUint64), lt},
		{"bool false vs int64 -1", core.Bool, false, core.Int64, -1, gt},
		{"bool true vs float 0.5", core.Bool, true, core.Float64, 0.5, gt},
		{"int64 2^53+1 vs float64 2^53 (rounded, as numpy)", core.Int64, int64(1<<53 + 1), core.Float64, float64(1 << 53), eq},
		{"uint64 max vs float64 2^64 (rounded)", core.Uint64, uint64(math.MaxUint64), core.Float64, math.Ldexp(1, 64), eq},
		{"int32 2^24+1 vs float32 2^24 (exact)", core.Int32, 1<<24 + 1, core.Float32, float64(1 << 24), gt},
		{"int16 2049 vs float16 2048 (exact)", core.Int16, 2049, cmpF16, 2048.0, gt},
		{"int8 vs bfloat16", core.Int8, -3, cmpBF16, -3.0, eq},
		{"float16 0.1 vs float32 0.1", cmpF16, 0.1, core.Float32, 0.1, lt},
		{"float32 0.1 vs float64 0.1", core.Float32, 0.1, core.Float64, 0.1, gt}, // float32(0.1) > 0.1
		{"bfloat16 vs float16", cmpBF16, 1.5, cmpF16, 1.5, eq},
		{"float16 inf vs float64 1e300", cmpF16, inf, core.Float64, 1e300, gt},
		{"-0 vs +0", core.Float64, math.Copysign(0, -1), core.Float32, 0.0, eq},
		{"nan vs nan", core.Float64, math.NaN(), core.Float64, math.NaN(), nan},
		{"nan vs 1", core.Float32, math.NaN(), core.Int8, 1, nan},
		{"inf vs int64 max", core.Float64, inf, core.Int64, int64(math.MaxInt64), gt},
		{"complex lexicographic: real decides", core.Complex128, complex(1, 5), core.Complex128, complex(2, 0), lt},
		{"complex lexicographic: imaginary decides", core.Complex128, complex(1, 2), core.Complex64, complex(1, 3), lt},
		{"complex equal", core.Complex64, complex(1, 2), core.Complex128, complex(1, 2), eq},
		{"complex vs float", core.Complex128, complex(2, -1), core.Float64, 2.0, lt},
		{"complex vs int64 (rounded)", core.Complex128, complex(1<<53, 0), core.Int64, int64(1<<53 + 1), eq},
		{"complex nan real", core.Complex128, complex(math.NaN(), 0), core.Complex128, complex(1, 0), nan},
		{"complex nan imaginary, real smaller", core.Complex128, complex(1, math.NaN()), core.Complex128, complex(2, 0), nan},
		{"complex nan imaginary, other side", core.Complex128, complex(1, 0), core.Complex128, complex(0, math.NaN()), nan},
		{"complex equal reals, nan imaginary", core.Complex128, complex(1, 1), core.Complex128, complex(1, math.NaN()), nan},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			x, y := cmpArr(t, c.xdt, c.x), cmpArr(t, c.ydt, c.y)
			assert.Equal(t, c.want, cmpAll(t, x, y), "%v %v vs %v %v (<, <=, ==, !=, >, >=)", c.xdt, c.x, c.ydt, c.y)
			// swapped operands give the mirrored answers
			mirror := map[string]string{lt: gt, gt: lt, eq: eq, nan: nan}[c.want]
			assert.Equal(t, mirror, cmpAll(t, y, x), "swapped")
		})
	}
}

// cmpScalarAll is cmpAll for an array and a scalar.
func cmpScalarAll(t *testing.T, x *core.Array, s core.Scalar) string {
	t.Helper()
	out := ""
	for _, op := range cmpOps {
		r, err := x.CompareScalar(op, s)
		require.NoError(t, err)
		if cmpBools(t, r)[0] {
			out += "1"
		} else {
			out += "0"
		}
	}
	return out
}

func weak(s core.Scalar) core.Scalar { s.Weak = true; return s }

func TestCompareScalars(t *testing.T) {
	t.Parallel()
	above := core.Scalar{Kind: core.ScalarInt, Big: true, Re: math.Ldexp(1, 70)}             // 2**70
	below := core.Scalar{Kind: core.ScalarInt, Big: true, Neg: true, Re: -math.Ldexp(1, 70)} // -2**70
	huge := core.Scalar{Kind: core.ScalarInt, Big: true, Re: math.Inf(1)}                    // 10**400
	cases := []struct {
		name string
		xdt  core.DataType
		x    any
		s    core.Scalar
		want string
	}{
		{"uint8 vs weak 300", core.Uint8, 255, weak(core.IntScalar(300)), lt},
		{"uint8 vs weak -1", core.Uint8, 0, weak(core.IntScalar(-1)), gt},
		{"int64 max vs weak 2**70", core.Int64, int64(math.MaxInt64), weak(above), lt},
		{"uint64 max vs weak 2**70", core.Uint64, uint64(math.MaxUint64), weak(above), lt},
		{"int64 min vs weak -2**70", core.Int64, int64(math.MinInt64), weak(below), gt},
		{"bool vs weak 2**70", core.Bool, true, weak(above), lt},
		{"uint64 max vs weak 2**64-1", core.Uint64, uint64(math.MaxUint64), weak(core.UintScalar(math.MaxUint64)), eq},
		{"int8 vs weak -2**63", core.Int8, -128, weak(core.IntScalar(math.MinInt64)), gt},
		{"float64 vs weak 2**70", core.Float64, math.Ldexp(1, 70), weak(above), eq},
		{"float64 max vs weak 10**400", core.Float64, math.MaxFloat64, weak(huge), lt},
		{"float16 inf vs weak 100000 (rounds to inf)", cmpF16, math.Inf(1), weak(core.IntScalar(100000)), eq},
		{"float16 2048 vs weak 2049 (rounds to 2048)", cmpF16, 2048.0, weak(core.IntScalar(2049)), eq},
		{"float16 2048 vs strong 2049", cmpF16, 2048.0, core.IntScalar(2049), lt},
		{"float32 2^24 vs weak 2^24+1", core.Float32, float64(1 << 24), weak(core.IntScalar(1<<24 + 1)), eq},
		{"float16 0.1 vs weak 0.1", cmpF16, 0.1, weak(core.FloatScalar(0.1)), eq},
		{"float16 0.1 vs strong 0.1", cmpF16, 0.1, core.FloatScalar(0.1), lt},
		{"bfloat16 0.1 vs weak 0.1", cmpBF16, 0.1, weak(core.FloatScalar(0.1)), eq},
		{"float32 0.1 vs weak 0.1", core.Float32, 0.1, weak(core.FloatScalar(0.1)), eq},
		{"float16 65504 vs weak 65519 (rounds down)", cmpF16, 65504.0, weak(core.FloatScalar(65519)), eq},
		{"float16 inf vs weak 65520 (rounds up)", cmpF16, math.Inf(1), weak(core.FloatScalar(65520)), eq},
		{"int64 2^53+1 vs weak 2.0**53", core.Int64, int64(1<<53 + 1), weak(core.FloatScalar(1 << 53)), eq},
		{"int8 127 vs weak 127.5", core.Int8, 127, weak(core.FloatScalar(127.5)), lt},
		{"complex64 0.1 vs weak 0.1", core.Complex64, complex(0.1, 0), weak(core.FloatScalar(0.1)), eq},
		{"complex64 0.1 vs strong 0.1", core.Complex64, complex(0.1, 0), core.FloatScalar(0.1), gt},
		{"float32 0.1 vs weak 0.1+0j (complex64)", core.Float32, 0.1, weak(core.ComplexScalar(0.1)), eq},
		{"float16 0.1 vs weak 0.1+0j (complex64)", cmpF16, 0.1, weak(core.ComplexScalar(0.1)), lt},
		{"float64 vs weak 1j", core.Float64, 0.0, weak(core.ComplexScalar(1i)), lt},
		{"int64 vs weak True", core.Int64, 1, weak(core.BoolScalar(true)), eq},
		{"float64 0.5 vs weak True", core.Float64, 0.5, weak(core.BoolScalar(true)), lt},
		{"nan vs weak nan", core.Float32, math.NaN(), weak(core.FloatScalar(math.NaN())), nan},
		{"complex nan imaginary vs weak real", core.Complex128, complex(1, math.NaN()), weak(core.FloatScalar(5)), nan},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			x := cmpArr(t, c.xdt, c.x)
			assert.Equal(t, c.want, cmpScalarAll(t, x, c.s), "%v %v vs %+v (<, <=, ==, !=, >, >=)", c.xdt, c.x, c.s)
		})
	}
}

func TestCompareBroadcastShapes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		x, y, want []int64
		err        string
	}{
		{x: []int64{2, 3}, y: []int64{3}, want: []int64{2, 3}},
		{x: []int64{2, 1}, y: []int64{1, 3}, want: []int64{2, 3}},
		{x: []int64{}, y: []int64{2, 3}, want: []int64{2, 3}},
		{x: []int64{4, 1, 3}, y: []int64{5, 1}, want: []int64{4, 5, 3}},
		{x: []int64{0, 3}, y: []int64{1, 3}, want: []int64{0, 3}},
		{x: []int64{1}, y: []int64{0}, want: []int64{0}},
		{x: []int64{2, 3}, y: []int64{4}, err: "<=: operands could not be broadcast together with shapes (2,3) (4,); make each dimension equal or 1"},
		{x: []int64{2, 3}, y: []int64{3, 2}, err: "<=: operands could not be broadcast together with shapes (2,3) (3,2);"},
		{x: []int64{0}, y: []int64{2}, err: "<=: operands could not be broadcast together with shapes (0,) (2,);"},
	}
	for _, c := range cases {
		x, err := core.Zeros(core.Int32, c.x...)
		require.NoError(t, err)
		y, err := core.Zeros(core.Float64, c.y...)
		require.NoError(t, err)
		r, err := x.Compare(core.CmpLE, y)
		if c.err != "" {
			require.ErrorIs(t, err, core.ErrBroadcast)
			assert.Equal(t, core.ClassValue, core.ClassOf(err))
			assert.Contains(t, err.Error(), c.err)
			assert.Regexp(t, `^<=: `, err.Error())
		} else {
			require.NoError(t, err, "%v vs %v", c.x, c.y)
			assert.Equal(t, c.want, r.Shape())
			for _, b := range cmpBools(t, r) {
				assert.True(t, b) // 0 <= 0.0
			}
		}
		x.Release()
		y.Release()
	}
}

// Broadcast, strided and reversed operands: every element against a loop
// over the indices.
func TestCompareLayouts(t *testing.T) {
	t.Parallel()
	x := cmpArr(t, core.Int16, 5, -3, 7, 0, 2, 9, -1, 4, 4, 8, 1, 6) // 12
	xv, err := x.Reshape(3, 4)
	require.NoError(t, err)
	t.Cleanup(xv.Release)
	xt := xv.T() // (4, 3)
	t.Cleanup(xt.Release)
	y := cmpArr(t, core.Float32, 4.0, 0.5, 7.0)
	yr, err := y.Slice(0, 2, math.MinInt64, -1) // reversed: 7, 0.5, 4
	require.NoError(t, err)
	t.Cleanup(yr.Release)
	r, err := xt.Compare(core.CmpGE, yr)
	require.NoError(t, err)
	got := cmpBools(t, r)
	require.Equal(t, []int64{4, 3}, r.Shape())
	xs := []float64{5, -3, 7, 0, 2, 9, -1, 4, 4, 8, 1, 6}
	ys := []float64{7, 0.5, 4}
	for i := 0; i < 4; i++ {
		for j := 0; j < 3; j++ {
			assert.Equal(t, xs[j*4+i] >= ys[j], got[i*3+j], "[%d, %d]", i, j)
		}
	}
}

// A result computed in ranges (how the Python skin interrupts long
// comparisons) is the result computed at once; ranges outside it are refused.
func TestCompareIntoRanges(t *testing.T) {
	t.Parallel()
	vals := make([]any, 300)
	for i := range vals {
		vals[i] = int64(i%17) - 8
	}
	a := cmpArr(t, core.Int64, vals...)
	av, err := a.Reshape(3, 10, 10)
	require.NoError(t, err)
	t.Cleanup(av.Release)
	sub, err := av.Slice(2, 9, math.MinInt64, -3) // (3, 10, 4), negative stride
	require.NoError(t, err)
	t.Cleanup(sub.Release)
	b := cmpArr(t, core.Uint8, 0, 3, 250, 1)
	whole, err := sub.Compare(core.CmpLT, b)
	require.NoError(t, err)
	want := cmpBools(t, whole)
	require.Len(t, want, 120)

	h, hb := sub.Header(), b.Header()
	x := core.Operand{H: &h, Shape: sub.Shape(), Strides: sub.Strides()}
	y := core.Operand{H: &hb, Shape: b.Shape(), Strides: b.Strides()}
	out, err := core.Zeros(core.Bool, 3, 10, 4)
	require.NoError(t, err)
	t.Cleanup(out.Release)
	oh := out.Header()
	for _, cut := range [][]int64{{0, 1, 2, 7, 29, 30, 31, 58, 89, 119, 120}, {0, 60, 120}, {0, 120}} {
		for i := 0; i+1 < len(cut); i++ {
			require.NoError(t, core.CompareInto(core.CmpLT, &oh, out.Shape(), &x, &y, cut[i], cut[i+1]))
		}
		got, err := out.Bools()
		require.NoError(t, err)
		assert.Equal(t, want, got, "cuts %v", cut)
	}
	err = core.CompareInto(core.CmpLT, &oh, out.Shape(), &x, &y, 80, 121)
	assert.ErrorIs(t, err, core.ErrShape)
	err = core.CompareInto(core.CmpLT, &oh, []int64{3, 10, 5}, &x, &y, 0, 1)
	assert.ErrorIs(t, err, core.ErrShape)
}

// An object that is no number (None, a str: core.ScalarOther) equals no
// element, as numpy 2 answers: == all false, != all true; it has no order.
func TestCompareWithAnObjectThatIsNoNumber(t *testing.T) {
	t.Parallel()
	other := core.Scalar{Kind: core.ScalarOther}
	for _, c := range []struct {
		dt   core.DataType
		vals []any
	}{
		{core.Bool, []any{true, false}}, {core.Int8, []any{0, -1}}, {core.Uint64, []any{uint64(0), uint64(7)}},
		{cmpF16, []any{0.0, math.NaN()}}, {core.Float64, []any{1.5, math.Inf(1)}},
		{core.Complex128, []any{complex(0, 0), complex(1, 2)}},
	} {
		t.Run(c.dt.String(), func(t *testing.T) {
			t.Parallel()
			x := cmpArr(t, c.dt, c.vals...)
			for op, want := range map[core.CompareOp]bool{core.CmpEQ: false, core.CmpNE: true} {
				r, err := x.CompareScalar(op, other)
				require.NoError(t, err)
				assert.Equal(t, []bool{want, want}, cmpBools(t, r), op.String())
			}
			for _, op := range []core.CompareOp{core.CmpLT, core.CmpLE, core.CmpGT, core.CmpGE} {
				_, err := x.CompareScalar(op, other)
				require.ErrorIs(t, err, core.ErrUnsupported)
				assert.Equal(t, core.ClassType, core.ClassOf(err))
				assert.Regexp(t, `^.{1,2}: an array has no order against an object that is no number; compare numbers$`,
					err.Error())
			}
		})
	}
}

func TestCompareRefusals(t *testing.T) {
	t.Parallel()
	f8 := core.DataType{Code: core.KDLFloat8E4M3FN, Bits: 8, Lanes: 1}
	a8, err := core.Zeros(f8, 3)
	require.NoError(t, err)
	t.Cleanup(a8.Release)
	f := cmpArr(t, core.Float32, 1.0, 2.0, 3.0)

	_, err = a8.CompareScalar(core.CmpEQ, core.IntScalar(0))
	require.ErrorIs(t, err, core.ErrUnsupported)
	assert.Equal(t, core.ClassType, core.ClassOf(err))
	assert.Equal(t, "==: comparing float8_e4m3fn arrays is not supported; compare after a.astype('float32')", err.Error())
	_, err = f.Compare(core.CmpGT, a8)
	require.ErrorIs(t, err, core.ErrUnsupported)
	assert.Regexp(t, `^>: comparing float8_e4m3fn`, err.Error())

	// memory the CPU cannot read
	h := f.Header()
	h.Device = core.Device{Type: core.KDLCUDA, ID: 0}
	x := core.Operand{H: &h, Shape: f.Shape(), Strides: f.Strides()}
	var shape [core.MaxNdim]int64
	_, err = core.CompareShape(core.CmpNE, &x, &core.Operand{S: core.IntScalar(1)}, shape[:])
	require.ErrorIs(t, err, core.ErrDevice)
	assert.Equal(t, core.ClassBuffer, core.ClassOf(err))
	assert.Regexp(t, `^!=: the array.s cuda:0 memory is not accessible from the CPU; copy it first with a.to_device\("cpu"\)`, err.Error())

	// a released operand
	g := cmpArr(t, core.Float32, 1.0)
	g.Release()
	_, err = f.Compare(core.CmpEQ, g)
	assert.ErrorIs(t, err, core.ErrReleased)
}

// The comparison kernels allocate nothing on the Go heap (AllocsPerRun
// refuses parallel tests).
func TestCompareIntoAllocatesNothing(t *testing.T) {
	x := cmpArr(t, core.Float32, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
	y := cmpArr(t, core.Int64, 3, 1, 4, 1, 5, 9)
	c := cmpArr(t, core.Complex64, 1i, 2.0, 3.0, 4.0, 5.0, 6.0)
	u := cmpArr(t, core.Uint64, uint64(math.MaxUint64), 0, 1, 2, 3, 4)
	out, err := core.Zeros(core.Bool, 6)
	require.NoError(t, err)
	t.Cleanup(out.Release)
	oh := out.Header()
	operand := func(a *core.Array) *core.Operand {
		h := a.Header()
		return &core.Operand{H: &h, Shape: a.Shape(), Strides: a.Strides()}
	}
	cases := []struct {
		name string
		x, y *core.Operand
	}{
		{"float32 vs int64", operand(x), operand(y)},
		{"complex64 vs float32", operand(c), operand(x)},
		{"int64 vs uint64", operand(y), operand(u)},
		{"float32 vs weak float", operand(x), &core.Operand{S: weak(core.FloatScalar(0.1))}},
		{"uint64 vs big int", operand(u), &core.Operand{S: core.Scalar{Kind: core.ScalarInt, Big: true}}},
	}
	for _, c := range cases {
		for _, op := range cmpOps {
			assert.Zero(t, testing.AllocsPerRun(50, func() {
				_ = core.CompareInto(op, &oh, []int64{6}, c.x, c.y, 0, 6)
			}), "%s %v", c.name, op)
		}
	}
}

// Float64ToFloat16 rounds to nearest, ties to even, over every float16:
// each value converts back to itself, midpoints go to the even neighbour,
// anything off a midpoint to the nearer one.
func TestFloat64ToFloat16(t *testing.T) {
	t.Parallel()
	for h := uint32(0); h < 0x7c00; h++ { // every finite non-negative float16
		v := float64(core.Float16ToFloat32(uint16(h)))
		require.Equal(t, uint16(h), core.Float64ToFloat16(v), "%#04x", h)
		require.Equal(t, uint16(h)|0x8000, core.Float64ToFloat16(-v), "-%#04x", h)
		next := float64(core.Float16ToFloat32(uint16(h + 1))) // 0x7c00 is +Inf
		if h+1 == 0x7c00 {
			next = 65536 // where the float16 after 65504 would be
		}
		mid := (v + next) / 2
		even := uint16(h)
		if h&1 == 1 {
			even = uint16(h + 1)
		}
		require.Equal(t, even, core.Float64ToFloat16(mid), "midpoint above %#04x", h)
		require.Equal(t, uint16(h), core.Float64ToFloat16(math.Nextafter(mid, 0)), "below the midpoint above %#04x", h)
		require.Equal(t, uint16(h+1), core.Float64ToFloat16(math.Nextafter(mid, math.Inf(1))), "above the midpoint above %#04x", h)
	}
	assert.Equal(t, uint16(0x7c00), core.Float64ToFloat16(math.Inf(1)))
	assert.Equal(t, uint16(0xfc00), core.Float64ToFloat16(-1e300))
	assert.Equal(t, uint16(0), core.Float64ToFloat16(math.SmallestNonzeroFloat64))
	assert.True(t, math.IsNaN(float64(core.Float16ToFloat32(core.Float64ToFloat16(math.NaN())))))
}

func TestFloat64ToBFloat16(t *testing.T) {
	t.Parallel()
	cases := []struct {
		f    float64
		want uint16
	}{
		{1, 0x3f80}, {-2, 0xc000}, {0.1, 0x3dcd}, {1 + 1.0/256, 0x3f80}, {1 + 3.0/256, 0x3f82},
		{math.Inf(1), 0x7f80}, {3.4e38, 0x7f80}, {0, 0},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, core.Float64ToBFloat16(c.f), "%g", c.f)
	}
	assert.True(t, math.IsNaN(float64(core.BFloat16ToFloat32(core.Float64ToBFloat16(math.NaN())))))
}

// Large comparisons run on several goroutines unless SetSerial(true); both
// paths give the answers of a plain loop (not parallel: SetSerial is global).
func TestCompareLargeParallelAndSerial(t *testing.T) {
	x := arNew(t, core.Int32, 3, 1<<20)
	xv, err := x.Slice(1, math.MaxInt64, math.MinInt64, -1)
	require.NoError(t, err)
	t.Cleanup(xv.Release)
	y := arNew(t, core.Int32, 1<<20)
	xs, err := x.Int32s()
	require.NoError(t, err)
	ys, err := y.Int32s()
	require.NoError(t, err)
	for _, serial := range []bool{false, true} {
		core.SetSerial(serial)
		r, err := xv.Compare(core.CmpLT, y)
		core.SetSerial(false)
		require.NoError(t, err)
		got := cmpBools(t, r)
		require.Len(t, got, 3<<20)
		n := 1 << 20
		for i := 0; i < 3; i++ {
			for j := 0; j < n; j++ {
				if got[i*n+j] != (xs[i*n+n-1-j] < ys[j]) {
					t.Fatalf("serial=%v [%d, %d]: got %v", serial, i, j, got[i*n+j])
				}
			}
		}
	}
}

// A comparison's answer stays on the device of a device array whatever the
// other side is: a scalar, the same device, or a CPU array (what a list, a
// tuple or a range becomes); two different devices meet on the CPU
// (issue 36, item 16).
func TestCompareDeviceKeepsADeviceArraysAnswerOnItsDevice(t *testing.T) {
	t.Parallel()
	cpu, oneapi := core.CPU, core.Device{Type: core.KDLOneAPI, ID: 0}
	other := core.Device{Type: core.KDLOneAPI, ID: 1}
	host := core.Device{Type: core.KDLCUDAHost}
	on := func(d core.Device) *core.Operand { return &core.Operand{H: &core.Header{Device: d}} }
	scalar := &core.Operand{}
	for _, c := range []struct {
		name string
		x, y *core.Operand
		want core.Device
	}{
		{"cpu, cpu", on(cpu), on(cpu), cpu},
		{"cpu, scalar", on(cpu), scalar, cpu},
		{"device, scalar", on(oneapi), scalar, oneapi},
		{"device, same device", on(oneapi), on(oneapi), oneapi},
		{"device, cpu array (a list)", on(oneapi), on(cpu), oneapi},
		{"cpu array, device (reflected)", on(cpu), on(oneapi), oneapi},
		{"two devices", on(oneapi), on(other), cpu},
		{"pinned host memory: plain host copies", on(host), on(cpu), cpu},
	} {
		assert.Equal(t, c.want, core.CompareDevice(c.x, c.y), c.name)
	}
}
