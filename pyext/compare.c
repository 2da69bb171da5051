//go:build pyext

/* compare.c: a == b, a != b, a < b, a <= b, a > b, a >= b (tp_richcompare):
 * a new C-contiguous bool Array computed by core/compare.go, which decides
 * broadcasting, promotion and NaN answers. The skin only turns the other
 * operand into a request: a godlpack.Array, an object with __dlpack__
 * (imported zero-copy like from_dlpack), or a scalar (a Python bool, int,
 * float or complex is "weak", NEP 50; an object with __index__, __complex__
 * or __float__, such as a numpy scalar, is not), or a list, tuple, range,
 * bytearray or memoryview (made an array as numpy does; one of strings or
 * other objects compares as numpy's array of them: _objcompare.py). None, a str, bytes, a
 * dict, a set, a class or a plain object compare as numpy 2 compares them:
 * == all False, != all True (core.ScalarOther). Anything else gets NotImplemented, so an object with
 * its own comparison decides, and a < "x" is a TypeError, as in numpy. A long comparison runs in ranges of one chunk (chunk.h), with
 * signals checked between them; the result is freed if one fails. */
#include <math.h>
#include <string.h>

#include "_cgo_export.h"
#include "array.h"
#include "chunk.h"
#include "gocall.h"
#include "skin.h"

_Static_assert(Py_LT == GD_CMP_LT && Py_LE == GD_CMP_LE && Py_EQ == GD_CMP_EQ && Py_NE == GD_CMP_NE &&
                   Py_GT == GD_CMP_GT && Py_GE == GD_CMP_GE,
               "core.CompareOp follows CPython's comparison codes");

static const char *const gd_cmp_entry[] = {"<", "<=", "==", "!=", ">", ">="};

/* An int (or the result of __index__) as core.Scalar's sign, magnitude
 * and float64 value. 0, or -1 with an exception. */
static int gd_cmp_int(PyObject *v, gd_cmp_req *req) {
  req->kind = GD_SCALAR_INT;
  int overflow = 0;
  long long s = PyLong_AsLongLongAndOverflow(v, &overflow);
  if (s == -1 && PyErr_Occurred()) return -1;
  if (overflow == 0) {
    req->neg = s < 0;
    req->mag = s < 0 ? 0 - (unsigned long long)s : (unsigned long long)s;
  } else if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(v);
    if (u == (unsigned long long)-1 && PyErr_Occurred()) {
      if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
      PyErr_Clear();
      req->big = 1;
    } else {
      req->mag = u;
    }
  } else {
    req->neg = 1;
    req->big = 1;
  }
  req->re = PyLong_AsDouble(v);
  if (req->re == -1.0 && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
    PyErr_Clear();
    req->re = req->neg ? -INFINITY : INFINITY;
  }
  return 0;
}

static int gd_cmp_complex(PyObject *c, gd_cmp_req *req) {
  req->kind = GD_SCALAR_COMPLEX;
  req->re = PyComplex_RealAsDouble(c);
  if (req->re == -1.0 && PyErr_Occurred()) return -1;
  req->im = PyComplex_ImagAsDouble(c);
  if (req->im == -1.0 && PyErr_Occurred()) return -1;
  return 0;
}

static int gd_cmp_float(PyObject *f, gd_cmp_req *req) {
  req->kind = GD_SCALAR_FLOAT;
  req->re = PyFloat_AsDouble(f);
  return (req->re == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

/* The import of an object with __dlpack__ failed: the same exception,
 * its message prefixed with the operator the user wrote. */
static void gd_cmp_import_failed(const char *entry) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (value != NULL && PyType_IsSubtype((PyTypeObject *)type, (PyTypeObject *)PyExc_Exception) &&
      !PyErr_GivenExceptionMatches(type, PyExc_MemoryError)) {
    PyErr_Format(type, "%s: the other operand could not be imported through DLPack: %S", entry, value);
    gd_err_chain(value, 1);
    Py_XDECREF(type);
    Py_XDECREF(tb);
    return;
  }
  PyErr_Restore(type, value, tb);
}

/* Turns the other operand into req (a scalar) or *y (a new reference to an
 * Array). 1: done; 2: *y is the answer itself; 0: NotImplemented; -1: an
 * exception. */
static int gd_cmp_operand(gd_state *st, PyObject *self, PyObject *o, gd_cmp_req *req, PyObject **y,
                          const char *entry) {
  *y = NULL;
  if (PyBool_Check(o)) {
    req->kind = GD_SCALAR_BOOL;
    req->weak = 1;
    req->mag = o == Py_True;
    return 1;
  }
  if (PyLong_Check(o)) {
    req->weak = 1;
    return gd_cmp_int(o, req) < 0 ? -1 : 1;
  }
  if (PyFloat_Check(o)) {
    req->weak = PyFloat_CheckExact(o); /* numpy.float64 is a float subclass, and strong */
    return gd_cmp_float(o, req) < 0 ? -1 : 1;
  }
  if (PyComplex_Check(o)) {
    req->weak = PyComplex_CheckExact(o);
    return gd_cmp_complex(o, req) < 0 ? -1 : 1;
  }
  if (gd_array_check(st, o)) {
    Py_INCREF(o);
    *y = o;
    return 1;
  }
  if (PyList_Check(o) || PyTuple_Check(o) || PyRange_Check(o) || PyByteArray_Check(o) || PyMemoryView_Check(o)) {
    /* numpy's rule: the sequence (or buffer) becomes an array, then compares
     * element-wise; godlpack._sequence_operand answers (or NotImplemented) */
    *y = PyObject_CallFunction(st->sequence_operand, "OOs", o, self, entry);
    return *y == NULL ? -1 : 2;
  }
  if (PyType_Check(o)) return 0; /* a == np.ndarray: the class, not an array */
  if (PyObject_HasAttr(o, st->s_dlpack)) {
    *y = gd_from_dlpack_impl(st, o, NULL, NULL, 0);
    if (*y == NULL) {
      gd_cmp_import_failed(entry);
      return -1;
    }
    return 1;
  }
  /* Other numbers (numpy scalars among them) by their value. */
  PyObject *v = NULL;
  int rc;
  if (PyIndex_Check(o)) {
    if ((v = PyNumber_Index(o)) == NULL) return -1;
    rc = gd_cmp_int(v, req);
  } else if (PyObject_HasAttrString((PyObject *)Py_TYPE(o), "__complex__")) {
    if ((v = PyObject_CallFunctionObjArgs((PyObject *)&PyComplex_Type, o, NULL)) == NULL) return -1;
    rc = gd_cmp_complex(v, req);
  } else if (PyType_GetSlot(Py_TYPE(o), Py_nb_float) != NULL) {
    if ((v = PyNumber_Float(o)) == NULL) return -1;
    rc = gd_cmp_float(v, req);
  } else {
    return 0;
  }
  Py_DECREF(v);
  return rc < 0 ? -1 : 1;
}

/* Runs the comparison: the first Go call allocates the result and fills
 * the first range; the next ranges follow with signals checked between
 * them and the GIL released during each. */
static PyObject *gd_compare_run(gd_state *st, gd_array *x, gd_array *y, gd_cmp_req *req, const char *entry) {
  gd_header out;
  memset(&out, 0, sizeof(out)); /* owner NULL: Go allocates */
  int64_t oshape[GD_MAX_NDIM], ostrides[GD_MAX_NDIM];
  int64_t w = gd_array_itemsize(&x->h);
  if (y != NULL && gd_array_itemsize(&y->h) > w) w = gd_array_itemsize(&y->h);
  int64_t per = gd_chunk_bytes() / (w > 0 ? w : 1);
  gd_op o = {.op = GD_OP_COMPARE, .entry = entry, .a = &x->h, .a_shape = GD_SHAPE(x), .a_strides = GD_STRIDES(x),
             .b = y ? &y->h : NULL, .b_shape = y ? GD_SHAPE(y) : NULL, .b_strides = y ? GD_STRIDES(y) : NULL,
             .out = &out, .out_shape = oshape, .out_strides = ostrides, .ptr = req};
  req->start = 0;
  req->stop = per;
  if (gd_run_op(&o, gd_is_big(x) || (y != NULL && gd_is_big(y))) < 0) return NULL; /* Go freed what it allocated */
  for (int64_t start = per; start < req->size; start += per) {
    if (PyErr_CheckSignals() < 0) goto fail;
    req->start = start;
    req->stop = req->size - start < per ? req->size : start + per;
    if (gd_run_op(&o, 1) < 0) goto fail;
  }
  return gd_array_new(st, &out, oshape, ostrides);
fail:
  gd_owner_decref(out.owner);
  return NULL;
}

PyObject *gd_array_richcompare(PyObject *self, PyObject *other, int op) {
  if (op < Py_LT || op > Py_GE) Py_RETURN_NOTIMPLEMENTED;
  gd_state *st = gd_st(self);
  const char *entry = gd_cmp_entry[op];
  gd_cmp_req req;
  memset(&req, 0, sizeof(req));
  req.op = op;
  PyObject *y;
  int rc = gd_cmp_operand(st, self, other, &req, &y, entry);
  if (rc < 0) return NULL;
  if (rc == 2) return y;
  /* None, a str, bytes, a dict, a set, a class or a plain object (no
   * comparison of its own) equal no number: core's answer for them; an
   * object with a comparison of its own decides itself */
  if (rc == 0 && (op == Py_EQ || op == Py_NE) &&
      (other == Py_None || PyUnicode_Check(other) || PyBytes_Check(other) || PyDict_Check(other) ||
       PyAnySet_Check(other) ||
       PyType_GetSlot(Py_TYPE(other), Py_tp_richcompare) == PyType_GetSlot(&PyBaseObject_Type, Py_tp_richcompare)))
    req.kind = GD_SCALAR_OTHER, rc = 1;
  if (rc == 0) Py_RETURN_NOTIMPLEMENTED;
  PyObject *r = gd_compare_run(st, (gd_array *)self, (gd_array *)y, &req, entry);
  Py_XDECREF(y);
  return r;
}
