//go:build pyext

/* errors.c: the one mapping from core.Class (bridge.h GD_ERR_*) to Python
 * exceptions. Keep in sync with core/errors.go. */
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

int gd_err_from(int cls, const char *msg) {
  gd_raise(cls, msg);
  return -1;
}
