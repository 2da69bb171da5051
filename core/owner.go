package core

/*
#include "godlpack.h"
*/
import "C"

import (
	"sync/atomic"
	"unsafe"
)

// Owner is a refcounted owner of memory, allocated in C (gd_owner). When the
// last reference goes it frees our buffer or calls the foreign deleter, in C,
// without the Go runtime. Every Array and every exported managed tensor holds
// one reference.
type Owner C.gd_owner

// OwnerKind says what an Owner releases.
type OwnerKind int32

// Owner kinds. C twin: GD_OWN_* in godlpack.h.
const (
	OwnNone      OwnerKind = C.GD_OWN_NONE      // borrowed memory
	OwnFree      OwnerKind = C.GD_OWN_FREE      // free_fn(ptr)
	OwnLegacy    OwnerKind = C.GD_OWN_LEGACY    // foreign DLManagedTensor
	OwnVersioned OwnerKind = C.GD_OWN_VERSIONED // foreign DLManagedTensorVersioned
)

// NewOwner returns an owner with one reference. ptr must be C memory (or a
// foreign managed tensor); freeFn is a C function pointer void(*)(void*) used
// by OwnFree. It returns ErrNoMemory when malloc fails.
func NewOwner(kind OwnerKind, ptr unsafe.Pointer, freeFn unsafe.Pointer) (*Owner, error) {
	o := C.gd_owner_new(C.int32_t(kind), ptr, (*[0]byte)(freeFn))
	if o == nil {
		return nil, ErrNoMemory
	}
	return (*Owner)(o), nil
}

// InitOwner makes the C memory at block (at least sizeof(gd_owner) bytes,
// from malloc: the last Release frees it with free) an owner with one
// reference, without a call into C: the CPython skin allocates the block
// before its one call into Go, which keeps imports at a single crossing.
func InitOwner(block unsafe.Pointer, kind OwnerKind, ptr unsafe.Pointer, freeFn unsafe.Pointer) *Owner {
	o := (*Owner)(block)
	o.refs = 1
	o.kind = C.int32_t(kind)
	o.marks = 0
	o.ptr = ptr
	o.free_fn = (*[0]byte)(freeFn)
	return o
}

// Retain adds a reference. It is the same relaxed atomic increment as the C
// gd_owner_incref (core/owner.c uses __atomic builtins on the same aligned
// int64), done in Go to save a Go->C call on every export.
func (o *Owner) Retain() { atomic.AddInt64((*int64)(unsafe.Pointer(&o.refs)), 1) }

// Release drops a reference; the last one releases the memory.
func (o *Owner) Release() { C.gd_owner_decref((*C.gd_owner)(o)) }

// Refs returns the current reference count (for tests and diagnostics).
func (o *Owner) Refs() int64 { return atomic.LoadInt64((*int64)(unsafe.Pointer(&o.refs))) }

// MarkAllocated records that the owner's memory is a buffer godlpack
// allocated, so that the first Python Array over it counts the bytes as its
// own (GD_OWNER_ALLOCATED; sys.getsizeof, as numpy's owned data).
func (o *Owner) MarkAllocated() { o.marks |= C.GD_OWNER_ALLOCATED }

// Kind returns what the owner releases.
func (o *Owner) Kind() OwnerKind { return OwnerKind(o.kind) }
