package cfixture

/*
#cgo CFLAGS: -I${SRCDIR}/../../core
#include "godlpack.h"
*/
import "C"

import "unsafe"

// Probe is gd_probe_new: a counting copy of managed tensor m, and how many
// times its deleter has run so far.
func Probe(m unsafe.Pointer, versioned bool) (unsafe.Pointer, func() int64) {
	var calls *C.int64_t
	v := C.int(0)
	if versioned {
		v = 1
	}
	p := C.gd_probe_new(m, v, &calls)
	return p, func() int64 { return int64(C.gd_probe_calls(calls)) }
}

// Patch is gd_probe_patch: m's deleter counted in place (m keeps its own
// struct), and how many times it has run so far.
func Patch(m unsafe.Pointer, versioned bool) func() int64 {
	v := C.int(0)
	if versioned {
		v = 1
	}
	calls := C.gd_probe_patch(m, v)
	return func() int64 { return int64(C.gd_probe_calls(calls)) }
}
