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
PyObject *gd_devtype_member(gd_state *st, int32_t t);
PyObject *gd_get_dtype(PyObject *self, void *c);
PyObject *gd_get_device(PyObject *self, void *c);
PyObject *gd_get_shape(PyObject *self, void *c);
PyObject *gd_get_strides(PyObject *self, void *c);
void gd_array_dealloc(PyObject *self);

/* buffer.c */
int gd_getbuffer(PyObject *self, Py_buffer *view, int flags);
void gd_releasebuffer(PyObject *self, Py_buffer *view);
PyObject *gd_array_buffer_method(PyObject *self, PyObject *flags);
PyObject *gd_array_release_buffer_method(PyObject *self, PyObject *view);

/* producer.c */
PyObject *gd_array_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *gd_array_dlpack_device(PyObject *self, PyObject *unused);
PyObject *gd_array_usm_data(PyObject *self, PyObject *unused);

/* index.c */
PyObject *gd_array_subscript(PyObject *self, PyObject *key);
int gd_array_ass_subscript(PyObject *self, PyObject *key, PyObject *value);
Py_ssize_t gd_array_length(PyObject *self);
PyObject *gd_array_item(PyObject *self, Py_ssize_t i);
PyObject *gd_array_iter(PyObject *self);
int gd_check_writable(const gd_array *a, const char *entry);

/* methods.c */
PyObject *gd_array_tolist(PyObject *self, PyObject *unused);
PyObject *gd_array_copy(PyObject *self, PyObject *unused);
PyObject *gd_array_fill(PyObject *self, PyObject *value);
PyObject *gd_array_reshape(PyObject *self, PyObject *args);
PyObject *gd_array_transpose(PyObject *self, PyObject *args);
PyObject *gd_transpose_impl(PyObject *self, int64_t *axes, int32_t naxes);

/* reduce.c: sum, prod, min, max, any, all, mean */
PyObject *gd_array_sum(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *gd_array_prod(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *gd_array_min(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *gd_array_max(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *gd_array_any(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *gd_array_all(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *gd_array_mean(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

/* number.c */
int gd_nb_bool(PyObject *self);
PyObject *gd_nb_int(PyObject *self);
PyObject *gd_nb_float(PyObject *self);
PyObject *gd_nb_index(PyObject *self);
PyObject *gd_array_complex(PyObject *self, PyObject *unused);

/* compare.c */
PyObject *gd_array_richcompare(PyObject *self, PyObject *other, int op);

#endif /* GODLPACK_ARRAY_H_ */
