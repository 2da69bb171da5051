package cfixture

/*
#cgo CFLAGS: -I${SRCDIR}/../../core
#include <stdlib.h>
#include "godlpack.h"

static int cf_freed;
static void cf_count_free(void *p) { (void)p; __atomic_add_fetch(&cf_freed, 1, __ATOMIC_RELAXED); }
static int cf_freed_n(void) { return __atomic_load_n(&cf_freed, __ATOMIC_RELAXED); }
static gd_owner *cf_owner(int python) {
  gd_owner *o = gd_owner_new(GD_OWN_FREE, NULL, cf_count_free);
  if (o != NULL && python) o->marks |= GD_OWNER_PYTHON;
  return o;
}
// A skin whose every thread is foreign: it parks whatever it is offered.
static int cf_scheduled;
static int cf_park_all(gd_owner *o) {
  if (gd_owner_park(o)) cf_scheduled++;
  return 1;
}
static void cf_hook(int on) { gd_owner_defer = on ? cf_park_all : NULL; }
static int cf_scheduled_n(void) { return cf_scheduled; }
*/
import "C"

// Parking is core/owner.c's deferral of owners whose release may run
// Python code. Park drops the last reference of n owners (python: marked
// GD_OWNER_PYTHON) through gd_owner_decref with a hook that parks all it is
// offered, and reports the frees counted before and after gd_owner_drain,
// and how many drains the parking asked for.
func Park(n int, python bool) (freedBefore, freedAfter, drainsAsked int) {
	start, asked := int(C.cf_freed_n()), int(C.cf_scheduled_n())
	C.cf_hook(1)
	defer C.cf_hook(0)
	p := C.int(0)
	if python {
		p = 1
	}
	for range n {
		C.gd_owner_decref(C.cf_owner(p))
	}
	freedBefore = int(C.cf_freed_n()) - start
	C.gd_owner_drain()
	return freedBefore, int(C.cf_freed_n()) - start, int(C.cf_scheduled_n()) - asked
}
