//go:build pyext

/* arrow.c: the Arrow PyCapsule interface of godlpack.Array. What the structs
 * hold is core's (core/arrow.c); here they go into capsules named as the
 * interface says. A consumer moves a struct out and marks it released; a
 * capsule still holding one releases it when it dies. */
#include <stdlib.h>

#include "array.h"
#include "skin.h"

static void gd_arrow_schema_capsule_free(PyObject *cap) {
  struct ArrowSchema *s = (struct ArrowSchema *)PyCapsule_GetPointer(cap, "arrow_schema");
  if (s != NULL && s->release != NULL) s->release(s);
  free(s);
}

static void gd_arrow_array_capsule_free(PyObject *cap) {
  struct ArrowArray *a = (struct ArrowArray *)PyCapsule_GetPointer(cap, "arrow_array");
  if (a != NULL && a->release != NULL) a->release(a);
  free(a);
}

static PyObject *gd_arrow_schema_capsule(const char *entry, DLDataType dt) {
  char msg[GD_MSG_CAP];
  struct ArrowSchema *s = (struct ArrowSchema *)malloc(sizeof *s);
  if (s == NULL) return gd_errf(GD_E_NO_MEMORY, "%s: out of memory", entry);
  if (gd_arrow_schema(entry, dt, s, msg, sizeof msg) < 0) {
    free(s);
    return gd_errf(GD_E_ARROW, "%s", msg);
  }
  PyObject *cap = PyCapsule_New(s, "arrow_schema", gd_arrow_schema_capsule_free);
  if (cap == NULL) free(s); /* its release frees nothing */
  return cap;
}

/* __arrow_c_schema__(): the type of the elements. */
PyObject *gd_array_arrow_c_schema(PyObject *self, PyObject *unused) {
  return gd_arrow_schema_capsule("__arrow_c_schema__()", ((gd_array *)self)->h.dtype);
}

/* __arrow_c_array__(requested_schema=None): (schema, array) capsules. A
 * requested schema is a wish the interface lets a producer decline: the
 * consumer casts what it gets (pyarrow does). */
PyObject *gd_array_arrow_c_array(PyObject *self, PyObject *args, PyObject *kw) {
  static const char entry[] = "__arrow_c_array__()";
  static char *names[] = {"requested_schema", NULL};
  PyObject *requested = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:__arrow_c_array__", names, &requested)) return NULL;
  gd_array *a = (gd_array *)self;
  char msg[GD_MSG_CAP];
  struct ArrowArray *arr = (struct ArrowArray *)malloc(sizeof *arr);
  if (arr == NULL) return gd_errf(GD_E_NO_MEMORY, "%s: out of memory", entry);
  if (gd_arrow_array(entry, &a->h, GD_SHAPE(a), GD_STRIDES(a), arr, msg, sizeof msg) < 0) {
    free(arr);
    return gd_errf(GD_E_ARROW, "%s", msg);
  }
  PyObject *acap = PyCapsule_New(arr, "arrow_array", gd_arrow_array_capsule_free);
  if (acap == NULL) {
    arr->release(arr);
    free(arr);
    return NULL;
  }
  PyObject *scap = gd_arrow_schema_capsule(entry, a->h.dtype);
  PyObject *r = scap != NULL ? PyTuple_Pack(2, scap, acap) : NULL;
  Py_XDECREF(scap);
  Py_DECREF(acap);
  return r;
}
