package kernels

import (
	"sync"
	"sync/atomic"
)

// parallelMin is the byte size from which kernels use several goroutines.
const parallelMin = 4 << 20

var serialOnly atomic.Bool

// SetSerial forces every kernel to run on the calling goroutine when on is
// true: for a Go program that must not start goroutines, and for the tests,
// which cover the serial path with it.
func SetSerial(on bool) { serialOnly.Store(on) }

// Serial reports whether kernels must stay on the calling goroutine.
func Serial() bool { return serialOnly.Load() }

// splitRange runs do over w near-equal parts of [start, stop): the first on
// the calling goroutine, the others on goroutines of their own; it returns
// when all are done. The parallel paths of copies, fills, conversions and
// comparisons share it. A caller passes a closure over a copy of its plan,
// so that the plan itself stays on the stack on its serial path.
func splitRange(start, stop, w int64, do func(lo, hi int64)) {
	chunk := (stop - start + w - 1) / w
	var wg sync.WaitGroup
	for lo := start + chunk; lo < stop; lo += chunk {
		wg.Go(func() { do(lo, min(lo+chunk, stop)) })
	}
	do(start, min(start+chunk, stop))
	wg.Wait()
}
