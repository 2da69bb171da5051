//go:build pyext

/* buffer.c: the buffer protocol of godlpack.Array (PEP 3118, and PEP 688's
 * __buffer__ / __release_buffer__), for memory core marks host-accessible;
 * contiguity comes from the header flags core sets. */
#include <string.h>

#include "_cgo_export.h"
#include "array.h"
#include "gocall.h"
#include "skin.h"

/* ------------------------------------------------------------------ */
/* buffer protocol (CPU-accessible memory only)                        */

static char gd_empty_buf[1];

int gd_getbuffer(PyObject *self, Py_buffer *view, int flags) {
  gd_array *a = (gd_array *)self;
  if (!gd_host(&a->h)) {
    gd_errf(GD_E_DEVICE,
                    "memoryview(): the array's memory is not accessible from the CPU; copy it first "
                    "with a.to_device(\"cpu\")");
    return -1;
  }
  const char *fmt = gd_buffer_format(a->h.dtype);
  int64_t is = gd_itemsize(a->h.dtype);
  if (fmt == NULL || is == 0) {
    PyObject *name = gd_get_dtype(self, NULL);
    gd_errf(GD_E_BUFFER_REQUEST,
                 "memoryview(): dtype %S has no buffer-protocol format; exchange it with "
                 "__dlpack__ (numpy.from_dlpack / torch.from_dlpack) instead",
                 name ? name : Py_None);
    Py_XDECREF(name);
    return -1;
  }
  if ((flags & PyBUF_WRITABLE) && (a->h.flags & GD_FLAG_READONLY)) {
    gd_errf(GD_E_BUFFER_REQUEST,
                    "memoryview(): the array is read-only; request a read-only buffer or use a.copy()");
    return -1;
  }
  int c = (a->h.flags & GD_FLAG_C_CONTIG) != 0, f = (a->h.flags & GD_FLAG_F_CONTIG) != 0;
  if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !c) {
    gd_errf(GD_E_BUFFER_REQUEST,
                    "memoryview(): the array is not C-contiguous and the consumer did not ask for "
                    "strides; use a.copy() for a contiguous array");
    return -1;
  }
  if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS && !c) {
    gd_errf(GD_E_BUFFER_REQUEST, "memoryview(): the array is not C-contiguous; use a.copy()");
    return -1;
  }
  if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && !f) {
    gd_errf(GD_E_BUFFER_REQUEST, "memoryview(): the array is not Fortran-contiguous; use a.T.copy().T");
    return -1;
  }
  if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS && !c && !f) {
    gd_errf(GD_E_BUFFER_REQUEST, "memoryview(): the array is not contiguous; use a.copy()");
    return -1;
  }
  int32_t nd = a->h.ndim;
  int64_t n = gd_size_of(nd, GD_SHAPE(a)), len;
  if (__builtin_mul_overflow(n, is, &len) || len > PY_SSIZE_T_MAX) {
    gd_errf(GD_E_BUFFER_REQUEST,
                 "memoryview(): the array spans %lld elements of %lld bytes, more than a buffer can "
                 "describe (a broadcast array?); take a smaller view or use __dlpack__",
                 (long long)n, (long long)is);
    return -1;
  }
  Py_ssize_t *dims = NULL;
  if (nd > 0) {
    dims = (Py_ssize_t *)PyMem_Malloc(2 * (size_t)nd * sizeof(Py_ssize_t));
    if (dims == NULL) {
      gd_errf(GD_E_NO_MEMORY, "memoryview(): out of memory");
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

void gd_releasebuffer(PyObject *self, Py_buffer *view) {
  PyMem_Free(view->internal);
  view->internal = NULL;
}

/* __buffer__ / __release_buffer__ (PEP 688): CPython 3.12 derives them from
 * the buffer slots; defining them keeps 3.11 and typing's Buffer protocol in
 * step. */
PyObject *gd_array_buffer_method(PyObject *self, PyObject *flags) {
  long f = PyLong_AsLong(flags);
  if (f == -1 && PyErr_Occurred()) return NULL;
  if (f & PyBUF_WRITABLE) {
    if (((gd_array *)self)->h.flags & GD_FLAG_READONLY) {
      gd_errf(GD_E_BUFFER_REQUEST,
                      "memoryview(): the array is read-only; request a read-only buffer or use a.copy()");
      return NULL;
    }
  }
  return PyMemoryView_FromObject(self);
}

PyObject *gd_array_release_buffer_method(PyObject *self, PyObject *view) {
  /* Only a memoryview of this array: anything else may own a release()
   * that has nothing to do with us (a lock, a pool). */
  if (!PyMemoryView_Check(view)) {
    gd_errf(GD_E_ARG_TYPE, "__release_buffer__(): expected a memoryview made by __buffer__, got %R", view);
    return NULL;
  }
  PyObject *obj = PyObject_GetAttrString(view, "obj");
  if (obj == NULL) return NULL; /* a released memoryview: ValueError */
  int mine = obj == self;
  Py_DECREF(obj);
  if (!mine) {
    gd_errf(GD_E_ARG_TYPE,
                    "__release_buffer__(): the memoryview is not a buffer of this array; call its own release()");
    return NULL;
  }
  PyObject *r = PyObject_CallMethod(view, "release", NULL);
  if (r == NULL) return NULL;
  Py_DECREF(r);
  Py_RETURN_NONE;
}
