package backends

import (
	"errors"
	"unsafe"
)

// DeviceType is DLPack's DLDeviceType numbering (kDLCPU = 1, kDLCUDA = 2,
// ...). It mirrors core.DeviceType without importing core.
type DeviceType = int32

// Device is a DLPack device: a type and an id. It mirrors core.Device.
type Device struct {
	Type DeviceType
	ID   int32
}

// Backend allocates, frees and copies memory on one device.
//
// Implementations must be safe for concurrent use and must not allocate on
// the Go heap in Allocate, Free, Copy and Synchronize (these run on hot paths
// and in forked children).
type Backend interface {
	// Device returns the device whose memory this backend serves.
	Device() Device
	// Allocate returns n bytes of device memory aligned to at least
	// Alignment bytes. n == 0 returns a valid, unique pointer that must be
	// freed like any other (never nil on success). n < 0 returns
	// ErrInvalidSize; a failed allocation returns ErrNoMemory.
	Allocate(n int64) (unsafe.Pointer, error)
	// Free releases memory returned by Allocate. Free(nil) does nothing.
	Free(p unsafe.Pointer)
	// FreeFunc returns a C function pointer void(*)(void*) equivalent to
	// Free, callable from C without the Go runtime. Owners store it.
	FreeFunc() unsafe.Pointer
	// Copy copies n bytes from src to dst, both on this device. The regions
	// may overlap. n <= 0 does nothing.
	Copy(dst, src unsafe.Pointer, n int64) error
	// Synchronize waits for all work queued on the device (a no-op on CPU).
	Synchronize() error
}

// Alignment is the byte alignment of every allocation a backend returns.
// It equals core.Alignment (GD_ALIGNMENT in core/godlpack.h).
const Alignment = 256

// Errors returned by backends. core maps ErrNoMemory to core.ErrNoMemory.
var (
	// ErrNoMemory: the allocation failed.
	ErrNoMemory = errors.New("backends: out of memory")
	// ErrInvalidSize: a negative size.
	ErrInvalidSize = errors.New("backends: negative allocation size")
)
