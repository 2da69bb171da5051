/*
 * bridge.h: the plain-C structures that cross the C -> Go boundary of the
 * extension. No Python types here: the Go side (exports.go) includes this
 * file, the C skin (*.c) includes it through skin.h.
 *
 * Every Go export:
 *   - takes plain C pointers and integers (headers, dims, requests),
 *   - returns 0 on success, or a GD_ERR_* class with a NUL-terminated message
 *     written into `msg` (GD_MSG_CAP bytes, provided by the caller),
 *   - never calls the Python C API and never keeps a pointer it was given.
 * The C side maps the class once to a Python exception (errors.c).
 *
 * Every number here is core's: pyext/consts_check.go fails the build when one
 * differs (GD_ERR_* = core.Class, GD_IDX_* = core.IndexKind; GD_RED_* of
 * reduce.h = core.ReduceOp, checked in exports_reduce.go).
 */
#ifndef GODLPACK_BRIDGE_H_
#define GODLPACK_BRIDGE_H_

#include <stdint.h>

#include "godlpack.h"

#define GD_MSG_CAP 512

/* The largest DLDeviceType value (kDLTrn): size of the skin's cache of
 * godlpack.DLDeviceType members. */
#define GD_DEVTYPE_MAX 18

/* Error classes: core.Class values. */
#define GD_OK 0
#define GD_ERR_BUFFER 1
#define GD_ERR_TYPE 2
#define GD_ERR_VALUE 3
#define GD_ERR_MEMORY 4
#define GD_ERR_RUNTIME 5
#define GD_ERR_INDEX 6

/* The requests (gd_export_req, gd_import_req) and GD_COPY_* live in
 * godlpack.h: the C fast paths in core/fastpath.c read them too. */

/* gd_index_op (core.IndexOp) lives in godlpack.h: core/fastpath.c reads it too. */

#endif /* GODLPACK_BRIDGE_H_ */
