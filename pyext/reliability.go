//go:build pyext

// reliability.go: the Go half of the reliability hooks (issue 6); the C half
// is reliability.c.
//
//   - gdgo_copy_into: one chunk of a chunked copy (core.CopyInto), so the C
//     skin can re-take the GIL and check signals between chunks of a long
//     copy (Ctrl-C within milliseconds).
//   - gdgo_after_fork: a forked child (os.register_at_fork) runs kernels on
//     the calling goroutine and never starts a GC (the threads that would
//     stop the world are gone in the child: a GC there hangs forever).
//   - gdgo_test_panic / gdgo_test_gc: hidden test hooks (godlpack._native.
//     _test_panic, _test_go_gc) proving that a Go panic becomes RuntimeError
//     and that work needing the Go runtime is refused in a forked child.
package main

/*
#include "bridge.h"
*/
import "C"

import (
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"unsafe"

	"github.com/godlpack/godlpack/core"
)

// forkedChild is set in a forked child by gdgo_after_fork.
var forkedChild atomic.Bool

// forkMsg names the way out; reliability.c uses the same words.
const forkMsg = "this process was forked after godlpack started Go; the Go runtime cannot run its garbage collector " +
	"or start threads in a forked child. Use the 'spawn' or 'forkserver' start method " +
	"(multiprocessing.get_context(\"forkserver\"))"

// gdgo_copy_into copies src (shape, sstrides) into dst (same shape,
// dstrides): one chunk of Array.copy()/fill() done in pieces.
//
//export gdgo_copy_into
func gdgo_copy_into(dst *C.gd_header, dstrides *C.int64_t, src *C.gd_header, shape, sstrides *C.int64_t,
	msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "copy()")
	D, S := hdr(dst), hdr(src)
	nd := int(S.Ndim)
	sh := dims(shape, nd)
	if err := core.CopyInto(D, sh, dims(dstrides, nd), S, sh, dims(sstrides, nd)); err != nil {
		return failAt(msg, "copy()", err)
	}
	return 0
}

// gdgo_after_fork runs in a forked child before any other Go call there:
// serial kernels, and no garbage collection (allocation still works; the
// child's Go heap only grows, which reliability.c bounds).
//
//export gdgo_after_fork
func gdgo_after_fork() {
	defer func() { _ = recover() }()
	forkedChild.Store(true)
	core.SetSerial(true)
	debug.SetGCPercent(-1)
}

// gdgo_test_panic panics inside an export: guard turns it into RuntimeError.
//
//export gdgo_test_panic
func gdgo_test_panic(msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "_test_panic()")
	var p *int
	if msg != nil {
		panic("deliberate test panic")
	}
	return C.int(*p)
}

// gdgo_test_gc runs a Go garbage collection: work that needs the Go runtime.
// In a forked child it is refused (RuntimeError) instead of hanging.
//
//export gdgo_test_gc
func gdgo_test_gc(msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "_test_go_gc()")
	if forkedChild.Load() {
		writeMsg(msg, "_test_go_gc(): "+forkMsg)
		return C.GD_ERR_RUNTIME
	}
	runtime.GC()
	return 0
}

var _ = unsafe.Pointer(nil)
