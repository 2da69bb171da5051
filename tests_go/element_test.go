package tests_go

import (
	"encoding/binary"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/tests_go/cfixture"
)

// The element codecs of core/fastpath.c (gd_elem_read / gd_elem_write: the
// skin's a[i], a[i] = v, tolist and fill without Go) against core.ConvertInto,
// which they twin for one element: every code of the 1- and 2-byte dtypes,
// and writes of every representable value, its neighbours and the midpoints.

var elemDTypes = []core.DataType{
	core.Bool, core.Int8, core.Int16, core.Int32, core.Int64, core.Uint8, core.Uint16, core.Uint32, core.Uint64,
	core.Float16, core.Float32, core.Float64, core.BFloat16, core.Complex64, core.Complex128,
	core.Float8E3M4, core.Float8E4M3, core.Float8E4M3B11FNUZ, core.Float8E4M3FN, core.Float8E4M3FNUZ,
	core.Float8E5M2, core.Float8E5M2FNUZ, core.Float8E8M0FNU,
}

// convertAll is core.ConvertInto of the n elements in src (dtype from) to to.
func convertAll(t *testing.T, from core.DataType, src []byte, to core.DataType) []byte {
	t.Helper()
	n := int64(len(src)) / from.ItemSize()
	a, err := core.Empty(from, n)
	require.NoError(t, err)
	defer a.Release()
	b, err := core.Empty(to, n)
	require.NoError(t, err)
	defer b.Release()
	ab, err := a.Bytes()
	require.NoError(t, err)
	copy(ab, src)
	ha, hb := a.Header(), b.Header()
	sh, st := []int64{n}, []int64{1}
	require.NoError(t, core.ConvertInto(&hb, sh, st, &ha, sh, st))
	bb, err := b.Bytes()
	require.NoError(t, err)
	return append([]byte(nil), bb...)
}

// goKind is the dtype gd_elem's kind reads into, as core converts to it.
func goKind(kind int) core.DataType {
	switch kind {
	case cfixture.ElemBool, cfixture.ElemInt:
		return core.Int64
	case cfixture.ElemUint:
		return core.Uint64
	case cfixture.ElemComplex:
		return core.Complex128
	}
	return core.Float64
}

// samples is every code of a 1- or 2-byte dtype, else random bytes.
func samples(dt core.DataType, rng *rand.Rand) []byte {
	is := int(dt.ItemSize())
	n := 1 << (8 * is)
	if is > 2 {
		n = 4096
	}
	out := make([]byte, n*is)
	for i := 0; i < n; i++ {
		if is <= 2 {
			out[i*is] = byte(i)
			if is == 2 {
				out[i*is+1] = byte(i >> 8)
			}
		} else {
			rng.Read(out[i*is : (i+1)*is])
		}
	}
	if dt == core.Bool { // only 0 and 1 are bools
		for i := range out {
			out[i] &= 1
		}
	}
	return out
}

func sameFloat(a, b float64) bool {
	return a == b && math.Signbit(a) == math.Signbit(b) || math.IsNaN(a) && math.IsNaN(b)
}

func TestElemReadIsConvertInto(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(1))
	for _, dt := range elemDTypes {
		kind := cfixture.ElemKind(dt)
		require.NotEqual(t, cfixture.ElemNone, kind, dt.String())
		src := samples(dt, rng)
		is := int(dt.ItemSize())
		want := convertAll(t, dt, src, goKind(kind))
		bad := 0
		for k := 0; k*is < len(src) && bad < 5; k++ {
			e := cfixture.ElemRead(dt, src[k*is:(k+1)*is])
			w := want[k*int(goKind(kind).ItemSize()):]
			ok := true
			switch kind {
			case cfixture.ElemBool, cfixture.ElemInt:
				ok = e.I == int64(binary.LittleEndian.Uint64(w))
			case cfixture.ElemUint:
				ok = e.U == binary.LittleEndian.Uint64(w)
			case cfixture.ElemReal:
				ok = sameFloat(e.Re, math.Float64frombits(binary.LittleEndian.Uint64(w)))
			case cfixture.ElemComplex:
				ok = sameFloat(e.Re, math.Float64frombits(binary.LittleEndian.Uint64(w))) &&
					sameFloat(e.Im, math.Float64frombits(binary.LittleEndian.Uint64(w[8:])))
			}
			if !ok {
				bad++
				t.Errorf("%s: gd_elem_read(% x) = %+v; core.ConvertInto gives % x", dt, src[k*is:(k+1)*is], e, w[:goKind(kind).ItemSize()])
			}
		}
	}
}

// realInputs is every value of the floats below 32 bits, their neighbours
// and midpoints, NaNs of every kind, and the edges of float32.
func realInputs(t *testing.T) []float64 {
	var xs []float64
	for _, dt := range elemDTypes {
		if cfixture.ElemKind(dt) != cfixture.ElemReal || dt.ItemSize() > 2 {
			continue
		}
		vals := convertAll(t, dt, samples(dt, nil), core.Float64)
		var prev float64
		for k := 0; k < len(vals); k += 8 {
			v := math.Float64frombits(binary.LittleEndian.Uint64(vals[k:]))
			xs = append(xs, v, math.Nextafter(v, math.Inf(1)), math.Nextafter(v, math.Inf(-1)), (v+prev)/2)
			prev = v
		}
	}
	// NaNs of both signs, quiet and signalling, with payloads: their bits must agree too
	for _, b := range []uint64{0x7ff8000000000000, 0xfff8000000000000, 0x7ff0000000000001, 0xfff4000000000000,
		0x7ffc000000000123, 0x7ff8020000000000} {
		xs = append(xs, math.Float64frombits(b))
	}
	return append(xs, 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.MaxFloat32, 1e300, -1e300)
}

func TestElemWriteIsConvertInto(t *testing.T) {
	t.Parallel()
	reals := realInputs(t)
	src := make([]byte, 8*len(reals))
	for k, x := range reals {
		binary.LittleEndian.PutUint64(src[8*k:], math.Float64bits(x))
	}
	for _, dt := range elemDTypes {
		if cfixture.ElemKind(dt) != cfixture.ElemReal {
			continue
		}
		want := convertAll(t, core.Float64, src, dt)
		is, bad := int(dt.ItemSize()), 0
		for k, x := range reals {
			got, rc := cfixture.ElemWrite(dt, cfixture.Elem{Kind: cfixture.ElemReal, Re: x})
			require.Zero(t, rc)
			w := want[k*is : (k+1)*is]
			if string(got) != string(w) && bad < 5 {
				bad++
				t.Errorf("%s: gd_elem_write(%v) = % x; core.ConvertInto gives % x", dt, x, got, w)
			}
		}
	}
}

func TestElemWriteIntegers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		dt   core.DataType
		in   cfixture.Elem
		want []byte
		rc   int
	}{
		{core.Int8, cfixture.Elem{Kind: cfixture.ElemInt, I: -128}, []byte{0x80}, 0},
		{core.Int8, cfixture.Elem{Kind: cfixture.ElemInt, I: 128}, nil, cfixture.ElemERange},
		{core.Int8, cfixture.Elem{Kind: cfixture.ElemInt, I: -129}, nil, cfixture.ElemERange},
		{core.Int16, cfixture.Elem{Kind: cfixture.ElemInt, I: -2}, []byte{0xfe, 0xff}, 0},
		{core.Int32, cfixture.Elem{Kind: cfixture.ElemInt, I: 1 << 31}, nil, cfixture.ElemERange},
		{core.Int64, cfixture.Elem{Kind: cfixture.ElemInt, I: math.MinInt64}, []byte{0, 0, 0, 0, 0, 0, 0, 0x80}, 0},
		{core.Int64, cfixture.Elem{Kind: cfixture.ElemUint, U: 1 << 63}, nil, cfixture.ElemERange},
		{core.Uint8, cfixture.Elem{Kind: cfixture.ElemUint, U: 255}, []byte{0xff}, 0},
		{core.Uint8, cfixture.Elem{Kind: cfixture.ElemUint, U: 256}, nil, cfixture.ElemERange},
		{core.Uint16, cfixture.Elem{Kind: cfixture.ElemInt, I: -1}, nil, cfixture.ElemERange},
		{core.Uint32, cfixture.Elem{Kind: cfixture.ElemInt, I: 7}, []byte{7, 0, 0, 0}, 0},
		{core.Uint64, cfixture.Elem{Kind: cfixture.ElemUint, U: math.MaxUint64}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 0},
		{core.Bool, cfixture.Elem{Kind: cfixture.ElemBool, I: 1}, []byte{1}, 0},
		{core.Float32, cfixture.Elem{Kind: cfixture.ElemInt, I: 1}, nil, cfixture.ElemEKind},
		{core.Int32, cfixture.Elem{Kind: cfixture.ElemReal, Re: 1}, nil, cfixture.ElemEKind},
		{core.DataType{Code: core.KDLInt, Bits: 4, Lanes: 1}, cfixture.Elem{Kind: cfixture.ElemInt, I: 1}, nil, cfixture.ElemEKind},
	}
	for _, c := range cases {
		got, rc := cfixture.ElemWrite(c.dt, c.in)
		assert.Equal(t, c.rc, rc, "%s %+v", c.dt, c.in)
		if c.rc == 0 {
			assert.Equal(t, c.want, got, "%s %+v", c.dt, c.in)
		}
	}
}

func TestBufferFormats(t *testing.T) {
	t.Parallel()
	for _, dt := range elemDTypes {
		f := cfixture.BufferFormat(dt)
		if f == "" {
			continue
		}
		back, ok := cfixture.DTypeFromFormat(f, dt.ItemSize())
		assert.True(t, ok && back == dt, "%s -> %q -> %v", dt, f, back)
	}
	cases := []struct {
		format   string
		itemsize int64
		want     core.DataType
		ok       bool
	}{
		{"<d", 8, core.Float64, true}, {"=Zf", 8, core.Complex64, true}, {"l", 8, core.Int64, true},
		{"L", 4, core.Uint32, true}, {">B", 1, core.Uint8, true}, {">i", 4, core.DataType{}, false},
		{"d", 4, core.DataType{}, false}, {"ii", 8, core.DataType{}, false}, {"", 1, core.DataType{}, false},
	}
	for _, c := range cases {
		got, ok := cfixture.DTypeFromFormat(c.format, c.itemsize)
		assert.Equal(t, c.ok, ok, c.format)
		if c.ok {
			assert.Equal(t, c.want, got, c.format)
		}
	}
	assert.Equal(t, "", cfixture.BufferFormat(core.BFloat16), "a buffer has no bfloat16 format")
}
