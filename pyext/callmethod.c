//go:build pyext

/* callmethod.c: obj.name(*args, **kw) for the skin's calls into Python
 * (__dlpack__, torch's is_conj/is_neg), within the abi3 contract.
 *
 * PyObject_VectorcallMethod calls a method without a bound-method object or
 * a kwargs dict; it is public C API since 3.9 and joined the stable ABI in
 * 3.12. The wheel is tagged cp311-abi3, so the .so keeps no link-time
 * reference to it (abi3audit checks): it is looked up once at module load
 * with dlsym, which finds it in every CPython since 3.9 (3.11 included, where
 * it is public but not yet stable ABI). An interpreter that does not export
 * it (an embedding that hides its symbols) gets PyObject_GetAttr +
 * PyObject_Call, which the 3.11 limited API offers and which costs about
 * twice as much per __dlpack__ call. */
#include <dlfcn.h>
#include <stdlib.h>

#include "skin.h"

typedef PyObject *(*gd_vectorcall_method_fn)(PyObject *name, PyObject *const *args, size_t nargsf,
                                             PyObject *kwnames);

static gd_vectorcall_method_fn gd_vectorcall_method;

void gd_call_method_init(void) {
  if (getenv("GODLPACK_NO_VECTORCALL_METHOD") == NULL)  /* tests: the fallback path */
    gd_vectorcall_method = (gd_vectorcall_method_fn)dlsym(RTLD_DEFAULT, "PyObject_VectorcallMethod");
}

/* The keywords dict of the last 3.11 call, kept while the next call passes
 * the same kwnames tuple and values: every __dlpack__ call passes
 * max_version=(1, 3), and building that dict each time doubled the cost of
 * an exchange. Before reuse each key is checked to still map to the same
 * value, so a callee that kept and changed the dict gets a fresh one. The
 * GIL guards it. */
static PyObject *gd_kw_names, *gd_kw_dict;

static int gd_kw_dict_holds(PyObject *kwnames, PyObject *const *values, Py_ssize_t nkw) {
  if (gd_kw_dict == NULL || kwnames != gd_kw_names || PyDict_Size(gd_kw_dict) != nkw) return 0;
  for (Py_ssize_t i = 0; i < nkw; i++)
    if (PyDict_GetItem(gd_kw_dict, PyTuple_GetItem(kwnames, i)) != values[i]) return 0;
  return 1;
}

static PyObject *gd_kw_dict_for(PyObject *kwnames, PyObject *const *values, Py_ssize_t nkw) {
  if (gd_kw_dict_holds(kwnames, values, nkw)) {
    Py_INCREF(gd_kw_dict);
    return gd_kw_dict;
  }
  PyObject *kw = PyDict_New();
  if (kw == NULL) return NULL;
  for (Py_ssize_t i = 0; i < nkw; i++)
    if (PyDict_SetItem(kw, PyTuple_GetItem(kwnames, i), values[i]) < 0) {
      Py_DECREF(kw);
      return NULL;
    }
  Py_INCREF(kwnames);
  GD_SETREF(gd_kw_names, kwnames);
  Py_INCREF(kw);
  GD_SETREF(gd_kw_dict, kw);
  return kw;
}

/* The 3.11 path: a bound method, a tuple of the positional arguments after
 * self and a dict of the keywords. */
static PyObject *gd_call_method_slow(PyObject *name, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *meth = PyObject_GetAttr(args[0], name);
  if (meth == NULL) return NULL;
  PyObject *pos = PyTuple_New(nargs - 1), *kw = NULL, *r = NULL;
  if (pos == NULL) goto done;
  for (Py_ssize_t i = 1; i < nargs; i++) {
    Py_INCREF(args[i]);
    PyTuple_SetItem(pos, i - 1, args[i]);
  }
  Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_Size(kwnames);
  if (nkw > 0 && (kw = gd_kw_dict_for(kwnames, args + nargs, nkw)) == NULL) goto done;
  r = PyObject_Call(meth, pos, kw);
done:
  Py_DECREF(meth);
  Py_XDECREF(pos);
  Py_XDECREF(kw);
  return r;
}

PyObject *gd_call_method(PyObject *name, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
  if (gd_vectorcall_method != NULL) return gd_vectorcall_method(name, args, nargsf, kwnames);
  return gd_call_method_slow(name, args, (Py_ssize_t)(nargsf & ~GD_VECTORCALL_ARGUMENTS_OFFSET), kwnames);
}

/* _native._vectorcall_method(): whether method calls go through
 * PyObject_VectorcallMethod (for tests: abi3_smoke.py checks both paths). */
PyObject *gd_mod_vectorcall_method(PyObject *m, PyObject *unused) {
  return PyBool_FromLong(gd_vectorcall_method != NULL);
}
