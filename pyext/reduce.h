/*
 * reduce.h: the request of a reduction (sum, prod, min, max, any, all,
 * mean) as it crosses from the C skin (reduce.c, chunk.c) into Go
 * (exports_reduce.go). It lives in C memory for the whole operation: a long
 * reduction runs as several Go calls (chunk.c) that share it.
 */
#ifndef GODLPACK_REDUCE_H_
#define GODLPACK_REDUCE_H_

#include "bridge.h"

/* core.ReduceOp */
#define GD_RED_SUM 1
#define GD_RED_PROD 2
#define GD_RED_MIN 3
#define GD_RED_MAX 4
#define GD_RED_ANY 5
#define GD_RED_ALL 6
#define GD_RED_MEAN 7

/* core.ReduceTarget, field for field (exports_reduce.go checks the layout). */
typedef struct gd_reduce_target {
  gd_header res;                     /* the result (new, or out=); unused when scalar */
  int64_t res_shape[GD_MAX_NDIM];
  int64_t res_strides[GD_MAX_NDIM];
  gd_header acc;                     /* the accumulator (res, a temporary, or scalar_area) */
  int64_t acc_strides[GD_MAX_NDIM];  /* per INPUT axis; 0 on reduced axes */
  uint8_t acc_is_res;
  uint8_t scalar;                    /* the result is scalar_area, of dtype res.dtype */
} gd_reduce_target;

/* Room for core.Reduction (opaque here; checked in exports_reduce.go). */
#define GD_REDUCE_PLAN_WORDS 80

typedef struct gd_reduce_req {
  /* in: the Python arguments */
  int32_t op;        /* GD_RED_* */
  int32_t all;       /* axis=None */
  int32_t naxes;     /* entries of axes when !all */
  int32_t lone;      /* axis was one int, not a tuple */
  int32_t keepdims;
  int32_t has_dtype;
  DLDataType dtype;
  int32_t run;       /* 1: one call plans, accumulates everything and finishes */
  int64_t axes[GD_MAX_NDIM];
  gd_header *out;    /* out=, or NULL */
  int64_t *out_shape;
  int64_t *out_strides;
  /* Go's state between calls */
  int64_t plan[GD_REDUCE_PLAN_WORDS];
  gd_reduce_target t;
  int64_t scalar_area[2];
} gd_reduce_req;

/* The entry point of a reduction, e.g. "sum()". */
static inline const char *gd_reduce_entry(int32_t op) {
  static const char *const names[] = {"reduce()", "sum()", "prod()", "min()", "max()", "any()", "all()", "mean()"};
  return (op >= GD_RED_SUM && op <= GD_RED_MEAN) ? names[op] : names[0];
}

#endif /* GODLPACK_REDUCE_H_ */
