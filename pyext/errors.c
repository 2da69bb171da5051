//go:build pyext

/* errors.c: the one mapping from core.Class (bridge.h GD_ERR_*, checked
 * against core/errors.go at build time) to Python exceptions, and the one
 * place the skin raises what it checks itself: by core's sentinel number
 * (errors_gen.h), so that the class is core's. */
#include <stdarg.h>

#define GD_SENTINEL_CLASSES
#include "skin.h"
#include "fork.h"

static PyObject *gd_exc_of(int cls) {
  switch (cls) {
    case GD_ERR_BUFFER:
      return PyExc_BufferError;
    case GD_ERR_TYPE:
      return PyExc_TypeError;
    case GD_ERR_VALUE:
      return PyExc_ValueError;
    case GD_ERR_MEMORY:
      return PyExc_MemoryError;
    case GD_ERR_INDEX:
      return PyExc_IndexError;
    case GD_ERR_OVERFLOW:
      return PyExc_OverflowError;
    case GD_ERR_IMPORT:
      return PyExc_ImportError;
    case GD_ERR_RUNTIME:
    default:
      return PyExc_RuntimeError;
  }
}

PyObject *gd_raise(int cls, const char *msg) {
  if (cls == GD_ERR_MEMORY && (msg == NULL || msg[0] == '\0')) return PyErr_NoMemory();
  PyErr_SetString(gd_exc_of(cls), (msg != NULL && msg[0] != '\0') ? msg : "godlpack: unknown error");
  return NULL;
}

int gd_class_for(int sentinel) {
  return sentinel >= 0 && sentinel < GD_EX_COUNT ? gd_sentinel_class[sentinel] : GD_ERR_RUNTIME;
}

PyObject *gd_exc_for(int sentinel) { return gd_exc_of(gd_class_for(sentinel)); }

PyObject *gd_errf(int sentinel, const char *fmt, ...) {
  va_list va;
  va_start(va, fmt);
  PyErr_FormatV(gd_exc_for(sentinel), fmt, va);
  va_end(va);
  return NULL;
}

void gd_err_chain(PyObject *earlier, int as_cause) {
  PyObject *t, *v, *tb;
  PyErr_Fetch(&t, &v, &tb);
  PyErr_NormalizeException(&t, &v, &tb);
  if (v != NULL && as_cause) PyException_SetCause(v, earlier); /* steals earlier */
  else if (v != NULL) PyException_SetContext(v, earlier);     /* steals earlier */
  else Py_DECREF(earlier);
  PyErr_Restore(t, v, tb);
}

int gd_err_from(int cls, const char *msg) {
  gd_raise(cls, msg);
  return -1;
}
