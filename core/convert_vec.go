package core

/*
#include "convert_vec.h"
*/
import "C"

import "unsafe"

// vecMin is the row length from which a contiguous row goes to the C loops
// of convert_vec.c: shorter rows do not repay the cgo call.
const vecMin = 512

func vecF32BF16(dp, sp unsafe.Pointer, n int64) {
	C.gd_vec_f32_bf16((*C.uint16_t)(dp), (*C.uint32_t)(sp), C.int64_t(n))
}

func vecF64F32(dp, sp unsafe.Pointer, n int64) {
	C.gd_vec_f64_f32((*C.float)(dp), (*C.double)(sp), C.int64_t(n))
}
