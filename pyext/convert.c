//go:build pyext

/* convert.c: dtype conversions. _convert (astype, asarray(x, dtype=)) and
 * _stack_into (asarray of a list of arrays) translate arguments around one
 * Go call (core.ConvertInto), or chunk.c's interruptible chunks for long
 * work; _from_nested builds asarray(nested list) in C: one walk finds the
 * shape and the element kind, a second writes the Python numbers straight
 * into the new array's C memory. */
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"
#include "array.h"
#include "chunk.h"
#include "gocall.h"
#include "skin.h"

/* A conversion of src (shape, strides) into dtype dt is long when the wider
 * side is bigger than one chunk. */
static int gd_convert_chunked(const gd_header *src, DLDataType dt, const int64_t *shape) {
  gd_header probe = *src;
  if (gd_itemsize(dt) > gd_itemsize(src->dtype)) probe.dtype = dt;
  return gd_chunk_eligible(&probe, shape);
}

/* _convert(a, key, entry): a new C-contiguous array of dtype key holding
 * a's elements converted. */
PyObject *gd_mod_convert(PyObject *m, PyObject *args) {
  gd_state *st = gd_state_of_module(m);
  PyObject *obj;
  long key;
  const char *entry;
  if (!PyArg_ParseTuple(args, "Ols", &obj, &key, &entry)) return NULL;
  gd_array *a = gd_host_array_arg(st, obj, entry);
  if (a == NULL) return NULL;
  DLDataType dt = gd_dtype_from_key(key);
  gd_header out;
  int64_t ostrides[GD_MAX_NDIM];
  if (gd_convert_chunked(&a->h, dt, GD_SHAPE(a))) { /* Ctrl-C between chunks */
    /* on a's device, as the one-call path (core.CopyDevice) */
    gd_op o = {.op = GD_OP_ALLOC, .flag = 1, .entry = entry, .dtype = dt, .device = a->h.device, .ints = GD_SHAPE(a),
               .nints = a->h.ndim, .out = &out, .out_strides = ostrides};
    if (gd_run_op(&o, 0) < 0) return NULL;
    if (gd_chunked_convert_into(&out, ostrides, &a->h, GD_SHAPE(a), GD_STRIDES(a), entry) < 0) {
      gd_owner_decref(out.owner);
      return NULL;
    }
    return gd_array_new(st, &out, GD_SHAPE(a), ostrides);
  }
  int64_t bytes = gd_size_of(a->h.ndim, GD_SHAPE(a)) * (gd_itemsize(dt) + gd_itemsize(a->h.dtype));
  gd_op o = {.op = GD_OP_CONVERT, .entry = entry, .a = &a->h, .a_shape = GD_SHAPE(a), .a_strides = GD_STRIDES(a),
             .dtype = dt, .out = &out, .out_strides = ostrides};
  if (gd_run_op(&o, bytes >= GD_NOGIL_BYTES) < 0) return NULL;
  return gd_array_new(st, &out, GD_SHAPE(a), ostrides);
}

/* _stack_into(out, i, a, entry): out[i] = a converted to out's dtype (a
 * has out.shape[1:]). */
PyObject *gd_mod_stack_into(PyObject *m, PyObject *args) {
  gd_state *st = gd_state_of_module(m);
  PyObject *oobj, *aobj;
  long long i;
  const char *entry;
  if (!PyArg_ParseTuple(args, "OLOs", &oobj, &i, &aobj, &entry)) return NULL;
  gd_array *o = gd_host_array_arg(st, oobj, entry);
  gd_array *a = o ? gd_host_array_arg(st, aobj, entry) : NULL;
  if (a == NULL) return NULL;
  int32_t nd = a->h.ndim;
  if (o->h.ndim != nd + 1 || i < 0 || i >= GD_SHAPE(o)[0]) {
    gd_errf(GD_E_SHAPE_ARG, "%s: cannot stack an array of %d dimensions into one of %d", entry, (int)nd,
                 (int)o->h.ndim);
    return NULL;
  }
  gd_header dst = o->h;
  dst.ndim = nd;
  dst.offset += i * GD_STRIDES(o)[0];
  const int64_t *dshape = GD_SHAPE(o) + 1, *dstr = GD_STRIDES(o) + 1;
  for (int32_t k = 0; k < nd; k++) {
    if (dshape[k] != GD_SHAPE(a)[k]) {
      gd_errf(GD_E_SHAPE_ARG, "%s: all arrays of a stacked list must have the same shape; pass arrays of one shape",
                   entry);
      return NULL;
    }
  }
  if (gd_convert_chunked(&a->h, dst.dtype, GD_SHAPE(a))) {
    if (gd_chunked_convert_into(&dst, dstr, &a->h, GD_SHAPE(a), GD_STRIDES(a), entry) < 0) return NULL;
    Py_RETURN_NONE;
  }
  int64_t bytes = gd_size_of(nd, GD_SHAPE(a)) * (gd_itemsize(dst.dtype) + gd_itemsize(a->h.dtype));
  gd_op op = {.op = GD_OP_CONVERT_INTO, .entry = entry, .a = &dst, .a_shape = GD_SHAPE(a), .a_strides = (int64_t *)dstr,
              .b = &a->h, .b_strides = GD_STRIDES(a)};
  if (gd_run_op(&op, bytes >= GD_NOGIL_BYTES) < 0) return NULL;
  Py_RETURN_NONE;
}

/* _result_type(keys, entry): the dtype key of numpy's promotion of the
 * dtypes keys (a stacked list's arrays), as core decides it
 * (GD_OP_RESULT_TYPE, core/promote.go). */
PyObject *gd_mod_result_type(PyObject *m, PyObject *args) {
  PyObject *keys;
  const char *entry;
  if (!PyArg_ParseTuple(args, "O!s", &PyTuple_Type, &keys, &entry)) return NULL;
  Py_ssize_t n = PyTuple_Size(keys);
  DLDataType small[16], *dts = n <= 16 ? small : (DLDataType *)malloc((size_t)n * sizeof *dts);
  if (dts == NULL) return gd_errf(GD_E_NO_MEMORY, "%s: cannot hold %zd dtypes", entry, n);
  PyObject *r = NULL;
  for (Py_ssize_t i = 0; i < n; i++) {
    long key = PyLong_AsLong(PyTuple_GetItem(keys, i));
    if (key == -1 && PyErr_Occurred()) goto done;
    dts[i] = gd_dtype_from_key(key);
  }
  gd_header out = {0};
  gd_op op = {.op = GD_OP_RESULT_TYPE, .entry = entry, .out = &out, .nints = (int32_t)n, .ptr = dts};
  if (n > INT32_MAX) {
    gd_errf(GD_E_ARGUMENT, "%s: %zd arrays to stack; stack fewer", entry, n);
    goto done;
  }
  if (gd_run_op(&op, 0) == 0) r = PyLong_FromLong(gd_dtype_key(out.dtype));
done:
  if (dts != small) free(dts);
  return r;
}

/* ------------------------------------------------------------------ */
/* asarray(nested sequence)                                           */

/* What v is, as core's GD_SF_* facts (core/scalarkind.c decides what they
 * make); own: the dtype a number carries, which own_key (godlpack's
 * _scalar_own_key: its key, or -1) reads for one that is no Python number.
 * 0, or -1 with an exception. */
static int gd_scalar_facts(PyObject *own_key, PyObject *v, uint32_t *facts, DLDataType *own) {
  /* exact types first: in the limited API each Py*_Check is a call */
  *facts = Py_IS_TYPE(v, &PyLong_Type) ? GD_SF_INT : Py_IS_TYPE(v, &PyFloat_Type) ? GD_SF_FLOAT
           : PyBool_Check(v) ? GD_SF_BOOL : PyLong_Check(v) ? GD_SF_INT : PyFloat_Check(v) ? GD_SF_FLOAT
           : PyComplex_Check(v) ? GD_SF_COMPLEX : 0;
  if (*facts) return 0;
  PyObject *k = PyObject_CallFunctionObjArgs(own_key, v, NULL);
  long key = k == NULL ? -1 : PyLong_AsLong(k);
  Py_XDECREF(k);
  if (key == -1 && PyErr_Occurred()) return -1;
  if (key >= 0) {
    *facts |= GD_SF_DTYPE;
    *own = gd_dtype_from_key(key);
  }
  if (PyObject_HasAttrString((PyObject *)Py_TYPE(v), "__complex__")) *facts |= GD_SF_HAS_COMPLEX;
  if (PyObject_HasAttrString(v, "__index__")) *facts |= GD_SF_HAS_INDEX;
  if (PyObject_HasAttrString(v, "__float__")) *facts |= GD_SF_HAS_FLOAT;
  return 0;
}

static int gd_not_a_number(PyObject *v) {
  PyObject *name = PyType_GetName(Py_TYPE(v));
  if (name != NULL) gd_errf(GD_E_ARG_TYPE, "asarray(): cannot convert '%U' object to an array element", name);
  Py_XDECREF(name);
  return -1;
}

/* _scalar_dtype(v, own_key): the key of the dtype core gives the number v. */
PyObject *gd_mod_scalar_dtype(PyObject *m, PyObject *args) {
  PyObject *v, *own_key;
  if (!PyArg_ParseTuple(args, "OO", &v, &own_key)) return NULL;
  uint32_t facts;
  DLDataType own = {0}, dt;
  if (gd_scalar_facts(own_key, v, &facts, &own) < 0) return NULL;
  if (gd_scalar_dtype(facts, own, &dt) < 0) {
    gd_not_a_number(v);
    return NULL;
  }
  return PyLong_FromLong(gd_dtype_key(dt));
}

typedef struct {
  gd_state *st;
  PyObject *own_key; /* _scalar_own_key: the dtype of numbers that are not Python's */
  int32_t nd;
  int64_t shape[GD_MAX_NDIM];
  int kind;         /* the widest kind of the elements that carry no dtype of their own */
  DLDataType own[32]; /* the distinct dtypes elements carry (numpy scalars) */
  int nown;
  int stack;        /* an array-like element was met: Python stacks */
  DLDataType dt;    /* pass 2: the dtype written */
  int64_t itemsize;
  char *p;          /* pass 2: next element */
} gd_nest;

static int gd_has_dlpack(gd_nest *c, PyObject *x) {
  return gd_array_check(c->st, x) || PyObject_HasAttr(x, c->st->s_dlpack);
}

/* 1: a sequence to descend into; 0: a leaf; -1: error. */
static int gd_is_seq(gd_nest *c, PyObject *x) {
  if (Py_IS_TYPE(x, &PyLong_Type) || Py_IS_TYPE(x, &PyFloat_Type)) return 0;
  if (PyList_Check(x) || PyTuple_Check(x)) return 1;
  if (PyLong_Check(x) || PyFloat_Check(x) || PyComplex_Check(x) || PyUnicode_Check(x) || PyBytes_Check(x)) return 0;
  /* arrays and memoryviews are stacked, as numpy does (numpy's scalars,
   * buffers too, are numbers) */
  if (gd_has_dlpack(c, x) || (PyObject_CheckBuffer(x) && !PyNumber_Check(x))) {
    c->stack = 1;
    return 0;
  }
  return PySequence_Check(x) && PyObject_HasAttrString(x, "__len__");
}

/* Item i of a sequence x: a new reference. */
static PyObject *gd_item(PyObject *x, Py_ssize_t i) {
  PyObject *r = PyList_Check(x) ? PyList_GetItem(x, i) : PyTuple_Check(x) ? PyTuple_GetItem(x, i) : NULL;
  if (r != NULL) return Py_NewRef(r);
  return PyErr_Occurred() ? NULL : PySequence_GetItem(x, i);
}

/* The kind of leaf v; GD_KIND_NONE for a number that keeps its own dtype
 * (noted in c->own); GD_KIND_NONE - 1 with an exception. */
static int gd_leaf_kind(gd_nest *c, PyObject *v) {
  uint32_t facts;
  DLDataType own = {0};
  if (gd_scalar_facts(c->own_key, v, &facts, &own) < 0) return GD_KIND_NONE - 1;
  int k = gd_scalar_kind(facts, own);
  if (k == GD_KIND_NONE) {
    if (PyUnicode_Check(v) || PyBytes_Check(v))
      gd_errf(GD_E_ARG_TYPE, "asarray(): strings are not arrays of numbers; pass numbers");
    else
      gd_not_a_number(v);
    return GD_KIND_NONE - 1;
  }
  if (gd_scalar_keeps_dtype(facts)) { /* promoted with the others after the scan */
    int i = 0;
    while (i < c->nown && memcmp(&c->own[i], &own, sizeof own) != 0) i++;
    if (i == c->nown && c->nown < 32) c->own[c->nown++] = own;
    return GD_KIND_NONE;
  }
  return k;
}

static int gd_ragged(void) {
  gd_errf(GD_E_SHAPE_ARG,
                  "asarray(): inhomogeneous nested sequence (ragged or mixed with scalars); give every "
                  "sub-sequence of one level the same length");
  return -1;
}

/* Pass 1 below the first descent: every sequence at depth d has shape[d]
 * items, every leaf sits at depth nd; the widest leaf kind is kept. */
static int gd_nest_scan(gd_nest *c, PyObject *x, int32_t depth) {
  if (depth == c->nd) {
    int s = gd_is_seq(c, x);
    if (s < 0) return -1;
    if (s || c->stack) return c->stack ? 0 : gd_ragged();
    int k = gd_leaf_kind(c, x);
    if (k < GD_KIND_NONE) return -1;
    if (k > c->kind) c->kind = k;
    return 0;
  }
  int s = gd_is_seq(c, x);
  if (s < 0) return -1;
  if (c->stack) return 0;
  if (!s) return gd_ragged();
  Py_ssize_t n = PyObject_Size(x);
  if (n < 0) return -1;
  if (n != c->shape[depth]) return gd_ragged();
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *y = gd_item(x, i);
    if (y == NULL) return -1;
    int rc = gd_nest_scan(c, y, depth + 1); /* at most GD_MAX_NDIM deep: the shape is known */
    Py_DECREF(y);
    if (rc < 0) return -1;
    if (c->stack) return 0;
  }
  return 0;
}

static int gd_overflow(PyObject *v, DLDataType dt) {
  gd_errf(GD_E_OUT_OF_RANGE, "asarray(): Python integer %R out of bounds for %s%d; pass dtype=\"float64\"", v,
               dt.code == kDLUInt ? "uint" : "int", (int)dt.bits);
  return -1;
}

/* Writes one number at c->p (pass 2): the common dtypes directly, any
 * other through scalar.c. */
static int gd_nest_put(gd_nest *c, PyObject *v) {
  DLDataType dt = c->dt;
  char *p = c->p;
  c->p += c->itemsize;
  if (dt.code == kDLInt && dt.bits == 64 && PyLong_Check(v)) {
    int of = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &of);
    if (of) return gd_overflow(v, dt);
    if (x == -1 && PyErr_Occurred()) return -1;
    memcpy(p, &x, 8);
    return 0;
  }
  if (dt.code == kDLFloat && dt.bits == 64) {
    if (PyFloat_Check(v) || PyLong_Check(v)) {
      double x = PyFloat_AsDouble(v);
      if (x == -1.0 && PyErr_Occurred()) return -1;
      memcpy(p, &x, 8);
      return 0;
    }
  }
  return gd_pack(dt, v, p, "asarray()");
}

static int gd_nest_write(gd_nest *c, PyObject *x, int32_t depth) {
  if (depth == c->nd) return gd_nest_put(c, x);
  Py_ssize_t n = (Py_ssize_t)c->shape[depth];
  if (PyList_Check(x) && depth + 1 == c->nd) { /* the innermost lists: no references taken */
    if (PyList_Size(x) != n) return gd_ragged(); /* changed since the scan */
    for (Py_ssize_t i = 0; i < n; i++) {
      PyObject *y = PyList_GetItem(x, i);
      if (y == NULL) return -1;
      Py_INCREF(y);
      int rc = gd_nest_put(c, y);
      Py_DECREF(y);
      if (rc < 0) return -1;
    }
    return 0;
  }
  if (PyObject_Size(x) != n) {
    if (PyErr_Occurred()) return -1;
    return gd_ragged();
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *y = gd_item(x, i);
    if (y == NULL) return -1;
    int rc = gd_nest_write(c, y, depth + 1);
    Py_DECREF(y);
    if (rc < 0) return -1;
  }
  return 0;
}

/* _from_nested(obj, key, own_key): the array of the nested sequence obj, of
 * dtype key (-1: the widest kind's, core/scalarkind.c), or
 * NotImplemented when obj holds arrays (the caller stacks them). */
PyObject *gd_mod_from_nested(PyObject *m, PyObject *args) {
  gd_nest c;
  memset(&c, 0, sizeof(c));
  c.st = gd_state_of_module(m);
  PyObject *obj;
  long key;
  if (!PyArg_ParseTuple(args, "OlO", &obj, &key, &c.own_key)) return NULL;
  c.kind = GD_KIND_NONE;
  /* Shape: down the first items. */
  PyObject *x = obj;
  Py_INCREF(x);
  for (;;) {
    int s = gd_is_seq(&c, x);
    if (s < 0) goto fail_x;
    if (!s) break;
    if (c.nd == GD_MAX_NDIM) {
      gd_errf(GD_E_SHAPE_ARG, "asarray(): more than %d dimensions", GD_MAX_NDIM);
      goto fail_x;
    }
    Py_ssize_t n = PyObject_Size(x);
    if (n < 0) goto fail_x;
    c.shape[c.nd++] = n;
    if (n == 0) break;
    PyObject *y = gd_item(x, 0);
    if (y == NULL) goto fail_x;
    Py_DECREF(x);
    x = y;
  }
  Py_DECREF(x);
  if (c.stack && c.nd > 0) Py_RETURN_NOTIMPLEMENTED;
  c.stack = 0;
  if (gd_nest_scan(&c, obj, 0) < 0) return NULL;
  if (c.stack) Py_RETURN_NOTIMPLEMENTED;
  c.dt = key >= 0 ? gd_dtype_from_key(key) : gd_kind_dtype(c.kind); /* the widest kind's dtype: core's */
  if (key < 0 && c.nown > 0) { /* numpy scalars among them: numpy's promotion of all their dtypes, core's */
    if (c.kind != GD_KIND_NONE && c.nown < 32) c.own[c.nown++] = c.dt;
    gd_header res = {0};
    gd_op op = {.op = GD_OP_RESULT_TYPE, .entry = "asarray()", .out = &res, .nints = c.nown, .ptr = c.own};
    if (c.nown > 1 && gd_run_op(&op, 0) < 0) return NULL;
    c.dt = c.nown > 1 ? res.dtype : c.own[0];
  }
  c.itemsize = gd_itemsize(c.dt);
  if (c.itemsize == 0) {
    gd_errf(GD_E_ARG_TYPE,
                    "asarray(): packed sub-byte dtypes cannot be built from Python values; build float32 and "
                    "convert with ml_dtypes");
    return NULL;
  }
  gd_header h;
  int64_t strides[GD_MAX_NDIM];
  if (gd_alloc_host(c.dt, c.nd, c.shape, &h, strides, "asarray()") < 0) return NULL;
  PyObject *r = gd_array_new(c.st, &h, c.shape, strides);
  if (r == NULL) return NULL;
  c.p = (char *)h.data;
  if (gd_size_of(c.nd, c.shape) > 0 && gd_nest_write(&c, obj, 0) < 0) {
    Py_DECREF(r); /* frees the C memory */
    return NULL;
  }
  return r;
fail_x:
  Py_DECREF(x);
  return NULL;
}
