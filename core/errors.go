package core

import "errors"

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
)

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
var (
	ErrNoMemory = newErr(ClassMemory, "out of memory")
)

// ClassOf returns the class of err's sentinel, or ClassRuntime when err wraps
// none.
func ClassOf(err error) Class {
	var e *Error
	if errors.As(err, &e) {
		return e.class
	}
	return ClassRuntime
}
