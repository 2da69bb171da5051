// Owner refcounting and the deleters of exported tensors. Pure C on purpose:
// these run wherever the last reference dies (any thread, a forked child,
// interpreter shutdown) and must never need the Go runtime.
#include <stdlib.h>

#include "godlpack.h"

gd_owner *gd_owner_new(int32_t kind, void *ptr, void (*free_fn)(void *)) {
  gd_owner *o = (gd_owner *)malloc(sizeof(gd_owner));
  if (o == NULL) return NULL;
  return gd_owner_init(o, kind, ptr, free_fn);
}

gd_owner *gd_owner_init(gd_owner *o, int32_t kind, void *ptr, void (*free_fn)(void *)) {
  o->refs = 1;
  o->kind = kind;
  o->marks = 0;
  o->ptr = ptr;
  o->free_fn = free_fn;
  return o;
}

void gd_owner_incref(gd_owner *o) {
  __atomic_add_fetch(&o->refs, 1, __ATOMIC_RELAXED);
}

int64_t gd_owner_refs(const gd_owner *o) {
  return __atomic_load_n(&o->refs, __ATOMIC_ACQUIRE);
}

int (*gd_owner_defer)(gd_owner *o) = NULL;

/* Lock-free, so that neither a thread parking nor a forked child can be
 * left waiting on a lock. */
static gd_owner *gd_parked_head;
static int gd_drain_due;

int gd_owner_park(gd_owner *o) {
  gd_owner *head = __atomic_load_n(&gd_parked_head, __ATOMIC_ACQUIRE);
  do {
    o->parked = head;
  } while (!__atomic_compare_exchange_n(&gd_parked_head, &head, o, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
  return !__atomic_exchange_n(&gd_drain_due, 1, __ATOMIC_ACQ_REL);
}

void gd_owner_drain(void) {
  __atomic_store_n(&gd_drain_due, 0, __ATOMIC_RELEASE); /* a later park schedules the next drain */
  for (gd_owner *o = __atomic_exchange_n(&gd_parked_head, NULL, __ATOMIC_ACQ_REL), *next; o != NULL; o = next) {
    next = o->parked;
    gd_owner_finish(o);
  }
}

void gd_owner_decref(gd_owner *o) {
  if (o == NULL) return;
  if (__atomic_sub_fetch(&o->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
  int python = (o->marks & GD_OWNER_PYTHON) || o->kind == GD_OWN_LEGACY || o->kind == GD_OWN_VERSIONED;
  int (*defer)(gd_owner *) = __atomic_load_n(&gd_owner_defer, __ATOMIC_ACQUIRE);
  if (python && defer != NULL && defer(o)) return;
  gd_owner_finish(o);
}

void gd_owner_finish(gd_owner *o) {
  switch (o->kind) {
    case GD_OWN_FREE:
      if (o->free_fn != NULL) o->free_fn(o->ptr);
      break;
    case GD_OWN_LEGACY:
      gd_call_deleter_legacy((DLManagedTensor *)o->ptr);
      break;
    case GD_OWN_VERSIONED:
      gd_call_deleter_versioned((DLManagedTensorVersioned *)o->ptr);
      break;
    default:
      break;
  }
  free(o);
}

/* S2: a NULL deleter means nothing to free; a deleter frees its own struct. */
void gd_call_deleter_legacy(DLManagedTensor *t) {
  if (t != NULL && t->deleter != NULL) t->deleter(t);
}

void gd_call_deleter_versioned(DLManagedTensorVersioned *t) {
  if (t != NULL && t->deleter != NULL) t->deleter(t);
}

void gd_export_deleter_legacy(DLManagedTensor *self) {
  if (self == NULL) return;
  gd_owner_decref((gd_owner *)self->manager_ctx);
  free(self);
}

void gd_export_deleter_versioned(DLManagedTensorVersioned *self) {
  if (self == NULL) return;
  gd_owner_decref((gd_owner *)self->manager_ctx);
  free(self);
}
