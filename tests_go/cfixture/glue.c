// core/glue.h, the skin's fast-path-then-Go glue, with the test slow paths
// of serve.go (core.ServeExport / ServeImport) behind it.
#include "_cgo_export.h"
#include "glue.h"
#include "glue_modes.h"

// The slow paths of the fast-only mode: the fast path declined, nothing else
// runs (hostile fuzz inputs never reach Go's copy kernels).
static int cf_export_declined(gd_header *h, int64_t *shape, int64_t *strides, gd_export_req *req, void *block,
                              void **out, int32_t *versioned, int64_t *scratch, char *msg) {
  return CF_DECLINED;
}

static int cf_import_declined(void *managed, int versioned, gd_import_req *req, void *owner_block, gd_header *h,
                              int64_t *shape, int64_t *strides, int64_t *scratch, int32_t *consumed, char *msg) {
  return CF_DECLINED;
}

int cf_export_glue(int mode, gd_header *h, int64_t *shape, int64_t *strides, gd_export_req *req, void **out,
                   int32_t *versioned, char *msg, int *fast) {
  int64_t scratch[GD_MAX_NDIM];
  gd_export_slow_fn slow = mode == CF_FAST_ONLY ? cf_export_declined : (gd_export_slow_fn)cf_export_slow;
  return gd_export_glue(slow, mode != CF_SLOW_ONLY, h, shape, strides, req, out, versioned, scratch, msg, fast);
}

int cf_import_glue(int mode, void *managed, int versioned, gd_import_req *req, gd_header *h, int64_t *shape,
                   int64_t *strides, int32_t *consumed, char *msg, int *fast) {
  int64_t scratch[GD_MAX_NDIM];
  gd_import_slow_fn slow = mode == CF_FAST_ONLY ? cf_import_declined : (gd_import_slow_fn)cf_import_slow;
  return gd_import_glue(slow, mode != CF_SLOW_ONLY, managed, versioned, req, h, shape, strides, scratch, consumed,
                        msg, fast);
}
