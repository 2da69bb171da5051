//go:build pyext

/* module.c: godlpack._native, its state and its functions.
 *
 * The Python package (python/godlpack/__init__.py) owns the DType, Device and
 * DLDeviceType classes and hands them to _init(); the state caches them so the
 * hot paths (__dlpack_device__, .dtype, from_dlpack) build no Python objects
 * they can reuse. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"
#include "array.h"
#include "gocall.h"
#include "skin.h"
#include "chunk.h"
#include "fork.h"

gd_state *gd_state_of_module(PyObject *m) { return (gd_state *)PyModule_GetState(m); }

gd_state *gd_state_of_type(PyTypeObject *tp) { return (gd_state *)PyType_GetModuleState(tp); }

/* ------------------------------------------------------------------ */
/* from_dlpack                                                         */

PyObject *gd_mod_from_dlpack(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *v[3]; /* x, device, copy: the parser pyspec generates from the signature */
  if (gd_args_from_dlpack(args, nargs, kwnames, v) < 0) return NULL;
  return gd_from_dlpack_impl(gd_state_of_module(m), v[0], v[1] ? v[1] : Py_None, v[2] ? v[2] : Py_None, 0);
}

/* _asarray_dlpack(x, device, copy): from_dlpack with asarray's messages. */
PyObject *gd_mod_asarray_dlpack(PyObject *m, PyObject *args) {
  PyObject *x, *device, *copy;
  if (!PyArg_ParseTuple(args, "OOO", &x, &device, &copy)) return NULL;
  return gd_from_dlpack_impl(gd_state_of_module(m), x, device, copy, 1);
}

/* ------------------------------------------------------------------ */
/* creation                                                            */

/* A dimension that does not fit int64: ValueError naming the entry point
 * (numpy: "Maximum allowed dimension exceeded"), not a bare OverflowError. */
static int gd_dim_too_big(PyObject *d, const char *entry) {
  if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
  PyErr_Clear();
  gd_errf(GD_E_SHAPE_ARG, "%s: dimension %R does not fit a 64-bit integer; use a smaller shape", entry, d);
  return -1;
}

static int gd_shape_arg(PyObject *shape, int64_t *out, int32_t *ndim, const char *entry) {
  if (PyLong_Check(shape)) {
    out[0] = PyLong_AsLongLong(shape);
    if (out[0] == -1 && PyErr_Occurred()) return gd_dim_too_big(shape, entry);
    *ndim = 1;
  } else {
    PyObject *t = PySequence_Tuple(shape);
    if (t == NULL) {
      PyErr_Clear();
      gd_errf(GD_E_ARG_TYPE, "%s: shape must be an int or a sequence of ints, got %R", entry, shape);
      return -1;
    }
    Py_ssize_t n = PyTuple_Size(t);
    if (n > GD_MAX_NDIM) {
      Py_DECREF(t);
      gd_errf(GD_E_SHAPE_ARG, "%s: at most %d dimensions, got %zd", entry, GD_MAX_NDIM, n);
      return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
      PyObject *x = PyNumber_Index(PyTuple_GetItem(t, i));
      if (x == NULL) {
        Py_DECREF(t);
        PyErr_Clear();
        gd_errf(GD_E_ARG_TYPE, "%s: shape must be an int or a sequence of ints, got %R", entry, shape);
        return -1;
      }
      out[i] = PyLong_AsLongLong(x);
      if (out[i] == -1 && PyErr_Occurred()) {
        gd_dim_too_big(x, entry);
        Py_DECREF(x);
        Py_DECREF(t);
        return -1;
      }
      Py_DECREF(x);
    }
    Py_DECREF(t);
    *ndim = (int32_t)n;
  }
  for (int32_t i = 0; i < *ndim; i++) {
    if (out[i] < 0) {
      gd_errf(GD_E_SHAPE_ARG, "%s: negative dimensions are not allowed", entry);
      return -1;
    }
  }
  return 0;
}

/* Allocates a C-contiguous CPU array for entry; fills it with elem when not NULL. */
static PyObject *gd_alloc_array(gd_state *st, DLDataType dt, int32_t ndim, const int64_t *shape,
                                const void *elem, gd_array **out, const char *entry) {
  gd_header h;
  int64_t strides[GD_MAX_NDIM];
  if (gd_in_fork_child) { /* no Go there: the C allocator (nogo.c) */
    if (gd_nogo_alloc(dt, ndim, shape, elem, &h, strides, entry) < 0) return NULL;
    PyObject *a = gd_array_new(st, &h, shape, strides);
    if (out) *out = (gd_array *)a;
    return a;
  }
  /* A long fill runs in interruptible chunks after the allocation. */
  int chunked = 0;
  if (elem != NULL && !gd_fill_is_zero(dt, elem)) { /* zeros: allocated zeroed, no fill (core) */
    gd_header probe;
    memset(&probe, 0, sizeof(probe));
    probe.dtype = dt;
    probe.ndim = ndim;
    probe.device.device_type = kDLCPU;
    probe.flags = GD_FLAG_HOST; /* GD_OP_ALLOC on the CPU allocates host memory */
    chunked = gd_chunk_eligible(&probe, shape);
  }
  gd_op o = {.op = GD_OP_ALLOC, .entry = entry, .dtype = dt, .device = {kDLCPU, 0}, .ints = (int64_t *)shape,
             .nints = ndim, .elem = chunked ? NULL : elem, .out = &h, .out_strides = strides};
  if (gd_run_op(&o, !chunked && elem != NULL && gd_size_of(ndim, shape) * (gd_itemsize(dt) + 1) >= GD_NOGIL_BYTES) < 0)
    return NULL;
  if (chunked && gd_chunked_fill(&h, shape, strides, elem, entry) < 0) {
    gd_owner_decref(h.owner);
    return NULL;
  }
  PyObject *a = gd_array_new(st, &h, shape, strides);
  if (out) *out = (gd_array *)a;
  return a;
}

/* An array on a device other than the CPU, through its backend: one Go
 * call with the GIL released (a device fill is not chunked). */
static PyObject *gd_alloc_on_device(gd_state *st, DLDataType dt, int32_t ndim, const int64_t *shape,
                                    const void *elem, DLDevice dev, const char *entry) {
  gd_header h;
  int64_t strides[GD_MAX_NDIM];
  gd_op o = {.op = GD_OP_ALLOC, .entry = entry, .dtype = dt, .device = dev, .ints = (int64_t *)shape, .nints = ndim,
             .elem = elem, .out = &h, .out_strides = strides};
  if (gd_run_op(&o, 1) < 0) return NULL;
  return gd_array_new(st, &h, shape, strides);
}

/* _full(shape, key, value[, (device_type, device_id), entry]): value None ->
 * uninitialised (empty). */
PyObject *gd_mod_full(PyObject *m, PyObject *args) {
  PyObject *shape, *value;
  long key;
  int dev_type = kDLCPU, dev_id = 0;
  const char *entry = "empty()";
  if (!PyArg_ParseTuple(args, "OlO|(ii)s", &shape, &key, &value, &dev_type, &dev_id, &entry)) return NULL;
  int64_t dims[GD_MAX_NDIM];
  int32_t nd;
  if (gd_shape_arg(shape, dims, &nd, entry) < 0) return NULL;
  DLDataType dt = gd_dtype_from_key(key);
  unsigned char elem[16];
  const void *e = NULL;
  if (value != Py_None) {
    if (gd_itemsize(dt) == 0 || gd_itemsize(dt) > 16) {
      gd_errf(GD_E_UNSUPPORTED, "%s: packed sub-byte dtypes cannot be filled", entry);
      return NULL;
    }
    if (gd_pack(dt, value, elem, entry) < 0) return NULL;
    e = elem;
  }
  if (dev_type != kDLCPU || dev_id != 0) {
    DLDevice dev = {(DLDeviceType)dev_type, dev_id};
    return gd_alloc_on_device(gd_state_of_module(m), dt, nd, dims, e, dev, entry);
  }
  return gd_alloc_array(gd_state_of_module(m), dt, nd, dims, e, NULL, entry);
}

/* The int v as 128 bits, hi:lo: 0, 1 when it is beyond them, -1 with an
 * exception. */
static int gd_int128(PyObject *v, int64_t *hi, uint64_t *lo) {
  int of = 0;
  long long x = PyLong_AsLongLongAndOverflow(v, &of);
  *lo = PyLong_AsUnsignedLongLongMask(v); /* v modulo 2**64 */
  if (!of) *hi = x < 0 ? -1 : 0;
  PyObject *k = of ? PyLong_FromLong(64) : NULL, *h = k ? PyNumber_Rshift(v, k) : NULL;
  if (h != NULL) *hi = PyLong_AsLongLongAndOverflow(h, &of);
  Py_XDECREF(k);
  Py_XDECREF(h);
  return PyErr_Occurred() ? -1 : of != 0;
}

/* _arange(start, stop, step, key): core's plan (gd_arange: the length, the
 * dtype, key's or -1 for numpy's default, and the arithmetic), filled here
 * through core's element codec (gd_elem_write, the one codec of each
 * dtype). Pure C, so a forked child can too; Ctrl-C is honoured between
 * blocks of elements. */
PyObject *gd_mod_arange(PyObject *m, PyObject *args) {
  PyObject *v[3];
  long key;
  if (!PyArg_ParseTuple(args, "OOOl", &v[0], &v[1], &v[2], &key)) return NULL;
  gd_arange_req q = {.ints = PyLong_Check(v[0]) && PyLong_Check(v[1]) && PyLong_Check(v[2]), .has_dtype = key >= 0};
  if (key >= 0) q.dtype = gd_dtype_from_key(key);
  for (int k = 0; k < 3; k++) {
    int w = q.ints ? gd_int128(v[k], &q.hi[k], &q.lo[k]) : (q.f[k] = PyFloat_AsDouble(v[k]), 0);
    if (w < 0 || PyErr_Occurred()) return NULL;
    q.wide |= w;
  }
  gd_arange_plan p;
  char msg[256];
  int cls = gd_arange(&q, &p, msg, sizeof msg);
  if (cls != GD_OK) return gd_raise(cls, msg);
  int64_t is = gd_itemsize(p.dtype), dims[1] = {p.n};
  gd_array *a;
  PyObject *r = gd_alloc_array(gd_state_of_module(m), p.dtype, 1, dims, NULL, &a, "arange()");
  char *out = r ? (char *)a->h.data + a->h.offset * is : NULL;
  gd_elem e = {.kind = gd_elem_kind(p.dtype)};
  for (int64_t i = 0; r != NULL && i < p.n; i++) {
    uint64_t u = q.lo[0] + (uint64_t)i * q.lo[2];
    double f = p.kind == GD_ARANGE_TRUNC ? trunc(p.f0 + (double)i * p.fd) : p.f0 + (double)i * p.fd;
    e.re = p.kind >= GD_ARANGE_F64 ? f : p.kind == GD_ARANGE_U64 ? (double)u : (double)(int64_t)u;
    e.u = p.kind == GD_ARANGE_TRUNC ? (f < 0 ? (uint64_t)(int64_t)f : (uint64_t)f) : u;
    e.i = e.kind == GD_ELEM_BOOL ? (p.kind >= GD_ARANGE_F64 ? e.re != 0 : u != 0) : (int64_t)e.u;
    if (gd_elem_write(p.dtype, &e, out + i * is) != 0) { /* core checked the bounds */
      Py_CLEAR(r);
      gd_errf(GD_E_ARGUMENT, "arange(): a value is out of bounds for the dtype");
    } else if ((i & 0xfffff) == 0xfffff && PyErr_CheckSignals() < 0) {
      Py_CLEAR(r);
    }
  }
  return r;
}

/* ---- buffer objects: zero-copy import through the buffer protocol ---- */

/* Owner free function of a buffer import: releases the Py_buffer. It may run
 * on any thread; it takes the GIL, and leaks when Python is gone (P7). */
static void gd_pybuffer_free(void *p) {
  Py_buffer *v = (Py_buffer *)p;
  if (v == NULL) return;
  if (!Py_IsInitialized()) return;
  PyGILState_STATE g = PyGILState_Ensure();
  /* The exporter's releasebuffer may run Python code: keep an exception in
   * flight (the owning array may die while one propagates) apart. */
  PyObject *et, *ev, *etb;
  PyErr_Fetch(&et, &ev, &etb);
  PyBuffer_Release(v);
  PyErr_Restore(et, ev, etb);
  PyGILState_Release(g);
  free(v);
}

/* gd_owner_defer (core/owner.c): an owner whose release may run Python code
 * (a Py_buffer, numpy's or torch's deleter), dropped on a thread Python
 * does not know (a goroutine releasing an array it retained), is finished by
 * the main thread through a pending call rather than taking the GIL there,
 * which races a fork on CPython 3.11; if none can be queued, at once. */
static int gd_drain_parked(void *unused) { gd_owner_drain(); return 0; }
static int gd_defer_to_python(gd_owner *o) {
  if (!Py_IsInitialized() || PyGILState_GetThisThreadState() != NULL) return 0;
  if (gd_owner_park(o) && Py_AddPendingCall(gd_drain_parked, NULL) != 0) gd_owner_drain();
  return 1;
}

int gd_describe_host(void *data, DLDataType dt, int32_t nd, int64_t *shape, int64_t *strides, uint64_t flags,
                     gd_header *h, int64_t *oshape, int64_t *ostrides, const char *entry) {
  DLTensor t = {.data = data, .device = {kDLCPU, 0}, .ndim = nd, .dtype = dt, .shape = shape, .strides = strides};
  if (GD_FAST_ALLOWED && gd_fast_describe_plain(&t, flags, h, oshape, ostrides)) return 0;
  DLManagedTensorVersioned m;
  memset(&m, 0, sizeof(m));
  m.version.major = DLPACK_MAJOR_VERSION;
  m.version.minor = DLPACK_MINOR_VERSION;
  m.flags = flags;
  m.dl_tensor = t;
  gd_op o = {.op = GD_OP_DESCRIBE, .entry = entry, .ptr = &m, .out = h, .out_shape = oshape, .out_strides = ostrides};
  return gd_run_op(&o, 0);
}

PyObject *gd_mod_from_buffer(PyObject *m, PyObject *obj) { return gd_from_buffer(gd_state_of_module(m), obj); }

PyObject *gd_from_buffer(gd_state *st, PyObject *obj) {
  Py_buffer *v = (Py_buffer *)malloc(sizeof(Py_buffer));
  if (v == NULL) return gd_errf(GD_E_NO_MEMORY, "asarray(): out of memory");
  if (PyObject_GetBuffer(obj, v, PyBUF_RECORDS) < 0) {
    if (!PyErr_ExceptionMatches(PyExc_BufferError)) {
      free(v);
      return NULL;
    }
    PyErr_Clear();
    if (PyObject_GetBuffer(obj, v, PyBUF_RECORDS_RO) < 0) {
      free(v);
      return NULL;
    }
  }
  /* core decides which views it takes (core/buffer.c); the tensor is then
   * validated like any import, which words every other refusal. */
  _Static_assert(sizeof(Py_ssize_t) == sizeof(int64_t), "Py_ssize_t is 64-bit");
  gd_buffer_view bv = {v->buf, v->len, v->itemsize, v->format, v->ndim, v->suboffsets != NULL,
                       (const int64_t *)v->shape, (const int64_t *)v->strides};
  DLTensor t;
  int64_t bshape[GD_MAX_NDIM], bstrides[GD_MAX_NDIM], shape[GD_MAX_NDIM], strides[GD_MAX_NDIM];
  char msg[GD_MSG_CAP];
  gd_header h;
  if (gd_buffer_tensor(&bv, &t, bshape, bstrides, msg, sizeof msg) < 0) {
    gd_errf(GD_E_BUFFER_REQUEST, "%s", msg);
    goto fail;
  }
  if (gd_describe_host(t.data, t.dtype, t.ndim, t.shape, t.strides, v->readonly ? DLPACK_FLAG_BITMASK_READ_ONLY : 0,
                       &h, shape, strides, "asarray()") < 0)
    goto fail;
  gd_owner *o = gd_owner_new(GD_OWN_FREE, v, gd_pybuffer_free);
  if (o == NULL) {
    gd_errf(GD_E_NO_MEMORY, "asarray(): out of memory");
    goto fail;
  }
  o->marks |= GD_OWNER_PYTHON;
  h.owner = o;
  return gd_array_new(st, &h, shape, strides);
fail:
  PyBuffer_Release(v);
  free(v);
  return NULL;
}

/* ------------------------------------------------------------------ */
/* set-up                                                              */

/* _init(dtype_by_key, Device, device_types, cpu_device, parse_device, sequence_operand):
 * device_types() returns DLDeviceType, which array.c asks for at the first
 * member it hands out (the class needs enum, which import godlpack skips). */
PyObject *gd_mod_init(PyObject *m, PyObject *args) {
  gd_state *st = gd_state_of_module(m);
  PyObject *dtypes, *devcls, *devenum, *cpu, *parse, *seq;
  if (!PyArg_ParseTuple(args, "O!OOOOO", &PyDict_Type, &dtypes, &devcls, &devenum, &cpu, &parse, &seq))
    return NULL;
  PyObject **slots[] = {&st->sequence_operand, &st->dtype_by_key, &st->device_cls, &st->devtype_enum, &st->cpu_device,
                        &st->parse_device};
  PyObject *vals[] = {seq, dtypes, devcls, devenum, cpu, parse};
  for (int i = 0; i < 6; i++) {
    Py_INCREF(vals[i]);
    GD_SETREF(*slots[i], vals[i]);
  }
  Py_RETURN_NONE;
}

/* _go_allocs, _go_crossings: their docstrings are in internal/gentables/pyspec. */
PyObject *gd_mod_go_allocs(PyObject *m, PyObject *unused) {
  return PyLong_FromUnsignedLongLong(gd_go_allocs());
}

PyObject *gd_mod_go_crossings(PyObject *m, PyObject *unused) {
  return PyLong_FromUnsignedLongLong(__atomic_load_n(&gd_go_crossings, __ATOMIC_RELAXED));
}

/* _in_fork_child, _test_panic and _test_go_gc live in fork.c,
 * _vectorcall_method in callmethod.c. */

/* _judge_export(case_json, capsule): core.JudgeExport of one export of
 * another library (godlpack check): the results as JSON. capsule is the
 * capsule the call returned (read, not consumed), or None. */
PyObject *gd_mod_judge_export(PyObject *m, PyObject *args) {
  (void)m;
  const char *in;
  PyObject *cap;
  if (!PyArg_ParseTuple(args, "sO", &in, &cap)) return NULL;
  gd_judge j = {.in = in};
  if (PyCapsule_CheckExact(cap)) {
    const char *name = PyCapsule_GetName(cap);
    if (name != NULL && (strcmp(name, GD_CAPSULE_VERSIONED) == 0 || strcmp(name, GD_CAPSULE_LEGACY) == 0))
      j.managed = PyCapsule_GetPointer(cap, name);
    if (PyErr_Occurred()) return NULL;
  }
  gd_op o = {.op = GD_OP_JUDGE_EXPORT, .entry = "_judge_export()", .ptr = &j};
  if (gd_run_op(&o, 0) < 0) return NULL;
  PyObject *r = PyUnicode_FromString(j.out);
  free(j.out);
  return r;
}

/* _judge_import(case_json): core.JudgeImport of one from_dlpack of another
 * library; "" gives the catalogue. */
PyObject *gd_mod_judge_import(PyObject *m, PyObject *args) {
  (void)m;
  const char *in;
  if (!PyArg_ParseTuple(args, "s", &in)) return NULL;
  gd_judge j = {.in = in};
  gd_op o = {.op = GD_OP_JUDGE_EXPORT, .flag = 1, .entry = "_judge_import()", .ptr = &j};
  if (gd_run_op(&o, 0) < 0) return NULL;
  PyObject *r = PyUnicode_FromString(j.out);
  free(j.out);
  return r;
}

/* _owner_refs(a): the references to a's owner (its memory): the checker
 * counts a consumer's deleter calls by them. */
PyObject *gd_mod_owner_refs(PyObject *m, PyObject *a) {
  gd_array *x = gd_host_array_arg(gd_state_of_module(m), a, "_owner_refs()");
  if (x == NULL) return NULL;
  return PyLong_FromLongLong(x->h.owner ? __atomic_load_n(&x->h.owner->refs, __ATOMIC_RELAXED) : 0);
}

/* _consumer_stream(device_type, device_id): godlpack's queue on the device
 * as a "SyclQueueRef" capsule for dpctl.SyclQueue(capsule), which copies the
 * reference. The backend keeps the queue for the life of the process: the
 * capsule has no destructor. */
PyObject *gd_mod_consumer_stream(PyObject *m, PyObject *args) {
  (void)m;
  int t, id;
  if (!PyArg_ParseTuple(args, "ii", &t, &id)) return NULL;
  DLDevice dev = {(DLDeviceType)t, (int32_t)id};
  void *q = NULL;
  gd_op o = {.op = GD_OP_STREAM, .entry = "from_dlpack()", .device = dev, .ptr = &q};
  if (gd_run_op(&o, 0) < 0) return NULL;
  return PyCapsule_New(q, "SyclQueueRef", NULL);
}

/* The module init of every extension module built with godlpack: the
 * generated main package (python/godlpack/_gobuild.py) defines
 * PyInit_<name> as a call of this with the module's full name.
 *
 * One Go runtime per process: a module of the extension kit (any name but
 * godlpack._native) holds godlpack's whole API, so it becomes
 * godlpack._native itself (sys.modules) and imports the godlpack package
 * over it. A second Go-built module would start a second Go runtime, which
 * Go does not support: such an import is refused, naming the order that
 * works. */
static int gd_kit_adopt(PyObject *m, const char *fullname);

/* The module's name, for _install_gofuncs (the module is made once). */
static char gd_fullname[256];

/* _native._install_gofuncs(): the Go functions registered with gofunc join
 * the module. godlpack/__init__.py calls it after its other imports rather
 * than PyInit doing it: describing them is the first call into Go, which
 * waits for the Go runtime to finish starting (on a thread of its own since
 * the library loaded), and by then it has started while Python imported. */
PyObject *gd_mod_install_gofuncs(PyObject *m, PyObject *unused) {
  static int done = 0;
  if (!done) {
    if (gd_gofunc_install(m, gd_fullname) < 0) return NULL;
    done = 1;
  }
  Py_RETURN_NONE;
}

PyObject *gd_module_init(const char *fullname) {
  /* One interpreter per process: the Go runtime, the fork flag and the DLPack
   * exchange API (one process-wide struct whose functions reach the module
   * state through a static pointer) exist once. A second interpreter that
   * imported godlpack used to repoint that state and leave it dangling. */
  if (PyInterpreterState_GetID(PyInterpreterState_Get()) != 0) {
    gd_errf(GD_E_INIT,
                    "godlpack cannot be imported in a subinterpreter: its Go runtime and its DLPack exchange "
                    "API are process-wide; import godlpack in the main interpreter");
    return NULL;
  }
  static int loaded = 0;
  int kit = strcmp(fullname, "godlpack._native") != 0;
  PyObject *sysmods = PyImport_GetModuleDict(); /* borrowed */
  PyObject *other = sysmods ? PyDict_GetItemString(sysmods, "godlpack._native") : NULL;
  if (kit && other != NULL) {
    PyObject *file = PyObject_GetAttrString(other, "__file__");
    if (file == NULL) PyErr_Clear();
    gd_errf(GD_E_INIT,
                 "import %s: godlpack is already loaded (%S), with a Go runtime of its own, and a process can "
                 "hold one Go runtime; %s contains godlpack's whole API (Array, from_dlpack, asarray, ...): "
                 "import %s before godlpack (import godlpack then uses %s), or use one of them only",
                 fullname, file ? file : Py_None, fullname, fullname, fullname);
    Py_XDECREF(file);
    return NULL;
  }
  if (loaded) {
    gd_errf(GD_E_INIT, "import %s: this extension module was already initialised once in this process; "
                 "it cannot be loaded again (use the module already imported)", fullname);
    return NULL;
  }
  gd_module_def.m_name = fullname;
  PyObject *m = PyModule_Create(&gd_module_def);
  if (m == NULL) return NULL;
  if (gd_fork_install() != 0) {
    gd_errf(GD_E_INTERNAL, "godlpack: pthread_atfork failed");
    Py_DECREF(m);
    return NULL;
  }
  const char *nofast = getenv("GODLPACK_NOFAST"); /* gocall.h: GD_FAST_ALLOWED */
  gd_nofast = nofast != NULL && nofast[0] != '\0' && strcmp(nofast, "0") != 0;
  gd_state *st = gd_state_of_module(m);
  memset(st, 0, sizeof(*st));
  st->host_copy_types = gd_go_host_copy_types(); /* the registry's answer, once */
  __atomic_store_n(&gd_owner_defer, gd_defer_to_python, __ATOMIC_RELEASE);
  gd_call_method_init();
  if (gd_state_intern(st) < 0) goto fail;
  st->max_version = Py_BuildValue("(ii)", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
  st->kw_max_version = PyTuple_Pack(1, st->s_max_version);
  if (!st->max_version || !st->kw_max_version) goto fail;
  st->array_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &gd_array_spec, NULL);
  if (st->array_type == NULL) goto fail;
  Py_INCREF((PyObject *)st->array_type);
  if (PyModule_AddObject(m, "Array", (PyObject *)st->array_type) < 0) {
    Py_DECREF((PyObject *)st->array_type);
    goto fail;
  }
  PyObject *api = gd_exchange_api_capsule(st);
  if (api == NULL) goto fail;
  int rc = PyObject_SetAttrString((PyObject *)st->array_type, "__dlpack_c_exchange_api__", api);
  Py_DECREF(api);
  if (rc < 0) goto fail;
  if (PyModule_AddIntConstant(m, "MAX_NDIM", GD_MAX_NDIM) < 0) goto fail;
  if (PyModule_AddIntConstant(m, "ALIGNMENT", GD_ALIGNMENT) < 0) goto fail;
  /* The Go functions registered with package gofunc (gofunc.c) join the
   * module in _install_gofuncs. */
  snprintf(gd_fullname, sizeof gd_fullname, "%s", fullname);
  loaded = 1;
  if (kit && gd_kit_adopt(m, fullname) < 0) goto fail;
  return m;
fail:
  Py_DECREF(m);
  return NULL;
}

/* A kit module becomes godlpack._native, then the godlpack package is
 * imported over it: its _init fills the state, and it copies its public
 * names into the kit module (python/godlpack/__init__.py). */
static int gd_kit_adopt(PyObject *m, const char *fullname) {
  PyObject *sysmods = PyImport_GetModuleDict();
  if (PyDict_SetItemString(sysmods, "godlpack._native", m) < 0) return -1;
  PyObject *pkg = PyImport_ImportModule("godlpack");
  if (pkg != NULL) {
    Py_DECREF(pkg);
    return 0;
  }
  PyObject *et, *ev, *etb; /* leave no half-made godlpack._native behind */
  PyErr_Fetch(&et, &ev, &etb);
  if (PyDict_DelItemString(sysmods, "godlpack._native") < 0) PyErr_Clear();
  PyErr_Restore(et, ev, etb);
  (void)fullname;
  return -1;
}

int gd_parse_device_pair(gd_state *st, PyObject *obj, int32_t *type, int32_t *id, const char *entry) {
  /* One parser for every device argument: godlpack.Device's (the Python
   * package, built from core's tables), so that device= of from_dlpack and
   * Device(...) accept and refuse the same values with the same errors,
   * worded from entry. */
  if (st->parse_device == NULL) {
    gd_errf(GD_E_INTERNAL, "%s: godlpack is not initialised; import godlpack first", entry);
    return -1;
  }
  PyObject *pair = PyObject_CallFunction(st->parse_device, "Os", obj, entry);
  int ok = pair != NULL && PyArg_ParseTuple(pair, "ii", type, id);
  Py_XDECREF(pair);
  return ok ? 0 : -1;
}

/* _device(text, entry[, type, id]): (type, id) of the device a user's
 * argument names, core's one rule (GD_OP_DEVICE): the text, or the pair,
 * which text then names; an int beyond int64 reaches core as its bound. */
PyObject *gd_mod_device(PyObject *m, PyObject *args) {
  const char *text, *entry;
  PyObject *pair[2] = {NULL, NULL};
  if (!PyArg_ParseTuple(args, "ss|OO", &text, &entry, &pair[0], &pair[1])) return NULL;
  int64_t ints[2];
  gd_header out = {0};
  gd_op o = {.op = GD_OP_DEVICE, .entry = entry, .out = &out, .ptr = (void *)text, .ints = ints,
             .nints = pair[1] != NULL ? 2 : 0};
  for (int i = 0; i < o.nints; i++) {
    int of = 0;
    long long v = PyLong_AsLongLongAndOverflow(pair[i], &of);
    if (v == -1 && PyErr_Occurred()) return NULL;
    ints[i] = of > 0 ? INT64_MAX : of < 0 ? INT64_MIN : (int64_t)v;
  }
  if (gd_run_op(&o, 0) < 0) return NULL;
  return Py_BuildValue("ii", (int)out.device.device_type, (int)out.device.device_id);
}
