//go:build pyext

/* scalar.c: one element <-> one Python object, for every dtype godlpack has
 * a Python value for: the Python half; the element codecs are core's
 * (gd_elem_read / gd_elem_write, core/fastpath.c). Pure C: reading or writing
 * one element never crosses into Go. */
#include <math.h>
#include <string.h>

#include "skin.h"

/* ---- unpack ---- */
PyObject *gd_unpack(DLDataType dt, const void *p) {
  gd_elem e;
  switch (gd_elem_read(dt, p, &e)) {
    case GD_ELEM_BOOL: return PyBool_FromLong((long)e.i);
    case GD_ELEM_INT: return PyLong_FromLongLong(e.i);
    case GD_ELEM_UINT: return PyLong_FromUnsignedLongLong(e.u);
    case GD_ELEM_REAL: return PyFloat_FromDouble(e.re);
    case GD_ELEM_COMPLEX: return PyComplex_FromDoubles(e.re, e.im);
  }
  gd_errf(GD_E_ARG_TYPE,
               "godlpack: elements of dtype (code=%d, bits=%d, lanes=%d) have no Python value; "
               "export the array with __dlpack__ to a library that supports it",
               (int)dt.code, (int)dt.bits, (int)dt.lanes);
  return NULL;
}

/* ---- pack ---- */

int gd_bool_like(PyObject *o) {
  if (PyBool_Check(o)) return 1;
  PyObject *tn = PyType_GetName(Py_TYPE(o));
  int ok = tn && (PyUnicode_CompareWithASCIIString(tn, "bool_") == 0 || PyUnicode_CompareWithASCIIString(tn, "bool") == 0);
  Py_XDECREF(tn);
  PyErr_Clear();
  return ok;
}

/* v as a C long long, accepting __index__ objects, integral floats and
 * numpy's bools (1 or 0, as numpy stores them). */
static int gd_as_int(PyObject *v, int is_unsigned, long long *s, unsigned long long *u, const char *entry) {
  PyObject *idx = NULL;
  if (!PyLong_Check(v) && !PyFloat_Check(v) && !PyIndex_Check(v) && gd_bool_like(v)) { /* numpy.bool_ has no __index__ */
    int b = PyObject_IsTrue(v);
    if (b < 0) return -1;
    *s = b;
    *u = (unsigned long long)b;
    return 0;
  }
  if (PyFloat_Check(v)) {
    double d = PyFloat_AsDouble(v);
    if (!isfinite(d) || d != floor(d)) {
      gd_errf(GD_E_ARG_TYPE, "%s: cannot store the float %R in an integer array; pass an int", entry, v);
      return -1;
    }
    idx = PyLong_FromDouble(d);
  } else if (PyComplex_Check(v)) {
    gd_errf(GD_E_ARG_TYPE, "%s: cannot store a complex value in an integer array; take .real first", entry);
    return -1;
  } else {
    idx = PyNumber_Index(v);
  }
  if (idx == NULL) return -1;
  int overflow = 0;
  if (is_unsigned) {
    long long t = PyLong_AsLongLongAndOverflow(idx, &overflow);
    if (t == -1 && PyErr_Occurred()) {
      Py_DECREF(idx);
      return -1;
    }
    if (overflow < 0 || (overflow == 0 && t < 0)) {
      overflow = 1;
    } else {
      overflow = 0;
      *u = PyLong_AsUnsignedLongLong(idx);
      if (*u == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        overflow = 1;
      }
    }
  } else {
    *s = PyLong_AsLongLongAndOverflow(idx, &overflow);
    if (*s == -1 && PyErr_Occurred()) {
      Py_DECREF(idx);
      return -1;
    }
  }
  Py_DECREF(idx);
  if (overflow) {
    gd_errf(GD_E_OUT_OF_RANGE, "%s: Python integer %R out of bounds for the array's dtype", entry, v);
    return -1;
  }
  return 0;
}

int gd_as_complex(PyObject *v, double *re, double *im) {
  static PyObject *s_complex = NULL; /* interned once, kept for the process */
  if (!PyComplex_Check(v) && !PyFloat_Check(v) && !PyLong_Check(v)) {
    /* numpy's complex64 / clongdouble are not Python complex: their
     * __complex__ keeps the imaginary part that __float__ would drop */
    if (s_complex == NULL && (s_complex = PyUnicode_InternFromString("__complex__")) == NULL) return -1;
    int has = PyObject_HasAttr((PyObject *)Py_TYPE(v), s_complex);
    if (has) {
      PyObject *args[1] = {v};
      PyObject *c = gd_call_method(s_complex, args, 1 | GD_VECTORCALL_ARGUMENTS_OFFSET, NULL);
      if (c == NULL) return -1;
      int rc = gd_as_complex(c, re, im);
      Py_DECREF(c);
      return rc;
    }
  }
  if (PyComplex_Check(v)) {
    *re = PyComplex_RealAsDouble(v);
    *im = PyComplex_ImagAsDouble(v);
  } else {
    *re = PyFloat_AsDouble(v);
    *im = 0;
  }
  return PyErr_Occurred() ? -1 : 0;
}

static int gd_as_double(PyObject *v, double *d, const char *entry) {
  if (PyComplex_Check(v) && !PyFloat_Check(v)) {
    gd_errf(GD_E_ARG_TYPE, "%s: cannot store a complex value in a real array; take .real first", entry);
    return -1;
  }
  *d = PyFloat_AsDouble(v);
  if (*d == -1.0 && PyErr_Occurred()) return -1;
  return 0;
}

int gd_pack(DLDataType dt, PyObject *v, void *out, const char *entry) {
  gd_elem e = {.kind = gd_elem_kind(dt)};
  int rc = 0;
  switch (e.kind) {
    case GD_ELEM_BOOL:
      e.i = PyObject_IsTrue(v);
      rc = e.i < 0 ? -1 : 0;
      break;
    case GD_ELEM_INT:
    case GD_ELEM_UINT: {
      long long s = 0;
      unsigned long long u = 0;
      rc = gd_as_int(v, e.kind == GD_ELEM_UINT, &s, &u, entry);
      e.i = (int64_t)s;
      e.u = (uint64_t)u;
      break;
    }
    case GD_ELEM_REAL: rc = gd_as_double(v, &e.re, entry); break;
    case GD_ELEM_COMPLEX: rc = gd_as_complex(v, &e.re, &e.im); break;
    default:
      gd_errf(GD_E_ARG_TYPE,
                   "%s: cannot store Python values in arrays of dtype (code=%d, bits=%d, lanes=%d)", entry,
                   (int)dt.code, (int)dt.bits, (int)dt.lanes);
      return -1;
  }
  if (rc < 0) return -1;
  if (gd_elem_write(dt, &e, out) != 0) {
    gd_errf(GD_E_OUT_OF_RANGE, "%s: Python integer %R out of bounds for %sint%d", entry, v,
                 e.kind == GD_ELEM_UINT ? "u" : "", (int)dt.bits);
    return -1;
  }
  return 0;
}
