//go:build pyext

/* reliability.c: chunked long copies/fills (Ctrl-C), fork-child mode, test
 * hooks for panics. See reliability.h and reliability.go. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"
#include "crossing.h"
#include "reliability.h"

int gd_in_fork_child = 0;
static long gd_fork_child_errors = 0;

/* ------------------------------------------------------------------ */
/* chunked copy / fill                                                */

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
  if (h->ndim < 1 || !gd_host(h)) return 0;
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

enum { GD_CHUNK_COPY = 0, GD_CHUNK_FILL = 1, GD_CHUNK_SUM = 2 };

typedef struct {
  int mode;              /* GD_CHUNK_* */
  gd_header dst;         /* copy/fill: written; sum: read. offset moves per chunk */
  const int64_t *dstr;
  gd_header src;         /* copy: read */
  const int64_t *sstr;
  const int64_t *shape;  /* full shape */
  int64_t sub[GD_MAX_NDIM];
  const void *elem;      /* fill */
  gd_sum_result *sum;    /* sum: the running total, sum->accumulate set after the first chunk */
  int64_t itemsize;
  const char *entry;     /* for a MemoryError */
  char msg[GD_MSG_CAP];
} gd_chunker;

/* One Go call on the current sub-block, GIL released; then signals. */
static int gd_chunk_call(gd_chunker *c) {
  int cls;
  c->msg[0] = '\0';
  gd_count_crossing();
  PyThreadState *ts = PyEval_SaveThread();
  switch (c->mode) {
    case GD_CHUNK_FILL:
      cls = gdgo_fill(&c->dst, c->sub, (int64_t *)c->dstr, (void *)c->elem, c->msg);
      break;
    case GD_CHUNK_SUM:
      cls = gdgo_sum(&c->dst, c->sub, (int64_t *)c->dstr, c->sum, c->msg);
      c->sum->accumulate = 1;
      break;
    default:
      cls = gdgo_copy_into(&c->dst, (int64_t *)c->dstr, &c->src, c->sub, (int64_t *)c->sstr, c->msg);
  }
  PyEval_RestoreThread(ts);
  if (cls != GD_OK) return gd_err_from(cls, c->msg);
  return PyErr_CheckSignals();
}

/* Walks axes 0..k-1 one index at a time until the rest is at most one
 * chunk, then takes whole runs of axis k per call. */
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
      if (c->mode == GD_CHUNK_COPY) c->src.offset = s0 + i * c->sstr[k];
      if (gd_chunk_call(c) < 0) return -1;
    }
  } else {
    c->sub[k] = 1;
    for (int64_t i = 0; i < n; i++) {
      c->dst.offset = d0 + i * c->dstr[k];
      if (c->mode == GD_CHUNK_COPY) c->src.offset = s0 + i * c->sstr[k];
      if (gd_chunk_rec(c, k + 1) < 0) return -1;
    }
  }
  c->dst.offset = d0;
  c->src.offset = s0;
  c->sub[k] = n;
  return 0;
}

/* The chunker is ~300 bytes: heap, not the C stack of a deep call. */
static gd_chunker *gd_chunker_new(int mode, const gd_header *dst, const int64_t *shape, const int64_t *dstr) {
  gd_chunker *c = PyMem_Malloc(sizeof(gd_chunker));
  if (c == NULL) {
    PyErr_NoMemory();
    return NULL;
  }
  memset(c, 0, sizeof(*c));
  c->mode = mode;
  c->dst = *dst;
  c->dstr = dstr;
  c->shape = shape;
  c->itemsize = gd_itemsize(dst->dtype);
  for (int32_t j = 0; j < dst->ndim; j++) c->sub[j] = shape[j];
  return c;
}

static int gd_chunker_run(gd_chunker *c) {
  int rc = gd_chunk_rec(c, 0);
  PyMem_Free(c);
  return rc;
}

int gd_chunked_copy_into(const gd_header *dst, const int64_t *dstr, const gd_header *src, const int64_t *shape,
                         const int64_t *sstr) {
  gd_chunker *c = gd_chunker_new(GD_CHUNK_COPY, dst, shape, dstr);
  if (c == NULL) return -1;
  c->src = *src;
  c->sstr = sstr;
  return gd_chunker_run(c);
}

int gd_chunked_fill(const gd_header *dst, const int64_t *shape, const int64_t *dstr, const void *elem) {
  gd_chunker *c = gd_chunker_new(GD_CHUNK_FILL, dst, shape, dstr);
  if (c == NULL) return -1;
  c->elem = elem;
  return gd_chunker_run(c);
}

int gd_chunked_sum(const gd_header *h, const int64_t *shape, const int64_t *strides, gd_sum_result *r) {
  gd_chunker *c = gd_chunker_new(GD_CHUNK_SUM, h, shape, strides);
  if (c == NULL) return -1;
  memset(r, 0, sizeof(*r));
  c->sum = r;
  return gd_chunker_run(c);
}

int gd_chunked_copy_new(const gd_header *src, const int64_t *shape, const int64_t *sstr, gd_header *out,
                        int64_t *ostrides, const char *entry) {
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  gd_count_crossing();
  int cls = gdgo_alloc(src->dtype, src->ndim, (int64_t *)shape, NULL, out, ostrides, msg);
  if (cls != GD_OK) {
    if (msg[0]) return gd_err_from(cls, msg);
    PyErr_Format(PyExc_MemoryError, "%s: allocation failed", entry);
    return -1;
  }
  if (gd_chunked_copy_into(out, ostrides, src, shape, sstr) < 0) {
    gd_owner_decref(out->owner);
    out->owner = NULL;
    return -1;
  }
  return 0;
}

int gd_copy_new(const gd_header *src, const int64_t *shape, const int64_t *sstr, gd_header *out, int64_t *ostrides,
                const char *entry) {
  if (gd_chunk_eligible(src, shape)) return gd_chunked_copy_new(src, shape, sstr, out, ostrides, entry);
  /* Go deferred the copy, the C side cannot chunk it: one call. */
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  gd_count_crossing();
  PyThreadState *ts = PyEval_SaveThread();
  int cls = gdgo_copy((gd_header *)src, (int64_t *)shape, (int64_t *)sstr, out, ostrides, msg);
  PyEval_RestoreThread(ts);
  return cls == GD_OK ? 0 : gd_err_from(cls, msg);
}

int gd_import_finish_copy(gd_header *h, const int64_t *shape, int64_t *strides, const char *entry) {
  gd_header out;
  int64_t ostrides[GD_MAX_NDIM];
  int rc = gd_copy_new(h, shape, strides, &out, ostrides, entry);
  gd_owner_decref(h->owner); /* the producer's deleter runs: we hold a copy now, or fail */
  h->owner = NULL;
  if (rc < 0) return -1;
  *h = out;
  for (int32_t i = 0; i < h->ndim; i++) strides[i] = ostrides[i];
  return 0;
}

PyObject *gd_copy_chunked(PyObject *self) {
  gd_array *a = (gd_array *)self;
  gd_header out;
  int64_t ostrides[GD_MAX_NDIM];
  if (gd_chunked_copy_new(&a->h, GD_SHAPE(a), GD_STRIDES(a), &out, ostrides, "copy()") < 0) return NULL;
  return gd_array_new(gd_state_of_type(Py_TYPE(self)), &out, GD_SHAPE(a), ostrides);
}

PyObject *gd_fill_chunked(PyObject *self, const void *elem) {
  gd_array *a = (gd_array *)self;
  if (gd_chunked_fill(&a->h, GD_SHAPE(a), GD_STRIDES(a), elem) < 0) return NULL;
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

/* The fork-hold (pthread_atfork; see reliability.h for the why).
 *
 * prepare (parent, the thread calling fork(), after every Python before-fork
 * hook): a Go call turns the GC off and returns this thread's M; leaving Go
 * put the M "in a syscall" with a P. We then set the scan bit of the M's
 * goroutine (CAS _Gsyscall -> _Gscan|_Gsyscall), exactly what the runtime's
 * own setBlockOnExitSyscall does. Every runtime path that takes a P from a
 * thread in a syscall (sysmon's retake, stop-the-world, forEachP) needs that
 * bit first, so until we clear it nobody can take our P and no runtime thread
 * can be half-way through doing so when fork() copies the process. If the P
 * is already gone by the time we hold the bit, we give the bit back and call
 * Go again (which gets a P); a bounded number of tries. Likewise when the
 * goroutine carries a preemption request (g.preempt, set by sysmon while the
 * Go call ran and not yet honoured): the next Go call honours it here, in the
 * parent, where other threads can reschedule the goroutine; in the child its
 * first Go call would yield to a scheduler thread that no longer exists.
 * child: clear the bit (and, should sysmon have set g.preempt after we looked,
 * the request). The child's first Go call then finds its P still attached
 * (exitsyscall's fast path): no runtime lock, no other thread.
 * parent: clear the bit, restore the GC settings.
 * In a forked child a fork() does none of this: no Go call (the GC is off for
 * good there, no runtime thread is left to race with, and a Go call could
 * need a lock a dead thread holds), and the GC stays off. */
enum { GD_L_G_M, GD_L_G_STATUS, GD_L_M_CURG, GD_L_M_P, GD_L_P_STATUS, GD_L_P_M, GD_L_G_PREEMPT, GD_L_N };
#define GD_G_SYSCALL 3u    /* runtime._Gsyscall */
#define GD_G_SCAN 0x1000u  /* runtime._Gscan */
#define GD_P_RUNNING 1u    /* runtime._Prunning */
#define GD_FORK_TRIES 100

static pthread_mutex_t gd_fork_mu = PTHREAD_MUTEX_INITIALIZER;
static uint32_t *gd_fork_held = NULL; /* the status word whose scan bit we hold */
static uint8_t *gd_fork_preempt = NULL; /* g.preempt of that goroutine */
static int gd_fork_mode = -1;         /* 0: off, 1: GC only, 2: GC + hold */
static int gd_forked = 0;             /* this process is a forked child */
int gd_fork_held_in_child = 0;

static uintptr_t gd_word(uintptr_t base, int64_t off) {
  return __atomic_load_n((uintptr_t *)(base + (uintptr_t)off), __ATOMIC_ACQUIRE);
}

static void gd_fork_release(void) {
  uint32_t *st = gd_fork_held;
  gd_fork_held = NULL;
  gd_fork_preempt = NULL;
  if (st == NULL) return;
  uint32_t want = GD_G_SYSCALL | GD_G_SCAN;
  __atomic_compare_exchange_n(st, &want, GD_G_SYSCALL, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static void gd_fork_prepare(void) {
  pthread_mutex_lock(&gd_fork_mu);
  gd_fork_held = NULL;
  if (gd_fork_mode < 0) {
    const char *env = getenv("GODLPACK_FORK_HOLD");
    gd_fork_mode = env == NULL ? 2 : strcmp(env, "0") == 0 ? 0 : strcmp(env, "gc") == 0 ? 1 : 2;
  }
  if (gd_fork_mode == 0 || gd_forked) return;
  for (int i = 0; i < GD_FORK_TRIES; i++) {
    int64_t L[GD_L_N];
    memset(L, 0, sizeof(L));
    uintptr_t m = gdgo_fork_prepare(i == 0, L);
    if (gd_fork_mode < 2 || m == 0 || L[GD_L_G_STATUS] == 0 || L[GD_L_G_PREEMPT] == 0)
      return; /* layout unknown: hold nothing */
    uintptr_t g = gd_word(m, L[GD_L_M_CURG]);
    if (g == 0 || (g & 7) != 0 || gd_word(g, L[GD_L_G_M]) != m) return; /* not the layout we know */
    uint32_t *st = (uint32_t *)(g + (uintptr_t)L[GD_L_G_STATUS]);
    uint32_t want = GD_G_SYSCALL;
    if (__atomic_compare_exchange_n(st, &want, GD_G_SYSCALL | GD_G_SCAN, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
      uintptr_t p = gd_word(m, L[GD_L_M_P]);
      uint8_t *preempt = (uint8_t *)(g + (uintptr_t)L[GD_L_G_PREEMPT]);
      if (p != 0 && gd_word(p, L[GD_L_P_M]) == m &&
          __atomic_load_n((uint32_t *)(p + (uintptr_t)L[GD_L_P_STATUS]), __ATOMIC_ACQUIRE) == GD_P_RUNNING &&
          __atomic_load_n(preempt, __ATOMIC_ACQUIRE) == 0) {
        gd_fork_held = st; /* held: fork() may go ahead */
        gd_fork_preempt = preempt;
        return;
      }
      /* sysmon took our P between the Go call and the CAS, or asked the
       * goroutine to yield: give the bit back, go again */
      want = GD_G_SYSCALL | GD_G_SCAN;
      __atomic_compare_exchange_n(st, &want, GD_G_SYSCALL, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    } else if ((want & ~GD_G_SCAN) != GD_G_SYSCALL) {
      return; /* not in a syscall after a Go call: not the layout we know */
    }
    /* else a runtime thread holds the bit right now (sysmon looking at our P) */
    sched_yield();
  }
}

static void gd_fork_parent(void) {
  gd_fork_release();
  if (gd_fork_mode != 0 && !gd_forked) gdgo_fork_parent();
  pthread_mutex_unlock(&gd_fork_mu);
}

static void gd_fork_child(void) {
  /* async-signal-safe: atomics and plain stores only, no Go call. The child
   * flags are set here too, not only in the os.register_at_fork hook, so
   * that a fork() by C code (no Python hook runs) keeps kernels serial. */
  gd_forked = 1;
  gd_serial_only = 1;
  gd_in_fork_child = 1;
  gd_fork_child_errors = 0;
  gd_fork_held_in_child = gd_fork_held != NULL;
  if (gd_fork_preempt != NULL) __atomic_store_n(gd_fork_preempt, 0, __ATOMIC_RELEASE);
  gd_fork_release();
  pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
  memcpy(&gd_fork_mu, &fresh, sizeof(fresh));
}

int gd_fork_install(void) {
  static int done = 0;
  if (done) return 0;
  done = 1;
  return pthread_atfork(gd_fork_prepare, gd_fork_parent, gd_fork_child);
}

/* os.register_at_fork(after_in_child=...): pure C flag + one Go call that
 * allocates nothing and takes no runtime lock (serial kernels; the GC is off
 * since the prepare handler). */
PyObject *gd_mod_after_fork_child(PyObject *m, PyObject *unused) {
  gd_in_fork_child = 1;
  gd_fork_child_errors = 0;
  gdgo_after_fork();
  Py_RETURN_NONE;
}

PyObject *gd_mod_in_fork_child(PyObject *m, PyObject *unused) { return PyBool_FromLong(gd_in_fork_child); }

PyObject *gd_mod_fork_held(PyObject *m, PyObject *unused) { return PyBool_FromLong(gd_fork_held_in_child); }

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
