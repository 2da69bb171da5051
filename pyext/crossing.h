/*
 * crossing.h: the C side of the two hot crossings into Go (include after
 * _cgo_export.h). The C memory an export or an import needs (the managed
 * tensor block, the owner) is malloc'ed here, in C, before the one call into
 * Go: a Go->C call costs ~25 ns more than a plain C call, and the hot paths
 * then make none (core.ExportVersionedIn, core.InitOwner; the owner's
 * Retain is a Go atomic on the same int64 as owner.c's __atomic builtins).
 *
 * Before crossing, both try the pure-C fast path of core/fastpath.c
 * (gd_fast_export, gd_fast_describe) with the same block: the crossing alone
 * costs as much as numpy's whole __dlpack__, and the common no-copy CPU
 * exchange does not need Go's judgement beyond what the fast path mirrors.
 * Whatever the fast path declines, errors included, crosses as before.
 */
#ifndef GODLPACK_CROSSING_H_
#define GODLPACK_CROSSING_H_

#include <stdlib.h>

#include "skin.h"

/* Calls into Go made by gd_serve_export, gd_serve_import and the chunked copies,
 * fills and sums (reliability.c), for tests proving that the fast paths make
 * none and that a refused request copies nothing (_native._go_crossings()). Relaxed atomic: the
 * GIL may be released around a crossing. */
extern uint64_t gd_go_crossings;

static inline void gd_count_crossing(void) { __atomic_add_fetch(&gd_go_crossings, 1, __ATOMIC_RELAXED); }

/* Export with its block: the fast path, else gdgo_export. On success *out is
 * the block, else freed. */
static inline int gd_serve_export(gd_header *h, int64_t *shape, int64_t *strides, gd_export_req *req, void **out,
                               int32_t *versioned, int64_t *scratch, char *msg) {
  void *block = malloc(GD_EXPORT_BLOCK_SIZE(h->ndim));
  if (block == NULL) {
    snprintf(msg, GD_MSG_CAP, "__dlpack__(): out of memory exporting a DLPack tensor");
    return GD_ERR_MEMORY;
  }
  if (gd_fast_export(h, shape, strides, req, block, versioned)) {
    *out = block;
    return GD_OK;
  }
  *out = NULL;
  gd_count_crossing();
  int cls = gdgo_export(h, shape, strides, req, block, out, versioned, scratch, msg);
  if (cls != GD_OK || *out != block) free(block);
  return cls;
}

/* Import with an owner block, kept by the array when consumed: the fast
 * path (the owner is made here, as core.InitOwner would), else gdgo_import. */
static inline int gd_serve_import(void *managed, int versioned, gd_import_req *req, gd_header *h, int64_t *shape,
                               int64_t *strides, int64_t *scratch, int32_t *consumed, char *msg) {
  void *ob = malloc(sizeof(gd_owner));
  if (ob == NULL) {
    snprintf(msg, GD_MSG_CAP, "from_dlpack(): out of memory");
    return GD_ERR_MEMORY;
  }
  if (gd_fast_describe(managed, versioned, req, h, shape, strides)) {
    h->owner = gd_owner_init((gd_owner *)ob, versioned ? GD_OWN_VERSIONED : GD_OWN_LEGACY, managed, NULL);
    *consumed = 1;
    return GD_OK;
  }
  *consumed = 0;
  gd_count_crossing();
  int cls = gdgo_import(managed, versioned, req, ob, h, shape, strides, scratch, consumed, msg);
  if (!*consumed) free(ob);
  return cls;
}

#endif /* GODLPACK_CROSSING_H_ */
