//go:build pyext

/* chunk.c: long copies, fills and reductions in interruptible chunks (Ctrl-C):
 * each chunk is one Go call with the GIL released, and signals are checked
 * between chunks. See chunk.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"
#include "chunk.h"
#include "gocall.h"

/* ------------------------------------------------------------------ */
/* chunked copy / fill                                                */

int64_t gd_chunk_bytes(void) {
  static int64_t bytes = 0;
  if (bytes == 0) {
    int64_t mib = GD_CHUNK_MIB;
    const char *env = getenv("GODLPACK_CHUNK_MIB");
    if (env != NULL && atol(env) > 0 && atol(env) <= 65536) mib = atol(env);
    bytes = mib << 20;
  }
  return bytes;
}

int gd_chunk_eligible(const gd_header *h, const int64_t *shape) {
  if (h->ndim < 1 || !gd_host(h)) return 0;
  if ((int64_t)h->dtype.bits * h->dtype.lanes < 8) return 0; /* sub-byte: one Go call */
  int64_t is = gd_itemsize(h->dtype);
  if (is == 0) return 0;
  int64_t n = is;
  for (int32_t i = 0; i < h->ndim; i++) {
    if (shape[i] == 0) return 0;
    if (n > gd_chunk_bytes()) continue; /* already big; avoid overflow */
    n *= shape[i];
  }
  return n > gd_chunk_bytes();
}

enum { GD_CHUNK_COPY = 0, GD_CHUNK_FILL = 1, GD_CHUNK_REDUCE = 2, GD_CHUNK_CONVERT = 3 };

typedef struct {
  int mode;              /* GD_CHUNK_* */
  gd_header dst;         /* copy/fill: written; reduce: the input. offset moves per chunk */
  const int64_t *dstr;
  gd_header src;         /* copy, convert: read; reduce: the accumulator (strides per input axis, 0 on reduced ones) */
  const int64_t *sstr;
  const int64_t *shape;  /* full shape */
  int64_t sub[GD_MAX_NDIM];
  const void *elem;      /* fill */
  gd_reduce_req *req;    /* reduce */
  int64_t itemsize;
  const char *entry;     /* for a MemoryError */
  char msg[GD_MSG_CAP];
} gd_chunker;

/* One Go call on the current sub-block, GIL released; then signals. */
static int gd_chunk_call(gd_chunker *c) {
  int cls;
  c->msg[0] = '\0';
  PyThreadState *ts = PyEval_SaveThread();
  switch (c->mode) {
    case GD_CHUNK_FILL:
      cls = gd_go_fill(&c->dst, c->sub, (int64_t *)c->dstr, (void *)c->elem, c->msg);
      break;
    case GD_CHUNK_REDUCE:
      cls = gd_go_reduce_chunk(&c->dst, c->sub, (int64_t *)c->dstr, &c->src, (int64_t *)c->sstr, c->req, c->msg);
      break;
    case GD_CHUNK_CONVERT:
      cls = gd_go_convert_into(&c->dst, (int64_t *)c->dstr, &c->src, c->sub, (int64_t *)c->sstr, c->entry, c->msg);
      break;
    default:
      cls = gd_go_copy_into(&c->dst, (int64_t *)c->dstr, &c->src, c->sub, (int64_t *)c->sstr, c->msg);
  }
  PyEval_RestoreThread(ts);
  if (cls != GD_OK) return gd_err_from(cls, c->msg);
  return PyErr_CheckSignals();
}

/* Walks axes 0..k-1 one index at a time until the rest is at most one
 * chunk, then takes whole runs of axis k per call. */
static int gd_chunk_rec(gd_chunker *c, int32_t k) {
  int32_t nd = c->dst.ndim;
  int64_t row = c->itemsize;
  for (int32_t j = k + 1; j < nd; j++) row *= c->shape[j];
  int64_t d0 = c->dst.offset, s0 = c->src.offset;
  int64_t n = c->shape[k];
  if (row <= gd_chunk_bytes() || k == nd - 1) {
    int64_t rows = row > 0 ? gd_chunk_bytes() / row : n;
    if (rows < 1) rows = 1;
    for (int64_t i = 0; i < n; i += rows) {
      c->sub[k] = (n - i < rows) ? n - i : rows;
      c->dst.offset = d0 + i * c->dstr[k];
      if (c->mode != GD_CHUNK_FILL) c->src.offset = s0 + i * c->sstr[k];
      if (gd_chunk_call(c) < 0) return -1;
    }
  } else {
    c->sub[k] = 1;
    for (int64_t i = 0; i < n; i++) {
      c->dst.offset = d0 + i * c->dstr[k];
      if (c->mode != GD_CHUNK_FILL) c->src.offset = s0 + i * c->sstr[k];
      if (gd_chunk_rec(c, k + 1) < 0) return -1;
    }
  }
  c->dst.offset = d0;
  c->src.offset = s0;
  c->sub[k] = n;
  return 0;
}

/* The chunker is ~300 bytes: heap, not the C stack of a deep call. */
static gd_chunker *gd_chunker_new(int mode, const gd_header *dst, const int64_t *shape, const int64_t *dstr) {
  gd_chunker *c = PyMem_Malloc(sizeof(gd_chunker));
  if (c == NULL) {
    PyErr_NoMemory();
    return NULL;
  }
  memset(c, 0, sizeof(*c));
  c->mode = mode;
  c->dst = *dst;
  c->dstr = dstr;
  c->shape = shape;
  c->itemsize = gd_itemsize(dst->dtype);
  for (int32_t j = 0; j < dst->ndim; j++) c->sub[j] = shape[j];
  return c;
}

static int gd_chunker_run(gd_chunker *c) {
  int rc = gd_chunk_rec(c, 0);
  PyMem_Free(c);
  return rc;
}

int gd_chunked_copy_into(const gd_header *dst, const int64_t *dstr, const gd_header *src, const int64_t *shape,
                         const int64_t *sstr) {
  gd_chunker *c = gd_chunker_new(GD_CHUNK_COPY, dst, shape, dstr);
  if (c == NULL) return -1;
  c->src = *src;
  c->sstr = sstr;
  return gd_chunker_run(c);
}

int gd_chunked_convert_into(const gd_header *dst, const int64_t *dstr, const gd_header *src, const int64_t *shape,
                            const int64_t *sstr, const char *entry) {
  gd_chunker *c = gd_chunker_new(GD_CHUNK_CONVERT, dst, shape, dstr);
  if (c == NULL) return -1;
  c->src = *src;
  c->sstr = sstr;
  c->entry = entry;
  if (gd_itemsize(src->dtype) > c->itemsize) c->itemsize = gd_itemsize(src->dtype);
  return gd_chunker_run(c);
}

int gd_chunked_fill(const gd_header *dst, const int64_t *shape, const int64_t *dstr, const void *elem) {
  gd_chunker *c = gd_chunker_new(GD_CHUNK_FILL, dst, shape, dstr);
  if (c == NULL) return -1;
  c->elem = elem;
  return gd_chunker_run(c);
}

int gd_chunked_reduce(const gd_header *h, const int64_t *shape, const int64_t *strides, gd_reduce_req *req) {
  gd_chunker *c = gd_chunker_new(GD_CHUNK_REDUCE, h, shape, strides);
  if (c == NULL) return -1;
  c->src = req->t.acc;
  c->sstr = req->t.acc_strides;
  c->req = req;
  return gd_chunker_run(c);
}

int gd_chunked_copy_new(const gd_header *src, const int64_t *shape, const int64_t *sstr, gd_header *out,
                        int64_t *ostrides, const char *entry) {
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  int cls = gd_go_alloc_on(src->dtype, src->ndim, (int64_t *)shape, src->device, 1, NULL, out, ostrides, entry, msg);
  if (cls != GD_OK) {
    if (msg[0]) return gd_err_from(cls, msg);
    PyErr_Format(PyExc_MemoryError, "%s: allocation failed", entry);
    return -1;
  }
  if (gd_chunked_copy_into(out, ostrides, src, shape, sstr) < 0) {
    gd_owner_decref(out->owner);
    out->owner = NULL;
    return -1;
  }
  return 0;
}

int gd_copy_new(const gd_header *src, const int64_t *shape, const int64_t *sstr, gd_header *out, int64_t *ostrides,
                const char *entry) {
  if (gd_chunk_eligible(src, shape)) return gd_chunked_copy_new(src, shape, sstr, out, ostrides, entry);
  /* Go deferred the copy, the C side cannot chunk it: one call. */
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  PyThreadState *ts = PyEval_SaveThread();
  int cls = gd_go_copy((gd_header *)src, (int64_t *)shape, (int64_t *)sstr, out, ostrides, msg);
  PyEval_RestoreThread(ts);
  return cls == GD_OK ? 0 : gd_err_from(cls, msg);
}

int gd_import_finish_copy(gd_header *h, const int64_t *shape, int64_t *strides, const char *entry) {
  gd_header out;
  int64_t ostrides[GD_MAX_NDIM];
  int rc = gd_copy_new(h, shape, strides, &out, ostrides, entry);
  gd_owner_decref(h->owner); /* the producer's deleter runs: we hold a copy now, or fail */
  h->owner = NULL;
  if (rc < 0) return -1;
  *h = out;
  for (int32_t i = 0; i < h->ndim; i++) strides[i] = ostrides[i];
  return 0;
}

PyObject *gd_copy_chunked(PyObject *self) {
  gd_array *a = (gd_array *)self;
  gd_header out;
  int64_t ostrides[GD_MAX_NDIM];
  if (gd_chunked_copy_new(&a->h, GD_SHAPE(a), GD_STRIDES(a), &out, ostrides, "copy()") < 0) return NULL;
  return gd_array_new(gd_state_of_type(Py_TYPE(self)), &out, GD_SHAPE(a), ostrides);
}

PyObject *gd_fill_chunked(PyObject *self, const void *elem) {
  gd_array *a = (gd_array *)self;
  if (gd_chunked_fill(&a->h, GD_SHAPE(a), GD_STRIDES(a), elem) < 0) return NULL;
  Py_RETURN_NONE;
}
