//go:build pyext

/* array.c: the godlpack.Array type (PyType_FromModuleAndSpec, abi3): its
 * construction and destruction and its attributes; the method and slot
 * tables are generated (pyspec_gen.c, from internal/gentables/pyspec).
 *
 * The object is a gd_header plus shape and strides in a variable-size tail.
 * It holds one owner reference, released in C by tp_dealloc (no Go call).
 * Each method makes at most one call into Go (through gocall.h). The
 * methods live beside what they own: buffer.c, producer.c, index.c,
 * methods.c; repr, str and format are Python (python/godlpack/_repr.py). */
#include <stddef.h>
#include <string.h>

#include "_cgo_export.h"
#include "array.h"
#include "gocall.h"
#include "skin.h"

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
  /* The first Array over a fresh allocation owns the data (sizeof counts
   * it); every later one is a view of it. The GIL orders the claims. */
  gd_owner *o = h->owner;
  a->owns = o != NULL && (o->marks & (GD_OWNER_ALLOCATED | GD_OWNER_CLAIMED)) == GD_OWNER_ALLOCATED;
  if (a->owns) o->marks |= GD_OWNER_CLAIMED;
  if (nd > 0) {
    memcpy(a->dims, shape, (size_t)nd * sizeof(int64_t));
    memcpy(a->dims + nd, strides, (size_t)nd * sizeof(int64_t));
  }
  return (PyObject *)a;
}

void gd_array_dealloc(PyObject *self) {
  gd_array *a = (gd_array *)self;
  PyTypeObject *tp = Py_TYPE(self);
  if (a->weakrefs != NULL) PyObject_ClearWeakRefs(self);
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

gd_state *gd_st(PyObject *self) { return gd_state_of_type(Py_TYPE(self)); }

gd_array *gd_host_array_arg(gd_state *st, PyObject *o, const char *entry) {
  if (!gd_array_check(st, o)) {
    gd_errf(GD_E_ARG_TYPE, "%s: expected a godlpack.Array, got %R", entry, (PyObject *)Py_TYPE(o));
    return NULL;
  }
  gd_array *a = (gd_array *)o;
  if (!gd_host(&a->h)) {
    PyObject *dev = gd_get_device(o, NULL);
    gd_errf(GD_E_DEVICE, "%s: the array is on %S, whose memory the CPU cannot read; copy it to the CPU first with "
            "a.to_device(\"cpu\")", entry, dev ? dev : Py_None);
    Py_XDECREF(dev);
    return NULL;
  }
  return a;
}

/* Bytes the elements of a occupy (for the GIL-release threshold). */
int gd_is_big(const gd_array *a) {
  int64_t n = gd_size_of(a->h.ndim, GD_SHAPE(a));
  return n * (gd_itemsize(a->h.dtype) + 1) >= GD_NOGIL_BYTES;
}

PyObject *gd_tuple_of(const int64_t *v, int32_t n) {
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
  gd_errf(GD_E_INTERNAL, "godlpack: no DType object for (code=%d, bits=%d, lanes=%d)",
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

/* DLDeviceType's members by value and the (kDLCPU, 0) pair of every CPU
 * array's __dlpack_device__, from the class the first call builds; a value
 * that is no member (0, 5, 6) stays NULL and is handed out as an int. */
int gd_devtypes_ready(gd_state *st) {
  if (st->cpu_dlpack_device != NULL) return 0;
  PyObject *cls = st->devtype_enum ? PyObject_CallNoArgs(st->devtype_enum) : NULL;
  if (cls == NULL) return PyErr_Occurred() ? -1 : (gd_errf(GD_E_INTERNAL, "godlpack._native: _init() not called"), -1);
  for (int i = 0; i <= GD_DEVTYPE_MAX; i++) {
    PyObject *mem = PyObject_CallFunction(cls, "i", i);
    if (mem == NULL && !PyErr_ExceptionMatches(PyExc_ValueError)) { /* Ctrl-C, MemoryError: tried again next time */
      Py_DECREF(cls);
      return -1;
    }
    if (mem == NULL) PyErr_Clear(); /* not a member */
    GD_SETREF(st->devtype_members[i], mem);
  }
  Py_DECREF(cls);
  PyObject *cpu = st->devtype_members[kDLCPU];
  GD_SETREF(st->cpu_dlpack_device, cpu ? Py_BuildValue("(Oi)", cpu, 0) : NULL);
  return st->cpu_dlpack_device ? 0 : -1;
}

PyObject *gd_devtype_member(gd_state *st, int32_t t) {
  if (gd_devtypes_ready(st) < 0) return NULL;
  if (t >= 0 && t <= GD_DEVTYPE_MAX && st->devtype_members[t] != NULL) return Py_NewRef(st->devtype_members[t]);
  return PyLong_FromLong(t);
}

/* ------------------------------------------------------------------ */
/* attributes                                                          */

PyObject *gd_get_shape(PyObject *self, void *c) {
  gd_array *a = (gd_array *)self;
  return gd_tuple_of(GD_SHAPE(a), a->h.ndim);
}
PyObject *gd_get_strides(PyObject *self, void *c) {
  gd_array *a = (gd_array *)self;
  return gd_tuple_of(GD_STRIDES(a), a->h.ndim);
}
PyObject *gd_get_ndim(PyObject *self, void *c) {
  return PyLong_FromLong(((gd_array *)self)->h.ndim);
}
PyObject *gd_get_size(PyObject *self, void *c) {
  gd_array *a = (gd_array *)self;
  return PyLong_FromLongLong(gd_size_of(a->h.ndim, GD_SHAPE(a)));
}
PyObject *gd_get_itemsize(PyObject *self, void *c) {
  return PyLong_FromLongLong(gd_array_itemsize(&((gd_array *)self)->h));
}
PyObject *gd_get_nbytes(PyObject *self, void *c) {
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
PyObject *gd_get_dtype(PyObject *self, void *c) {
  return gd_dtype_object(gd_st(self), ((gd_array *)self)->h.dtype);
}
PyObject *gd_get_device(PyObject *self, void *c) {
  return gd_device_object(gd_st(self), ((gd_array *)self)->h.device);
}
PyObject *gd_get_readonly(PyObject *self, void *c) {
  return PyBool_FromLong((((gd_array *)self)->h.flags & GD_FLAG_READONLY) != 0);
}

PyObject *gd_get_T(PyObject *self, void *c) { return gd_transpose_impl(self, NULL, 0); }

/* DLPack's data + byte_offset of an export, whichever way the device
 * carries the offset: torch's data_ptr(), numpy's ctypes.data. */
PyObject *gd_get_data_ptr(PyObject *self, void *c) {
  gd_array *a = (gd_array *)self;
  if (a->h.data == NULL) return PyLong_FromLong(0);
  return PyLong_FromVoidPtr((char *)a->h.data + a->h.offset * gd_array_itemsize(&a->h));
}

/* sys.getsizeof(a), as numpy's: the object, its shape and strides, and the
 * bytes of the data when this Array owns them (views count their header). */
PyObject *gd_array_sizeof(PyObject *self, PyObject *unused) {
  gd_array *a = (gd_array *)self;
  int64_t n = (int64_t)sizeof(gd_array) + 2 * (int64_t)a->h.ndim * (int64_t)sizeof(int64_t);
  if (!a->owns) return PyLong_FromLongLong(n);
  PyObject *nb = gd_get_nbytes(self, NULL);
  if (nb == NULL) return NULL;
  PyObject *head = PyLong_FromLongLong(n);
  PyObject *r = head != NULL ? PyNumber_Add(head, nb) : NULL;
  Py_XDECREF(head);
  Py_DECREF(nb);
  return r;
}
