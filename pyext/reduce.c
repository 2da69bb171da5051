//go:build pyext

/* reduce.c: Array.sum, prod, min, max, any, all, mean (numpy's keywords
 * axis, dtype, out, keepdims): the arguments into a gd_reduce_req, one Go
 * call that plans and computes (core/reduce.go), or the chunks of chunk.c
 * for long reductions (Ctrl-C), then the Python result. numpy's
 * np.sum(a, ...) and friends call these methods on non-ndarray objects. */
#include <string.h>

#include "_cgo_export.h"
#include "array.h"
#include "chunk.h"
#include "gocall.h"
#include "skin.h"

/* The positional order of numpy's methods: sum(axis, dtype, out, keepdims),
 * max(axis, out, keepdims). */
enum { GD_KW_AXIS = 0, GD_KW_DTYPE = 1, GD_KW_OUT = 2, GD_KW_KEEPDIMS = 3, GD_KW_N = 4 };

static int gd_red_has_dtype(int op) { return op == GD_RED_SUM || op == GD_RED_PROD || op == GD_RED_MEAN; }

/* A TypeError "<entry>: <what>, got <type of o>; <way out>". */
static int gd_red_type_error(const char *entry, const char *what, PyObject *o, const char *way) {
  PyObject *tn = PyType_GetQualName(Py_TYPE(o));
  if (tn == NULL) return -1;
  gd_errf(GD_E_ARG_TYPE, "%s: %s, got %U; %s", entry, what, tn, way);
  Py_DECREF(tn);
  return -1;
}

static int gd_red_axis_item(PyObject *o, int64_t *out, const char *entry) {
  if (PyBool_Check(o) || !PyIndex_Check(o))
    return gd_red_type_error(entry, "axis must be None, an int or a tuple of ints", o, "pass axis=0 or axis=(0, 1)");
  PyObject *x = PyNumber_Index(o);
  if (x == NULL) return -1;
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
  Py_DECREF(x);
  if (v == -1 && PyErr_Occurred()) return -1;
  if (overflow) v = overflow > 0 ? INT64_MAX : INT64_MIN; /* out of bounds: Go words the error */
  *out = v;
  return 0;
}

static int gd_red_axis(PyObject *axis, gd_reduce_req *req, const char *entry) {
  if (axis == NULL || axis == Py_None) {
    req->all = 1;
    return 0;
  }
  if (PyTuple_Check(axis)) {
    Py_ssize_t n = PyTuple_Size(axis);
    if (n > GD_MAX_NDIM) {
      gd_errf(GD_E_AXIS, "%s: %zd axes given, arrays have at most %d; pass each axis once", entry, n,
                   GD_MAX_NDIM);
      return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
      if (gd_red_axis_item(PyTuple_GetItem(axis, i), &req->axes[i], entry) < 0) return -1;
    req->naxes = (int32_t)n;
    return 0;
  }
  req->naxes = 1;
  req->lone = 1;
  return gd_red_axis_item(axis, &req->axes[0], entry);
}

/* dtype=: godlpack._types._as_dtype (names, DType, numpy and torch dtypes,
 * Python types), imported when first needed. */
static int gd_red_dtype(PyObject *dtype, gd_reduce_req *req, const char *entry) {
  if (dtype == NULL || dtype == Py_None) return 0;
  PyObject *mod = PyImport_ImportModule("godlpack._types");
  if (mod == NULL) return -1;
  PyObject *d = PyObject_CallMethod(mod, "_as_dtype", "Os", dtype, entry);
  Py_DECREF(mod);
  if (d == NULL) return -1;
  PyObject *key = PyObject_GetAttrString(d, "_key");
  Py_DECREF(d);
  if (key == NULL) return -1;
  long k = PyLong_AsLong(key);
  Py_DECREF(key);
  if (k == -1 && PyErr_Occurred()) return -1;
  req->has_dtype = 1;
  req->dtype = gd_dtype_from_key(k);
  return 0;
}

typedef int (*gd_red_parser)(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **vals);

static PyObject *gd_reduce(PyObject *self, int op, gd_red_parser parse, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames) {
  gd_array *a = (gd_array *)self;
  gd_state *st = gd_st(self);
  const char *entry = gd_reduce_entry(op);
  /* the generated parser gives the signature's order: axis, [dtype,] out, keepdims */
  PyObject *got[GD_KW_N], *vals[GD_KW_N];
  if (parse(args, nargs, kwnames, got) < 0) return NULL;
  int d = gd_red_has_dtype(op);
  vals[GD_KW_AXIS] = got[0];
  vals[GD_KW_DTYPE] = d ? got[1] : NULL;
  vals[GD_KW_OUT] = got[1 + d];
  vals[GD_KW_KEEPDIMS] = got[2 + d];
  PyObject *out = vals[GD_KW_OUT] == Py_None ? NULL : vals[GD_KW_OUT];
  if (out != NULL && !gd_array_check(st, out)) {
    gd_red_type_error(entry, "out must be a godlpack.Array", out, "pass out=None or a godlpack array");
    return NULL;
  }
  int keepdims = 0;
  if (vals[GD_KW_KEEPDIMS] != NULL && (keepdims = PyObject_IsTrue(vals[GD_KW_KEEPDIMS])) < 0) return NULL;
  gd_reduce_req *req = PyMem_Malloc(sizeof(gd_reduce_req)); /* ~2.6 KB: not on the C stack */
  if (req == NULL) return gd_errf(GD_E_NO_MEMORY, "%s: out of memory", entry);
  memset(req, 0, sizeof(*req));
  req->op = op;
  req->keepdims = keepdims;
  if (gd_red_axis(vals[GD_KW_AXIS], req, entry) < 0 || gd_red_dtype(vals[GD_KW_DTYPE], req, entry) < 0) {
    PyMem_Free(req);
    return NULL;
  }
  if (out != NULL) {
    gd_array *o = (gd_array *)out;
    req->out = &o->h;
    req->out_shape = GD_SHAPE(o);
    req->out_strides = GD_STRIDES(o);
  }
  int chunked = gd_chunk_eligible(&a->h, GD_SHAPE(a));
  req->run = !chunked;
  gd_op o = {.op = GD_OP_REDUCE, .entry = entry, .a = &a->h, .a_shape = GD_SHAPE(a), .a_strides = GD_STRIDES(a),
             .ptr = req};
  if (gd_run_op(&o, !chunked && gd_is_big(a)) < 0) {
    PyMem_Free(req);
    return NULL;
  }
  if (chunked) { /* Ctrl-C between chunks */
    gd_op end = {.op = GD_OP_REDUCE_END, .entry = entry, .ptr = req}, drop = end;
    drop.flag = 1; /* frees what the reduction made */
    char msg[GD_MSG_CAP];
    if (gd_chunked_reduce(&a->h, GD_SHAPE(a), GD_STRIDES(a), req) < 0 || gd_run_op(&end, 1) < 0) {
      gd_call_op(&drop, 0, msg);
      PyMem_Free(req);
      return NULL;
    }
  }
  PyObject *res;
  if (req->t.scalar) {
    res = gd_unpack(req->t.res.dtype, req->scalar_area);
  } else if (out != NULL) {
    Py_INCREF(out);
    res = out;
  } else {
    res = gd_array_new(st, &req->t.res, req->t.res_shape, req->t.res_strides); /* takes the owner reference */
  }
  PyMem_Free(req);
  return res;
}

#define GD_REDUCE_DEF(name, op)                                                                  \
  PyObject *gd_array_##name(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) { \
    return gd_reduce(self, op, gd_args_##name, args, nargs, kw);                                 \
  }
GD_REDUCE_DEF(sum, GD_RED_SUM)
GD_REDUCE_DEF(prod, GD_RED_PROD)
GD_REDUCE_DEF(min, GD_RED_MIN)
GD_REDUCE_DEF(max, GD_RED_MAX)
GD_REDUCE_DEF(any, GD_RED_ANY)
GD_REDUCE_DEF(all, GD_RED_ALL)
GD_REDUCE_DEF(mean, GD_RED_MEAN)
#undef GD_REDUCE_DEF
