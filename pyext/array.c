//go:build pyext

/* array.c: the godlpack.Array type (PyType_FromModuleAndSpec, abi3).
 *
 * The object is a gd_header plus shape and strides in a variable-size tail.
 * It holds one owner reference, released in C by tp_dealloc (no Go call).
 * Each method makes at most one call into Go (the gdgo_* exports). */
#include <string.h>

#include "_cgo_export.h"
#include "crossing.h"
#include "skin.h"
#include "reliability.h"

/* ------------------------------------------------------------------ */
/* construction / destruction                                         */

int gd_array_check(gd_state *st, PyObject *o) {
  return Py_TYPE(o) == st->array_type;
}

int64_t gd_size_of(int32_t ndim, const int64_t *shape) {
  int64_t n = 1;
  for (int32_t i = 0; i < ndim; i++) n *= shape[i];
  return n;
}

PyObject *gd_array_new(gd_state *st, const gd_header *h, const int64_t *shape,
                       const int64_t *strides) {
  int32_t nd = h->ndim;
  gd_array *a = (gd_array *)PyType_GenericAlloc(st->array_type, nd);
  if (a == NULL) {
    gd_owner_decref(h->owner);
    return NULL;
  }
  a->h = *h;
  if (nd > 0) {
    memcpy(a->dims, shape, (size_t)nd * sizeof(int64_t));
    memcpy(a->dims + nd, strides, (size_t)nd * sizeof(int64_t));
  }
  return (PyObject *)a;
}

static void gd_array_dealloc(PyObject *self) {
  gd_array *a = (gd_array *)self;
  PyTypeObject *tp = Py_TYPE(self);
  gd_owner *o = a->h.owner;
  a->h.owner = NULL;
  /* A foreign deleter may run Python code (a ctypes callback): keep an
   * exception in flight (the array may die while one propagates) apart. */
  PyObject *et, *ev, *etb;
  PyErr_Fetch(&et, &ev, &etb);
  gd_owner_decref(o); /* pure C: may call a foreign deleter */
  PyErr_Restore(et, ev, etb);
  freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
  f(self);
  Py_DECREF(tp);
}

static gd_state *gd_st(PyObject *self) { return gd_state_of_type(Py_TYPE(self)); }

/* Pointer to the element at flat position given by an element offset. */
static inline char *gd_elem_ptr(const gd_array *a, int64_t elem_offset) {
  return (char *)a->h.data + (a->h.offset + elem_offset) * gd_itemsize(a->h.dtype);
}

/* Bytes the elements of a occupy (for the GIL-release threshold). */
static int gd_is_big(const gd_array *a) {
  int64_t n = gd_size_of(a->h.ndim, GD_SHAPE(a));
  return n * (gd_itemsize(a->h.dtype) + 1) >= GD_NOGIL_BYTES;
}

static PyObject *gd_tuple_of(const int64_t *v, int32_t n) {
  PyObject *t = PyTuple_New(n);
  if (t == NULL) return NULL;
  for (int32_t i = 0; i < n; i++) {
    PyObject *x = PyLong_FromLongLong(v[i]);
    if (x == NULL) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SetItem(t, i, x);
  }
  return t;
}

/* ------------------------------------------------------------------ */
/* dtype / device objects (cached by the Python side)                  */

PyObject *gd_dtype_object(gd_state *st, DLDataType dt) {
  PyObject *key = PyLong_FromLong(gd_dtype_key(dt));
  if (key == NULL) return NULL;
  PyObject *d = st->dtype_by_key ? PyDict_GetItemWithError(st->dtype_by_key, key) : NULL;
  Py_DECREF(key);
  if (d != NULL) {
    Py_INCREF(d);
    return d;
  }
  if (PyErr_Occurred()) return NULL;
  PyErr_Format(PyExc_RuntimeError, "godlpack: no DType object for (code=%d, bits=%d, lanes=%d)",
               (int)dt.code, (int)dt.bits, (int)dt.lanes);
  return NULL;
}

PyObject *gd_device_object(gd_state *st, DLDevice dev) {
  if (dev.device_type == kDLCPU && dev.device_id == 0 && st->cpu_device != NULL) {
    Py_INCREF(st->cpu_device);
    return st->cpu_device;
  }
  if (st->device_cls == NULL) return Py_BuildValue("(ii)", (int)dev.device_type, (int)dev.device_id);
  PyObject *pair = Py_BuildValue("(ii)", (int)dev.device_type, (int)dev.device_id);
  if (pair == NULL) return NULL;
  PyObject *r = PyObject_CallFunctionObjArgs(st->device_cls, pair, NULL);
  Py_DECREF(pair);
  return r;
}

static PyObject *gd_devtype_member(gd_state *st, int32_t t) {
  if (t >= 0 && t <= GD_DEVTYPE_MAX && st->devtype_members[t] != NULL) {
    Py_INCREF(st->devtype_members[t]);
    return st->devtype_members[t];
  }
  return PyLong_FromLong(t);
}

/* ------------------------------------------------------------------ */
/* attributes                                                          */

static PyObject *gd_get_shape(PyObject *self, void *c) {
  gd_array *a = (gd_array *)self;
  return gd_tuple_of(GD_SHAPE(a), a->h.ndim);
}
static PyObject *gd_get_strides(PyObject *self, void *c) {
  gd_array *a = (gd_array *)self;
  return gd_tuple_of(GD_STRIDES(a), a->h.ndim);
}
static PyObject *gd_get_ndim(PyObject *self, void *c) {
  return PyLong_FromLong(((gd_array *)self)->h.ndim);
}
static PyObject *gd_get_size(PyObject *self, void *c) {
  gd_array *a = (gd_array *)self;
  return PyLong_FromLongLong(gd_size_of(a->h.ndim, GD_SHAPE(a)));
}
static PyObject *gd_get_itemsize(PyObject *self, void *c) {
  return PyLong_FromLongLong(gd_array_itemsize(&((gd_array *)self)->h));
}
static PyObject *gd_get_nbytes(PyObject *self, void *c) {
  gd_array *a = (gd_array *)self;
  int64_t n = gd_size_of(a->h.ndim, GD_SHAPE(a));
  int64_t is = gd_array_itemsize(&a->h);
  if (is == 0) { /* packed sub-byte: ceil(n*bits/8) */
    int64_t bits = (int64_t)a->h.dtype.bits * a->h.dtype.lanes;
    return PyLong_FromLongLong((n / 8) * bits + ((n % 8) * bits + 7) / 8);
  }
  int64_t nb;
  if (!__builtin_mul_overflow(n, is, &nb)) return PyLong_FromLongLong(nb);
  /* a broadcast (stride 0) array can span more than 2**63 bytes: exact int */
  PyObject *pn = PyLong_FromLongLong(n), *pis = PyLong_FromLongLong(is);
  PyObject *r = (pn != NULL && pis != NULL) ? PyNumber_Multiply(pn, pis) : NULL;
  Py_XDECREF(pn);
  Py_XDECREF(pis);
  return r;
}
static PyObject *gd_get_dtype(PyObject *self, void *c) {
  return gd_dtype_object(gd_st(self), ((gd_array *)self)->h.dtype);
}
static PyObject *gd_get_device(PyObject *self, void *c) {
  return gd_device_object(gd_st(self), ((gd_array *)self)->h.device);
}
static PyObject *gd_get_readonly(PyObject *self, void *c) {
  return PyBool_FromLong((((gd_array *)self)->h.flags & GD_FLAG_READONLY) != 0);
}

static PyObject *gd_transpose_impl(PyObject *self, const int32_t *axes, int32_t naxes);

static PyObject *gd_get_T(PyObject *self, void *c) { return gd_transpose_impl(self, NULL, 0); }

static PyGetSetDef gd_array_getset[] = {
    {"shape", gd_get_shape, NULL, "Tuple of dimension sizes.", NULL},
    {"strides", gd_get_strides, NULL, "Tuple of strides in ELEMENTS (DLPack convention); may be negative.", NULL},
    {"ndim", gd_get_ndim, NULL, "Number of dimensions.", NULL},
    {"size", gd_get_size, NULL, "Number of elements.", NULL},
    {"itemsize", gd_get_itemsize, NULL, "Bytes per element (0 for packed sub-byte dtypes, 1 for padded ones).", NULL},
    {"nbytes", gd_get_nbytes, NULL, "Bytes spanned by the elements (size * itemsize).", NULL},
    {"dtype", gd_get_dtype, NULL, "The element type, a godlpack.DType.", NULL},
    {"device", gd_get_device, NULL, "The device holding the memory, a godlpack.Device.", NULL},
    {"readonly", gd_get_readonly, NULL, "True when writes are refused (e.g. imported READ_ONLY).", NULL},
    {"T", gd_get_T, NULL, "Transposed view (axes reversed).", NULL},
    {NULL},
};

/* ------------------------------------------------------------------ */
/* buffer protocol (CPU-accessible memory only)                        */

static char gd_empty_buf[1];

static int gd_getbuffer(PyObject *self, Py_buffer *view, int flags) {
  gd_array *a = (gd_array *)self;
  if (!gd_host(&a->h)) {
    PyErr_SetString(PyExc_BufferError,
                    "memoryview(): the array is not in CPU memory; copy it with "
                    "godlpack.from_dlpack(a, device=\"cpu\") first");
    return -1;
  }
  const char *fmt = gd_buffer_format(a->h.dtype);
  int64_t is = gd_itemsize(a->h.dtype);
  if (fmt == NULL || is == 0) {
    PyObject *name = gd_get_dtype(self, NULL);
    PyErr_Format(PyExc_BufferError,
                 "memoryview(): dtype %S has no buffer-protocol format; exchange it with "
                 "__dlpack__ (numpy.from_dlpack / torch.from_dlpack) instead",
                 name ? name : Py_None);
    Py_XDECREF(name);
    return -1;
  }
  if ((flags & PyBUF_WRITABLE) && (a->h.flags & GD_FLAG_READONLY)) {
    PyErr_SetString(PyExc_BufferError,
                    "memoryview(): the array is read-only; request a read-only buffer or use a.copy()");
    return -1;
  }
  int c = (a->h.flags & GD_FLAG_C_CONTIG) != 0, f = (a->h.flags & GD_FLAG_F_CONTIG) != 0;
  if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !c) {
    PyErr_SetString(PyExc_BufferError,
                    "memoryview(): the array is not C-contiguous and the consumer did not ask for "
                    "strides; use a.copy() for a contiguous array");
    return -1;
  }
  if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS && !c) {
    PyErr_SetString(PyExc_BufferError, "memoryview(): the array is not C-contiguous; use a.copy()");
    return -1;
  }
  if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && !f) {
    PyErr_SetString(PyExc_BufferError, "memoryview(): the array is not Fortran-contiguous; use a.T.copy().T");
    return -1;
  }
  if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS && !c && !f) {
    PyErr_SetString(PyExc_BufferError, "memoryview(): the array is not contiguous; use a.copy()");
    return -1;
  }
  int32_t nd = a->h.ndim;
  int64_t n = gd_size_of(nd, GD_SHAPE(a)), len;
  if (__builtin_mul_overflow(n, is, &len) || len > PY_SSIZE_T_MAX) {
    PyErr_Format(PyExc_BufferError,
                 "memoryview(): the array spans %lld elements of %lld bytes, more than a buffer can "
                 "describe (a broadcast array?); take a smaller view or use __dlpack__",
                 (long long)n, (long long)is);
    return -1;
  }
  Py_ssize_t *dims = NULL;
  if (nd > 0) {
    dims = (Py_ssize_t *)PyMem_Malloc(2 * (size_t)nd * sizeof(Py_ssize_t));
    if (dims == NULL) {
      PyErr_NoMemory();
      return -1;
    }
    for (int32_t i = 0; i < nd; i++) {
      dims[i] = (Py_ssize_t)GD_SHAPE(a)[i];
      dims[nd + i] = (Py_ssize_t)(GD_STRIDES(a)[i] * is);
    }
  }
  view->buf = (a->h.data != NULL) ? gd_elem_ptr(a, 0) : gd_empty_buf;
  view->obj = self;
  Py_INCREF(self);
  view->len = (Py_ssize_t)len;
  view->readonly = (a->h.flags & GD_FLAG_READONLY) ? 1 : 0;
  view->itemsize = (Py_ssize_t)is;
  view->format = (flags & PyBUF_FORMAT) ? (char *)fmt : NULL;
  /* Without PyBUF_ND the consumer gets a flat run of bytes (the array is
   * C-contiguous, checked above): ndim 1 and no shape, as PyBuffer_FillInfo. */
  view->ndim = (flags & PyBUF_ND) ? nd : 1;
  view->shape = (flags & PyBUF_ND) ? dims : NULL;
  view->strides = ((flags & PyBUF_STRIDES) == PyBUF_STRIDES) ? (dims ? dims + nd : NULL) : NULL;
  view->suboffsets = NULL;
  view->internal = dims;
  return 0;
}

static void gd_releasebuffer(PyObject *self, Py_buffer *view) {
  PyMem_Free(view->internal);
  view->internal = NULL;
}

/* ------------------------------------------------------------------ */
/* DLPack producer                                                     */

static int gd_kw_is(PyObject *name, PyObject *interned, const char *ascii) {
  if (name == interned) return 1;
  return PyUnicode_CompareWithASCIIString(name, ascii) == 0;
}

static int gd_kw_code(gd_state *st, PyObject *k) {
  if (k == st->s_max_version) return GD_KW_MAX_VERSION; /* interned: pointers first */
  if (k == st->s_copy) return GD_KW_COPY;
  if (k == st->s_dl_device) return GD_KW_DL_DEVICE;
  if (k == st->s_stream) return GD_KW_STREAM;
  if (gd_kw_is(k, st->s_max_version, "max_version")) return GD_KW_MAX_VERSION;
  if (gd_kw_is(k, st->s_copy, "copy")) return GD_KW_COPY;
  if (gd_kw_is(k, st->s_dl_device, "dl_device")) return GD_KW_DL_DEVICE;
  if (gd_kw_is(k, st->s_stream, "stream")) return GD_KW_STREAM;
  return -1;
}

/* Codes of the keywords in kwnames (-1: unknown), cached per tuple. Returns
 * the cached codes or fills buf. */
static const signed char *gd_kw_codes(gd_state *st, PyObject *kwnames, Py_ssize_t nkw, signed char *buf) {
  for (int i = 0; i < st->kw_cache_n; i++)
    if (st->kw_cache[i].kwnames == kwnames) return st->kw_cache[i].code;
  int all_known = nkw <= GD_KW_MAX;
  for (Py_ssize_t i = 0; i < nkw && i < GD_KW_MAX; i++) {
    buf[i] = (signed char)gd_kw_code(st, PyTuple_GetItem(kwnames, i));
    if (buf[i] < 0) all_known = 0;
  }
  /* Cache a tuple seen twice in a row (a caller's constant kwnames; calls
   * with **kwargs build a new tuple each time). The pointer in kw_last is
   * only compared, never used: a cached tuple is decoded from the object
   * itself and kept alive by the cache. */
  int again = st->kw_last == (void *)kwnames;
  st->kw_last = kwnames;
  if (again && all_known && st->kw_cache_n < GD_KW_CACHE) {
    gd_kw_entry *e = &st->kw_cache[st->kw_cache_n++];
    Py_INCREF(kwnames);
    e->kwnames = kwnames;
    memcpy(e->code, buf, GD_KW_MAX);
    return e->code;
  }
  return buf;
}

/* max_version: None or a 2-tuple of ints (P1). */
static int gd_parse_max_version(PyObject *v, gd_export_req *req) {
  if (v == Py_None) return 0;
  if (!PyTuple_Check(v) || PyTuple_Size(v) != 2 || !PyLong_Check(PyTuple_GetItem(v, 0)) ||
      !PyLong_Check(PyTuple_GetItem(v, 1))) {
    PyErr_Format(PyExc_TypeError,
                 "__dlpack__(): max_version must be None or a 2-tuple of ints, got %R; "
                 "pass e.g. max_version=(1, 3)",
                 v);
    return -1;
  }
  int of = 0;
  long long maj = PyLong_AsLongLongAndOverflow(PyTuple_GetItem(v, 0), &of);
  if (maj == -1 && PyErr_Occurred()) return -1;
  if (of > 0 || maj > UINT32_MAX) maj = UINT32_MAX;
  if (of < 0 || maj < 0) maj = 0;
  long long min = PyLong_AsLongLongAndOverflow(PyTuple_GetItem(v, 1), &of);
  if (min == -1 && PyErr_Occurred()) return -1;
  if (of > 0 || min > UINT32_MAX) min = UINT32_MAX;
  if (of < 0 || min < 0) min = 0;
  req->has_max_version = 1;
  req->max_major = (uint32_t)maj;
  req->max_minor = (uint32_t)min;
  return 0;
}

int gd_parse_copy(PyObject *copy, int32_t *mode, const char *entry) {
  if (copy == NULL || copy == Py_None) {
    *mode = GD_COPY_IF_NEEDED;
  } else if (copy == Py_True) {
    *mode = GD_COPY_ALWAYS;
  } else if (copy == Py_False) {
    *mode = GD_COPY_NEVER;
  } else {
    PyErr_Format(PyExc_ValueError, "%s: copy must be None, True or False, got %R", entry, copy);
    return -1;
  }
  return 0;
}

static PyObject *gd_array_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames) {
  gd_array *a = (gd_array *)self;
  gd_state *st = gd_st(self);
  if (nargs != 0) {
    PyErr_SetString(PyExc_TypeError,
                    "__dlpack__(): takes keyword arguments only (stream, max_version, dl_device, copy)");
    return NULL;
  }
  gd_export_req req;
  memset(&req, 0, sizeof(req));
  Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
  signed char buf[GD_KW_MAX];
  const signed char *codes = nkw ? gd_kw_codes(st, kwnames, nkw, buf) : buf;
  for (Py_ssize_t i = 0; i < nkw; i++) {
    PyObject *v = args[i];
    int code = i < GD_KW_MAX ? codes[i] : gd_kw_code(st, PyTuple_GetItem(kwnames, i));
    if (code == GD_KW_MAX_VERSION) {
      if (gd_parse_max_version(v, &req) < 0) return NULL;
    } else if (code == GD_KW_COPY) {
      if (v != Py_None && gd_parse_copy(v, &req.copy, "__dlpack__()") < 0) return NULL;
    } else if (code == GD_KW_DL_DEVICE) {
      if (v != Py_None) {
        if (!PyTuple_Check(v) || PyTuple_Size(v) != 2 || !PyLong_Check(PyTuple_GetItem(v, 0)) ||
            !PyLong_Check(PyTuple_GetItem(v, 1))) {
          PyErr_Format(PyExc_TypeError,
                       "__dlpack__(): dl_device must be None or a 2-tuple (device_type, device_id) "
                       "of ints, got %R; pass e.g. dl_device=(1, 0)",
                       v);
          return NULL;
        }
        int ovt = 0, ovd = 0; /* a huge int is an unsupported device too (P3) */
        long t = PyLong_AsLongAndOverflow(PyTuple_GetItem(v, 0), &ovt);
        long d = PyLong_AsLongAndOverflow(PyTuple_GetItem(v, 1), &ovd);
        if (PyErr_Occurred()) return NULL;
        if (ovt || ovd || t < INT32_MIN || t > INT32_MAX || d < INT32_MIN || d > INT32_MAX) {
          PyErr_Format(PyExc_BufferError, "__dlpack__(): unsupported dl_device %R; pass dl_device=None", v);
          return NULL;
        }
        req.has_dl_device = 1;
        req.dl_type = (int32_t)t;
        req.dl_id = (int32_t)d;
      }
    } else if (code == GD_KW_STREAM) {
      if (v != Py_None) {
        if (!PyLong_Check(v)) {
          PyErr_Format(PyExc_TypeError,
                       "__dlpack__(): stream must be None or an int, got %R; pass stream=None on CPU", v);
          return NULL;
        }
        int of = 0;
        long long s = PyLong_AsLongLongAndOverflow(v, &of);
        if (s == -1 && PyErr_Occurred()) return NULL;
        if (of != 0) {
          PyErr_Format(PyExc_BufferError, "__dlpack__(): stream %R is out of range; pass stream=None", v);
          return NULL;
        }
        req.has_stream = 1;
        req.stream = s;
      }
    } else {
      PyErr_Format(PyExc_TypeError, "__dlpack__() got an unexpected keyword argument '%U'",
                   PyTuple_GetItem(kwnames, i));
      return NULL;
    }
  }
  /* Go plans first (one call); a long copy it plans is left to the C skin,
   * which copies in interruptible chunks and asks Go again to export that
   * copy (IS_COPIED). A request Go refuses never copies. */
  req.defer_copy_over = gd_chunk_bytes();
  void *managed = NULL;
  int32_t versioned = 0;
  int64_t scratch[GD_MAX_NDIM];
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  GD_NOGIL_BEGIN((req.copy == GD_COPY_ALWAYS || req.has_dl_device) && gd_is_big(a));
  int cls = gd_serve_export(&a->h, GD_SHAPE(a), GD_STRIDES(a), &req, &managed, &versioned, scratch, msg);
  GD_NOGIL_END();
  if (cls == GD_OK && req.copy_deferred) {
    gd_header pre;
    int64_t prestrides[GD_MAX_NDIM];
    if (gd_copy_new(&a->h, GD_SHAPE(a), GD_STRIDES(a), &pre, prestrides, "__dlpack__()") < 0) return NULL;
    req.precopied = &pre;
    req.precopied_strides = prestrides;
    req.copy_deferred = 0;
    cls = gd_serve_export(&a->h, GD_SHAPE(a), GD_STRIDES(a), &req, &managed, &versioned, scratch, msg);
    gd_owner_decref(pre.owner); /* the export holds its own reference */
  }
  if (cls != GD_OK) return gd_raise(cls, msg);
  return gd_capsule_wrap(managed, versioned);
}

static PyObject *gd_array_dlpack_device(PyObject *self, PyObject *unused) {
  gd_array *a = (gd_array *)self;
  gd_state *st = gd_st(self);
  if (a->h.device.device_type == kDLCPU && a->h.device.device_id == 0 && st->cpu_dlpack_device != NULL) {
    Py_INCREF(st->cpu_dlpack_device);
    return st->cpu_dlpack_device;
  }
  PyObject *t = gd_devtype_member(st, a->h.device.device_type);
  if (t == NULL) return NULL;
  PyObject *id = PyLong_FromLong(a->h.device.device_id);
  if (id == NULL) {
    Py_DECREF(t);
    return NULL;
  }
  PyObject *r = PyTuple_New(2);
  if (r == NULL) {
    Py_DECREF(t);
    Py_DECREF(id);
    return NULL;
  }
  PyTuple_SetItem(r, 0, t);
  PyTuple_SetItem(r, 1, id);
  return r;
}

/* ------------------------------------------------------------------ */
/* indexing                                                            */

static int gd_is_ellipsis(PyObject *o) { return o == Py_Ellipsis; }

/* 1 when slice.<name> is None, 0 when not, -1 with an exception. */
static int gd_slice_field_is_none(PyObject *slice, const char *name) {
  PyObject *v = PyObject_GetAttrString(slice, name);
  if (v == NULL) return -1;
  int r = v == Py_None;
  Py_DECREF(v);
  return r;
}

/* Parses one index item; returns 0, or -1 with an exception. */
static int gd_parse_index_item(PyObject *it, gd_index_op *op) {
  memset(op, 0, sizeof(*op));
  if (it == Py_None) {
    op->kind = GD_IDX_NEWAXIS;
    return 0;
  }
  if (gd_is_ellipsis(it)) {
    op->kind = GD_IDX_ELLIPSIS;
    return 0;
  }
  if (PySlice_Check(it)) {
    Py_ssize_t start, stop, step;
    if (PySlice_Unpack(it, &start, &stop, &step) < 0) return -1;
    op->kind = GD_IDX_SLICE;
    op->step = step;
    /* PySlice_Unpack maps None to extreme values, but also clamps huge
     * bounds (10**30, -10**30) to them: only a None bound is "absent". The
     * attribute is read only in that rare extreme case. */
    op->has_start = !(start == 0 && step > 0);
    if (start == PY_SSIZE_T_MAX || start == PY_SSIZE_T_MIN) {
      int absent = gd_slice_field_is_none(it, "start");
      if (absent < 0) return -1;
      op->has_start = !absent;
    }
    op->has_stop = 1;
    if (stop == PY_SSIZE_T_MAX || stop == PY_SSIZE_T_MIN) {
      int absent = gd_slice_field_is_none(it, "stop");
      if (absent < 0) return -1;
      op->has_stop = !absent;
    }
    op->start = op->has_start ? start : 0;
    op->stop = op->has_stop ? stop : 0;
    return 0;
  }
  if (PyBool_Check(it)) {
    PyErr_SetString(PyExc_IndexError,
                    "godlpack.Array: boolean indices are not supported (basic indexing only); "
                    "use ints, slices, Ellipsis or None");
    return -1;
  }
  PyObject *idx = PyNumber_Index(it);
  if (idx == NULL) {
    PyErr_Clear();
    PyErr_Format(PyExc_IndexError,
                 "godlpack.Array: only integers, slices (':'), Ellipsis ('...') and None are valid "
                 "indices, got %R",
                 it);
    return -1;
  }
  int of = 0;
  long long v = PyLong_AsLongLongAndOverflow(idx, &of);
  Py_DECREF(idx);
  if (v == -1 && PyErr_Occurred()) return -1;
  if (of != 0) {
    PyErr_Format(PyExc_IndexError, "godlpack.Array: index %R is out of range", it);
    return -1;
  }
  op->kind = GD_IDX_INT;
  op->i = v;
  return 0;
}

static Py_ssize_t gd_parse_index(PyObject *key, gd_index_op *ops) {
  if (!PyTuple_Check(key)) return gd_parse_index_item(key, &ops[0]) < 0 ? -1 : 1;
  Py_ssize_t n = PyTuple_Size(key);
  if (n > GD_MAX_INDEX_OPS) {
    PyErr_SetString(PyExc_IndexError, "godlpack.Array: too many indices");
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++)
    if (gd_parse_index_item(PyTuple_GetItem(key, i), &ops[i]) < 0) return -1;
  return n;
}

/* The element an all-integer, in-bounds index of full length addresses (a
 * fast path for a[i, j]): 1 with its offset in elements, else 0 and the Go
 * path (core.ApplyIndex) decides, errors included. */
static int gd_scalar_offset(const gd_array *a, const gd_index_op *ops, Py_ssize_t n, int64_t *off) {
  if (n != a->h.ndim) return 0;
  int64_t o = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    int64_t d = GD_SHAPE(a)[i], k = ops[i].i;
    if (ops[i].kind != GD_IDX_INT) return 0;
    if (k < 0) k += d;
    if (k < 0 || k >= d) return 0;
    o += k * GD_STRIDES(a)[i];
  }
  *off = o;
  return 1;
}

static PyObject *gd_index_view(PyObject *self, const gd_index_op *ops, Py_ssize_t n, int setitem);

static PyObject *gd_array_subscript(PyObject *self, PyObject *key) {
  gd_array *a = (gd_array *)self;
  gd_index_op ops[GD_MAX_INDEX_OPS];
  Py_ssize_t n = gd_parse_index(key, ops);
  if (n < 0) return NULL;
  int64_t off;
  if (gd_scalar_offset(a, ops, n, &off) && gd_itemsize(a->h.dtype) > 0 && gd_host(&a->h)) {
    return gd_unpack(a->h.dtype, gd_elem_ptr(a, off));
  }
  return gd_index_view(self, ops, n, 0);
}

/* The view a[ops] (core.ApplyIndex, one Go call); setitem names
 * __setitem__() in errors. */
static PyObject *gd_index_view(PyObject *self, const gd_index_op *ops, Py_ssize_t n, int setitem) {
  gd_array *a = (gd_array *)self;
  gd_header out;
  int64_t oshape[GD_MAX_NDIM], ostrides[GD_MAX_NDIM];
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  int cls = gdgo_index(&a->h, GD_SHAPE(a), GD_STRIDES(a), (gd_index_op *)ops, (int)n, setitem, &out, oshape,
                       ostrides, msg);
  if (cls != GD_OK) return gd_raise(cls, msg);
  gd_owner_incref(out.owner);
  return gd_array_new(gd_st(self), &out, oshape, ostrides);
}

static int gd_check_writable(const gd_array *a, const char *entry) {
  if (a->h.flags & GD_FLAG_READONLY) {
    PyErr_Format(PyExc_ValueError,
                 "%s: the array is read-only (imported with the DLPack READ_ONLY flag or from a "
                 "read-only buffer); write to a.copy() instead",
                 entry);
    return -1;
  }
  if (!gd_host(&a->h)) {
    PyErr_Format(PyExc_BufferError, "%s: the array is not in CPU memory", entry);
    return -1;
  }
  return 0;
}

static PyObject *gd_array_fill(PyObject *self, PyObject *value);

static int gd_array_ass_subscript(PyObject *self, PyObject *key, PyObject *value) {
  gd_array *a = (gd_array *)self;
  if (value == NULL) {
    PyErr_SetString(PyExc_TypeError, "godlpack.Array: elements cannot be deleted");
    return -1;
  }
  if (gd_check_writable(a, "__setitem__()") < 0) return -1;
  gd_index_op ops[GD_MAX_INDEX_OPS];
  Py_ssize_t n = gd_parse_index(key, ops);
  if (n < 0) return -1;
  int64_t is = gd_itemsize(a->h.dtype);
  unsigned char elem[16];
  if (is == 0 || is > 16) {
    PyErr_SetString(PyExc_TypeError, "__setitem__(): packed sub-byte arrays cannot be written element-wise; export the array to a library that knows the type");
    return -1;
  }
  if (gd_pack(a->h.dtype, value, elem) < 0) {
    if (PyErr_ExceptionMatches(PyExc_TypeError) && PySequence_Check(value) && !PyUnicode_Check(value)) {
      PyErr_Clear();
      PyErr_SetString(PyExc_TypeError,
                      "__setitem__(): only scalar values can be assigned; "
                      "assign element by element or build a new array with godlpack.asarray");
    }
    return -1;
  }
  int64_t off;
  if (gd_scalar_offset(a, ops, n, &off)) {
    memcpy(gd_elem_ptr(a, off), elem, (size_t)is);
    return 0;
  }
  if (gd_chunk_eligible(&a->h, GD_SHAPE(a))) {
    /* a[slice] = v on a big array is view.fill(v): interruptible chunks when
     * the selection is big too, one Go call otherwise. */
    PyObject *view = gd_index_view(self, ops, n, 1);
    if (view == NULL) return -1;
    PyObject *r = gd_array_fill(view, value);
    Py_DECREF(view);
    if (r == NULL) return -1;
    Py_DECREF(r);
    return 0;
  }
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  int64_t scratch[2 * GD_MAX_NDIM];
  GD_NOGIL_BEGIN(gd_is_big(a));
  int cls = gdgo_setitem(&a->h, GD_SHAPE(a), GD_STRIDES(a), ops, (int)n, elem, scratch, msg);
  GD_NOGIL_END();
  if (cls != GD_OK) return gd_err_from(cls, msg);
  return 0;
}

static Py_ssize_t gd_array_length(PyObject *self) {
  gd_array *a = (gd_array *)self;
  if (a->h.ndim == 0) {
    PyErr_SetString(PyExc_TypeError, "len() of a 0-d array");
    return -1;
  }
  return (Py_ssize_t)GD_SHAPE(a)[0];
}

static PyObject *gd_array_item(PyObject *self, Py_ssize_t i) {
  PyObject *k = PyLong_FromSsize_t(i);
  if (k == NULL) return NULL;
  PyObject *r = gd_array_subscript(self, k);
  Py_DECREF(k);
  return r;
}

/* iter(a): over the first axis; a 0-d array has none (TypeError, as numpy;
 * the sequence protocol alone would end at once on the IndexError). */
static PyObject *gd_array_iter(PyObject *self) {
  if (((gd_array *)self)->h.ndim == 0) {
    PyErr_SetString(PyExc_TypeError, "iteration over a 0-d array");
    return NULL;
  }
  return PySeqIter_New(self);
}

/* ------------------------------------------------------------------ */
/* methods                                                             */

static PyObject *gd_tolist_rec(const gd_array *a, int32_t axis, int64_t off) {
  if (axis == a->h.ndim) return gd_unpack(a->h.dtype, gd_elem_ptr(a, off));
  int64_t d = GD_SHAPE(a)[axis], s = GD_STRIDES(a)[axis];
  PyObject *l = PyList_New((Py_ssize_t)d);
  if (l == NULL) return NULL;
  for (int64_t i = 0; i < d; i++) {
    PyObject *x = gd_tolist_rec(a, axis + 1, off + i * s);
    if (x == NULL) {
      Py_DECREF(l);
      return NULL;
    }
    PyList_SetItem(l, (Py_ssize_t)i, x);
  }
  return l;
}

static PyObject *gd_array_tolist(PyObject *self, PyObject *unused) {
  gd_array *a = (gd_array *)self;
  if (!gd_host(&a->h)) {
    PyErr_SetString(PyExc_BufferError, "tolist(): the array is not in CPU memory");
    return NULL;
  }
  if (gd_itemsize(a->h.dtype) == 0) {
    PyErr_SetString(PyExc_TypeError, "tolist(): packed sub-byte arrays have no Python values; export them with __dlpack__");
    return NULL;
  }
  return gd_tolist_rec(a, 0, 0);
}

static PyObject *gd_array_copy(PyObject *self, PyObject *unused) {
  gd_array *a = (gd_array *)self;
  if (gd_chunk_eligible(&a->h, GD_SHAPE(a))) return gd_copy_chunked(self); /* Ctrl-C between chunks */
  gd_header out;
  int64_t ostrides[GD_MAX_NDIM];
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  GD_NOGIL_BEGIN(gd_is_big(a));
  int cls = gdgo_copy(&a->h, GD_SHAPE(a), GD_STRIDES(a), &out, ostrides, msg);
  GD_NOGIL_END();
  if (cls != GD_OK) return gd_raise(cls, msg);
  return gd_array_new(gd_st(self), &out, GD_SHAPE(a), ostrides);
}

static PyObject *gd_array_fill(PyObject *self, PyObject *value) {
  gd_array *a = (gd_array *)self;
  if (gd_check_writable(a, "fill()") < 0) return NULL;
  int64_t is = gd_itemsize(a->h.dtype);
  unsigned char elem[16];
  if (is == 0 || is > 16) {
    PyErr_SetString(PyExc_TypeError, "fill(): packed sub-byte arrays cannot be filled");
    return NULL;
  }
  if (gd_pack(a->h.dtype, value, elem) < 0) return NULL;
  if (gd_chunk_eligible(&a->h, GD_SHAPE(a))) return gd_fill_chunked(self, elem); /* Ctrl-C between chunks */
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  GD_NOGIL_BEGIN(gd_is_big(a));
  int cls = gdgo_fill(&a->h, GD_SHAPE(a), GD_STRIDES(a), elem, msg);
  GD_NOGIL_END();
  if (cls != GD_OK) return gd_raise(cls, msg);
  Py_RETURN_NONE;
}

static PyObject *gd_array_sum(PyObject *self, PyObject *unused) {
  gd_array *a = (gd_array *)self;
  gd_sum_result r;
  memset(&r, 0, sizeof(r));
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  if (gd_chunk_eligible(&a->h, GD_SHAPE(a))) { /* Ctrl-C between chunks */
    if (gd_chunked_sum(&a->h, GD_SHAPE(a), GD_STRIDES(a), &r) < 0) return NULL;
  } else {
    GD_NOGIL_BEGIN(gd_is_big(a));
    int cls = gdgo_sum(&a->h, GD_SHAPE(a), GD_STRIDES(a), &r, msg);
    GD_NOGIL_END();
    if (cls != GD_OK) return gd_raise(cls, msg);
  }
  switch (r.kind) {
    case GD_SUM_INT:
      return PyLong_FromLongLong(r.i);
    case GD_SUM_UINT:
      return PyLong_FromUnsignedLongLong(r.u);
    case GD_SUM_FLOAT:
      return PyFloat_FromDouble(r.f);
    case GD_SUM_COMPLEX:
      return PyComplex_FromDoubles(r.re, r.im);
  }
  PyErr_SetString(PyExc_RuntimeError, "sum(): unknown result kind");
  return NULL;
}

/* Reads a shape-like argument list: f(3, 4) or f((3, 4)) or f([3, 4]). */
static Py_ssize_t gd_int_args(PyObject *args, int64_t *out, Py_ssize_t cap, const char *entry) {
  PyObject *seq = args;
  Py_ssize_t n = PyTuple_Size(args);
  if (n == 1 && !PyLong_Check(PyTuple_GetItem(args, 0))) {
    seq = PyTuple_GetItem(args, 0);
    if (seq == Py_None) return 0;
    if (!PySequence_Check(seq)) {
      PyErr_Format(PyExc_TypeError, "%s: expected ints or a sequence of ints, got %R", entry, seq);
      return -1;
    }
  }
  PyObject *fast = PySequence_Tuple(seq);
  if (fast == NULL) return -1;
  n = PyTuple_Size(fast);
  if (n > cap) {
    Py_DECREF(fast);
    PyErr_Format(PyExc_ValueError, "%s: at most %d dimensions", entry, (int)cap);
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *x = PyNumber_Index(PyTuple_GetItem(fast, i));
    if (x == NULL) {
      Py_DECREF(fast);
      return -1;
    }
    out[i] = PyLong_AsLongLong(x);
    Py_DECREF(x);
    if (out[i] == -1 && PyErr_Occurred()) {
      Py_DECREF(fast);
      return -1;
    }
  }
  Py_DECREF(fast);
  return n;
}

static PyObject *gd_array_reshape(PyObject *self, PyObject *args) {
  gd_array *a = (gd_array *)self;
  int64_t ns[GD_MAX_NDIM];
  Py_ssize_t n = gd_int_args(args, ns, GD_MAX_NDIM, "reshape()");
  if (n < 0) return NULL;
  gd_header out;
  int64_t ostrides[GD_MAX_NDIM];
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  GD_NOGIL_BEGIN(gd_is_big(a));
  int cls = gdgo_reshape(&a->h, GD_SHAPE(a), GD_STRIDES(a), ns, (int)n, &out, ostrides, msg);
  GD_NOGIL_END();
  if (cls != GD_OK) return gd_raise(cls, msg);
  /* gdgo_reshape resolved a -1 in ns and returned a new reference */
  return gd_array_new(gd_st(self), &out, ns, ostrides);
}

static PyObject *gd_transpose_impl(PyObject *self, const int32_t *axes, int32_t naxes) {
  gd_array *a = (gd_array *)self;
  gd_header out;
  int64_t oshape[GD_MAX_NDIM], ostrides[GD_MAX_NDIM];
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  int cls = gdgo_transpose(&a->h, GD_SHAPE(a), GD_STRIDES(a), (int32_t *)axes, naxes, &out, oshape,
                           ostrides, msg);
  if (cls != GD_OK) return gd_raise(cls, msg);
  gd_owner_incref(out.owner);
  return gd_array_new(gd_st(self), &out, oshape, ostrides);
}

static PyObject *gd_array_transpose(PyObject *self, PyObject *args) {
  int64_t ax[GD_MAX_NDIM];
  Py_ssize_t n = gd_int_args(args, ax, GD_MAX_NDIM, "transpose()");
  if (n < 0) return NULL;
  int32_t axes[GD_MAX_NDIM];
  for (Py_ssize_t i = 0; i < n; i++) {
    if (ax[i] < INT32_MIN || ax[i] > INT32_MAX) {
      PyErr_SetString(PyExc_IndexError, "transpose(): axis out of range");
      return NULL;
    }
    axes[i] = (int32_t)ax[i];
  }
  return gd_transpose_impl(self, axes, (int32_t)n);
}

static PyObject *gd_array_repr(PyObject *self) {
  gd_array *a = (gd_array *)self;
  PyObject *dt = gd_get_dtype(self, NULL);
  if (dt == NULL) return NULL;
  PyObject *dev = NULL;
  int cpu = a->h.device.device_type == kDLCPU;
  if (!cpu) {
    dev = gd_get_device(self, NULL);
    if (dev == NULL) {
      Py_DECREF(dt);
      return NULL;
    }
  }
  PyObject *r = NULL;
  int64_t n = gd_size_of(a->h.ndim, GD_SHAPE(a));
  PyObject *l = NULL;
  if (gd_host(&a->h) && n <= 1000 && gd_itemsize(a->h.dtype) > 0) {
    l = gd_array_tolist(self, NULL);
    if (l == NULL) {
      if (!PyErr_ExceptionMatches(PyExc_TypeError)) goto done;
      PyErr_Clear(); /* no Python values for this dtype: show the shape */
    }
  }
  if (l != NULL) {
    r = cpu ? PyUnicode_FromFormat("Array(%R, dtype=%S)", l, dt)
            : PyUnicode_FromFormat("Array(%R, dtype=%S, device='%S')", l, dt, dev);
    Py_DECREF(l);
  } else {
    PyObject *shape = gd_get_shape(self, NULL);
    if (shape == NULL) goto done;
    r = cpu ? PyUnicode_FromFormat("Array(shape=%R, dtype=%S)", shape, dt)
            : PyUnicode_FromFormat("Array(shape=%R, dtype=%S, device='%S')", shape, dt, dev);
    Py_DECREF(shape);
  }
done:
  Py_DECREF(dt);
  Py_XDECREF(dev);
  return r;
}

/* __buffer__ / __release_buffer__ (PEP 688): CPython 3.12 derives them from
 * the buffer slots; defining them keeps 3.11 and typing's Buffer protocol in
 * step. */
static PyObject *gd_array_buffer_method(PyObject *self, PyObject *flags) {
  long f = PyLong_AsLong(flags);
  if (f == -1 && PyErr_Occurred()) return NULL;
  if (f & PyBUF_WRITABLE) {
    if (((gd_array *)self)->h.flags & GD_FLAG_READONLY) {
      PyErr_SetString(PyExc_BufferError,
                      "memoryview(): the array is read-only; request a read-only buffer or use a.copy()");
      return NULL;
    }
  }
  return PyMemoryView_FromObject(self);
}

static PyObject *gd_array_release_buffer_method(PyObject *self, PyObject *view) {
  PyObject *r = PyObject_CallMethod(view, "release", NULL);
  if (r == NULL) return NULL;
  Py_DECREF(r);
  Py_RETURN_NONE;
}

static PyMethodDef gd_array_methods[] = {
    {"__buffer__", gd_array_buffer_method, METH_O,
     "__buffer__($self, flags, /)\n--\n\nA memoryview of the array (PEP 688)."},
    {"__release_buffer__", gd_array_release_buffer_method, METH_O,
     "__release_buffer__($self, buffer, /)\n--\n\nRelease a memoryview made by __buffer__."},
    {"__dlpack__", (PyCFunction)(void (*)(void))gd_array_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__($self, /, *, stream=None, max_version=None, dl_device=None, copy=None)\n--\n\n"
     "Export the array as a DLPack capsule (\"dltensor_versioned\" when max_version >= (1, 0),\n"
     "else legacy \"dltensor\")."},
    {"__dlpack_device__", gd_array_dlpack_device, METH_NOARGS,
     "__dlpack_device__($self, /)\n--\n\nReturn (DLDeviceType, device_id)."},
    {"tolist", gd_array_tolist, METH_NOARGS, "tolist($self, /)\n--\n\nNested Python lists of Python scalars."},
    {"copy", gd_array_copy, METH_NOARGS, "copy($self, /)\n--\n\nA C-contiguous deep copy (computed in Go)."},
    {"fill", gd_array_fill, METH_O, "fill($self, value, /)\n--\n\nSet every element to value (computed in Go)."},
    {"sum", gd_array_sum, METH_NOARGS, "sum($self, /)\n--\n\nSum of all elements as a Python scalar (computed in Go)."},
    {"reshape", gd_array_reshape, METH_VARARGS, "reshape($self, /, *shape)\n--\n\nA view with a new shape when possible, else a copy."},
    {"transpose", gd_array_transpose, METH_VARARGS, "transpose($self, /, *axes)\n--\n\nA view with permuted axes (reversed when none)."},
    {NULL},
};

static PyType_Slot gd_array_slots[] = {
    {Py_tp_dealloc, gd_array_dealloc},
    {Py_tp_repr, gd_array_repr},
    {Py_tp_methods, gd_array_methods},
    {Py_tp_getset, gd_array_getset},
    {Py_mp_subscript, gd_array_subscript},
    {Py_mp_ass_subscript, gd_array_ass_subscript},
    {Py_mp_length, gd_array_length},
    {Py_sq_length, gd_array_length},
    {Py_sq_item, gd_array_item},
    {Py_tp_iter, gd_array_iter},
    {Py_bf_getbuffer, gd_getbuffer},
    {Py_bf_releasebuffer, gd_releasebuffer},
    {Py_tp_doc,
     "An n-dimensional array in C memory owned by godlpack's Go core.\n\n"
     "Create arrays with godlpack.asarray, empty, zeros, ones, full, arange or\n"
     "from_dlpack. Exchanged zero-copy through DLPack (__dlpack__) and the buffer\n"
     "protocol. Strides are in elements."},
    {0, NULL},
};

PyType_Spec gd_array_spec = {
    .name = "godlpack.Array",
    .basicsize = (int)sizeof(gd_array),
    .itemsize = (int)(2 * sizeof(int64_t)),
    /* Not Py_TPFLAGS_IMMUTABLETYPE: module init sets __dlpack_c_exchange_api__
     * on the type, which the limited API can only do with setattr. */
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = gd_array_slots,
};
