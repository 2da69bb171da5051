//go:build pyext

/* pickle.c: the two byte reinterpretations behind pickling and copying an
 * Array (python/godlpack/_pickle.py): a contiguous array seen as its bytes,
 * and bytes seen as a typed array. Both describe the result like any host
 * import (gd_describe_host: the zero-crossing fast path, else core), so the
 * byte-sized dtypes need no Go call and a forked child (which must never
 * enter Go) can still pickle what it returns to its parent. */
#include <string.h>

#include "array.h"
#include "skin.h"

/* _bytes_view(a, entry): (u8, fortran) where u8 is a 1-d uint8 Array over
 * the bytes of a C- or Fortran-contiguous a (sharing its owner, so a
 * memoryview or PickleBuffer of u8 keeps the memory alive), or None when a
 * is neither (the caller pickles a C-contiguous copy). */
PyObject *gd_mod_bytes_view(PyObject *m, PyObject *args) {
  gd_state *st = gd_state_of_module(m);
  PyObject *obj;
  const char *entry;
  if (!PyArg_ParseTuple(args, "Os", &obj, &entry)) return NULL;
  gd_array *a = gd_host_array_arg(st, obj, entry);
  if (a == NULL) return NULL;
  int64_t is = gd_array_itemsize(&a->h);
  if (is == 0) {
    PyObject *name = gd_get_dtype(obj, NULL);
    gd_errf(GD_E_ARG_TYPE,
                 "%s: packed sub-byte arrays (dtype %S, several elements per byte) cannot be pickled or "
                 "copied this way; exchange them through __dlpack__ (e.g. torch.from_dlpack(a)) instead",
                 entry, name ? name : Py_None);
    Py_XDECREF(name);
    return NULL;
  }
  uint64_t contig = a->h.flags & (GD_FLAG_C_CONTIG | GD_FLAG_F_CONTIG);
  if (contig == 0) Py_RETURN_NONE;
  int fortran = contig == GD_FLAG_F_CONTIG;
  int64_t n = gd_size_of(a->h.ndim, GD_SHAPE(a)), nbytes, off;
  if (__builtin_mul_overflow(n, is, &nbytes) || __builtin_mul_overflow(a->h.offset, is, &off)) {
    gd_errf(GD_E_OUT_OF_RANGE, "%s: the array spans more than 2**63 bytes", entry);
    return NULL;
  }
  /* the bytes as a 1-d uint8 host array, described (and flagged) like any import */
  DLDataType u8t = {kDLUInt, 8, 1};
  gd_header h;
  int64_t shape[GD_MAX_NDIM], strides[GD_MAX_NDIM];
  void *data = a->h.data != NULL ? (char *)a->h.data + off : NULL;
  uint64_t ro = (a->h.flags & GD_FLAG_READONLY) ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
  if (gd_describe_host(data, u8t, 1, &nbytes, NULL, ro, &h, shape, strides, entry) < 0) return NULL;
  h.owner = a->h.owner;
  gd_owner_incref(h.owner);
  PyObject *u8 = gd_array_new(st, &h, shape, strides); /* releases the reference on failure */
  if (u8 == NULL) return NULL;
  return Py_BuildValue("(NO)", u8, fortran ? Py_True : Py_False);
}

/* _reinterpret(u8, key, shape_tuple, fortran, readonly, padded): the typed array
 * (dtype key, C or Fortran order) over the bytes of a 1-d C-contiguous uint8
 * host Array, sharing its owner. The byte count must match exactly. */
PyObject *gd_mod_reinterpret(PyObject *m, PyObject *args) {
  gd_state *st = gd_state_of_module(m);
  PyObject *obj, *shape_obj;
  long key;
  int fortran, readonly, padded;
  if (!PyArg_ParseTuple(args, "OlO!ppp", &obj, &key, &PyTuple_Type, &shape_obj, &fortran, &readonly, &padded)) return NULL;
  const char *entry = "pickle.loads()";
  if (!gd_array_check(st, obj)) {
    gd_errf(GD_E_ARG_TYPE, "%s: expected a godlpack.Array, got %R", entry, (PyObject *)Py_TYPE(obj));
    return NULL;
  }
  gd_array *u = (gd_array *)obj;
  if (u->h.dtype.code != kDLUInt || u->h.dtype.bits != 8 || u->h.dtype.lanes != 1 || u->h.ndim != 1 ||
      !(u->h.flags & GD_FLAG_C_CONTIG) || !gd_host(&u->h)) {
    gd_errf(GD_E_PICKLE, "%s: the data must be a 1-d contiguous uint8 array in CPU memory; pass the "
                 "buffers pickle.dumps() handed out", entry);
    return NULL;
  }
  Py_ssize_t nd = PyTuple_Size(shape_obj);
  int64_t dims[GD_MAX_NDIM], shape[GD_MAX_NDIM], strides[GD_MAX_NDIM], oshape[GD_MAX_NDIM], ostrides[GD_MAX_NDIM];
  for (Py_ssize_t i = 0; i < nd && i < GD_MAX_NDIM; i++)
    if ((dims[i] = PyLong_AsLongLong(PyTuple_GetItem(shape_obj, i))) == -1 && PyErr_Occurred()) return NULL;
  /* core decides what the bytes can hold (core/buffer.c); the describe
   * validates the dtype and sets the flags. */
  DLTensor t;
  char msg[GD_MSG_CAP];
  void *data = u->h.data != NULL ? (char *)u->h.data + u->h.offset : NULL; /* u is uint8: offset in bytes */
  if (gd_bytes_tensor(data, GD_SHAPE(u)[0], gd_dtype_from_key(key), nd > GD_MAX_NDIM ? -1 : (int32_t)nd, dims,
                      fortran, padded, &t, shape, strides, msg, sizeof msg) < 0)
    return gd_errf(GD_E_PICKLE, "%s", msg);
  uint64_t flags = ((u->h.flags & GD_FLAG_READONLY) || readonly) ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
  if (padded) flags |= DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
  gd_header h;
  if (gd_describe_host(t.data, t.dtype, t.ndim, t.shape, t.strides, flags, &h, oshape, ostrides, entry) < 0)
    return NULL;
  h.owner = u->h.owner;
  gd_owner_incref(h.owner);
  PyObject *r = gd_array_new(st, &h, oshape, ostrides);
  if (r != NULL && u->owns) { /* the bytes were u's own: now the typed array's (sizeof) */
    u->owns = 0;
    ((gd_array *)r)->owns = 1;
  }
  return r;
}

/* _retype(a, key, entry): a view of the array a with the dtype key of
 * the same itemsize (same shape, strides and owner): how numpy gets the
 * elements of dtypes it has only through ml_dtypes (bfloat16, float8), as
 * unsigned integers it then views with that dtype. */
PyObject *gd_mod_retype(PyObject *m, PyObject *args) {
  gd_state *st = gd_state_of_module(m);
  PyObject *obj;
  long key;
  const char *entry;
  if (!PyArg_ParseTuple(args, "Ols", &obj, &key, &entry)) return NULL;
  if (!gd_array_check(st, obj)) {
    gd_errf(GD_E_ARG_TYPE, "%s: expected a godlpack.Array, got %R", entry, (PyObject *)Py_TYPE(obj));
    return NULL;
  }
  gd_array *a = (gd_array *)obj;
  DLDataType dt = gd_dtype_from_key(key);
  PyObject *k = PyLong_FromLong(key);
  int known = k != NULL ? PyDict_Contains(st->dtype_by_key, k) : -1;
  Py_XDECREF(k);
  if (known < 0) return NULL;
  if (!known) return gd_errf(GD_E_DTYPE, "%s: dtype key %ld is none of godlpack's dtypes; pass what "
                             "pickle.dumps() made", entry, key);
  int64_t is = gd_array_itemsize(&a->h);
  if (is == 0 || gd_itemsize(dt) != is) {
    gd_errf(GD_E_ARGUMENT, "%s: only an array of a whole-byte dtype can be viewed with a dtype of the "
                 "same size", entry);
    return NULL;
  }
  /* Same itemsize: shape, strides (in elements), offset, device and flags
   * all stay; only the dtype changes. */
  gd_header h = a->h;
  h.dtype = dt;
  gd_owner_incref(h.owner);
  return gd_array_new(st, &h, GD_SHAPE(a), GD_STRIDES(a));
}
