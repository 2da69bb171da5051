package backends

import (
	"errors"
	"unsafe"
)

// DeviceType is DLPack's DLDeviceType numbering (kDLCPU = 1, kDLCUDA = 2,
// ...). It mirrors core.DeviceType without importing core.
type DeviceType = int32

// MaxDeviceType is the largest device type DLPack 1.3 defines (kDLTrn).
const MaxDeviceType DeviceType = 18

// Device is a DLPack device: a type and an id. It mirrors core.Device.
type Device struct {
	Type DeviceType
	ID   int32
}

// Backend allocates, frees and copies memory of one device type, and says
// how that memory may be addressed. core chooses the backend by the device
// of an array (For); a new device is a new package that registers one.
//
// Implementations must be safe for concurrent use and must not allocate on
// the Go heap in Allocate, Free and the copies (these run on hot paths).
type Backend interface {
	// Type returns the device type whose memory this backend serves.
	Type() DeviceType
	// HostAccessible reports whether the CPU may read and write this
	// memory through its data pointers (kDLCPU: yes; device-only memory:
	// no). core gives the buffer protocol, tolist and the Go kernels only
	// such memory.
	HostAccessible() bool
	// FoldsByteOffset is the device's byte_offset policy. true: data
	// pointers are plain addresses, so an import adds byte_offset to data
	// and an export points data at the first element with byte_offset 0.
	// false: data may be an opaque handle (DLPack allows it for OpenCL,
	// Vulkan, Metal, ...): data is kept as the producer gave it and the
	// offset travels in byte_offset.
	FoldsByteOffset() bool
	// Allocate returns n bytes of memory on device id, aligned to at least
	// Alignment bytes, zeroed when zero is set. n == 0 returns a valid,
	// unique pointer that must be freed like any other (never nil on
	// success). n < 0 returns ErrInvalidSize; a failed allocation returns
	// ErrNoMemory.
	Allocate(id int32, n int64, zero bool) (unsafe.Pointer, error)
	// Free releases memory returned by Allocate. Free(nil) does nothing.
	Free(p unsafe.Pointer)
	// FreeFunc returns a C function pointer void(*)(void*) equivalent to
	// Free, callable from C without the Go runtime. Owners store it.
	FreeFunc() unsafe.Pointer
	// Copy copies n bytes from src to dst, both on device id. The regions
	// may overlap. n <= 0 does nothing.
	Copy(id int32, dst, src unsafe.Pointer, n int64) error
	// CopyFromHost copies n bytes of host memory src to dst on device id.
	CopyFromHost(id int32, dst, src unsafe.Pointer, n int64) error
	// CopyToHost copies n bytes from src on device id to host memory dst.
	CopyToHost(id int32, dst, src unsafe.Pointer, n int64) error
	// Synchronize waits for all work queued on device id.
	Synchronize(id int32) error
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

// PointerBackend is implemented by backends whose memory kind is a property
// of each allocation rather than of the device type: oneAPI's USM pointers
// may be device, shared or host memory, and device memory of a CPU device is
// host memory too. core asks it about every tensor it describes on such a
// device instead of trusting HostAccessible alone.
type PointerBackend interface {
	Backend
	// PointerInfo reports whether the CPU may address the memory at p
	// (a pointer into memory of device id, never nil) through plain loads
	// and stores. It returns an error when p is not memory that this
	// backend can serve on device id (an unknown pointer, a device that
	// does not exist, a runtime that cannot be loaded); the error names
	// what to install or set.
	PointerInfo(id int32, p unsafe.Pointer) (hostAccessible bool, err error)
}

// ErrUnavailable wraps the errors of a backend whose runtime cannot be
// loaded or has no such device; core maps it to a BufferError.
var ErrUnavailable = errors.New("backends: device runtime unavailable")

// ErrForeignPointer: a pointer that the device's runtime does not know.
var ErrForeignPointer = errors.New("backends: pointer unknown to the device runtime")

// ErrNoDevice: the runtime is loaded but has no device with that id.
var ErrNoDevice = errors.New("backends: no such device")

// StreamBackend is implemented by backends whose producers finish their
// queued work for a consumer only when handed the consumer's stream: dpctl's
// __dlpack__(stream=None) synchronises nothing, so a dpnp array's kernel may
// still be writing when the capsule arrives. core then asks the producer
// again with the stream of godlpack's own queue on the tensor's device and
// waits for that queue (Synchronize) before the memory is used.
type StreamBackend interface {
	Backend
	// ConsumerStream returns godlpack's queue on device id as the runtime's
	// handle (oneAPI: a DPCTLSyclQueueRef, valid for the life of the
	// process). It returns an error wrapping ErrUnavailable when the runtime
	// is not loaded, ErrNoDevice when there is no such device.
	ConsumerStream(id int32) (unsafe.Pointer, error)
}
