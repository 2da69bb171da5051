// arrow.c: an array as Arrow's C data interface (godlpack.h), for the Arrow
// PyCapsule interface (__arrow_c_schema__, __arrow_c_array__), which polars,
// pyarrow, DuckDB and nanoarrow read. Which arrays Arrow can carry, when the
// elements are shared and when copied, and how a refusal is worded are decided
// in this one file (each dtype's format is in bufferfmt.c's table); the skin
// wraps the structs in capsules. Pure C: no Go runtime, so a forked child can
// export too.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "godlpack.h"

static void gd_arrow_release_schema(struct ArrowSchema *s) { s->release = NULL; }

int gd_arrow_schema(const char *entry, DLDataType dt, struct ArrowSchema *out, char *msg, int64_t cap) {
  memset(out, 0, sizeof *out);
  out->format = gd_arrow_format(dt);
  if (out->format == NULL) {
    snprintf(msg, (size_t)cap,
             "%s: Arrow has no complex, bfloat16 or float8/6/4 type; convert the array first, e.g. "
             "a.astype(\"float32\"), or exchange it through DLPack",
             entry);
    return -1;
  }
  out->name = "";
  out->flags = 2;  // ARROW_FLAG_NULLABLE, as pyarrow marks its arrays' fields; no element is null
  out->release = gd_arrow_release_schema;
  return 0;
}

// What an exported ArrowArray holds: its buffer list, and either a reference
// to the array's owner (the elements are shared) or the copy it made.
typedef struct {
  const void *buffers[2];
  gd_owner *owner;
  void *copy;
} gd_arrow_private;

static void gd_arrow_release_array(struct ArrowArray *a) {
  gd_arrow_private *p = (gd_arrow_private *)a->private_data;
  if (p->owner != NULL) gd_owner_decref(p->owner);
  free(p->copy);
  free(p);
  a->release = NULL;
}

// An empty array's data buffer: Arrow wants one, even of no bytes.
static _Alignas(64) const unsigned char gd_arrow_empty[64];

int gd_arrow_array(const char *entry, const gd_header *h, const int64_t *shape, const int64_t *strides,
                   struct ArrowArray *out, char *msg, int64_t cap) {
  memset(out, 0, sizeof *out);
  if (!(h->flags & GD_FLAG_HOST)) {
    snprintf(msg, (size_t)cap,
             "%s: the array is not in memory the CPU can read; copy it first with a.to_device(\"cpu\")", entry);
    return -1;
  }
  if (h->ndim != 1) {
    snprintf(msg, (size_t)cap,
             "%s: Arrow arrays have one dimension and this one has %d; pass a.reshape(-1) for its elements", entry,
             (int)h->ndim);
    return -1;
  }
  const char *format = gd_arrow_format(h->dtype);
  if (format == NULL) {
    struct ArrowSchema unused;
    return gd_arrow_schema(entry, h->dtype, &unused, msg, cap);
  }
  int64_t n = shape[0], step = strides[0], is = h->dtype.bits / 8;
  const unsigned char *first = (const unsigned char *)h->data + h->offset * is;
  gd_arrow_private *p = (gd_arrow_private *)calloc(1, sizeof *p);
  if (p == NULL) {
    snprintf(msg, (size_t)cap, "%s: out of memory", entry);
    return -1;
  }
  int bits = format[0] == 'b';
  if (n == 0) {
    p->buffers[1] = gd_arrow_empty;
  } else if (!bits && (step == 1 || n == 1)) {  // Arrow's layout already: share the elements
    p->owner = h->owner;
    gd_owner_incref(p->owner);
    p->buffers[1] = first;
  } else {  // a bitmap, or elements a stride apart: Arrow's layout is a copy
    int64_t nbytes = bits ? (n + 7) / 8 : n * is;
    unsigned char *c = (unsigned char *)aligned_alloc(64, (size_t)((nbytes + 63) / 64 * 64));
    if (c == NULL) {
      free(p);
      snprintf(msg, (size_t)cap, "%s: out of memory for a copy of %lld bytes", entry, (long long)nbytes);
      return -1;
    }
    if (bits) memset(c, 0, (size_t)nbytes);
    for (int64_t i = 0; i < n; i++) {
      const unsigned char *e = first + i * step * is;
      if (bits)
        c[i >> 3] |= (unsigned char)((*e != 0) << (i & 7));
      else
        memcpy(c + i * is, e, (size_t)is);
    }
    p->copy = c;
    p->buffers[1] = c;
  }
  out->length = n;
  out->n_buffers = 2;  // no validity bitmap: no element is null
  out->buffers = p->buffers;
  out->release = gd_arrow_release_array;
  out->private_data = p;
  return 0;
}
