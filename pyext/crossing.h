/*
 * crossing.h: the C side of the two hot crossings into Go (include after
 * _cgo_export.h). The C memory an export or an import needs (the managed
 * tensor block, the owner) is malloc'ed here, in C, before the one call into
 * Go: a Go->C call costs ~25 ns more than a plain C call, and the hot paths
 * then make none (core.ExportVersionedIn, core.InitOwner; the owner's
 * Retain is a Go atomic on the same int64 as owner.c's __atomic builtins).
 */
#ifndef GODLPACK_CROSSING_H_
#define GODLPACK_CROSSING_H_

#include <stdlib.h>

#include "skin.h"

/* gdgo_export with its block: on success *out is the block, else freed. */
static inline int gd_go_export(gd_header *h, int64_t *shape, int64_t *strides, gd_export_req *req, void **out,
                               int32_t *versioned, int64_t *scratch, char *msg) {
  int32_t nd = h->ndim > 0 ? h->ndim : 1;
  void *block = malloc(sizeof(DLManagedTensorVersioned) + 2 * (size_t)nd * sizeof(int64_t));
  if (block == NULL) {
    snprintf(msg, GD_MSG_CAP, "__dlpack__(): out of memory exporting a DLPack tensor");
    return GD_ERR_MEMORY;
  }
  *out = NULL;
  int cls = gdgo_export(h, shape, strides, req, block, out, versioned, scratch, msg);
  if (cls != GD_OK || *out != block) free(block);
  return cls;
}

/* gdgo_import with an owner block: kept by the array when consumed. */
static inline int gd_go_import(void *managed, int versioned, gd_import_req *req, gd_header *h, int64_t *shape,
                               int64_t *strides, int64_t *scratch, int32_t *consumed, char *msg) {
  void *ob = malloc(sizeof(gd_owner));
  if (ob == NULL) {
    snprintf(msg, GD_MSG_CAP, "from_dlpack(): out of memory");
    return GD_ERR_MEMORY;
  }
  *consumed = 0;
  int cls = gdgo_import(managed, versioned, req, ob, h, shape, strides, scratch, consumed, msg);
  if (!*consumed) free(ob);
  return cls;
}

#endif /* GODLPACK_CROSSING_H_ */
