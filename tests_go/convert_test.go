package tests_go

import (
	"math"
	"sort"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
)

// convBytes converts n elements of dtype from (bytes src, element stride
// sstride) into a new contiguous buffer of dtype to, through
// core.ConvertInto over plain headers.
func convBytes(t *testing.T, from, to core.DataType, src []byte, n, sstride int64) []byte {
	t.Helper()
	kd := to.ItemSize()
	out := make([]byte, max(n*kd, 1))
	if len(src) == 0 {
		src = make([]byte, 1)
	}
	sh := core.Header{Data: unsafe.Pointer(&src[0]), DType: from, Ndim: 1, Device: core.CPU}
	dh := core.Header{Data: unsafe.Pointer(&out[0]), DType: to, Ndim: 1, Device: core.CPU}
	if sstride < 0 {
		sh.Offset = (n - 1) * -sstride
	}
	require.NoError(t, core.ConvertInto(&dh, []int64{n}, []int64{1}, &sh, []int64{n}, []int64{sstride}))
	return out[:n*kd]
}

func f32Bytes(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		*(*float32)(unsafe.Pointer(&b[4*i])) = x
	}
	return b
}

func f64Bytes(v ...float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		*(*float64)(unsafe.Pointer(&b[8*i])) = x
	}
	return b
}

func f32sOf(b []byte) []float32 { return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4) }

var float8Types = []core.DataType{
	core.Float8E3M4, core.Float8E4M3, core.Float8E4M3B11FNUZ, core.Float8E4M3FN,
	core.Float8E4M3FNUZ, core.Float8E5M2, core.Float8E5M2FNUZ, core.Float8E8M0FNU,
}

// Known values of each float8 kind (ml_dtypes' finfo): the largest finite
// value, the smallest positive value, the NaN code and what inf becomes.
var float8Facts = map[core.DataType]struct {
	max, tiny float64
	nan, inf  uint8
}{
	core.Float8E3M4:        {15.5, 0.015625, 0x78, 0x70},
	core.Float8E4M3:        {240, 0.001953125, 0x7c, 0x78},
	core.Float8E4M3B11FNUZ: {30, 0x1p-13, 0x80, 0x80},
	core.Float8E4M3FN:      {448, 0.001953125, 0x7f, 0x7f},
	core.Float8E4M3FNUZ:    {240, 0x1p-10, 0x80, 0x80},
	core.Float8E5M2:        {57344, 0x1p-16, 0x7e, 0x7c},
	core.Float8E5M2FNUZ:    {57344, 0x1p-17, 0x80, 0x80},
	core.Float8E8M0FNU:     {0x1p127, 0x1p-127, 0xff, 0xff},
}

// Every float8 code point decodes to a value that encodes back to the same
// code (NaN codes to the kind's NaN); every midpoint between neighbours
// rounds to the even code and anything off the midpoint to the nearer one;
// overflow, inf, NaN and zero follow the kind.
func TestConvertFloat8Exhaustive(t *testing.T) {
	codes := make([]byte, 256)
	for i := range codes {
		codes[i] = byte(i)
	}
	for _, dt := range float8Types {
		t.Run(dt.String(), func(t *testing.T) {
			facts := float8Facts[dt]
			vals := f32sOf(convBytes(t, dt, core.Float32, codes, 256, 1))
			back := convBytes(t, core.Float32, dt, f32Bytes(vals...), 256, 1)
			type pt struct {
				v    float64
				code uint8
			}
			var finite []pt
			for c, v := range vals {
				if math.IsNaN(float64(v)) {
					assert.Equal(t, facts.nan, back[c]&^0x80|facts.nan&0x80, "code %#x: NaN", c)
					continue
				}
				assert.Equal(t, uint8(c), back[c], "code %#x (%v) round trip", c, v)
				if v >= 0 && !math.IsInf(float64(v), 0) && !(v == 0 && math.Signbit(float64(v))) {
					finite = append(finite, pt{float64(v), uint8(c)})
				}
			}
			sort.Slice(finite, func(i, j int) bool { return finite[i].v < finite[j].v })
			assert.Equal(t, facts.max, finite[len(finite)-1].v, "largest finite value")
			lo := finite[0].v
			if lo == 0 {
				lo = finite[1].v
			}
			assert.Equal(t, facts.tiny, lo, "smallest positive value")
			var probe []float32
			var want []uint8
			for i := 1; i < len(finite); i++ {
				a, b := finite[i-1], finite[i]
				mid := float32((a.v + b.v) / 2)
				if float64(mid) != (a.v+b.v)/2 || dt == core.Float8E8M0FNU && a.code == 0 {
					// (e8m0fnu below 2^-126 follows ml_dtypes' own rule:
					// tests_py/test_convert.py compares it)
					continue
				}
				even := a.code
				if (dt == core.Float8E8M0FNU && b.v > a.v) || (dt != core.Float8E8M0FNU && b.code&1 == 0) {
					even = b.code
				}
				probe = append(probe, mid, math.Nextafter32(mid, 0), math.Nextafter32(mid, float32(math.Inf(1))))
				want = append(want, even, a.code, b.code)
			}
			got := convBytes(t, core.Float32, dt, f32Bytes(probe...), int64(len(probe)), 1)
			for i := range probe {
				assert.Equal(t, want[i], got[i], "%v rounds to code %#x", probe[i], want[i])
			}
			over := convBytes(t, core.Float64, dt, f64Bytes(facts.max*4, math.Inf(1), math.NaN()), 3, 1)
			assert.Equal(t, []byte{facts.inf, facts.inf, facts.nan}, over, "overflow, inf, NaN")
			if dt != core.Float8E8M0FNU {
				z := convBytes(t, core.Float32, dt, f32Bytes(float32(math.Copysign(0, -1)), 0), 2, 1)
				wantNeg := uint8(0x80)
				if facts.nan == 0x80 {
					wantNeg = 0 // fnuz: no negative zero
				}
				assert.Equal(t, []byte{wantNeg, 0}, z, "-0.0 and 0.0")
			}
		})
	}
}

// float16 and bfloat16: every one of the 65536 codes survives a round trip
// through float32 and float64 (numpy keeps float16 NaN payloads).
func TestConvertHalfExhaustive(t *testing.T) {
	codes := make([]byte, 2*65536)
	for i := 0; i < 65536; i++ {
		*(*uint16)(unsafe.Pointer(&codes[2*i])) = uint16(i)
	}
	for _, c := range []struct {
		dt   core.DataType
		wide core.DataType
	}{{core.Float16, core.Float32}, {core.Float16, core.Float64}, {core.BFloat16, core.Float32}} {
		t.Run(c.dt.String()+"_"+c.wide.String(), func(t *testing.T) {
			w := convBytes(t, c.dt, c.wide, codes, 65536, 1)
			back := convBytes(t, c.wide, c.dt, w, 65536, 1)
			for i := 0; i < 65536; i++ {
				got := *(*uint16)(unsafe.Pointer(&back[2*i]))
				want := uint16(i)
				isNaN := i&0x7c00 == 0x7c00 && i&0x3ff != 0
				if c.dt == core.BFloat16 {
					isNaN = i&0x7f80 == 0x7f80 && i&0x7f != 0
					if isNaN {
						want = uint16(i)&0x8000 | 0x7fc0 // ml_dtypes' quiet NaN
					}
				}
				if isNaN && c.dt == core.Float16 && c.wide == core.Float64 {
					require.Equal(t, uint16(i), got, "float16 NaN payload %#x", i)
				}
				require.Equal(t, want, got, "code %#x", i)
			}
		})
	}
}

// Every pair of dtypes converts boundary values as numpy casts them (the
// expectations are written out; out-of-range float -> int is left out, as
// it is undefined in numpy).
func TestConvertPairsBoundary(t *testing.T) {
	vals := []float64{0, 1, -1, 2.5, -2.5, 100.75, 127, -128, 255}
	cases := []struct {
		to   core.DataType
		want []float64
	}{
		{core.Bool, []float64{0, 1, 1, 1, 1, 1, 1, 1, 1}},
		{core.Int8, []float64{0, 1, -1, 2, -2, 100, 127, -128, -1}},
		{core.Int16, []float64{0, 1, -1, 2, -2, 100, 127, -128, 255}},
		{core.Int32, []float64{0, 1, -1, 2, -2, 100, 127, -128, 255}},
		{core.Int64, []float64{0, 1, -1, 2, -2, 100, 127, -128, 255}},
		{core.Float16, []float64{0, 1, -1, 2.5, -2.5, 100.75, 127, -128, 255}},
		{core.BFloat16, []float64{0, 1, -1, 2.5, -2.5, 101, 127, -128, 255}},
		{core.Float8E4M3FN, []float64{0, 1, -1, 2.5, -2.5, 104, 128, -128, 256}},
		{core.Float32, vals},
		{core.Complex64, vals},
		{core.Complex128, vals},
	}
	// from every source dtype (float64 values through it, then to each)
	for _, from := range []core.DataType{core.Float64, core.Float32, core.Complex128, core.Float16} {
		src := convBytes(t, core.Float64, from, f64Bytes(vals...), int64(len(vals)), 1)
		for _, c := range cases {
			t.Run(from.String()+"->"+c.to.String(), func(t *testing.T) {
				out := convBytes(t, from, c.to, src, int64(len(vals)), 1)
				back := f64sOfAny(t, c.to, out)
				n := len(vals)
				if c.to == core.Int8 {
					n-- // 255 is out of int8's range: undefined in numpy
				}
				assert.Equal(t, c.want[:n], back[:n])
			})
		}
	}
}

// f64sOfAny reads a converted buffer back as float64 through ConvertInto
// (booleans as 0/1; complex as the real part).
func f64sOfAny(t *testing.T, dt core.DataType, b []byte) []float64 {
	n := int64(len(b)) / dt.ItemSize()
	out := convBytes(t, dt, core.Float64, b, n, 1)
	if dt == core.Float64 {
		out = b
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&out[0])), n)
}

// Integers: wrap-around between widths, sign extension, bool, rounding of
// big int64 to float32 (nearest even), strided and reversed sources.
func TestConvertIntegersAndLayouts(t *testing.T) {
	src := []int64{0, 1, -1, 1<<31 + 5, -(1 << 40), 1<<63 - 1, 1<<24 + 1, 1<<24 + 3}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&src[0])), 8*len(src))
	u8 := convBytes(t, core.Int64, core.Uint8, b, 8, 1)
	assert.Equal(t, []byte{0, 1, 255, 5, 0, 255, 1, 3}, u8)
	i32 := convBytes(t, core.Int64, core.Int32, b, 8, 1)
	assert.Equal(t, []int32{0, 1, -1, -(1 << 31) + 5, 0, -1, 1<<24 + 1, 1<<24 + 3}, unsafe.Slice((*int32)(unsafe.Pointer(&i32[0])), 8))
	f32 := f32sOf(convBytes(t, core.Int64, core.Float32, b, 8, 1))
	assert.Equal(t, []float32{0, 1, -1, 1 << 31, -(1 << 40), 1 << 63, 1 << 24, 1<<24 + 4}, f32)
	bo := convBytes(t, core.Int64, core.Bool, b, 8, 1)
	assert.Equal(t, []byte{0, 1, 1, 1, 1, 1, 1, 1}, bo)
	// every other element, and reversed
	assert.Equal(t, []byte{0, 255, 0, 1}, convBytes(t, core.Int64, core.Uint8, b, 4, 2))
	assert.Equal(t, []byte{3, 1, 255, 0, 5, 255, 1, 0}, convBytes(t, core.Int64, core.Uint8, b, 8, -1))
	// bool -> float: 0/1 whatever the byte
	assert.Equal(t, []float32{0, 1, 1}, f32sOf(convBytes(t, core.Bool, core.Float32, []byte{0, 1, 7}, 3, 1)))
	// complex -> real drops the imaginary part; -> bool looks at both
	c := []complex128{complex(2.5, 9), complex(0, 1), 0}
	cb := unsafe.Slice((*byte)(unsafe.Pointer(&c[0])), 48)
	assert.Equal(t, []float32{2.5, 0, 0}, f32sOf(convBytes(t, core.Complex128, core.Float32, cb, 3, 1)))
	assert.Equal(t, []byte{1, 1, 0}, convBytes(t, core.Complex128, core.Bool, cb, 3, 1))
	// NaN -> bool is true, -0.0 false
	assert.Equal(t, []byte{1, 0}, convBytes(t, core.Float64, core.Bool, f64Bytes(math.NaN(), math.Copysign(0, -1)), 2, 1))
}

// The contiguous rows of core/kernels (float64 -> float32, float32 ->
// bfloat16; AVX2 where the CPU has it) give the strided Go loops' results:
// compare a long row with the same values converted in short strided pieces.
func TestConvertVectorRowsMatchScalar(t *testing.T) {
	const n = 4096
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Ldexp(float64(i%977)-488.3, i%80-40) * (1 + float64(i)*1e-9)
	}
	v[7], v[9] = math.NaN(), math.Inf(-1)
	b64 := f64Bytes(v...)
	long := convBytes(t, core.Float64, core.Float32, b64, n, 1)
	for i := 0; i < n; i += 2 { // stride 2: the Go loop
		short := convBytes(t, core.Float64, core.Float32, b64[8*i:], 1, 1)
		require.Equal(t, short, long[4*i:4*i+4], "element %d", i)
	}
	long16 := convBytes(t, core.Float32, core.BFloat16, long, n, 1)
	for i := 0; i < n; i++ {
		short := convBytes(t, core.Float32, core.BFloat16, long[4*i:4*i+4], 1, 1)
		require.Equal(t, short, long16[2*i:2*i+2], "element %d", i)
	}
}

// Packed sub-byte dtypes are refused with the way out; equal dtypes copy.
func TestConvertRefusals(t *testing.T) {
	assert.False(t, core.CanConvert(core.Float32, core.Float4E2M1FN))
	assert.True(t, core.CanConvert(core.Float8E8M0FNU, core.Complex64))
	err := core.CheckConvert("astype()", core.Float32, core.Float6E2M3FN)
	require.Error(t, err)
	assert.ErrorIs(t, err, core.ErrDType)
	assert.Equal(t, core.ClassType, core.ClassOf(err))
	assert.Regexp(t, `^astype\(\): cannot convert float32 to float6_e2m3fn: .*ml_dtypes`, err.Error())
	assert.NoError(t, core.CheckConvert("astype()", core.Int8, core.Int8))
	a, err := core.Empty(core.Float64, 3, 2)
	require.NoError(t, err)
	defer a.Release()
	f, err := a.Float64s()
	require.NoError(t, err)
	copy(f, []float64{1.5, -2.5, 3, 4, 5, 6})
	b, err := a.AsType(core.Int16)
	require.NoError(t, err)
	defer b.Release()
	got, err := b.Int16s()
	require.NoError(t, err)
	assert.Equal(t, []int16{1, -2, 3, 4, 5, 6}, got)
	_, err = a.AsType(core.Float4E2M1FN)
	assert.ErrorIs(t, err, core.ErrDType)
}
