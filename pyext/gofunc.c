//go:build pyext

/* gofunc.c: the Go functions registered with package gofunc, as functions of
 * the module.
 *
 * Each is a METH_FASTCALL | METH_KEYWORDS builtin whose self is its module
 * (so that __module__, __qualname__, repr and pickling are a module
 * function's), with a C entry point of its own (gofunc_gen.h).
 * A call matches the arguments to the parameters, turns each into a plain C
 * slot (gd_fn_val, core/godlpack.h): an array is described in C (a godlpack.Array as it is;
 * any other object through from_dlpack's import, whose fast path makes no Go
 * call, straight into the slot with no Array object: the slot holds the
 * import's owner reference until Go returns; or the buffer protocol),
 * releases the GIL and makes ONE call into Go, which lends the arrays to the
 * function and writes its results back. Dropping that reference after the
 * call runs the producer's deleter, unless the function kept the array
 * (Retain): then the Go side's last Release does.
 * A Quick function (gofunc.Quick) keeps the GIL for its call instead.
 * A function that takes a context.Context is waited for in slices of
 * GD_FN_WAIT_MS, re-taking the GIL between them to check for Ctrl-C, which
 * cancels the context. */
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"
#include "gocall.h"
#include "skin.h"

#define GD_FN_WAIT_MS 20

typedef struct {
  gd_fn_desc d;
  PyObject *module; /* strong: the state of the arrays it makes */
  gd_state *st;     /* module's state, as long as module lives */
  PyObject *names[GD_FN_MAX_PARAMS]; /* interned parameter names */
  char entry[96];   /* "name()" for errors */
  PyMethodDef def;
} gd_fn;

static gd_fn **gd_fns = NULL;
static int gd_nfns = 0;

#include "gofunc_gen.h"

/* _gofuncs(): the registered functions as JSON (build-ext writes the .pyi
 * stub from it). */
PyObject *gd_mod_gofuncs(PyObject *m, PyObject *unused) {
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  char *out = NULL;
  int cls = gd_go_fn_meta(&out, msg);
  if (cls != GD_OK) return gd_raise(cls, msg);
  PyObject *r = PyUnicode_FromString(out);
  free(out);
  return r;
}

/* _bench_floor(x): what every call of a registered function pays and
 * nothing more: a builtin's call, the GIL released, one call into an empty
 * Go export, the GIL taken back, a float made; x True: the GIL held, as a
 * Quick function's call holds it. make bench prints both (group gofunc). */
PyObject *gd_mod_bench_floor(PyObject *m, PyObject *x) {
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  PyThreadState *ts = x == Py_True ? NULL : PyEval_SaveThread();
  int cls = gd_go_fn_floor(msg);
  if (ts != NULL) PyEval_RestoreThread(ts);
  if (cls != GD_OK) return gd_raise(cls, msg);
  return PyFloat_FromDouble(0.0);
}

/* Adds functions [from, to) of the registry to module m: a kit's
 * (gofunc.Home) to its dict in m._kit_functions, the others to m. */
static int gd_fn_add(PyObject *m, int from, int to) {
  PyObject *kits = PyObject_GetAttrString(m, "_kit_functions"), *modname = PyModule_GetNameObject(m);
  if (kits == NULL || modname == NULL) goto fail;
  for (int i = from; i < to; i++) {
    gd_fn *f = (gd_fn *)calloc(1, sizeof(gd_fn));
    if (f == NULL) goto nomem;
    char msg[GD_MSG_CAP];
    msg[0] = '\0';
    int cls = gd_go_fn_describe(i, &f->d, msg);
    if (cls != GD_OK) {
      free(f);
      gd_raise(cls, msg);
      goto fail;
    }
    snprintf(f->entry, sizeof(f->entry), "%s()", f->d.name);
    for (int k = 0; k < f->d.nparams; k++) {
      f->names[k] = PyUnicode_InternFromString(f->d.names[k]);
      if (f->names[k] == NULL) goto fail;
    }
    PyObject *home = f->d.module ? PyDict_GetItemString(kits, f->d.module) : NULL; /* borrowed */
    if (f->d.module && home == NULL) {
      if ((home = PyDict_New()) == NULL || PyDict_SetItemString(kits, f->d.module, home) < 0) goto fail;
      Py_DECREF(home); /* kits holds it */
    }
    if (home == NULL && PyObject_HasAttrString(m, f->d.name)) {
      gd_errf(GD_E_INIT,
                   "import %U: the Go function %s is registered under the name '%s', which godlpack's own API "
                   "or another function uses; register it under another name",
                   modname, f->d.name, f->d.name);
      goto fail;
    }
    Py_INCREF(m);
    f->module = m;
    f->st = gd_state_of_module(m);
    f->def.ml_name = f->d.name;
    f->def.ml_meth = gd_fn_entries[i];
    f->def.ml_flags = METH_FASTCALL | METH_KEYWORDS;
    f->def.ml_doc = f->d.doc;
    gd_fns[i] = f;
    gd_nfns = i + 1;
    PyObject *where = f->d.module ? PyUnicode_FromString(f->d.module) : (Py_INCREF(modname), modname);
    PyObject *fn = where ? PyCFunction_NewEx(&f->def, m, where) : NULL;
    Py_XDECREF(where);
    if (fn == NULL) goto fail;
    if (home != NULL ? PyDict_SetItemString(home, f->d.name, fn) < 0 : PyModule_AddObject(m, f->d.name, fn) < 0) {
      Py_DECREF(fn);
      goto fail;
    }
    if (home != NULL) Py_DECREF(fn);
  }
  Py_DECREF(kits);
  Py_DECREF(modname);
  return 0;
nomem:
  gd_errf(GD_E_NO_MEMORY, "import godlpack: out of memory");
fail:
  Py_XDECREF(kits);
  Py_XDECREF(modname);
  return -1;
}

int gd_gofunc_install(PyObject *m, const char *fullname) {
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  int n = gd_go_fn_count(msg);
  if (n < 0 || n > GD_FN_ENTRIES) {
    gd_errf(GD_E_INIT, "import %s: a Go function could not be registered: %s; fix the registration "
                 "and rebuild the module", fullname, msg[0] ? msg : "the registry failed");
    return -1;
  }
  /* A composed module's kit functions (gofunc.Home) go to their kit's
   * Python module, which takes them from _kit_functions (godlpack/_kits.py);
   * so do those of the kits loaded later as plugins (_load_kit). */
  PyObject *kits = PyDict_New();
  if (kits == NULL || PyModule_AddObject(m, "_kit_functions", kits) < 0) {
    Py_XDECREF(kits);
    return -1;
  }
  if ((gd_fns = (gd_fn **)calloc(GD_FN_ENTRIES, sizeof(gd_fn *))) == NULL) {
    gd_errf(GD_E_NO_MEMORY, "import godlpack: out of memory");
    return -1;
  }
  return gd_fn_add(m, 0, n);
}

/* _load_kit(path): a kit's Go plugin joins this module's Go runtime
 * (gofunc.LoadPlugin); returns _kit_functions, its functions in it. */
PyObject *gd_mod_load_kit(PyObject *m, PyObject *path) {
  char msg[GD_MSG_CAP], *p = PyBytes_AsString(path); /* os.fsencode(path), after _install_gofuncs */
  int first = 0, end = 0, cls = p ? gd_go_kit_open(p, &first, &end, msg) : -1;
  if (cls != GD_OK) return cls < 0 ? NULL : gd_raise(cls, msg);
  return gd_fn_add(m, first, end) < 0 ? NULL : PyObject_GetAttrString(m, "_kit_functions");
}

static const char *gd_kind_word(int32_t k) {
  static const char *const words[] = {
      [GD_FN_ARRAY] = "an array (an object with __dlpack__ or the buffer protocol)", [GD_FN_INT] = "an int",
      [GD_FN_FLOAT] = "a float", [GD_FN_BOOL] = "a bool", [GD_FN_COMPLEX] = "a complex", [GD_FN_STRING] = "a str",
      [GD_FN_INTS] = "an int or a sequence of ints"};
  return k >= 0 && k < (int32_t)(sizeof words / sizeof words[0]) && words[k] ? words[k] : "?";
}

/* TypeError for an argument of the wrong type. */
static int gd_fn_badtype(gd_fn *f, int k, PyObject *o) {
  PyObject *tn = PyType_GetQualName(Py_TYPE(o));
  if (tn == NULL) return -1;
  gd_errf(GD_E_ARG_TYPE, "%s: argument '%s' must be %s, got '%U'; pass %s", f->entry, f->d.names[k],
               gd_kind_word(f->d.kinds[k]), tn,
               f->d.kinds[k] == GD_FN_ARRAY ? "numpy.asarray(x) or godlpack.asarray(x)" : "a value of that type");
  Py_DECREF(tn);
  return -1;
}

/* Rewords the exception in flight as "name(): argument 'x': <message>",
 * keeping its type; a UnicodeError (whose constructor takes no message)
 * becomes core's ErrArgument. */
static int gd_fn_reword(gd_fn *f, int k) {
  PyObject *t, *v, *tb;
  PyErr_Fetch(&t, &v, &tb);
  PyErr_NormalizeException(&t, &v, &tb);
  PyObject *s = v ? PyObject_Str(v) : NULL;
  if (s == NULL) {
    PyErr_Clear();
    PyErr_Restore(t, v, tb);
    return -1;
  }
  static const char fmt[] = "%s: argument '%s': %U";
  if (PyErr_GivenExceptionMatches(t, PyExc_UnicodeError)) gd_errf(GD_E_ARGUMENT, fmt, f->entry, f->d.names[k], s);
  else PyErr_Format(t, fmt, f->entry, f->d.names[k], s);
  Py_DECREF(s);
  Py_XDECREF(t);
  Py_XDECREF(v);
  Py_XDECREF(tb);
  return -1;
}

/* A numpy.ndarray argument read in place instead of through __dlpack__:
 * the same memory and the same description (gd_describe_host, as any host
 * import), without the capsule, the managed tensor and numpy's deleter,
 * only where core's numpy fact (gd_numpy_route) says the array is what its
 * DLPack export would be. The owner holds a reference to the ndarray (as
 * numpy's export does). Anything else, and any refusal, goes through
 * __dlpack__ (returns 0 then, nothing set). A heap type is not numpy's. */
static void gd_fn_obj_release(void *p) {
  if (!Py_IsInitialized()) return; /* leaks the reference when Python is gone (P7) */
  PyGILState_STATE g = PyGILState_Ensure();
  PyObject *et, *ev, *etb;
  PyErr_Fetch(&et, &ev, &etb);
  Py_DECREF((PyObject *)p);
  PyErr_Restore(et, ev, etb);
  PyGILState_Release(g);
}

static gd_owner *gd_fn_spare;       /* an owner block gd_fn_unown kept for the next call (the GIL guards it) */
static PyTypeObject *gd_fn_np_type; /* numpy.ndarray once seen (a reference kept for the process) */

/* numpy's ndarray after the object head as numpy's C API lays it out
 * (PyArrayObject_fields, ndarraytypes.h), and its dtype object's start
 * (PyArray_Descr): every field read is where it was from numpy 1.7 to 2.x. */
typedef struct {
  char *data;
  int nd;
  const int64_t *dimensions, *strides;
  void *base;
  const char *descr;
  int flags;
} gd_np_array;
typedef struct {
  void *typeobj;
  char kind, type, byteorder, former_flags;
  int type_num;
} gd_np_descr;
#define GD_NPY_WRITEABLE 0x0400        /* NPY_ARRAY_WRITEABLE */
#define GD_NPY_WARN_ON_WRITE (1u << 31) /* numpy's flag on views that warn before a write */

static int gd_numpy_read(PyObject *o, gd_numpy_fields *f) {
  const gd_np_array *a = (const gd_np_array *)((const char *)o + sizeof(PyObject));
  if (a->descr == NULL) return 0;
  const gd_np_descr *d = (const gd_np_descr *)(a->descr + sizeof(PyObject));
  *f = (gd_numpy_fields){.data = a->data, .dims = a->dimensions, .strides = a->strides, .nd = a->nd,
                         .type_num = d->type_num, .writeable = (a->flags & GD_NPY_WRITEABLE) != 0,
                         .warn_on_write = ((unsigned)a->flags & GD_NPY_WARN_ON_WRITE) != 0, .byteorder = d->byteorder};
  return 1;
}

static int gd_fn_ndarray(gd_state *st, gd_fn *f, PyObject *o, gd_fn_val *v, int64_t *dims) {
  PyTypeObject *tp = Py_TYPE(o);
  if (tp != gd_fn_np_type) {
    if ((PyType_GetFlags(tp) & Py_TPFLAGS_HEAPTYPE) || !gd_type_is_ndarray(st, tp)) return 0;
    PyTypeObject *old = gd_fn_np_type;
    Py_INCREF((PyObject *)tp);
    gd_fn_np_type = tp;
    Py_XDECREF((PyObject *)old);
  }
  gd_numpy_fields nf;
  gd_numpy_view nv;
  if (!gd_numpy_read(o, &nf) || !gd_numpy_route(&nf, &nv)) return 0;
  if (gd_describe_host(nv.data, nv.dtype, nv.ndim, nv.shape, nv.strides, 0, &v->h, dims, dims + GD_MAX_NDIM,
                       f->entry) < 0) {
    PyErr_Clear();
    return 0;
  }
  gd_owner *ow = gd_fn_spare != NULL ? gd_fn_spare : (gd_owner *)malloc(sizeof(gd_owner));
  if (ow == NULL) return 0;
  gd_fn_spare = NULL;
  v->h.owner = gd_owner_init(ow, GD_OWN_FREE, o, gd_fn_obj_release);
  Py_INCREF(o);
  v->h.owner->marks |= GD_OWNER_PYTHON;
  v->shape = dims;
  v->strides = dims + GD_MAX_NDIM;
  return 1;
}

/* An array argument: a godlpack.Array as it is (borrowed from the caller's
 * argument); anything else imported zero-copy by from_dlpack's import
 * described into the slot (*owned: the slot holds an owner reference; dims
 * holds its shape and strides), else through the buffer protocol into *tmp,
 * which the caller holds until Go is done. */
static int gd_fn_array(gd_state *st, gd_fn *f, int k, PyObject *o, gd_fn_val *v, PyObject **tmp, int64_t *dims,
                       int *owned) {
  v->kind = GD_FN_ARRAY;
  if (gd_array_check(st, o)) {
    gd_array *a = (gd_array *)o;
    v->h = a->h;
    v->shape = GD_SHAPE(a);
    v->strides = GD_STRIDES(a);
    return 0;
  }
  if (gd_fn_ndarray(st, f, o, v, dims)) {
    *owned = 1;
    return 0;
  }
  gd_import_into into = {.shape = dims, .strides = dims + GD_MAX_NDIM};
  if (gd_import_describe(st, o, &into) == 0) {
    v->h = into.h;
    v->shape = into.shape;
    v->strides = into.strides;
    *owned = 1;
    return 0;
  }
  PyObject *r = NULL;
  if (PyErr_ExceptionMatches(PyExc_TypeError)) { /* not DLPack: a buffer, or the wrong type */
    PyObject *et, *ev, *etb;
    PyErr_Fetch(&et, &ev, &etb); /* PyObject_HasAttr must not run with an exception set */
    int dlpack = PyObject_HasAttr(o, st->s_dlpack), buffer = PyObject_CheckBuffer(o);
    if (dlpack || (!buffer && PyCapsule_CheckExact(o))) {
      PyErr_Restore(et, ev, etb);
    } else {
      Py_XDECREF(et);
      Py_XDECREF(ev);
      Py_XDECREF(etb);
      if (!buffer) return gd_fn_badtype(f, k, o);
      r = gd_from_buffer(st, o);
    }
  }
  if (r == NULL) return gd_fn_reword(f, k);
  *tmp = r;
  gd_array *a = (gd_array *)r;
  v->h = a->h;
  v->shape = GD_SHAPE(a);
  v->strides = GD_STRIDES(a);
  return 0;
}

/* An int or a sequence of ints (a shape), into *buf (malloc'ed when longer
 * than GD_MAX_NDIM: *heap). */
static int gd_fn_ints(gd_fn *f, int k, PyObject *o, gd_fn_val *v, int64_t *stack, int64_t **heap) {
  if (PyLong_Check(o)) {
    stack[0] = PyLong_AsLongLong(o);
    if (stack[0] == -1 && PyErr_Occurred()) return gd_fn_reword(f, k);
    v->s = (char *)stack;
    v->n = 1;
    return 0;
  }
  PyObject *t = (PyUnicode_Check(o) || PyBytes_Check(o)) ? NULL : PySequence_Tuple(o);
  if (t == NULL) {
    PyErr_Clear();
    return gd_fn_badtype(f, k, o);
  }
  Py_ssize_t n = PyTuple_Size(t);
  int64_t *buf = stack;
  if (n > GD_MAX_NDIM) {
    buf = (int64_t *)malloc((size_t)n * sizeof(int64_t));
    if (buf == NULL) {
      Py_DECREF(t);
      gd_errf(GD_E_NO_MEMORY, "%s: out of memory", f->entry);
      return -1;
    }
    *heap = buf;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *x = PyNumber_Index(PyTuple_GetItem(t, i));
    if (x == NULL) {
      Py_DECREF(t);
      PyErr_Clear();
      return gd_fn_badtype(f, k, o);
    }
    buf[i] = PyLong_AsLongLong(x);
    Py_DECREF(x);
    if (buf[i] == -1 && PyErr_Occurred()) {
      Py_DECREF(t);
      return gd_fn_reword(f, k);
    }
  }
  Py_DECREF(t);
  v->s = (char *)buf;
  v->n = n;
  return 0;
}

static int gd_fn_arg(gd_state *st, gd_fn *f, int k, PyObject *o, gd_fn_val *v, PyObject **tmp, int64_t *dims,
                     int64_t **heap, int *owned) {
  v->kind = f->d.kinds[k];
  switch (f->d.kinds[k]) {
    case GD_FN_ARRAY:
      return gd_fn_array(st, f, k, o, v, tmp, dims, owned);
    case GD_FN_INT: {
      if (PyFloat_Check(o) || PyUnicode_Check(o)) return gd_fn_badtype(f, k, o);
      PyObject *x = PyNumber_Index(o);
      if (x == NULL) {
        PyErr_Clear();
        return gd_fn_badtype(f, k, o);
      }
      v->i = PyLong_AsLongLong(x);
      Py_DECREF(x);
      if (v->i == -1 && PyErr_Occurred()) return gd_fn_reword(f, k);
      return 0;
    }
    case GD_FN_FLOAT:
      if (PyUnicode_Check(o) || PyComplex_Check(o)) return gd_fn_badtype(f, k, o);
      v->f = PyFloat_AsDouble(o);
      if (v->f == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return gd_fn_badtype(f, k, o);
      }
      return 0;
    case GD_FN_BOOL: {
      if (!gd_bool_like(o)) return gd_fn_badtype(f, k, o);
      int b = PyObject_IsTrue(o);
      if (b < 0) return gd_fn_reword(f, k);
      v->i = b;
      return 0;
    }
    case GD_FN_COMPLEX:
      if (PyUnicode_Check(o)) return gd_fn_badtype(f, k, o);
      if (gd_as_complex(o, &v->f, &v->im) < 0) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) return gd_fn_reword(f, k);
        PyErr_Clear();
        return gd_fn_badtype(f, k, o);
      }
      return 0;
    case GD_FN_STRING: {
      if (!PyUnicode_Check(o)) return gd_fn_badtype(f, k, o);
      Py_ssize_t n;
      const char *s = PyUnicode_AsUTF8AndSize(o, &n);
      if (s == NULL) return gd_fn_reword(f, k);
      v->s = (char *)s;
      v->n = n;
      return 0;
    }
    case GD_FN_INTS:
      return gd_fn_ints(f, k, o, v, dims, heap);
  }
  gd_errf(GD_E_INTERNAL, "%s: unknown parameter kind %d", f->entry, (int)f->d.kinds[k]);
  return -1;
}

/* One result as a Python object; consumes what the slot holds. */
static PyObject *gd_fn_result(gd_state *st, gd_fn_val *r) {
  PyObject *o = NULL;
  switch (r->kind) {
    case 0:
      Py_RETURN_NONE;
    case GD_FN_ARRAY:
      r->kind = 0;
      return gd_array_new(st, &r->h, r->shape, r->strides); /* steals the reference */
    case GD_FN_INT:
      return PyLong_FromLongLong(r->i);
    case GD_FN_BOOL:
      return PyBool_FromLong((long)r->i);
    case GD_FN_FLOAT:
      return PyFloat_FromDouble(r->f);
    case GD_FN_COMPLEX:
      return PyComplex_FromDoubles(r->f, r->im);
    case GD_FN_STRING:
      o = PyUnicode_FromStringAndSize(r->s, (Py_ssize_t)r->n);
      free(r->s);
      r->kind = 0;
      return o;
    case GD_FN_INTS: {
      int64_t *v = (int64_t *)r->s;
      o = PyTuple_New((Py_ssize_t)r->n);
      for (int64_t i = 0; o != NULL && i < r->n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (x == NULL) {
          Py_CLEAR(o);
          break;
        }
        PyTuple_SetItem(o, (Py_ssize_t)i, x);
      }
      free(r->s);
      r->kind = 0;
      return o;
    }
  }
  gd_errf(GD_E_INTERNAL, "godlpack: unknown result kind");
  return NULL;
}

/* Drops the owner reference an imported argument held for the call: the
 * producer's deleter runs here unless Go retained the array. A foreign
 * deleter may run Python code: an exception in flight is kept apart, as
 * when an Array dies (gd_array_dealloc). */
static void gd_fn_unown(gd_header *h) {
  gd_owner *o = h->owner;
  h->owner = NULL;
  if (o->kind == GD_OWN_FREE && o->free_fn == gd_fn_obj_release && gd_owner_refs(o) == 1 && !PyErr_Occurred()) {
    /* an ndarray argument Go did not keep: the GIL is held here */
    Py_DECREF((PyObject *)o->ptr);
    if (gd_fn_spare == NULL) gd_fn_spare = o;
    else free(o);
    return;
  }
  PyObject *et, *ev, *etb;
  PyErr_Fetch(&et, &ev, &etb);
  gd_owner_decref(o);
  PyErr_Restore(et, ev, etb);
}

/* Frees what result slots still hold (an error after Go wrote them). */
static void gd_fn_drop(gd_fn_val *res, int n) {
  for (int k = 0; k < n; k++) {
    if (res[k].kind == GD_FN_ARRAY) gd_owner_decref(res[k].h.owner);
    if (res[k].kind == GD_FN_STRING || res[k].kind == GD_FN_INTS) free(res[k].s);
    res[k].kind = 0;
  }
}

static PyObject *gd_fn_call(int idx, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (idx < 0 || idx >= gd_nfns || gd_fns[idx] == NULL) {
    gd_errf(GD_E_INTERNAL, "godlpack: unknown Go function");
    return NULL;
  }
  gd_fn *f = gd_fns[idx];
  gd_state *st = f->st;
  if (st == NULL || st->array_type == NULL) {
    gd_errf(GD_E_INTERNAL, "%s: the module was finalised (interpreter shutdown); call it before", f->entry);
    return NULL;
  }
  int np = f->d.nparams;
  PyObject *given[GD_FN_MAX_PARAMS] = {NULL};
  if (nargs > np) {
    gd_errf(GD_E_ARG_TYPE, "%s takes %d argument%s but %zd were given", f->entry, np, np == 1 ? "" : "s",
                 nargs);
    return NULL;
  }
  for (Py_ssize_t i = 0; i < nargs; i++) given[i] = args[i];
  Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
  for (Py_ssize_t j = 0; j < nkw; j++) {
    PyObject *key = PyTuple_GetItem(kwnames, j);
    int k = 0;
    for (; k < np; k++)
      if (key == f->names[k]) break;
    if (k == np)
      for (k = 0; k < np; k++)
        if (PyUnicode_Compare(key, f->names[k]) == 0) break;
    if (k == np) {
      gd_errf(GD_E_ARG_TYPE, "%s got an unexpected keyword argument '%U'", f->entry, key);
      return NULL;
    }
    if (given[k] != NULL) {
      gd_errf(GD_E_ARG_TYPE, "%s got multiple values for argument '%s'", f->entry, f->d.names[k]);
      return NULL;
    }
    given[k] = args[nargs + j];
  }
  gd_fn_val vals[GD_FN_MAX_PARAMS];
  PyObject *tmps[GD_FN_MAX_PARAMS] = {NULL};
  int owned[GD_FN_MAX_PARAMS] = {0};
  int64_t dims[GD_FN_MAX_PARAMS][2 * GD_MAX_NDIM]; /* an array's shape and strides, or ints */
  int64_t *heaps[GD_FN_MAX_PARAMS] = {NULL};
  PyObject *result = NULL;
  int k = 0;
  for (; k < np; k++) {
    vals[k].kind = 0; /* each kind writes the fields Go reads for it */
    if (given[k] == NULL) {
      if (!f->d.optional[k]) {
        gd_errf(GD_E_ARG_TYPE, "%s missing required argument '%s'", f->entry, f->d.names[k]);
        goto done;
      }
      continue; /* kind 0: Go uses the default */
    }
    if (gd_fn_arg(st, f, k, given[k], &vals[k], &tmps[k], dims[k], &heaps[k], &owned[k]) < 0) goto done;
  }
  {
    int nr = f->d.nresults;
    gd_fn_val res[GD_FN_MAX_RESULTS];
    int64_t rdims[GD_FN_MAX_RESULTS][2 * GD_MAX_NDIM];
    for (int r = 0; r < nr; r++) {
      res[r].kind = 0; /* Go writes the fields of the kind it sets */
      res[r].shape = rdims[r];
      res[r].strides = rdims[r] + GD_MAX_NDIM;
    }
    char msg[GD_MSG_CAP];
    msg[0] = '\0';
    int64_t handle = 0;
    PyThreadState *ts = f->d.quick ? NULL : PyEval_SaveThread();
    int cls = gd_go_fn_call((int)idx, vals, np, res, GD_FN_WAIT_MS, &handle, f->entry, msg);
    if (ts != NULL) PyEval_RestoreThread(ts);
    int interrupted = 0;
    while (cls == GD_FN_PENDING) {
      if (!interrupted && PyErr_CheckSignals() < 0) interrupted = 1; /* KeyboardInterrupt is set */
      ts = PyEval_SaveThread();
      cls = gd_go_fn_wait(handle, GD_FN_WAIT_MS, interrupted, res, f->entry, msg);
      PyEval_RestoreThread(ts);
    }
    if (interrupted) {
      if (cls == GD_OK) gd_fn_drop(res, nr);
      goto done; /* the signal's exception */
    }
    if (cls != GD_OK) {
      gd_raise(cls, msg);
      goto done;
    }
    if (nr == 0) {
      result = Py_None;
      Py_INCREF(result);
    } else if (!f->d.tuple) {
      result = gd_fn_result(st, &res[0]);
    } else {
      result = PyTuple_New(nr);
      for (int r = 0; r < nr; r++) {
        PyObject *x = result ? gd_fn_result(st, &res[r]) : NULL;
        if (x == NULL) {
          Py_CLEAR(result);
          continue;
        }
        PyTuple_SetItem(result, r, x);
      }
    }
    gd_fn_drop(res, nr);
  }
done:
  for (int j = 0; j < np; j++) {
    if (owned[j]) gd_fn_unown(&vals[j].h);
    Py_XDECREF(tmps[j]);
    free(heaps[j]);
  }
  return result;
}
