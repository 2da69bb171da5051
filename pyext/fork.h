/*
 * fork.h: a forked child never enters the Go runtime (fork.c, gocall.h).
 */
#ifndef GODLPACK_FORK_H_
#define GODLPACK_FORK_H_

#include "skin.h"

/* 1 in a process forked after godlpack was imported (set by a pthread_atfork
 * child handler: os.fork(), multiprocessing, and fork() by C code alike). */
extern int gd_in_fork_child;

/* Registers the pthread_atfork child handler once; 0 or an errno value. */
int gd_fork_install(void);

/* module methods _in_fork_child, _test_panic, _test_go_gc */
PyObject *gd_mod_in_fork_child(PyObject *m, PyObject *unused);
PyObject *gd_mod_test_panic(PyObject *m, PyObject *unused);
PyObject *gd_mod_test_go_gc(PyObject *m, PyObject *unused);

#endif /* GODLPACK_FORK_H_ */
