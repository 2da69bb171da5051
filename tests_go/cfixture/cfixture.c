#define _DEFAULT_SOURCE
#include "cfixture.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct cf_rec {
  int64_t calls; /* atomic */
  int64_t kind;
  void *map;
  size_t map_len;
  void *shape_map;
  size_t shape_len;
  void *strides_map;
  size_t strides_len;
  void *data;
} cf_rec; /* 72 bytes: keeps the struct after it 8-byte aligned */

static int64_t cf_total_calls;

static size_t cf_page(void) { return (size_t)sysconf(_SC_PAGESIZE); }

void *cf_guarded(size_t n, void **map, size_t *map_len) {
  size_t pg = cf_page();
  size_t body = (n + pg - 1) / pg * pg;
  if (body == 0) body = pg;
  size_t len = body + pg;
  void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return NULL;
  if (mprotect((char *)m + body, pg, PROT_NONE) != 0) {
    munmap(m, len);
    return NULL;
  }
  *map = m;
  *map_len = len;
  return (char *)m + body - n;
}

void cf_unmap(void *map, size_t map_len) {
  if (map != NULL) munmap(map, map_len);
}

static cf_rec *cf_rec_of(void *t) { return (cf_rec *)((char *)t - sizeof(cf_rec)); }

static void cf_count(void *self) {
  if (self == NULL) return;
  __atomic_add_fetch(&cf_rec_of(self)->calls, 1, __ATOMIC_ACQ_REL);
  __atomic_add_fetch(&cf_total_calls, 1, __ATOMIC_ACQ_REL);
}

/* The counting deleters free nothing: the memory stays readable until
 * cf_free so that tests can count calls after the fact (and a second call is
 * counted instead of crashing). */
static void cf_deleter_legacy(DLManagedTensor *self) { cf_count(self); }
static void cf_deleter_versioned(DLManagedTensorVersioned *self) { cf_count(self); }

void *cf_deleter_for(int kind) {
  return kind == CF_LEGACY ? (void *)cf_deleter_legacy : (void *)cf_deleter_versioned;
}

static size_t cf_size(int kind) {
  switch (kind) {
    case CF_LEGACY: return sizeof(DLManagedTensor);
    case CF_VERSIONED: return sizeof(DLManagedTensorVersioned);
    case CF_TRUNCATED: return offsetof(DLManagedTensorVersioned, flags);
  }
  return 0;
}

void *cf_new(int kind) {
  size_t n = cf_size(kind);
  if (n == 0) return NULL;
  void *map;
  size_t map_len;
  char *p = (char *)cf_guarded(sizeof(cf_rec) + n, &map, &map_len);
  if (p == NULL) return NULL;
  memset(p, 0, sizeof(cf_rec) + n);
  cf_rec *r = (cf_rec *)p;
  r->kind = kind;
  r->map = map;
  r->map_len = map_len;
  void *t = p + sizeof(cf_rec);
  if (kind == CF_LEGACY) {
    DLManagedTensor *m = (DLManagedTensor *)t;
    m->manager_ctx = r;
    m->deleter = cf_deleter_legacy;
  } else {
    DLManagedTensorVersioned *m = (DLManagedTensorVersioned *)t;
    m->manager_ctx = r;
    m->deleter = cf_deleter_versioned;
  }
  return t;
}

static DLTensor *cf_tensor(void *t) {
  cf_rec *r = cf_rec_of(t);
  if (r->kind == CF_LEGACY) return &((DLManagedTensor *)t)->dl_tensor;
  if (r->kind == CF_VERSIONED) return &((DLManagedTensorVersioned *)t)->dl_tensor;
  return NULL;
}

static int64_t *cf_copy_dims(const int64_t *src, size_t n, void **map, size_t *len) {
  int64_t *p = (int64_t *)cf_guarded(n * sizeof(int64_t), map, len);
  if (p != NULL && n > 0) memcpy(p, src, n * sizeof(int64_t));
  return p;
}

int cf_set_shape(void *t, const int64_t *src, size_t n) {
  cf_rec *r = cf_rec_of(t);
  DLTensor *dl = cf_tensor(t);
  if (dl == NULL || r->shape_map != NULL) return -1;
  int64_t *p = cf_copy_dims(src, n, &r->shape_map, &r->shape_len);
  if (p == NULL) return -1;
  dl->shape = p;
  return 0;
}

int cf_set_strides(void *t, const int64_t *src, size_t n) {
  cf_rec *r = cf_rec_of(t);
  DLTensor *dl = cf_tensor(t);
  if (dl == NULL || r->strides_map != NULL) return -1;
  int64_t *p = cf_copy_dims(src, n, &r->strides_map, &r->strides_len);
  if (p == NULL) return -1;
  dl->strides = p;
  return 0;
}

void *cf_alloc_data(void *t, size_t n) {
  cf_rec *r = cf_rec_of(t);
  if (r->data != NULL) return NULL;
  void *p = NULL;
  if (posix_memalign(&p, 64, n == 0 ? 1 : n) != 0) return NULL;
  memset(p, 0, n == 0 ? 1 : n);
  r->data = p;
  return p;
}

void cf_set_data(void *t, uintptr_t addr) {
  DLTensor *dl = cf_tensor(t);
  if (dl != NULL) dl->data = (void *)addr;
}

int64_t cf_calls(void *t) { return __atomic_load_n(&cf_rec_of(t)->calls, __ATOMIC_ACQUIRE); }
int64_t cf_total(void) { return __atomic_load_n(&cf_total_calls, __ATOMIC_ACQUIRE); }
void cf_reset_total(void) { __atomic_store_n(&cf_total_calls, 0, __ATOMIC_RELEASE); }

void cf_free(void *t) {
  if (t == NULL) return;
  cf_rec *r = cf_rec_of(t);
  cf_unmap(r->shape_map, r->shape_len);
  cf_unmap(r->strides_map, r->strides_len);
  free(r->data);
  cf_unmap(r->map, r->map_len);
}
