/*
 * glue.h: the C glue of the two hot operations. The CPython skin runs it
 * (pyext/gocall.h) and tests_go runs the very same functions with the same
 * core functions behind the slow path (tests_go/cfixture), so the fast path
 * is compared with what the skin really does.
 *
 * Each first tries the zero-crossing fast path of fastpath.c and otherwise
 * makes the one call into Go (core.ServeExport / core.ServeImport through
 * `slow`). The C memory the operation needs (the exported block, the owner)
 * is malloc'ed here, before the crossing, so that Go makes no call back into
 * C on success.
 */
#ifndef GODLPACK_GLUE_H_
#define GODLPACK_GLUE_H_

#include <stdlib.h>

#include "godlpack.h"

/* Returned when the glue's own malloc fails (the slow path was not called). */
#define GD_GLUE_NOMEM (-1)

typedef int (*gd_export_slow_fn)(gd_header *h, int64_t *shape, int64_t *strides, gd_export_req *req, void *block,
                                 void **out, int32_t *versioned, int64_t *scratch, char *msg);

typedef int (*gd_import_slow_fn)(void *managed, int versioned, gd_import_req *req, void *owner_block, gd_header *h,
                                 int64_t *shape, int64_t *strides, int64_t *scratch, int32_t *consumed, char *msg);

/* __dlpack__: on success (0) *out is the managed tensor, or NULL when the
 * slow path deferred a planned copy (req->copy_deferred); otherwise the
 * class slow returned, or GD_GLUE_NOMEM. *fast says whether the fast path
 * answered; allow_fast 0 forces the slow path (tests). */
static inline int gd_export_glue(gd_export_slow_fn slow, int allow_fast, gd_header *h, int64_t *shape,
                                 int64_t *strides, gd_export_req *req, void **out, int32_t *versioned,
                                 int64_t *scratch, char *msg, int *fast) {
  *fast = 0;
  void *block = malloc(GD_EXPORT_BLOCK_SIZE(h->ndim));
  if (block == NULL) return GD_GLUE_NOMEM;
  if (allow_fast && gd_fast_export(h, shape, strides, req, block, versioned)) {
    *out = block;
    *fast = 1;
    return 0;
  }
  *out = NULL;
  int cls = slow(h, shape, strides, req, block, out, versioned, scratch, msg);
  if (cls != 0 || *out != block) free(block);
  return cls;
}

/* The import of from_dlpack: *consumed once an owner holds the tensor (the
 * caller then renames its capsule), h with a new owner on success; the
 * class slow returned, or GD_GLUE_NOMEM. A retry (req->retry) consumes
 * nothing. */
static inline int gd_import_glue(gd_import_slow_fn slow, int allow_fast, void *managed, int versioned,
                                 gd_import_req *req, gd_header *h, int64_t *shape, int64_t *strides,
                                 int64_t *scratch, int32_t *consumed, char *msg, int *fast) {
  *fast = 0;
  *consumed = 0;
  void *ob = malloc(sizeof(gd_owner));
  if (ob == NULL) return GD_GLUE_NOMEM;
  if (allow_fast && gd_fast_describe(managed, versioned, req, h, shape, strides)) {
    h->owner = gd_owner_init((gd_owner *)ob, versioned ? GD_OWN_VERSIONED : GD_OWN_LEGACY, managed, NULL);
    *consumed = 1;
    *fast = 1;
    return 0;
  }
  int cls = slow(managed, versioned, req, ob, h, shape, strides, scratch, consumed, msg);
  if (!*consumed) free(ob);
  return cls;
}

#endif /* GODLPACK_GLUE_H_ */
