/* hostalloc.h: the CPU allocator, in C. backends/cpu allocates every host
 * buffer with it, and the CPython skin's forked child (which must never call
 * Go: pyext/nogo.c) allocates with the same functions, so either frees what
 * the other made. Go's build cache does not see this header (it is outside
 * the packages that include it): a change here needs a change in
 * backends/cpu and pyext too, or their cached objects keep the old code. */
#ifndef GD_BACKENDS_HOSTALLOC_H
#define GD_BACKENDS_HOSTALLOC_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hugepage.h"

// gd_cpu_alloc returns n bytes aligned to align (a power of two), or NULL.
// n == 0 allocates one byte so that the pointer is valid, unique and
// freeable. The memory comes from plain malloc, over-allocated by align plus
// one pointer; the pointer malloc returned is kept just below the aligned
// one for gd_cpu_free. (posix_memalign fragments glibc's heap for large
// sizes: every freed block is smaller than the next request, so each new
// 8 MiB buffer came from fresh pages, 2048 page faults, 10x numpy's copy.)
//
// Large buffers are advised huge pages (gd_advise_huge, hugepage.h).
static inline void *gd_cpu_alloc(size_t n, size_t align) {
	if (n == 0) n = 1;
	if (align < sizeof(void *)) align = sizeof(void *);
	size_t extra = align - 1 + sizeof(void *);
	if (n > SIZE_MAX - extra) return NULL;
	char *base = (char *)malloc(n + extra);
	if (base == NULL) return NULL;
	uintptr_t p = ((uintptr_t)base + sizeof(void *) + align - 1) & ~(uintptr_t)(align - 1);
	((void **)p)[-1] = base;
	gd_advise_huge((void *)p, n);
	return (void *)p;
}

// gd_cpu_alloc_zeroed is gd_cpu_alloc of zeroed memory from calloc, which
// takes large blocks straight from mmap: their pages are zero without being
// written, so a big zeros() costs no memory until it is used (as numpy's),
// and a size the system cannot back fails here rather than later.
static inline void *gd_cpu_alloc_zeroed(size_t n, size_t align) {
	if (n == 0) n = 1;
	if (align < sizeof(void *)) align = sizeof(void *);
	size_t extra = align - 1 + sizeof(void *);
	if (n > SIZE_MAX - extra) return NULL;
	char *base = (char *)calloc(1, n + extra);
	if (base == NULL) return NULL;
	uintptr_t p = ((uintptr_t)base + sizeof(void *) + align - 1) & ~(uintptr_t)(align - 1);
	((void **)p)[-1] = base;
	gd_advise_huge((void *)p, n);
	return (void *)p;
}

// gd_cpu_free is what owners call, from C, on the last reference: it frees
// what gd_cpu_alloc got from malloc.
static inline void gd_cpu_free(void *p) {
	if (p != NULL) free(((void **)p)[-1]);
}

#endif
