"""The wrapper the broken producers share: numpy's arrays, views and
__dlpack__, with a hook to tamper with the answer."""

from __future__ import annotations

from typing import Any

import numpy as np

from _helpers import DLManagedTensor, DLManagedTensorVersioned, _GetPointer, capsule_name

CHECK = {"read_only": "xp.asarray(_readonly(np.array({data})))"}


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

