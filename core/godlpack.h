/*
 * godlpack.h: the C half of godlpack's own structures, shared by core (Go + C)
 * and the CPython skin in pyext/. Go mirrors: core/header.go (gd_header),
 * core/owner.go (gd_owner), core/constants.go (names and flags). Keep in sync.
 *
 * Everything that must run without the Go runtime lives here in C: owner
 * refcounting, freeing our memory and calling foreign deleters. Deleters run on
 * any thread, in forked children and during interpreter shutdown, where Go may
 * not be usable (see ../shared/docs/go-python-notes.md).
 */
#ifndef GODLPACK_GODLPACK_H_
#define GODLPACK_GODLPACK_H_

#include "dlpack.h"

/* ---- Defined by the specification ---- */
#define GD_CAPSULE_LEGACY "dltensor"
#define GD_CAPSULE_LEGACY_USED "used_dltensor"
#define GD_CAPSULE_VERSIONED "dltensor_versioned"
#define GD_CAPSULE_VERSIONED_USED "used_dltensor_versioned"
#define GD_CAPSULE_EXCHANGE_API "dlpack_exchange_api"

/* ---- Ours ---- */

/* Largest ndim we import or create (numpy 2 uses the same bound). */
#define GD_MAX_NDIM 64

/* Alignment of every buffer we allocate. */
#define GD_ALIGNMENT 256

/* Error classes: core.Class, what a Go call returns (0: success). */
#define GD_OK 0
#define GD_ERR_BUFFER 1
#define GD_ERR_TYPE 2
#define GD_ERR_VALUE 3
#define GD_ERR_MEMORY 4
#define GD_ERR_RUNTIME 5
#define GD_ERR_INDEX 6
#define GD_ERR_OVERFLOW 7
#define GD_ERR_IMPORT 8

/* The largest DLDeviceType value (kDLTrn). */
#define GD_DEVTYPE_MAX 18

/* gd_header.flags */
#define GD_FLAG_READONLY ((uint64_t)1 << 0)
#define GD_FLAG_SUBBYTE_PADDED ((uint64_t)1 << 1)
/* Derived flags, set by core (core.Header.SetDerivedFlags) and read by the
 * skin: the CPU can address the data; C- / Fortran-contiguous layout. */
#define GD_FLAG_HOST ((uint64_t)1 << 2)
#define GD_FLAG_C_CONTIG ((uint64_t)1 << 3)
#define GD_FLAG_F_CONTIG ((uint64_t)1 << 4)

/* What an owner releases when its count reaches zero. */
enum {
  GD_OWN_NONE = 0,      /* borrowed memory: nothing to release */
  GD_OWN_FREE = 1,      /* call free_fn(ptr), e.g. a backend's C free */
  GD_OWN_LEGACY = 2,    /* ptr is a foreign DLManagedTensor: call its deleter */
  GD_OWN_VERSIONED = 3  /* ptr is a foreign DLManagedTensorVersioned */
};

/* gd_owner.marks: the memory is a buffer godlpack allocated (not a foreign
 * tensor or a borrowed buffer), and a godlpack.Array has claimed it as the
 * data it owns: the first Array made over a fresh allocation, which counts
 * the bytes in sys.getsizeof as numpy's arrays that own their data do.
 * Views share the owner and count only their header. */
#define GD_OWNER_ALLOCATED 1
#define GD_OWNER_CLAIMED 2
/* What the owner frees may run Python code: a Py_buffer's release (the skin
 * marks those); foreign deleters (GD_OWN_LEGACY/VERSIONED) count as such
 * too (numpy's and torch's take the GIL). See gd_owner_defer. */
#define GD_OWNER_PYTHON 4

/* A refcounted owner of memory. Allocated with malloc; freed by the last
 * gd_owner_decref. Every array view holds one reference, and so does every
 * DLManagedTensor(Versioned) we export. */
typedef struct gd_owner {
  int64_t refs;               /* atomic */
  int32_t kind;               /* GD_OWN_* */
  int32_t marks;              /* GD_OWNER_* bits */
  void *ptr;                  /* the buffer or the foreign managed tensor */
  void (*free_fn)(void *ptr); /* GD_OWN_FREE only */
  struct gd_owner *parked;    /* the next owner waiting for a Python thread (gd_owner_park) */
} gd_owner;

/* The fixed part of an array: everything but shape and strides. The element at
 * index (i_0, ..., i_{n-1}) lives at
 *   (char*)data + (offset + sum(i_k * strides_k)) * itemsize.
 * Go mirror: core.Header. */
typedef struct gd_header {
  void *data;       /* byte address of element offset 0; NULL allowed when empty */
  gd_owner *owner;  /* never NULL for a live array */
  int64_t offset;   /* in elements */
  DLDataType dtype;
  int32_t ndim;
  DLDevice device;
  uint64_t flags;   /* GD_FLAG_* */
} gd_header;

/* copy= keyword: core.CopyMode. */
#define GD_COPY_IF_NEEDED 0 /* None */
#define GD_COPY_ALWAYS 1    /* True */
#define GD_COPY_NEVER 2     /* False */

/* __dlpack__ keywords, already converted by the C skin (core.ExportRequest).
 * Read by the Go export (pyext/exports.go) and by gd_fast_export. */
typedef struct gd_export_req {
  uint32_t max_major;
  uint32_t max_minor;
  int32_t has_max_version;
  int32_t dl_type;
  int32_t dl_id;
  int32_t has_dl_device;
  int32_t copy; /* GD_COPY_* */
  int32_t has_stream;
  int64_t stream;
  /* in: > 0 asks Go to leave a planned copy of more than this many bytes to
   * the C skin, which copies in interruptible chunks (pyext/chunk.c)
   * and calls again with precopied set. */
  int64_t defer_copy_over;
  /* out: 1 when Go planned a copy and left it to the C skin (nothing was
   * exported). */
  int32_t copy_deferred;
  /* in: the stream is a Python object, stream is 0: 1 a dpctl.SyclQueue
   * (GD_TYPE_SYCL_QUEUE of gd_type_facts), 2 any other object */
  int32_t stream_object;
  /* in, optional: the C-contiguous copy the C skin made after Go deferred it;
   * exported instead of the array when the plan copies. The fast path never
   * copies, so it ignores these. */
  const gd_header *precopied;
  const int64_t *precopied_strides;
} gd_export_req;

/* from_dlpack keywords (core.ImportRequest); read by the Go import and by
 * gd_fast_describe. */
/* gd_import_req.retry: core.Retry. */
#define GD_RETRY_NONE 0
#define GD_RETRY_HOST_COPY 1 /* ask the producer for dl_device=(kDLCPU, 0) */
#define GD_RETRY_DLPACK 2    /* release the exchange-API tensor, use __dlpack__ */
#define GD_RETRY_STREAM 3    /* ask again with stream= godlpack's queue (core.ConsumerStream) */

typedef struct gd_import_req {
  int32_t dev_type;
  int32_t dev_id;
  int32_t has_device;
  int32_t copy;       /* GD_COPY_* */
  int32_t negotiated; /* the producer accepted dl_device/copy */
  /* in: the producer may be asked again (core.ImportRequest.MayAskHostCopy) */
  int32_t may_ask_host_copy;
  /* in: the tensor came through a C exchange API (core.ImportRequest.NoSync) */
  int32_t no_sync;
  /* out: GD_RETRY_*; the tensor was not consumed and must be asked for again */
  int32_t retry;
  /* out: 1 when Go left the planned copy to the C skin (defer_copy_over);
   * the header then describes the producer's tensor, owned. */
  int32_t copy_deferred;
  /* in: > 0 asks Go to leave a planned copy of more than this many bytes to
   * the C skin, which copies in interruptible chunks (pyext/chunk.c). */
  int64_t defer_copy_over;
  /* in: the producer may be asked again with a stream (core.ImportRequest.MayAskStream) */
  int32_t may_ask_stream;
  /* in: the producer was asked with stream= godlpack's queue on the tensor's device */
  int32_t stream_given;
} gd_import_req;

/* One basic index (core.IndexOp). */
#define GD_IDX_INT 0
#define GD_IDX_SLICE 1
#define GD_IDX_ELLIPSIS 2
#define GD_IDX_NEWAXIS 3
#define GD_MAX_INDEX_OPS (2 * GD_MAX_NDIM)

typedef struct gd_index_op {
  int32_t kind;
  int32_t has_start;
  int32_t has_stop;
  int32_t reserved;
  int64_t i;
  int64_t start;
  int64_t stop;
  int64_t step;
} gd_index_op;

/* Owner API (core/owner.c). gd_owner_new returns NULL when out of memory. */
gd_owner *gd_owner_new(int32_t kind, void *ptr, void (*free_fn)(void *));
/* Makes the malloc'ed block o an owner with one reference (the last
 * gd_owner_decref frees it). C twin of core.InitOwner. */
gd_owner *gd_owner_init(gd_owner *o, int32_t kind, void *ptr, void (*free_fn)(void *));
void gd_owner_incref(gd_owner *o);
void gd_owner_decref(gd_owner *o);
/* Releases what o owns and frees o: what the last gd_owner_decref does. */
void gd_owner_finish(gd_owner *o);
/* Set once by the CPython skin (NULL in a Go program): called by the last
 * gd_owner_decref of an owner that may run Python code (GD_OWNER_PYTHON,
 * foreign deleters); returns 1 when it took the owner to finish later on a
 * Python thread (gd_owner_finish), 0 to finish it now. A thread Python does
 * not know (a goroutine dropping an array it retained) must not take the GIL
 * itself: that races a fork on CPython 3.11. */
extern int (*gd_owner_defer)(gd_owner *o);
/* The hook's tools: gd_owner_park puts o (its last reference gone) on a
 * lock-free list, returning 1 when the caller must have gd_owner_drain run
 * (no drain is due yet); gd_owner_drain finishes every parked owner. */
int gd_owner_park(gd_owner *o);
void gd_owner_drain(void);
int64_t gd_owner_refs(const gd_owner *o);

/* Deleters installed in the managed tensors we export. Each releases the
 * owner reference the export took and frees the single allocation that holds
 * the struct, its shape and its strides. Pure C, safe on any thread. */
void gd_export_deleter_legacy(DLManagedTensor *self);
void gd_export_deleter_versioned(DLManagedTensorVersioned *self);

/* Calling foreign function pointers is only possible from C. */
void gd_call_deleter_legacy(DLManagedTensor *t);
void gd_call_deleter_versioned(DLManagedTensorVersioned *t);

/* ---- Zero-crossing fast paths (core/fastpath.c) ----
 *
 * A C->Go call costs as much as numpy's whole __dlpack__ (go-python-notes.md). The two
 * hottest operations therefore have a pure-C path for a small, clearly
 * bounded subset of requests; everything outside it, and every refusal, goes
 * through Go, which stays authoritative: the fast paths never fail and never
 * produce an error, they only say "not mine". Inside the subset they produce
 * byte for byte what the Go path produces (tests_go/fastpath_test.go,
 * FuzzFastDescribe, FuzzFastExport). */

/* Size of the one malloc'ed block holding an exported managed tensor, its
 * shape and its strides (versioned or legacy). Go mirror: core.ExportBlockSize. */
#define GD_EXPORT_BLOCK_SIZE(ndim) \
  (sizeof(DLManagedTensorVersioned) + 2 * (size_t)((ndim) > 0 ? (ndim) : 1) * sizeof(int64_t))

/* No-copy export of an array into block (GD_EXPORT_BLOCK_SIZE(h->ndim)
 * bytes, from malloc). Accepts only: copy None/False; stream None; dl_device
 * None or (kDLCPU, 0); an array on (kDLCPU, 0) that is not released; a
 * byte-sized standard dtype with lanes 1 (no sub-byte data); 0 <= ndim <=
 * GD_MAX_NDIM; a non-negative shape whose element count and whose byte offset
 * of the first element fit int64; not read-only when the export is legacy
 * (max_version None or major < 1). Then it fills block exactly as
 * core.ExportVersionedIn / ExportLegacyIn would, retains the owner once,
 * sets *versioned and returns 1. Otherwise it returns 0 and touches nothing. */
int gd_fast_export(const gd_header *h, const int64_t *shape, const int64_t *strides, const gd_export_req *req,
                   void *block, int32_t *versioned);

/* Describes a foreign managed tensor for a no-copy import. Accepts only:
 * versioned major 1 with flags within READ_ONLY | IS_COPIED, or legacy; a
 * tensor on (kDLCPU, 0); a byte-sized standard dtype with lanes 1; 0 <= ndim
 * <= GD_MAX_NDIM; a non-NULL shape (when ndim > 0) of non-negative dimensions
 * whose element count fits int64; strides given, or NULL with C-contiguous
 * strides that fit int64; byte_offset <= INT64_MAX; data non-NULL unless
 * empty; a reachable byte range that fits int64 and the address space; and a
 * request that needs no copy (device None or (kDLCPU, 0); copy None or False,
 * or True when a negotiated producer set IS_COPIED). Then h (owner NULL),
 * shape and strides are what core.DescribeVersioned / DescribeLegacy +
 * core.PlanImport give, and it returns 1. Otherwise 0 (outputs unspecified).
 * It never calls the deleter and never reads beyond what the struct
 * promises. */
int gd_fast_describe(const void *managed, int versioned, const gd_import_req *req, gd_header *h, int64_t *shape,
                     int64_t *strides);
/* gd_fast_describe of a host tensor the caller holds as plain values (a
 * buffer, a pickle's bytes, an ndarray read in place), with no request: the
 * tensor is t, its DLPack flags are flags (READ_ONLY only). The same rules,
 * without a managed struct to build first. */
int gd_fast_describe_plain(const DLTensor *t, uint64_t flags, gd_header *h, int64_t *shape, int64_t *strides);

/* 1 when core.CheckImportDevice surely accepts device=(type, id) of
 * from_dlpack, without a call into Go; 0: ask Go. */
int gd_fast_import_device(int32_t type, int32_t id);

/* Views without a call into Go (core/fastpath.c), for arrays on (kDLCPU, 0) of
 * a byte-sized standard dtype with lanes 1. Each gives exactly what core's
 * function gives (out: owner as h's, no new reference) or declines, touching
 * nothing the caller reads: every refusal, overflow and other array is Go's.
 *   gd_fast_index: core.ApplyIndex; the view's ndim, or -1.
 *   gd_fast_transpose: core.TransposeDesc (naxes 0 reverses); 1 or 0.
 *   gd_fast_reshape: core.ReshapeDesc for a C-contiguous array (one -1 in
 *     new_shape is resolved in place); 1 or 0. */
int gd_fast_index(const gd_header *h, const int64_t *shape, const int64_t *strides, const gd_index_op *ops,
                  int32_t nops, gd_header *out, int64_t *oshape, int64_t *ostrides);
int gd_fast_transpose(const gd_header *h, const int64_t *shape, const int64_t *strides, const int32_t *axes,
                      int32_t naxes, gd_header *out, int64_t *oshape, int64_t *ostrides);
int gd_fast_reshape(const gd_header *h, const int64_t *shape, const int64_t *strides, int64_t *new_shape,
                    int32_t nn, gd_header *out, int64_t *ostrides);

/* ---- operations on arrays (core/ops.go) ----------------------------------
 *
 * Every operation of the skin other than the exchange itself is one gd_op:
 * the skin fills the fields the operation reads and calls Go once
 * (gd_go_op); core.RunOp runs it and writes the result. Views (INDEX,
 * TRANSPOSE) share a's owner without a new reference; every other result
 * in out holds a new owner reference, released again by core if the
 * operation fails. out_shape and out_strides hold GD_MAX_NDIM entries. */
enum {
  GD_OP_ALLOC = 1,      /* C-contiguous array of dtype, shape ints, on device (flag: on the device a
                           copy from device goes to), filled with elem when not NULL */
  GD_OP_COPY,           /* a C-contiguous copy of a on the device its copies go to */
  GD_OP_COPY_INTO,      /* b's elements into a (shape a_shape, strides b_strides for b) */
  GD_OP_CONVERT,        /* a C-contiguous copy of a as dtype */
  GD_OP_CONVERT_INTO,   /* COPY_INTO between dtypes */
  GD_OP_FILL,           /* every element of a := elem */
  GD_OP_INDEX,          /* a[index] as a view (flag: a[index] = v is filling it) */
  GD_OP_SETITEM,        /* a[index] = elem */
  GD_OP_RESHAPE,        /* a.reshape(ints): a view or a copy; a -1 in ints is resolved in place */
  GD_OP_TRANSPOSE,      /* a.transpose(ints) (nints 0: reversed) */
  GD_OP_DESCRIBE,       /* validates the DLManagedTensorVersioned ptr over host memory into out */
  GD_OP_EXPORT_VIEW,    /* a as the DLTensor at ptr (the exchange API's no-sync view) */
  GD_OP_ALLOC_EXPORT,   /* ALLOC handed out as a DLManagedTensorVersioned in *(void **)ptr */
  GD_OP_STREAM,         /* godlpack's queue on device, as its runtime's handle, in *(void **)ptr */
  GD_OP_CHECK_DEVICE,   /* from_dlpack(device=device) can be honoured at all */
  GD_OP_COMPARE,        /* one range of a comparison of a with b or a scalar (gd_cmp_req at ptr) */
  GD_OP_REDUCE,         /* plans a reduction of a (gd_reduce_req at ptr) and, when it says run, does it all */
  GD_OP_REDUCE_CHUNK,   /* folds the block a (shape a_shape) into the accumulator b (b_strides) */
  GD_OP_REDUCE_END,     /* ends the reduction (flag: it failed or was interrupted: free what it made) */
  GD_OP_JUDGE_EXPORT,   /* the conformance checker grades one export of another library (gd_judge at ptr;
                           flag: one import, managed unused) */
  GD_OP_RESULT_TYPE,    /* out's dtype := numpy's promotion of the nints DLDataTypes at ptr (a stacked list's) */
  GD_OP_VIEW_DTYPE,     /* a's memory seen as dtype (a.view(dtype)): a view, as TRANSPOSE's */
  GD_OP_DEVICE,         /* out's device := the device the UTF-8 text at ptr names, or (nints 2) the pair in
                           ints, which the text then only names in messages (core.DeviceArg) */
};
/* GD_OP_JUDGE_EXPORT: in, a core.ExportCase as JSON, and the capsule's
 * managed tensor (NULL when the call raised); out, the results as JSON
 * (malloc'ed; the caller frees it). */
typedef struct gd_judge {
  const char *in;
  void *managed;
  char *out;
} gd_judge;
typedef struct gd_op {
  int32_t op;    /* GD_OP_* */
  int32_t flag;  /* see the operation */
  const char *entry; /* the user's entry point: every message starts with it */
  gd_header *a;
  int64_t *a_shape, *a_strides;
  gd_header *b;
  int64_t *b_shape, *b_strides;
  gd_header *out;
  int64_t *out_shape, *out_strides;
  const void *elem;
  int64_t *ints;
  int32_t nints;
  int32_t nindex;
  const gd_index_op *index;
  DLDataType dtype;
  DLDevice device;
  void *ptr;
} gd_op;

/* An element-wise comparison (GD_OP_COMPARE, core/compare.go): CPython's
 * Py_LT .. Py_GE are core.CompareOp; the other operand is an array (kind 0)
 * or a scalar (core.ScalarKind). */
enum { GD_CMP_LT = 0, GD_CMP_LE, GD_CMP_EQ, GD_CMP_NE, GD_CMP_GT, GD_CMP_GE };
enum { GD_SCALAR_BOOL = 1, GD_SCALAR_INT, GD_SCALAR_FLOAT, GD_SCALAR_COMPLEX, GD_SCALAR_OTHER };
typedef struct gd_cmp_req {
  int32_t op;   /* GD_CMP_* */
  int32_t kind; /* GD_SCALAR_*, or 0 */
  /* the scalar (core.Scalar): weak marks a Python bool/int/float/complex;
   * ints: neg, mag, big (beyond every int64 and uint64), re (as float64) */
  int32_t weak;
  int32_t neg;
  int32_t big;
  int32_t reserved;
  uint64_t mag;
  double re;
  double im;
  /* in: the result elements [start, stop) to compute (C order); the first
   * call (out->owner NULL) allocates the result and sets size */
  int64_t start;
  int64_t stop;
  int64_t size; /* out: elements of the result */
} gd_cmp_req;

/* A reduction (sum, prod, min, max, any, all, mean; core/reduce.go). The
 * request lives in C memory for the whole operation: a long reduction runs
 * as several calls (GD_OP_REDUCE, GD_OP_REDUCE_CHUNK..., GD_OP_REDUCE_END)
 * that share it. GD_RED_* are core.ReduceOp. */
enum { GD_RED_SUM = 1, GD_RED_PROD, GD_RED_MIN, GD_RED_MAX, GD_RED_ANY, GD_RED_ALL, GD_RED_MEAN };
/* core.ReduceTarget, field for field (core/ops_plans.go checks the layout). */
typedef struct gd_reduce_target {
  gd_header res; /* the result (new, or out=); unused when scalar */
  int64_t res_shape[GD_MAX_NDIM];
  int64_t res_strides[GD_MAX_NDIM];
  gd_header acc;                    /* the accumulator (res, a temporary, or scalar_area) */
  int64_t acc_strides[GD_MAX_NDIM]; /* per INPUT axis; 0 on reduced axes */
  uint8_t acc_is_res;
  uint8_t scalar; /* the result is scalar_area, of dtype res.dtype */
} gd_reduce_target;
/* Room for core.Reduction (opaque to C; core/ops_plans.go checks it fits). */
#define GD_REDUCE_PLAN_WORDS 80
typedef struct gd_reduce_req {
  /* in: the Python arguments */
  int32_t op;    /* GD_RED_* */
  int32_t all;   /* axis=None */
  int32_t naxes; /* entries of axes when !all */
  int32_t lone;  /* axis was one int, not a tuple */
  int32_t keepdims;
  int32_t has_dtype;
  DLDataType dtype;
  int32_t run; /* 1: one call plans, accumulates everything and finishes */
  int64_t axes[GD_MAX_NDIM];
  gd_header *out; /* out=, or NULL */
  int64_t *out_shape;
  int64_t *out_strides;
  /* core's state between calls */
  int64_t plan[GD_REDUCE_PLAN_WORDS];
  gd_reduce_target t;
  int64_t scalar_area[2];
} gd_reduce_req;

/* The entry point of a reduction, e.g. "sum()". */
static inline const char *gd_reduce_entry(int32_t op) {
  static const char *const names[] = {"reduce()", "sum()", "prod()", "min()", "max()", "any()", "all()", "mean()"};
  return (op >= GD_RED_SUM && op <= GD_RED_MEAN) ? names[op] : names[0];
}

/* One element as a C value (core/fastpath.c, twin of core.ConvertInto for
 * one element): the skin's scalar reads and writes without Go. */
enum { GD_ELEM_NONE = 0, GD_ELEM_BOOL, GD_ELEM_INT, GD_ELEM_UINT, GD_ELEM_REAL, GD_ELEM_COMPLEX };
/* gd_elem_write's refusals: an integer out of the dtype's range; a value of
 * the wrong kind (an integer for a float array, or the reverse) or a dtype
 * without Python values. */
enum { GD_ELEM_E_RANGE = 1, GD_ELEM_E_KIND = 2 };
typedef struct {
  int32_t kind; /* GD_ELEM_*: which fields hold the value */
  int64_t i;    /* BOOL (0 or 1), INT */
  uint64_t u;   /* UINT */
  double re, im; /* REAL (re), COMPLEX */
} gd_elem;
/* The kind of value elements of dt hold, GD_ELEM_NONE when Python has none
 * (lanes, sub-byte, opaque and unknown dtypes). */
int gd_elem_kind(DLDataType dt);
/* Reads the element at p into *e; returns e->kind. */
int gd_elem_read(DLDataType dt, const void *p, gd_elem *e);
/* Writes *e (of gd_elem_kind(dt), or INT/UINT for either integer kind) as
 * one element of dt at out: 0 or GD_ELEM_E_*. Floats round as
 * core.ConvertInto rounds (float8: as ml_dtypes). */
int gd_elem_write(DLDataType dt, const gd_elem *e, void *out);

/* The PEP 3118 format of dt (core/bufferfmt.c), NULL when a buffer cannot
 * describe it; and the dtype of a buffer's format and itemsize (native or
 * little-endian), or -1. */
const char *gd_buffer_format(DLDataType dt);
/* Arrow's C data interface format of dt (core/bufferfmt.c), NULL when Arrow
 * has no such type (complex, bfloat16, the float8/6/4 kinds); bool is "b", a
 * bitmap. */
const char *gd_arrow_format(DLDataType dt);
int gd_dtype_from_format(const char *fmt, int64_t itemsize, DLDataType *out);

/* What the skin read from a Py_buffer (core knows no Python): its fields,
 * shape and strides (in bytes) NULL where the buffer has none. */
typedef struct {
  void *buf;
  int64_t len, itemsize;
  const char *format;
  int32_t ndim;
  int32_t suboffsets; /* 1: the buffer has suboffsets */
  const int64_t *shape, *strides;
} gd_buffer_view;

/* Bytes as a host tensor (core/buffer.c): t's shape and strides point into
 * shape and strides (GD_MAX_NDIM each; NULL strides: C-contiguous). 0, or
 * -1 with the refusal in msg (cap bytes), which the skin raises as
 * ErrBufferRequest (gd_buffer_tensor) or ErrPickle (gd_bytes_tensor).
 * gd_buffer_tensor: a buffer-protocol view, for asarray(). gd_bytes_tensor:
 * nbytes bytes at data as the pickled dtype, shape dims (ndim entries) and
 * order (fortran), padded sub-byte elements one per byte when padded. */
int gd_buffer_tensor(const gd_buffer_view *v, DLTensor *t, int64_t *shape, int64_t *strides, char *msg,
                     int64_t cap);
int gd_bytes_tensor(void *data, int64_t nbytes, DLDataType dt, int32_t ndim, const int64_t *dims, int fortran,
                    int padded, DLTensor *t, int64_t *shape, int64_t *strides, char *msg, int64_t cap);

/* ---- Arrow's C data interface (core/arrow.c) ----------------------------
 *
 * The structs as the Arrow C data interface defines them (an ABI, guarded as
 * it asks), and the two exports behind the Arrow PyCapsule interface. Each
 * returns 0, or -1 with the refusal (ErrArrow) in msg, starting with entry.
 * gd_arrow_schema: the type of dt. gd_arrow_array: a 1-d host array (shape,
 * strides: ndim entries) as an ArrowArray without nulls; it shares the
 * elements (a reference to h->owner) when they lie one after the other, and
 * copies them otherwise (a stride other than 1; bool, a bitmap in Arrow). */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE
struct ArrowSchema {
  const char *format;
  const char *name;
  const char *metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema **children;
  struct ArrowSchema *dictionary;
  void (*release)(struct ArrowSchema *);
  void *private_data;
};
struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void **buffers;
  struct ArrowArray **children;
  struct ArrowArray *dictionary;
  void (*release)(struct ArrowArray *);
  void *private_data;
};
#endif /* ARROW_C_DATA_INTERFACE */
int gd_arrow_schema(const char *entry, DLDataType dt, struct ArrowSchema *out, char *msg, int64_t cap);
int gd_arrow_array(const char *entry, const gd_header *h, const int64_t *shape, const int64_t *strides,
                   struct ArrowArray *out, char *msg, int64_t cap);

/* ---- the exchange model (core/exchange.c) -------------------------------
 *
 * from_dlpack(x) as a sequence of steps. The skin sets up a gd_import_state
 * (the request and the facts it knows of x), then loops: gd_import_next
 * names the next step, the skin executes it and reports what happened in the
 * state (outcome, retry, devices), until GD_STEP_DONE. Every decision of
 * the exchange is core's; the skin holds no policy (docs/architecture.md). */
#define GD_STEP_DONE 0   /* the result (an array or a raised exception) stands */
#define GD_STEP_TAKE 1   /* import x itself, a raw capsule, with step.req */
#define GD_STEP_TORCH 2  /* check torch's refusals (gd_torch_facts) */
#define GD_STEP_API 3    /* take x through its C exchange API with step.req */
#define GD_STEP_DEVICE 4 /* ask x.__dlpack_device__() into state.pdev */
#define GD_STEP_ASK 5    /* call x.__dlpack__ with step.kw_*, import the capsule with step.req */
#define GD_STEP_RAISE 6  /* raise the producer's TypeError kept from the last call */

/* gd_import_state.outcome: what the last GD_STEP_API / GD_STEP_ASK / GD_STEP_TAKE did */
#define GD_OUT_DONE 0       /* an array, or an exception: it ends the import (the skin may return at once) */
#define GD_OUT_DECLINED 1   /* the exchange API declined the object */
#define GD_OUT_TYPE_ERROR 2 /* __dlpack__ raised TypeError (kept by the skin) */
#define GD_OUT_RETRY 3      /* core asked for the tensor again: state.retry, state.rdev */

typedef struct gd_import_state {
  /* the request */
  int32_t copy; /* GD_COPY_* */
  int32_t has_device;
  DLDevice device;
  /* what the skin knows of x */
  int32_t raw_capsule; /* x is a capsule */
  int32_t own;         /* x is a godlpack.Array */
  int32_t torch;       /* x is a torch.Tensor (gd_torch_facts) */
  int32_t has_api;     /* x's type has a C exchange API we speak */
  int32_t shadowed;    /* ... but type(x).__dlpack__ is not the one of the class that owns that API */
  int32_t kw;          /* x's type: 1 took our keywords, -1 refused them, 0 not known (C1) */
  int32_t stream_dev;  /* x's type was asked again with a stream on this device type (C8), or 0 */
  uint64_t host_copy_types; /* bit t: producers on device type t are asked for a host copy (gd_devices) */
  /* what happened */
  int32_t phase;   /* core's progress; 0 before the first step */
  DLDevice pdev;   /* after GD_STEP_DEVICE: x.__dlpack_device__(), type 0 when it has none */
  int32_t pdev_known;
  int32_t outcome; /* GD_OUT_* */
  int32_t retry;   /* with GD_OUT_RETRY: GD_RETRY_* */
  DLDevice rdev;   /* with GD_OUT_RETRY: the tensor's device */
  int32_t asked_kw; /* core's: the last __dlpack__ call carried keywords */
} gd_import_state;

typedef struct gd_import_step {
  int32_t kind; /* GD_STEP_* */
  /* GD_STEP_ASK: the keywords of the call; max_version is always (1, 3) */
  int32_t kw_max_version, kw_dl_device, kw_copy, kw_stream;
  DLDevice dl_device; /* with kw_dl_device */
  DLDevice stream_on; /* with kw_stream: godlpack's queue on this device */
  DLDevice tensor_device; /* with host_copy: where the producer's tensor lives */
  /* GD_STEP_ASK: the producer is asked for a host copy, and its BufferError is
   * a refusal of that (ErrProducer, worded with the device and the way out) */
  int32_t host_copy;
  int32_t retried; /* a second call after a TypeError: that error is the context */
  /* after a successful call: record for x's type (0: nothing) */
  int32_t note_kw;
  int32_t note_stream_dev;
  /* GD_STEP_ASK / GD_STEP_TAKE / GD_STEP_API: the import request */
  gd_import_req req;
} gd_import_step;

/* The next step of the import described by s (which it updates). */
void gd_import_next(gd_import_state *s, gd_import_step *step);

/* torch's refusals on import (its exchange API skips the checks of its
 * __dlpack__): attribute or method, and the message. A fact per row, tested
 * against the pinned torch (tests_py/test_exchange_api.py). */
typedef struct {
  const char *name;
  int32_t is_method; /* call it with no arguments */
  const char *message;
} gd_library_fact;
#define GD_TORCH_FACTS 3
extern const gd_library_fact gd_torch_facts[GD_TORCH_FACTS];

/* Libraries' types, recognised by name (the skin cannot import the library
 * to ask): a type is of kind K when its module is `module` or starts with
 * `module.` and its qualname is `qualname`, for the type itself (exact) or
 * any class of its MRO. */
#define GD_TYPE_TORCH 1      /* torch.Tensor and its subclasses: gd_torch_facts apply */
#define GD_TYPE_NDARRAY 2    /* exactly numpy.ndarray: gd_numpy_route applies */
#define GD_TYPE_SYCL_QUEUE 3 /* a dpctl.SyclQueue: a stream of a kDLOneAPI tensor (P5) */
typedef struct {
  int32_t kind;
  int32_t exact;
  const char *module;
  const char *qualname;
} gd_type_fact;
#define GD_TYPE_FACTS 5
extern const gd_type_fact gd_type_facts[GD_TYPE_FACTS];

/* numpy's fact for the Go-function route: an exact numpy.ndarray whose
 * fields the skin reads in place (pyext/gofunc.c knows numpy's C layout; no
 * buffer, no capsule) describes what its __dlpack__ would export when it is
 * writable (and does not warn on write), of a builtin bool, integer,
 * float16/32/64 or complex64/128 dtype (numpy's type number) in native byte
 * order, with every dimension longer than 1 (numpy rewrites the strides of
 * the others) and strides in whole elements. Returns 1 with out filled
 * (shape and strides in its arrays), else 0 (take __dlpack__). Tested
 * against the pinned numpy by tests_py/test_gofunc_ndarray.py. */
typedef struct {
  void *data;
  const int64_t *dims, *strides; /* nd of each, in bytes for strides */
  int32_t nd, type_num, writeable, warn_on_write;
  char byteorder; /* the dtype's: '=', '|', '<' or '>' */
} gd_numpy_fields;
typedef struct {
  void *data;
  DLDataType dtype;
  int32_t ndim;
  int64_t shape[GD_MAX_NDIM], strides[GD_MAX_NDIM];
} gd_numpy_view;
int gd_numpy_route(const gd_numpy_fields *a, gd_numpy_view *out);

/* ---- Python numbers as array elements (core/scalarkind.c) ---------------
 * What the skin reads of a number (GD_SF_*), and numpy's answer: a kind per
 * element (bool < int < float < complex; a nested sequence takes the
 * widest) and its dtype (bool, int64, float64, complex128); a number that
 * carries its own dtype (GD_SF_DTYPE: a numpy scalar, own) keeps it. */
#define GD_SF_BOOL 1u           /* a Python bool */
#define GD_SF_INT 2u            /* a Python int (not a bool) */
#define GD_SF_FLOAT 4u          /* a Python float */
#define GD_SF_COMPLEX 8u        /* a Python complex */
#define GD_SF_DTYPE 16u         /* it has a dtype godlpack knows: own */
#define GD_SF_HAS_COMPLEX 32u   /* its type has __complex__ */
#define GD_SF_HAS_INDEX 64u     /* it has __index__ */
#define GD_SF_HAS_FLOAT 128u    /* it has __float__ */
enum { GD_KIND_NONE = -1, GD_KIND_BOOL = 0, GD_KIND_INT, GD_KIND_FLOAT, GD_KIND_COMPLEX };
int gd_scalar_kind(uint32_t facts, DLDataType own);   /* GD_KIND_NONE: not a number */
int gd_dtype_kind(DLDataType dt);
DLDataType gd_kind_dtype(int kind);                    /* GD_KIND_NONE: float64, numpy's dtype of [] */
int gd_scalar_dtype(uint32_t facts, DLDataType own, DLDataType *out); /* 0, or -1: not a number */
/* Whether such a number keeps the dtype it carries (then the elements of a
 * nested sequence promote as numpy's, GD_OP_RESULT_TYPE; else by kind). */
int gd_scalar_keeps_dtype(uint32_t facts);

/* ---- arange (core/arange.c) ---------------------------------------------
 * The three numbers (start, stop, step) as the skin read them: integers
 * (ints; each hi:lo, two's complement in 128 bits; wide: one is beyond
 * that) or reals (f); the dtype asked for (has_dtype). The plan: n values
 * of dtype, computed as GD_ARANGE_I64 or _U64 (integers modulo 2**64 from
 * lo: exact), _F64 (f0 + i*fd) or _TRUNC (f0 + i*fd truncated toward zero,
 * real bounds into an integer dtype). gd_arange returns GD_OK with the
 * plan, or a GD_ERR_* class with msg (cap bytes, starting "arange(): "). */
#define GD_ARANGE_I64 0
#define GD_ARANGE_U64 1
#define GD_ARANGE_F64 2
#define GD_ARANGE_TRUNC 3
typedef struct {
  int32_t ints, wide, has_dtype;
  DLDataType dtype;
  int64_t hi[3];
  uint64_t lo[3];
  double f[3];
} gd_arange_req;
typedef struct {
  int64_t n;
  int32_t kind;
  DLDataType dtype;
  double f0, fd;
} gd_arange_plan;
int gd_arange(const gd_arange_req *r, gd_arange_plan *p, char *msg, size_t cap);

/* The first minor version of the C exchange API (the struct appeared in
 * DLPack 1.2): core.ExchangeAPIMinMinor. */
#define GD_EXCHANGE_API_MIN_MINOR 2
/* The exchange API along api's prev_api chain that godlpack speaks (C9:
 * major DLPACK_MAJOR_VERSION, minor GD_EXCHANGE_API_MIN_MINOR or later),
 * or NULL: none, or one without managed_tensor_from_py_object_no_sync. The
 * skin found api on the producer's type; the decision is here. */
const DLPackExchangeAPI *gd_exchange_api_spoken(const DLPackExchangeAPI *api);

/* ---- Go functions registered with package gofunc (gofunc/cabi.go, the
 * skin's gofunc.c). GD_FN_* kinds are gofunc.Kind, checked there. ---- */
#define GD_FN_ARRAY 1
#define GD_FN_INT 2
#define GD_FN_FLOAT 3
#define GD_FN_BOOL 4
#define GD_FN_COMPLEX 5
#define GD_FN_STRING 6
#define GD_FN_INTS 7
#define GD_FN_CONTEXT 8

#define GD_FN_MAX_PARAMS 8 /* gofunc.MaxParams */
#define GD_FN_MAX_RESULTS 3 /* gofunc.MaxResults */

/* Returned by gd_go_fn_call / gd_go_fn_wait while a function that takes a
 * context.Context still runs: the skin checks signals and waits again. */
#define GD_FN_PENDING 100

/* One argument or result. kind 0: an omitted optional argument, or a None
 * result (a nil array). */
typedef struct gd_fn_val {
  int32_t kind;
  int32_t reserved;
  int64_t i;        /* int; bool 0/1 */
  double f;         /* float; complex: real part */
  double im;        /* complex: imaginary part */
  char *s;          /* string bytes (in: borrowed UTF-8; out: malloc'ed, freed by the skin);
                       ints: int64_t * (in: borrowed; out: malloc'ed) */
  int64_t n;        /* bytes of s, or number of ints */
  gd_header h;      /* array. in: borrowed for the call; out: holds a new owner reference */
  int64_t *shape;   /* array. in: ndim entries; out: the skin's buffer of GD_MAX_NDIM */
  int64_t *strides;
} gd_fn_val;

/* A registered function as the module shows it (strings are C memory that
 * lives as long as the process). */
typedef struct gd_fn_desc {
  char *name;
  char *doc;    /* with its __text_signature__ line */
  char *module; /* NULL: a function of the extension module; else of this kit module (gofunc.Home) */
  int32_t nparams;
  int32_t nresults;
  int32_t tuple;
  int32_t context;
  int32_t quick; /* gofunc.Quick(): the GIL stays held during the call */
  int32_t kinds[GD_FN_MAX_PARAMS];
  int32_t optional[GD_FN_MAX_PARAMS];
  char *names[GD_FN_MAX_PARAMS];
  int32_t rkinds[GD_FN_MAX_RESULTS];
} gd_fn_desc;

/* ---- long operations in interruptible chunks (chunk.c) ----
 * Copies, fills, conversions and reductions bigger than gd_chunk_bytes()
 * bytes (default GD_CHUNK_MIB MiB; environment variable GODLPACK_CHUNK_MIB,
 * read once) on CPU arrays of byte-sized elements run as one Go call per
 * chunk; the skin re-takes the GIL and checks for Ctrl-C between chunks. */
#define GD_CHUNK_MIB 32
int64_t gd_chunk_bytes(void);
/* 1 when an operation over shape on h is long enough to chunk, else 0 (one
 * Go call does it all). */
int gd_chunk_eligible(const gd_header *h, const int64_t *shape);
/* 1 when elem, one element of dt, is all zero bytes: an array filled with
 * it is allocated zeroed (pages untouched, core.RunOp's GD_OP_ALLOC), with
 * no fill to chunk. */
int gd_fill_is_zero(DLDataType dt, const void *elem);
/* The chunks of an nd-dimensional operation with elements of itemsize
 * bytes: gd_chunks_next writes the next chunk's shape into sub and returns
 * 1, or 0 after the last; gd_chunks_offset is the element offset of its
 * first element in a layout of the given strides. Every element is in
 * exactly one chunk, in C order of the chunks. */
typedef struct {
  int32_t nd, k;            /* axes before k are walked one index at a time, k in runs */
  int32_t started, done;
  int64_t run;              /* indices of axis k per chunk */
  const int64_t *shape;
  int64_t idx[GD_MAX_NDIM]; /* the chunk's first index on axes 0..k */
} gd_chunks;
void gd_chunks_init(gd_chunks *c, int32_t nd, const int64_t *shape, int64_t itemsize);
int gd_chunks_next(gd_chunks *c, int64_t *sub);
int64_t gd_chunks_offset(const gd_chunks *c, const int64_t *strides);

/* ---- the conformance checker's counting deleters (probe.c) ----
 * A probe of a managed tensor (versioned: DLManagedTensorVersioned, else
 * DLManagedTensor) is a copy whose deleter counts its calls in *calls and
 * runs the original's on the first; NULL without memory. */
void *gd_probe_new(void *orig, int versioned, int64_t **calls);
int64_t gd_probe_calls(const int64_t *calls);
/* The tensor's deleter replaced in place by a counting trampoline (NULL: it
 * has no deleter, or no memory); the count for gd_probe_calls. */
int64_t *gd_probe_patch(void *managed, int versioned);

#endif /* GODLPACK_GODLPACK_H_ */
