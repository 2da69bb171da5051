package gofunc

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/godlpack/godlpack/core"
)

// MaxParams is the most Python parameters a function may take, and
// MaxResults the most values it may return (a tuple); MaxFunctions is the
// most functions one module may register (each has a C entry point of its
// own, pyext/gofunc_gen.h).
const (
	MaxParams    = 8
	MaxResults   = 3
	MaxFunctions = 256
)

// Entry is one registered function, as the CPython skin sees it.
type Entry struct {
	Name    string  // the Python name
	Doc     string  // Doc(...), else the Go doc comment embedded by build-ext
	Params  []Param // the Python parameters, in order (no context)
	Results []Kind  // empty: returns None
	Tuple   bool    // the results form a tuple
	Context bool    // the Go function takes a context.Context (Ctrl-C cancels it)
	Quick   bool    // Quick(): the GIL stays held while it runs
	// Lends: the Go compiler proved that the function keeps no pointer to
	// its array parameters (SetNotKept): they are lent from the call's
	// frame, as a Quick function's are, instead of borrowed afresh.
	Lends  bool
	GoName string // the Go function, "import/path.Func"
	Pkg    string // the Go package that registered it, "import/path"
	// Module is the Python module the function belongs to when the
	// extension module was composed for several kit packages (Home): its
	// functions are then bound to that module, not added to the
	// extension's. Empty: a function of the extension module itself.
	Module string

	goKinds []Kind // every Go parameter, context included
	ctxPos  int    // Go position of the context, -1 if none
	// constrained: some array parameter has constraints to check (Param.check)
	// before the call; without any, a call from the skin whose arguments are
	// all given needs no Prepare (callNow).
	constrained bool
	call        func(args []Value, res []Value) error
	// direct is the adapter of a direct call (callDirect): it reads its
	// arguments from the skin's slots and writes a number result into them
	// itself, with no Values in between. nil where a parameter or result
	// needs a Value (a string, []int64, a context, a tuple) or a parameter
	// has constraints to check.
	direct func(f *Frame) error
	spare  atomic.Pointer[Frame] // a free frame of this entry (NewFrame)
	held   heldFrame             // the frame of Quick calls from the skin (CallC)
}

// heldFrame is the frame of an entry's Quick calls through CallC, which the
// skin makes with the GIL held: one at a time in the process, so the frame
// is taken and put back without atomics. busy only catches a call that
// would break that contract, which then takes a frame of its own.
type heldFrame struct {
	f    *Frame
	busy bool
}

// Option configures a registration.
type Option func(*Entry, *[]ParamSpec)

// Doc sets the docstring (else the Go doc comment of the function, when the
// module was built by build-ext, is used).
func Doc(s string) Option { return func(e *Entry, _ *[]ParamSpec) { e.Doc = s } }

// Quick declares a function that returns within microseconds and keeps no
// pointer to its array arguments beyond the call (Retain keeps one): the GIL
// stays held while it runs, and its arrays are lent from the call's frame,
// the same Array objects from call to call, instead of new ones. That saves
// releasing and re-taking the GIL and an allocation per array on every call
// (most of the cost of a call that does almost nothing). Other Python
// threads wait for it; a pointer it keeps anyway reads ErrReleased only
// until a later Quick call reuses the object, and then that call's array,
// possibly while it is being written (core.LendSlot). A function that may run long,
// block, take a context.Context (it panics at registration) or keep its
// arguments must not be Quick.
func Quick() Option { return func(e *Entry, _ *[]ParamSpec) { e.Quick = true } }

// Params names the Python parameters in order (the context parameter, if
// any, is not counted) and sets their constraints and defaults.
func Params(ps ...ParamSpec) Option {
	return func(_ *Entry, out *[]ParamSpec) { *out = append(*out, ps...) }
}

var (
	mu      sync.Mutex
	entries []*Entry
	byName  = map[string]*Entry{}
	frozen  bool
	late    bool // Extend runs a load: registrations join the opened registry
	sources = map[string]sourceInfo{}
)

type sourceInfo struct {
	doc     string
	params  []string
	notKept []string // parameters the compiler proved are not kept (SetNotKept)
}

// SetSource records the doc comment and parameter names of the Go function
// goName ("import/path.Func") found in its source; the module main that
// build-ext generates calls it for every function it finds. Doc and Params
// given at registration win.
func SetSource(goName, doc string, params ...string) {
	mu.Lock()
	defer mu.Unlock()
	src := sources[goName]
	src.doc, src.params = doc, params
	sources[goName] = src
}

// SetNotKept records the parameters of the Go function goName that the Go
// compiler's escape analysis proved it keeps no pointer to beyond a call
// (`go build -gcflags=-m`: "a does not escape"); the module main that
// build-ext generates calls it from that build's own analysis. When every
// array parameter is one of them, the function's arrays are lent from the
// call's frame, the same objects from call to call, as a Quick function's
// are: no Array is allocated per call, and a kept pointer cannot exist to
// see the object reused. A function the analysis cannot clear (it stores,
// returns or hands its array to code the compiler cannot follow, or its
// parameter is unnamed) borrows a new Array per call, whose kept pointer
// reads ErrReleased for good.
func SetNotKept(goName string, params ...string) {
	mu.Lock()
	defer mu.Unlock()
	src := sources[goName]
	src.notKept = params
	sources[goName] = src
}

// badRegs are the registrations that failed (a wrong type, a name used
// twice, ...): Err returns them, and the module built from the registry
// refuses to import with them (ImportError) instead of the process dying
// in a Go init.
var badRegs []error

// noteBad turns a failed registration's panic into a recorded error.
func noteBad(name string) {
	if r := recover(); r != nil {
		mu.Lock()
		defer mu.Unlock()
		msg := fmt.Sprint(r)
		if !strings.Contains(msg, strconv.Quote(name)) {
			msg = fmt.Sprintf("registering %q: %s", name, strings.TrimPrefix(msg, "gofunc: "))
		}
		badRegs = append(badRegs, errors.New(msg))
	}
}

// Err returns the registrations that failed so far, joined, or nil: a
// kit's Go test can assert it is nil, and the module built from the
// registry raises ImportError with it.
func Err() error {
	mu.Lock()
	defer mu.Unlock()
	return errors.Join(badRegs...)
}

// Entries returns the registered functions in registration order and
// closes the registry: the module is being built from it, and a later
// registration would not reach Python (it panics).
func Entries() []*Entry {
	mu.Lock()
	defer mu.Unlock()
	if !frozen {
		frozen = true
		for _, e := range entries {
			e.applySource()
		}
	}
	return entries
}

// Lookup returns the first entry registered under name, or nil.
func Lookup(name string) *Entry {
	mu.Lock()
	defer mu.Unlock()
	for _, e := range entries {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// Home makes the functions that Go package pkg registers functions of the
// Python module module: the main package of an extension module composed
// for several kit packages (python -m godlpack, godlpack/_kits.py) calls it
// for each, so that two kits may use the same names and each kit's Python
// module binds its own functions. Call it from an init function.
func Home(pkg, module string) {
	mu.Lock()
	defer mu.Unlock()
	for _, e := range entries {
		if e.Pkg == pkg {
			e.Module = module
		}
	}
}

// pkgOf is the import path of the package of the Go function named goName
// ("example.com/kit.Sum", "example.com/kit.init.func1").
func pkgOf(goName string) string {
	slash := strings.LastIndex(goName, "/")
	if dot := strings.Index(goName[slash+1:], "."); dot >= 0 {
		return goName[:slash+1+dot]
	}
	return goName
}

func (e *Entry) applySource() {
	src, ok := sources[e.GoName]
	if !ok {
		return
	}
	if e.Doc == "" {
		e.Doc = src.doc
	}
	e.Lends = lendsAll(e.goKinds, src)
	// Go parameter names, the context's skipped, name the Python ones that
	// Params left unnamed.
	j := 0
	for i, n := range src.params {
		if i >= len(e.goKinds) {
			break
		}
		if e.goKinds[i] == KindContext {
			continue
		}
		if j < len(e.Params) && strings.HasPrefix(e.Params[j].Name, "arg") && e.Params[j].Spec.name == "" && n != "_" && n != "" {
			e.Params[j].Name = n
		}
		j++
	}
}

// lendsAll reports whether src proves that every array parameter (kinds,
// in Go order) is kept by no pointer: each is named and listed as not kept.
func lendsAll(kinds []Kind, src sourceInfo) bool {
	arrays := 0
	for i, k := range kinds {
		if k != KindArray {
			continue
		}
		arrays++
		if i >= len(src.params) || src.params[i] == "" || src.params[i] == "_" || !slices.Contains(src.notKept, src.params[i]) {
			return false
		}
	}
	return arrays > 0
}

// register builds the entry; bad registrations are programming errors and
// panic at init, naming the function.
func register(name string, fn any, goKinds []Kind, results []Kind, tuple bool, opts []Option,
	call func(args []Value, res []Value) error, direct func(f *Frame) error) {
	e := &Entry{Name: name, Results: results, Tuple: tuple, ctxPos: -1, goKinds: goKinds, call: call, direct: direct}
	if fv := reflect.ValueOf(fn); fv.Kind() != reflect.Func || fv.IsNil() {
		panic(fmt.Sprintf("gofunc: registering %q: nil function", name))
	}
	if pc := reflect.ValueOf(fn).Pointer(); pc != 0 {
		if f := runtime.FuncForPC(pc); f != nil {
			e.GoName, e.Pkg = f.Name(), pkgOf(f.Name())
		}
	}
	var specs []ParamSpec
	for _, o := range opts {
		o(e, &specs)
	}
	if err := e.build(specs); err != nil {
		panic(fmt.Sprintf("gofunc: registering %q (%s): %v", name, e.GoName, err))
	}
	mu.Lock()
	defer mu.Unlock()
	if frozen && !late {
		panic(fmt.Sprintf("gofunc: %q registered after its module was built; register from an init function", name))
	}
	if old, dup := byName[e.Pkg+"."+name]; dup {
		panic(fmt.Sprintf("gofunc: %q registered twice (%s and %s)", name, old.GoName, e.GoName))
	}
	if len(entries) == MaxFunctions {
		panic(fmt.Sprintf("gofunc: registering %q: a module has at most %d functions; build the rest into another "+
			"module", name, MaxFunctions))
	}
	byName[e.Pkg+"."+name] = e
	entries = append(entries, e)
}

func (e *Entry) build(specs []ParamSpec) error {
	if !validName(e.Name) {
		return fmt.Errorf("the name must be a Python identifier")
	}
	for i, k := range e.goKinds {
		if k == KindContext {
			if e.Context {
				return fmt.Errorf("two context.Context parameters")
			}
			e.Context, e.ctxPos = true, i
			continue
		}
		e.Params = append(e.Params, Param{Name: fmt.Sprintf("arg%d", len(e.Params)), Kind: k})
	}
	if e.Quick && e.Context {
		return fmt.Errorf("Quick() and a context.Context parameter exclude each other: Ctrl-C cannot reach a call that holds the GIL")
	}
	if len(e.Params) > MaxParams {
		return fmt.Errorf("%d parameters, at most %d", len(e.Params), MaxParams)
	}
	if len(specs) > len(e.Params) {
		return fmt.Errorf("Params names %d parameters, the function has %d", len(specs), len(e.Params))
	}
	seenDefault := false
	for i := range e.Params {
		p := &e.Params[i]
		if i < len(specs) {
			p.Spec = specs[i]
			if specs[i].name != "" {
				if !validName(specs[i].name) {
					return fmt.Errorf("parameter name %q is not a Python identifier", specs[i].name)
				}
				p.Name = specs[i].name
			}
			if specs[i].array && p.Kind != KindArray {
				return fmt.Errorf("parameter %q: Array(...) constraints on a %s parameter", p.Name, p.Kind.PyType())
			}
		}
		e.constrained = e.constrained || p.Spec.constrained()
		if p.Kind == KindArray && p.Spec.hasDef {
			return fmt.Errorf("parameter %q: arrays cannot have defaults", p.Name)
		}
		if err := p.setDefault(); err != nil {
			return err
		}
		if p.Spec.hasDef {
			seenDefault = true
		} else if seenDefault {
			return fmt.Errorf("parameter %q without a default follows one with a default", p.Name)
		}
	}
	if !e.directable() {
		e.direct = nil
	}
	return nil
}

// directable reports whether a call may take the direct path: numbers and
// unconstrained arrays in, at most one value out that is not a string or
// []int64, no context.
func (e *Entry) directable() bool {
	if e.constrained || e.Context || e.Tuple || len(e.Results) > 1 {
		return false
	}
	for _, k := range append(e.goKinds[:len(e.goKinds):len(e.goKinds)], e.Results...) {
		if k == KindString || k == KindInts || k == KindContext {
			return false
		}
	}
	return true
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Call runs the entry: args holds the Python arguments in parameter order
// (Kind 0 for an omitted optional one), ctx goes to a context parameter,
// res receives the results (len(e.Results) of them). Array constraints are
// checked first; an error is prefixed with the function's name; a panic
// becomes an ErrInternal error. The caller owns every array in args and in
// res (Call releases nothing).
func (e *Entry) Call(ctx context.Context, args []Value, res []Value) error {
	f := NewFrame()
	defer f.Free()
	if len(args) > MaxParams {
		args = args[:MaxParams]
	}
	copy(f.Args[:], args)
	err := e.CallFrame(ctx, f, len(args))
	if err == nil {
		copy(res, f.Res[:len(e.Results)])
	}
	return err
}

// Frame is the storage of one call: the arguments and results of CallFrame,
// which the CPython skin fills and reads in place. Frames come from a pool:
// the Go arguments cannot live on a stack, since the adapter that unpacks
// them is an indirect call, and a call must allocate nothing.
type Frame struct {
	// Args holds the Python arguments in parameter order (Kind 0 for an
	// omitted optional one); CallFrame turns it into the Go arguments in
	// place (defaults, and the context at its position).
	Args [MaxParams + 1]Value
	// Res receives the results, len(e.Results) of them.
	Res [MaxResults]Value

	used int // Args entries that may hold something
	lent [MaxParams]core.LendSlot
	slab core.BorrowSlab

	// A direct call's state (callDirect): the skin's slots, and the Arrays
	// lent or borrowed over the array arguments.
	slots   bool
	in, out unsafe.Pointer
	arrays  [MaxParams]*core.Array
}

// Borrow returns an Array borrowed for the call over h, shape and strides,
// as core.Borrow does, for an argument of a function that is not Quick: a
// new object each call (a pointer the function keeps reads ErrReleased),
// cut from the frame's slab (core.BorrowSlab), so that most calls
// allocate nothing.
func (f *Frame) Borrow(h core.Header, shape, strides []int64) *core.Array {
	return f.slab.Borrow(h, shape, strides)
}

// Lend returns an Array lent for the call over h, shape and strides for
// argument k of a Quick function: the frame's own, reused from call to call
// (core.LendSlot), so that the call allocates nothing.
func (f *Frame) Lend(k int, h core.Header, shape, strides []int64) *core.Array {
	return f.lent[k].Lend(h, shape, strides)
}

var framePool = sync.Pool{New: func() any { return new(Frame) }}

// NewFrame returns an empty frame; Free returns it.
func NewFrame() *Frame {
	f := framePool.Get().(*Frame)
	f.used = len(f.Args)
	return f
}

// Free clears the frame (it must not keep arrays or strings alive) and
// returns it to the pool. The caller releases the arrays first.
func (f *Frame) Free() {
	f.clear(len(f.Res))
	framePool.Put(f)
}

func (f *Frame) clear(nres int) {
	clearValues(f.Args[:f.used])
	clearValues(f.Res[:nres])
	f.used = 0
}

// clearValues empties vs. A Value that points at nothing (a number) only
// has its Kind reset: zeroing the whole Value goes through the collector's
// write barrier, a cost a call that passes numbers need not pay.
func clearValues(vs []Value) {
	for k := range vs {
		v := &vs[k]
		if v.Array != nil || v.S != "" || v.Ints != nil || v.Ctx != nil {
			*v = Value{}
		} else {
			v.Kind = 0
		}
	}
}

// NewFrame returns an empty frame for a call of e; FreeFrame returns it.
// Each entry keeps one spare frame of its own, so that calls of a function
// one after another (the common case) take it with one atomic swap; calls
// that overlap it (Python threads, the GIL released) use the shared pool.
func (e *Entry) NewFrame() *Frame {
	if f := e.spare.Swap(nil); f != nil {
		f.used = len(f.Args)
		return f
	}
	return NewFrame()
}

// FreeFrame clears f, as Free does, and keeps it as e's spare frame, or
// returns it to the pool.
func (e *Entry) FreeFrame(f *Frame) {
	f.clear(len(e.Results))
	if !e.spare.CompareAndSwap(nil, f) {
		framePool.Put(f)
	}
}

// CallFrame runs the entry on f.Args[:nargs] as Call does, with the results
// in f.Res. The caller owns every array in f.Args and f.Res (CallFrame
// releases nothing).
func (e *Entry) CallFrame(ctx context.Context, f *Frame, nargs int) (err error) {
	if err := e.Prepare(ctx, f, nargs); err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = e.PanicError(r)
		}
	}()
	return e.Run(f)
}

// Prepare is the first half of CallFrame: it checks f.Args[:nargs] against
// the parameters (kinds, array constraints), fills in defaults and places
// ctx. Run is the second half.
func (e *Entry) Prepare(ctx context.Context, f *Frame, nargs int) error {
	np := len(e.Params)
	clear(f.Args[min(nargs, np):np]) // not given: Kind 0
	f.used = len(e.goKinds)
	for i := range e.Params {
		p, v := &e.Params[i], &f.Args[i]
		if v.Kind == 0 {
			if !p.Spec.hasDef {
				return core.WithClass(core.ClassType, fmt.Sprintf("%s() missing required argument '%s'; pass it", e.Name, p.Name), core.ErrUnsupported)
			}
			*v = p.def
			continue
		}
		if v.Kind != p.Kind {
			return core.WithClass(core.ClassType, fmt.Sprintf("%s(): argument '%s' must be %s", e.Name, p.Name, p.Kind.PyType()), core.ErrUnsupported)
		}
		if p.Kind == KindArray {
			if v.Array == nil {
				return core.WithClass(core.ClassType, fmt.Sprintf("%s(): argument '%s' must be an array", e.Name, p.Name), core.ErrUnsupported)
			}
			if err := p.check(e.Name, v.Array); err != nil {
				return err
			}
		}
	}
	if e.ctxPos >= 0 {
		copy(f.Args[e.ctxPos+1:len(e.goKinds)], f.Args[e.ctxPos:np])
		if ctx == nil {
			ctx = context.Background()
		}
		f.Args[e.ctxPos] = Value{Kind: KindContext, Ctx: ctx}
	}
	return nil
}

// Run calls the function on a frame Prepare (or callDirect) has filled, its error prefixed
// with the function's name. It does not recover a panic of the function:
// the caller does, once for the whole call, and reports it with
// PanicError. While blocks are checked (core.CheckBlocks) a fault in the
// function, which a kept block's sealed memory gives, is such a panic
// rather than the end of the process.
func (e *Entry) Run(f *Frame) error {
	if core.BlocksChecked() {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	}
	var err error
	if f.slots {
		err = e.direct(f)
	} else {
		err = e.call(f.Args[:len(e.goKinds)], f.Res[:len(e.Results)])
	}
	if err != nil {
		return e.wrap(err)
	}
	return nil
}

// PanicError is the error of a call whose Go function panicked with r.
func (e *Entry) PanicError(r any) error {
	if f, ok := r.(interface{ Addr() uintptr }); ok && core.IsSealedBlock(f.Addr()) {
		return core.WithClass(core.ClassRuntime, fmt.Sprintf("%s(): the Go function %s used a block of core.Blocks, "+
			"ReadBlocks or MapBlocks after its step (a fault at %#x, in a block that GODLPACK_CHECK_BLOCKS sealed); a "+
			"block is valid during its step only: copy what you keep, and report it to the authors of %s", e.Name,
			e.GoName, f.Addr(), e.GoName), core.ErrInternal)
	}
	return core.WithClass(core.ClassRuntime, fmt.Sprintf("%s(): the Go function %s panicked: %v; the process goes on, "+
		"but this is a bug in %s: report it to its authors", e.Name, e.GoName, r, e.GoName), core.ErrInternal)
}

// GoexitError is the error of a call whose Go function called
// runtime.Goexit (directly, or through testing's FailNow and the like)
// instead of returning.
func (e *Entry) GoexitError() error {
	return core.WithClass(core.ClassRuntime, fmt.Sprintf("%s(): the Go function %s called runtime.Goexit instead of "+
		"returning; it must return (an error, to fail): report it to its authors", e.Name, e.GoName), core.ErrInternal)
}

// wrap prefixes err's message with the function's name, keeping its class
// and its sentinel.
func (e *Entry) wrap(err error) error {
	prefix := e.Name + "()"
	msg := err.Error()
	if strings.HasPrefix(msg, prefix) {
		return err
	}
	return core.WithClass(core.ClassOf(err), prefix+": "+msg, err)
}
