/* gd_advise_huge: MADV_HUGEPAGE over the whole pages of a fresh host buffer
 * of n bytes at p, when n >= GD_HUGE_MIN, as numpy does for its data. With
 * transparent huge pages in "madvise" mode, first touching a fresh 256 MiB
 * buffer then takes ~128 page faults instead of 65536, most of the time of
 * a large copy into it. Shared by the CPU backend's allocator and the oneAPI
 * backend's device USM on CPU devices (host memory there); advice only, so a
 * failure changes nothing. */
#ifndef GD_BACKENDS_HUGEPAGE_H
#define GD_BACKENDS_HUGEPAGE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#define GD_HUGE_MIN ((size_t)4 << 20)

static inline void gd_advise_huge(void *p, size_t n) {
#ifdef MADV_HUGEPAGE
  if (p == NULL || n < GD_HUGE_MIN) return;
  uintptr_t start = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
  uintptr_t end = ((uintptr_t)p + n) & ~(uintptr_t)4095;
  if (end > start) (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
  (void)p;
  (void)n;
#endif
}

#endif
