/*
 * bridge.h: what the Go exports of the extension (exports*.go) and the C
 * skin share. No Python types here: the Go side includes this file, the C
 * skin includes it through skin.h. The structures that cross (gd_header, the
 * exchange requests, gd_op) and every number (GD_ERR_* classes, GD_OP_*)
 * are core's, in core/godlpack.h, and core/consts_check.go proves them.
 *
 * Every Go export:
 *   - takes plain C pointers and integers (headers, dims, requests),
 *   - returns 0 on success, or a GD_ERR_* class with a NUL-terminated message
 *     written into `msg` (GD_MSG_CAP bytes, provided by the caller),
 *   - never calls the Python C API and never keeps a pointer it was given.
 * The C side maps the class once to a Python exception (errors.c).
 */
#ifndef GODLPACK_BRIDGE_H_
#define GODLPACK_BRIDGE_H_

#include <stdint.h>

#include "godlpack.h"

#define GD_MSG_CAP 512

#endif /* GODLPACK_BRIDGE_H_ */
