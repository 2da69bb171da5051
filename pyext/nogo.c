//go:build pyext

/* nogo.c: new host memory and contiguous copies in a forked child, without Go.
 *
 * A forked child never enters the Go runtime (fork.c). What it still needs to
 * receive and return arrays (a multiprocessing worker unpickles its
 * arguments and pickles its results; numpy's copy of a view) is a buffer and
 * a byte copy: the same C allocator backends/cpu uses (backends/hostalloc.h),
 * and headers described like any host import (gd_describe_host: the fast
 * path, so no Go either). Only the byte-sized dtypes of that path are served;
 * the others get the child's RuntimeError, as before. */
#include <string.h>

#include "../backends/hostalloc.h"
#include "_cgo_export.h"
#include "array.h"
#include "gocall.h"
#include "skin.h"

/* The refusal a child gets for what needs Go after all. */
static int gd_nogo_refuse(const char *entry) {
  char msg[GD_MSG_CAP];
  return gd_err_from(gd_go_refused(msg, entry), msg);
}

int gd_nogo_alloc(DLDataType dt, int32_t nd, const int64_t *shape, const void *elem, gd_header *h,
                  int64_t *strides, const char *entry) {
  int64_t is = gd_itemsize(dt), n = 1, nbytes;
  if (is == 0) return gd_nogo_refuse(entry);
  for (int32_t k = 0; k < nd; k++) {
    if (__builtin_mul_overflow(n, shape[k], &n)) n = -1;
    if (n < 0) break;
  }
  if (n < 0 || __builtin_mul_overflow(n, is, &nbytes)) {
    gd_errf(GD_E_SHAPE_ARG, "%s: the shape spans more than 2**63 bytes; use a smaller shape", entry);
    return -1;
  }
  char *p = (char *)gd_cpu_alloc((size_t)nbytes, GD_ALIGNMENT);
  if (p == NULL) {
    gd_errf(GD_E_NO_MEMORY, "%s: cannot allocate %lld bytes", entry, (long long)nbytes);
    return -1;
  }
  if (elem != NULL) {
    for (int64_t off = 0; off < nbytes; off += is) memcpy(p + off, elem, (size_t)is);
  }
  int64_t oshape[GD_MAX_NDIM];
  if (gd_describe_host(p, dt, nd, nd > 0 ? (int64_t *)shape : NULL, NULL, 0, h, oshape, strides, entry) < 0) {
    gd_cpu_free(p);
    return -1;
  }
  gd_owner *o = gd_owner_new(GD_OWN_FREE, p, gd_cpu_free);
  if (o == NULL) {
    gd_cpu_free(p);
    gd_errf(GD_E_NO_MEMORY, "%s: out of memory", entry);
    return -1;
  }
  o->marks = GD_OWNER_ALLOCATED;
  h->owner = o;
  return 0;
}

int gd_alloc_host(DLDataType dt, int32_t nd, const int64_t *shape, gd_header *h, int64_t *strides,
                  const char *entry) {
  if (gd_in_fork_child) return gd_nogo_alloc(dt, nd, shape, NULL, h, strides, entry);
  gd_op o = {.op = GD_OP_ALLOC, .entry = entry, .dtype = dt, .device = {kDLCPU, 0}, .ints = (int64_t *)shape,
             .nints = nd, .out = h, .out_strides = strides};
  return gd_run_op(&o, 0);
}

/* Copies the elements of a, in C order, to the C-contiguous buffer dst:
 * whole rows at once where the last axis is contiguous. */
static void gd_nogo_copy_rows(const gd_array *a, char *dst, int64_t is) {
  int32_t nd = a->h.ndim;
  const int64_t *shape = GD_SHAPE(a), *st = GD_STRIDES(a);
  const char *base = (const char *)a->h.data + a->h.offset * is;
  if (nd == 0) {
    memcpy(dst, base, (size_t)is);
    return;
  }
  int64_t last = shape[nd - 1], row = last * is;
  int run = st[nd - 1] == 1;
  int64_t idx[GD_MAX_NDIM] = {0};
  for (;;) {
    const char *src = base;
    for (int32_t k = 0; k < nd - 1; k++) src += idx[k] * st[k] * is;
    if (run) {
      memcpy(dst, src, (size_t)row);
    } else {
      for (int64_t i = 0; i < last; i++) memcpy(dst + i * is, src + i * st[nd - 1] * is, (size_t)is);
    }
    dst += row;
    int32_t k = nd - 2;
    for (; k >= 0; k--) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

PyObject *gd_nogo_copy(gd_state *st, gd_array *a, const char *entry) {
  int64_t is = gd_itemsize(a->h.dtype);
  if (!gd_host(&a->h) || is == 0 || (a->h.flags & GD_FLAG_SUBBYTE_PADDED)) {
    gd_nogo_refuse(entry);
    return NULL;
  }
  gd_header h;
  int64_t strides[GD_MAX_NDIM];
  if (gd_nogo_alloc(a->h.dtype, a->h.ndim, GD_SHAPE(a), NULL, &h, strides, entry) < 0) return NULL;
  if (gd_size_of(a->h.ndim, GD_SHAPE(a)) > 0) gd_nogo_copy_rows(a, (char *)h.data, is);
  return gd_array_new(st, &h, GD_SHAPE(a), strides);
}
