// arange.c: numpy's arange(start, stop, step[, dtype]): how many values
// start + i*step lie below stop, their dtype, and the arithmetic that
// computes them exactly. The skin reads the three numbers (integers to 128
// bits, or reals) and fills the array as planned. Pure C: a forked child,
// which runs no Go code, plans too.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "godlpack.h"

typedef __int128 i128;

static i128 num(const gd_arange_req *r, int k) {
  return (i128)(((unsigned __int128)(uint64_t)r->hi[k] << 64) | r->lo[k]);
}

// The decimal text of v (at most 40 digits and a sign) into buf.
static const char *dec(i128 v, char buf[48]) {
  char *p = buf + 47;
  unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
  *p = 0;
  do {
    *--p = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u != 0);
  if (v < 0) *--p = '-';
  return p;
}

// The shortest %g text of v that reads back as v, as Python's repr.
static const char *real(double v, char buf[32]) {
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, 32, "%.*g", p, v);
    if (strtod(buf, NULL) == v || v != v) break;
  }
  return buf;
}

static int fail(char *msg, size_t cap, int cls, const char *text) {
  snprintf(msg, cap, "arange(): %s", text);
  return cls;
}

// An integer dtype's bounds hold lo and hi; else the error names the one
// out of them (numpy's OverflowError).
static int in_bounds(DLDataType dt, i128 lo, i128 hi, char *msg, size_t cap) {
  i128 min = dt.code == kDLUInt ? 0 : -((i128)1 << (dt.bits - 1));
  i128 max = dt.code == kDLUInt ? ((i128)1 << dt.bits) - 1 : ((i128)1 << (dt.bits - 1)) - 1;
  if (lo >= min && hi <= max) return GD_OK;
  char b[48], text[160];
  snprintf(text, sizeof text, "Python integer %s out of bounds for %s%d", dec(lo < min ? lo : hi, b),
           dt.code == kDLUInt ? "uint" : "int", dt.bits);
  return fail(msg, cap, GD_ERR_OVERFLOW, text);
}

static const char too_long[] = "more elements than an array can hold (Maximum allowed size exceeded, as numpy says); "
                               "narrow the range or raise the step";

int gd_arange(const gd_arange_req *r, gd_arange_plan *p, char *msg, size_t cap) {
  p->dtype = r->has_dtype ? r->dtype : (DLDataType){r->ints ? kDLInt : kDLFloat, 64, 1};
  int integer = p->dtype.code == kDLInt || p->dtype.code == kDLUInt;
  if (gd_elem_kind(p->dtype) == GD_ELEM_NONE)
    return fail(msg, cap, GD_ERR_VALUE, "no values of this dtype can be computed; make them in float32, then astype");
  if (r->ints) {
    const i128 lim = (i128)1 << 126;  // differences and n*step stay within 128 bits
    i128 a = num(r, 0), b = num(r, 1), d = num(r, 2);
    if (r->wide || a >= lim || a <= -lim || b >= lim || b <= -lim || d >= lim || d <= -lim)
      return fail(msg, cap, GD_ERR_OVERFLOW, "an integer bound or step beyond 126 bits; narrow the range");
    if (d == 0) return fail(msg, cap, GD_ERR_VALUE, "step must not be zero");
    i128 diff = b - a, n = diff / d;  // numpy's ceil((stop - start) / step), exact
    if (n * d != diff && (diff < 0) == (d < 0)) n++;
    if (n < 0) n = 0;
    if (n > INT64_MAX) return fail(msg, cap, GD_ERR_VALUE, too_long);
    p->n = (int64_t)n;
    i128 last = a + (n > 0 ? (n - 1) * d : 0), lo = a < last ? a : last, hi = a < last ? last : a;
    if (integer) {
      int rc = in_bounds(p->dtype, lo, hi, msg, cap);
      if (rc != GD_OK) return rc;
    }
    p->kind = lo >= INT64_MIN && hi <= INT64_MAX ? GD_ARANGE_I64
              : lo >= 0 && hi <= (i128)UINT64_MAX ? GD_ARANGE_U64
                                                  : GD_ARANGE_F64;
    p->f0 = (double)a;
    p->fd = (double)d;
    return GD_OK;
  }
  double a = r->f[0], b = r->f[1], d = r->f[2];
  if (d == 0) return fail(msg, cap, GD_ERR_VALUE, "step must not be zero");
  double len = (b - a) / d;
  if (!isfinite(len)) {
    char text[200], x[32], y[32], z[32];
    snprintf(text, sizeof text, "cannot compute the length of [%s, %s) in steps of %s; pass finite bounds", real(a, x),
             real(b, y), real(d, z));
    return fail(msg, cap, GD_ERR_VALUE, text);
  }
  len = ceil(len);
  if (len >= 0x1p63) return fail(msg, cap, GD_ERR_VALUE, too_long);
  p->n = len > 0 ? (int64_t)len : 0;
  p->kind = integer ? GD_ARANGE_TRUNC : GD_ARANGE_F64;
  p->f0 = a;
  p->fd = d;
  if (integer && p->n > 0) {  // the values truncated toward zero, as int(start + i*step)
    double first = trunc(a), last = trunc(a + (double)(p->n - 1) * d);
    double lo = first < last ? first : last, hi = first < last ? last : first;
    if (lo < -0x1p126 || hi > 0x1p126) return fail(msg, cap, GD_ERR_OVERFLOW, "a value beyond 126 bits");
    return in_bounds(p->dtype, (i128)lo, (i128)hi, msg, cap);
  }
  return GD_OK;
}
