// bufferfmt.c: dtypes <-> the PEP 3118 format strings of the buffer protocol,
// and dtypes -> the formats of Arrow's C data interface (godlpack.h). The
// buffer route of asarray, the Go-function argument route, the Array's own
// buffer and its Arrow export (arrow.c) all read this one table.
#include <stdint.h>

#include "godlpack.h"

// Each dtype with a format: its PEP 3118 format, and its Arrow C data
// interface format (NULL where Arrow has none; Arrow's bool "b" is a bitmap).
static const struct {
  uint8_t code, bits;
  const char *buffer, *arrow;
} gd_formats[] = {
    {kDLBool, 8, "?", "b"},     {kDLInt, 8, "b", "c"},      {kDLInt, 16, "h", "s"},    {kDLInt, 32, "i", "i"},
    {kDLInt, 64, "q", "l"},     {kDLUInt, 8, "B", "C"},     {kDLUInt, 16, "H", "S"},   {kDLUInt, 32, "I", "I"},
    {kDLUInt, 64, "Q", "L"},    {kDLFloat, 16, "e", "e"},   {kDLFloat, 32, "f", "f"},  {kDLFloat, 64, "d", "g"},
    {kDLComplex, 64, "Zf", NULL}, {kDLComplex, 128, "Zd", NULL},
};

static int gd_format_row(DLDataType dt) {
  if (dt.lanes != 1) return -1;
  for (int i = 0; i < (int)(sizeof gd_formats / sizeof gd_formats[0]); i++)
    if (gd_formats[i].code == dt.code && gd_formats[i].bits == dt.bits) return i;
  return -1;
}

const char *gd_buffer_format(DLDataType dt) {
  int i = gd_format_row(dt);
  return i < 0 ? NULL : gd_formats[i].buffer;
}

const char *gd_arrow_format(DLDataType dt) {
  int i = gd_format_row(dt);
  return i < 0 ? NULL : gd_formats[i].arrow;
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
