// Zero-crossing fast paths for the no-copy export and import (issue 5), and
// for views: basic indexing, transposes and reshapes of C-contiguous arrays
// (issue 22: a forked child, which never enters Go, makes views too).
//
// Go stays authoritative: these functions accept a conservative subset of
// requests and tensors and answer "not mine" (0) for everything else, errors
// included, so every refusal and every message still comes from core. Inside
// the subset they must produce exactly what the Go path produces; each check
// below names the Go function it mirrors, and tests_go/fastpath_test.go
// proves the equivalence (table tests per boundary, FuzzFastDescribe,
// FuzzFastExport; tests_go/fastpath_view_test.go and FuzzFastIndex for the
// views). Keep in sync with core/export.go, core/validate.go,
// core/negotiate.go, core/dtype.go and core/desc.go.
//
// Pure C on purpose: no Go runtime needed, which also keeps exchanges working
// in a forked child.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "godlpack.h"

// Bytes per element of the dtypes the fast paths handle, 0 for the others.
// The byte-sized standard table of core.ValidateDataType: sub-byte types
// (packed layout rules), opaque handles, unknown codes and lanes != 1 are
// left to Go.
static int64_t gd_fast_itemsize(DLDataType dt) {
  if (dt.lanes != 1) return 0;
  int ok = 0;
  switch (dt.code) {
    case kDLInt:
    case kDLUInt:
      ok = dt.bits == 8 || dt.bits == 16 || dt.bits == 32 || dt.bits == 64;
      break;
    case kDLFloat:
      ok = dt.bits == 16 || dt.bits == 32 || dt.bits == 64;
      break;
    case kDLBfloat:
      ok = dt.bits == 16;
      break;
    case kDLComplex:
      ok = dt.bits == 64 || dt.bits == 128;
      break;
    case kDLBool:
      ok = dt.bits == 8;
      break;
    default:
      ok = dt.code >= kDLFloat8_e3m4 && dt.code <= kDLFloat8_e8m0fnu && dt.bits == 8;
      break;
  }
  return ok ? dt.bits / 8 : 0;
}

static int gd_fast_is_cpu0(DLDevice d) { return d.device_type == kDLCPU && d.device_id == 0; }

// Copies n int64. Not memcpy: GCC expands a memcpy of unknown size into
// `rep movsq`, whose start-up cost was half of gd_fast_export for 1-d arrays
// (perf). The empty asm keeps the loop from being turned back into memcpy.
static void gd_fast_copy_dims(int64_t *dst, const int64_t *src, int32_t n) {
  for (int32_t k = 0; k < n; k++) {
    dst[k] = src[k];
    __asm__ volatile("" ::: "memory");
  }
}

// ---- export ----------------------------------------------------------------

// Element count of a live array's shape; 0 (not mine) on a negative dimension
// or int64 overflow, which only a corrupt header could have: Go decides then.
static int gd_fast_size(int32_t n, const int64_t *shape, int64_t *size) {
  int64_t s = 1;
  for (int32_t k = 0; k < n; k++) {
    if (shape[k] < 0 || __builtin_mul_overflow(s, shape[k], &s)) return 0;
  }
  *size = s;
  return 1;
}

int gd_fast_export(const gd_header *h, const int64_t *shape, const int64_t *strides, const gd_export_req *req,
                   void *block, int32_t *versioned) {
  // core.planExport: no copy is planned only for copy None/False with no
  // device change; streams are checked there.
  if (req->copy != GD_COPY_IF_NEEDED && req->copy != GD_COPY_NEVER) return 0;
  if (req->has_stream) return 0;
  if (!gd_fast_is_cpu0(h->device)) return 0;
  if (req->has_dl_device && !(req->dl_type == kDLCPU && req->dl_id == 0)) return 0;
  int v = req->has_max_version && req->max_major >= 1;
  if (!v && (h->flags & GD_FLAG_READONLY)) return 0; // P2: Go raises
  // core.exportTensor
  if (h->owner == NULL) return 0;
  int32_t n = h->ndim;
  if (n < 0 || n > GD_MAX_NDIM) return 0;
  int64_t itemsize = gd_fast_itemsize(h->dtype);
  if (itemsize == 0) return 0;
  int64_t size, boff;
  if (!gd_fast_size(n, shape, &size)) return 0;
  if (__builtin_mul_overflow(h->offset, itemsize, &boff)) return 0;

  size_t head = v ? sizeof(DLManagedTensorVersioned) : sizeof(DLManagedTensor);
  size_t dims = (size_t)(n > 0 ? n : 1) * sizeof(int64_t);
  int64_t *sh = (int64_t *)((char *)block + head);
  int64_t *st = (int64_t *)((char *)block + head + dims);
  if (n > 0) {
    gd_fast_copy_dims(sh, shape, n);
    gd_fast_copy_dims(st, strides, n);
  } else {
    *sh = 1; // never NULL, as Go does for 0-d tensors
    *st = 1;
  }
  DLTensor *t = v ? &((DLManagedTensorVersioned *)block)->dl_tensor : &((DLManagedTensor *)block)->dl_tensor;
  // S5: no element, NULL data. uintptr arithmetic: Go's unsafe.Add.
  t->data = (size != 0 && h->data != NULL) ? (void *)((uintptr_t)h->data + (uintptr_t)boff) : NULL;
  t->device = h->device;
  t->ndim = n;
  t->dtype = h->dtype;
  t->shape = sh;
  t->strides = st;
  t->byte_offset = 0;
  if (v) {
    // core.ExportVersionedIn: no copy, so no IS_COPIED; no sub-byte data, so
    // no padded bit.
    DLManagedTensorVersioned *m = (DLManagedTensorVersioned *)block;
    m->version.major = DLPACK_MAJOR_VERSION;
    m->version.minor = DLPACK_MINOR_VERSION;
    m->manager_ctx = h->owner;
    m->deleter = gd_export_deleter_versioned;
    m->flags = (h->flags & GD_FLAG_READONLY) ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
  } else {
    DLManagedTensor *m = (DLManagedTensor *)block;
    m->manager_ctx = h->owner;
    m->deleter = gd_export_deleter_legacy;
  }
  // gd_owner_incref, inlined: this is the hottest line of the export.
  __atomic_add_fetch(&h->owner->refs, 1, __ATOMIC_RELAXED);
  *versioned = v;
  return 1;
}

// ---- import ----------------------------------------------------------------

// core.contiguousStrides: a zero dimension counts as 1, and the product past
// the first dimension is never used, so only earlier overflows refuse.
static int gd_fast_contiguous(int32_t n, const int64_t *shape, int64_t *strides) {
  int64_t s = 1;
  for (int32_t k = n - 1; k >= 0; k--) {
    strides[k] = s;
    if (shape[k] > 1 && __builtin_mul_overflow(s, shape[k], &s) && k > 0) return 0;
  }
  return 1;
}

// core.byteRange: the lowest reachable byte offset and the end of the highest
// reachable element of a non-empty tensor, every step checked for overflow.
static int gd_fast_byte_range(int32_t n, const int64_t *shape, const int64_t *strides, int64_t itemsize,
                              int64_t off, int64_t *lo, int64_t *hi) {
  int64_t elo = 0, ehi = 0, p;
  for (int32_t k = 0; k < n; k++) {
    if (shape[k] <= 1) continue;
    if (__builtin_mul_overflow(shape[k] - 1, strides[k], &p)) return 0;
    if (p >= 0 ? __builtin_add_overflow(ehi, p, &ehi) : __builtin_add_overflow(elo, p, &elo)) return 0;
  }
  if (__builtin_add_overflow(ehi, 1, &ehi)) return 0;
  if (__builtin_mul_overflow(elo, itemsize, &elo) || __builtin_mul_overflow(ehi, itemsize, &ehi)) return 0;
  if (__builtin_add_overflow(off, elo, lo) || __builtin_add_overflow(off, ehi, hi)) return 0;
  return 1;
}

// core.isCContiguous / isFContiguous (layout.go): a zero dimension makes any
// layout contiguous; size-1 dimensions may have any stride; a product past
// the last dimension checked may overflow.
static int gd_fast_has_zero(int32_t n, const int64_t *shape) {
  for (int32_t k = 0; k < n; k++)
    if (shape[k] == 0) return 1;
  return 0;
}

static int gd_fast_c_contig(int32_t n, const int64_t *shape, const int64_t *strides) {
  int64_t want = 1;
  for (int32_t k = n - 1; k >= 0; k--) {
    if (shape[k] == 1) continue;
    if (strides[k] != want) return 0;
    if (__builtin_mul_overflow(want, shape[k], &want) && k > 0) return 0;
  }
  return 1;
}

static int gd_fast_f_contig(int32_t n, const int64_t *shape, const int64_t *strides) {
  int64_t want = 1;
  for (int32_t k = 0; k < n; k++) {
    if (shape[k] == 1) continue;
    if (strides[k] != want) return 0;
    if (__builtin_mul_overflow(want, shape[k], &want) && k < n - 1) return 0;
  }
  return 1;
}

// core.Header.SetDerivedFlags for a tensor on (kDLCPU, 0).
static uint64_t gd_fast_derived_flags(int32_t n, const int64_t *shape, const int64_t *strides) {
  if (gd_fast_has_zero(n, shape)) return GD_FLAG_HOST | GD_FLAG_C_CONTIG | GD_FLAG_F_CONTIG;
  uint64_t f = GD_FLAG_HOST;
  if (gd_fast_c_contig(n, shape, strides)) f |= GD_FLAG_C_CONTIG;
  if (gd_fast_f_contig(n, shape, strides)) f |= GD_FLAG_F_CONTIG;
  return f;
}

// core.PlanImport with no copy to make: no device change and copy None/False,
// or copy=True already honoured by a negotiated producer (IS_COPIED).
static int gd_fast_plan_no_copy(const gd_import_req *req, uint64_t flags) {
  if (req->has_device && !(req->dev_type == kDLCPU && req->dev_id == 0)) return 0;
  switch (req->copy) {
    case GD_COPY_IF_NEEDED:
    case GD_COPY_NEVER:
      return 1;
    case GD_COPY_ALWAYS:
      return req->negotiated && (flags & DLPACK_FLAG_BITMASK_IS_COPIED);
  }
  return 0;
}

// core.describe for the subset; the check order does not matter here since
// any failure hands the tensor to Go, which reports the first one.
static int gd_fast_describe_tensor(const DLTensor *t, uint64_t flags, gd_header *h, int64_t *shape,
                                   int64_t *strides) {
  int32_t n = t->ndim;
  if (n < 0 || n > GD_MAX_NDIM) return 0;
  int64_t itemsize = gd_fast_itemsize(t->dtype);
  if (itemsize == 0 || !gd_fast_is_cpu0(t->device)) return 0;
  if (n > 0 && t->shape == NULL) return 0;
  int empty = 0;
  for (int32_t k = 0; k < n; k++) {
    int64_t d = t->shape[k];
    if (d < 0) return 0;
    empty |= d == 0;
    shape[k] = d;
  }
  int64_t size = 0;
  if (!empty && !gd_fast_size(n, shape, &size)) return 0;
  if (n > 0 && t->strides != NULL) {
    gd_fast_copy_dims(strides, t->strides, n);
  } else if (!gd_fast_contiguous(n, shape, strides)) {
    return 0;
  }
  if (t->byte_offset > (uint64_t)INT64_MAX) return 0;
  int64_t off = (int64_t)t->byte_offset;
  if (t->data == NULL && size != 0) return 0; // S5
  int64_t lo = off, hi = off;
  if (size != 0 && !gd_fast_byte_range(n, shape, strides, itemsize, off, &lo, &hi)) return 0;
  uintptr_t data = (uintptr_t)t->data;
  if (data != 0) {
    uint64_t base = (uint64_t)data;
    if ((lo < 0 && (uint64_t)0 - (uint64_t)lo > base) || (hi > 0 && base + (uint64_t)hi < base)) return 0;
    data += (uintptr_t)off;
  }
  h->data = (void *)data;
  h->owner = NULL;
  h->offset = 0;
  h->dtype = t->dtype;
  h->ndim = n;
  h->device = t->device;
  h->flags = ((flags & DLPACK_FLAG_BITMASK_READ_ONLY) ? GD_FLAG_READONLY : 0) |
             gd_fast_derived_flags(n, shape, strides);
  return 1;
}

int gd_fast_describe(const void *managed, int versioned, const gd_import_req *req, gd_header *h, int64_t *shape,
                     int64_t *strides) {
  if (managed == NULL) return 0;
  if (!versioned) {
    const DLManagedTensor *m = (const DLManagedTensor *)managed;
    return gd_fast_plan_no_copy(req, 0) && gd_fast_describe_tensor(&m->dl_tensor, 0, h, shape, strides);
  }
  const DLManagedTensorVersioned *m = (const DLManagedTensorVersioned *)managed;
  if (m->version.major != DLPACK_MAJOR_VERSION) return 0; // S1: read nothing else
  uint64_t flags = m->flags;
  if (flags & ~(uint64_t)(DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED)) return 0;
  return gd_fast_plan_no_copy(req, flags) && gd_fast_describe_tensor(&m->dl_tensor, flags, h, shape, strides);
}

int gd_fast_describe_plain(const DLTensor *t, uint64_t flags, gd_header *h, int64_t *shape, int64_t *strides) {
  if (flags & ~(uint64_t)DLPACK_FLAG_BITMASK_READ_ONLY) return 0;
  return gd_fast_describe_tensor(t, flags, h, shape, strides);
}

// core.CheckImportDevice for the one device it always accepts: from_dlpack(x,
// device=(kDLCPU, 0)). Anything else is Go's to decide.
int gd_fast_import_device(int32_t type, int32_t id) { return type == kDLCPU && id == 0; }

// ---- views -----------------------------------------------------------------

// The arrays the view paths serve: (kDLCPU, 0), a byte-sized standard dtype.
static int gd_fast_viewable(const gd_header *h) {
  return gd_fast_is_cpu0(h->device) && gd_fast_itemsize(h->dtype) > 0 && h->ndim >= 0 && h->ndim <= GD_MAX_NDIM;
}

// The view's header: h's, with its offset, ndim and the derived flags of its
// layout (core.Header.SetDerivedFlags on (kDLCPU, 0)).
static void gd_fast_view_header(const gd_header *h, int64_t off, int32_t nd, const int64_t *shape,
                                const int64_t *strides, gd_header *out) {
  *out = *h;
  out->offset = off;
  out->ndim = nd;
  out->flags = (h->flags & ~(uint64_t)(GD_FLAG_HOST | GD_FLAG_C_CONTIG | GD_FLAG_F_CONTIG)) |
               gd_fast_derived_flags(nd, shape, strides);
}

// core.adjustSlice: CPython's PySlice_Unpack + PySlice_AdjustIndices.
static int64_t gd_fast_clamp(int64_t v, int64_t n, int64_t step) {
  if (v < 0) {
    v += n;
    if (v < 0) return step < 0 ? -1 : 0;
  } else if (v >= n) {
    return step < 0 ? n - 1 : n;
  }
  return v;
}

static void gd_fast_slice(int64_t n, const gd_index_op *op, int64_t *start, int64_t *length, int64_t *step) {
  int64_t st = op->step < -INT64_MAX ? -INT64_MAX : op->step;
  int64_t a = op->has_start ? op->start : (st < 0 ? INT64_MAX : 0);
  int64_t b = op->has_stop ? op->stop : (st < 0 ? INT64_MIN : INT64_MAX);
  a = gd_fast_clamp(a, n, st);
  b = gd_fast_clamp(b, n, st);
  int64_t len = 0;
  if (st < 0) {
    if (b < a) len = (a - b - 1) / (-st) + 1;
  } else if (a < b) {
    len = (b - a - 1) / st + 1;
  }
  *start = a;
  *length = len;
  *step = st;
}

// core.applyIndex.
int gd_fast_index(const gd_header *h, const int64_t *shape, const int64_t *strides, const gd_index_op *ops,
                  int32_t nops, gd_header *out, int64_t *oshape, int64_t *ostrides) {
  if (!gd_fast_viewable(h) || nops < 0 || nops > GD_MAX_INDEX_OPS) return -1;
  int32_t nd = h->ndim, consumed = 0, ellipses = 0, added = 0, ints = 0;
  for (int32_t i = 0; i < nops; i++) {
    switch (ops[i].kind) {
      case GD_IDX_INT:
        ints++;
        consumed++;
        break;
      case GD_IDX_SLICE:
        if (ops[i].step == 0) return -1;
        consumed++;
        break;
      case GD_IDX_ELLIPSIS:
        ellipses++;
        break;
      case GD_IDX_NEWAXIS:
        added++;
        break;
      default:
        return -1;
    }
  }
  if (ellipses > 1 || consumed > nd || nd - ints + added > GD_MAX_NDIM) return -1;
  // an empty array reaches no element: offset and strides are carried unchecked
  int empty = gd_fast_has_zero(nd, shape);
  int64_t off = h->offset, d;
  int32_t ax = 0, k = 0;
  for (int32_t i = 0; i < nops; i++) {
    const gd_index_op *op = &ops[i];
    switch (op->kind) {
      case GD_IDX_INT: {
        int64_t n = shape[ax], idx = op->i < 0 ? op->i + n : op->i; /* no wrap: n >= 0 */
        if (idx < 0 || idx >= n) return -1;
        if (!empty && (__builtin_mul_overflow(idx, strides[ax], &d) || __builtin_add_overflow(off, d, &off)))
          return -1;
        ax++;
        break;
      }
      case GD_IDX_SLICE: {
        int64_t start, length, step, st = strides[ax];
        gd_fast_slice(shape[ax], op, &start, &length, &step);
        if (length > 1 && __builtin_mul_overflow(st, step, &st)) return -1;
        if (length > 0 && !empty &&
            (__builtin_mul_overflow(start, strides[ax], &d) || __builtin_add_overflow(off, d, &off)))
          return -1;
        oshape[k] = length;
        ostrides[k] = st;
        k++;
        ax++;
        break;
      }
      case GD_IDX_ELLIPSIS:
        for (int32_t e = 0; e < nd - consumed; e++, k++, ax++) {
          oshape[k] = shape[ax];
          ostrides[k] = strides[ax];
        }
        break;
      case GD_IDX_NEWAXIS:
        oshape[k] = 1;
        ostrides[k] = 0;
        k++;
        break;
    }
  }
  for (; ax < nd; ax++, k++) {
    oshape[k] = shape[ax];
    ostrides[k] = strides[ax];
  }
  gd_fast_view_header(h, off, k, oshape, ostrides, out);
  return k;
}

// core.TransposeDesc.
int gd_fast_transpose(const gd_header *h, const int64_t *shape, const int64_t *strides, const int32_t *axes,
                      int32_t naxes, gd_header *out, int64_t *oshape, int64_t *ostrides) {
  if (!gd_fast_viewable(h)) return 0;
  int32_t nd = h->ndim;
  if (naxes != 0 && naxes != nd) return 0;
  unsigned char seen[GD_MAX_NDIM] = {0};
  for (int32_t i = 0; i < nd; i++) {
    int32_t a = nd - 1 - i;
    if (naxes != 0) {
      a = axes[i];
      if (a < 0) a += nd;
      if (a < 0 || a >= nd || seen[a]) return 0;
      seen[a] = 1;
    }
    oshape[i] = shape[a];
    ostrides[i] = strides[a];
  }
  gd_fast_view_header(h, h->offset, nd, oshape, ostrides, out);
  return 1;
}

// core.ReshapeDesc for a C-contiguous array, whose view has the new shape's
// C strides.
int gd_fast_reshape(const gd_header *h, const int64_t *shape, const int64_t *strides, int64_t *new_shape,
                    int32_t nn, gd_header *out, int64_t *ostrides) {
  if (!gd_fast_viewable(h) || nn < 0 || nn > GD_MAX_NDIM || !(h->flags & GD_FLAG_C_CONTIG)) return 0;
  int64_t size;
  if (!gd_fast_size(h->ndim, shape, &size)) return 0;
  int32_t unknown = -1;
  int64_t known = 1;
  for (int32_t i = 0; i < nn; i++) {
    if (new_shape[i] == -1) {
      if (unknown >= 0) return 0;
      unknown = i;
    } else if (new_shape[i] < 0 || __builtin_mul_overflow(known, new_shape[i], &known)) {
      return 0;
    }
  }
  if (unknown >= 0 ? (known == 0 || size % known != 0) : known != size) return 0;
  int64_t resolved[GD_MAX_NDIM];
  for (int32_t i = 0; i < nn; i++) resolved[i] = i == unknown ? size / known : new_shape[i];
  if (!gd_fast_contiguous(nn, resolved, ostrides)) return 0; /* Go's strides wrap there: declined */
  if (unknown >= 0) new_shape[unknown] = resolved[unknown];
  gd_fast_view_header(h, h->offset, nn, new_shape, ostrides, out);
  return 1;
}

// ---- One element as a C value: gd_elem_read / gd_elem_write ----
//
// The skin's scalar access (a[i], a[i] = v, tolist, fill's element, the
// result of a reduction) without a call into Go, so that a forked child has
// it too. Twin of core.ConvertInto for one element between the array's dtype
// and int64 / uint64 / float64 / complex128 (tests_go/element_test.go compares
// every float8, float16 and bfloat16 code, and rounding at the midpoints).

// float16 (IEEE binary16) through the compiler's _Float16: correct rounding
// from double by libgcc / compiler-rt.
static double gd_half_to_double(uint16_t h) {
  _Float16 f;
  memcpy(&f, &h, 2);
  return (double)f;
}

// A NaN keeps its sign and top payload bits, quiet or not, as numpy's
// npy_doublebits_to_halfbits (core/kernels/narrow.go f16FromF64).
static uint16_t gd_double_to_half(double x) {
  uint64_t b;
  memcpy(&b, &x, 8);
  if ((b & ~(1ull << 63)) > 0x7ff0000000000000ull) {
    uint16_t h = (uint16_t)(0x7c00 + ((b & ((1ull << 52) - 1)) >> 42));
    return (uint16_t)((b >> 48) & 0x8000) | (h == 0x7c00 ? 0x7c01 : h);
  }
  _Float16 f = (_Float16)x;
  uint16_t h;
  memcpy(&h, &f, 2);
  return h;
}

// bfloat16: the upper half of a float32, rounded to nearest even.
static double gd_bf16_to_double(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return (double)f;
}

static uint16_t gd_double_to_bf16(double x) {
  float f = (float)x;
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) & 0x8000) | 0x7fc0;  // ml_dtypes' quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

// 8-bit floats (DLPack codes 7..14): core/kernels/narrow.go's nfmt, decoded and
// encoded as ml_dtypes does.
enum { GD_F8_IEEE, GD_F8_FN, GD_F8_FNUZ, GD_F8_E8M0 };  // narrow.go's styles
typedef struct {
  int ebits, mbits, bias, style;
  uint64_t max_code;  // largest finite magnitude code
} gd_f8fmt;

static int gd_f8_format(uint8_t code, gd_f8fmt *f) {
  static const gd_f8fmt t[8] = {
      {3, 4, 3, GD_F8_IEEE, 0x6f},  {4, 3, 7, GD_F8_IEEE, 0x77},  {4, 3, 11, GD_F8_FNUZ, 0x7f},
      {4, 3, 7, GD_F8_FN, 0x7e},    {4, 3, 8, GD_F8_FNUZ, 0x7f},  {5, 2, 15, GD_F8_IEEE, 0x7b},
      {5, 2, 16, GD_F8_FNUZ, 0x7f}, {8, 0, 127, GD_F8_E8M0, 0xfe},
  };
  if (code < kDLFloat8_e3m4 || code > kDLFloat8_e8m0fnu) return -1;
  *f = t[code - kDLFloat8_e3m4];
  return 0;
}

static double gd_f8_decode(const gd_f8fmt *f, uint8_t v) {
  if (f->style == GD_F8_E8M0) return v == 0xff ? NAN : ldexp(1.0, (int)v - f->bias);
  if (f->style == GD_F8_FNUZ && v == 0x80) return NAN;
  int sign = v >> 7;
  int e = (v >> f->mbits) & ((1 << f->ebits) - 1);
  int m = v & ((1 << f->mbits) - 1);
  double r;
  if (f->style == GD_F8_IEEE && e == (1 << f->ebits) - 1) {
    r = m ? NAN : INFINITY;
  } else if (f->style == GD_F8_FN && (uint64_t)(v & 0x7f) > f->max_code) {
    r = NAN;
  } else if (e == 0) {
    r = ldexp((double)m, 1 - f->bias - f->mbits);
  } else {
    r = ldexp((double)(m + (1 << f->mbits)), e - f->bias - f->mbits);
  }
  return sign ? -r : r;
}

// nfmt.encodeE8M0: powers of two, ties to the larger; below 2^-126 the
// float32 subnormal's bits round to 0 or 1 as in ml_dtypes.
static uint8_t gd_e8m0_encode(const gd_f8fmt *f, double x, uint64_t a) {
  if (!(x > 0) || a >= 0x7ff0000000000000ull) return 0xff;
  int exp = (int)(a >> 52) - 1023;
  if (exp < 1 - f->bias) return exp == -f->bias && (a & ((1ull << 52) - 1)) != 0;
  int code = exp + f->bias + ((a & ((1ull << 52) - 1)) >= (1ull << 51));
  return code > (int)f->max_code ? 0xff : (uint8_t)code;
}

// nfmt.encode after ml_dtypes' rounding of the source to float32: nearest,
// ties to even; overflow is inf where the kind has one, else NaN; fnuz kinds
// have no -0.
static uint8_t gd_f8_encode(const gd_f8fmt *f, double x) {
  x = (double)(float)x;
  uint64_t b;
  memcpy(&b, &x, 8);
  uint64_t a = b & ~(1ull << 63);
  if (f->style == GD_F8_E8M0) return gd_e8m0_encode(f, x, a);
  uint8_t sign = (b >> 63) ? (uint8_t)(1u << (f->ebits + f->mbits)) : 0;
  if (a > 0x7ff0000000000000ull) {  // NaN
    if (f->style == GD_F8_IEEE) return sign | (uint8_t)((((1u << f->ebits) - 1) << f->mbits) | (1u << (f->mbits - 1)));
    if (f->style == GD_F8_FN) return sign | (uint8_t)((1u << (f->ebits + f->mbits)) - 1);
    return 0x80;
  }
  uint64_t code = 0;
  int exp = (int)(a >> 52) - 1023;
  if (a == 0x7ff0000000000000ull) {
    code = f->max_code + 1;
  } else if (exp > -1023) {  // float64 subnormals round to 0 in every kind
    uint64_t mant = (a & ((1ull << 52) - 1)) | (1ull << 52);
    int emin = 1 - f->bias, e = exp > emin ? exp : emin;
    unsigned shift = (unsigned)(52 + e - exp - f->mbits);
    uint64_t r = 0;
    if (shift < 64) {
      r = mant >> shift;
      uint64_t rem = mant & ((1ull << shift) - 1), half = 1ull << (shift - 1);
      if (rem > half || (rem == half && (r & 1))) r++;
    }
    code = r + ((uint64_t)(e - emin) << f->mbits);  // a carry moves into the exponent
  }
  if (code > f->max_code) {
    if (f->style == GD_F8_IEEE) return sign | (uint8_t)(((1u << f->ebits) - 1) << f->mbits);
    if (f->style == GD_F8_FN) return sign | (uint8_t)((1u << (f->ebits + f->mbits)) - 1);
    return 0x80;
  }
  if (code == 0 && f->style == GD_F8_FNUZ) return 0;
  return sign | (uint8_t)code;
}

int gd_elem_kind(DLDataType dt) {
  gd_f8fmt f;
  if (dt.lanes != 1) return GD_ELEM_NONE;
  switch (dt.code) {
    case kDLBool: return dt.bits == 8 ? GD_ELEM_BOOL : GD_ELEM_NONE;
    case kDLInt: return dt.bits == 8 || dt.bits == 16 || dt.bits == 32 || dt.bits == 64 ? GD_ELEM_INT : GD_ELEM_NONE;
    case kDLUInt: return dt.bits == 8 || dt.bits == 16 || dt.bits == 32 || dt.bits == 64 ? GD_ELEM_UINT : GD_ELEM_NONE;
    case kDLFloat: return dt.bits == 16 || dt.bits == 32 || dt.bits == 64 ? GD_ELEM_REAL : GD_ELEM_NONE;
    case kDLBfloat: return dt.bits == 16 ? GD_ELEM_REAL : GD_ELEM_NONE;
    case kDLComplex: return dt.bits == 64 || dt.bits == 128 ? GD_ELEM_COMPLEX : GD_ELEM_NONE;
  }
  return dt.bits == 8 && gd_f8_format(dt.code, &f) == 0 ? GD_ELEM_REAL : GD_ELEM_NONE;
}

int gd_elem_read(DLDataType dt, const void *p, gd_elem *e) {
  memset(e, 0, sizeof(*e));
  e->kind = gd_elem_kind(dt);
  int64_t n = dt.bits / 8;
  switch (e->kind) {
    case GD_ELEM_BOOL: e->i = *(const uint8_t *)p != 0; break;
    case GD_ELEM_INT: {
      int8_t i8; int16_t i16; int32_t i32;
      switch (n) {
        case 1: memcpy(&i8, p, 1); e->i = i8; break;
        case 2: memcpy(&i16, p, 2); e->i = i16; break;
        case 4: memcpy(&i32, p, 4); e->i = i32; break;
        default: memcpy(&e->i, p, 8);
      }
      break;
    }
    case GD_ELEM_UINT: {
      uint8_t u8; uint16_t u16; uint32_t u32;
      switch (n) {
        case 1: memcpy(&u8, p, 1); e->u = u8; break;
        case 2: memcpy(&u16, p, 2); e->u = u16; break;
        case 4: memcpy(&u32, p, 4); e->u = u32; break;
        default: memcpy(&e->u, p, 8);
      }
      break;
    }
    case GD_ELEM_REAL: {
      uint16_t h; float f; gd_f8fmt f8;
      if (dt.code == kDLBfloat) { memcpy(&h, p, 2); e->re = gd_bf16_to_double(h); }
      else if (dt.code != kDLFloat) { gd_f8_format(dt.code, &f8); e->re = gd_f8_decode(&f8, *(const uint8_t *)p); }
      else if (n == 2) { memcpy(&h, p, 2); e->re = gd_half_to_double(h); }
      else if (n == 4) { memcpy(&f, p, 4); e->re = f; }
      else memcpy(&e->re, p, 8);
      break;
    }
    case GD_ELEM_COMPLEX: {
      float c[2];
      if (n == 8) { memcpy(c, p, 8); e->re = c[0]; e->im = c[1]; }
      else { memcpy(&e->re, p, 8); memcpy(&e->im, (const char *)p + 8, 8); }
      break;
    }
  }
  return e->kind;
}

int gd_elem_write(DLDataType dt, const gd_elem *e, void *out) {
  int kind = gd_elem_kind(dt);
  int64_t n = dt.bits / 8;
  if (kind == GD_ELEM_NONE || (kind == GD_ELEM_INT || kind == GD_ELEM_UINT) != (e->kind == GD_ELEM_INT || e->kind == GD_ELEM_UINT))
    return GD_ELEM_E_KIND;
  switch (kind) {
    case GD_ELEM_BOOL: *(uint8_t *)out = e->i != 0; return 0;
    case GD_ELEM_INT: {
      int64_t lo = n == 8 ? INT64_MIN : -((int64_t)1 << (8 * n - 1)), hi = n == 8 ? INT64_MAX : ((int64_t)1 << (8 * n - 1)) - 1;
      if (e->kind == GD_ELEM_UINT ? e->u > (uint64_t)hi : (e->i < lo || e->i > hi)) return GD_ELEM_E_RANGE;
      int64_t v = e->kind == GD_ELEM_UINT ? (int64_t)e->u : e->i;
      int8_t i8 = (int8_t)v; int16_t i16 = (int16_t)v; int32_t i32 = (int32_t)v;
      memcpy(out, n == 1 ? (void *)&i8 : n == 2 ? (void *)&i16 : n == 4 ? (void *)&i32 : (void *)&v, (size_t)n);
      return 0;
    }
    case GD_ELEM_UINT: {
      uint64_t hi = n == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * n)) - 1;
      if (e->kind == GD_ELEM_INT ? (e->i < 0 || (uint64_t)e->i > hi) : e->u > hi) return GD_ELEM_E_RANGE;
      uint64_t v = e->kind == GD_ELEM_INT ? (uint64_t)e->i : e->u;
      uint8_t u8 = (uint8_t)v; uint16_t u16 = (uint16_t)v; uint32_t u32 = (uint32_t)v;
      memcpy(out, n == 1 ? (void *)&u8 : n == 2 ? (void *)&u16 : n == 4 ? (void *)&u32 : (void *)&v, (size_t)n);
      return 0;
    }
    case GD_ELEM_REAL: {
      uint16_t h; float f; gd_f8fmt f8;
      if (dt.code == kDLBfloat) { h = gd_double_to_bf16(e->re); memcpy(out, &h, 2); }
      else if (dt.code != kDLFloat) { gd_f8_format(dt.code, &f8); *(uint8_t *)out = gd_f8_encode(&f8, e->re); }
      else if (n == 2) { h = gd_double_to_half(e->re); memcpy(out, &h, 2); }
      else if (n == 4) { f = (float)e->re; memcpy(out, &f, 4); }
      else memcpy(out, &e->re, 8);
      return 0;
    }
    default: {  // GD_ELEM_COMPLEX
      float c[2] = {(float)e->re, (float)e->im};
      if (n == 8) memcpy(out, c, 8);
      else { memcpy(out, &e->re, 8); memcpy((char *)out + 8, &e->im, 8); }
      return 0;
    }
  }
}
