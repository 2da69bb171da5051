/*
 * array.h: what the files of the godlpack.Array type share (array.c,
 * buffer.c, producer.c, index.c, methods.c).
 */
#ifndef GODLPACK_ARRAY_H_
#define GODLPACK_ARRAY_H_

#include "skin.h"

/* Pointer to the element at flat position given by an element offset. */
static inline char *gd_elem_ptr(const gd_array *a, int64_t elem_offset) {
  return (char *)a->h.data + (a->h.offset + elem_offset) * gd_itemsize(a->h.dtype);
}

/* array.c */
gd_state *gd_st(PyObject *self);
/* o as an Array in CPU memory, or NULL with TypeError / BufferError naming entry. */
gd_array *gd_host_array_arg(gd_state *st, PyObject *o, const char *entry);
int gd_is_big(const gd_array *a); /* big enough to release the GIL around Go */
PyObject *gd_tuple_of(const int64_t *v, int32_t n);
int gd_devtypes_ready(gd_state *st);
PyObject *gd_devtype_member(gd_state *st, int32_t t);

/* index.c */
int gd_check_writable(const gd_array *a, const char *entry);

/* methods.c */
PyObject *gd_transpose_impl(PyObject *self, int64_t *axes, int32_t naxes);

#endif /* GODLPACK_ARRAY_H_ */
