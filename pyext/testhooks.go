//go:build pyext

package pyext

/*
#include "bridge.h"
*/
import "C"

import "runtime"

// Hidden test hooks (godlpack._native._test_panic, _test_go_gc), behind the
// gate of gocall.h like every export.

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

// gdgo_test_gc runs a Go garbage collection: work that needs the Go runtime
// (refused in a forked child by the gate, never reached there).
//
//export gdgo_test_gc
func gdgo_test_gc(msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "_test_go_gc()")
	runtime.GC()
	return 0
}
