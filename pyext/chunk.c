//go:build pyext

/* chunk.c: long copies, fills and reductions in interruptible chunks (Ctrl-C):
 * core plans the chunks (core/chunk.c); each is one Go call with the GIL
 * released, and signals are checked between chunks. See chunk.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"
#include "chunk.h"
#include "gocall.h"

/* mode: the gd_op of each chunk (GD_OP_COPY_INTO, GD_OP_FILL,
 * GD_OP_CONVERT_INTO, GD_OP_REDUCE_CHUNK). */
typedef struct {
  int mode;
  gd_header dst;         /* copy/fill: written; reduce: the input. offset moves per chunk */
  const int64_t *dstr;
  gd_header src;         /* copy, convert: read; reduce: the accumulator (strides per input axis, 0 on reduced ones) */
  const int64_t *sstr;
  const int64_t *shape;  /* full shape */
  int64_t sub[GD_MAX_NDIM];
  gd_op op;              /* on dst, src and sub */
  int64_t itemsize;
  char msg[GD_MSG_CAP];
} gd_chunker;

/* One Go call on the current sub-block, GIL released; then signals. */
static int gd_chunk_call(gd_chunker *c) {
  c->msg[0] = '\0';
  PyThreadState *ts = PyEval_SaveThread();
  int cls = gd_go_op(&c->op, c->msg);
  PyEval_RestoreThread(ts);
  if (cls != GD_OK) return gd_err_from(cls, c->msg);
  return PyErr_CheckSignals();
}

/* The chunker is ~500 bytes: heap, not the C stack of a deep call. src
 * and sstr may be NULL (fill). */
static gd_chunker *gd_chunker_new(int mode, const gd_header *dst, const int64_t *shape, const int64_t *dstr,
                                  const gd_header *src, const int64_t *sstr, const char *entry) {
  gd_chunker *c = PyMem_Malloc(sizeof(gd_chunker));
  if (c == NULL) {
    gd_errf(GD_E_NO_MEMORY, "%s: out of memory", entry);
    return NULL;
  }
  memset(c, 0, sizeof(*c));
  c->mode = mode;
  c->dst = *dst;
  c->dstr = dstr;
  if (src != NULL) c->src = *src;
  c->sstr = sstr;
  c->shape = shape;
  c->itemsize = gd_itemsize(dst->dtype);
  if (src != NULL && gd_itemsize(src->dtype) > c->itemsize) c->itemsize = gd_itemsize(src->dtype);
  for (int32_t j = 0; j < dst->ndim; j++) c->sub[j] = shape[j];
  c->op = (gd_op){.op = mode, .entry = entry, .a = &c->dst, .a_shape = c->sub, .a_strides = (int64_t *)dstr,
                  .b = &c->src, .b_strides = (int64_t *)sstr};
  return c;
}

/* Runs the chunks core plans (gd_chunks, core/chunk.c). */
static int gd_chunker_run(gd_chunker *c) {
  if (c == NULL) return -1;
  gd_chunks it;
  gd_chunks_init(&it, c->dst.ndim, c->shape, c->itemsize);
  int64_t d0 = c->dst.offset, s0 = c->src.offset;
  int rc = 0;
  while (rc == 0 && gd_chunks_next(&it, c->sub)) {
    c->dst.offset = d0 + gd_chunks_offset(&it, c->dstr);
    if (c->mode != GD_OP_FILL) c->src.offset = s0 + gd_chunks_offset(&it, c->sstr);
    rc = gd_chunk_call(c);
  }
  PyMem_Free(c);
  return rc;
}

int gd_chunked_copy_into(const gd_header *dst, const int64_t *dstr, const gd_header *src, const int64_t *shape,
                         const int64_t *sstr, const char *entry) {
  return gd_chunker_run(gd_chunker_new(GD_OP_COPY_INTO, dst, shape, dstr, src, sstr, entry));
}

/* Chunks are sized by the wider of the two itemsizes. */
int gd_chunked_convert_into(const gd_header *dst, const int64_t *dstr, const gd_header *src, const int64_t *shape,
                            const int64_t *sstr, const char *entry) {
  return gd_chunker_run(gd_chunker_new(GD_OP_CONVERT_INTO, dst, shape, dstr, src, sstr, entry));
}

int gd_chunked_fill(const gd_header *dst, const int64_t *shape, const int64_t *dstr, const void *elem,
                    const char *entry) {
  gd_chunker *c = gd_chunker_new(GD_OP_FILL, dst, shape, dstr, NULL, NULL, entry);
  if (c != NULL) c->op.elem = elem;
  return gd_chunker_run(c);
}

int gd_chunked_reduce(const gd_header *h, const int64_t *shape, const int64_t *strides, gd_reduce_req *req) {
  gd_chunker *c = gd_chunker_new(GD_OP_REDUCE_CHUNK, h, shape, strides, &req->t.acc, req->t.acc_strides,
                                 gd_reduce_entry(req->op));
  if (c != NULL) {
    c->op.ptr = req;
    c->itemsize = gd_itemsize(h->dtype);
  }
  return gd_chunker_run(c);
}

int gd_chunked_copy_new(const gd_header *src, const int64_t *shape, const int64_t *sstr, gd_header *out,
                        int64_t *ostrides, const char *entry) {
  gd_op o = {.op = GD_OP_ALLOC, .flag = 1, .entry = entry, .dtype = src->dtype, .device = src->device,
             .ints = (int64_t *)shape, .nints = src->ndim, .out = out, .out_strides = ostrides};
  if (gd_run_op(&o, 0) < 0) return -1;
  if (gd_chunked_copy_into(out, ostrides, src, shape, sstr, entry) < 0) {
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
  gd_op o = {.op = GD_OP_COPY, .entry = entry, .a = (gd_header *)src, .a_shape = (int64_t *)shape,
             .a_strides = (int64_t *)sstr, .out = out, .out_strides = ostrides};
  return gd_run_op(&o, 1);
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
  if (gd_chunked_fill(&a->h, GD_SHAPE(a), GD_STRIDES(a), elem, "fill()") < 0) return NULL;
  Py_RETURN_NONE;
}
