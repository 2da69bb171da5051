package core

import (
	"fmt"
	"unsafe"
)

// Typed access without unsafe.
//
// The slice accessors (Float64s, Int32s, ..., AsSlice, Bytes) return a Go
// slice that aliases the array's C memory: writes through it change the
// array, and it is valid until the array is released. Calling one turns the
// array's garbage-collection safety net off (see Array), so the memory stays
// until an explicit Release. A read-only array (ReadOnly: a tensor its
// producer marked read-only) has no writable slice: the accessors return
// ErrReadOnly, and ReadSlice gives a Reader, which can only read.

// Element is the set of Go types that map one-to-one onto a DLPack data
// type: bool (8-bit bool), int8..int64, uint8..uint64, float32, float64,
// complex64, complex128. float16, bfloat16 and the float8/6/4 types have no
// Go type; use Bytes or Sum for those.
type Element interface {
	bool | int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 |
		float32 | float64 | complex64 | complex128
}

// DataTypeOf returns the DLPack data type of the Go type T.
func DataTypeOf[T Element]() DataType {
	var z T
	switch any(z).(type) {
	case bool:
		return Bool
	case int8:
		return Int8
	case int16:
		return Int16
	case int32:
		return Int32
	case int64:
		return Int64
	case uint8:
		return Uint8
	case uint16:
		return Uint16
	case uint32:
		return Uint32
	case uint64:
		return Uint64
	case float32:
		return Float32
	case float64:
		return Float64
	case complex64:
		return Complex64
	default:
		return Complex128
	}
}

// typeErr is the error for a Go type that does not match the dtype.
func typeErr[T Element](where string, dt DataType) error {
	return fmt.Errorf("%s: array has dtype %v, not %v: %w", where, dt, DataTypeOf[T](), ErrDType)
}

// AsSlice returns the elements of a C-contiguous array as a []T aliasing its
// memory (see the lifetime rules above). T must match the dtype exactly
// (ErrDType); a non-C-contiguous array returns ErrStrides (use Copy first);
// a released array ErrReleased; memory the CPU cannot access ErrDevice; a
// read-only array ErrReadOnly (read it with ReadSlice, At or Values).
func AsSlice[T Element](a *Array) ([]T, error) {
	const where = "AsSlice()"
	h, err := a.live(where)
	if err != nil {
		return nil, err
	}
	if h.ReadOnly() {
		return nil, fmt.Errorf("%s: array is read-only; read it with ReadSlice, At or Values, or Copy() it: %w", where, ErrReadOnly)
	}
	return asSlice[T](where, a, h)
}

func asSlice[T Element](where string, a *Array, h Header) ([]T, error) {
	if h.DType != DataTypeOf[T]() {
		return nil, typeErr[T](where, h.DType)
	}
	p, n, err := a.contiguousData(where, h)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return []T{}, nil
	}
	return unsafe.Slice((*T)(p), n), nil
}

// Bytes returns the raw bytes of a C-contiguous array (NBytes of them, any
// dtype including packed sub-byte types), aliasing its memory. A read-only
// array returns ErrReadOnly.
func (a *Array) Bytes() ([]byte, error) {
	const where = "Bytes()"
	h, err := a.live(where)
	if err != nil {
		return nil, err
	}
	if h.ReadOnly() {
		return nil, fmt.Errorf("%s: array is read-only; read it with ReadSlice[uint8] or Copy() it: %w", where, ErrReadOnly)
	}
	if h.DType.IsSubByte() && h.Offset != 0 {
		return nil, subByteErr(where, &h)
	}
	p, n, err := a.contiguousData(where, h)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return []byte{}, nil
	}
	return unsafe.Slice((*byte)(p), a.NBytes()), nil
}

// contiguousData checks C-contiguity and the device, pins the array and
// returns the first element's address and the element count.
func (a *Array) contiguousData(where string, h Header) (unsafe.Pointer, int64, error) {
	if !isCContiguous(a.shape, a.strides) {
		return nil, 0, fmt.Errorf("%s: array is not C-contiguous; use Copy() first: %w", where, ErrStrides)
	}
	if !h.hostAccessible() {
		return nil, 0, fmt.Errorf("%s: %v memory is not accessible from the CPU: %w", where, h.Device, ErrDevice)
	}
	n := a.Size()
	if n == 0 {
		return nil, 0, nil
	}
	if h.Data == nil {
		return nil, 0, fmt.Errorf("%s: %w", where, ErrNullData)
	}
	if err := a.pin(); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", where, err)
	}
	return unsafe.Add(h.Data, h.Offset*h.DType.ItemSize()), n, nil
}

// The typed accessors below are not inlined: inlined into a kit's
// function, each would call core's instance of AsSlice, whose escape
// analysis the compiler does not carry across packages; it would then count
// the kit's array as kept, and the kit's function would lose the proof
// that lends its arrays (gofunc.SetNotKept). Called, they carry their own.

// Bools is AsSlice[bool]. DLPack bools are bytes holding 0 or 1; other
// byte values read through a []bool are undefined in Go.
//
//go:noinline
func (a *Array) Bools() ([]bool, error) { return AsSlice[bool](a) }

// Int8s is AsSlice[int8].
//
//go:noinline
func (a *Array) Int8s() ([]int8, error) { return AsSlice[int8](a) }

// Int16s is AsSlice[int16].
//
//go:noinline
func (a *Array) Int16s() ([]int16, error) { return AsSlice[int16](a) }

// Int32s is AsSlice[int32].
//
//go:noinline
func (a *Array) Int32s() ([]int32, error) { return AsSlice[int32](a) }

// Int64s is AsSlice[int64].
//
//go:noinline
func (a *Array) Int64s() ([]int64, error) { return AsSlice[int64](a) }

// Uint8s is AsSlice[uint8].
//
//go:noinline
func (a *Array) Uint8s() ([]uint8, error) { return AsSlice[uint8](a) }

// Uint16s is AsSlice[uint16].
//
//go:noinline
func (a *Array) Uint16s() ([]uint16, error) { return AsSlice[uint16](a) }

// Uint32s is AsSlice[uint32].
//
//go:noinline
func (a *Array) Uint32s() ([]uint32, error) { return AsSlice[uint32](a) }

// Uint64s is AsSlice[uint64].
//
//go:noinline
func (a *Array) Uint64s() ([]uint64, error) { return AsSlice[uint64](a) }

// Float32s is AsSlice[float32].
//
//go:noinline
func (a *Array) Float32s() ([]float32, error) { return AsSlice[float32](a) }

// Float64s is AsSlice[float64].
//
//go:noinline
func (a *Array) Float64s() ([]float64, error) { return AsSlice[float64](a) }

// Complex64s is AsSlice[complex64].
//
//go:noinline
func (a *Array) Complex64s() ([]complex64, error) { return AsSlice[complex64](a) }

// Complex128s is AsSlice[complex128].
//
//go:noinline
func (a *Array) Complex128s() ([]complex128, error) { return AsSlice[complex128](a) }

// elemPtr returns the address of element idx (negative indices count from
// the end), checking the dtype against T.
func elemPtr[T Element](where string, a *Array, h Header, idx []int64) (unsafe.Pointer, error) {
	if h.DType != DataTypeOf[T]() {
		return nil, typeErr[T](where, h.DType)
	}
	if len(idx) != len(a.shape) {
		return nil, fmt.Errorf("%s: %d indices for a %d-dimensional array: %w", where, len(idx), len(a.shape), ErrIndex)
	}
	if !h.hostAccessible() {
		return nil, fmt.Errorf("%s: %v memory is not accessible from the CPU: %w", where, h.Device, ErrDevice)
	}
	off := h.Offset
	for k, i := range idx {
		n := a.shape[k]
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return nil, fmt.Errorf("%s: index %d is out of bounds for axis %d with size %d: %w", where, idx[k], k, n, ErrIndex)
		}
		off += i * a.strides[k]
	}
	return unsafe.Add(h.Data, off*h.DType.ItemSize()), nil
}

// At returns the element at idx (one index per dimension; negative indices
// count from the end). T must match the dtype exactly. Errors: ErrDType,
// ErrIndex, ErrReleased, ErrDevice.
func At[T Element](a *Array, idx ...int64) (T, error) {
	const where = "At()"
	var z T
	h, err := a.live(where)
	if err != nil {
		return z, err
	}
	p, err := elemPtr[T](where, a, h, idx)
	if err != nil {
		return z, err
	}
	return *(*T)(p), nil
}

// Set stores v at idx (as At). Errors: ErrReadOnly, ErrDType, ErrIndex,
// ErrReleased, ErrDevice.
func Set[T Element](a *Array, v T, idx ...int64) error {
	const where = "Set()"
	h, err := a.live(where)
	if err != nil {
		return err
	}
	if h.ReadOnly() {
		return fmt.Errorf("%s: array is read-only: %w", where, ErrReadOnly)
	}
	p, err := elemPtr[T](where, a, h, idx)
	if err != nil {
		return err
	}
	*(*T)(p) = v
	return nil
}
