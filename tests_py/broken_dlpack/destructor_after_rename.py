"""Breaks P6.destructor: the capsule's destructor calls the deleter whatever
the capsule's name, so a capsule a consumer took over (renamed "used_...")
has its deleter called a second time when it dies. The array's references
cannot tell: the producer keeps one of its own for the capsule's life, which
its destructor drops, so they come back to where they were. The checker
counts the deleter's calls (a trampoline in the tensor's deleter field),
which absorbs the second call instead of freeing twice."""

import ctypes

from ._base import CHECK, namespace

__dlpack_check__ = CHECK

_api = ctypes.PyDLL(None)
_api.PyCapsule_GetName.restype, _api.PyCapsule_GetName.argtypes = ctypes.c_char_p, [ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetContext.restype, _api.PyCapsule_GetContext.argtypes = ctypes.c_void_p, [ctypes.c_void_p]
_api.PyCapsule_SetName.restype, _api.PyCapsule_SetName.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetContext.restype = ctypes.c_int
_api.PyCapsule_SetContext.argtypes = [ctypes.py_object, ctypes.c_void_p]
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_NAME = {n: ctypes.c_char_p(n) for n in (b"dltensor", b"dltensor_versioned")}
_USED = {n: ctypes.c_char_p(b"used_" + n) for n in _NAME}
_DELETER_AT = {b"dltensor": 56, b"dltensor_versioned": 16}
_held = {}  # the producer's own reference to each exported array, by its capsule's context


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _destructor(capsule):
    name = _api.PyCapsule_GetName(capsule)
    base = name[len(b"used_"):] if name.startswith(b"used_") else name  # the bug: the name is not checked
    ptr = _api.PyCapsule_GetPointer(capsule, name)
    deleter = ctypes.c_void_p.from_address(ptr + _DELETER_AT[base]).value
    if deleter:
        ctypes.CFUNCTYPE(None, ctypes.c_void_p)(deleter)(ptr)
    _held.pop(_api.PyCapsule_GetContext(capsule), None)


def _answer(a, kw):
    cap = a.__dlpack__(**kw)
    name = _api.PyCapsule_GetName(id(cap))
    ptr = _api.PyCapsule_GetPointer(id(cap), name)
    _api.PyCapsule_SetName(cap, _USED[name])  # numpy's capsule lets go of the tensor
    out = _api.PyCapsule_New(ptr, _NAME[name], ctypes.cast(_destructor, ctypes.c_void_p))
    key = id(out)
    _held[key] = a
    _api.PyCapsule_SetContext(out, key)
    return out


asarray, Array = namespace(_answer)
