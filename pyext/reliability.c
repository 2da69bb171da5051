//go:build pyext

/* reliability.c: chunked long copies/fills (Ctrl-C), fork-child mode, test
 * hooks for panics. See reliability.h and reliability.go. */
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"
#include "reliability.h"

int gd_in_fork_child = 0;
static long gd_fork_child_errors = 0;

/* ------------------------------------------------------------------ */
/* chunked copy / fill                                                */

static int gd_cpu_like(DLDevice d) {
  return d.device_type == kDLCPU || d.device_type == kDLCUDAHost || d.device_type == kDLCUDAManaged ||
         d.device_type == kDLROCMHost;
}

int64_t gd_chunk_bytes(void) {
  static int64_t bytes = 0;
  if (bytes == 0) {
    int64_t mib = GD_CHUNK_MIB;
    const char *env = getenv("GODLPACK_CHUNK_MIB");
    if (env != NULL && atol(env) > 0 && atol(env) <= 65536) mib = atol(env);
    bytes = mib << 20;
  }
  return bytes;
}

int gd_chunk_eligible(const gd_header *h, const int64_t *shape) {
  if (h->ndim < 1 || !gd_cpu_like(h->device)) return 0;
  if ((int64_t)h->dtype.bits * h->dtype.lanes < 8) return 0; /* sub-byte: one Go call */
  int64_t is = gd_itemsize(h->dtype);
  if (is == 0) return 0;
  int64_t n = is;
  for (int32_t i = 0; i < h->ndim; i++) {
    if (shape[i] == 0) return 0;
    if (n > gd_chunk_bytes()) continue; /* already big; avoid overflow */
    n *= shape[i];
  }
  return n > gd_chunk_bytes();
}

typedef struct {
  int fill;              /* 0: copy src -> dst; 1: fill dst with elem */
  gd_header dst;         /* offset moves per chunk */
  const int64_t *dstr;
  gd_header src;
  const int64_t *sstr;
  const int64_t *shape;  /* full shape */
  int64_t sub[GD_MAX_NDIM];
  const void *elem;
  int64_t itemsize;
  char msg[GD_MSG_CAP];
} gd_chunker;

/* One Go call on the current sub-block, GIL released; then signals. */
static int gd_chunk_call(gd_chunker *c) {
  int cls;
  c->msg[0] = '\0';
  PyThreadState *ts = PyEval_SaveThread();
  if (c->fill)
    cls = gdgo_fill(&c->dst, c->sub, (int64_t *)c->dstr, (void *)c->elem, c->msg);
  else
    cls = gdgo_copy_into(&c->dst, (int64_t *)c->dstr, &c->src, c->sub, (int64_t *)c->sstr, c->msg);
  PyEval_RestoreThread(ts);
  if (cls != GD_OK) return gd_err_from(cls, c->msg);
  return PyErr_CheckSignals();
}

static int gd_chunk_rec(gd_chunker *c, int32_t k) {
  int32_t nd = c->dst.ndim;
  int64_t row = c->itemsize;
  for (int32_t j = k + 1; j < nd; j++) row *= c->shape[j];
  int64_t d0 = c->dst.offset, s0 = c->src.offset;
  int64_t n = c->shape[k];
  if (row <= gd_chunk_bytes() || k == nd - 1) {
    int64_t rows = row > 0 ? gd_chunk_bytes() / row : n;
    if (rows < 1) rows = 1;
    for (int64_t i = 0; i < n; i += rows) {
      c->sub[k] = (n - i < rows) ? n - i : rows;
      c->dst.offset = d0 + i * c->dstr[k];
      if (!c->fill) c->src.offset = s0 + i * c->sstr[k];
      if (gd_chunk_call(c) < 0) return -1;
    }
  } else {
    c->sub[k] = 1;
    for (int64_t i = 0; i < n; i++) {
      c->dst.offset = d0 + i * c->dstr[k];
      if (!c->fill) c->src.offset = s0 + i * c->sstr[k];
      if (gd_chunk_rec(c, k + 1) < 0) return -1;
    }
  }
  c->dst.offset = d0;
  c->src.offset = s0;
  c->sub[k] = n;
  return 0;
}

static void gd_chunker_init(gd_chunker *c, const gd_array *a) {
  memset(c, 0, sizeof(*c));
  c->shape = GD_SHAPE(a);
  c->itemsize = gd_itemsize(a->h.dtype);
  for (int32_t j = 0; j < a->h.ndim; j++) c->sub[j] = c->shape[j];
}

PyObject *gd_copy_chunked(PyObject *self) {
  gd_array *a = (gd_array *)self;
  gd_chunker *c = PyMem_Malloc(sizeof(gd_chunker));
  if (c == NULL) return PyErr_NoMemory();
  gd_chunker_init(c, a);
  gd_header out;
  int64_t ostrides[GD_MAX_NDIM];
  int cls = gdgo_alloc(a->h.dtype, a->h.ndim, GD_SHAPE(a), NULL, &out, ostrides, c->msg);
  if (cls != GD_OK) {
    gd_raise(cls, c->msg[0] ? c->msg : "copy(): allocation failed");
    PyMem_Free(c);
    return NULL;
  }
  c->fill = 0;
  c->dst = out;
  c->dstr = ostrides;
  c->src = a->h;
  c->sstr = GD_STRIDES(a);
  int rc = gd_chunk_rec(c, 0);
  PyMem_Free(c);
  if (rc < 0) {
    gd_owner_decref(out.owner);
    return NULL;
  }
  return gd_array_new(gd_state_of_type(Py_TYPE(self)), &out, GD_SHAPE(a), ostrides);
}

PyObject *gd_fill_chunked(PyObject *self, const void *elem) {
  gd_array *a = (gd_array *)self;
  gd_chunker *c = PyMem_Malloc(sizeof(gd_chunker));
  if (c == NULL) return PyErr_NoMemory();
  gd_chunker_init(c, a);
  c->fill = 1;
  c->dst = a->h;
  c->dstr = GD_STRIDES(a);
  c->elem = elem;
  int rc = gd_chunk_rec(c, 0);
  PyMem_Free(c);
  if (rc < 0) return NULL;
  Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ */
/* fork                                                               */

#define GD_FORK_HINT                                                                               \
  "godlpack: this process was forked after godlpack started Go; the Go runtime cannot run its " \
  "garbage collector or start threads in a forked child. Use the 'spawn' or 'forkserver' start " \
  "method (multiprocessing.get_context(\"forkserver\"))"

PyObject *gd_fork_child_error(void) {
  if (!gd_in_fork_child) return NULL;
  if (++gd_fork_child_errors <= GD_FORK_ERROR_BUDGET) return NULL;
  PyErr_SetString(PyExc_RuntimeError, GD_FORK_HINT " (error budget of the forked child exhausted)");
  return Py_None; /* any non-NULL: "raised" */
}

/* os.register_at_fork(after_in_child=...): pure C flag + one Go call that
 * allocates nothing (serial kernels, GC off). */
PyObject *gd_mod_after_fork_child(PyObject *m, PyObject *unused) {
  gd_in_fork_child = 1;
  gd_fork_child_errors = 0;
  gdgo_after_fork();
  Py_RETURN_NONE;
}

PyObject *gd_mod_in_fork_child(PyObject *m, PyObject *unused) { return PyBool_FromLong(gd_in_fork_child); }

/* ------------------------------------------------------------------ */
/* test hooks                                                         */

PyObject *gd_mod_test_panic(PyObject *m, PyObject *unused) {
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  int cls = gdgo_test_panic(msg);
  if (cls != GD_OK) return gd_raise(cls, msg);
  Py_RETURN_NONE;
}

PyObject *gd_mod_test_go_gc(PyObject *m, PyObject *unused) {
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  int cls = gdgo_test_gc(msg);
  if (cls != GD_OK) return gd_raise(cls, msg);
  Py_RETURN_NONE;
}
