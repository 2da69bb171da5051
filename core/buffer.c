// buffer.c: bytes seen as a tensor (godlpack.h). A buffer-protocol view
// (asarray(memoryview(...))) and the bytes of a pickle (pickle.loads) become
// host DLTensors here; the skin only reads the Python objects into plain
// structs. Which views and which pickled shapes godlpack takes, and how a
// refusal is worded, is decided in this one file; the tensor is then
// validated like any import (gd_describe_host in the skin: the fast path,
// else core.DescribeVersioned).
#include <stdio.h>
#include <string.h>

#include "godlpack.h"

int gd_buffer_tensor(const gd_buffer_view *v, DLTensor *t, int64_t *shape, int64_t *strides, char *msg,
                     int64_t cap) {
  memset(t, 0, sizeof *t);
  if (gd_dtype_from_format(v->format, v->itemsize, &t->dtype) < 0) {
    snprintf(msg, (size_t)cap,
             "asarray(): buffer format '%s' (itemsize %lld) is not supported; use a native-endian bool, integer, "
             "float or complex buffer",
             v->format ? v->format : "B", (long long)v->itemsize);
    return -1;
  }
  if (v->suboffsets) {
    snprintf(msg, (size_t)cap,
             "asarray(): buffers with suboffsets are not supported; copy the data to a contiguous buffer first");
    return -1;
  }
  if (v->ndim < 0 || v->ndim > GD_MAX_NDIM) {
    snprintf(msg, (size_t)cap, "asarray(): too many dimensions in the buffer (%d; at most %d)", (int)v->ndim,
             GD_MAX_NDIM);
    return -1;
  }
  t->data = v->buf;
  t->device.device_type = kDLCPU;
  t->ndim = v->ndim;
  if (v->ndim == 0) return 0;  // a scalar buffer (ctypes.c_double(1.5)): shape (), no shape array
  t->shape = shape;
  if (v->shape == NULL) {  // a flat buffer of bytes: len / itemsize elements
    t->ndim = 1;
    shape[0] = v->len / v->itemsize;
    return 0;  // NULL strides: C-contiguous
  }
  for (int32_t i = 0; i < v->ndim; i++) {
    shape[i] = v->shape[i];
    if (v->strides == NULL) continue;
    if (v->strides[i] % v->itemsize != 0) {
      snprintf(msg, (size_t)cap,
               "asarray(): byte stride %lld is not a multiple of the itemsize %lld; godlpack strides are in "
               "elements: pass copy=True or make the buffer contiguous",
               (long long)v->strides[i], (long long)v->itemsize);
      return -1;
    }
    strides[i] = v->strides[i] / v->itemsize;
  }
  if (v->strides != NULL) t->strides = strides;
  return 0;
}

int gd_bytes_tensor(void *data, int64_t nbytes, DLDataType dt, int32_t ndim, const int64_t *dims, int fortran,
                    int padded, DLTensor *t, int64_t *shape, int64_t *strides, char *msg, int64_t cap) {
  static const char entry[] = "pickle.loads()";
  memset(t, 0, sizeof *t);
  if (dt.bits == 0 || dt.lanes != 1 || dt.code == kDLOpaqueHandle || dt.code > kDLFloat4_e2m1fn) {
    snprintf(msg, (size_t)cap,
             "%s: the pickled dtype (code %d, bits %d, lanes %d) is none of godlpack's; pass what pickle.dumps() made",
             entry, (int)dt.code, (int)dt.bits, (int)dt.lanes);
    return -1;
  }
  int64_t bits = (int64_t)dt.bits * dt.lanes, is = bits % 8 == 0 ? bits / 8 : 0;
  if (padded && bits < 8) is = 1;
  if (is == 0) {
    snprintf(msg, (size_t)cap, "%s: packed sub-byte dtypes cannot be unpickled; pickle them padded", entry);
    return -1;
  }
  if (ndim < 0 || ndim > GD_MAX_NDIM) {
    snprintf(msg, (size_t)cap, "%s: more than %d dimensions", entry, GD_MAX_NDIM);
    return -1;
  }
  int64_t n = 1, need = 0;
  int overflow = 0;
  for (int32_t i = 0; i < ndim; i++) {
    if (dims[i] < 0) {
      snprintf(msg, (size_t)cap, "%s: negative dimension %lld in the shape", entry, (long long)dims[i]);
      return -1;
    }
    shape[i] = dims[i];
    overflow |= __builtin_mul_overflow(n, dims[i], &n);
  }
  if (overflow || __builtin_mul_overflow(n, is, &need)) {
    snprintf(msg, (size_t)cap, "%s: the pickled shape spans more than 2**63 bytes; pass what pickle.dumps() made",
             entry);
    return -1;
  }
  if (need != nbytes) {
    snprintf(msg, (size_t)cap,
             "%s: the data holds %lld bytes, but the pickled shape needs %lld; pass the buffers pickle.dumps() "
             "handed out, in order",
             entry, (long long)nbytes, (long long)need);
    return -1;
  }
  t->data = data;
  t->device.device_type = kDLCPU;
  t->ndim = ndim;
  t->dtype = dt;
  t->shape = ndim > 0 ? shape : NULL;
  if (fortran && ndim > 0) {  // Fortran order; dimensions of size 0 and 1 do not grow the strides
    int64_t s = 1;
    for (int32_t k = 0; k < ndim; k++) {
      strides[k] = s;
      if (shape[k] > 1) s *= shape[k];
    }
    t->strides = strides;
  }
  return 0;  // C order: NULL strides
}
