/*
 * compare.h: the request of an element-wise comparison (compare.c ->
 * exports_compare.go -> core/compare.go). Every number here is core's:
 * exports_compare.go fails the build when one differs.
 */
#ifndef GODLPACK_COMPARE_H_
#define GODLPACK_COMPARE_H_

#include <stdint.h>

/* core.CompareOp: CPython's Py_LT .. Py_GE (compare.c checks that too). */
#define GD_CMP_LT 0
#define GD_CMP_LE 1
#define GD_CMP_EQ 2
#define GD_CMP_NE 3
#define GD_CMP_GT 4
#define GD_CMP_GE 5

/* core.ScalarKind; 0: the other operand is an array. */
#define GD_SCALAR_BOOL 1
#define GD_SCALAR_INT 2
#define GD_SCALAR_FLOAT 3
#define GD_SCALAR_COMPLEX 4

typedef struct gd_cmp_req {
  int32_t op;   /* GD_CMP_* */
  int32_t kind; /* GD_SCALAR_*, or 0 */
  /* the scalar (core.Scalar): weak marks a Python bool/int/float/complex;
   * ints: neg, mag, big (beyond every int64 and uint64), re (as float64) */
  int32_t weak;
  int32_t neg;
  int32_t big;
  int32_t reserved;
  uint64_t mag;
  double re;
  double im;
  /* in: the result elements [start, stop) to compute (C order); the first
   * call (out->owner NULL) allocates the result and sets size */
  int64_t start;
  int64_t stop;
  int64_t size; /* out: elements of the result */
} gd_cmp_req;

#endif /* GODLPACK_COMPARE_H_ */
