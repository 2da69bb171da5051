/* hostalloc.h: the CPU allocator, in C. backends/cpu allocates every host
 * buffer with it, and the CPython skin's forked child (which must never call
 * Go: pyext/nogo.c) allocates with the same functions, so either frees what
 * the other made. */
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

static inline void *gd_cpu_alloc_zeroed(size_t n, size_t align) {
	void *p = gd_cpu_alloc(n, align);
	if (p != NULL && n > 0) memset(p, 0, n);
	return p;
}

// gd_cpu_free is what owners call, from C, on the last reference: it frees
// what gd_cpu_alloc got from malloc.
static inline void gd_cpu_free(void *p) {
	if (p != NULL) free(((void **)p)[-1]);
}

#endif
