/*
 * gocall.h: the one gate between the C skin and Go (include after
 * _cgo_export.h). Every call into Go goes through a gd_go_* wrapper below;
 * tests_go/skin_test.go fails if a C file of the skin calls a gdgo_* export
 * directly.
 *
 * The gate does two things:
 *   - a forked child never enters the Go runtime. The Go runtime does not
 *     survive fork(): any lock a runtime or Go thread held at that instant
 *     stays held forever in the child. After fork() (pthread_atfork child
 *     handler, fork.c, so a fork by C code counts too) each wrapper answers
 *     RuntimeError at once, naming the way out. What the child can still do
 *     needs no Go: the zero-crossing exchanges (core/fastpath.c through
 *     core/glue.h), deleters, the buffer protocol, attributes, scalar
 *     element access, tolist.
 *   - it counts crossings (_native._go_crossings()), for tests proving that
 *     the fast paths make none and that refused requests copy nothing.
 */
#ifndef GODLPACK_GOCALL_H_
#define GODLPACK_GOCALL_H_

#include <stdio.h>

#include "fork.h"
#include "glue.h"
#include "skin.h"

/* Relaxed atomic: the GIL may be released around a crossing. */
extern uint64_t gd_go_crossings;

/* GODLPACK_NOFAST=1 in the environment at import: what core/fastpath.c
 * would answer goes through Go instead, so that the whole suite can check
 * the Go route of every case the fast path takes. A forked child, which
 * cannot enter Go, keeps the fast path. */
extern int gd_nofast;
#define GD_FAST_ALLOWED (!gd_nofast || gd_in_fork_child)

/* Writes the refusal of a forked child into msg; returns GD_ERR_RUNTIME. */
int gd_go_refused(char *msg, const char *entry);

#define GD_GO_GATE(entry)                                        \
  do {                                                           \
    if (gd_in_fork_child) return gd_go_refused(msg, entry);      \
    __atomic_add_fetch(&gd_go_crossings, 1, __ATOMIC_RELAXED);   \
  } while (0)

static inline int gd_go_export(gd_header *h, int64_t *shape, int64_t *strides, gd_export_req *req, void *block,
                               void **out, int32_t *versioned, int64_t *scratch, char *msg) {
  GD_GO_GATE("__dlpack__()");
  return gdgo_export(h, shape, strides, req, block, out, versioned, scratch, msg);
}

static inline int gd_go_import(void *managed, int versioned, gd_import_req *req, void *owner_block, gd_header *h,
                               int64_t *shape, int64_t *strides, int64_t *scratch, int32_t *consumed, char *msg) {
  GD_GO_GATE("from_dlpack()");
  return gdgo_import(managed, versioned, req, owner_block, h, shape, strides, scratch, consumed, msg);
}

static inline int gd_go_export_view(gd_header *h, int64_t *shape, int64_t *strides, void *out, char *msg) {
  GD_GO_GATE("dltensor_from_py_object_no_sync()");
  return gdgo_export_view(h, shape, strides, out, msg);
}

/* core.CheckImportDevice; a forked child skips it (its import decides). */
static inline int gd_go_check_import_device(int32_t t, int32_t id, char *msg) {
  if (gd_in_fork_child || (GD_FAST_ALLOWED && gd_fast_import_device(t, id))) return GD_OK;
  __atomic_add_fetch(&gd_go_crossings, 1, __ATOMIC_RELAXED);
  return gdgo_check_import_device(t, id, msg);
}

/* core.AsksHostCopy of every device type, a bit mask; a forked child asks
 * nothing (its import decides). */
static inline uint64_t gd_go_host_copy_types(void) {
  if (gd_in_fork_child) return 0;
  __atomic_add_fetch(&gd_go_crossings, 1, __ATOMIC_RELAXED);
  return gdgo_host_copy_types();
}

static inline int gd_go_describe(void *managed, gd_header *h, int64_t *shape, int64_t *strides, char *entry,
                                 char *msg) {
  GD_GO_GATE(entry);
  return gdgo_describe(managed, h, shape, strides, entry, msg);
}

static inline int gd_go_alloc(DLDataType dt, int32_t ndim, int64_t *shape, void *elem, gd_header *out,
                              int64_t *ostrides, char *msg) {
  GD_GO_GATE("empty()");
  return gdgo_alloc(dt, ndim, shape, elem, out, ostrides, msg);
}

static inline int gd_go_alloc_export(DLDataType dt, int32_t ndim, int64_t *shape, DLDevice dev, void **out,
                                     int64_t *scratch, char *msg) {
  GD_GO_GATE("managed_tensor_allocator()");
  return gdgo_alloc_export(dt, ndim, shape, dev, out, scratch, msg);
}

static inline int gd_go_copy(gd_header *h, int64_t *shape, int64_t *strides, gd_header *out, int64_t *ostrides,
                             char *msg) {
  GD_GO_GATE("copy()");
  return gdgo_copy(h, shape, strides, out, ostrides, msg);
}

static inline int gd_go_copy_into(gd_header *dst, int64_t *dstrides, gd_header *src, int64_t *shape,
                                  int64_t *sstrides, char *msg) {
  GD_GO_GATE("copy()");
  return gdgo_copy_into(dst, dstrides, src, shape, sstrides, msg);
}

static inline int gd_go_fill(gd_header *h, int64_t *shape, int64_t *strides, void *elem, char *msg) {
  GD_GO_GATE("fill()");
  return gdgo_fill(h, shape, strides, elem, msg);
}

static inline int gd_go_index(gd_header *h, int64_t *shape, int64_t *strides, gd_index_op *ops, int nops,
                              int setitem, gd_header *out, int64_t *oshape, int64_t *ostrides, char *msg) {
  GD_GO_GATE(setitem ? "__setitem__()" : "__getitem__()");
  return gdgo_index(h, shape, strides, ops, nops, setitem, out, oshape, ostrides, msg);
}

static inline int gd_go_setitem(gd_header *h, int64_t *shape, int64_t *strides, gd_index_op *ops, int nops,
                                void *elem, int64_t *scratch, char *msg) {
  GD_GO_GATE("__setitem__()");
  return gdgo_setitem(h, shape, strides, ops, nops, elem, scratch, msg);
}

static inline int gd_go_reshape(gd_header *h, int64_t *shape, int64_t *strides, int64_t *new_shape, int n,
                                gd_header *out, int64_t *ostrides, char *msg) {
  GD_GO_GATE("reshape()");
  return gdgo_reshape(h, shape, strides, new_shape, n, out, ostrides, msg);
}

static inline int gd_go_transpose(gd_header *h, int64_t *shape, int64_t *strides, int32_t *axes, int32_t naxes,
                                  gd_header *out, int64_t *oshape, int64_t *ostrides, char *msg) {
  GD_GO_GATE("transpose()");
  return gdgo_transpose(h, shape, strides, axes, naxes, out, oshape, ostrides, msg);
}

static inline int gd_go_test_panic(char *msg) {
  GD_GO_GATE("_test_panic()");
  return gdgo_test_panic(msg);
}

static inline int gd_go_test_gc(char *msg) {
  GD_GO_GATE("_test_go_gc()");
  return gdgo_test_gc(msg);
}

/* Go heap objects allocated so far (a test hook); 0 in a forked child. */
static inline uint64_t gd_go_allocs(void) { return gd_in_fork_child ? 0 : gdgo_go_allocs(); }

/* __dlpack__ through core/glue.h: the fast path, else core.ServeExport. */
static inline int gd_serve_export(gd_header *h, int64_t *shape, int64_t *strides, gd_export_req *req, void **out,
                                  int32_t *versioned, int64_t *scratch, char *msg) {
  int fast;
  int cls = gd_export_glue(gd_go_export, GD_FAST_ALLOWED, h, shape, strides, req, out, versioned, scratch, msg, &fast);
  if (cls == GD_GLUE_NOMEM) {
    snprintf(msg, GD_MSG_CAP, "__dlpack__(): out of memory exporting a DLPack tensor");
    return GD_ERR_MEMORY;
  }
  return cls;
}

/* The import of from_dlpack through core/glue.h: the fast path, else
 * core.ServeImport. */
static inline int gd_serve_import(void *managed, int versioned, gd_import_req *req, gd_header *h, int64_t *shape,
                                  int64_t *strides, int64_t *scratch, int32_t *consumed, char *msg) {
  int fast;
  int cls =
      gd_import_glue(gd_go_import, GD_FAST_ALLOWED, managed, versioned, req, h, shape, strides, scratch, consumed, msg, &fast);
  if (cls == GD_GLUE_NOMEM) {
    snprintf(msg, GD_MSG_CAP, "from_dlpack(): out of memory");
    return GD_ERR_MEMORY;
  }
  return cls;
}

/* Reductions (reduce.c, chunk.c): plan and begin (and with req->run, all of
 * it), one chunk, the end. */
#include "reduce.h"
static inline int gd_go_reduce(gd_header *h, int64_t *shape, int64_t *strides, gd_reduce_req *req, char *msg) {
  GD_GO_GATE(gd_reduce_entry(req->op));
  return gdgo_reduce(h, shape, strides, req, msg);
}

static inline int gd_go_reduce_chunk(gd_header *h, int64_t *shape, int64_t *strides, gd_header *acc,
                                     int64_t *acc_strides, gd_reduce_req *req, char *msg) {
  GD_GO_GATE(gd_reduce_entry(req->op));
  return gdgo_reduce_chunk(h, shape, strides, acc, acc_strides, req, msg);
}

static inline int gd_go_reduce_end(gd_reduce_req *req, int failed, char *msg) {
  GD_GO_GATE(gd_reduce_entry(req->op));
  return gdgo_reduce_end(req, failed, msg);
}

/* astype() / asarray(x, dtype=): a new C-contiguous array of dtype dt
 * (exports_convert.go). */
static inline int gd_go_convert(gd_header *h, int64_t *shape, int64_t *strides, DLDataType dt, gd_header *out,
                                int64_t *ostrides, const char *entry, char *msg) {
  GD_GO_GATE(entry);
  return gdgo_convert(h, shape, strides, dt, out, ostrides, (char *)entry, msg);
}

/* One chunk of a long conversion, or one element of a stack. */
static inline int gd_go_convert_into(gd_header *dst, int64_t *dstrides, gd_header *src, int64_t *shape,
                                     int64_t *sstrides, const char *entry, char *msg) {
  GD_GO_GATE(entry);
  return gdgo_convert_into(dst, dstrides, src, shape, sstrides, (char *)entry, msg);
}

/* x == y, x < y, ... (compare.c): one range of the result per call; entry
 * names the operator in a forked child's refusal. */
#include "compare.h"
static inline int gd_go_compare(gd_cmp_req *req, gd_header *x, int64_t *xshape, int64_t *xstrides, gd_header *y,
                                int64_t *yshape, int64_t *ystrides, gd_header *out, int64_t *oshape,
                                int64_t *ostrides, const char *entry, char *msg) {
  GD_GO_GATE(entry);
  return gdgo_compare(req, x, xshape, xstrides, y, yshape, ystrides, out, oshape, ostrides, msg);
}

/* An array on a device (core.AllocContiguousOn); like: on the device a copy
 * of an array on dev goes to (core.CopyDevice). */
static inline int gd_go_alloc_on(DLDataType dt, int32_t ndim, int64_t *shape, DLDevice dev, int like, void *elem,
                                 gd_header *out, int64_t *ostrides, const char *entry, char *msg) {
  GD_GO_GATE(entry);
  return gdgo_alloc_on(dt, ndim, shape, dev, like, elem, out, ostrides, (char *)entry, msg);
}

/* godlpack's queue on a device (core.ConsumerStream), for producers'
 * stream= and __sycl_usm_array_interface__'s syclobj. */
static inline int gd_go_consumer_stream(DLDevice dev, void **out, char *msg) {
  GD_GO_GATE("from_dlpack()");
  return gdgo_consumer_stream(dev, out, msg);
}

/* Go functions registered with package gofunc (gofunc.c,
 * exports_gofunc.go): the registry closed and counted at module init, one
 * description per function, one crossing per call (a function taking a
 * context.Context: one per wait of waitms, so that Ctrl-C is seen). */
#include "gofunc.h"
static inline int gd_go_fn_count(void) { return gd_in_fork_child ? 0 : gdgo_fn_count(); }

static inline int gd_go_fn_floor(char *msg) {
  GD_GO_GATE("_gofunc_floor()");
  return gdgo_fn_floor();
}

static inline int gd_go_fn_describe(int i, gd_fn_desc *d, char *msg) {
  GD_GO_GATE("import");
  return gdgo_fn_describe(i, d, msg);
}

static inline int gd_go_fn_meta(char **out, char *msg) {
  GD_GO_GATE("_gofuncs()");
  return gdgo_fn_meta(out, msg);
}

static inline int gd_go_fn_call(int i, gd_fn_val *args, int nargs, gd_fn_val *res, int waitms, int64_t *handle,
                                const char *entry, char *msg) {
  GD_GO_GATE(entry);
  return gdgo_fn_call(i, args, nargs, res, waitms, handle, msg);
}

static inline int gd_go_fn_wait(int64_t handle, int waitms, int cancel, gd_fn_val *res, const char *entry,
                                char *msg) {
  GD_GO_GATE(entry);
  return gdgo_fn_wait(handle, waitms, cancel, res, msg);
}

#endif /* GODLPACK_GOCALL_H_ */
