//go:build pyext

// reliability.go: the Go half of the reliability hooks (issue 6); the C half
// is reliability.c.
//
//   - gdgo_copy_into: one chunk of a chunked copy (core.CopyInto), so the C
//     skin can re-take the GIL and check signals between chunks of a long
//     copy (Ctrl-C within milliseconds).
//   - gdgo_fork_prepare / gdgo_fork_parent: the pthread_atfork prepare and
//     parent handlers of reliability.c (GC off across fork(), the calling
//     thread's M and P for the fork-hold of the C side).
//   - gdgo_after_fork: a forked child (os.register_at_fork) runs kernels on
//     the calling goroutine and never starts a GC (the threads that would
//     stop the world are gone in the child: a GC there hangs forever).
//   - gdgo_test_panic / gdgo_test_gc: hidden test hooks (godlpack._native.
//     _test_panic, _test_go_gc) proving that a Go panic becomes RuntimeError
//     and that work needing the Go runtime is refused in a forked child.
package main

/*
#include "bridge.h"
extern int gd_in_fork_child; // reliability.c
*/
import "C"

import (
	"fmt"
	"math"
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

// runtimeGetm is runtime.getm: the current M as an integer. The runtime
// keeps this linkname working on purpose (go.dev/issue/67401).
//
//go:linkname runtimeGetm runtime.getm
func runtimeGetm() uintptr

// GC settings saved by gdgo_fork_prepare, restored by gdgo_fork_parent.
// Only touched between the prepare and parent/child handlers, which
// reliability.c serializes with a mutex.
var (
	forkGCOff      bool
	forkSavedGC    int
	forkSavedLimit int64
)

// gdgo_fork_prepare runs in the pthread_atfork prepare handler, on the
// thread that calls fork(). first != 0 on the first call of a fork: the GC is
// turned off (percent and memory limit) until gdgo_fork_parent, waiting for a
// running mark phase to end, so that no GC is in progress when fork() copies
// the process and none is needed in the child. Every call returns the
// calling thread's M (runtime.getm) and, in layout, the runtime offsets
// reliability.c needs (all 0 when this Go version's layout is not known:
// then the C side holds nothing across fork).
//
// Returning from this call leaves the M "in a syscall" with a P, which is
// what the C side then pins.
//
//export gdgo_fork_prepare
func gdgo_fork_prepare(first C.int, layout *C.int64_t) (m C.uintptr_t) {
	defer func() { _ = recover() }()
	if first != 0 && !forkGCOff {
		forkSavedGC = debug.SetGCPercent(-1) // waits for a running mark phase
		forkSavedLimit = debug.SetMemoryLimit(math.MaxInt64)
		forkGCOff = true
		// A full cycle now, with its sweep finished (runtime.GC returns only
		// then): no background sweeper is left freeing spans under the heap
		// lock when fork() copies the process, and the child, which
		// allocates for its error messages, may need that lock.
		runtime.GC()
		warmForkChild()
	}
	l := unsafe.Slice((*int64)(unsafe.Pointer(layout)), len(forkLayout))
	copy(l, forkLayout[:])
	return C.uintptr_t(runtimeGetm())
}

// forkWarmSink keeps warmForkChild's result alive.
var forkWarmSink string

// warmForkChild runs fmt (the pool behind every error message) once on this
// P with the GC already off. A sync.Pool's first use on a P, and its first
// use after a GC emptied the pools, goes through Pool.pinSlow, which calls
// runtime.GOMAXPROCS, which takes sched.lock: a lock some runtime thread of
// the parent (sysmon) may hold at the instant of fork(), and then holds
// forever in the child. A forked child hung there on its first error
// (gdb: pinSlow -> GOMAXPROCS -> lock2 -> futexsleep). The child runs on this
// very P (pinned across fork), and no GC can empty the pool before fork.
func warmForkChild() {
	forkWarmSink = fmt.Sprintf("%s %d %v", "warm", 1, core.ErrShape)
	forkWarmSink = fmt.Errorf("%w: %d", core.ErrShape, 2).Error()
}

// gdgo_fork_parent runs in the pthread_atfork parent handler: the GC
// settings of before the fork come back.
//
//export gdgo_fork_parent
func gdgo_fork_parent() {
	defer func() { _ = recover() }()
	if forkGCOff {
		debug.SetMemoryLimit(forkSavedLimit)
		debug.SetGCPercent(forkSavedGC)
		forkGCOff = false
	}
}

// gdgo_after_fork runs in a forked child before any other Go call there:
// serial kernels, and no garbage collection (allocation still works; the
// child's Go heap only grows, which reliability.c bounds). When the prepare
// handler ran, the GC is already off (inherited from the parent) and nothing
// here takes a runtime lock: a lock held by a parent thread at fork() time is
// held forever in the child.
//
//export gdgo_after_fork
func gdgo_after_fork() {
	defer func() { _ = recover() }()
	forkedChild.Store(true)
	core.SetSerial(true)
	if !forkGCOff {
		debug.SetGCPercent(-1)
	}
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
	if forkedChild.Load() || C.gd_in_fork_child != 0 { // the C flag: also a fork() by C code
		writeMsg(msg, "_test_go_gc(): "+forkMsg)
		return C.GD_ERR_RUNTIME
	}
	runtime.GC()
	return 0
}
