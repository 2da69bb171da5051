// Package gofunc declares Go functions that Python calls on numpy, torch,
// dpnp (any DLPack or buffer-protocol) arrays without copying them: the
// extension kit of godlpack.
//
// A Go package registers ordinary functions from its init:
//
//	// Blur returns img blurred by a Gaussian of standard deviation sigma.
//	func Blur(img *core.Array, sigma float64) (*core.Array, error) { ... }
//
//	func init() {
//		gofunc.Func2("blur", Blur, gofunc.Params(
//			gofunc.Array("img").DType(core.Float32).NDim(2), gofunc.Arg("sigma")))
//	}
//
// and `python -m godlpack build-ext NAME PKG... -o DIR` builds one CPython
// module NAME (abi3) holding godlpack's whole Python API plus every function
// the packages registered, with docstrings and a .pyi stub taken from the Go
// signatures and doc comments. godlpack's own module is built the same way
// and registers some of its functions here too.
//
// A registration that cannot work (a parameter type gofunc does not take, a
// name used twice, more than MaxFunctions functions) registers nothing and
// is recorded: Err returns it (a kit's Go test can assert Err() == nil), and
// importing the module built from the registry raises ImportError naming it,
// instead of the process dying in a Go init. In Python a registered function
// is a function of its module (its __module__, __qualname__ and repr), and
// pickles by reference.
//
// # Parameters and results
//
// Parameters may be *core.Array (any Python object with __dlpack__ or the
// buffer protocol, imported zero-copy; a godlpack.Array as it is), int,
// int64, float64, bool, complex128, string, []int64 (an int or a sequence of
// ints, e.g. a shape) and context.Context (not a Python argument: it is
// cancelled when the user presses Ctrl-C, and the call then raises
// KeyboardInterrupt once the function returns). Array parameters may carry
// constraints (ArraySpec: dtype, ndim, device, C-contiguity, writability),
// checked before the function runs: a violation raises TypeError (dtype),
// ValueError (ndim, writability) or BufferError (device, layout) whose
// message starts with the function's name and ends with the way out.
//
// Results are declared by the registering function: FuncN returns one value
// (R, error); ProcN returns only an error (Python None). R may be any
// parameter type but context.Context (an array becomes a godlpack.Array,
// which numpy and torch take zero-copy), or Tuple2 / Tuple3 of them (a
// Python tuple).
//
// # Errors
//
// A returned error becomes the Python exception of its class
// (core.ClassOf: the core sentinels and core.WithClass map to BufferError,
// TypeError, ValueError, MemoryError, IndexError; any other error is a
// RuntimeError), its message prefixed with "name(): " unless it already
// starts so. A panic becomes RuntimeError naming the function; the process
// goes on.
//
// # Lifetime
//
// The arrays a function receives are lent for the call: they stay alive and
// unchanged in place until it returns, and are released then (a pointer kept
// beyond the call reads ErrReleased, never freed memory). To keep one, call
// Retain and Release the copy when done: the producer's deleter (numpy's,
// torch's) runs when the last reference goes, on whatever goroutine releases
// it. An array a function returns is handed to Python: the function must not
// use it afterwards (return a.Retain() to keep using a).
//
// Read-only inputs (a numpy array with writeable=False) stay read-only:
// core's typed slices and Set refuse them; core.ReadSlice reads them.
//
// A function whose array parameters the Go compiler proves it keeps no
// pointer to (build-ext runs the escape analysis and calls SetNotKept for
// each top-level function it clears) gets its arrays lent from the call's
// frame instead, the same Array objects from call to call: no allocation,
// and no pointer exists to see the object reused. Every other function
// borrows a new Array per call.
//
// The GIL is released while a Go function runs: other Python threads go on,
// and the function must not call Python.
//
// # Quick functions
//
// Registered with the Quick option, a function that returns within
// microseconds and keeps no pointer to its arguments beyond the call is
// called with the GIL held, and its arrays are lent from the call's frame
// (the same Array objects from call to call, no allocation): a call then
// costs little more than importing its arrays. Other Python threads wait
// while it runs; a pointer it keeps anyway reads ErrReleased only until a
// later Quick call reuses the object. Quick excludes a context.Context.
package gofunc
