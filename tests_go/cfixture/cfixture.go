// Package cfixture builds DLPack managed tensors in C memory for tests: any
// field value, hostile ones included (wrong versions, NULL shape or strides,
// odd dtypes, devices, flags and byte offsets, NULL deleters), with counting
// deleters. cgo cannot be used in _test.go files, so the test suites import
// this package.
//
// Memory: every struct, shape and strides array ends exactly where an
// inaccessible page begins, so a reader that goes one byte past what the
// struct promises faults (with debug.SetPanicOnFault(true) the fault becomes
// a recoverable panic). Truncated maps only the version, manager_ctx and
// deleter of a versioned struct: reading anything else faults.
//
// Deleters: the fixture deleters only count their calls (per struct, and in
// a process-wide total); they free nothing, so the counters stay readable
// after the consumer is done. Free releases a fixture (struct, shape,
// strides, data) and must be called exactly once, after the last use.
package cfixture

/*
#cgo CFLAGS: -I${SRCDIR}/../../core
#include <stdlib.h>
#include <string.h>
#include "cfixture.h"

static void *cf_calloc_aligned(size_t n) {
  void *p = NULL;
  if (posix_memalign(&p, 256, n == 0 ? 1 : n) != 0) return NULL;
  memset(p, 0, n == 0 ? 1 : n);
  return p;
}
static void *cf_free_fn(void) { return (void *)free; }
*/
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/core"
)

// Spec lists the field values of a fixture tensor. Every field is written
// verbatim; nothing is checked.
type Spec struct {
	Version     core.Version   // versioned only
	Flags       uint64         // versioned only
	ManagerCtx  unsafe.Pointer // nil: the fixture's own record
	NullDeleter bool           // store a NULL deleter

	// Data: when DataBytes > 0 the fixture allocates that many zeroed bytes
	// (64-byte aligned, freed by Free) and stores their address; otherwise
	// Data is stored (nil gives a NULL data pointer). Data must be C memory.
	DataBytes int64
	Data      unsafe.Pointer
	// DataAddr, when not 0, is stored as the data pointer instead (an
	// address that is not memory, for address-space tests; never read).
	DataAddr uintptr

	Device     core.Device
	Ndim       int32
	DType      core.DataType
	Shape      []int64 // nil: NULL; else a guarded copy of len(Shape) entries
	Strides    []int64 // nil: NULL; else a guarded copy of len(Strides) entries
	ByteOffset uint64
}

// Tensor is either managed tensor struct.
type Tensor interface {
	core.DLManagedTensor | core.DLManagedTensorVersioned
}

// Versioned builds a DLManagedTensorVersioned from s. It panics if C memory
// runs out.
func Versioned(s Spec) *core.DLManagedTensorVersioned {
	p := newStruct(C.CF_VERSIONED)
	m := (*core.DLManagedTensorVersioned)(p)
	m.Version = s.Version
	m.Flags = s.Flags
	if s.ManagerCtx != nil {
		m.ManagerCtx = s.ManagerCtx
	}
	if s.NullDeleter {
		m.Deleter = nil
	}
	fill(p, &m.DLTensor, &s)
	return m
}

// Legacy builds a DLManagedTensor from s (Version and Flags are ignored).
func Legacy(s Spec) *core.DLManagedTensor {
	p := newStruct(C.CF_LEGACY)
	m := (*core.DLManagedTensor)(p)
	if s.ManagerCtx != nil {
		m.ManagerCtx = s.ManagerCtx
	}
	if s.NullDeleter {
		m.Deleter = nil
	}
	fill(p, &m.DLTensor, &s)
	return m
}

// Truncated builds a versioned struct of which only version, manager_ctx
// and the counting deleter are mapped: any read of flags or dl_tensor
// faults. Use it for tensors whose major version is not 1 (DLPack S1).
func Truncated(v core.Version) *core.DLManagedTensorVersioned {
	p := newStruct(C.CF_TRUNCATED)
	m := (*core.DLManagedTensorVersioned)(p)
	m.Version = v
	return m
}

func newStruct(kind C.int) unsafe.Pointer {
	p := C.cf_new(kind)
	if p == nil {
		panic("cfixture: out of memory")
	}
	return p
}

func fill(p unsafe.Pointer, t *core.DLTensor, s *Spec) {
	switch {
	case s.DataBytes > 0:
		t.Data = C.cf_alloc_data(p, C.size_t(s.DataBytes))
		if t.Data == nil {
			panic("cfixture: out of memory")
		}
	case s.DataAddr != 0:
		C.cf_set_data(p, C.uintptr_t(s.DataAddr))
	default:
		t.Data = s.Data
	}
	t.Device = s.Device
	t.Ndim = s.Ndim
	t.DType = s.DType
	t.ByteOffset = s.ByteOffset
	if s.Shape != nil && C.cf_set_shape(p, ptr(s.Shape), C.size_t(len(s.Shape))) != 0 {
		panic("cfixture: out of memory")
	}
	if s.Strides != nil && C.cf_set_strides(p, ptr(s.Strides), C.size_t(len(s.Strides))) != 0 {
		panic("cfixture: out of memory")
	}
}

func ptr(s []int64) *C.int64_t {
	if len(s) == 0 {
		return nil
	}
	return (*C.int64_t)(unsafe.Pointer(&s[0]))
}

// Calls returns how many times the fixture deleter of m has run.
func Calls[T Tensor](m *T) int64 { return int64(C.cf_calls(unsafe.Pointer(m))) }

// Free releases a fixture built by Versioned, Legacy or Truncated. It does
// not call the deleter.
func Free[T Tensor](m *T) { C.cf_free(unsafe.Pointer(m)) }

// Total returns the number of fixture deleter calls since the last
// ResetTotal, over all fixtures.
func Total() int64 { return int64(C.cf_total()) }

// ResetTotal sets Total back to 0.
func ResetTotal() { C.cf_reset_total() }

// DeleterVersioned and DeleterLegacy return the counting deleters as C
// function pointers (to store in structs built another way).
func DeleterVersioned() unsafe.Pointer { return C.cf_deleter_for(C.CF_VERSIONED) }

// DeleterLegacy: see DeleterVersioned.
func DeleterLegacy() unsafe.Pointer { return C.cf_deleter_for(C.CF_LEGACY) }

// Alloc returns n zeroed bytes of C memory aligned to 256 bytes (n may be
// 0). Release it with FreeMem, or hand it to an owner with FreeFunc.
func Alloc(n int64) unsafe.Pointer {
	p := C.cf_calloc_aligned(C.size_t(n))
	if p == nil {
		panic("cfixture: out of memory")
	}
	return p
}

// FreeMem releases memory from Alloc.
func FreeMem(p unsafe.Pointer) { C.free(p) }

// FreeFunc returns C's free as a C function pointer, for core.NewOwner with
// core.OwnFree.
func FreeFunc() unsafe.Pointer { return C.cf_free_fn() }

// Guarded returns a copy of v in C memory that ends where an inaccessible
// page begins, and a function that releases it.
func Guarded(v []int64) (*int64, func()) {
	var m unsafe.Pointer
	var n C.size_t
	p := C.cf_guarded(C.size_t(8*len(v)), &m, &n)
	if p == nil {
		panic("cfixture: out of memory")
	}
	if len(v) > 0 {
		C.memcpy(p, unsafe.Pointer(&v[0]), C.size_t(8*len(v)))
	}
	return (*int64)(p), func() { C.cf_unmap(m, n) }
}
