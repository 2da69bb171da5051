//go:build pyext

/* number.c: bool(a), int(a), float(a), complex(a) and operator.index(a), as
 * numpy 2 answers them: bool() of an array of one element (any ndim), the
 * others of a 0-d array, convert that element; others raise numpy's errors. Never a fallback through the
 * buffer protocol or repr (float() of a buffer object parses its bytes as
 * text). Element reads are C (no Go): they also work in a forked child. */
#include "_cgo_export.h"
#include "array.h"
#include "gocall.h"
#include "skin.h"

/* The one element of a, as a Python scalar; NULL + exception otherwise
 * (truth: the ValueError of bool(), else the TypeError of conversions). */
static PyObject *gd_only_element(PyObject *self, const char *entry, int truth) {
  gd_array *a = (gd_array *)self;
  int64_t n = gd_size_of(a->h.ndim, GD_SHAPE(a));
  if (truth ? n != 1 : a->h.ndim != 0) {
    if (truth) {
      gd_errf(GD_E_AMBIGUOUS,
                      n == 0 ? "bool(): the truth value of an empty array is ambiguous; use a.size > 0"
                             : "bool(): the truth value of an array with more than one element is ambiguous; "
                               "use np.from_dlpack(a).any() or .all()");
    } else {
      gd_errf(GD_E_UNSUPPORTED, "%s: only 0-dimensional arrays can be converted to Python scalars (this one "
                   "has %d dimensions); take the element first, e.g. a[0]", entry, (int)a->h.ndim);
    }
    return NULL;
  }
  if (!gd_host(&a->h)) {
    PyObject *dev = gd_get_device(self, NULL);
    gd_errf(GD_E_DEVICE, "%s: the array is on %S, which the CPU cannot read; copy it with "
                 "a.to_device(\"cpu\") first", entry, dev);
    Py_XDECREF(dev);
    return NULL;
  }
  if (gd_itemsize(a->h.dtype) == 0) {
    gd_errf(GD_E_UNSUPPORTED, "%s: packed sub-byte elements have no Python value; exchange the array "
                 "with a library that knows the type", entry);
    return NULL;
  }
  return gd_unpack(a->h.dtype, gd_elem_ptr(a, 0));
}

int gd_nb_bool(PyObject *self) {
  PyObject *v = gd_only_element(self, "bool()", 1);
  if (v == NULL) return -1;
  int r = PyObject_IsTrue(v);
  Py_DECREF(v);
  return r;
}

/* The element of a 0-d array converted by conv (int, float, complex). */
static PyObject *gd_element_as(PyObject *self, const char *entry, PyObject *(*conv)(PyObject *)) {
  PyObject *v = gd_only_element(self, entry, 0);
  PyObject *r = v != NULL ? conv(v) : NULL;
  Py_XDECREF(v);
  return r;
}

static PyObject *gd_complex_of(PyObject *v) {
  return PyObject_CallFunctionObjArgs((PyObject *)&PyComplex_Type, v, NULL);
}

PyObject *gd_nb_int(PyObject *self) { return gd_element_as(self, "int()", PyNumber_Long); }
PyObject *gd_nb_float(PyObject *self) { return gd_element_as(self, "float()", PyNumber_Float); }

PyObject *gd_nb_index(PyObject *self) {
  gd_array *a = (gd_array *)self;
  if (a->h.dtype.code != kDLInt && a->h.dtype.code != kDLUInt) {
    gd_errf(GD_E_UNSUPPORTED,
                    "__index__(): only integer scalar arrays can be converted to a scalar index; "
                    "convert with int(a)");
    return NULL;
  }
  return gd_only_element(self, "__index__()", 0);
}

/* __complex__ (complex() looks it up as a method). */
PyObject *gd_array_complex(PyObject *self, PyObject *unused) { return gd_element_as(self, "complex()", gd_complex_of); }
