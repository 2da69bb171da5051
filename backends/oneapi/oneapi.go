package oneapi

/*
#cgo LDFLAGS: -ldl -lpthread
#include <stdlib.h>
#include "dpctl.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/godlpack/godlpack/backends"
)

// KDLOneAPI is DLPack's device type of oneAPI (SYCL) memory.
const KDLOneAPI backends.DeviceType = 14

// Backend serves kDLOneAPI memory through dpctl's C library. Its zero value
// is ready to use; the library is loaded on first use.
type Backend struct{}

var (
	_ backends.Backend        = Backend{}
	_ backends.PointerBackend = Backend{}
	_ backends.StreamBackend  = Backend{}
)

func init() { backends.Register(Backend{}) }

var (
	pathMu sync.Mutex
	path   *C.char // set by SetLibrary, C memory for the life of the process
)

// SetLibrary names the file of dpctl's C library to load when it is not
// already loaded in the process (Python: dirname(dpctl.__file__) +
// "/libDPCTLSyclInterface.so"). It has no effect once the library is loaded.
func SetLibrary(file string) {
	pathMu.Lock()
	defer pathMu.Unlock()
	if path == nil {
		path = C.CString(file)
	}
}

// Load loads dpctl's C library and enumerates the SYCL devices, once. It
// returns an error wrapping backends.ErrUnavailable that says what to install
// or set when the library cannot be loaded.
func Load() error {
	pathMu.Lock()
	p := path
	pathMu.Unlock()
	if rc := C.gd_oneapi_load(p); rc != C.GD_ONEAPI_OK {
		return fmt.Errorf("%s: %w", C.GoString(C.gd_oneapi_error()), backends.ErrUnavailable)
	}
	return nil
}

// NumDevices returns the number of SYCL root devices (0 before Load).
func NumDevices() int { return int(C.gd_oneapi_num_devices()) }

// statusErr turns a GD_ONEAPI_* status into an error.
func statusErr(id int32, st C.int) error {
	switch st {
	case C.GD_ONEAPI_OK:
		return nil
	case C.GD_ONEAPI_NO_LIBRARY:
		return Load()
	case C.GD_ONEAPI_NO_DEVICE:
		return fmt.Errorf("no SYCL device oneapi:%d (%d found); check dpctl.get_devices(), and set OCL_ICD_FILENAMES "+
			"to the OpenCL runtime (e.g. <venv>/lib/libintelocl.so) when no CPU device is found: %w",
			id, NumDevices(), backends.ErrNoDevice)
	case C.GD_ONEAPI_NO_MEMORY:
		return backends.ErrNoMemory
	case C.GD_ONEAPI_FOREIGN:
		return fmt.Errorf("the data pointer is not USM memory of oneapi:%d's SYCL context: %w", id, backends.ErrForeignPointer)
	}
	return fmt.Errorf("oneAPI status %d: %w", int(st), backends.ErrUnavailable)
}

// ready loads the library (first call) and checks the device id.
func ready(id int32) error {
	if err := Load(); err != nil {
		return err
	}
	if id < 0 || int(id) >= NumDevices() {
		return statusErr(id, C.GD_ONEAPI_NO_DEVICE)
	}
	return nil
}

// Type returns kDLOneAPI.
func (Backend) Type() backends.DeviceType { return KDLOneAPI }

// HostAccessible is false: whether the CPU can address oneAPI memory is a
// property of each pointer (PointerInfo).
func (Backend) HostAccessible() bool { return false }

// FoldsByteOffset is false: dpctl keeps data at the start of the USM
// allocation and the first element in byte_offset, and checks data against
// its context; godlpack does the same both ways.
func (Backend) FoldsByteOffset() bool { return false }

// Allocate returns n bytes of device USM on device id (256-byte aligned).
func (Backend) Allocate(id int32, n int64, zero bool) (unsafe.Pointer, error) {
	if n < 0 {
		return nil, backends.ErrInvalidSize
	}
	if err := ready(id); err != nil {
		return nil, err
	}
	z := C.int(0)
	if zero {
		z = 1
	}
	var st C.int
	p := C.gd_oneapi_alloc(C.int32_t(id), C.size_t(n), z, &st)
	if p == nil {
		return nil, statusErr(id, st)
	}
	return p, nil
}

// Free releases memory from Allocate.
func (Backend) Free(p unsafe.Pointer) { C.gd_oneapi_free(p) }

// FreeFunc returns the C free function for owners.
func (Backend) FreeFunc() unsafe.Pointer { return C.gd_oneapi_free_fn() }

func (Backend) memcpy(id int32, dst, src unsafe.Pointer, n int64) error {
	if n <= 0 {
		return nil
	}
	if err := ready(id); err != nil {
		return err
	}
	if rc := C.gd_oneapi_memcpy(C.int32_t(id), dst, src, C.size_t(n)); rc != 0 {
		return statusErr(id, -rc)
	}
	return nil
}

// Copy copies n bytes within device id's memory through the queue.
func (b Backend) Copy(id int32, dst, src unsafe.Pointer, n int64) error {
	return b.memcpy(id, dst, src, n)
}

// CopyFromHost copies n bytes of host memory to device id, and waits.
func (b Backend) CopyFromHost(id int32, dst, src unsafe.Pointer, n int64) error {
	return b.memcpy(id, dst, src, n)
}

// CopyToHost copies n bytes from device id to host memory, and waits.
func (b Backend) CopyToHost(id int32, dst, src unsafe.Pointer, n int64) error {
	return b.memcpy(id, dst, src, n)
}

// Synchronize waits for the work of godlpack's queue on device id (there is
// none left: every operation waits for its own event).
func (Backend) Synchronize(id int32) error {
	if err := ready(id); err != nil {
		return err
	}
	return statusErr(id, -C.gd_oneapi_wait(C.int32_t(id)))
}

// PointerInfo reports whether the CPU can address p, a pointer into USM
// memory of device id, as the SYCL runtime describes it.
func (Backend) PointerInfo(id int32, p unsafe.Pointer) (bool, error) {
	if err := ready(id); err != nil {
		return false, err
	}
	rc := C.gd_oneapi_pointer_info(C.int32_t(id), p)
	if rc < 0 {
		return false, statusErr(id, -rc)
	}
	return rc == 1, nil
}

// ConsumerStream returns godlpack's in-order queue on device id (a
// DPCTLSyclQueueRef that lives as long as the process). Python wraps it in a
// dpctl.SyclQueue: the stream godlpack hands producers, and the syclobj of
// its __sycl_usm_array_interface__.
func (Backend) ConsumerStream(id int32) (unsafe.Pointer, error) {
	if err := ready(id); err != nil {
		return nil, err
	}
	return C.gd_oneapi_queue(C.int32_t(id)), nil
}
