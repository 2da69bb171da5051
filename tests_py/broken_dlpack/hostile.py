"""A target that attacks the checker itself (issue 36, item 7): what it does
is read from $GODLPACK_HOSTILE, at import, in __dlpack__, in
__dlpack_device__ or in from_dlpack. None of it may kill, hang, deadlock or
confuse `python -m godlpack check`: each is a CRASH or HANG line naming the
case (or the import), and the report ends with exit status 1."""

import ctypes
import os
import sys
import time

from ._base import GD_CONSUMER, namespace

__dlpack_check__ = GD_CONSUMER
MODE = os.environ.get("GODLPACK_HOSTILE", "")
_WHERE, _, _HOW = MODE.partition(":")


def _attack(where):
    if where != _WHERE:
        return
    if _HOW == "segfault":
        ctypes.string_at(0)
    elif _HOW == "exit":
        os._exit(0)
    elif _HOW == "hang":
        time.sleep(3600)
    elif _HOW == "systemexit":
        raise SystemExit(3)
    elif _HOW == "keyboardinterrupt":
        raise KeyboardInterrupt
    elif _HOW == "flood":  # a MiB on stderr, and output on stdout, where the checker's answers once went
        sys.stderr.write("x" * (1 << 20) + "\n")
        sys.stderr.flush()
        print('{"end": 0}\nnot JSON', flush=True)


_attack("import")

_New = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_New", ctypes.pythonapi))


def _answer(a, kw):
    _attack("dlpack")
    if MODE == "dlpack:garbage":  # a capsule whose pointer points nowhere
        return _New(0x10, b"dltensor_versioned" if kw.get("max_version") else b"dltensor", None)
    return a.__dlpack__(**kw)


class Array(namespace(_answer)[1]):
    def __dlpack_device__(self):
        _attack("device")
        return super().__dlpack_device__()


def asarray(a):
    import numpy as np

    return Array(np.asarray(a))


def from_dlpack(x, *, device=None, copy=None):
    _attack("from_dlpack")
    import godlpack as gd

    return gd.from_dlpack(x, device=device, copy=copy)
