//go:build pyext

package pyext

/*
#include <stdlib.h>
#include <string.h>
#include "bridge.h"
#include "gofunc.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"time"
	"unsafe"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/gofunc"
)

// The Go functions registered with package gofunc, called from gofunc.c.
// A call is one crossing: the skin has turned the Python arguments into
// gd_fn_val slots (arrays described in C by the import fast path, or by
// core once), gdgo_fn_call lends them to the function as borrowed Arrays,
// runs it and writes its results back. A function that takes a
// context.Context runs on a goroutine instead, so that the skin can check
// for Ctrl-C between waits (gdgo_fn_wait) and cancel the context.

var (
	_ = [1]struct{}{}[C.GD_FN_ARRAY-int64(gofunc.KindArray)]
	_ = [1]struct{}{}[C.GD_FN_INT-int64(gofunc.KindInt)]
	_ = [1]struct{}{}[C.GD_FN_FLOAT-int64(gofunc.KindFloat)]
	_ = [1]struct{}{}[C.GD_FN_BOOL-int64(gofunc.KindBool)]
	_ = [1]struct{}{}[C.GD_FN_COMPLEX-int64(gofunc.KindComplex)]
	_ = [1]struct{}{}[C.GD_FN_STRING-int64(gofunc.KindString)]
	_ = [1]struct{}{}[C.GD_FN_INTS-int64(gofunc.KindInts)]
	_ = [1]struct{}{}[C.GD_FN_CONTEXT-int64(gofunc.KindContext)]
	_ = [1]struct{}{}[C.GD_FN_MAX_PARAMS-gofunc.MaxParams]
	_ = [1]struct{}{}[C.GD_FN_MAX_RESULTS-gofunc.MaxResults]
)

// fnTable is the registry as the module was built from it (gdgo_fn_count).
var fnTable []*gofunc.Entry

// gdgo_fn_floor does nothing: godlpack._native._gofunc_floor calls it with
// the GIL released, the least that any call of a registered function pays
// (make bench, group gofunc).
//
//export gdgo_fn_floor
func gdgo_fn_floor() C.int { return 0 }

// gdgo_fn_count closes the registry and returns how many functions the
// module offers.
//
//export gdgo_fn_count
func gdgo_fn_count() (n C.int) {
	defer func() {
		if recover() != nil {
			n = -1
		}
	}()
	fnTable = gofunc.Entries()
	return C.int(len(fnTable))
}

// gdgo_fn_describe fills d for function i; its strings are malloc'ed and
// live as long as the process.
//
//export gdgo_fn_describe
func gdgo_fn_describe(i C.int, d *C.gd_fn_desc, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "import")
	e := fnTable[int(i)]
	d.name = C.CString(e.Name)
	d.doc = C.CString(e.Docstring())
	d.nparams = C.int32_t(len(e.Params))
	d.nresults = C.int32_t(len(e.Results))
	d.tuple, d.context, d.quick = 0, 0, 0
	if e.Quick {
		d.quick = 1
	}
	if e.Tuple {
		d.tuple = 1
	}
	if e.Context {
		d.context = 1
	}
	for k := range e.Params {
		p := &e.Params[k]
		d.kinds[k] = C.int32_t(p.Kind)
		d.names[k] = C.CString(p.Name)
		d.optional[k] = 0
		if p.Optional() {
			d.optional[k] = 1
		}
	}
	for k, r := range e.Results {
		d.rkinds[k] = C.int32_t(r)
	}
	return 0
}

// gdgo_fn_meta writes the JSON description of every function
// (gofunc.MetaJSON) into *out (malloc'ed; the skin frees it).
//
//export gdgo_fn_meta
func gdgo_fn_meta(out **C.char, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "_gofuncs()")
	b, err := gofunc.MetaJSON(fnTable)
	if err != nil {
		return fail(msg, err)
	}
	*out = C.CString(string(b))
	return 0
}

// toValue turns one C argument into a gofunc.Value; arrays are borrowed.
func toValue(c *C.gd_fn_val, v *gofunc.Value) {
	v.Kind = gofunc.Kind(c.kind)
	switch v.Kind {
	case gofunc.KindArray:
		H := hdr(&c.h)
		nd := int(H.Ndim)
		v.Array = core.Borrow(*H, dims(c.shape, nd), dims(c.strides, nd))
	case gofunc.KindInt, gofunc.KindBool:
		v.I = int64(c.i)
	case gofunc.KindFloat:
		v.F = float64(c.f)
	case gofunc.KindComplex:
		v.C = complex(float64(c.f), float64(c.im))
	case gofunc.KindString:
		if c.n > 0 {
			v.S = strings.Clone(unsafe.String((*byte)(unsafe.Pointer(c.s)), int(c.n)))
		}
	case gofunc.KindInts:
		v.Ints = make([]int64, int(c.n))
		if c.n > 0 {
			copy(v.Ints, unsafe.Slice((*int64)(unsafe.Pointer(c.s)), int(c.n)))
		}
	}
}

// putResults writes the results into the skin's slots: arrays with a new
// owner reference each, strings and int lists in malloc'ed memory. On
// failure nothing is left behind.
func putResults(rs []gofunc.Value, cs []C.gd_fn_val) error {
	for k := range rs {
		v, c := &rs[k], &cs[k]
		c.kind = C.int32_t(v.Kind)
		c.s, c.n = nil, 0
		switch v.Kind {
		case gofunc.KindArray:
			if v.Array == nil {
				c.kind = 0 // None
				continue
			}
			if err := v.Array.AcquireHeader(hdr(&c.h), dims(c.shape, core.MaxNdim), dims(c.strides, core.MaxNdim)); err != nil {
				c.kind = 0
				dropResults(cs[:k])
				return core.WithClass(core.ClassRuntime, fmt.Sprintf("result %d is an array the Go function had already "+
					"released (%v); return a.Retain() to hand back an array it keeps using", k, err), err)
			}
		case gofunc.KindInt, gofunc.KindBool:
			c.i = C.int64_t(v.I)
		case gofunc.KindFloat:
			c.f = C.double(v.F)
		case gofunc.KindComplex:
			c.f, c.im = C.double(real(v.C)), C.double(imag(v.C))
		case gofunc.KindString:
			c.n = C.int64_t(len(v.S))
			c.s = (*C.char)(C.malloc(C.size_t(len(v.S) + 1)))
			if c.s == nil {
				c.kind = 0
				dropResults(cs[:k])
				return core.ErrNoMemory
			}
			if len(v.S) > 0 {
				copy(unsafe.Slice((*byte)(unsafe.Pointer(c.s)), len(v.S)), v.S)
			}
		case gofunc.KindInts:
			c.n = C.int64_t(len(v.Ints))
			c.s = (*C.char)(C.malloc(C.size_t(8*len(v.Ints) + 8)))
			if c.s == nil {
				c.kind = 0
				dropResults(cs[:k])
				return core.ErrNoMemory
			}
			copy(unsafe.Slice((*int64)(unsafe.Pointer(c.s)), len(v.Ints)), v.Ints)
		}
	}
	return nil
}

// dropResults undoes putResults for the slots already written.
func dropResults(cs []C.gd_fn_val) {
	for k := range cs {
		c := &cs[k]
		switch gofunc.Kind(c.kind) {
		case gofunc.KindArray:
			if o := hdr(&c.h).Owner; o != nil {
				o.Release()
			}
		case gofunc.KindString, gofunc.KindInts:
			C.free(unsafe.Pointer(c.s))
		}
		c.kind = 0
	}
}

// finish hands the results to the skin and ends every array of the call:
// results (handed over: Python holds them now) and arguments (borrowed).
func finish(e *gofunc.Entry, args, rs []gofunc.Value, err error, res *C.gd_fn_val, msg *C.char) C.int {
	if err == nil && len(rs) > 0 {
		err = putResults(rs, unsafe.Slice(res, len(rs)))
		if err != nil {
			err = core.WithClass(core.ClassOf(err), e.Name+"(): "+err.Error(), err)
		}
	}
	for k := range rs {
		if rs[k].Kind == gofunc.KindArray && rs[k].Array != nil {
			rs[k].Array.Release()
		}
	}
	for k := range args {
		if args[k].Kind == gofunc.KindArray && args[k].Array != nil {
			args[k].Array.Release()
		}
	}
	if err != nil {
		return fail(msg, err)
	}
	return 0
}

// gdgo_fn_call calls function i with nargs arguments; res has room for its
// results. A function that takes a context.Context is started and waited
// for waitMs milliseconds: GD_FN_PENDING then says it still runs, *handle
// names it for gdgo_fn_wait.
//
//export gdgo_fn_call
func gdgo_fn_call(i C.int, args *C.gd_fn_val, nargs C.int, res *C.gd_fn_val, waitMs C.int, handle *C.int64_t,
	msg *C.char) (cls C.int) {
	n := int(nargs)
	if n > gofunc.MaxParams {
		n = gofunc.MaxParams
	}
	if int(i) < 0 || int(i) >= len(fnTable) {
		return fail(msg, fmt.Errorf("gofunc: no function %d: %w", i, core.ErrInternal))
	}
	e, cargs := fnTable[int(i)], unsafe.Slice(args, n)
	if !e.Context { // callNow recovers its panics
		return callNow(e, cargs, res, msg)
	}
	defer guard(&cls, msg, "gofunc")
	p := &gofunc.Pending{Entry: e, NArgs: n}
	for k := range cargs {
		toValue(&cargs[k], &p.Args[k])
	}
	p.Start()
	return wait(p, waitMs, res, handle, msg)
}

// callNow runs a function that takes no context on the calling thread.
// One deferred recover serves the whole call: a panic of the Go function
// is its author's bug (Entry.PanicError, the arguments released as after
// any error), any other is godlpack's (guard's wording).
func callNow(e *gofunc.Entry, cargs []C.gd_fn_val, res *C.gd_fn_val, msg *C.char) (cls C.int) {
	f := e.NewFrame()
	n, inFn := len(cargs), false
	defer func() {
		if r := recover(); r != nil {
			if inFn {
				cls = finish(e, f.Args[:n], nil, e.PanicError(r), res, msg)
			} else {
				cls = fail(msg, fmt.Errorf("gofunc: godlpack internal error (recovered Go panic: %v); please report it: %w",
					r, core.ErrInternal))
			}
		}
		e.FreeFrame(f)
	}()
	for k := range cargs {
		if c := &cargs[k]; gofunc.Kind(c.kind) == gofunc.KindArray {
			H := hdr(&c.h)
			nd := int(H.Ndim)
			v := &f.Args[k]
			v.Kind = gofunc.KindArray
			if e.Quick {
				v.Array = f.Lend(k, *H, dims(c.shape, nd), dims(c.strides, nd))
			} else {
				v.Array = f.Borrow(*H, dims(c.shape, nd), dims(c.strides, nd))
			}
			continue
		}
		toValue(&cargs[k], &f.Args[k])
	}
	err := e.Prepare(nil, f, n)
	if err == nil {
		inFn = true
		err = e.Run(f)
		inFn = false
	}
	return finish(e, f.Args[:n], f.Res[:len(e.Results)], err, res, msg)
}

// gdgo_fn_wait waits up to waitMs for the call handle; cancel != 0 cancels
// its context first (Ctrl-C).
//
//export gdgo_fn_wait
func gdgo_fn_wait(handle C.int64_t, waitMs C.int, cancel C.int, res *C.gd_fn_val, msg *C.char) (cls C.int) {
	defer guard(&cls, msg, "gofunc")
	p := gofunc.Parked(int64(handle))
	if p == nil {
		return fail(msg, fmt.Errorf("gofunc: no pending call %d: %w", handle, core.ErrInternal))
	}
	if cancel != 0 {
		p.Cancel()
	}
	return wait(p, waitMs, res, nil, msg)
}

// wait is GD_FN_PENDING while the call runs after waitMs (*handle, when
// given, names it), else its results.
func wait(p *gofunc.Pending, waitMs C.int, res *C.gd_fn_val, handle *C.int64_t, msg *C.char) C.int {
	if !p.Wait(time.Duration(waitMs) * time.Millisecond) {
		if handle != nil {
			*handle = C.int64_t(p.ID())
		}
		return C.GD_FN_PENDING
	}
	return finish(p.Entry, p.Args[:p.NArgs], p.Res[:len(p.Entry.Results)], p.Err, res, msg)
}
