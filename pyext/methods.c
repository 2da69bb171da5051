//go:build pyext

/* methods.c: Array.tolist, copy, fill, reshape, transpose: argument
 * translation around one Go call each (or the chunked operations of
 * chunk.c for long work). */
#include <string.h>

#include "_cgo_export.h"
#include "array.h"
#include "gocall.h"
#include "chunk.h"
#include "skin.h"

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

PyObject *gd_array_tolist(PyObject *self, PyObject *unused) {
  gd_array *a = (gd_array *)self;
  if (!gd_host(&a->h)) {
    gd_errf(GD_E_DEVICE, "tolist(): the array's memory is not accessible from the CPU; copy it first with a.to_device(\"cpu\")");
    return NULL;
  }
  if (gd_itemsize(a->h.dtype) == 0) {
    gd_errf(GD_E_UNSUPPORTED, "tolist(): packed sub-byte arrays have no Python values; export them with __dlpack__");
    return NULL;
  }
  return gd_tolist_rec(a, 0, 0);
}

PyObject *gd_array_copy(PyObject *self, PyObject *unused) {
  gd_array *a = (gd_array *)self;
  if (gd_in_fork_child) return gd_nogo_copy(gd_st(self), a, "copy()"); /* no Go there (nogo.c) */
  if (gd_chunk_eligible(&a->h, GD_SHAPE(a))) return gd_copy_chunked(self); /* Ctrl-C between chunks */
  gd_header out;
  int64_t ostrides[GD_MAX_NDIM];
  gd_op o = {.op = GD_OP_COPY, .entry = "copy()", .a = &a->h, .a_shape = GD_SHAPE(a), .a_strides = GD_STRIDES(a),
             .out = &out, .out_strides = ostrides};
  if (gd_run_op(&o, gd_is_big(a)) < 0) return NULL;
  return gd_array_new(gd_st(self), &out, GD_SHAPE(a), ostrides);
}

PyObject *gd_array_fill(PyObject *self, PyObject *value) {
  gd_array *a = (gd_array *)self;
  if (gd_check_writable(a, "fill()") < 0) return NULL;
  int64_t is = gd_itemsize(a->h.dtype);
  unsigned char elem[16];
  if (is == 0 || is > 16) {
    gd_errf(GD_E_UNSUPPORTED, "fill(): packed sub-byte arrays cannot be filled");
    return NULL;
  }
  if (gd_pack(a->h.dtype, value, elem, "fill()") < 0) return NULL;
  if (gd_chunk_eligible(&a->h, GD_SHAPE(a))) return gd_fill_chunked(self, elem); /* Ctrl-C between chunks */
  gd_op o = {.op = GD_OP_FILL, .entry = "fill()", .a = &a->h, .a_shape = GD_SHAPE(a), .a_strides = GD_STRIDES(a),
             .elem = elem};
  if (gd_run_op(&o, gd_is_big(a)) < 0) return NULL;
  Py_RETURN_NONE;
}

/* Reads a shape-like argument list: f(3, 4) or f((3, 4)) or f([3, 4]). */
static Py_ssize_t gd_int_args(PyObject *args, int64_t *out, Py_ssize_t cap, const char *entry) {
  PyObject *seq = args;
  Py_ssize_t n = PyTuple_Size(args);
  if (n == 1 && !PyLong_Check(PyTuple_GetItem(args, 0))) {
    seq = PyTuple_GetItem(args, 0);
    if (seq == Py_None) return 0;
    if (!PySequence_Check(seq)) {
      gd_errf(GD_E_ARG_TYPE, "%s: expected ints or a sequence of ints, got %R", entry, seq);
      return -1;
    }
  }
  PyObject *fast = PySequence_Tuple(seq);
  if (fast == NULL) return -1;
  n = PyTuple_Size(fast);
  if (n > cap) {
    Py_DECREF(fast);
    gd_errf(GD_E_SHAPE_ARG, "%s: at most %d dimensions", entry, (int)cap);
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

PyObject *gd_array_reshape(PyObject *self, PyObject *args) {
  gd_array *a = (gd_array *)self;
  int64_t ns[GD_MAX_NDIM];
  Py_ssize_t n = gd_int_args(args, ns, GD_MAX_NDIM, "reshape()");
  if (n < 0) return NULL;
  gd_header out;
  int64_t ostrides[GD_MAX_NDIM];
  if (GD_FAST_ALLOWED && gd_fast_reshape(&a->h, GD_SHAPE(a), GD_STRIDES(a), ns, (int32_t)n, &out, ostrides)) {
    gd_owner_incref(out.owner); /* a view: no crossing (core/fastpath.c) */
    return gd_array_new(gd_st(self), &out, ns, ostrides);
  }
  gd_op o = {.op = GD_OP_RESHAPE, .entry = "reshape()", .a = &a->h, .a_shape = GD_SHAPE(a),
             .a_strides = GD_STRIDES(a), .ints = ns, .nints = (int32_t)n, .out = &out, .out_strides = ostrides};
  if (gd_run_op(&o, gd_is_big(a)) < 0) return NULL;
  /* core resolved a -1 in ns and returned a new reference */
  return gd_array_new(gd_st(self), &out, ns, ostrides);
}

PyObject *gd_transpose_impl(PyObject *self, int64_t *axes, int32_t naxes) {
  gd_array *a = (gd_array *)self;
  gd_header out;
  int64_t oshape[GD_MAX_NDIM], ostrides[GD_MAX_NDIM];
  int32_t ax[GD_MAX_NDIM];
  for (int32_t i = 0; i < naxes; i++) /* beyond int32 is out of range for any array: core says so */
    ax[i] = axes[i] < INT32_MIN ? INT32_MIN : axes[i] > INT32_MAX ? INT32_MAX : (int32_t)axes[i];
  if (!GD_FAST_ALLOWED || !gd_fast_transpose(&a->h, GD_SHAPE(a), GD_STRIDES(a), ax, naxes, &out, oshape, ostrides)) {
    gd_op o = {.op = GD_OP_TRANSPOSE, .entry = "transpose()", .a = &a->h, .a_shape = GD_SHAPE(a),
               .a_strides = GD_STRIDES(a), .ints = axes, .nints = naxes, .out = &out, .out_shape = oshape,
               .out_strides = ostrides};
    if (gd_run_op(&o, 0) < 0) return NULL;
  }
  gd_owner_incref(out.owner);
  return gd_array_new(gd_st(self), &out, oshape, ostrides);
}

/* _view_dtype(a, key): a's memory seen as the dtype key, a view (core decides
 * the layout: ViewDTypeDesc, GD_OP_VIEW_DTYPE). */
PyObject *gd_mod_view_dtype(PyObject *m, PyObject *args) {
  gd_state *st = gd_state_of_module(m);
  PyObject *obj;
  long key;
  if (!PyArg_ParseTuple(args, "Ol", &obj, &key)) return NULL;
  if (!gd_array_check(st, obj)) return gd_errf(GD_E_ARG_TYPE, "view(): expected a godlpack.Array, got %R", obj);
  gd_array *a = (gd_array *)obj;
  gd_header out;
  int64_t oshape[GD_MAX_NDIM], ostrides[GD_MAX_NDIM];
  gd_op o = {.op = GD_OP_VIEW_DTYPE, .entry = "view()", .a = &a->h, .a_shape = GD_SHAPE(a), .a_strides = GD_STRIDES(a),
             .dtype = gd_dtype_from_key(key), .out = &out, .out_shape = oshape, .out_strides = ostrides};
  if (gd_run_op(&o, 0) < 0) return NULL;
  gd_owner_incref(out.owner);
  return gd_array_new(st, &out, oshape, ostrides);
}

PyObject *gd_array_transpose(PyObject *self, PyObject *args) {
  int64_t ax[GD_MAX_NDIM];
  Py_ssize_t n = gd_int_args(args, ax, GD_MAX_NDIM, "transpose()");
  if (n < 0) return NULL;
  return gd_transpose_impl(self, ax, (int32_t)n);
}
