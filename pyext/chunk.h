/*
 * chunk.h: long operations in interruptible chunks (chunk.c).
 */
#ifndef GODLPACK_CHUNK_H_
#define GODLPACK_CHUNK_H_

#include "skin.h"

/* Long operations run in the chunks core plans (gd_chunk_eligible,
 * gd_chunks in core/godlpack.h): copies (copy(), __dlpack__(copy=True),
 * from_dlpack(copy=True), asarray copies), fills (fill(), full/zeros/ones,
 * a[slice] = v) and reductions (sum(), max(), ... over any axes). */

/* The chunked operations: 0, or -1 with an exception set (KeyboardInterrupt
 * from a signal handler between chunks, or a Go error). Called with the
 * GIL; each chunk releases it. */
int gd_chunked_copy_into(const gd_header *dst, const int64_t *dstr, const gd_header *src, const int64_t *shape,
                         const int64_t *sstr, const char *entry);
/* A conversion (astype) of src into dst of another dtype; chunks are sized
 * by the wider of the two itemsizes; entry names the user's entry point. */
int gd_chunked_convert_into(const gd_header *dst, const int64_t *dstr, const gd_header *src, const int64_t *shape,
                            const int64_t *sstr, const char *entry);
int gd_chunked_fill(const gd_header *dst, const int64_t *shape, const int64_t *dstr, const void *elem,
                    const char *entry);
/* Folds the input into the accumulator that gd_go_reduce set up in req
 * (req->t.acc), chunk by chunk; the caller then ends the reduction. */
int gd_chunked_reduce(const gd_header *h, const int64_t *shape, const int64_t *strides, gd_reduce_req *req);
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

#endif /* GODLPACK_CHUNK_H_ */
