/*
 * skin.h: declarations shared by the C files of the CPython skin.
 *
 * The skin is compiled against the limited API of CPython 3.11
 * (Py_LIMITED_API=0x030B0000, abi3) and never links libpython. It parses
 * arguments, builds Python objects and calls Go at most once per operation
 * through the gate of gocall.h (see bridge.h for the conventions); the
 * no-copy CPU exchanges need no call (core/glue.h, core/fastpath.c).
 */
#ifndef GODLPACK_SKIN_H_
#define GODLPACK_SKIN_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdio.h>

#include "bridge.h"
#include "errors_gen.h"
#include "godlpack.h"

/* The Array object. shape and strides (in elements) follow the fixed part as
 * a variable-size tail of 2*ndim int64 (tp_itemsize = 2*sizeof(int64_t)):
 *   dims[0 .. ndim-1]       shape
 *   dims[ndim .. 2*ndim-1]  strides
 * The object holds one reference to h.owner, released in C by tp_dealloc. */
typedef struct {
  PyObject_VAR_HEAD
  gd_header h;
  PyObject *weakrefs; /* weakref.ref(a): the list CPython keeps (tp_weaklistoffset) */
  int64_t owns;       /* 1: the first Array over a buffer godlpack allocated (GD_OWNER_CLAIMED) */
  int64_t dims[];     /* 2*ndim entries */
} gd_array;

#define GD_SHAPE(a) ((a)->dims)
#define GD_STRIDES(a) ((a)->dims + (a)->h.ndim)

/* Py_XSETREF is not in the limited API. */
#define GD_SETREF(dst, src)    \
  do {                         \
    PyObject *_gd_old = (PyObject *)(dst); \
    (dst) = (src);             \
    Py_XDECREF(_gd_old);       \
  } while (0)

/* obj.name(*args, **kw) as PyObject_VectorcallMethod takes it (args[0] is
 * obj; nargsf may carry GD_VECTORCALL_ARGUMENTS_OFFSET), within the cp311
 * abi3 contract: callmethod.c. gd_call_method_init runs once at module load. */
#define GD_VECTORCALL_ARGUMENTS_OFFSET ((size_t)1 << (8 * sizeof(size_t) - 1))
void gd_call_method_init(void);
PyObject *gd_call_method(PyObject *name, PyObject *const *args, size_t nargsf, PyObject *kwnames);

/* Per-type cache of DLPack C exchange APIs (C9): type (strong ref) -> api,
 * api NULL when the type has none. */
#define GD_API_CACHE 16
typedef struct {
  PyObject *type;
  const DLPackExchangeAPI *api;
  int torch; /* a torch.Tensor (subclass): its checks are ours to make (gd_torch_refuses) */
  int ndarray; /* exactly numpy.ndarray: a Go function may take it through the buffer protocol */
  int shadowed; /* gd_import_state.shadowed */
  /* A device type on which a tensor of this type was asked again with a
   * stream (GD_RETRY_STREAM): later ones there get the stream at once. */
  int stream_dev;
  /* C1: 1 once a call with our keywords succeeded, -1 once only a call
   * without them did (an old producer), 0 before either. */
  int kw;
} gd_api_entry;

/* The module state (gd_state) and the functions of the tables CPython is
 * given: generated from internal/gentables/pyspec. */
#include "pyspec_gen.h"

gd_state *gd_state_of_type(PyTypeObject *tp);
gd_state *gd_state_of_module(PyObject *m);

/* errors.c */
PyObject *gd_raise(int cls, const char *msg);
/* Raises what the skin checked itself as core's sentinel (GD_E_* / GD_X_* of
 * errors_gen.h) decides: its class, PyErr_Format's fmt. Returns NULL. */
PyObject *gd_errf(int sentinel, const char *fmt, ...);
int gd_class_for(int sentinel);         /* its GD_ERR_* class */
PyObject *gd_exc_for(int sentinel);     /* its exception type (borrowed) */
int gd_err_from(int cls, const char *msg); /* raises, returns -1 */
/* The exception being raised gets earlier (a reference, stolen) as its
 * __cause__ (as_cause) or its __context__. */
void gd_err_chain(PyObject *earlier, int as_cause);

/* array.c */
/* Builds an Array from h (steals the owner reference: on failure the owner
 * is released), shape and strides (copied). */
PyObject *gd_array_new(gd_state *st, const gd_header *h, const int64_t *shape,
                       const int64_t *strides);
int gd_array_check(gd_state *st, PyObject *o);
PyObject *gd_dtype_object(gd_state *st, DLDataType dt);
PyObject *gd_device_object(gd_state *st, DLDevice dev);
int64_t gd_size_of(int32_t ndim, const int64_t *shape);

/* dtype key used by the Python side: code | bits << 8 | lanes << 16 */
static inline long gd_dtype_key(DLDataType dt) {
  return (long)dt.code | ((long)dt.bits << 8) | ((long)dt.lanes << 16);
}
static inline DLDataType gd_dtype_from_key(long key) {
  DLDataType dt;
  dt.code = (uint8_t)(key & 0xff);
  dt.bits = (uint8_t)((key >> 8) & 0xff);
  dt.lanes = (uint16_t)((key >> 16) & 0xffff);
  return dt;
}
/* Bytes per element (0 for sub-byte or lanes != 1). */
static inline int64_t gd_itemsize(DLDataType dt) {
  int64_t bits = (int64_t)dt.bits * dt.lanes;
  if (bits < 8 || bits % 8 != 0) return 0;
  return bits / 8;
}

/* The GIL is released around Go calls that touch at least this many bytes
 * (copies, fills, sums): Go never calls Python, and other threads run. */
#define GD_NOGIL_BYTES ((int64_t)1 << 20)
#define GD_NOGIL_BEGIN(big) PyThreadState *_gd_ts = (big) ? PyEval_SaveThread() : NULL
#define GD_NOGIL_END() \
  if (_gd_ts != NULL) PyEval_RestoreThread(_gd_ts)

/* Whether the CPU can address the array's data: core decides it
 * (core.CPUAccessible, set as GD_FLAG_HOST by every producer of a header). */
static inline int gd_host(const gd_header *h) { return (h->flags & GD_FLAG_HOST) != 0; }

/* Bytes per element of an array: padded sub-byte data fills one byte each. */
static inline int64_t gd_array_itemsize(const gd_header *h) {
  if ((h->flags & GD_FLAG_SUBBYTE_PADDED) && (int64_t)h->dtype.bits * h->dtype.lanes < 8) return 1;
  return gd_itemsize(h->dtype);
}

/* scalar.c: one element <-> Python object. */
PyObject *gd_unpack(DLDataType dt, const void *p);
int gd_pack(DLDataType dt, PyObject *v, void *out, const char *entry); /* -1 + exception */
/* v as a complex: a Python complex, an object whose type has __complex__
 * (numpy's complex scalars), else a real number with im = 0. 0, or -1 with
 * an exception. */
int gd_as_complex(PyObject *v, double *re, double *im);
/* Whether o is a bool: Python's, or numpy's (a type named bool_ or bool). */
int gd_bool_like(PyObject *o);

/* import.c */
/* Whether type tp is of a library's kind (GD_TYPE_*, core's gd_type_facts). */
int gd_type_is(PyObject *tp, int kind);
PyObject *gd_from_dlpack_impl(gd_state *st, PyObject *x, PyObject *device, PyObject *copy, int entry_asarray);
/* from_dlpack(x)'s import without the Array: the tensor described into
 * *into (shape and strides: caller buffers of GD_MAX_NDIM), holding one
 * owner reference the caller drops with gd_owner_decref. 0, or -1 with an
 * exception (from_dlpack's). */
typedef struct gd_import_into {
  gd_header h;
  int64_t *shape;
  int64_t *strides;
} gd_import_into;
int gd_import_describe(gd_state *st, PyObject *x, gd_import_into *into);
/* Whether tp is exactly numpy.ndarray, from the imports' per-type cache. */
int gd_type_is_ndarray(gd_state *st, PyTypeObject *tp);

/* producer.c: the managed tensor in a capsule (its deleter called if that
 * fails). */
PyObject *gd_capsule_wrap(void *managed, int versioned);

/* exchange.c: our DLPackExchangeAPI (type(a).__dlpack_c_exchange_api__). */
PyObject *gd_exchange_api_capsule(gd_state *st);

/* Host memory described as an array header (owner NULL) and validated like
 * any import: the fast path of core/fastpath.c, else core.DescribeVersioned
 * (one Go call, which also sets the derived flags and words every refusal
 * starting with entry). shape and strides (NULL: C-contiguous) have nd
 * entries; flags are DLPACK_FLAG_BITMASK_* bits; oshape and ostrides hold
 * GD_MAX_NDIM. 0, or -1 with an exception. (module.c) */
int gd_describe_host(void *data, DLDataType dt, int32_t nd, int64_t *shape, int64_t *strides, uint64_t flags,
                     gd_header *h, int64_t *oshape, int64_t *ostrides, const char *entry);
/* A buffer-protocol object as an Array, zero-copy (module.c). */
PyObject *gd_from_buffer(gd_state *st, PyObject *obj);
/* The module init behind every PyInit_<name> (module.c), and the Go
 * functions of package gofunc added to the module (gofunc.c). */
PyObject *gd_module_init(const char *fullname);
int gd_gofunc_install(PyObject *m, const char *fullname);

/* arguments: copy= (producer.c), a device (module.c) */
int gd_parse_copy(PyObject *copy, int32_t *mode, const char *entry);
int gd_parse_device_pair(gd_state *st, PyObject *obj, int32_t *type, int32_t *id, const char *entry);

#endif /* GODLPACK_SKIN_H_ */
