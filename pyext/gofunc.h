/*
 * gofunc.h: the plain-C structures of calls to Go functions registered with
 * package gofunc (gofunc.c, exports_gofunc.go). Numbers are gofunc's:
 * GD_FN_* kinds = gofunc.Kind, checked by exports_gofunc.go.
 */
#ifndef GODLPACK_GOFUNC_H_
#define GODLPACK_GOFUNC_H_

#include <stdint.h>

#include "godlpack.h"

#define GD_FN_ARRAY 1
#define GD_FN_INT 2
#define GD_FN_FLOAT 3
#define GD_FN_BOOL 4
#define GD_FN_COMPLEX 5
#define GD_FN_STRING 6
#define GD_FN_INTS 7
#define GD_FN_CONTEXT 8

#define GD_FN_MAX_PARAMS 8 /* gofunc.MaxParams */
#define GD_FN_MAX_RESULTS 3 /* gofunc.MaxResults */

/* Returned by gd_go_fn_call / gd_go_fn_wait while a function that takes a
 * context.Context still runs: the skin checks signals and waits again. */
#define GD_FN_PENDING 100

/* One argument or result. kind 0: an omitted optional argument, or a None
 * result (a nil array). */
typedef struct gd_fn_val {
  int32_t kind;
  int32_t reserved;
  int64_t i;        /* int; bool 0/1 */
  double f;         /* float; complex: real part */
  double im;        /* complex: imaginary part */
  char *s;          /* string bytes (in: borrowed UTF-8; out: malloc'ed, freed by the skin);
                       ints: int64_t * (in: borrowed; out: malloc'ed) */
  int64_t n;        /* bytes of s, or number of ints */
  gd_header h;      /* array. in: borrowed for the call; out: holds a new owner reference */
  int64_t *shape;   /* array. in: ndim entries; out: the skin's buffer of GD_MAX_NDIM */
  int64_t *strides;
} gd_fn_val;

/* A registered function as the module shows it (strings are C memory that
 * lives as long as the process). */
typedef struct gd_fn_desc {
  char *name;
  char *doc; /* with its __text_signature__ line */
  int32_t nparams;
  int32_t nresults;
  int32_t tuple;
  int32_t context;
  int32_t quick; /* gofunc.Quick(): the GIL stays held during the call */
  int32_t kinds[GD_FN_MAX_PARAMS];
  int32_t optional[GD_FN_MAX_PARAMS];
  char *names[GD_FN_MAX_PARAMS];
  int32_t rkinds[GD_FN_MAX_RESULTS];
} gd_fn_desc;

#endif /* GODLPACK_GOFUNC_H_ */
