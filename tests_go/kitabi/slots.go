// Package kitabi checks gofunc's C ABI (gofunc/cabi.go) the way the
// extension's skin uses it: C slots in, one call, C slots out. Its own test
// binary, because gofunc.Open closes the registry.
package kitabi

/*
#cgo CFLAGS: -I${SRCDIR}/../../core
#include <stdlib.h>
#include <string.h>
#include "godlpack.h"
*/
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/core"
)

// Slots is C memory for n gd_fn_val slots, with room for result arrays'
// shapes and strides.
type Slots struct {
	p    *C.gd_fn_val
	n    int
	dims *C.int64_t
}

// NewSlots allocates n zeroed slots; Free releases them.
func NewSlots(n int) *Slots {
	s := &Slots{n: n}
	s.p = (*C.gd_fn_val)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.gd_fn_val{}))))
	s.dims = (*C.int64_t)(C.calloc(C.size_t(2*n*core.MaxNdim), 8))
	for k := range s.slice() {
		c := &s.slice()[k]
		c.shape = (*C.int64_t)(unsafe.Add(unsafe.Pointer(s.dims), 8*2*k*core.MaxNdim))
		c.strides = (*C.int64_t)(unsafe.Add(unsafe.Pointer(c.shape), 8*core.MaxNdim))
	}
	return s
}

func (s *Slots) slice() []C.gd_fn_val { return unsafe.Slice(s.p, s.n) }

// Ptr is what CallC takes.
func (s *Slots) Ptr() unsafe.Pointer { return unsafe.Pointer(s.p) }

// Free releases the slots' memory (not what results hold).
func (s *Slots) Free() {
	C.free(unsafe.Pointer(s.p))
	C.free(unsafe.Pointer(s.dims))
}

// Kind of slot k (0: None or empty).
func (s *Slots) Kind(k int) int { return int(s.slice()[k].kind) }

// SetFloat, SetInt and SetString fill argument slot k.
func (s *Slots) SetFloat(k int, f float64) {
	c := &s.slice()[k]
	c.kind, c.f = C.GD_FN_FLOAT, C.double(f)
}
func (s *Slots) SetInt(k int, i int64) { c := &s.slice()[k]; c.kind, c.i = C.GD_FN_INT, C.int64_t(i) }

// SetBool and SetComplex fill argument slot k.
func (s *Slots) SetBool(k int, b bool) {
	c := &s.slice()[k]
	c.kind, c.i = C.GD_FN_BOOL, 0
	if b {
		c.i = 1
	}
}
func (s *Slots) SetComplex(k int, z complex128) {
	c := &s.slice()[k]
	c.kind, c.f, c.im = C.GD_FN_COMPLEX, C.double(real(z)), C.double(imag(z))
}

// SetString lends s's bytes to slot k until FreeStrings.
func (s *Slots) SetString(k int, v string) {
	c := &s.slice()[k]
	c.kind, c.s, c.n = C.GD_FN_STRING, C.CString(v), C.int64_t(len(v))
}

// SetArray lends the array described by h, shape and strides to slot k.
func (s *Slots) SetArray(k int, h core.Header, shape, strides []int64) {
	c := &s.slice()[k]
	c.kind = C.GD_FN_ARRAY
	h.Ndim = int32(len(shape))
	*(*core.Header)(unsafe.Pointer(&c.h)) = h
	copy(unsafe.Slice((*int64)(unsafe.Pointer(c.shape)), core.MaxNdim), shape)
	copy(unsafe.Slice((*int64)(unsafe.Pointer(c.strides)), core.MaxNdim), strides)
}

// Float, Int and String read result slot k; String frees its bytes.
func (s *Slots) Float(k int) float64 { return float64(s.slice()[k].f) }
func (s *Slots) Int(k int) int64     { return int64(s.slice()[k].i) }

// Complex reads result slot k.
func (s *Slots) Complex(k int) complex128 {
	c := &s.slice()[k]
	return complex(float64(c.f), float64(c.im))
}
func (s *Slots) String(k int) string {
	c := &s.slice()[k]
	v := C.GoStringN(c.s, C.int(c.n))
	C.free(unsafe.Pointer(c.s))
	return v
}

// Array reads result slot k: its header (holding an owner reference the
// caller releases) and shape.
func (s *Slots) Array(k int) (core.Header, []int64) {
	c := &s.slice()[k]
	h := *(*core.Header)(unsafe.Pointer(&c.h))
	return h, append([]int64(nil), unsafe.Slice((*int64)(unsafe.Pointer(c.shape)), int(h.Ndim))...)
}

// Owner is the owner of result slot k's array (the reference Array reads).
func (s *Slots) Owner(k int) *core.Owner {
	return (*core.Header)(unsafe.Pointer(&s.slice()[k].h)).Owner
}

// Describe is gofunc.DescribeC's gd_fn_desc, read back.
func Describe(describe func(unsafe.Pointer)) (name string, kinds []int, optional []bool) {
	var d C.gd_fn_desc
	describe(unsafe.Pointer(&d))
	for k := 0; k < int(d.nparams); k++ {
		kinds = append(kinds, int(d.kinds[k]))
		optional = append(optional, d.optional[k] != 0)
	}
	return C.GoString(d.name), kinds, optional
}
