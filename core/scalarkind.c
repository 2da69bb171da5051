// scalarkind.c: the dtype numpy gives Python numbers as array elements
// (asarray of a number or of nested sequences of them, full without a
// dtype). The skin reads what a number is (GD_SF_* facts, and the dtype of
// one that carries its own, a numpy scalar's); the kind and the dtype are
// decided here. Pure C: a nested sequence asks once per element.
#include "godlpack.h"

int gd_scalar_kind(uint32_t facts, DLDataType own) {
  // bool before int: a Python bool is an int
  if (facts & GD_SF_BOOL) return GD_KIND_BOOL;
  if (facts & GD_SF_INT) return GD_KIND_INT;
  if (facts & GD_SF_FLOAT) return GD_KIND_FLOAT;
  if (facts & GD_SF_COMPLEX) return GD_KIND_COMPLEX;
  if (facts & GD_SF_DTYPE) return gd_dtype_kind(own);
  // numpy's clongdouble has __complex__ and __float__: complex wins
  if (facts & GD_SF_HAS_COMPLEX) return GD_KIND_COMPLEX;
  if (facts & GD_SF_HAS_INDEX) return GD_KIND_INT;
  if (facts & GD_SF_HAS_FLOAT) return GD_KIND_FLOAT;
  return GD_KIND_NONE;
}

int gd_dtype_kind(DLDataType dt) {
  switch (dt.code) {
    case kDLBool:
      return GD_KIND_BOOL;
    case kDLInt:
    case kDLUInt:
      return GD_KIND_INT;
    case kDLComplex:
      return GD_KIND_COMPLEX;
  }
  return GD_KIND_FLOAT;
}

DLDataType gd_kind_dtype(int kind) {
  DLDataType dt = {kDLFloat, 64, 1};  // float64: also what no element at all gives (numpy's empty list)
  switch (kind) {
    case GD_KIND_BOOL:
      dt.code = kDLBool;
      dt.bits = 8;
      break;
    case GD_KIND_INT:
      dt.code = kDLInt;
      break;
    case GD_KIND_COMPLEX:
      dt.code = kDLComplex;
      dt.bits = 128;
      break;
  }
  return dt;
}

int gd_scalar_keeps_dtype(uint32_t facts) {
  // a numpy scalar keeps its dtype (np.float32(2.5): float32); np.float64
  // is a Python float too, whose dtype is the same
  return !(facts & (GD_SF_BOOL | GD_SF_INT | GD_SF_FLOAT | GD_SF_COMPLEX)) && (facts & GD_SF_DTYPE);
}

int gd_scalar_dtype(uint32_t facts, DLDataType own, DLDataType *out) {
  if (gd_scalar_keeps_dtype(facts)) {
    *out = own;
    return 0;
  }
  int kind = gd_scalar_kind(facts, own);
  if (kind == GD_KIND_NONE) return -1;
  *out = gd_kind_dtype(kind);
  return 0;
}
