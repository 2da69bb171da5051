//go:build pyext

/* index.c: a[idx], a[idx] = v, len(), iteration. Index items become
 * gd_index_op values; core.ApplyIndex interprets them (bounds, ellipsis,
 * new axes) and words every error. */
#include <string.h>

#include "_cgo_export.h"
#include "array.h"
#include "gocall.h"
#include "chunk.h"
#include "skin.h"

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
    gd_errf(GD_E_INDEX,
                    "godlpack.Array: boolean indices are not supported (basic indexing only); "
                    "use ints, slices, Ellipsis or None");
    return -1;
  }
  PyObject *idx = PyNumber_Index(it);
  if (idx == NULL) {
    PyErr_Clear();
    gd_errf(GD_E_INDEX,
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
    gd_errf(GD_E_INDEX, "godlpack.Array: index %R is out of range", it);
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
    gd_errf(GD_E_INDEX, "godlpack.Array: too many indices");
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

PyObject *gd_array_subscript(PyObject *self, PyObject *key) {
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

/* The view a[ops] (core.ApplyIndex: its C twin, else one Go call); setitem names
 * __setitem__() in errors. */
static PyObject *gd_index_view(PyObject *self, const gd_index_op *ops, Py_ssize_t n, int setitem) {
  gd_array *a = (gd_array *)self;
  gd_header out;
  int64_t oshape[GD_MAX_NDIM], ostrides[GD_MAX_NDIM];
  /* core/fastpath.c first (no crossing; what a forked child has), else Go */
  if (!GD_FAST_ALLOWED || gd_fast_index(&a->h, GD_SHAPE(a), GD_STRIDES(a), ops, (int32_t)n, &out, oshape, ostrides) < 0) {
    gd_op o = {.op = GD_OP_INDEX, .entry = setitem ? "__setitem__()" : "__getitem__()", .a = &a->h,
               .a_shape = GD_SHAPE(a), .a_strides = GD_STRIDES(a), .index = ops, .nindex = (int32_t)n, .out = &out,
               .out_shape = oshape, .out_strides = ostrides};
    if (gd_run_op(&o, 0) < 0) return NULL;
  }
  gd_owner_incref(out.owner);
  return gd_array_new(gd_st(self), &out, oshape, ostrides);
}

int gd_check_writable(const gd_array *a, const char *entry) {
  if (a->h.flags & GD_FLAG_READONLY) {
    gd_errf(GD_E_READ_ONLY,
                 "%s: the array is read-only (imported with the DLPack READ_ONLY flag or from a "
                 "read-only buffer); write to a.copy() instead",
                 entry);
    return -1;
  }
  if (!gd_host(&a->h)) {
    gd_errf(GD_E_DEVICE, "%s: the array's memory is not accessible from the CPU; copy it first with "
                 "a.to_device(\"cpu\")", entry);
    return -1;
  }
  return 0;
}

int gd_array_ass_subscript(PyObject *self, PyObject *key, PyObject *value) {
  gd_array *a = (gd_array *)self;
  if (value == NULL) {
    gd_errf(GD_E_UNSUPPORTED, "godlpack.Array: elements cannot be deleted");
    return -1;
  }
  if (gd_check_writable(a, "__setitem__()") < 0) return -1;
  gd_index_op ops[GD_MAX_INDEX_OPS];
  Py_ssize_t n = gd_parse_index(key, ops);
  if (n < 0) return -1;
  int64_t is = gd_itemsize(a->h.dtype);
  unsigned char elem[16];
  if (is == 0 || is > 16) {
    gd_errf(GD_E_UNSUPPORTED, "__setitem__(): packed sub-byte arrays cannot be written element-wise; export the array to a library that knows the type");
    return -1;
  }
  if (gd_pack(a->h.dtype, value, elem, "__setitem__()") < 0) {
    if (PyErr_ExceptionMatches(PyExc_TypeError) && PySequence_Check(value) && !PyUnicode_Check(value)) {
      PyErr_Clear();
      gd_errf(GD_E_UNSUPPORTED,
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
  int64_t scratch[2 * GD_MAX_NDIM]; /* the view's shape and strides */
  gd_op o = {.op = GD_OP_SETITEM, .entry = "__setitem__()", .a = &a->h, .a_shape = GD_SHAPE(a),
             .a_strides = GD_STRIDES(a), .index = ops, .nindex = (int32_t)n, .elem = elem, .ptr = scratch};
  return gd_run_op(&o, gd_is_big(a));
}

Py_ssize_t gd_array_length(PyObject *self) {
  gd_array *a = (gd_array *)self;
  if (a->h.ndim == 0) {
    gd_errf(GD_E_UNSUPPORTED, "len() of a 0-d array");
    return -1;
  }
  return (Py_ssize_t)GD_SHAPE(a)[0];
}

PyObject *gd_array_item(PyObject *self, Py_ssize_t i) {
  PyObject *k = PyLong_FromSsize_t(i);
  if (k == NULL) return NULL;
  PyObject *r = gd_array_subscript(self, k);
  Py_DECREF(k);
  return r;
}

/* iter(a): over the first axis; a 0-d array has none (TypeError, as numpy;
 * the sequence protocol alone would end at once on the IndexError). */
PyObject *gd_array_iter(PyObject *self) {
  if (((gd_array *)self)->h.ndim == 0) {
    gd_errf(GD_E_UNSUPPORTED, "iteration over a 0-d array");
    return NULL;
  }
  return PySeqIter_New(self);
}
