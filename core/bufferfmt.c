// bufferfmt.c: dtypes <-> the PEP 3118 format strings of the buffer protocol
// (godlpack.h). The buffer route of asarray, the Go-function argument route
// and the Array's own buffer all read this one table.
#include <stdint.h>

#include "godlpack.h"

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

static int gd_int_dt(int is_unsigned, int64_t size, DLDataType *out) {
  if (size != 1 && size != 2 && size != 4 && size != 8) return -1;
  out->code = is_unsigned ? kDLUInt : kDLInt;
  out->bits = (uint8_t)(size * 8);
  out->lanes = 1;
  return 0;
}

int gd_dtype_from_format(const char *fmt, int64_t itemsize, DLDataType *out) {
  if (fmt == NULL) fmt = "B";
  // byte order / size prefixes: native and little-endian only
  if (*fmt == '@' || *fmt == '=' || *fmt == '<') {
    fmt++;
  } else if (*fmt == '>' || *fmt == '!') {
    const uint16_t one = 1;
    if (*(const uint8_t *)&one == 1 && !(fmt[1] != '\0' && (fmt[1] == 'b' || fmt[1] == 'B' || fmt[1] == '?') && fmt[2] == '\0'))
      return -1;  // big-endian data on a little-endian machine
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
