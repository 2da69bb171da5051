/*
 * arith.h: the arithmetic slots of godlpack.Array (arith.c), which refuse
 * with the way out: godlpack.Array does no arithmetic.
 */
#ifndef GODLPACK_ARITH_H_
#define GODLPACK_ARITH_H_

#include "skin.h"

PyObject *gd_nb_add(PyObject *v, PyObject *w);
PyObject *gd_nb_subtract(PyObject *v, PyObject *w);
PyObject *gd_nb_multiply(PyObject *v, PyObject *w);
PyObject *gd_nb_remainder(PyObject *v, PyObject *w);
PyObject *gd_nb_divmod(PyObject *v, PyObject *w);
PyObject *gd_nb_power(PyObject *v, PyObject *w, PyObject *z);
PyObject *gd_nb_lshift(PyObject *v, PyObject *w);
PyObject *gd_nb_rshift(PyObject *v, PyObject *w);
PyObject *gd_nb_and(PyObject *v, PyObject *w);
PyObject *gd_nb_xor(PyObject *v, PyObject *w);
PyObject *gd_nb_or(PyObject *v, PyObject *w);
PyObject *gd_nb_floor_divide(PyObject *v, PyObject *w);
PyObject *gd_nb_true_divide(PyObject *v, PyObject *w);
PyObject *gd_nb_matrix_multiply(PyObject *v, PyObject *w);
PyObject *gd_nb_negative(PyObject *v);
PyObject *gd_nb_positive(PyObject *v);
PyObject *gd_nb_absolute(PyObject *v);
PyObject *gd_nb_invert(PyObject *v);

/* The entries of the Array type's slot table (array.c). */
#define GD_ARITH_SLOTS                                                                                   \
  {Py_nb_add, gd_nb_add}, {Py_nb_subtract, gd_nb_subtract}, {Py_nb_multiply, gd_nb_multiply},           \
      {Py_nb_remainder, gd_nb_remainder}, {Py_nb_divmod, gd_nb_divmod}, {Py_nb_power, gd_nb_power},     \
      {Py_nb_lshift, gd_nb_lshift}, {Py_nb_rshift, gd_nb_rshift}, {Py_nb_and, gd_nb_and},               \
      {Py_nb_xor, gd_nb_xor}, {Py_nb_or, gd_nb_or}, {Py_nb_floor_divide, gd_nb_floor_divide},           \
      {Py_nb_true_divide, gd_nb_true_divide}, {Py_nb_matrix_multiply, gd_nb_matrix_multiply},           \
      {Py_nb_negative, gd_nb_negative}, {Py_nb_positive, gd_nb_positive},                               \
      {Py_nb_absolute, gd_nb_absolute}, {Py_nb_invert, gd_nb_invert}

#endif /* GODLPACK_ARITH_H_ */
