//go:build pyext

/* repr.c: repr(Array). */
#include <string.h>

#include "_cgo_export.h"
#include "array.h"
#include "gocall.h"
#include "skin.h"

PyObject *gd_array_repr(PyObject *self) {
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
  /* An empty array prints its shape (numpy: "array([], shape=(10000000, 0),
   * dtype=float64)"): tolist would build one list per row, whatever the
   * product of the other dimensions. */
  if (gd_host(&a->h) && (n > 0 || a->h.ndim <= 1) && n <= 1000 && gd_itemsize(a->h.dtype) > 0) {
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
    const char *empty = n == 0 ? "[], " : "";
    r = cpu ? PyUnicode_FromFormat("Array(%sshape=%R, dtype=%S)", empty, shape, dt)
            : PyUnicode_FromFormat("Array(%sshape=%R, dtype=%S, device='%S')", empty, shape, dt, dev);
    Py_DECREF(shape);
  }
done:
  Py_DECREF(dt);
  Py_XDECREF(dev);
  return r;
}
