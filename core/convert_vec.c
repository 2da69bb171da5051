/* convert_vec.c: contiguous conversion loops that a C compiler vectorises
 * (GCC/Clang vector code at O3), for the pairs Go's scalar loops are slowest
 * at. Called by core/convert_kernels.go for long contiguous rows; same
 * results as the Go loops (tests_go/convert_test.go compares them). */
#include <stdint.h>

#include "convert_vec.h"

#if defined(__GNUC__) && !defined(__clang__)
#define GD_VEC __attribute__((optimize("O3")))
#else
#define GD_VEC
#endif

/* float32 -> bfloat16 (ml_dtypes): ties to even; NaN is the quiet NaN with
 * the source's sign. */
GD_VEC void gd_vec_f32_bf16(uint16_t *restrict dst, const uint32_t *restrict src, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    uint32_t u = src[i];
    uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    uint32_t q = ((u >> 16) & 0x8000u) | 0x7fc0u;
    dst[i] = (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? q : r);
  }
}

/* float64 -> float32: the C cast (round to nearest even). */
GD_VEC void gd_vec_f64_f32(float *restrict dst, const double *restrict src, int64_t n) {
  for (int64_t i = 0; i < n; i++) dst[i] = (float)src[i];
}
