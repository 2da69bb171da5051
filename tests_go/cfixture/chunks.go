package cfixture

/*
#cgo CFLAGS: -I${SRCDIR}/../../core
#include <stdlib.h>
#include "godlpack.h"
*/
import "C"

import "unsafe"

// Chunk is one chunk of core's plan (gd_chunks): its shape and the C-order
// position of its first element in the whole array.
type Chunk struct {
	Sub   []int64
	First int64
}

// Chunks is gd_chunks's plan for an operation over shape with elements of
// itemsize bytes, and gd_chunk_bytes.
func Chunks(shape []int64, itemsize int64) ([]Chunk, int64) {
	nd := len(shape)
	cshape := (*C.int64_t)(C.malloc(C.size_t(8 * (nd + 1))))
	defer C.free(unsafe.Pointer(cshape))
	copy(unsafe.Slice((*int64)(unsafe.Pointer(cshape)), nd), shape)
	strides := make([]int64, nd) // C order, in elements
	for j, s := nd-1, int64(1); j >= 0; j-- {
		strides[j] = s
		s *= shape[j]
	}
	cstr := (*C.int64_t)(C.malloc(C.size_t(8 * (nd + 1))))
	defer C.free(unsafe.Pointer(cstr))
	copy(unsafe.Slice((*int64)(unsafe.Pointer(cstr)), nd), strides)
	var it C.gd_chunks
	C.gd_chunks_init(&it, C.int32_t(nd), cshape, C.int64_t(itemsize))
	var sub [C.GD_MAX_NDIM]C.int64_t
	var out []Chunk
	for C.gd_chunks_next(&it, &sub[0]) != 0 {
		s := make([]int64, nd)
		for j := range s {
			s[j] = int64(sub[j])
		}
		out = append(out, Chunk{Sub: s, First: int64(C.gd_chunks_offset(&it, cstr))})
	}
	return out, int64(C.gd_chunk_bytes())
}
