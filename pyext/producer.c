//go:build pyext

/* producer.c: Array.__dlpack__ and __dlpack_device__. Turns the keywords
 * into a gd_export_req (types and ranges only: core.PlanExport decides P1-P5)
 * and the managed tensor into a capsule. */
#include <limits.h>
#include <string.h>

#include "_cgo_export.h"
#include "array.h"
#include "gocall.h"
#include "chunk.h"
#include "skin.h"

/* ------------------------------------------------------------------ */
/* DLPack producer                                                     */

/* v as a 2-tuple of ints: 1 with both in x (beyond int64: its bound, and
 * wide set), 0 when v is not one, -1 with an exception. */
static int gd_int_pair(PyObject *v, long long x[2], int *wide) {
  *wide = 0;
  if (!PyTuple_Check(v) || PyTuple_Size(v) != 2) return 0;
  for (int i = 0; i < 2; i++) {
    PyObject *e = PyTuple_GetItem(v, i);
    int of = 0;
    if (!PyLong_Check(e)) return 0;
    x[i] = PyLong_AsLongLongAndOverflow(e, &of);
    if (x[i] == -1 && PyErr_Occurred()) return -1;
    if (of) x[i] = of > 0 ? LLONG_MAX : LLONG_MIN, *wide = 1;
  }
  return 1;
}

/* max_version: None or a 2-tuple of ints (P1), clamped to uint32. */
static int gd_parse_max_version(PyObject *v, gd_export_req *req) {
  long long x[2];
  int wide, r = v == Py_None ? 2 : gd_int_pair(v, x, &wide);
  if (r == 0)
    gd_errf(GD_E_MAX_VERSION, "__dlpack__(): max_version must be None or a 2-tuple of ints, got %R; "
            "pass e.g. max_version=(1, 3)", v);
  if (r != 1) return r == 2 ? 0 : -1;
  req->has_max_version = 1;
  req->max_major = (uint32_t)(x[0] < 0 ? 0 : x[0] > UINT32_MAX ? UINT32_MAX : x[0]);
  req->max_minor = (uint32_t)(x[1] < 0 ? 0 : x[1] > UINT32_MAX ? UINT32_MAX : x[1]);
  return 0;
}

int gd_parse_copy(PyObject *copy, int32_t *mode, const char *entry) {
  if (copy == NULL || copy == Py_None) {
    *mode = GD_COPY_IF_NEEDED;
  } else if (copy == Py_True) {
    *mode = GD_COPY_ALWAYS;
  } else if (copy == Py_False) {
    *mode = GD_COPY_NEVER;
  } else {
    gd_errf(GD_E_COPY_ARG, "%s: copy must be None, True or False, got %R", entry, copy);
    return -1;
  }
  return 0;
}

PyObject *gd_array_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames) {
  gd_array *a = (gd_array *)self;
  PyObject *kw[4]; /* stream, max_version, dl_device, copy */
  if (gd_args___dlpack__(args, nargs, kwnames, kw) < 0) return NULL;
  gd_export_req req;
  memset(&req, 0, sizeof(req));
  if (kw[1] != NULL && gd_parse_max_version(kw[1], &req) < 0) return NULL;
  if (kw[3] != NULL && kw[3] != Py_None && gd_parse_copy(kw[3], &req.copy, "__dlpack__()") < 0) return NULL;
  PyObject *v = kw[2];
  if (v != NULL && v != Py_None) {
    long long x[2];
    int wide, r = gd_int_pair(v, x, &wide);
    if (r < 0) return NULL;
    if (r == 0)
      return gd_errf(GD_E_DL_DEVICE_ARG, "__dlpack__(): dl_device must be None or a 2-tuple (device_type, device_id) "
                     "of ints, got %R; pass e.g. dl_device=(1, 0)", v);
    /* what the request's int32 fields cannot hold is an unsupported device too (P3) */
    if (wide || x[0] < INT32_MIN || x[0] > INT32_MAX || x[1] < INT32_MIN || x[1] > INT32_MAX)
      return gd_errf(GD_E_DEVICE, "__dlpack__(): unsupported dl_device %R; pass dl_device=None", v);
    req.has_dl_device = 1;
    req.dl_type = (int32_t)x[0];
    req.dl_id = (int32_t)x[1];
  }
  if ((v = kw[0]) != NULL && v != Py_None && !PyLong_Check(v)) {
    /* An object: core decides whether the array's device takes it
     * (core.streamOK: a dpctl.SyclQueue for oneAPI). */
    req.has_stream = 1;
    req.stream_object = gd_type_is((PyObject *)Py_TYPE(v), GD_TYPE_SYCL_QUEUE) ? 1 : 2;
  } else if (v != NULL && v != Py_None) {
    int of = 0;
    long long s = PyLong_AsLongLongAndOverflow(v, &of);
    if (s == -1 && PyErr_Occurred()) return NULL;
    if (of != 0) {
      gd_errf(GD_E_STREAM, "__dlpack__(): stream %R is out of range; pass stream=None", v);
      return NULL;
    }
    req.has_stream = 1;
    req.stream = s;
  }
  /* Go plans first (one call); a long copy it plans is left to the C skin,
   * which copies in interruptible chunks and asks Go again to export that
   * copy (IS_COPIED). A request Go refuses never copies. */
  req.defer_copy_over = gd_chunk_bytes();
  void *managed = NULL;
  int32_t versioned = 0;
  int64_t scratch[GD_MAX_NDIM];
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  GD_NOGIL_BEGIN(((req.copy == GD_COPY_ALWAYS || req.has_dl_device) && gd_is_big(a)) || !gd_host(&a->h));
  int cls = gd_serve_export(&a->h, GD_SHAPE(a), GD_STRIDES(a), &req, &managed, &versioned, scratch, msg);
  GD_NOGIL_END();
  if (cls == GD_OK && req.copy_deferred) {
    gd_header pre;
    int64_t prestrides[GD_MAX_NDIM];
    if (gd_copy_new(&a->h, GD_SHAPE(a), GD_STRIDES(a), &pre, prestrides, "__dlpack__()") < 0) return NULL;
    req.precopied = &pre;
    req.precopied_strides = prestrides;
    req.copy_deferred = 0;
    cls = gd_serve_export(&a->h, GD_SHAPE(a), GD_STRIDES(a), &req, &managed, &versioned, scratch, msg);
    gd_owner_decref(pre.owner); /* the export holds its own reference */
  }
  if (cls != GD_OK) return gd_raise(cls, msg);
  return gd_capsule_wrap(managed, versioned);
}

/* P8: the header's device as a (DLDeviceType, id) tuple. */
PyObject *gd_array_dlpack_device(PyObject *self, PyObject *unused) {
  gd_array *a = (gd_array *)self;
  gd_state *st = gd_st(self);
  if (gd_devtypes_ready(st) < 0) return NULL;
  if (a->h.device.device_type == kDLCPU && a->h.device.device_id == 0) return Py_NewRef(st->cpu_dlpack_device);
  PyObject *t = gd_devtype_member(st, a->h.device.device_type);
  if (t == NULL) return NULL;
  PyObject *id = PyLong_FromLong(a->h.device.device_id);
  if (id == NULL) {
    Py_DECREF(t);
    return NULL;
  }
  PyObject *r = PyTuple_New(2);
  if (r == NULL) {
    Py_DECREF(t);
    Py_DECREF(id);
    return NULL;
  }
  PyTuple_SetItem(r, 0, t);
  PyTuple_SetItem(r, 1, id);
  return r;
}

/* _usm_data(): (data, offset) of the array as the device holds it: the data
 * pointer as the producer gave it (or godlpack allocated it) and the first
 * element's offset in elements, which __sycl_usm_array_interface__ reports
 * apart (godlpack._oneapi.usm_array_interface). */
PyObject *gd_array_usm_data(PyObject *self, PyObject *unused) {
  (void)unused;
  gd_array *a = (gd_array *)self;
  return Py_BuildValue("(KL)", (unsigned long long)(uintptr_t)a->h.data, (long long)a->h.offset);
}

/* ---- the capsule: its destructor calls the deleter only while the capsule still has its
 * unused name (P6); a consumer renames it to "used_*" ---- */

static const char gd_name_versioned[] = GD_CAPSULE_VERSIONED;
static const char gd_name_legacy[] = GD_CAPSULE_LEGACY;

static void gd_capsule_destructor_versioned(PyObject *cap) {
  /* PyCapsule_IsValid sets no exception; a renamed capsule is left alone. */
  if (!PyCapsule_IsValid(cap, gd_name_versioned)) return;
  DLManagedTensorVersioned *m = (DLManagedTensorVersioned *)PyCapsule_GetPointer(cap, gd_name_versioned);
  if (m != NULL && m->deleter != NULL) m->deleter(m);
}

static void gd_capsule_destructor_legacy(PyObject *cap) {
  if (!PyCapsule_IsValid(cap, gd_name_legacy)) return;
  DLManagedTensor *m = (DLManagedTensor *)PyCapsule_GetPointer(cap, gd_name_legacy);
  if (m != NULL && m->deleter != NULL) m->deleter(m);
}

PyObject *gd_capsule_wrap(void *managed, int versioned) {
  PyObject *cap;
  if (versioned) {
    cap = PyCapsule_New(managed, gd_name_versioned, gd_capsule_destructor_versioned);
    if (cap == NULL) gd_call_deleter_versioned((DLManagedTensorVersioned *)managed);
  } else {
    cap = PyCapsule_New(managed, gd_name_legacy, gd_capsule_destructor_legacy);
    if (cap == NULL) gd_call_deleter_legacy((DLManagedTensor *)managed);
  }
  return cap;
}
