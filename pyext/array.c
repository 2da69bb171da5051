//go:build pyext

/* array.c: the godlpack.Array type (PyType_FromModuleAndSpec, abi3): its
 * construction and destruction, attributes, and the method and slot tables.
 *
 * The object is a gd_header plus shape and strides in a variable-size tail.
 * It holds one owner reference, released in C by tp_dealloc (no Go call).
 * Each method makes at most one call into Go (through gocall.h). The
 * methods live beside what they own: buffer.c, producer.c, index.c,
 * methods.c; repr, str and format are Python (python/godlpack/_repr.py). */
#include <stddef.h>
#include <string.h>

#include "_cgo_export.h"
#include "arith.h"
#include "array.h"
#include "gocall.h"
#include "skin.h"
#include "structmember.h" /* T_PYSSIZET, READONLY: the limited API of 3.11 */

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
    PyErr_Format(PyExc_TypeError, "%s: expected a godlpack.Array, got %R", entry, (PyObject *)Py_TYPE(o));
    return NULL;
  }
  gd_array *a = (gd_array *)o;
  if (!gd_host(&a->h)) {
    gd_errf(GD_E_DEVICE, "%s: the array is not in CPU memory; copy it to the CPU first (from_dlpack(x, device=\"cpu\"))",
                 entry);
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
  PyErr_Format(PyExc_RuntimeError, "godlpack: no DType object for (code=%d, bits=%d, lanes=%d)",
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

PyObject *gd_devtype_member(gd_state *st, int32_t t) {
  if (t >= 0 && t <= GD_DEVTYPE_MAX && st->devtype_members[t] != NULL) {
    Py_INCREF(st->devtype_members[t]);
    return st->devtype_members[t];
  }
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
static PyObject *gd_get_ndim(PyObject *self, void *c) {
  return PyLong_FromLong(((gd_array *)self)->h.ndim);
}
static PyObject *gd_get_size(PyObject *self, void *c) {
  gd_array *a = (gd_array *)self;
  return PyLong_FromLongLong(gd_size_of(a->h.ndim, GD_SHAPE(a)));
}
static PyObject *gd_get_itemsize(PyObject *self, void *c) {
  return PyLong_FromLongLong(gd_array_itemsize(&((gd_array *)self)->h));
}
static PyObject *gd_get_nbytes(PyObject *self, void *c) {
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
static PyObject *gd_get_readonly(PyObject *self, void *c) {
  return PyBool_FromLong((((gd_array *)self)->h.flags & GD_FLAG_READONLY) != 0);
}

static PyObject *gd_get_T(PyObject *self, void *c) { return gd_transpose_impl(self, NULL, 0); }

/* DLPack's data + byte_offset of an export, whichever way the device
 * carries the offset: torch's data_ptr(), numpy's ctypes.data. */
static PyObject *gd_get_data_ptr(PyObject *self, void *c) {
  gd_array *a = (gd_array *)self;
  if (a->h.data == NULL) return PyLong_FromLong(0);
  return PyLong_FromVoidPtr((char *)a->h.data + a->h.offset * gd_array_itemsize(&a->h));
}

static PyGetSetDef gd_array_getset[] = {
    {"shape", gd_get_shape, NULL, "Tuple of dimension sizes.", NULL},
    {"strides", gd_get_strides, NULL, "Tuple of strides in ELEMENTS (DLPack convention); may be negative.", NULL},
    {"ndim", gd_get_ndim, NULL, "Number of dimensions.", NULL},
    {"size", gd_get_size, NULL, "Number of elements.", NULL},
    {"itemsize", gd_get_itemsize, NULL, "Bytes per element (0 for packed sub-byte dtypes, 1 for padded ones).", NULL},
    {"nbytes", gd_get_nbytes, NULL, "Bytes spanned by the elements (size * itemsize).", NULL},
    {"dtype", gd_get_dtype, NULL, "The element type, a godlpack.DType.", NULL},
    {"device", gd_get_device, NULL, "The device holding the memory, a godlpack.Device.", NULL},
    {"readonly", gd_get_readonly, NULL, "True when writes are refused (e.g. imported READ_ONLY).", NULL},
    {"T", gd_get_T, NULL, "Transposed view (axes reversed).", NULL},
    {"data_ptr", gd_get_data_ptr, NULL,
     "Address of the first element (an int), as torch's data_ptr() and numpy's ctypes.data give it; "
     "valid while the array lives.", NULL},
    {NULL},
};

/* sys.getsizeof(a), as numpy's: the object, its shape and strides, and the
 * bytes of the data when this Array owns them (views count their header). */
static PyObject *gd_array_sizeof(PyObject *self, PyObject *unused) {
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

static PyMethodDef gd_array_methods[] = {
    {"__sizeof__", gd_array_sizeof, METH_NOARGS,
     "__sizeof__($self, /)\n--\n\nBytes of the object, counting the data only in the Array that owns it (as numpy)."},
    {"__buffer__", gd_array_buffer_method, METH_O,
     "__buffer__($self, flags, /)\n--\n\nA memoryview of the array (PEP 688)."},
    {"__release_buffer__", gd_array_release_buffer_method, METH_O,
     "__release_buffer__($self, buffer, /)\n--\n\nRelease a memoryview made by __buffer__."},
    {"__dlpack__", (PyCFunction)(void (*)(void))gd_array_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__($self, /, *, stream=None, max_version=None, dl_device=None, copy=None)\n--\n\n"
     "Export the array as a DLPack capsule (\"dltensor_versioned\" when max_version >= (1, 0),\n"
     "else legacy \"dltensor\")."},
    {"__dlpack_device__", gd_array_dlpack_device, METH_NOARGS,
     "__dlpack_device__($self, /)\n--\n\nReturn (DLDeviceType, device_id)."},
    {"__complex__", gd_array_complex, METH_NOARGS,
     "__complex__($self, /)\n--\n\nThe one element of the array as a complex (complex(a))."},
    {"tolist", gd_array_tolist, METH_NOARGS, "tolist($self, /)\n--\n\nNested Python lists of Python scalars."},
    {"copy", gd_array_copy, METH_NOARGS, "copy($self, /)\n--\n\nA C-contiguous deep copy (computed in Go)."},
    {"fill", gd_array_fill, METH_O, "fill($self, value, /)\n--\n\nSet every element to value (computed in Go)."},
#define GD_REDUCE_METHOD(name, fn, sig, doc) \
  {name, (PyCFunction)(void (*)(void))fn, METH_FASTCALL | METH_KEYWORDS, name "($self, /, " sig ")\n--\n\n" doc}
    GD_REDUCE_METHOD("sum", gd_array_sum, "axis=None, dtype=None, out=None, keepdims=False",
                     "Sum of the elements over the given axes (all when axis is None), computed in Go.\n"
                     "A Python scalar when the result is 0-d and out is None, else an Array."),
    GD_REDUCE_METHOD("prod", gd_array_prod, "axis=None, dtype=None, out=None, keepdims=False",
                     "Product of the elements over the given axes (see sum)."),
    GD_REDUCE_METHOD("min", gd_array_min, "axis=None, out=None, keepdims=False",
                     "Minimum over the given axes; NaN propagates (see sum)."),
    GD_REDUCE_METHOD("max", gd_array_max, "axis=None, out=None, keepdims=False",
                     "Maximum over the given axes; NaN propagates (see sum)."),
    GD_REDUCE_METHOD("any", gd_array_any, "axis=None, out=None, keepdims=False",
                     "Whether any element over the given axes is non-zero (see sum)."),
    GD_REDUCE_METHOD("all", gd_array_all, "axis=None, out=None, keepdims=False",
                     "Whether all elements over the given axes are non-zero (see sum)."),
    GD_REDUCE_METHOD("mean", gd_array_mean, "axis=None, dtype=None, out=None, keepdims=False",
                     "Arithmetic mean over the given axes; float64 for integer arrays (see sum)."),
#undef GD_REDUCE_METHOD
    {"reshape", gd_array_reshape, METH_VARARGS, "reshape($self, /, *shape)\n--\n\nA view with a new shape when possible, else a copy."},
    {"transpose", gd_array_transpose, METH_VARARGS, "transpose($self, /, *axes)\n--\n\nA view with permuted axes (reversed when none)."},
    {"_usm_data", gd_array_usm_data, METH_NOARGS, NULL},
    {NULL},
};

static PyMemberDef gd_array_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(gd_array, weakrefs), READONLY, NULL},
    {NULL},
};

static PyType_Slot gd_array_slots[] = {
    {Py_tp_dealloc, gd_array_dealloc},
    {Py_tp_members, gd_array_members},
    {Py_tp_hash, PyObject_HashNotImplemented}, /* arrays are unhashable, as in numpy */
    {Py_nb_bool, gd_nb_bool},
    {Py_nb_int, gd_nb_int},
    {Py_nb_float, gd_nb_float},
    {Py_nb_index, gd_nb_index},
    {Py_tp_richcompare, gd_array_richcompare}, /* element-wise, compare.c */
    GD_ARITH_SLOTS,                            /* refusals naming the way out, arith.c */
    {Py_tp_methods, gd_array_methods},
    {Py_tp_getset, gd_array_getset},
    {Py_mp_subscript, gd_array_subscript},
    {Py_mp_ass_subscript, gd_array_ass_subscript},
    {Py_mp_length, gd_array_length},
    {Py_sq_length, gd_array_length},
    {Py_sq_item, gd_array_item},
    {Py_tp_iter, gd_array_iter},
    {Py_bf_getbuffer, gd_getbuffer},
    {Py_bf_releasebuffer, gd_releasebuffer},
    {Py_tp_doc,
     "An n-dimensional array in C memory owned by godlpack's Go core.\n\n"
     "Create arrays with godlpack.asarray, empty, zeros, ones, full, arange or\n"
     "from_dlpack. Exchanged zero-copy through DLPack (__dlpack__) and the buffer\n"
     "protocol. Strides are in elements."},
    {0, NULL},
};

PyType_Spec gd_array_spec = {
    .name = "godlpack.Array",
    .basicsize = (int)sizeof(gd_array),
    .itemsize = (int)(2 * sizeof(int64_t)),
    /* Not Py_TPFLAGS_IMMUTABLETYPE: module init sets __dlpack_c_exchange_api__
     * on the type, which the limited API can only do with setattr. */
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = gd_array_slots,
};
