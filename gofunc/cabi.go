package gofunc

/*
#cgo CFLAGS: -I${SRCDIR}/../core
#include <stdlib.h>
#include "godlpack.h"
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/godlpack/godlpack/core"
)

// The C side of a call: the extension's skin turns the Python arguments
// into gd_fn_val slots (core/godlpack.h: arrays described in C by the
// import fast path, or by core once) and makes ONE call into Go, which
// lends them to the function as borrowed Arrays, runs it and writes its
// results back into slots. A function that takes a context.Context runs on
// a goroutine instead, so that the skin can check for Ctrl-C between waits
// (WaitC) and cancel the context.

var (
	_ = [1]struct{}{}[C.GD_FN_ARRAY-int64(KindArray)]
	_ = [1]struct{}{}[C.GD_FN_INT-int64(KindInt)]
	_ = [1]struct{}{}[C.GD_FN_FLOAT-int64(KindFloat)]
	_ = [1]struct{}{}[C.GD_FN_BOOL-int64(KindBool)]
	_ = [1]struct{}{}[C.GD_FN_COMPLEX-int64(KindComplex)]
	_ = [1]struct{}{}[C.GD_FN_STRING-int64(KindString)]
	_ = [1]struct{}{}[C.GD_FN_INTS-int64(KindInts)]
	_ = [1]struct{}{}[C.GD_FN_CONTEXT-int64(KindContext)]
	_ = [1]struct{}{}[C.GD_FN_MAX_PARAMS-MaxParams]
	_ = [1]struct{}{}[C.GD_FN_MAX_RESULTS-MaxResults]
)

// table is the registry as the module was built from it (Open), then
// grown by the kit plugins loaded since (Extend); ntable entries are in use.
// Entries are only ever added, and an entry's index is final, so that a
// call reads its entry without a lock.
var (
	table  [MaxFunctions]*Entry
	ntable atomic.Int32
)

// Open closes the registry and returns how many functions the module
// offers (CallC and DescribeC number them from 0), or the registrations
// that failed (Err).
func Open() (int, error) {
	es := Entries()
	if err := Err(); err != nil {
		return 0, err
	}
	copy(table[:], es)
	ntable.Store(int32(len(es)))
	return len(es), nil
}

// Opened is the registry as Open closed it, with what Extend added since.
func Opened() []*Entry { return table[:ntable.Load()] }

func hdr(p unsafe.Pointer) *core.Header { return (*core.Header)(p) }

func dims(p *C.int64_t, n int) []int64 {
	if n <= 0 || p == nil {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(p)), n)
}

// DescribeC fills the gd_fn_desc at d for function i; its strings are
// malloc'ed and live as long as the process.
func DescribeC(i int, d unsafe.Pointer) {
	e, c := table[i], (*C.gd_fn_desc)(d)
	c.name, c.doc, c.module = C.CString(e.Name), C.CString(e.Docstring()), nil
	if e.Module != "" {
		c.module = C.CString(e.Module)
	}
	c.nparams, c.nresults = C.int32_t(len(e.Params)), C.int32_t(len(e.Results))
	c.tuple, c.context, c.quick = cbool(e.Tuple), cbool(e.Context), cbool(e.Quick)
	for k := range e.Params {
		p := &e.Params[k]
		c.kinds[k], c.names[k], c.optional[k] = C.int32_t(p.Kind), C.CString(p.Name), cbool(p.Optional())
	}
	for k, r := range e.Results {
		c.rkinds[k] = C.int32_t(r)
	}
}

func cbool(b bool) C.int32_t {
	if b {
		return 1
	}
	return 0
}

// toValue turns one C argument into a Value; arrays are borrowed.
func toValue(c *C.gd_fn_val, v *Value) {
	v.Kind = Kind(c.kind)
	switch v.Kind {
	case KindArray:
		H := hdr(unsafe.Pointer(&c.h))
		nd := int(H.Ndim)
		v.Array = core.Borrow(*H, dims(c.shape, nd), dims(c.strides, nd))
	case KindInt, KindBool:
		v.I = int64(c.i)
	case KindFloat:
		v.F = float64(c.f)
	case KindComplex:
		v.C = complex(float64(c.f), float64(c.im))
	case KindString:
		if c.n > 0 {
			v.S = strings.Clone(unsafe.String((*byte)(unsafe.Pointer(c.s)), int(c.n)))
		}
	case KindInts:
		v.Ints = make([]int64, int(c.n))
		if c.n > 0 {
			copy(v.Ints, unsafe.Slice((*int64)(unsafe.Pointer(c.s)), int(c.n)))
		}
	}
}

// putResults writes the results into the skin's slots: arrays with a new
// owner reference each, strings and int lists in malloc'ed memory. On
// failure nothing is left behind.
func putResults(rs []Value, cs []C.gd_fn_val) error {
	for k := range rs {
		v, c := &rs[k], &cs[k]
		c.kind = C.int32_t(v.Kind)
		c.s, c.n = nil, 0
		var err error
		switch v.Kind {
		case KindArray:
			if v.Array == nil {
				c.kind = 0 // None
				continue
			}
			if e := v.Array.AcquireHeader(hdr(unsafe.Pointer(&c.h)), dims(c.shape, core.MaxNdim), dims(c.strides, core.MaxNdim)); e != nil {
				err = core.WithClass(core.ClassRuntime, fmt.Sprintf("result %d is an array the Go function had already "+
					"released (%v); return a.Retain() to hand back an array it keeps using", k, e), e)
			}
		case KindInt, KindBool:
			c.i = C.int64_t(v.I)
		case KindFloat:
			c.f = C.double(v.F)
		case KindComplex:
			c.f, c.im = C.double(real(v.C)), C.double(imag(v.C))
		case KindString:
			if !utf8.ValidString(v.S) { // a Python str holds text: bytes that are not UTF-8 become U+FFFD
				v.S = strings.ToValidUTF8(v.S, "\uFFFD")
			}
			c.n, c.s = C.int64_t(len(v.S)), (*C.char)(C.malloc(C.size_t(len(v.S)+1)))
			if c.s != nil {
				copy(unsafe.Slice((*byte)(unsafe.Pointer(c.s)), len(v.S)), v.S)
			}
		case KindInts:
			c.n, c.s = C.int64_t(len(v.Ints)), (*C.char)(C.malloc(C.size_t(8*len(v.Ints)+8)))
			if c.s != nil {
				copy(unsafe.Slice((*int64)(unsafe.Pointer(c.s)), len(v.Ints)), v.Ints)
			}
		}
		if err == nil && (v.Kind == KindString || v.Kind == KindInts) && c.s == nil {
			err = core.ErrNoMemory
		}
		if err != nil {
			c.kind = 0
			dropResults(cs[:k])
			return err
		}
	}
	return nil
}

// dropResults undoes putResults for the slots already written.
func dropResults(cs []C.gd_fn_val) {
	for k := range cs {
		c := &cs[k]
		switch Kind(c.kind) {
		case KindArray:
			if o := hdr(unsafe.Pointer(&c.h)).Owner; o != nil {
				o.Release()
			}
		case KindString, KindInts:
			C.free(unsafe.Pointer(c.s))
		}
		c.kind = 0
	}
}

// finish hands the results to the skin and ends every array of the call:
// results (handed over: Python holds them now) and arguments (borrowed;
// those of a Quick call lent from f, else f is nil).
func finish(e *Entry, args, rs []Value, err error, res unsafe.Pointer, f *Frame) error {
	if err == nil && len(rs) > 0 {
		if err = putResults(rs, unsafe.Slice((*C.gd_fn_val)(res), len(rs))); err != nil {
			err = core.WithClass(core.ClassOf(err), e.Name+"(): "+err.Error(), err)
		}
	}
	for k := range args {
		if v := &args[k]; v.Kind == KindArray && v.Array != nil {
			endArg(e, f, k, v.Array)
			v.Array = nil
		}
	}
	for k := range rs {
		if v := &rs[k]; v.Kind == KindArray && v.Array != nil {
			v.Array.Release()
		}
	}
	return err
}

// argArray is the Array over the array in slot c, argument k of a call
// from the skin: lent from f's slot k for a Quick function and for one the
// compiler proved keeps no pointer to it (Lends), else borrowed afresh (a
// pointer the function keeps reads ErrReleased for good).
func argArray(e *Entry, f *Frame, k int, c *C.gd_fn_val) *core.Array {
	H := hdr(unsafe.Pointer(&c.h))
	nd := int(H.Ndim)
	if e.Quick || e.Lends {
		return f.Lend(k, *H, dims(c.shape, nd), dims(c.strides, nd))
	}
	return f.Borrow(*H, dims(c.shape, nd), dims(c.strides, nd))
}

// endArg ends array argument k that argArray made: returned to f's slot
// (a Quick call's, when f is the frame it was lent from), else released.
func endArg(e *Entry, f *Frame, k int, a *core.Array) {
	if (e.Quick || e.Lends) && f != nil {
		f.lent[k].Return(a)
	} else {
		a.Release()
	}
}

// CallC calls function i with the nargs gd_fn_val slots at args; res has
// room for its results. The caller holds the GIL through a call of a Quick
// function (one such call at a time: callFrame). A function that takes a context.Context is started
// and waited for up to wait: pending then says it still runs, and handle
// names it for WaitC.
func CallC(i int, args unsafe.Pointer, nargs int, res unsafe.Pointer, wait time.Duration) (pending bool, handle int64, err error) {
	n := min(nargs, MaxParams)
	if i < 0 || i >= int(ntable.Load()) {
		return false, 0, fmt.Errorf("gofunc: no function %d: %w", i, core.ErrInternal)
	}
	e, cargs := table[i], unsafe.Slice((*C.gd_fn_val)(args), n)
	if !e.Context {
		if e.direct != nil && givenAll(e, cargs) {
			return false, 0, callDirect(e, cargs, res)
		}
		return false, 0, callNow(e, cargs, res)
	}
	p := &Pending{Entry: e, NArgs: n}
	for k := range cargs {
		toValue(&cargs[k], &p.Args[k])
	}
	p.Start()
	if !p.Wait(wait) {
		return true, p.ID(), nil
	}
	return false, 0, finish(p.Entry, p.Args[:p.NArgs], p.Res[:len(p.Entry.Results)], p.Err, res, nil)
}

// WaitC waits up to wait for the call handle; cancel cancels its context
// first (Ctrl-C).
func WaitC(handle int64, wait time.Duration, cancel bool, res unsafe.Pointer) (pending bool, err error) {
	p := Parked(handle)
	if p == nil {
		return false, fmt.Errorf("gofunc: no pending call %d: %w", handle, core.ErrInternal)
	}
	if cancel {
		p.Cancel()
	}
	if !p.Wait(wait) {
		return true, nil
	}
	return false, finish(p.Entry, p.Args[:p.NArgs], p.Res[:len(p.Entry.Results)], p.Err, res, nil)
}

// callFrame returns the frame of a call through CallC: the entry's held
// frame for a Quick function (the GIL is held), else NewFrame's.
func callFrame(e *Entry) *Frame {
	if !e.Quick || e.held.busy {
		return e.NewFrame()
	}
	if e.held.f == nil {
		e.held.f = NewFrame()
	}
	e.held.busy = true
	e.held.f.used = len(e.held.f.Args)
	return e.held.f
}

// endFrame clears f and gives it back where callFrame took it.
func endFrame(e *Entry, f *Frame) {
	if f != e.held.f {
		e.FreeFrame(f)
		return
	}
	f.clear(len(e.Results))
	e.held.busy = false
}

// callNow runs a function that takes no context on the calling thread.
// One deferred recover serves the whole call: a panic of the Go function
// is its author's bug (Entry.PanicError, the arguments released as after
// any error), any other is godlpack's. runtime.Goexit on this thread,
// which Python made, ends the process (Go's rule): the function is named
// on stderr first.
func callNow(e *Entry, cargs []C.gd_fn_val, res unsafe.Pointer) (err error) {
	f := callFrame(e)
	n, inFn := len(cargs), false
	defer func() {
		r := recover()
		if perr := e.panicked(r, inFn); r != nil && inFn {
			err = finish(e, f.Args[:n], nil, perr, res, f)
		} else if perr != nil {
			err = perr
		}
		endFrame(e, f)
	}()
	// The skin gives each argument its parameter's kind (Kind 0: omitted);
	// Prepare is for defaults and array constraints, and for callers that
	// break that rule.
	direct := !e.constrained && n == len(e.Params)
	for k := range cargs {
		c, v := &cargs[k], &f.Args[k]
		if Kind(c.kind) == KindArray {
			v.Kind, v.Array = KindArray, argArray(e, f, k, c)
		} else {
			toValue(c, v)
		}
		direct = direct && v.Kind == e.Params[k].Kind
	}
	if direct {
		f.used = len(e.goKinds)
	} else {
		err = e.Prepare(nil, f, n)
	}
	if err == nil {
		inFn = true
		err = e.Run(f)
		inFn = false
	}
	return finish(e, f.Args[:n], f.Res[:len(e.Results)], err, res, f)
}

// panicked is the error of a call whose deferred recover gave r: the
// function's bug while it ran (inFn), else godlpack's; nil when it
// returned. A call that neither returned nor panicked while inFn called
// runtime.Goexit, which ends the process on this thread (Go's rule): the
// function is named on stderr first.
func (e *Entry) panicked(r any, inFn bool) error {
	switch {
	case r != nil && inFn:
		return e.PanicError(r)
	case r != nil:
		return fmt.Errorf("gofunc: godlpack internal error (recovered Go panic: %v); please report it: %w", r,
			core.ErrInternal)
	case inFn:
		fmt.Fprintf(os.Stderr, "godlpack: %v; Go ends the process when a function called from Python "+
			"does so (a function that takes a context.Context runs on a goroutine, where it is this error)\n",
			e.GoexitError())
	}
	return nil
}

// givenAll reports whether the skin gave every parameter, each of its kind:
// what a direct call needs, since it has no defaults to fill or kinds to
// refuse (Prepare does both).
func givenAll(e *Entry, cargs []C.gd_fn_val) bool {
	if len(cargs) != len(e.Params) {
		return false
	}
	for k := range cargs {
		if Kind(cargs[k].kind) != e.Params[k].Kind {
			return false
		}
	}
	return true
}

// callDirect is callNow without Values: the entry's direct adapter reads
// the arguments from the skin's slots (in) and writes a number result into
// them (ret); only an array result goes through the frame's Res and
// putResults. The array arguments are lent (Quick) or borrowed as in
// callNow, and a panic is reported the same way.
func callDirect(e *Entry, cargs []C.gd_fn_val, res unsafe.Pointer) (err error) {
	f := callFrame(e)
	f.used = 0 // no Args to clear
	inFn := false
	defer func() {
		if perr := e.panicked(recover(), inFn); perr != nil {
			err = perr
		}
		err = endDirect(e, f, len(cargs), err, res)
		if f == e.held.f { // endDirect left nothing to clear
			e.held.busy = false
		} else {
			e.FreeFrame(f)
		}
	}()
	for k := range cargs {
		if c := &cargs[k]; Kind(c.kind) == KindArray {
			f.arrays[k] = argArray(e, f, k, c)
		}
	}
	f.slots, f.in, f.out = true, unsafe.Pointer(unsafe.SliceData(cargs)), res
	inFn = true
	err = e.Run(f)
	inFn = false
	return err
}

// endDirect is finish for a direct call: an array result goes to the skin
// through finish (before the arguments end: it may be one of them; a number
// result is in its slot already), then every array argument ends.
func endDirect(e *Entry, f *Frame, n int, err error, res unsafe.Pointer) error {
	if f.Res[0].Kind != 0 {
		err = finish(e, nil, f.Res[:1], err, res, f)
		f.Res[0] = Value{}
	}
	for k := range f.arrays[:n] {
		if a := f.arrays[k]; a != nil {
			endArg(e, f, k, a)
			f.arrays[k] = nil
		}
	}
	f.slots, f.in, f.out = false, nil, nil
	return err
}

// in reads argument k of a direct call as a T (its kind checked by
// givenAll): an array from the frame, a number from the skin's slot.
func in[T any](f *Frame, k int) (v T) {
	if p, ok := any(&v).(**core.Array); ok {
		*p = f.arrays[k]
		return v
	}
	c := (*C.gd_fn_val)(unsafe.Add(f.in, uintptr(k)*C.sizeof_gd_fn_val))
	switch p := any(&v).(type) {
	case *int:
		*p = int(c.i)
	case *int64:
		*p = int64(c.i)
	case *float64:
		*p = float64(c.f)
	case *bool:
		*p = c.i != 0
	case *complex128:
		*p = complex(float64(c.f), float64(c.im))
	}
	return v
}

// ret writes the result x of a direct call: a number into the skin's slot,
// an array into the frame's Res for endDirect.
func ret[T any](f *Frame, x T) {
	c := (*C.gd_fn_val)(f.out)
	switch p := any(&x).(type) {
	case *int:
		c.kind, c.i = C.int32_t(KindInt), C.int64_t(*p)
	case *int64:
		c.kind, c.i = C.int32_t(KindInt), C.int64_t(*p)
	case *float64:
		c.kind, c.f = C.int32_t(KindFloat), C.double(*p)
	case *bool:
		c.kind, c.i = C.int32_t(KindBool), 0
		if *p {
			c.i = 1
		}
	case *complex128:
		c.kind, c.f, c.im = C.int32_t(KindComplex), C.double(real(*p)), C.double(imag(*p))
	default:
		put(&f.Res[0], x)
	}
}
