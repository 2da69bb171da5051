/*
 * gocall.h: the one gate between the C skin and Go (include after
 * _cgo_export.h). Every call into Go goes through a gd_go_* wrapper (most
 * generated in gocall_gen.h from one table, internal/gentables/gates);
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

/* A count for tests (_go_crossings: the fast paths add none). Relaxed
 * load and store, not an atomic add, which would cost every crossing as
 * much as a lock: crossings made at once by threads without the GIL may
 * lose an increment, which no single-threaded count sees. */
extern uint64_t gd_go_crossings;
#define GD_COUNT_CROSSING() \
  __atomic_store_n(&gd_go_crossings, __atomic_load_n(&gd_go_crossings, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED)

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
    GD_COUNT_CROSSING();                                         \
  } while (0)

/* Every other gd_go_* wrapper: generated from the //export functions and one
 * table (internal/gentables/gates, `make tables`). */
#include "gocall_gen.h"

/* Runs one operation on arrays in Go (core.RunOp), the GIL released when
 * nogil or on a device (a queue's host tasks, dpnp's, may need the GIL:
 * docs/reliability.md): gd_call_op returns the class and writes the message,
 * gd_run_op returns 0, or -1 with the exception raised. */
static inline int gd_call_op(gd_op *o, int nogil, char *msg) {
  msg[0] = '\0';
  nogil |= (o->a != NULL && !gd_host(o->a)) || (o->device.device_type != 0 && o->device.device_type != kDLCPU);
  PyThreadState *ts = nogil ? PyEval_SaveThread() : NULL;
  int cls = gd_go_op(o, msg);
  if (ts != NULL) PyEval_RestoreThread(ts);
  return cls;
}
static inline int gd_run_op(gd_op *o, int nogil) {
  char msg[GD_MSG_CAP];
  int cls = gd_call_op(o, nogil, msg);
  return cls == GD_OK ? 0 : gd_err_from(cls, msg);
}

/* core.CheckImportDevice (GD_OP_CHECK_DEVICE); the fast path answers for the
 * CPU, and a forked child skips it (its import decides). */
static inline int gd_check_import_device(int32_t t, int32_t id, char *msg) {
  if (gd_in_fork_child || (GD_FAST_ALLOWED && gd_fast_import_device(t, id))) return GD_OK;
  gd_op o = {.op = GD_OP_CHECK_DEVICE, .entry = "from_dlpack()", .device = {(DLDeviceType)t, id}};
  return gd_call_op(&o, 0, msg);
}

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

#endif /* GODLPACK_GOCALL_H_ */
