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

/* gd_header.flags */
#define GD_FLAG_READONLY ((uint64_t)1 << 0)
#define GD_FLAG_SUBBYTE_PADDED ((uint64_t)1 << 1)

/* What an owner releases when its count reaches zero. */
enum {
  GD_OWN_NONE = 0,      /* borrowed memory: nothing to release */
  GD_OWN_FREE = 1,      /* call free_fn(ptr), e.g. a backend's C free */
  GD_OWN_LEGACY = 2,    /* ptr is a foreign DLManagedTensor: call its deleter */
  GD_OWN_VERSIONED = 3  /* ptr is a foreign DLManagedTensorVersioned */
};

/* A refcounted owner of memory. Allocated with malloc; freed by the last
 * gd_owner_decref. Every array view holds one reference, and so does every
 * DLManagedTensor(Versioned) we export. */
typedef struct gd_owner {
  int64_t refs;               /* atomic */
  int32_t kind;               /* GD_OWN_* */
  int32_t reserved;
  void *ptr;                  /* the buffer or the foreign managed tensor */
  void (*free_fn)(void *ptr); /* GD_OWN_FREE only */
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

/* Owner API (core/owner.c). gd_owner_new returns NULL when out of memory. */
gd_owner *gd_owner_new(int32_t kind, void *ptr, void (*free_fn)(void *));
void gd_owner_incref(gd_owner *o);
void gd_owner_decref(gd_owner *o);
int64_t gd_owner_refs(const gd_owner *o);

/* Deleters installed in the managed tensors we export. Each releases the
 * owner reference the export took and frees the single allocation that holds
 * the struct, its shape and its strides. Pure C, safe on any thread. */
void gd_export_deleter_legacy(DLManagedTensor *self);
void gd_export_deleter_versioned(DLManagedTensorVersioned *self);

/* Calling foreign function pointers is only possible from C. */
void gd_call_deleter_legacy(DLManagedTensor *t);
void gd_call_deleter_versioned(DLManagedTensorVersioned *t);

#endif /* GODLPACK_GODLPACK_H_ */
