// probe.c: the counting deleters of the conformance checker's producers
// (python -m godlpack check): a probe is a copy of a managed tensor
// (versioned or legacy) whose deleter counts its calls and runs the
// original's on the first one only. A probe is never freed (a few dozen
// bytes per checked call), so that a consumer that calls the deleter twice
// is counted, not crashed on.
#include <pthread.h>
#include <stdlib.h>

#include "godlpack.h"

typedef struct {
  DLManagedTensorVersioned t; /* first: the deleter is given its address */
  DLManagedTensorVersioned *orig;
  int64_t calls;
} gd_probe;

typedef struct {
  DLManagedTensor t;
  DLManagedTensor *orig;
  int64_t calls;
} gd_probe_legacy;

static void gd_probe_deleter(DLManagedTensorVersioned *t) {
  gd_probe *p = (gd_probe *)t;
  if (__atomic_add_fetch(&p->calls, 1, __ATOMIC_ACQ_REL) == 1 && p->orig->deleter != NULL) p->orig->deleter(p->orig);
}

static void gd_probe_deleter_legacy(DLManagedTensor *t) {
  gd_probe_legacy *p = (gd_probe_legacy *)t;
  if (__atomic_add_fetch(&p->calls, 1, __ATOMIC_ACQ_REL) == 1 && p->orig->deleter != NULL) p->orig->deleter(p->orig);
}

void *gd_probe_new(void *orig, int versioned, int64_t **calls) {
  if (versioned) {
    gd_probe *p = calloc(1, sizeof(gd_probe));
    if (p == NULL) return NULL;
    p->t = *(DLManagedTensorVersioned *)orig;
    p->t.deleter = gd_probe_deleter;
    p->orig = orig;
    *calls = &p->calls;
    return &p->t;
  }
  gd_probe_legacy *p = calloc(1, sizeof(gd_probe_legacy));
  if (p == NULL) return NULL;
  p->t = *(DLManagedTensor *)orig;
  p->t.deleter = gd_probe_deleter_legacy;
  p->orig = orig;
  *calls = &p->calls;
  return &p->t;
}

int64_t gd_probe_calls(const int64_t *calls) { return __atomic_load_n(calls, __ATOMIC_ACQUIRE); }

// A deleter counted in place (the producer checks P6 and P7): the tensor
// keeps its capsule and its producer's destructor, and its deleter field
// points at a trampoline that counts each call and runs the producer's
// deleter on the first only. The trampoline finds its record by the
// tensor's address, newest first (a freed tensor's address may come back),
// and reads nothing through the tensor, which a second call finds freed.
typedef struct gd_patch {
  const void *t;
  void (*orig)(void *);
  int64_t calls;
  struct gd_patch *next;
} gd_patch;

static gd_patch *gd_patches;
static pthread_mutex_t gd_patches_mu = PTHREAD_MUTEX_INITIALIZER;

static void gd_patched_call(const void *t) {
  pthread_mutex_lock(&gd_patches_mu);
  gd_patch *p = gd_patches;
  while (p != NULL && p->t != t) p = p->next;
  pthread_mutex_unlock(&gd_patches_mu);
  if (p != NULL && __atomic_add_fetch(&p->calls, 1, __ATOMIC_ACQ_REL) == 1) p->orig((void *)t);
}

static void gd_patched_deleter(DLManagedTensorVersioned *t) { gd_patched_call(t); }
static void gd_patched_deleter_legacy(DLManagedTensor *t) { gd_patched_call(t); }

int64_t *gd_probe_patch(void *managed, int versioned) {
  void (**field)(void *) = versioned ? (void (**)(void *))&((DLManagedTensorVersioned *)managed)->deleter
                                     : (void (**)(void *))&((DLManagedTensor *)managed)->deleter;
  if (*field == NULL) return NULL; /* S2: no deleter, nothing to count */
  gd_patch *p = calloc(1, sizeof(gd_patch));
  if (p == NULL) return NULL;
  p->t = managed;
  p->orig = *field;
  pthread_mutex_lock(&gd_patches_mu);
  p->next = gd_patches;
  gd_patches = p;
  pthread_mutex_unlock(&gd_patches_mu);
  *field = versioned ? (void (*)(void *))gd_patched_deleter : (void (*)(void *))gd_patched_deleter_legacy;
  return &p->calls;
}
