//go:build pyext

/* scalar.c: one element <-> one Python object, for every dtype godlpack has
 * a Python value for, and the PEP 3118 format strings of the buffer protocol.
 * Pure C: reading or writing one element never crosses into Go. */
#include <math.h>
#include <string.h>

#include "skin.h"

/* ---- float16 (IEEE binary16) via the compiler's _Float16 (correct
 * rounding from double, done by libgcc / compiler-rt). ---- */
static double gd_half_to_double(uint16_t h) {
  _Float16 f;
  memcpy(&f, &h, 2);
  return (double)f;
}

static uint16_t gd_double_to_half(double x) {
  _Float16 f = (_Float16)x;
  uint16_t h;
  memcpy(&h, &f, 2);
  return h;
}

/* ---- bfloat16: the upper half of a float32, rounded to nearest even. ---- */
static double gd_bf16_to_double(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return (double)f;
}

static uint16_t gd_double_to_bf16(double x) {
  float f = (float)x;
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40); /* quiet NaN */
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

/* ---- 8-bit floats (DLPack codes 7..14), decoded like ml_dtypes. ---- */
typedef struct {
  int ebits, mbits, bias;
  int ieee;       /* all-ones exponent is inf (mantissa 0) / NaN */
  int nan_0x80;   /* fnuz: 0x80 is the only NaN, no negative zero */
  int fn;         /* finite: only S.1111.111 is NaN */
  int unsigned_e; /* e8m0fnu: exponent only */
} gd_f8fmt;

static int gd_f8_format(uint8_t code, gd_f8fmt *f) {
  memset(f, 0, sizeof(*f));
  switch (code) {
    case kDLFloat8_e3m4: f->ebits = 3; f->mbits = 4; f->bias = 3; f->ieee = 1; return 0;
    case kDLFloat8_e4m3: f->ebits = 4; f->mbits = 3; f->bias = 7; f->ieee = 1; return 0;
    case kDLFloat8_e4m3b11fnuz: f->ebits = 4; f->mbits = 3; f->bias = 11; f->nan_0x80 = 1; return 0;
    case kDLFloat8_e4m3fn: f->ebits = 4; f->mbits = 3; f->bias = 7; f->fn = 1; return 0;
    case kDLFloat8_e4m3fnuz: f->ebits = 4; f->mbits = 3; f->bias = 8; f->nan_0x80 = 1; return 0;
    case kDLFloat8_e5m2: f->ebits = 5; f->mbits = 2; f->bias = 15; f->ieee = 1; return 0;
    case kDLFloat8_e5m2fnuz: f->ebits = 5; f->mbits = 2; f->bias = 16; f->nan_0x80 = 1; return 0;
    case kDLFloat8_e8m0fnu: f->ebits = 8; f->mbits = 0; f->bias = 127; f->unsigned_e = 1; return 0;
  }
  return -1;
}

static double gd_f8_decode(const gd_f8fmt *f, uint8_t v) {
  if (f->unsigned_e) {
    if (v == 0xff) return NAN;
    return ldexp(1.0, (int)v - f->bias);
  }
  if (f->nan_0x80 && v == 0x80) return NAN;
  int sign = v >> 7;
  int e = (v >> f->mbits) & ((1 << f->ebits) - 1);
  int m = v & ((1 << f->mbits) - 1);
  int emax = (1 << f->ebits) - 1;
  double r;
  if (f->ieee && e == emax) {
    r = m ? NAN : INFINITY;
  } else if (f->fn && e == emax && m == (1 << f->mbits) - 1) {
    r = NAN;
  } else if (e == 0) {
    r = ldexp((double)m, 1 - f->bias - f->mbits);
  } else {
    r = ldexp((double)(m + (1 << f->mbits)), e - f->bias - f->mbits);
  }
  return sign ? -r : r;
}

/* ml_dtypes' conversion: the double is first rounded to float32 (as
 * ml_dtypes and numpy's casts do), then to the nearest representable value,
 * ties to even (e8m0fnu: ties to the larger power of two); a value that
 * rounds to zero in an fnuz format is +0 (there is no -0); overflow gives inf
 * where the format has one, else NaN. Brute force over the 256 codes: used
 * for single assignments and small conversions only; tests_py compares every
 * representable value, midpoint and neighbour with ml_dtypes. */
static uint8_t gd_f8_encode(const gd_f8fmt *f, double x) {
  uint8_t nan_code = f->unsigned_e ? 0xff : f->nan_0x80 ? 0x80 : f->fn ? 0x7f : (uint8_t)(0x7f);
  if (isnan(x)) return nan_code;
  x = (double)(float)x;
  double maxv = 0;
  for (int c = 0; c < 256; c++) {
    double d = gd_f8_decode(f, (uint8_t)c);
    if (isfinite(d) && d > maxv) maxv = d;
  }
  if (f->unsigned_e && x < 0) return nan_code; /* e8m0fnu has no sign */
  if (f->unsigned_e && x == 0) return nan_code; /* no zero either (ml_dtypes: NaN) */
  if (x == 0) {
    /* fnuz formats have no negative zero: -0.0 is +0 */
    return (uint8_t)((signbit(x) && !f->nan_0x80) ? 0x80 : 0x00);
  }
  if (isinf(x) || fabs(x) > maxv) {
    /* half an ulp above max rounds to overflow */
    double below = 0;
    for (int c = 0; c < 256; c++) {
      double d = gd_f8_decode(f, (uint8_t)c);
      if (isfinite(d) && d < maxv && d > below) below = d;
    }
    if (isinf(x) || fabs(x) >= maxv + (maxv - below) / 2) {
      if (f->ieee) {
        uint8_t inf = (uint8_t)(((1 << f->ebits) - 1) << f->mbits);
        return (uint8_t)(x < 0 ? (0x80 | inf) : inf);
      }
      return nan_code;
    }
  }
  int best = -1;
  double bestd = INFINITY;
  for (int c = 0; c < 256; c++) {
    double d = gd_f8_decode(f, (uint8_t)c);
    if (!isfinite(d)) continue;
    if (d == 0 && signbit(d) != signbit(x) && !f->nan_0x80) continue;
    double dist = fabs(d - x);
    int tie_wins = f->unsigned_e ? fabs(d) > fabs(gd_f8_decode(f, (uint8_t)best)) : (c & 1) == 0 && (best & 1) == 1;
    if (dist < bestd || (dist == bestd && tie_wins)) {
      best = c;
      bestd = dist;
    }
  }
  return (uint8_t)(best < 0 ? 0 : best);
}

/* ---- unpack ---- */
PyObject *gd_unpack(DLDataType dt, const void *p) {
  if (dt.lanes != 1) goto unsupported;
  switch (dt.code) {
    case kDLBool:
      return PyBool_FromLong(*(const uint8_t *)p != 0);
    case kDLInt:
      switch (dt.bits) {
        case 8: return PyLong_FromLong(*(const int8_t *)p);
        case 16: return PyLong_FromLong(*(const int16_t *)p);
        case 32: return PyLong_FromLong(*(const int32_t *)p);
        case 64: return PyLong_FromLongLong(*(const int64_t *)p);
      }
      break;
    case kDLUInt:
      switch (dt.bits) {
        case 8: return PyLong_FromUnsignedLong(*(const uint8_t *)p);
        case 16: return PyLong_FromUnsignedLong(*(const uint16_t *)p);
        case 32: return PyLong_FromUnsignedLong(*(const uint32_t *)p);
        case 64: return PyLong_FromUnsignedLongLong(*(const uint64_t *)p);
      }
      break;
    case kDLFloat:
      switch (dt.bits) {
        case 16: { uint16_t h; memcpy(&h, p, 2); return PyFloat_FromDouble(gd_half_to_double(h)); }
        case 32: { float f; memcpy(&f, p, 4); return PyFloat_FromDouble(f); }
        case 64: { double d; memcpy(&d, p, 8); return PyFloat_FromDouble(d); }
      }
      break;
    case kDLBfloat:
      if (dt.bits == 16) { uint16_t h; memcpy(&h, p, 2); return PyFloat_FromDouble(gd_bf16_to_double(h)); }
      break;
    case kDLComplex:
      if (dt.bits == 64) { float c[2]; memcpy(c, p, 8); return PyComplex_FromDoubles(c[0], c[1]); }
      if (dt.bits == 128) { double c[2]; memcpy(c, p, 16); return PyComplex_FromDoubles(c[0], c[1]); }
      break;
    default: {
      gd_f8fmt f;
      if (dt.bits == 8 && gd_f8_format(dt.code, &f) == 0)
        return PyFloat_FromDouble(gd_f8_decode(&f, *(const uint8_t *)p));
    }
  }
unsupported:
  PyErr_Format(PyExc_TypeError,
               "godlpack: elements of dtype (code=%d, bits=%d, lanes=%d) have no Python value; "
               "export the array with __dlpack__ to a library that supports it",
               (int)dt.code, (int)dt.bits, (int)dt.lanes);
  return NULL;
}

/* ---- pack ---- */

/* v as a C long long, accepting __index__ objects and integral floats. */
static int gd_as_int(PyObject *v, int is_unsigned, long long *s, unsigned long long *u) {
  PyObject *idx = NULL;
  if (PyFloat_Check(v)) {
    double d = PyFloat_AsDouble(v);
    if (!isfinite(d) || d != floor(d)) {
      PyErr_Format(PyExc_TypeError, "cannot store the float %R in an integer array; pass an int", v);
      return -1;
    }
    idx = PyLong_FromDouble(d);
  } else if (PyComplex_Check(v)) {
    PyErr_SetString(PyExc_TypeError, "cannot store a complex value in an integer array");
    return -1;
  } else {
    idx = PyNumber_Index(v);
  }
  if (idx == NULL) return -1;
  int overflow = 0;
  if (is_unsigned) {
    long long t = PyLong_AsLongLongAndOverflow(idx, &overflow);
    if (t == -1 && PyErr_Occurred()) {
      Py_DECREF(idx);
      return -1;
    }
    if (overflow < 0 || (overflow == 0 && t < 0)) {
      overflow = 1;
    } else {
      overflow = 0;
      *u = PyLong_AsUnsignedLongLong(idx);
      if (*u == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        overflow = 1;
      }
    }
  } else {
    *s = PyLong_AsLongLongAndOverflow(idx, &overflow);
    if (*s == -1 && PyErr_Occurred()) {
      Py_DECREF(idx);
      return -1;
    }
  }
  Py_DECREF(idx);
  if (overflow) {
    PyErr_Format(PyExc_OverflowError, "Python integer %R out of bounds for the array's dtype", v);
    return -1;
  }
  return 0;
}

int gd_as_complex(PyObject *v, double *re, double *im) {
  static PyObject *s_complex = NULL; /* interned once, kept for the process */
  if (!PyComplex_Check(v) && !PyFloat_Check(v) && !PyLong_Check(v)) {
    /* numpy's complex64 / clongdouble are not Python complex: their
     * __complex__ keeps the imaginary part that __float__ would drop */
    if (s_complex == NULL && (s_complex = PyUnicode_InternFromString("__complex__")) == NULL) return -1;
    int has = PyObject_HasAttr((PyObject *)Py_TYPE(v), s_complex);
    if (has) {
      PyObject *args[1] = {v};
      PyObject *c = gd_call_method(s_complex, args, 1 | GD_VECTORCALL_ARGUMENTS_OFFSET, NULL);
      if (c == NULL) return -1;
      int rc = gd_as_complex(c, re, im);
      Py_DECREF(c);
      return rc;
    }
  }
  if (PyComplex_Check(v)) {
    *re = PyComplex_RealAsDouble(v);
    *im = PyComplex_ImagAsDouble(v);
  } else {
    *re = PyFloat_AsDouble(v);
    *im = 0;
  }
  return PyErr_Occurred() ? -1 : 0;
}

static int gd_as_double(PyObject *v, double *d) {
  if (PyComplex_Check(v) && !PyFloat_Check(v)) {
    PyErr_SetString(PyExc_TypeError, "cannot store a complex value in a real array; take .real first");
    return -1;
  }
  *d = PyFloat_AsDouble(v);
  if (*d == -1.0 && PyErr_Occurred()) return -1;
  return 0;
}

#define GD_RANGE(lo, hi)                                                          \
  if (s < (lo) || s > (hi)) {                                                     \
    PyErr_Format(PyExc_OverflowError, "Python integer %R out of bounds for int%d", \
                 v, (int)dt.bits);                                                \
    return -1;                                                                    \
  }
#define GD_URANGE(hi)                                                              \
  if (u > (hi)) {                                                                  \
    PyErr_Format(PyExc_OverflowError, "Python integer %R out of bounds for uint%d", \
                 v, (int)dt.bits);                                                 \
    return -1;                                                                     \
  }

int gd_pack(DLDataType dt, PyObject *v, void *out) {
  if (dt.lanes != 1) goto unsupported;
  switch (dt.code) {
    case kDLBool: {
      int t = PyObject_IsTrue(v);
      if (t < 0) return -1;
      *(uint8_t *)out = (uint8_t)t;
      return 0;
    }
    case kDLInt: {
      long long s = 0;
      unsigned long long u = 0;
      if (gd_as_int(v, 0, &s, &u) < 0) return -1;
      switch (dt.bits) {
        case 8: GD_RANGE(INT8_MIN, INT8_MAX); *(int8_t *)out = (int8_t)s; return 0;
        case 16: GD_RANGE(INT16_MIN, INT16_MAX); { int16_t x = (int16_t)s; memcpy(out, &x, 2); } return 0;
        case 32: GD_RANGE(INT32_MIN, INT32_MAX); { int32_t x = (int32_t)s; memcpy(out, &x, 4); } return 0;
        case 64: { int64_t x = (int64_t)s; memcpy(out, &x, 8); } return 0;
      }
      break;
    }
    case kDLUInt: {
      long long s = 0;
      unsigned long long u = 0;
      if (gd_as_int(v, 1, &s, &u) < 0) return -1;
      switch (dt.bits) {
        case 8: GD_URANGE(UINT8_MAX); *(uint8_t *)out = (uint8_t)u; return 0;
        case 16: GD_URANGE(UINT16_MAX); { uint16_t x = (uint16_t)u; memcpy(out, &x, 2); } return 0;
        case 32: GD_URANGE(UINT32_MAX); { uint32_t x = (uint32_t)u; memcpy(out, &x, 4); } return 0;
        case 64: { uint64_t x = (uint64_t)u; memcpy(out, &x, 8); } return 0;
      }
      break;
    }
    case kDLFloat: {
      double d;
      if (gd_as_double(v, &d) < 0) return -1;
      switch (dt.bits) {
        case 16: { uint16_t h = gd_double_to_half(d); memcpy(out, &h, 2); } return 0;
        case 32: { float f = (float)d; memcpy(out, &f, 4); } return 0;
        case 64: memcpy(out, &d, 8); return 0;
      }
      break;
    }
    case kDLBfloat: {
      double d;
      if (gd_as_double(v, &d) < 0) return -1;
      if (dt.bits == 16) { uint16_t h = gd_double_to_bf16(d); memcpy(out, &h, 2); return 0; }
      break;
    }
    case kDLComplex: {
      double re, im;
      if (gd_as_complex(v, &re, &im) < 0) return -1;
      if (dt.bits == 64) { float c[2] = {(float)re, (float)im}; memcpy(out, c, 8); return 0; }
      if (dt.bits == 128) { double c[2] = {re, im}; memcpy(out, c, 16); return 0; }
      break;
    }
    default: {
      gd_f8fmt f;
      if (dt.bits == 8 && gd_f8_format(dt.code, &f) == 0) {
        double d;
        if (gd_as_double(v, &d) < 0) return -1;
        *(uint8_t *)out = gd_f8_encode(&f, d);
        return 0;
      }
    }
  }
unsupported:
  PyErr_Format(PyExc_TypeError,
               "godlpack: cannot store Python values in arrays of dtype (code=%d, bits=%d, lanes=%d)",
               (int)dt.code, (int)dt.bits, (int)dt.lanes);
  return -1;
}

/* ---- PEP 3118 formats ---- */
const char *gd_buffer_format(DLDataType dt) {
  if (dt.lanes != 1) return NULL;
  switch (dt.code) {
    case kDLBool: return dt.bits == 8 ? "?" : NULL;
    case kDLInt:
      switch (dt.bits) { case 8: return "b"; case 16: return "h"; case 32: return "i"; case 64: return "q"; }
      return NULL;
    case kDLUInt:
      switch (dt.bits) { case 8: return "B"; case 16: return "H"; case 32: return "I"; case 64: return "Q"; }
      return NULL;
    case kDLFloat:
      switch (dt.bits) { case 16: return "e"; case 32: return "f"; case 64: return "d"; }
      return NULL;
    case kDLComplex:
      switch (dt.bits) { case 64: return "Zf"; case 128: return "Zd"; }
      return NULL;
  }
  return NULL;
}

static int gd_int_dt(int is_unsigned, Py_ssize_t size, DLDataType *out) {
  if (size != 1 && size != 2 && size != 4 && size != 8) return -1;
  out->code = is_unsigned ? kDLUInt : kDLInt;
  out->bits = (uint8_t)(size * 8);
  out->lanes = 1;
  return 0;
}

int gd_dtype_from_format(const char *fmt, Py_ssize_t itemsize, DLDataType *out) {
  if (fmt == NULL) fmt = "B";
  /* byte order / size prefixes: native and little-endian only */
  if (*fmt == '@' || *fmt == '=' || *fmt == '<') {
    fmt++;
  } else if (*fmt == '>' || *fmt == '!') {
    const uint16_t one = 1;
    if (*(const uint8_t *)&one == 1 && !(fmt[1] != '\0' && (fmt[1] == 'b' || fmt[1] == 'B' || fmt[1] == '?') && fmt[2] == '\0'))
      return -1; /* big-endian data on a little-endian machine */
    fmt++;
  }
  out->lanes = 1;
  if (fmt[0] == 'Z' && fmt[1] != '\0' && fmt[2] == '\0') {
    if (fmt[1] == 'f' && itemsize == 8) { out->code = kDLComplex; out->bits = 64; return 0; }
    if (fmt[1] == 'd' && itemsize == 16) { out->code = kDLComplex; out->bits = 128; return 0; }
    return -1;
  }
  if (fmt[0] == '\0' || fmt[1] != '\0') return -1;
  switch (fmt[0]) {
    case '?': if (itemsize != 1) return -1; out->code = kDLBool; out->bits = 8; return 0;
    case 'c': case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N':
      return gd_int_dt(1, itemsize, out);
    case 'b': case 'h': case 'i': case 'l': case 'q': case 'n':
      return gd_int_dt(0, itemsize, out);
    case 'e': if (itemsize != 2) return -1; out->code = kDLFloat; out->bits = 16; return 0;
    case 'f': if (itemsize != 4) return -1; out->code = kDLFloat; out->bits = 32; return 0;
    case 'd': if (itemsize != 8) return -1; out->code = kDLFloat; out->bits = 64; return 0;
  }
  return -1;
}
