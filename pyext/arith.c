//go:build pyext

/* arith.c: a + b, a * b, -a, a @ b, ... on godlpack.Array raise a
 * TypeError that names the way out (numpy or torch compute on the same
 * memory, zero-copy), instead of Python's bare "unsupported operand".
 *
 * The slots keep Python's dispatch: with an Array on the left and another
 * type on the right, that type's own slot is tried first (what Python would
 * do after a NotImplemented), so np_array + a and a + np_array still give
 * numpy's answer; only when it declines too does the refusal come. The
 * slots themselves are generated (pyspec_gen.c, one row each in
 * internal/gentables/pyspec). Pure C: no Go, also in a forked child. */
#include "skin.h"

/* "godlpack.Array", "int", "numpy.ndarray": the type as Python's own
 * messages name it. A new reference, or NULL with an exception. */
static PyObject *gd_type_label(PyObject *o) {
  PyObject *tp = (PyObject *)Py_TYPE(o);
  PyObject *qual = PyType_GetQualName(Py_TYPE(o));
  if (qual == NULL) return NULL;
  PyObject *mod = PyObject_GetAttrString(tp, "__module__");
  if (mod == NULL) {
    PyErr_Clear();
    return qual;
  }
  PyObject *r = qual;
  if (PyUnicode_Check(mod) && PyUnicode_CompareWithASCIIString(mod, "builtins") != 0) {
    r = PyUnicode_FromFormat("%U.%U", mod, qual);
    Py_DECREF(qual);
  }
  Py_DECREF(mod);
  return r;
}

#define GD_NO_ARITH                                                                                 \
  "godlpack.Array does no arithmetic; compute on a zero-copy view of the same memory: "             \
  "np.from_dlpack(a) or torch.from_dlpack(a)"

static PyObject *gd_refuse(const char *entry, PyObject *v, PyObject *w) {
  PyObject *lv = gd_type_label(v);
  PyObject *lw = lv ? gd_type_label(w) : NULL;
  if (lw != NULL)
    gd_errf(GD_E_UNSUPPORTED, "%s: unsupported operand types '%U' and '%U'; " GD_NO_ARITH, entry, lv, lw);
  Py_XDECREF(lv);
  Py_XDECREF(lw);
  return NULL;
}

/* v op w (z: pow's modulus), the body of every binary slot (pyspec_gen.c).
 * self_fn is the slot's function: the operand whose type has it is the
 * Array. */
PyObject *gd_arith_binary(int slot, void *self_fn, const char *op, PyObject *v, PyObject *w, PyObject *z) {
  if (PyType_GetSlot(Py_TYPE(v), slot) == self_fn) {
    void *f = PyType_GetSlot(Py_TYPE(w), slot);
    if (f != NULL && f != self_fn) { /* the reflected operation Python would try next */
      PyObject *r = slot == Py_nb_power ? ((ternaryfunc)f)(v, w, z) : ((binaryfunc)f)(v, w);
      if (r != Py_NotImplemented) return r;
      Py_DECREF(r);
    }
  }
  return gd_refuse(op, v, w);
}

PyObject *gd_arith_unary(const char *op) {
  gd_errf(GD_E_UNSUPPORTED, "%s: " GD_NO_ARITH, op);
  return NULL;
}
