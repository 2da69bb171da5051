//go:build pyext

/* exchange.c: godlpack's DLPack C exchange API (DLPack 1.2 struct, 1.3
 * discovery): type(a).__dlpack_c_exchange_api__ is a PyCapsule named
 * "dlpack_exchange_api" holding a DLPackExchangeAPI that lives for the whole
 * process. It lets C consumers (tvm-ffi, other extensions, our own
 * from_dlpack) exchange Arrays without a Python call or a capsule. None of
 * these functions synchronise streams (CPU arrays have none). */
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"
#include "gocall.h"
#include "skin.h"

/* The callbacks carry no module: the one module instance's state. */
static gd_state *gd_api_state;

static int gd_api_array_check(PyObject *o) {
  if (gd_api_state == NULL || gd_api_state->array_type == NULL || Py_TYPE(o) != gd_api_state->array_type) {
    gd_errf(GD_E_ARG_TYPE, "godlpack exchange API: the object is not a godlpack.Array");
    return 0;
  }
  return 1;
}

/* managed_tensor_allocator: dtype, ndim, shape and device of the prototype;
 * SetError is called exactly on failure. Needs no GIL. */
static int gd_api_allocator(DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
                            void (*SetError)(void *error_ctx, const char *kind, const char *message)) {
  static const char *kinds[] = {"", "BufferError", "TypeError", "ValueError", "MemoryError", "RuntimeError", "IndexError"};
  void *m = NULL;
  int64_t scratch[GD_MAX_NDIM];
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  gd_op o = {.op = GD_OP_ALLOC_EXPORT, .entry = "managed_tensor_allocator()", .ptr = &m, .out_strides = scratch};
  if (prototype != NULL) {
    o.dtype = prototype->dtype;
    o.device = prototype->device;
    o.ints = prototype->shape;
    o.nints = prototype->ndim;
  }
  int cls = (prototype == NULL || out == NULL)
                ? (snprintf(msg, sizeof msg, "managed_tensor_allocator(): NULL argument"), GD_ERR_VALUE)
                : gd_go_op(&o, msg);
  if (cls != GD_OK) {
    if (SetError != NULL) SetError(error_ctx, kinds[cls >= 1 && cls <= 6 ? cls : 5], msg);
    return -1;
  }
  *out = (DLManagedTensorVersioned *)m;
  return 0;
}

/* managed_tensor_from_py_object_no_sync: an owning export, as
 * a.__dlpack__(max_version=(1, 3)) without the capsule. */
static int gd_api_from_py(void *py_object, DLManagedTensorVersioned **out) {
  PyObject *o = (PyObject *)py_object;
  if (!gd_api_array_check(o)) return -1;
  gd_array *a = (gd_array *)o;
  gd_export_req req;
  memset(&req, 0, sizeof(req));
  req.has_max_version = 1;
  req.max_major = DLPACK_MAJOR_VERSION;
  req.max_minor = DLPACK_MINOR_VERSION;
  void *m = NULL;
  int32_t versioned = 0;
  int64_t scratch[GD_MAX_NDIM];
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  int cls = gd_serve_export(&a->h, GD_SHAPE(a), GD_STRIDES(a), &req, &m, &versioned, scratch, msg);
  if (cls != GD_OK) {
    gd_raise(cls, msg);
    return -1;
  }
  *out = (DLManagedTensorVersioned *)m;
  return 0;
}

/* managed_tensor_to_py_object_no_sync: steals tensor (its deleter runs
 * exactly once, also on failure) and returns a new godlpack.Array. */
static int gd_api_to_py(DLManagedTensorVersioned *tensor, void **out_py_object) {
  if (tensor == NULL || out_py_object == NULL || gd_api_state == NULL) {
    gd_errf(GD_E_ARGUMENT, "managed_tensor_to_py_object_no_sync(): NULL argument");
    return -1;
  }
  gd_import_req req;
  memset(&req, 0, sizeof(req));
  gd_header h;
  int64_t shape[GD_MAX_NDIM], strides[GD_MAX_NDIM], scratch[GD_MAX_NDIM];
  int32_t consumed = 0;
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  int cls = gd_serve_import(tensor, 1, &req, &h, shape, strides, scratch, &consumed, msg);
  if (!consumed) gd_call_deleter_versioned(tensor);
  if (cls != GD_OK) {
    gd_raise(cls, msg);
    return -1;
  }
  PyObject *r = gd_array_new(gd_api_state, &h, shape, strides);
  if (r == NULL) return -1;
  *out_py_object = r;
  return 0;
}

/* dltensor_from_py_object_no_sync: a non-owning view, valid while the array
 * lives and control has not returned to Python (core.ExportView: the
 * byte_offset policy of the device; read-only arrays are refused, since a
 * DLTensor cannot say read-only). */
static int gd_api_dltensor_from_py(void *py_object, DLTensor *out) {
  PyObject *o = (PyObject *)py_object;
  if (!gd_api_array_check(o)) return -1;
  gd_array *a = (gd_array *)o;
  gd_op op = {.op = GD_OP_EXPORT_VIEW, .entry = "dltensor_from_py_object_no_sync()", .a = &a->h,
              .a_shape = GD_SHAPE(a), .a_strides = GD_STRIDES(a), .ptr = out};
  return gd_run_op(&op, 0);
}

/* current_work_stream: CPU-only, no streams. */
static int gd_api_current_work_stream(DLDeviceType device_type, int32_t device_id, void **out_stream) {
  (void)device_type;
  (void)device_id;
  if (out_stream != NULL) *out_stream = NULL;
  return 0;
}

static DLPackExchangeAPI gd_exchange_api = {
    {{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, NULL},
    gd_api_allocator,
    gd_api_from_py,
    gd_api_to_py,
    gd_api_dltensor_from_py,
    gd_api_current_work_stream,
};

PyObject *gd_exchange_api_capsule(gd_state *st) {
  gd_api_state = st;
  return PyCapsule_New(&gd_exchange_api, GD_CAPSULE_EXCHANGE_API, NULL);
}

/* The allocator's SetError: the checker keeps the last message. */
static void gd_api_probe_error(void *ctx, const char *kind, const char *message) {
  snprintf((char *)ctx, GD_MSG_CAP, "%s: %s", kind ? kind : "?", message ? message : "");
}

/* _exchange_api(x, how, cap): the conformance checker's look at another
 * library's C exchange API (C9): None when type(x) has none; else
 * ((major, minor), [required functions that are NULL], rc, result), where
 * rc is what the function returned (-1 when the API is not a
 * "dlpack_exchange_api" capsule or lacks it):
 * - how 0, managed_tensor_from_py_object_no_sync(x): result is a
 *   "dltensor_versioned" capsule whose destructor calls the library's
 *   deleter, or None;
 * - how 1, managed_tensor_to_py_object_no_sync(cap's tensor): cap (an unused
 *   versioned capsule) is renamed consumed when the call succeeds, and
 *   result is the library's object;
 * - how 2, managed_tensor_allocator(cap's tensor as the prototype): result
 *   is a capsule of the tensor allocated, or the message it gave SetError. */
PyObject *gd_mod_exchange_api(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *x, *cap = Py_None;
  int how;
  if (!PyArg_ParseTuple(args, "Oi|O", &x, &how, &cap)) return NULL;
  DLManagedTensorVersioned *given = NULL;
  if (how != 0 && (given = PyCapsule_GetPointer(cap, GD_CAPSULE_VERSIONED)) == NULL) return NULL;
  PyObject *o = PyObject_GetAttrString((PyObject *)Py_TYPE(x), "__dlpack_c_exchange_api__");
  if (o == NULL) {
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  const DLPackExchangeAPI *api =
      PyCapsule_IsValid(o, GD_CAPSULE_EXCHANGE_API) ? PyCapsule_GetPointer(o, GD_CAPSULE_EXCHANGE_API) : NULL;
  PyObject *missing = PyList_New(0), *res = NULL;
  int major = -1, minor = -1, rc = -1;
  if (api != NULL && missing != NULL) {
    major = (int)api->header.version.major;
    minor = (int)api->header.version.minor;
    const void *fns[] = {api->managed_tensor_allocator, api->managed_tensor_from_py_object_no_sync,
                         api->managed_tensor_to_py_object_no_sync, api->current_work_stream};
    const char *names[] = {"managed_tensor_allocator", "managed_tensor_from_py_object_no_sync",
                           "managed_tensor_to_py_object_no_sync", "current_work_stream"};
    for (size_t i = 0; i < 4; i++) {
      PyObject *s = fns[i] == NULL ? PyUnicode_FromString(names[i]) : NULL;
      if (s != NULL) PyList_Append(missing, s);
      Py_XDECREF(s);
    }
    DLManagedTensorVersioned *t = NULL;
    void *py = NULL;
    char err[GD_MSG_CAP] = "";
    if (how == 0 && api->managed_tensor_from_py_object_no_sync != NULL) {
      rc = api->managed_tensor_from_py_object_no_sync(x, &t);
    } else if (how == 1 && api->managed_tensor_to_py_object_no_sync != NULL) {
      /* the function steals the tensor, failing too: the capsule gives it up first */
      if (PyCapsule_SetName(cap, GD_CAPSULE_VERSIONED_USED) == 0)
        rc = api->managed_tensor_to_py_object_no_sync(given, &py);
      if (rc == 0) res = py;
    } else if (how == 2 && api->managed_tensor_allocator != NULL) {
      rc = api->managed_tensor_allocator(&given->dl_tensor, &t, err, gd_api_probe_error);
      if (rc != 0) res = PyUnicode_FromString(err[0] ? err : "(SetError was not called)");
    }
    PyErr_Clear();
    if (rc == 0 && t != NULL) res = gd_capsule_wrap(t, 1);
  }
  Py_DECREF(o);
  if (missing == NULL) return NULL;
  return Py_BuildValue("((ii)NiN)", major, minor, missing, rc, res ? res : Py_NewRef(Py_None));
}

/* _probe_capsule(cap[, in_place]): (a capsule over a counting probe of cap's tensor, the count's address),
 * cap marked consumed; in_place: the address of a count put in cap's own deleter field (gd_probe_patch), or None. */
PyObject *gd_mod_probe_capsule(PyObject *m, PyObject *args) {
  PyObject *cap, *out;
  int in_place = 0, versioned;
  const char *name = PyArg_ParseTuple(args, "O|p", &cap, &in_place) ? PyCapsule_GetName(cap) : NULL;
  if (name == NULL) return NULL;
  if (!(versioned = strcmp(name, GD_CAPSULE_VERSIONED) == 0) && strcmp(name, GD_CAPSULE_LEGACY) != 0)
    return gd_errf(GD_E_CAPSULE, "_probe_capsule(): a capsule named %s; pass an unused DLPack capsule", name);
  void *orig = PyCapsule_GetPointer(cap, name), *probe;
  int64_t *calls = NULL;
  if (orig == NULL) return NULL;
  if (in_place) return (calls = gd_probe_patch(orig, versioned)) ? PyLong_FromVoidPtr(calls) : Py_NewRef(Py_None);
  if ((probe = gd_probe_new(orig, versioned, &calls)) == NULL) return gd_errf(GD_E_NO_MEMORY, "_probe_capsule(): out of memory");
  if (PyCapsule_SetName(cap, versioned ? GD_CAPSULE_VERSIONED_USED : GD_CAPSULE_LEGACY_USED) < 0) return NULL;
  return (out = gd_capsule_wrap(probe, versioned)) ? Py_BuildValue("(NK)", out, (unsigned long long)(uintptr_t)calls)
                                                  : NULL;
}

/* _probe_calls(id): how many times the probe's deleter ran. */
PyObject *gd_mod_probe_calls(PyObject *m, PyObject *id) {
  (void)m;
  unsigned long long v = PyLong_AsUnsignedLongLong(id);
  if (v == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
  return PyLong_FromLongLong(gd_probe_calls((const int64_t *)(uintptr_t)v));
}
