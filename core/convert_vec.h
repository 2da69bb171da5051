/* convert_vec.h: the vectorised conversion loops of convert_vec.c. */
#ifndef GODLPACK_CONVERT_VEC_H_
#define GODLPACK_CONVERT_VEC_H_

#include <stdint.h>

void gd_vec_f32_bf16(uint16_t *dst, const uint32_t *src, int64_t n);
void gd_vec_f64_f32(float *dst, const double *src, int64_t n);

#endif
