// Package oneapi is the memory backend of kDLOneAPI devices (SYCL, through
// dpctl). It registers itself for kDLOneAPI from init; package core imports
// it (core/backend.go), so every program that uses core, the CPython module
// included, has the same devices.
//
// Nothing is loaded at init: dpctl's C library (libDPCTLSyclInterface.so,
// shipped beside the dpctl Python package) is opened with dlopen the first
// time a oneAPI device is needed: the copy already loaded in the process when
// dpctl was imported, else SetLibrary's path, else $GODLPACK_DPCTL_LIB. A
// program without dpctl builds, runs, and gets ErrUnavailable (a BufferError
// in Python) naming what to install only when it asks for a oneAPI device.
//
// # Devices, contexts and pointers
//
// Device ids are dpctl's: the position of the SYCL root device among all
// devices of all backends (SyclDevice.get_device_id, __dlpack_device__).
// Memory is allocated as device USM, 256-byte aligned, in the context dpctl
// caches for the device (DPCTLDeviceMgr_GetCachedContext), which is the
// context dpctl checks imported pointers against: dpnp takes godlpack's
// tensors zero-copy, and godlpack takes dpnp's.
//
// Whether the CPU can address a pointer is a property of the pointer:
// shared and host USM are host memory, and so is device USM of a CPU device.
// PointerInfo answers from the runtime (DPCTLUSM_GetPointerType and the
// pointer's device); a pointer the device's context does not know is
// refused (ErrForeignPointer).
//
// # Queues
//
// Every device has one in-order queue of godlpack's own. Copies and fills
// wait for their event before returning, so godlpack never leaves work
// queued: a tensor it hands out is complete, whatever stream the consumer
// names.
package oneapi
