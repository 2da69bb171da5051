//go:build pyext

/* import.c: from_dlpack(x) and asarray(x) of a DLPack producer, read top to
 * bottom in the order core's plan runs (core/exchange.c, gd_import_next:
 * C1, C5-C9); this file executes each step and reports, it decides nothing.
 * The import of a torch.Tensor on the CPU, for example:
 *   1. setup: copy= and device= parsed; type(x) looked up once and cached: torch's exchange
 *      API capsule (C9, unless a subclass's own __dlpack__ shadows it), and that it is torch's;
 *   2. GD_STEP_TORCH: the checks torch's exchange API skips (is_neg, ...);
 *   3. GD_STEP_API: the API hands over a DLManagedTensorVersioned, served by gd_serve_import
 *      (core/fastpath.c's pure C, else ONE Go call, core.ServeImport); a device whose stream
 *      must be negotiated, or a refusal, declines to the next step;
 *   4. GD_STEP_DEVICE / GD_STEP_ASK: __dlpack_device__(), then __dlpack__(max_version=...,
 *      [dl_device, copy, stream]); C1 asks again without keywords after a TypeError;
 *   5. take the capsule: the name decides the struct (C2), served as in 3,
 *      then renamed "used_..." (C3) or left to its destructor (C4);
 *   6. GD_STEP_RAISE / GD_STEP_DONE: the producer's error worded, or the Array.
 */
#include <string.h>

#include "_cgo_export.h"
#include "gocall.h"
#include "skin.h"
#include "chunk.h"

/* Capsule names outlive the capsules renamed to them: static strings. */
static const char gd_name_versioned[] = GD_CAPSULE_VERSIONED;
static const char gd_name_versioned_used[] = GD_CAPSULE_VERSIONED_USED;
static const char gd_name_legacy[] = GD_CAPSULE_LEGACY;
static const char gd_name_legacy_used[] = GD_CAPSULE_LEGACY_USED;

/* ---- the end of every import: an Array, or the error worded ---- */

/* The end of every import: a new godlpack.Array over the described tensor,
 * or, for gd_import_describe, the description itself in *into (its owner
 * reference handed over) and None, so that a caller that only lends the
 * tensor to Go for one call builds no Python object. */
static PyObject *gd_import_result(gd_state *st, const gd_header *h, const int64_t *shape,
                                  const int64_t *strides, gd_import_into *into) {
  if (into == NULL) return gd_array_new(st, h, shape, strides);
  into->h = *h;
  if (h->ndim > 0) {
    memcpy(into->shape, shape, (size_t)h->ndim * sizeof(int64_t));
    memcpy(into->strides, strides, (size_t)h->ndim * sizeof(int64_t));
  }
  Py_RETURN_NONE;
}

/* Raises a Go error; asarray() shows its own entry point. */
static PyObject *gd_raise_import(int cls, const char *msg, int entry_asarray) {
  if (entry_asarray && strncmp(msg, "from_dlpack(): ", 15) == 0) {
    char buf[GD_MSG_CAP + 16];
    snprintf(buf, sizeof buf, "asarray(): %s", msg + 15);
    return gd_raise(cls, buf);
  }
  return gd_raise(cls, msg);
}

/* ---- 1. setup: the arguments and what type(x) offers (cached per type) ---- */

/* The cache entry of tp, or NULL. Valid until Python code runs. */
static gd_api_entry *gd_api_find(gd_state *st, PyTypeObject *tp) {
  for (int i = 0; i < st->api_cache_n; i++)
    if (st->api_cache[i].type == (PyObject *)tp) return &st->api_cache[i];
  return NULL;
}

static const DLPackExchangeAPI *gd_exchange_api_lookup(PyObject *tp) {
  /* Only a PyCapsule named "dlpack_exchange_api" (DLPack 1.3) is trusted. An
   * address in a Python int (DLPack 1.2's __c_dlpack_exchange_api__) could
   * be any number a Python class chose: such producers are served through
   * __dlpack__ instead. */
  const DLPackExchangeAPI *api = NULL;
  PyObject *o = PyObject_GetAttrString(tp, "__dlpack_c_exchange_api__");
  if (o != NULL && PyCapsule_IsValid(o, GD_CAPSULE_EXCHANGE_API))
    api = (const DLPackExchangeAPI *)PyCapsule_GetPointer(o, GD_CAPSULE_EXCHANGE_API);
  Py_XDECREF(o);
  if (PyErr_Occurred()) PyErr_Clear();
  /* The api lives for the whole process; which version of it godlpack
   * speaks, core decides (C9). */
  return gd_exchange_api_spoken(api);
}

/* Whether type(x).__dlpack__ is not the one of the class that owns tp's
 * exchange API (a subclass's own): core then asks __dlpack__ instead (C9). */
static int gd_api_shadowed(PyObject *tp) {
  PyObject *mro = PyObject_GetAttrString(tp, "__mro__"), *mine = PyObject_GetAttrString(tp, "__dlpack__");
  int shadowed = 0, owns = 0;
  for (Py_ssize_t i = 0; !owns && mro != NULL && PyTuple_Check(mro) && i < PyTuple_Size(mro); i++) {
    PyObject *c = PyTuple_GetItem(mro, i), *d = PyObject_GetAttrString(c, "__dict__");
    if ((owns = d != NULL && PyMapping_HasKeyString(d, "__dlpack_c_exchange_api__"))) {
      PyObject *theirs = PyObject_GetAttrString(c, "__dlpack__");
      shadowed = theirs != mine;
      Py_XDECREF(theirs);
    }
    Py_XDECREF(d);
  }
  Py_XDECREF(mro);
  Py_XDECREF(mine);
  if (PyErr_Occurred()) PyErr_Clear();
  return shadowed;
}

/* Whether class c's module and qualname are those of fact f. */
static int gd_class_is(PyObject *c, const gd_type_fact *f) {
  int found = 0;
  PyObject *mod = PyObject_GetAttrString(c, "__module__");
  PyObject *qn = PyObject_GetAttrString(c, "__qualname__");
  if (mod != NULL && qn != NULL && PyUnicode_Check(mod) && PyUnicode_Check(qn)) {
    const char *m = PyUnicode_AsUTF8AndSize(mod, NULL), *q = PyUnicode_AsUTF8AndSize(qn, NULL);
    size_t n = strlen(f->module);
    found = m != NULL && q != NULL && strncmp(m, f->module, n) == 0 && (m[n] == '\0' || m[n] == '.') &&
            strcmp(q, f->qualname) == 0;
  }
  Py_XDECREF(mod);
  Py_XDECREF(qn);
  if (PyErr_Occurred()) PyErr_Clear();
  return found;
}

int gd_type_is(PyObject *tp, int kind) {
  PyObject *mro = PyObject_GetAttrString(tp, "__mro__");
  if (mro == NULL || !PyTuple_Check(mro)) {
    Py_XDECREF(mro);
    PyErr_Clear();
    return 0;
  }
  int found = 0;
  for (int k = 0; !found && k < GD_TYPE_FACTS; k++) {
    const gd_type_fact *f = &gd_type_facts[k];
    if (f->kind != kind) continue;
    Py_ssize_t n = f->exact ? 1 : PyTuple_Size(mro); /* the MRO starts with tp itself */
    for (Py_ssize_t i = 0; !found && i < n; i++) found = gd_class_is(PyTuple_GetItem(mro, i), f);
  }
  Py_DECREF(mro);
  return found;
}

/* The per-type facts of the cache, filled on a type's first import: its
 * exchange API (C9), whether it is torch's (*torch) or exactly numpy's
 * ndarray (*ndarray, may be NULL), and the device it was asked again on
 * with a stream (*stream_dev). */
static const DLPackExchangeAPI *gd_exchange_api_of(gd_state *st, PyTypeObject *tp, int *torch, int *ndarray,
                                                   int *stream_dev, int *kw, int *shadowed) {
  gd_api_entry *e = gd_api_find(st, tp);
  if (e != NULL) {
    *torch = e->torch;
    if (shadowed != NULL) *shadowed = e->shadowed;
    if (ndarray != NULL) *ndarray = e->ndarray;
    *stream_dev = e->stream_dev;
    if (kw != NULL) *kw = e->kw;
    return e->api;
  }
  *stream_dev = 0;
  if (kw != NULL) *kw = 0;
  const DLPackExchangeAPI *api = gd_exchange_api_lookup((PyObject *)tp);
  int sh = api != NULL && gd_api_shadowed((PyObject *)tp);
  if (shadowed != NULL) *shadowed = sh;
  *torch = gd_type_is((PyObject *)tp, GD_TYPE_TORCH);
  int nd = gd_type_is((PyObject *)tp, GD_TYPE_NDARRAY);
  if (ndarray != NULL) *ndarray = nd;
  /* Full: replace entries in turn, so that the types in use stay cached. */
  int full = st->api_cache_n == GD_API_CACHE;
  int i = full ? (int)(st->api_cache_next++ % GD_API_CACHE) : st->api_cache_n++;
  PyObject *old = full ? st->api_cache[i].type : NULL;
  Py_INCREF((PyObject *)tp);
  st->api_cache[i].type = (PyObject *)tp;
  st->api_cache[i].api = api;
  st->api_cache[i].torch = *torch;
  st->api_cache[i].ndarray = nd;
  st->api_cache[i].shadowed = sh;
  st->api_cache[i].stream_dev = 0;
  st->api_cache[i].kw = 0;
  Py_XDECREF(old); /* after the entry is consistent: this may run Python code */
  return api;
}

static void gd_api_note_kw(gd_state *st, PyTypeObject *tp, int kw) {
  gd_api_entry *e = gd_api_find(st, tp);
  if (e != NULL) e->kw = kw;
}

/* Remembers that a tensor of type tp on device type dev was asked again
 * with a stream (the entry exists: gd_exchange_api_of ran for tp). */
static void gd_api_note_stream(gd_state *st, PyTypeObject *tp, int dev) {
  gd_api_entry *e = gd_api_find(st, tp);
  if (e != NULL) e->stream_dev = dev;
}

/* The model's starting state: the arguments parsed, the facts of x. 0, or
 * -1 with an exception. */
static int gd_import_setup(gd_state *st, PyObject *x, PyObject *device, PyObject *copy, int entry_asarray,
                           gd_import_state *s, const DLPackExchangeAPI **api) {
  const char *entry = entry_asarray ? "asarray()" : "from_dlpack()";
  memset(s, 0, sizeof(*s));
  *api = NULL;
  if (gd_parse_copy(copy, &s->copy, entry) < 0) return -1;
  if (device != NULL && device != Py_None) {
    int32_t dt, di;
    if (gd_parse_device_pair(st, device, &dt, &di, entry) < 0) return -1;
    s->device.device_type = (DLDeviceType)dt;
    s->device.device_id = di;
    s->has_device = 1;
    char msg[GD_MSG_CAP];
    int cls = gd_check_import_device(dt, di, msg);
    if (cls != GD_OK) {
      gd_raise_import(cls, msg, entry_asarray);
      return -1;
    }
  }
  s->raw_capsule = PyCapsule_CheckExact(x);
  if (!s->raw_capsule) {
    *api = gd_exchange_api_of(st, Py_TYPE(x), &s->torch, NULL, &s->stream_dev, &s->kw, &s->shadowed);
    s->has_api = *api != NULL;
    s->own = gd_array_check(st, x);
  }
  s->host_copy_types = st->host_copy_types;
  return 0;
}

/* ---- 2. GD_STEP_TORCH ---- */

/* torch's refusals (core's gd_torch_facts: its exchange API skips the checks
 * of its __dlpack__, which exports a negative view as if it were not
 * negated). Returns 1 with the exception set, 0 to go on, -1 on error. */
static int gd_torch_refuses(PyObject *x) {
  static PyObject *names[GD_TORCH_FACTS]; /* interned once, kept for the process */
  for (int k = 0; k < GD_TORCH_FACTS; k++) {
    const gd_library_fact *f = &gd_torch_facts[k];
    if (names[k] == NULL && (names[k] = PyUnicode_InternFromString(f->name)) == NULL) return -1;
    PyObject *args[1] = {x};
    PyObject *r = f->is_method ? gd_call_method(names[k], args, 1 | GD_VECTORCALL_ARGUMENTS_OFFSET, NULL)
                               : PyObject_GetAttr(x, names[k]);
    if (r == NULL) {
      if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
      PyErr_Clear(); /* an older torch without is_neg: nothing to check */
      continue;
    }
    int t = PyObject_IsTrue(r);
    Py_DECREF(r);
    if (t < 0) return -1;
    if (t) {
      gd_errf(GD_E_PRODUCER, "%s", f->message);
      return 1;
    }
  }
  return 0;
}

/* ---- 3. GD_STEP_API: type(x).__dlpack_c_exchange_api__ (C9) ---- */

/* Takes x through its exchange API. Returns 1 with *out set (or NULL and an
 * exception), or 0 when the caller should use __dlpack__ instead (no API, the
 * producer refused, or a device whose stream must be negotiated). */
static int gd_from_exchange_api(gd_state *st, const DLPackExchangeAPI *api, PyObject *x,
                                const gd_import_req *req0, int entry_asarray, gd_import_into *into,
                                PyObject **out) {
  DLManagedTensorVersioned *m = NULL;
  if (api->managed_tensor_from_py_object_no_sync(x, &m) != 0 || m == NULL) {
    PyErr_Clear();
    return 0;
  }
  gd_import_req req = *req0;
  req.negotiated = 0; /* the producer never saw device/copy */
  req.no_sync = 1;    /* C9: core sends tensors that need a stream back to __dlpack__ */
  gd_header h;
  int64_t shape[GD_MAX_NDIM], strides[GD_MAX_NDIM], scratch[GD_MAX_NDIM];
  int32_t consumed = 0;
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  req.defer_copy_over = gd_chunk_bytes(); /* long copies: Ctrl-C between chunks */
  GD_NOGIL_BEGIN(req.copy == GD_COPY_ALWAYS);
  int cls = gd_serve_import(m, 1, &req, &h, shape, strides, scratch, &consumed, msg);
  GD_NOGIL_END();
  if (!consumed) gd_call_deleter_versioned(m); /* refused or retried: nobody else owns it */
  if (cls == GD_OK && req.retry == GD_RETRY_DLPACK) return 0;
  if (cls != GD_OK) {
    *out = gd_raise_import(cls, msg, entry_asarray);
  } else if (req.copy_deferred && gd_import_finish_copy(&h, shape, strides, entry_asarray ? "asarray()" : "from_dlpack()") < 0) {
    *out = NULL;
  } else {
    *out = gd_import_result(st, &h, shape, strides, into);
  }
  return 1;
}

/* ---- 4. GD_STEP_DEVICE and GD_STEP_ASK: __dlpack_device__, __dlpack__ ---- */

/* The device type x.__dlpack_device__() reports (its id in *id when id is
 * not NULL): 0 when x has none or it is not a (type, id) pair of ints; -1
 * with an exception when the call fails. */
static long gd_producer_device(PyObject *x, int *id) {
  static PyObject *s_dlpack_device = NULL; /* interned once, kept for the process */
  if (s_dlpack_device == NULL && (s_dlpack_device = PyUnicode_InternFromString("__dlpack_device__")) == NULL)
    return -1;
  PyObject *meth = PyObject_GetAttr(x, s_dlpack_device);
  if (meth == NULL) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
    PyErr_Clear();
    return 0;
  }
  PyObject *dev = PyObject_CallNoArgs(meth);
  Py_DECREF(meth);
  if (dev == NULL) return -1;
  long t = 0, i = 0;
  if (PyTuple_Check(dev) && PyTuple_Size(dev) == 2) {
    t = PyLong_AsLong(PyTuple_GetItem(dev, 0));
    if (!PyErr_Occurred() && id != NULL) i = PyLong_AsLong(PyTuple_GetItem(dev, 1));
  }
  Py_DECREF(dev);
  if (!PyErr_Occurred() && id != NULL) {
    if (i < 0 || i > INT32_MAX) t = 0;
    *id = (int)i;
  }
  if (PyErr_Occurred()) {
    PyErr_Clear(); /* not an int-like: __dlpack__ will tell */
    t = 0;
  }
  return t > 0 && t <= INT32_MAX ? t : 0;
}

/* godlpack's queue on device (type, id) as the producer's stream argument:
 * godlpack._oneapi.consumer_stream, a dpctl.SyclQueue over the backend's
 * queue (core.ConsumerStream). A new reference or NULL. */
static PyObject *gd_consumer_stream(int32_t type, int32_t id) {
  PyObject *mod = PyImport_ImportModule("godlpack._oneapi");
  if (mod == NULL) return NULL;
  PyObject *q = PyObject_CallMethod(mod, "consumer_stream", "ii", (int)type, (int)id);
  Py_DECREF(mod);
  return q;
}

/* x.__dlpack__ with the keywords step names (max_version is always ours).
 * One gd_call_method (on 3.12+ no bound method, no kwargs dict); the common
 * call, max_version only, uses a prebuilt kwnames tuple. Returns a new
 * reference, or NULL with the producer's exception; *missing when x has no
 * __dlpack__ at all (a TypeError is then raised). */
static PyObject *gd_call_dlpack(gd_state *st, PyObject *x, const gd_import_step *step, PyObject *copy_obj,
                                PyObject *stream, int *missing) {
  PyObject *args[5] = {x, st->max_version, NULL, NULL, NULL};
  PyObject *kwnames = step->kw_max_version ? st->kw_max_version : NULL, *dev = NULL;
  Py_ssize_t nkw = 1;
  *missing = 0;
  if (step->kw_dl_device || step->kw_copy || step->kw_stream) {
    PyObject *names[4] = {st->s_max_version, NULL, NULL, NULL};
    if (step->kw_dl_device) {
      dev = Py_BuildValue("(ii)", (int)step->dl_device.device_type, (int)step->dl_device.device_id);
      if (dev == NULL) return NULL;
      names[nkw] = st->s_dl_device;
      args[1 + nkw++] = dev;
    }
    if (step->kw_copy) {
      names[nkw] = st->s_copy;
      args[1 + nkw++] = copy_obj;
    }
    if (step->kw_stream) {
      names[nkw] = st->s_stream;
      args[1 + nkw++] = stream;
    }
    kwnames = PyTuple_New(nkw);
    if (kwnames == NULL) {
      Py_XDECREF(dev);
      return NULL;
    }
    for (Py_ssize_t i = 0; i < nkw; i++) {
      Py_INCREF(names[i]);
      PyTuple_SetItem(kwnames, i, names[i]);
    }
  }
  PyObject *cap = gd_call_method(st->s_dlpack, args, 1 | GD_VECTORCALL_ARGUMENTS_OFFSET, kwnames);
  if (kwnames != NULL && kwnames != st->kw_max_version) Py_DECREF(kwnames);
  Py_XDECREF(dev);
  if (cap == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
    /* No __dlpack__ at all (an AttributeError raised inside one propagates). */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (PyObject_HasAttr(x, st->s_dlpack)) {
      PyErr_Restore(type, value, tb);
      return NULL;
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    *missing = 1;
    PyObject *tn = PyType_GetQualName(Py_TYPE(x));
    if (tn == NULL) return NULL;
    gd_errf(GD_E_ARG_TYPE,
                 "from_dlpack(): '%U' object has no __dlpack__ method; pass an object that implements "
                 "the DLPack protocol (numpy.ndarray, torch.Tensor, ...) or a DLPack capsule, or use "
                 "godlpack.asarray() for sequences and buffer objects",
                 tn);
    Py_DECREF(tn);
  }
  return cap;
}

/* A producer's __dlpack__ raised (not for our keywords): the error names
 * the entry point the user called and what was asked. BufferError, and
 * ValueError / RuntimeError / NotImplementedError of producers that use
 * those for "cannot export" (torch's "Found no NVIDIA driver"), become
 * BufferError; a TypeError stays one; the producer's exception is the
 * __cause__. Others (MemoryError, KeyboardInterrupt) pass unchanged. */
static void gd_wrap_producer_error(PyObject *x, const gd_import_req *req, const char *entry) {
  PyObject *cls;
  if (PyErr_ExceptionMatches(PyExc_TypeError)) {
    cls = gd_exc_for(GD_E_ARG_TYPE); /* a TypeError stays one */
  } else if (PyErr_ExceptionMatches(PyExc_BufferError) || PyErr_ExceptionMatches(PyExc_ValueError) ||
             PyErr_ExceptionMatches(PyExc_RuntimeError) || PyErr_ExceptionMatches(PyExc_NotImplementedError)) {
    cls = gd_exc_for(GD_E_PRODUCER);
  } else {
    return;
  }
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (tb != NULL && value != NULL) PyException_SetTraceback(value, tb);
  PyObject *tn = PyType_GetQualName(Py_TYPE(x));
  PyObject *en = type ? PyType_GetQualName((PyTypeObject *)type) : NULL;
  if (tn == NULL || en == NULL || value == NULL) {
    Py_XDECREF(tn);
    Py_XDECREF(en);
    PyErr_Restore(type, value, tb);
    return;
  }
  char asked[64] = "";
  if (req->has_device) snprintf(asked, sizeof asked, "dl_device=(%d, %d)", (int)req->dev_type, (int)req->dev_id);
  PyErr_Format(cls, "%s: %U.__dlpack__(%s) failed: %U: %S; %s", entry, tn, asked, en, value,
               req->has_device ? "pass device=None to keep the tensor where it is, or copy it with its own library"
                               : "the producer cannot export this tensor; convert it with its own library first");
  gd_err_chain(value, 1);
  Py_XDECREF(type);
  Py_XDECREF(tb);
  Py_DECREF(tn);
  Py_DECREF(en);
}

/* The producer refused the host copy we asked for: a BufferError that names
 * the entry point, the device, the request and the way out. */
static void gd_raise_host_refused(PyObject *x, int dev_type, PyObject *copy, const char *entry) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyObject *s = value ? PyObject_Str(value) : NULL;
  PyObject *tn = PyType_GetQualName(Py_TYPE(x));
  if (s != NULL && tn != NULL) {
    int no_copy = copy == Py_False;
    gd_errf(GD_E_PRODUCER,
                 "%s: the '%U' is on device type %d, which the CPU cannot read, and its "
                 "producer refused to copy it to the host (__dlpack__(dl_device=(1, 0), copy=%s)): %U; %s",
                 entry, tn, dev_type, no_copy ? "False" : (copy == Py_True ? "True" : "None"), s,
                 no_copy ? "pass copy=None or True"
                         : "pass a raw capsule (x.__dlpack__(max_version=(1, 3))) to hold it on its device");
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
  } else {
    PyErr_Restore(type, value, tb);
  }
  Py_XDECREF(s);
  Py_XDECREF(tn);
}

/* The producer's TypeError kept between two calls (C1). */
typedef struct {
  PyObject *type, *value, *tb;
} gd_kept;

static void gd_kept_drop(gd_kept *k) {
  Py_CLEAR(k->type);
  Py_CLEAR(k->value);
  Py_CLEAR(k->tb);
}

/* A __dlpack__ call of step failed: a TypeError is kept for the model (1);
 * anything else is worded for the user and stands (0). A second call's
 * error gets the kept first one as its context. */
static int gd_call_failed(PyObject *x, const gd_import_step *step, PyObject *copy, const char *entry,
                          gd_kept *kept) {
  if (step->retried && kept->value != NULL) {
    if (kept->tb != NULL) PyException_SetTraceback(kept->value, kept->tb);
    gd_err_chain(Py_NewRef(kept->value), 0);
  }
  gd_kept_drop(kept);
  if (PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Fetch(&kept->type, &kept->value, &kept->tb);
    PyErr_NormalizeException(&kept->type, &kept->value, &kept->tb);
    return 1;
  }
  if (step->host_copy && PyErr_ExceptionMatches(PyExc_BufferError))
    gd_raise_host_refused(x, step->tensor_device.device_type, copy, entry);
  else if (!step->host_copy)
    gd_wrap_producer_error(x, &step->req, entry);
  return 0;
}

/* ---- 5. take the capsule (C2-C4) ---- */

/* Imports the capsule cap (a new reference, always released) as asked by
 * req. Returns the new array; or NULL with an exception; or NULL without one
 * when core asked for a retry (req->retry, the capsule left unconsumed for
 * its destructor), *retry_dev and *retry_id then holding the tensor's device. */
static PyObject *gd_import_capsule(gd_state *st, PyObject *cap, gd_import_req *req, int entry_asarray,
                                   int *retry_dev, int *retry_id, gd_import_into *into) {
  const char *entry = entry_asarray ? "asarray()" : "from_dlpack()";
  if (!PyCapsule_CheckExact(cap)) {
    gd_errf(GD_E_ARG_TYPE, "%s: __dlpack__() returned %R, not a PyCapsule; the producer is broken", entry,
                 cap);
    Py_DECREF(cap);
    return NULL;
  }
  /* C2: the name decides the struct, before anything is read. One
   * PyCapsule_GetName and our own comparison instead of PyCapsule_IsValid per
   * name: each of those compares the name again, on the hottest import. */
  int versioned;
  const char *used_name;
  const char *name = PyCapsule_GetName(cap);
  if (name == NULL && PyErr_Occurred()) PyErr_Clear();
  if (name != NULL && strcmp(name, gd_name_versioned) == 0) {
    versioned = 1;
    used_name = gd_name_versioned_used;
  } else if (name != NULL && strcmp(name, gd_name_legacy) == 0) {
    versioned = 0;
    used_name = gd_name_legacy_used;
  } else {
    if (name != NULL && (strcmp(name, gd_name_versioned_used) == 0 || strcmp(name, gd_name_legacy_used) == 0)) {
      gd_errf(GD_E_CONSUMED,
                   "%s: the DLPack capsule was already consumed (its name is '%s'); a "
                   "capsule can be imported only once: call x.__dlpack__() again for a new one",
                   entry, name);
    } else {
      gd_errf(GD_E_CAPSULE,
                   "%s: not a DLPack capsule (name '%s'); expected 'dltensor_versioned' or 'dltensor'", entry,
                   name ? name : "NULL");
    }
    Py_DECREF(cap);
    return NULL;
  }
  void *managed = PyCapsule_GetPointer(cap, name);
  if (managed == NULL) {
    if (!PyErr_Occurred())
      gd_errf(GD_E_CAPSULE, "%s: the DLPack capsule holds a NULL pointer", entry);
    Py_DECREF(cap);
    return NULL;
  }
  gd_header h;
  int64_t shape[GD_MAX_NDIM], strides[GD_MAX_NDIM], scratch[GD_MAX_NDIM];
  int32_t consumed = 0;
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  /* A copy may follow the import: release the GIL when one was asked for.
   * Another thread could then see the capsule still unused and import it
   * too, so it is marked used first, and given its name back if the import
   * refuses the tensor before taking ownership (C4). */
  const char *unused_name = versioned ? gd_name_versioned : gd_name_legacy;
  int nogil = req->copy == GD_COPY_ALWAYS || req->has_device || req->stream_given;
  if (nogil && PyCapsule_SetName(cap, used_name) < 0) PyErr_Clear();
  req->defer_copy_over = gd_chunk_bytes(); /* long copies: Ctrl-C between chunks */
  GD_NOGIL_BEGIN(nogil);
  int cls = gd_serve_import(managed, versioned, req, &h, shape, strides, scratch, &consumed, msg);
  GD_NOGIL_END();
  if (consumed) {
    /* Ownership moved to our owner (or the deleter already ran): the
     * capsule's destructor must not call the deleter again. */
    if (!nogil && PyCapsule_SetName(cap, used_name) < 0) PyErr_Clear();
  } else if (nogil) {
    if (PyCapsule_SetName(cap, unused_name) < 0) PyErr_Clear();
  }
  Py_DECREF(cap);
  if (cls != GD_OK) return gd_raise_import(cls, msg, entry_asarray);
  if (req->retry != GD_RETRY_NONE) {
    *retry_dev = h.device.device_type; /* described, not taken: ask again */
    *retry_id = h.device.device_id;
    return NULL;
  }
  if (req->copy_deferred && gd_import_finish_copy(&h, shape, strides, entry_asarray ? "asarray()" : "from_dlpack()") < 0)
    return NULL;
  return gd_import_result(st, &h, shape, strides, into);
}

/* ---- the loop over core's steps, and its entry points ---- */

/* Runs the import core's exchange model (core/exchange.c) decides, step by
 * step: this loop executes and reports, it decides nothing. */
static PyObject *gd_from_dlpack_into(gd_state *st, PyObject *x, PyObject *device, PyObject *copy,
                                     int entry_asarray, gd_import_into *into) {
  const char *entry = entry_asarray ? "asarray()" : "from_dlpack()";
  gd_import_state s;
  const DLPackExchangeAPI *api;
  if (gd_import_setup(st, x, device, copy, entry_asarray, &s, &api) < 0) return NULL;
  gd_kept kept = {NULL, NULL, NULL};
  gd_import_req last;
  memset(&last, 0, sizeof(last));
  PyObject *r = NULL;
  for (;;) {
    gd_import_step step;
    gd_import_next(&s, &step);
    int rdev = 0, rid = 0;
    switch (step.kind) {
      case GD_STEP_TORCH:
        if (gd_torch_refuses(x) != 0) return NULL;
        continue;
      case GD_STEP_API:
        if (gd_from_exchange_api(st, api, x, &step.req, entry_asarray, into, &r)) return r; /* GD_OUT_DONE */
        s.outcome = GD_OUT_DECLINED;
        continue;
      case GD_STEP_DEVICE: {
        long t = gd_producer_device(x, &rid);
        if (t < 0) return NULL;
        s.pdev.device_type = (DLDeviceType)t;
        s.pdev.device_id = rid;
        continue;
      }
      case GD_STEP_TAKE:
        Py_INCREF(x);
        r = gd_import_capsule(st, x, &step.req, entry_asarray, &rdev, &rid, into);
        break;
      case GD_STEP_ASK: {
        PyObject *q = NULL;
        if (step.kw_stream && (q = gd_consumer_stream(step.stream_on.device_type, step.stream_on.device_id)) == NULL)
          return NULL;
        if (step.note_stream_dev) gd_api_note_stream(st, Py_TYPE(x), step.note_stream_dev);
        int missing;
        PyObject *cap = gd_call_dlpack(st, x, &step, copy, q, &missing);
        Py_XDECREF(q);
        last = step.req;
        if (cap == NULL) {
          if (missing || !gd_call_failed(x, &step, copy, entry, &kept)) return NULL;
          s.outcome = GD_OUT_TYPE_ERROR;
          continue;
        }
        gd_kept_drop(&kept);
        if (step.note_kw) gd_api_note_kw(st, Py_TYPE(x), step.note_kw);
        r = gd_import_capsule(st, cap, &step.req, entry_asarray, &rdev, &rid, into);
        break;
      }
      case GD_STEP_RAISE:
        PyErr_Restore(kept.type, kept.value, kept.tb);
        gd_wrap_producer_error(x, &last, entry);
        return NULL;
      default: /* GD_STEP_DONE */
        gd_kept_drop(&kept);
        if (r == NULL && !PyErr_Occurred())
          gd_errf(GD_E_INTERNAL, "%s: the import ended without a result; please report it", entry);
        return r;
    }
    /* after GD_STEP_TAKE and GD_STEP_ASK: an array or an exception, which
     * ends every import (GD_OUT_DONE), or a retry */
    if (r != NULL || PyErr_Occurred()) return r;
    s.outcome = GD_OUT_RETRY;
    s.retry = step.req.retry;
    s.rdev.device_type = (DLDeviceType)rdev;
    s.rdev.device_id = rid;
  }
}

PyObject *gd_from_dlpack_impl(gd_state *st, PyObject *x, PyObject *device, PyObject *copy, int entry_asarray) {
  return gd_from_dlpack_into(st, x, device, copy, entry_asarray, NULL);
}

int gd_type_is_ndarray(gd_state *st, PyTypeObject *tp) {
  int torch, ndarray, stream_dev;
  gd_exchange_api_of(st, tp, &torch, &ndarray, &stream_dev, NULL, NULL);
  return ndarray;
}

int gd_import_describe(gd_state *st, PyObject *x, gd_import_into *into) {
  PyObject *r = gd_from_dlpack_into(st, x, NULL, Py_None, 0, into);
  if (r == NULL) return -1;
  Py_DECREF(r);
  return 0;
}

