"""What the broken libraries share: a producer (numpy's arrays, views and
__dlpack__, with a hook to tamper with the answer) and consumers (godlpack's
import seen as numpy, and a hand-written one over the capsule that the
broken consumers bend)."""

from __future__ import annotations

import ctypes
import weakref
from typing import Any

import numpy as np

from _helpers import DLManagedTensor, DLManagedTensorVersioned, _GetPointer, capsule_name

# A correct consumer by default: godlpack's import (which takes every dtype
# the checker hands it, sub-byte ones included, that numpy cannot view).
CHECK = {"read_only": "xp.asarray(_readonly(np.array({data})))",
         "from_dlpack": "gd.from_dlpack({p}{kw})", "writable": "not {y}.readonly"}
# The broken consumers' own from_dlpack, which gives numpy arrays.
CONSUMER = dict(CHECK, from_dlpack="xp.from_dlpack({p}{kw})", writable="{y}.flags.writeable")
# A broken consumer's own from_dlpack that gives godlpack arrays.
GD_CONSUMER = dict(CHECK, from_dlpack="xp.from_dlpack({p}{kw})")

_SetName = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_SetName", ctypes.pythonapi))
_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_KIND = {0: "i", 1: "u", 2: "f", 5: "c", 6: "b"}
# A capsule keeps the pointer to its name: the new names must outlive it.
_USED = {"dltensor": b"used_dltensor", "dltensor_versioned": b"used_dltensor_versioned"}


def ask(x: Any, copy: Any = None) -> Any:
    """x's capsule: versioned (copy passed on), else the pre-1.0 call."""
    try:
        return x.__dlpack__(max_version=(1, 3), **({} if copy is None else {"copy": copy}))
    except TypeError:
        return x.__dlpack__()


class _Held:
    """The array interface of a capsule's tensor; numpy keeps it as the
    array's base, so it lives as long as the array."""

    def __init__(self, cap: Any, m: Any, writable: bool) -> None:
        t = m.dl_tensor
        self.cap = cap
        is_ = t.dtype.bits // 8
        shape = tuple(t.shape[i] for i in range(t.ndim))
        strides = tuple(t.strides[i] * is_ for i in range(t.ndim)) if t.ndim and t.strides else None
        self.__array_interface__ = {
            "version": 3, "shape": shape, "strides": strides,
            "typestr": ("|" if is_ == 1 else "<") + _KIND[t.dtype.code] + str(is_),
            "data": ((t.data or 0) + t.byte_offset, not writable),
        }


def import_capsule(cap: Any, rename: bool = True, honour_read_only: bool = True, deletes: int = 1) -> np.ndarray:
    """A hand-written consumer: reads the struct, renames the capsule and
    calls the deleter when the array dies (rename=False: leaves the capsule
    unrenamed, alive as long as the array, so its destructor frees it;
    deletes: how many times it calls the deleter)."""
    name = capsule_name(cap)
    m = managed(cap)
    if name == "dltensor_versioned" and m.version.major != 1:
        raise BufferError(f"DLPack {m.version.major}.{m.version.minor} is not 1.x")
    if m.dl_tensor.dtype.code not in _KIND or m.dl_tensor.dtype.lanes != 1:
        raise BufferError(f"DLPack type code {m.dl_tensor.dtype.code} is not one numpy has")
    ro = name == "dltensor_versioned" and bool(m.flags & 1)
    held = _Held(cap if not rename else None, m, writable=not ro or not honour_read_only)
    if rename:
        _SetName(cap, _USED[name])
        ptr, deleter = ctypes.addressof(m), m.deleter
        if deleter:
            fn = _DELETER(deleter)
            weakref.finalize(held, lambda: [fn(ptr) for _ in range(deletes)])
    return np.asarray(held)


def managed(cap: Any) -> Any:
    """The capsule's managed tensor struct (ctypes), to tamper with."""
    name = capsule_name(cap)
    ptr = _GetPointer(cap, name.encode())
    kind = DLManagedTensorVersioned if name == "dltensor_versioned" else DLManagedTensor
    return kind.from_address(ptr)


class Array:
    """numpy's array; answer(a, kw) is its __dlpack__ (numpy's by default)."""

    answer = staticmethod(lambda a, kw: a.__dlpack__(**kw))

    def __init__(self, a: np.ndarray) -> None:
        self._a = a

    @property
    def T(self) -> Array:
        return type(self)(self._a.T)

    @property
    def dtype(self) -> Any:
        return self._a.dtype

    def __getitem__(self, key: Any) -> Array:
        return type(self)(self._a[key])

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._a.__dlpack_device__()

    def __dlpack__(self, **kw: Any) -> Any:
        return self.answer(self._a, kw)


def namespace(answer: Any) -> tuple[Any, Any]:
    """(asarray, the Array class) of a producer whose __dlpack__ is
    answer(numpy_array, keywords)."""
    cls = type("Broken", (Array,), {"answer": staticmethod(answer)})

    def asarray(a: Any) -> Array:
        return cls(np.asarray(a))

    return asarray, cls

