// probe.c: the counting deleters of the conformance checker's producers
// (python -m godlpack check): a probe is a copy of a managed tensor
// (versioned or legacy) whose deleter counts its calls and runs the
// original's on the first one only. A probe is never freed (a few dozen
// bytes per checked call), so that a consumer that calls the deleter twice
// is counted, not crashed on.
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
