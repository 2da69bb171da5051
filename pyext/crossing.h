/*
 * crossing.h: the skin's side of the two hot crossings into Go (include after
 * _cgo_export.h): core/glue.h's fast-path-then-Go glue with gdgo_export /
 * gdgo_import (core.ServeExport / ServeImport) behind it, each crossing
 * counted for the tests.
 */
#ifndef GODLPACK_CROSSING_H_
#define GODLPACK_CROSSING_H_

#include <stdio.h>

#include "glue.h"
#include "skin.h"

/* Calls into Go made by gd_serve_export, gd_serve_import and the chunked
 * copies, fills and sums (reliability.c), for tests proving that the fast
 * paths make none and that a refused request copies nothing
 * (_native._go_crossings()). Relaxed atomic: the GIL may be released around
 * a crossing. */
extern uint64_t gd_go_crossings;

static inline void gd_count_crossing(void) { __atomic_add_fetch(&gd_go_crossings, 1, __ATOMIC_RELAXED); }

static inline int gd_export_crossing(gd_header *h, int64_t *shape, int64_t *strides, gd_export_req *req, void *block,
                                     void **out, int32_t *versioned, int64_t *scratch, char *msg) {
  gd_count_crossing();
  return gdgo_export(h, shape, strides, req, block, out, versioned, scratch, msg);
}

static inline int gd_import_crossing(void *managed, int versioned, gd_import_req *req, void *owner_block, gd_header *h,
                                     int64_t *shape, int64_t *strides, int64_t *scratch, int32_t *consumed, char *msg) {
  gd_count_crossing();
  return gdgo_import(managed, versioned, req, owner_block, h, shape, strides, scratch, consumed, msg);
}

/* __dlpack__ through core/glue.h: the fast path, else core.ServeExport. */
static inline int gd_serve_export(gd_header *h, int64_t *shape, int64_t *strides, gd_export_req *req, void **out,
                                  int32_t *versioned, int64_t *scratch, char *msg) {
  int fast;
  int cls = gd_export_glue(gd_export_crossing, 1, h, shape, strides, req, out, versioned, scratch, msg, &fast);
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
  int cls = gd_import_glue(gd_import_crossing, 1, managed, versioned, req, h, shape, strides, scratch, consumed,
                           msg, &fast);
  if (cls == GD_GLUE_NOMEM) {
    snprintf(msg, GD_MSG_CAP, "from_dlpack(): out of memory");
    return GD_ERR_MEMORY;
  }
  return cls;
}

#endif /* GODLPACK_CROSSING_H_ */
