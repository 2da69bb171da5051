//go:build pyext && godlpack_probes

package pyext

/*
#cgo CFLAGS: -DGD_PROBES=1
#include "bridge.h"
*/
import "C"

import (
	"runtime"

	_ "github.com/godlpack/godlpack/internal/probes" // the _gofunc_* probes of the tests
)

// The test probes of a module built with the godlpack_probes tag
// (GODLPACK_PROBES=1 at build time; make build sets it, a release wheel
// does not): the Go functions of internal/probes, and the hooks
// godlpack._native._test_panic and _test_go_gc, whose C side and table
// rows GD_PROBES enables (pyext/fork.c, pyspec_gen.c, gocall_gen.h). They
// go through the gate of gocall.h like every export.

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
