/*
 * dpctl.h: the part of dpctl's C library (libDPCTLSyclInterface.so) that the
 * oneAPI backend uses, loaded at run time with dlopen (dpctl.c). Nothing
 * here includes dpctl's headers: godlpack builds and runs without dpctl.
 * Signatures follow dpctl/include/syclinterface/*.h (dpctl 0.22); every
 * *Ref is an opaque pointer.
 */
#ifndef GODLPACK_ONEAPI_DPCTL_H_
#define GODLPACK_ONEAPI_DPCTL_H_

#include <stddef.h>
#include <stdint.h>

/* Status codes of gd_oneapi_* (Go mirror: status* in oneapi.go). */
#define GD_ONEAPI_OK 0
#define GD_ONEAPI_NO_LIBRARY 1 /* dlopen or a symbol failed: see gd_oneapi_error() */
#define GD_ONEAPI_NO_DEVICE 2  /* no SYCL device with that id */
#define GD_ONEAPI_NO_MEMORY 3
#define GD_ONEAPI_FOREIGN 4 /* a pointer the device's SYCL context does not know */

/* Loads the library once: path NULL tries the one already loaded in the
 * process (dpctl imported), then $GODLPACK_DPCTL_LIB. Thread-safe. */
int gd_oneapi_load(const char *path);
const char *gd_oneapi_error(void);
/* Number of SYCL root devices (dpctl's device ids are positions in it). */
int gd_oneapi_num_devices(void);

void *gd_oneapi_alloc(int32_t id, size_t n, int zero, int *status);
void gd_oneapi_free(void *p);
void *gd_oneapi_free_fn(void);
/* 1 host-accessible, 0 not, or -GD_ONEAPI_* */
int gd_oneapi_pointer_info(int32_t id, const void *p);
/* Blocking queue copy of n bytes (any direction); 0 or -GD_ONEAPI_*. */
int gd_oneapi_memcpy(int32_t id, void *dst, const void *src, size_t n);
int gd_oneapi_wait(int32_t id);
/* godlpack's in-order queue on device id (a DPCTLSyclQueueRef owned by the
 * backend for the life of the process), or NULL. */
void *gd_oneapi_queue(int32_t id);

#endif /* GODLPACK_ONEAPI_DPCTL_H_ */
