// Package backends describes where godlpack tensor memory lives and how it is
// allocated, freed, copied and synchronised on a device.
//
// A backend is a small value that implements Backend and registers itself for
// its device type from an init function (Register); core finds it with For
// and allocates, frees and copies through it, and asks it whether the CPU can
// read its memory and how its tensors carry byte_offset. Package cpu serves
// host memory (kDLCPU) with 256-byte aligned C memory from malloc; a oneAPI or
// CUDA backend is one more package, without edits to core.
//
// # Ownership and lifetime
//
// Tensor memory is always C (or device) memory, never the Go heap: it is
// shared with C libraries and with CPython, which keep pointers to it that
// the Go garbage collector cannot see. The core package wraps every buffer a
// backend allocates in a C refcounted owner (core.Owner, kind OwnFree) that
// stores the backend's FreeFunc: a C function pointer void(*)(void*). When
// the last reference goes (the last array view, or the last exported
// DLManagedTensor) the owner calls that function from C, on whatever thread
// drops the reference, without the Go runtime. This is what keeps deleters
// working in forked children, on foreign threads and during interpreter
// shutdown.
//
// Free (the Go method) is for buffers that never got an owner, e.g. scratch
// space of a copy kernel or the failure path of an allocation.
//
// # Dependencies
//
// backends never imports core: core imports backends (and backends/cpu, so
// that the host backend is always registered). Device types are therefore
// plain int32 values with DLPack's numbering (kDLCPU = 1).
package backends
