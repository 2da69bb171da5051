package core

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// Class says which Python exception an error maps to. The CPython skin maps
// classes once, in pyext; Go callers use errors.Is with the sentinels below.
type Class int

// Error classes.
const (
	ClassBuffer  Class = 1 // BufferError: cannot export/import as asked
	ClassType    Class = 2 // TypeError: wrong argument type
	ClassValue   Class = 3 // ValueError: wrong argument value
	ClassMemory  Class = 4 // MemoryError
	ClassRuntime Class = 5 // RuntimeError: environment (fork child, internal)
	ClassIndex   Class = 6 // IndexError
	// OverflowError: a Python integer out of the range of the type it is
	// stored into (numpy 2's class for the same).
	ClassOverflow Class = 7
	// ImportError: the extension module cannot be initialised (Python's
	// class for an import that fails).
	ClassImport Class = 8
)

// String returns the Python exception name of the class.
func (c Class) String() string {
	switch c {
	case ClassBuffer:
		return "BufferError"
	case ClassType:
		return "TypeError"
	case ClassValue:
		return "ValueError"
	case ClassMemory:
		return "MemoryError"
	case ClassRuntime:
		return "RuntimeError"
	case ClassIndex:
		return "IndexError"
	case ClassOverflow:
		return "OverflowError"
	case ClassImport:
		return "ImportError"
	}
	return "RuntimeError"
}

// Error is a sentinel: a fixed message and its class. Wrap it with %w to add
// the entry point and the way out; ClassOf finds the class through wrapping.
type Error struct {
	msg   string
	class Class
}

func (e *Error) Error() string { return e.msg }

// Class returns the Python exception class of the sentinel.
func (e *Error) Class() Class { return e.class }

func newErr(class Class, msg string) *Error { return &Error{msg: msg, class: class} }

// Sentinel errors. Every error godlpack returns wraps exactly one of these.
// The class of a sentinel is the one used when a DLPack exchange (import or
// export) fails; an argument-parsing function may wrap the same sentinel with
// another class (see WithClass), e.g. ParseDataType wraps ErrDType as a
// ValueError.
var (
	// ErrNoMemory: an allocation failed.
	ErrNoMemory = newErr(ClassMemory, "out of memory")

	// Import/export validation (BufferError: the tensor cannot be exchanged).

	// ErrVersion: a versioned tensor's major version is not ours (S1).
	ErrVersion = newErr(ClassBuffer, "unsupported DLPack major version")
	// ErrNdim: ndim is negative or larger than MaxNdim.
	ErrNdim = newErr(ClassBuffer, "unsupported number of dimensions")
	// ErrShape: a dimension is negative.
	ErrShape = newErr(ClassBuffer, "invalid shape")
	// ErrOverflow: the element count or byte extent does not fit in int64.
	ErrOverflow = newErr(ClassBuffer, "size overflows int64")
	// ErrDType: unknown or unsupported data type code or bits.
	ErrDType = newErr(ClassBuffer, "unsupported data type")
	// ErrLanes: lanes other than 1 (vector types) (S6).
	ErrLanes = newErr(ClassBuffer, "unsupported dtype lanes")
	// ErrSubByte: a sub-byte type is not exchangeable in this layout (S7).
	ErrSubByte = newErr(ClassBuffer, "unsupported sub-byte data type layout")
	// ErrSubByteView: views and copies of packed sub-byte arrays are refused.
	ErrSubByteView = newErr(ClassValue, "packed sub-byte arrays cannot be viewed or copied")
	// ErrDevice: a device type or id that cannot be served.
	ErrDevice = newErr(ClassBuffer, "unsupported device")
	// ErrNullData: NULL data pointer with a non-zero size (S5).
	ErrNullData = newErr(ClassBuffer, "NULL data pointer for a non-empty tensor")
	// ErrNullShape: NULL shape pointer with ndim > 0.
	ErrNullShape = newErr(ClassBuffer, "NULL shape pointer with ndim > 0")
	// ErrByteOffset: a byte_offset of device memory that godlpack cannot
	// carry (not a multiple of the element size).
	ErrByteOffset = newErr(ClassBuffer, "unsupported byte_offset")
	// ErrStrides: strides that cannot be honoured.
	ErrStrides = newErr(ClassBuffer, "invalid strides")
	// ErrReadOnlyLegacy: a read-only array cannot be exported as a legacy
	// capsule (P2).
	ErrReadOnlyLegacy = newErr(ClassBuffer, "read-only array cannot be exported as a legacy (unversioned) capsule")
	// ErrCopyNeeded: copy=False but the exchange needs a copy (P4, C7).
	ErrCopyNeeded = newErr(ClassBuffer, "copy=False but a copy is needed")
	// ErrStream: a stream value the device cannot honour (P5).
	ErrStream = newErr(ClassBuffer, "unsupported stream")
	// ErrConsumed: a capsule already consumed (named used_*) (C3).
	ErrConsumed = newErr(ClassBuffer, "DLPack capsule already consumed")

	// Arguments.

	// ErrReadOnly: a write to a read-only array.
	ErrReadOnly = newErr(ClassValue, "array is read-only")
	// ErrMaxVersion: max_version is not a 2-tuple of ints (P1).
	ErrMaxVersion = newErr(ClassType, "max_version must be None or a 2-tuple of ints")
	// ErrCopyArg: copy is not None, True or False (P4).
	ErrCopyArg = newErr(ClassValue, "copy must be None, True or False")
	// ErrDLDeviceArg: dl_device is not None or a 2-tuple of ints (P3).
	ErrDLDeviceArg = newErr(ClassType, "dl_device must be None or a 2-tuple (device_type, device_id)")
	// ErrIndex: an index out of range.
	ErrIndex = newErr(ClassIndex, "index out of range")
	// ErrAxis: an axis out of range or repeated. ValueError everywhere
	// (transpose, reductions, Slice), as the Array API says; numpy's
	// AxisError is a ValueError too.
	ErrAxis = newErr(ClassValue, "axis out of range")
	// ErrReshape: a new shape whose size differs, or that needs a copy.
	ErrReshape = newErr(ClassValue, "cannot reshape")
	// ErrReleased: an operation on a released array.
	ErrReleased = newErr(ClassValue, "array has been released")
	// ErrBroadcast: operand shapes that numpy's broadcasting rules cannot
	// align (element-wise comparisons).
	ErrBroadcast = newErr(ClassValue, "operands could not be broadcast together")
	// ErrUnsupported: an operation not supported for this dtype or device.
	ErrUnsupported = newErr(ClassType, "operation not supported")
	// ErrNoIdentity: min or max of a size-0 reduction (no identity).
	ErrNoIdentity = newErr(ClassValue, "zero-size reduction has no identity")

	// Environment.

	// ErrForkChild: an operation not allowed in a forked child process.
	ErrForkChild = newErr(ClassRuntime, "not supported in a forked child process")
	// ErrInternal: a recovered panic or broken invariant (a bug).
	ErrInternal = newErr(ClassRuntime, "internal error")
	// ErrKit: a Go kit's plugin that the extension cannot load (Go's
	// plugin package refused it, or a registration of its failed).
	ErrKit = newErr(ClassRuntime, "a Go kit cannot be loaded")
	// ErrArrow: an array that Arrow's C data interface cannot carry (not
	// 1-d, a dtype Arrow lacks, device memory): core/arrow.c.
	ErrArrow = newErr(ClassBuffer, "Arrow's C data interface cannot carry this array")

	// What the Python skin checks before core is asked (argument shapes,
	// capsules, the buffer protocol). The skin raises them by number
	// (GD_E_* of the generated pyext/errors_gen.h) with the class given here.

	// ErrCapsule: an object passed as a DLPack capsule that is not one, or
	// holds a NULL pointer (C2).
	ErrCapsule = newErr(ClassBuffer, "not a DLPack capsule")
	// ErrProducer: the producer's __dlpack__ failed or refused the tensor
	// (torch's grad/conj/neg refusals, a refused host copy).
	ErrProducer = newErr(ClassBuffer, "the producer cannot export the tensor")
	// ErrBufferRequest: a buffer-protocol request (memoryview, asarray of a
	// buffer) the array or buffer cannot serve; PEP 3118 names BufferError.
	ErrBufferRequest = newErr(ClassBuffer, "the buffer protocol cannot serve this request")
	// ErrShapeArg: a shape argument that is not one: negative or beyond 64
	// bits, too many dimensions, ragged nested lists, arrays of different
	// shapes stacked.
	ErrShapeArg = newErr(ClassValue, "invalid shape argument")
	// ErrAmbiguous: the truth value of an array of more than one element.
	ErrAmbiguous = newErr(ClassValue, "the truth value of an array with more than one element is ambiguous")
	// ErrPickle: pickled data that does not describe an array.
	ErrPickle = newErr(ClassValue, "invalid pickled array")
	// ErrArgument: another argument value the skin refuses (a NULL pointer
	// through the C exchange API, a view of another itemsize).
	ErrArgument = newErr(ClassValue, "invalid argument")
	// ErrArgType: an argument of the wrong type, or a call with the wrong
	// number of arguments or an unknown keyword (Python's TypeError of a
	// call): what the skin's argument parsing refuses.
	ErrArgType = newErr(ClassType, "an argument of the wrong type")
	// ErrOutOfRange: a Python integer out of the range of the dtype it is
	// stored into, or a size beyond what a C integer holds.
	ErrOutOfRange = newErr(ClassOverflow, "a number out of the range its type holds")
	// ErrInit: the extension module cannot be initialised (a Go function
	// that cannot be registered, a second initialisation, no fork hook).
	ErrInit = newErr(ClassImport, "the extension module cannot be initialised")
)

// ClassException is a sentinel that maps to another class in one named
// situation (WithClass): the only departures from a sentinel's class.
type ClassException struct {
	Name  string // GD_X_<NAME> in pyext/errors_gen.h
	Err   *Error
	Class Class
	When  string // docs/exceptions.md
}

// ClassExceptions lists every such departure, in a fixed order.
var ClassExceptions = []ClassException{
	{"DeviceArg", ErrDevice, ClassValue, "a device argument that names no device, or an id out of range (ParseDevice)"},
	{"DTypeName", ErrDType, ClassValue, "a dtype name that names no dtype (ParseDataType)"},
	{"Cast", ErrDType, ClassType, "a conversion, accumulation or promotion the kernels do not make (astype, sum(dtype=), asarray of a stacked list)"},
	{"OutShape", ErrShape, ClassValue, "out= of another shape than the result (reductions)"},
	{"TooBig", ErrOverflow, ClassValue, "a shape whose elements or bytes overflow int64 (numpy's \"array is too big\")"},
}

// Sentinel is one entry of Sentinels.
type Sentinel struct {
	Name string
	Err  *Error
}

// Sentinels lists every sentinel once, in a fixed order: the generated
// pyext/errors_gen.h numbers them (GD_E_*, the order here) with their
// classes, and docs/exceptions.md lists them; `make tables` writes both.
var Sentinels = []Sentinel{
	{"ErrNoMemory", ErrNoMemory}, {"ErrVersion", ErrVersion}, {"ErrNdim", ErrNdim}, {"ErrShape", ErrShape},
	{"ErrOverflow", ErrOverflow}, {"ErrDType", ErrDType}, {"ErrLanes", ErrLanes}, {"ErrSubByte", ErrSubByte},
	{"ErrSubByteView", ErrSubByteView}, {"ErrDevice", ErrDevice}, {"ErrNullData", ErrNullData},
	{"ErrNullShape", ErrNullShape}, {"ErrByteOffset", ErrByteOffset}, {"ErrStrides", ErrStrides},
	{"ErrReadOnlyLegacy", ErrReadOnlyLegacy}, {"ErrCopyNeeded", ErrCopyNeeded}, {"ErrStream", ErrStream},
	{"ErrConsumed", ErrConsumed}, {"ErrReadOnly", ErrReadOnly}, {"ErrMaxVersion", ErrMaxVersion},
	{"ErrCopyArg", ErrCopyArg}, {"ErrDLDeviceArg", ErrDLDeviceArg}, {"ErrIndex", ErrIndex}, {"ErrAxis", ErrAxis},
	{"ErrReshape", ErrReshape}, {"ErrReleased", ErrReleased}, {"ErrBroadcast", ErrBroadcast},
	{"ErrUnsupported", ErrUnsupported}, {"ErrNoIdentity", ErrNoIdentity}, {"ErrForkChild", ErrForkChild},
	{"ErrInternal", ErrInternal}, {"ErrCapsule", ErrCapsule},
	{"ErrProducer", ErrProducer}, {"ErrBufferRequest", ErrBufferRequest}, {"ErrShapeArg", ErrShapeArg},
	{"ErrAmbiguous", ErrAmbiguous}, {"ErrPickle", ErrPickle}, {"ErrArgument", ErrArgument},
	{"ErrKit", ErrKit}, {"ErrArrow", ErrArrow}, {"ErrArgType", ErrArgType}, {"ErrOutOfRange", ErrOutOfRange},
	{"ErrInit", ErrInit},
}

// classed wraps a sentinel with a different class and its own message.
type classed struct {
	msg   string
	err   error
	class Class
}

func (c *classed) Error() string { return c.msg }
func (c *classed) Unwrap() error { return c.err }
func (c *classed) Class() Class  { return c.class }

// WithClass returns an error with message msg that wraps err (errors.Is still
// finds err's sentinel) but maps to class instead of the sentinel's class.
func WithClass(class Class, msg string, err error) error {
	return &classed{msg: msg, err: err, class: class}
}

// ClassOf returns the class of the outermost classed error in err's chain
// (a sentinel or a WithClass wrapper), or ClassRuntime when there is none.
func ClassOf(err error) Class {
	var c interface{ Class() Class }
	if errors.As(err, &c) {
		return c.Class()
	}
	return ClassRuntime
}

// errorf returns an error with a formatted message that wraps sentinel and
// has its class. Use it on error paths only (it allocates).
func errorf(sentinel *Error, format string, args ...any) error {
	return &classed{msg: fmt.Sprintf(format, args...), err: sentinel, class: sentinel.class}
}

// CutUTF8 is s cut to at most n bytes at a character boundary: a message
// cut to fit the skin's buffer stays valid UTF-8 (a cut inside a character
// would make Python's decoding of the whole message fail).
func CutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
