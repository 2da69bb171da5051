/*
 * reliability.h: fork, signal and panic handling of the C skin (issue 6).
 * Implemented in reliability.c (C) and reliability.go (Go exports).
 */
#ifndef GODLPACK_RELIABILITY_H_
#define GODLPACK_RELIABILITY_H_

#include "skin.h"

/* Long copies and fills run in chunks of at most gd_chunk_bytes() bytes
 * (default GD_CHUNK_MIB MiB; environment variable GODLPACK_CHUNK_MIB, read
 * once), each one Go call with the GIL released; between chunks the GIL is
 * re-taken and PyErr_CheckSignals runs, so Ctrl-C interrupts within one chunk
 * (a few ms). Copies (copy(), __dlpack__(copy=True), from_dlpack(copy=True),
 * asarray copies), fills (fill(), full/zeros/ones, a[slice] = v) and sum()
 * all go through it. */
#define GD_CHUNK_MIB 32 /* 16 cost ~5 % on 256 MiB copies (a goroutine fan-out per chunk) */
int64_t gd_chunk_bytes(void);

/* A forked child stops turning Go errors into Python exceptions after this
 * many (each error allocates a little Go heap, never collected in a child):
 * it raises RuntimeError naming the spawn/forkserver start methods instead. */
#define GD_FORK_ERROR_BUDGET 100000

extern int gd_in_fork_child;

/* fork() right after a Go call could hang the child forever on its first Go
 * call: a Go runtime thread (sysmon retaking the P of the thread that calls
 * fork, a stop-the-world, an M parking) held the goroutine's scan bit or
 * sched.lock when fork() copied the process, and the child, which has only
 * the forking thread, waits for it forever. gd_fork_install registers
 * pthread_atfork handlers (reliability.c) that turn the GC off around fork()
 * and pin the forking thread's P so that the child's first Go call needs no
 * lock and no other thread. GODLPACK_FORK_HOLD=0 turns them off, =gc keeps
 * only the GC part (for measurements). Called once, from module init. */
int gd_fork_install(void);
extern int gd_fork_held_in_child; /* child: the forking thread's P was pinned */

/* Work bigger than gd_chunk_bytes() on a CPU array of byte-sized elements
 * (1), or 0: then one Go call does it all. */
int gd_chunk_eligible(const gd_header *h, const int64_t *shape);

/* The chunked operations: 0, or -1 with an exception set (KeyboardInterrupt
 * from a signal handler between chunks, or a Go error). Called with the
 * GIL; each chunk releases it. */
int gd_chunked_copy_into(const gd_header *dst, const int64_t *dstr, const gd_header *src, const int64_t *shape,
                         const int64_t *sstr);
int gd_chunked_fill(const gd_header *dst, const int64_t *shape, const int64_t *dstr, const void *elem);
int gd_chunked_sum(const gd_header *h, const int64_t *shape, const int64_t *strides, gd_sum_result *r);
/* A new C-contiguous copy of src: *out holds a new owner reference on
 * success, nothing on failure. entry names the operation in a MemoryError. */
int gd_chunked_copy_new(const gd_header *src, const int64_t *shape, const int64_t *sstr, gd_header *out,
                        int64_t *ostrides, const char *entry);

/* A new C-contiguous copy of src that Go planned and deferred: in chunks
 * when gd_chunk_eligible, else one Go call without the GIL. Same contract as
 * gd_chunked_copy_new. */
int gd_copy_new(const gd_header *src, const int64_t *shape, const int64_t *sstr, gd_header *out, int64_t *ostrides,
                const char *entry);

/* Finishes an import whose copy Go deferred (gd_import_req.copy_deferred):
 * replaces *h (whose owner reference it releases, success or not) and
 * strides with a C-contiguous copy. 0, or -1 with an exception. */
int gd_import_finish_copy(gd_header *h, const int64_t *shape, int64_t *strides, const char *entry);

/* Array.copy()/fill() through the chunked operations. */
PyObject *gd_copy_chunked(PyObject *self);
PyObject *gd_fill_chunked(PyObject *self, const void *elem);

/* errors.c hook: NULL when the error may be raised normally. */
PyObject *gd_fork_child_error(void);

/* module methods: _after_fork_child, _in_fork_child, _fork_held, _test_panic, _test_go_gc */
PyObject *gd_mod_after_fork_child(PyObject *m, PyObject *unused);
PyObject *gd_mod_in_fork_child(PyObject *m, PyObject *unused);
PyObject *gd_mod_fork_held(PyObject *m, PyObject *unused);
PyObject *gd_mod_test_panic(PyObject *m, PyObject *unused);
PyObject *gd_mod_test_go_gc(PyObject *m, PyObject *unused);

#endif /* GODLPACK_RELIABILITY_H_ */
