package tests_go

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/godlpack/godlpack/tests_go/cfixture"
)

// core/buffer.c: which buffer-protocol views asarray() takes, as what
// tensor, and the refusals it words.
func TestBufferTensor(t *testing.T) {
	t.Parallel()
	f64 := [3]int{2, 64, 1}
	for _, c := range []struct {
		name string
		v    cfixture.BufferView
		want cfixture.BytesAs
	}{
		{"bytes: flat, no shape", cfixture.BufferView{Len: 5, Itemsize: 1, Ndim: 1},
			cfixture.BytesAs{DType: [3]int{1, 8, 1}, Shape: []int64{5}}},
		{"a scalar buffer", cfixture.BufferView{Len: 8, Itemsize: 8, Format: "d"}, cfixture.BytesAs{DType: f64}},
		{"2-d, C order without strides", cfixture.BufferView{Len: 48, Itemsize: 8, Format: "<d", Ndim: 2,
			Shape: []int64{2, 3}}, cfixture.BytesAs{DType: f64, Shape: []int64{2, 3}}},
		{"byte strides become element strides", cfixture.BufferView{Len: 48, Itemsize: 8, Format: "d", Ndim: 2,
			Shape: []int64{3, 2}, Strides: []int64{8, -24}},
			cfixture.BytesAs{DType: f64, Shape: []int64{3, 2}, Strides: []int64{1, -3}}},
		{"complex", cfixture.BufferView{Len: 16, Itemsize: 16, Format: "Zd", Ndim: 1, Shape: []int64{1}},
			cfixture.BytesAs{DType: [3]int{5, 128, 1}, Shape: []int64{1}}},
		{"big-endian", cfixture.BufferView{Len: 8, Itemsize: 8, Format: ">d", Ndim: 1, Shape: []int64{1}},
			cfixture.BytesAs{Err: "asarray(): buffer format '>d' (itemsize 8) is not supported; use a native-endian " +
				"bool, integer, float or complex buffer"}},
		{"a struct format", cfixture.BufferView{Len: 8, Itemsize: 8, Format: "ii", Ndim: 1, Shape: []int64{1}},
			cfixture.BytesAs{Err: "asarray(): buffer format 'ii' (itemsize 8) is not supported; use a native-endian " +
				"bool, integer, float or complex buffer"}},
		{"suboffsets", cfixture.BufferView{Len: 8, Itemsize: 1, Ndim: 1, Shape: []int64{8}, Suboffsets: true},
			cfixture.BytesAs{Err: "asarray(): buffers with suboffsets are not supported; copy the data to a " +
				"contiguous buffer first"}},
		{"too many dimensions", cfixture.BufferView{Len: 1, Itemsize: 1, Ndim: 65},
			cfixture.BytesAs{Err: "asarray(): too many dimensions in the buffer (65; at most 64)"}},
		{"a stride between elements", cfixture.BufferView{Len: 16, Itemsize: 8, Format: "d", Ndim: 1,
			Shape: []int64{1}, Strides: []int64{12}},
			cfixture.BytesAs{Err: "asarray(): byte stride 12 is not a multiple of the itemsize 8; godlpack strides " +
				"are in elements: pass copy=True or make the buffer contiguous"}},
	} {
		assert.Equal(t, c.want, cfixture.BufferTensor(c.v), c.name)
	}
}

// core/buffer.c: the bytes of a pickle as the pickled dtype, shape and
// order, and the refusals of what pickle.dumps() cannot have made.
func TestBytesTensor(t *testing.T) {
	t.Parallel()
	f32, i4 := [3]int{2, 32, 1}, [3]int{0, 4, 1}
	const entry = "pickle.loads(): "
	for _, c := range []struct {
		name            string
		nbytes          int64
		dt              [3]int
		dims            []int64
		ndim            int32
		fortran, padded bool
		want            cfixture.BytesAs
	}{
		{"C order", 24, f32, []int64{2, 3}, 2, false, false, cfixture.BytesAs{DType: f32, Shape: []int64{2, 3}}},
		{"Fortran order", 24, f32, []int64{2, 3}, 2, true, false,
			cfixture.BytesAs{DType: f32, Shape: []int64{2, 3}, Strides: []int64{1, 2}}},
		{"Fortran, sizes 1 do not grow the strides", 8, f32, []int64{2, 1}, 2, true, false,
			cfixture.BytesAs{DType: f32, Shape: []int64{2, 1}, Strides: []int64{1, 2}}},
		{"0-d", 4, f32, nil, 0, false, false, cfixture.BytesAs{DType: f32}},
		{"padded sub-byte", 3, i4, []int64{3}, 1, false, true, cfixture.BytesAs{DType: i4, Shape: []int64{3}}},
		{"packed sub-byte", 2, i4, []int64{4}, 1, false, false,
			cfixture.BytesAs{Err: entry + "packed sub-byte dtypes cannot be unpickled; pickle them padded"}},
		{"too few bytes", 20, f32, []int64{2, 3}, 2, false, false, cfixture.BytesAs{Err: entry + "the data holds 20 " +
			"bytes, but the pickled shape needs 24; pass the buffers pickle.dumps() handed out, in order"}},
		{"a negative dimension", 0, f32, []int64{-1}, 1, false, false,
			cfixture.BytesAs{Err: entry + "negative dimension -1 in the shape"}},
		{"an overflowing shape", 0, f32, []int64{1 << 40, 1 << 40}, 2, false, false,
			cfixture.BytesAs{Err: entry + "the pickled shape spans more than 2**63 bytes; pass what pickle.dumps() made"}},
		{"too many dimensions", 0, f32, nil, -1, false, false,
			cfixture.BytesAs{Err: entry + "more than 64 dimensions"}},
		{"a crafted dtype of 0 bits", 0, [3]int{0, 0, 1}, []int64{4}, 1, false, false, cfixture.BytesAs{Err: entry +
			"the pickled dtype (code 0, bits 0, lanes 1) is none of godlpack's; pass what pickle.dumps() made"}},
		{"a crafted dtype code", 4, [3]int{99, 8, 1}, []int64{4}, 1, false, false, cfixture.BytesAs{Err: entry +
			"the pickled dtype (code 99, bits 8, lanes 1) is none of godlpack's; pass what pickle.dumps() made"}},
	} {
		got := cfixture.BytesTensor(c.nbytes, c.dt, c.dims, c.ndim, c.fortran, c.padded)
		assert.Equal(t, c.want, got, c.name)
	}
}
