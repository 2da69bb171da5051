//go:build pyext

/* arith.c: a + b, a * b, -a, a @ b, ... on godlpack.Array raise a
 * TypeError that names the way out (numpy or torch compute on the same
 * memory, zero-copy), instead of Python's bare "unsupported operand".
 *
 * The slots keep Python's dispatch: with an Array on the left and another
 * type on the right, that type's own slot is tried first (what Python would
 * do after a NotImplemented), so np_array + a and a + np_array still give
 * numpy's answer; only when it declines too does the refusal come. Pure C:
 * no Go, also in a forked child. */
#include "arith.h"

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
    PyErr_Format(PyExc_TypeError, "%s: unsupported operand types '%U' and '%U'; " GD_NO_ARITH, entry, lv, lw);
  Py_XDECREF(lv);
  Py_XDECREF(lw);
  return NULL;
}

/* v op w (z: pow's modulus). self_fn is this slot's function: the operand
 * whose type has it is the Array. */
static PyObject *gd_binary(int slot, void *self_fn, const char *entry, PyObject *v, PyObject *w, PyObject *z) {
  if (PyType_GetSlot(Py_TYPE(v), slot) == self_fn) {
    void *f = PyType_GetSlot(Py_TYPE(w), slot);
    if (f != NULL && f != self_fn) { /* the reflected operation Python would try next */
      PyObject *r = slot == Py_nb_power ? ((ternaryfunc)f)(v, w, z) : ((binaryfunc)f)(v, w);
      if (r != Py_NotImplemented) return r;
      Py_DECREF(r);
    }
  }
  return gd_refuse(entry, v, w);
}

#define GD_BINARY(fn, slot, entry) \
  PyObject *fn(PyObject *v, PyObject *w) { return gd_binary(slot, (void *)fn, entry, v, w, NULL); }

GD_BINARY(gd_nb_add, Py_nb_add, "+")
GD_BINARY(gd_nb_subtract, Py_nb_subtract, "-")
GD_BINARY(gd_nb_multiply, Py_nb_multiply, "*")
GD_BINARY(gd_nb_remainder, Py_nb_remainder, "%")
GD_BINARY(gd_nb_divmod, Py_nb_divmod, "divmod()")
GD_BINARY(gd_nb_lshift, Py_nb_lshift, "<<")
GD_BINARY(gd_nb_rshift, Py_nb_rshift, ">>")
GD_BINARY(gd_nb_and, Py_nb_and, "&")
GD_BINARY(gd_nb_xor, Py_nb_xor, "^")
GD_BINARY(gd_nb_or, Py_nb_or, "|")
GD_BINARY(gd_nb_floor_divide, Py_nb_floor_divide, "//")
GD_BINARY(gd_nb_true_divide, Py_nb_true_divide, "/")
GD_BINARY(gd_nb_matrix_multiply, Py_nb_matrix_multiply, "@")

PyObject *gd_nb_power(PyObject *v, PyObject *w, PyObject *z) {
  return gd_binary(Py_nb_power, (void *)gd_nb_power, "**", v, w, z);
}

static PyObject *gd_unary(const char *entry) {
  PyErr_Format(PyExc_TypeError, "%s: " GD_NO_ARITH, entry);
  return NULL;
}

PyObject *gd_nb_negative(PyObject *v) { return gd_unary("unary -"); }
PyObject *gd_nb_positive(PyObject *v) { return gd_unary("unary +"); }
PyObject *gd_nb_absolute(PyObject *v) { return gd_unary("abs()"); }
PyObject *gd_nb_invert(PyObject *v) { return gd_unary("unary ~"); }
