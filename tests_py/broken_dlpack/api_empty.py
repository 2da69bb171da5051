"""Breaks C9.header and C9.export: the type offers a C exchange API of version
1.3 whose functions are all NULL."""

import ctypes

from ._base import CHECK, namespace

__dlpack_check__ = CHECK


class _API(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("prev", ctypes.c_void_p)] + \
        [(n, ctypes.c_void_p) for n in ("allocator", "from_py", "to_py", "dltensor_from_py", "stream")]


_api = _API(1, 3)  # kept for the process: the capsule points into it
_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_New", ctypes.pythonapi))
asarray, Array = namespace(lambda a, kw: a.__dlpack__(**kw))
Array.__dlpack_c_exchange_api__ = _new(ctypes.addressof(_api), b"dlpack_exchange_api", None)
