// Package cpu is the host-memory backend: 256-byte aligned C memory from
// malloc (aligned inside an over-allocated block, the block's pointer kept
// just below the aligned one), released only with Free or FreeFunc, never
// with a plain free(). Buffers of 4 MiB and more are advised MADV_HUGEPAGE.
//
// Zero-size allocations return a valid, unique, non-nil pointer (a one-byte
// aligned block) that must be freed like any other; callers never have to
// special-case NULL.
//
// Memory from this package is never Go-heap memory, so it may be stored in C
// structures, handed to CPython and to other DLPack consumers, and freed from
// any thread through FreeFunc without the Go runtime.
package cpu
