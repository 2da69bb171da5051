//go:build pyext

package pyext

/*
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/godlpack/godlpack/gofunc"
)

// The exports of the Go functions registered with package gofunc, called
// from gofunc.c: the C ABI of a call (slots in, results out) is gofunc's
// (gofunc/cabi.go); these only word its errors for the skin.

// gdgo_fn_floor does nothing: godlpack._native._bench_floor calls it with
// the GIL released, the least that any call of a registered function pays
// (make bench, group gofunc).
//
//export gdgo_fn_floor
func gdgo_fn_floor() C.int { return 0 }

// gdgo_fn_count closes the registry and returns how many functions the
// module offers, or -1 with the registrations that failed in msg.
//
//export gdgo_fn_count
func gdgo_fn_count(msg *C.char) (n C.int) {
	defer func() {
		if r := recover(); r != nil {
			writeMsg(msg, fmt.Sprintf("godlpack internal error (recovered Go panic: %v); please report it", r))
			n = -1
		}
	}()
	count, err := gofunc.Open()
	if err != nil {
		writeMsg(msg, err.Error())
		return -1
	}
	return C.int(count)
}

// gdgo_fn_describe fills d for function i (gofunc.DescribeC).
//
//export gdgo_fn_describe
func gdgo_fn_describe(i C.int, d *C.gd_fn_desc, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "import")
	gofunc.DescribeC(int(i), unsafe.Pointer(d))
	return 0
}

// gdgo_fn_meta writes the JSON description of every function
// (gofunc.MetaJSON) into *out (malloc'ed; the skin frees it).
//
//export gdgo_fn_meta
func gdgo_fn_meta(out **C.char, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "_gofuncs()")
	b, err := gofunc.MetaJSON(gofunc.Opened())
	if err != nil {
		return fail(msg, err)
	}
	*out = C.CString(string(b))
	return 0
}

// gdgo_fn_call calls function i with nargs arguments; res has room for its
// results. GD_FN_PENDING says that a function that takes a context.Context
// still runs after waitMs; *handle names it for gdgo_fn_wait.
//
//export gdgo_fn_call
func gdgo_fn_call(i C.int, args *C.gd_fn_val, nargs C.int, res *C.gd_fn_val, waitMs C.int, handle *C.int64_t,
	msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "gofunc")
	pending, h, err := gofunc.CallC(int(i), unsafe.Pointer(args), int(nargs), unsafe.Pointer(res),
		time.Duration(waitMs)*time.Millisecond)
	*handle = C.int64_t(h)
	return fnOutcome(pending, err, msg)
}

// gdgo_fn_wait waits up to waitMs for the call handle; cancel != 0 cancels
// its context first (Ctrl-C).
//
//export gdgo_fn_wait
func gdgo_fn_wait(handle C.int64_t, waitMs C.int, cancel C.int, res *C.gd_fn_val, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "gofunc")
	pending, err := gofunc.WaitC(int64(handle), time.Duration(waitMs)*time.Millisecond, cancel != 0, unsafe.Pointer(res))
	return fnOutcome(pending, err, msg)
}

func fnOutcome(pending bool, err error, msg *C.char) C.int {
	if err != nil {
		return fail(msg, err)
	}
	if pending {
		return C.GD_FN_PENDING
	}
	return 0
}

// gdgo_kit_open opens a kit's Go plugin (gofunc.LoadPlugin): its functions
// are [*first, *end) of the registry.
//
//export gdgo_kit_open
func gdgo_kit_open(path *C.char, first, end *C.int, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "_load_kit()")
	lo, hi, err := gofunc.LoadPlugin(C.GoString(path))
	if err != nil {
		return failAt(msg, "_load_kit()", err)
	}
	*first, *end = C.int(lo), C.int(hi)
	return 0
}
