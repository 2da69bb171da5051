// chunk.c: how a long operation on a CPU array is cut into chunks, so that
// Ctrl-C interrupts it: the skin runs each chunk as one Go call with the GIL
// released and checks for signals between chunks (pyext/chunk.c). The plan
// walks the leading axes one index at a time until what is left of a
// position is at most one chunk, then takes runs of the next axis whole.
#include <stdlib.h>
#include <string.h>

#include "godlpack.h"

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

int gd_fill_is_zero(DLDataType dt, const void *elem) {
  int64_t bits = (int64_t)dt.bits * dt.lanes;
  if (elem == NULL || bits < 8 || bits % 8 != 0) return 0;
  for (int64_t i = 0; i < bits / 8; i++)
    if (((const unsigned char *)elem)[i] != 0) return 0;
  return 1;
}

int gd_chunk_eligible(const gd_header *h, const int64_t *shape) {
  if (h->ndim < 1 || !(h->flags & GD_FLAG_HOST)) return 0;
  if ((int64_t)h->dtype.bits * h->dtype.lanes < 8) return 0; /* sub-byte: one Go call */
  int64_t is = ((int64_t)h->dtype.bits * h->dtype.lanes + 7) / 8, n = is;
  for (int32_t i = 0; i < h->ndim; i++) {
    if (shape[i] == 0) return 0;
    if (n > gd_chunk_bytes()) continue; /* already big; avoid overflow */
    n *= shape[i];
  }
  return n > gd_chunk_bytes();
}

void gd_chunks_init(gd_chunks *c, int32_t nd, const int64_t *shape, int64_t itemsize) {
  memset(c, 0, sizeof(*c));
  c->nd = nd;
  c->shape = shape;
  int64_t bytes = gd_chunk_bytes(), row = itemsize;
  int64_t rows[GD_MAX_NDIM]; /* rows[k]: the bytes of one index of axis k, saturated past a chunk */
  for (int32_t j = nd - 1; j >= 0; j--) {
    rows[j] = row;
    if (row <= bytes) row = shape[j] > 0 && row > bytes / shape[j] ? bytes + 1 : row * shape[j];
  }
  int32_t k = 0;
  while (k < nd - 1 && rows[k] > bytes) k++;
  c->k = k;
  c->run = nd > 0 && rows[k] > 0 && bytes / rows[k] > 0 ? bytes / rows[k] : 1;
  for (int32_t j = 0; j < nd; j++)
    if (shape[j] <= 0) c->done = 1;
  if (nd < 1) c->done = 1;
}

int gd_chunks_next(gd_chunks *c, int64_t *sub) {
  if (c->done) return 0;
  int32_t k = c->k;
  if (c->started) {
    c->idx[k] += c->run;
    for (int32_t j = k; j >= 0 && c->idx[j] >= c->shape[j]; j--) {
      if (j == 0) {
        c->done = 1;
        return 0;
      }
      c->idx[j] = 0;
      c->idx[j - 1]++;
    }
  }
  c->started = 1;
  for (int32_t j = 0; j < c->nd; j++) sub[j] = j < k ? 1 : c->shape[j];
  sub[k] = c->shape[k] - c->idx[k] < c->run ? c->shape[k] - c->idx[k] : c->run;
  return 1;
}

int64_t gd_chunks_offset(const gd_chunks *c, const int64_t *strides) {
  int64_t off = 0;
  for (int32_t j = 0; j <= c->k && j < c->nd; j++) off += c->idx[j] * strides[j];
  return off;
}
