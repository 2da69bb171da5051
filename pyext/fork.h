/*
 * fork.h: a forked child never enters the Go runtime (fork.c, gocall.h).
 */
#ifndef GODLPACK_FORK_H_
#define GODLPACK_FORK_H_

#include "skin.h"

/* 1 in a process forked after godlpack was imported (set by a pthread_atfork
 * child handler: os.fork(), multiprocessing, and fork() by C code alike). */
extern int gd_in_fork_child;

/* Registers the pthread_atfork child handler once; 0 or an errno value. */
int gd_fork_install(void);

/* nogo.c: what a forked child allocates and copies without Go (host memory,
 * the byte-sized dtypes of the fast path; the rest gets the child's
 * RuntimeError). gd_nogo_alloc: a C-contiguous array's header and strides
 * holding one owner reference, filled with elem when not NULL; 0, or -1
 * with an exception. gd_nogo_copy: a.copy(). */
int gd_nogo_alloc(DLDataType dt, int32_t nd, const int64_t *shape, const void *elem, gd_header *h,
                  int64_t *strides, const char *entry);
PyObject *gd_nogo_copy(gd_state *st, gd_array *a, const char *entry);
/* An uninitialised C-contiguous host array: core's allocation, or in a
 * forked child gd_nogo_alloc's. 0, or -1 with an exception. */
int gd_alloc_host(DLDataType dt, int32_t nd, const int64_t *shape, gd_header *h, int64_t *strides,
                  const char *entry);

#endif /* GODLPACK_FORK_H_ */
