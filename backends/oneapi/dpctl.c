/* dpctl.c: dpctl's C library, loaded lazily with dlopen (see dpctl.h). */
#include "dpctl.h"

#include "../hugepage.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Enum values of dpctl_sycl_enum_types.h. */
#define GD_DPCTL_ALL_BACKENDS (((1 << 5) - 1) << 16)
#define GD_DPCTL_ALL_DEVICES ((1 << 6) - 1)
#define GD_DPCTL_IN_ORDER (1 << 1)
#define GD_DPCTL_USM_UNKNOWN 0
#define GD_DPCTL_USM_DEVICE 1

#define GD_ONEAPI_MAX_DEVICES 64
#define GD_ONEAPI_ALIGN 256

typedef void *ref;

static struct {
  ref (*get_devices)(int);
  size_t (*vec_size)(ref);
  ref (*vec_get_at)(ref, size_t);
  void (*vec_delete)(ref);
  ref (*cached_context)(ref);
  ref (*queue_create)(ref, ref, void *, int);
  void *(*aligned_alloc_device)(size_t, size_t, ref);
  void (*free_with_context)(void *, ref);
  int (*pointer_type)(const void *, ref);
  ref (*pointer_device)(const void *, ref);
  _Bool (*device_is_cpu)(ref);
  void (*device_delete)(ref);
  ref (*memcpy)(ref, void *, const void *, size_t);
  ref (*memset)(ref, void *, uint8_t, size_t);
  void (*queue_wait)(ref);
  void (*event_wait)(ref);
  void (*event_delete)(ref);
} fn;

static pthread_mutex_t load_mu = PTHREAD_MUTEX_INITIALIZER;
static volatile int loaded; /* 1 once the tables below are complete */
static char load_error[512];
static int ndev;
static ref ctx[GD_ONEAPI_MAX_DEVICES];
static ref queue[GD_ONEAPI_MAX_DEVICES];
static _Bool is_cpu[GD_ONEAPI_MAX_DEVICES]; /* device USM there is host memory */

#define GD_SYM(field, name)                                                                      \
  do {                                                                                           \
    *(void **)&fn.field = dlsym(lib, name);                                                      \
    if (fn.field == NULL) {                                                                      \
      snprintf(load_error, sizeof(load_error), "dpctl's C library lacks %s (dpctl 0.22 or newer is needed)", name); \
      return GD_ONEAPI_NO_LIBRARY;                                                               \
    }                                                                                            \
  } while (0)

static int load_locked(const char *path) {
  void *lib = dlopen("libDPCTLSyclInterface.so", RTLD_NOW | RTLD_NOLOAD);
  if (lib == NULL && path != NULL && path[0]) lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (lib == NULL) {
    const char *env = getenv("GODLPACK_DPCTL_LIB");
    if (env != NULL && env[0]) lib = dlopen(env, RTLD_NOW | RTLD_GLOBAL);
  }
  if (lib == NULL) {
    const char *why = dlerror();
    snprintf(load_error, sizeof(load_error),
             "oneAPI devices need dpctl's SYCL runtime (libDPCTLSyclInterface.so), which is not loaded%s%s; "
             "pip install dpctl (or dpnp) and import it, or set GODLPACK_DPCTL_LIB to the library",
             why ? ": " : "", why ? why : "");
    return GD_ONEAPI_NO_LIBRARY;
  }
  GD_SYM(get_devices, "DPCTLDeviceMgr_GetDevices");
  GD_SYM(vec_size, "DPCTLDeviceVector_Size");
  GD_SYM(vec_get_at, "DPCTLDeviceVector_GetAt");
  GD_SYM(vec_delete, "DPCTLDeviceVector_Delete");
  GD_SYM(cached_context, "DPCTLDeviceMgr_GetCachedContext");
  GD_SYM(queue_create, "DPCTLQueue_Create");
  GD_SYM(aligned_alloc_device, "DPCTLaligned_alloc_device");
  GD_SYM(free_with_context, "DPCTLfree_with_context");
  GD_SYM(pointer_type, "DPCTLUSM_GetPointerType");
  GD_SYM(pointer_device, "DPCTLUSM_GetPointerDevice");
  GD_SYM(device_is_cpu, "DPCTLDevice_IsCPU");
  GD_SYM(device_delete, "DPCTLDevice_Delete");
  GD_SYM(memcpy, "DPCTLQueue_Memcpy");
  GD_SYM(memset, "DPCTLQueue_Memset");
  GD_SYM(queue_wait, "DPCTLQueue_Wait");
  GD_SYM(event_wait, "DPCTLEvent_Wait");
  GD_SYM(event_delete, "DPCTLEvent_Delete");
  /* dpctl's device ids: positions among all root devices of all backends
   * (SyclDevice.get_device_id, __dlpack_device__). */
  ref vec = fn.get_devices(GD_DPCTL_ALL_BACKENDS | GD_DPCTL_ALL_DEVICES);
  size_t n = vec ? fn.vec_size(vec) : 0;
  if (n > GD_ONEAPI_MAX_DEVICES) n = GD_ONEAPI_MAX_DEVICES;
  for (size_t i = 0; i < n; i++) {
    ref d = fn.vec_get_at(vec, i);
    /* The context dpctl itself binds to the device: our USM pointers are
     * then dpctl's own, and dpnp takes them without a copy. */
    ctx[i] = d ? fn.cached_context(d) : NULL;
    queue[i] = ctx[i] ? fn.queue_create(ctx[i], d, NULL, GD_DPCTL_IN_ORDER) : NULL;
    is_cpu[i] = d ? fn.device_is_cpu(d) : 0;
    if (d) fn.device_delete(d);
    if (queue[i] == NULL) {
      n = i;
      break;
    }
  }
  if (vec) fn.vec_delete(vec);
  ndev = (int)n;
  return GD_ONEAPI_OK;
}

int gd_oneapi_load(const char *path) {
  if (__atomic_load_n(&loaded, __ATOMIC_ACQUIRE)) return GD_ONEAPI_OK;
  pthread_mutex_lock(&load_mu);
  int rc = GD_ONEAPI_OK;
  if (!loaded) {
    rc = load_locked(path);
    if (rc == GD_ONEAPI_OK) __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&load_mu);
  return rc;
}

const char *gd_oneapi_error(void) { return load_error; }

int gd_oneapi_num_devices(void) { return loaded ? ndev : 0; }

static int dev_ok(int32_t id) { return loaded && id >= 0 && id < ndev; }

void *gd_oneapi_alloc(int32_t id, size_t n, int zero, int *status) {
  if (!dev_ok(id)) {
    *status = loaded ? GD_ONEAPI_NO_DEVICE : GD_ONEAPI_NO_LIBRARY;
    return NULL;
  }
  size_t sz = n ? n : 1; /* a valid, unique pointer for empty arrays */
  void *p = fn.aligned_alloc_device(GD_ONEAPI_ALIGN, sz, queue[id]);
  if (p == NULL) {
    *status = GD_ONEAPI_NO_MEMORY;
    return NULL;
  }
  if (is_cpu[id]) gd_advise_huge(p, n); /* before the first touch: the memset or the copy in */
  if (zero && n) {
    ref e = fn.memset(queue[id], p, 0, n);
    if (e == NULL) {
      fn.free_with_context(p, ctx[id]);
      *status = GD_ONEAPI_NO_MEMORY;
      return NULL;
    }
    fn.event_wait(e);
    fn.event_delete(e);
  }
  *status = GD_ONEAPI_OK;
  return p;
}

/* The owners' free function: pure C, any thread. The pointer belongs to
 * the first context that knows it (devices of one platform share one). */
void gd_oneapi_free(void *p) {
  if (p == NULL || !loaded) return;
  for (int i = 0; i < ndev; i++) {
    if (i > 0 && ctx[i] == ctx[i - 1]) continue;
    if (fn.pointer_type(p, ctx[i]) != GD_DPCTL_USM_UNKNOWN) {
      fn.free_with_context(p, ctx[i]);
      return;
    }
  }
}

void *gd_oneapi_free_fn(void) { return (void *)&gd_oneapi_free; }

int gd_oneapi_pointer_info(int32_t id, const void *p) {
  if (!dev_ok(id)) return loaded ? -GD_ONEAPI_NO_DEVICE : -GD_ONEAPI_NO_LIBRARY;
  int t = fn.pointer_type(p, ctx[id]);
  if (t == GD_DPCTL_USM_UNKNOWN) return -GD_ONEAPI_FOREIGN;
  if (t != GD_DPCTL_USM_DEVICE) return 1; /* shared and host USM */
  ref d = fn.pointer_device(p, ctx[id]);
  if (d == NULL) return 0;
  int cpu = fn.device_is_cpu(d) ? 1 : 0; /* device USM of a CPU device is host memory */
  fn.device_delete(d);
  return cpu;
}

int gd_oneapi_memcpy(int32_t id, void *dst, const void *src, size_t n) {
  if (!dev_ok(id)) return loaded ? -GD_ONEAPI_NO_DEVICE : -GD_ONEAPI_NO_LIBRARY;
  if (n == 0) return 0;
  ref e = fn.memcpy(queue[id], dst, src, n);
  if (e == NULL) return -GD_ONEAPI_NO_MEMORY;
  fn.event_wait(e);
  fn.event_delete(e);
  return 0;
}

int gd_oneapi_wait(int32_t id) {
  if (!dev_ok(id)) return loaded ? -GD_ONEAPI_NO_DEVICE : -GD_ONEAPI_NO_LIBRARY;
  fn.queue_wait(queue[id]);
  return 0;
}

void *gd_oneapi_queue(int32_t id) { return dev_ok(id) ? queue[id] : NULL; }
