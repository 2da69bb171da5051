//go:build pyext

/* fork.c: the forked-child flag behind the gate of gocall.h.
 *
 * The Go runtime does not support fork without exec: a lock that any runtime
 * or Go thread held at the instant of fork() (the heap lock during a stack
 * growth or an allocation, the scheduler lock, a GC) stays held forever in
 * the child, which has only the forking thread. So the child never calls Go:
 * the only fork handler is this child handler, which sets a flag and makes
 * no call; the parent's fork() pays nothing. */
#include <pthread.h>
#include <stdio.h>

#include "_cgo_export.h"
#include "fork.h"
#include "gocall.h"

int gd_in_fork_child = 0;
uint64_t gd_go_crossings = 0;
int gd_nofast = 0;

static void gd_fork_child(void) { gd_in_fork_child = 1; }

int gd_fork_install(void) {
  static int done = 0;
  if (done) return 0;
  done = 1;
  return pthread_atfork(NULL, NULL, gd_fork_child);
}

int gd_go_refused(char *msg, const char *entry) {
  snprintf(msg, GD_MSG_CAP,
           "%s: this process was forked after godlpack was imported, and a forked child cannot run Go "
           "code (the Go runtime does not survive fork()); a child only exchanges, reads and frees arrays. "
           "Use multiprocessing.get_context(\"forkserver\") or \"spawn\" (torch DataLoader: "
           "multiprocessing_context=\"forkserver\")",
           entry);
  return gd_class_for(GD_E_FORK_CHILD);
}

PyObject *gd_mod_in_fork_child(PyObject *m, PyObject *unused) { return PyBool_FromLong(gd_in_fork_child); }

/* ------------------------------------------------------------------ */
/* test hooks: builds with the test probes only (pyext/probes.go)      */

#ifdef GD_PROBES

PyObject *gd_mod_test_panic(PyObject *m, PyObject *unused) {
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  int cls = gd_go_test_panic(msg);
  if (cls != GD_OK) return gd_raise(cls, msg);
  Py_RETURN_NONE;
}

PyObject *gd_mod_test_go_gc(PyObject *m, PyObject *unused) {
  char msg[GD_MSG_CAP];
  msg[0] = '\0';
  int cls = gd_go_test_gc(msg);
  if (cls != GD_OK) return gd_raise(cls, msg);
  Py_RETURN_NONE;
}
#endif
