"""Breaks P1.version: asked for max_version alone, a versioned capsule that says
DLPack 2.0 whatever was asked."""

from ._base import CHECK, namespace, managed

__dlpack_check__ = CHECK


def _answer(a, kw):
    cap = a.__dlpack__(**kw)
    if list(kw) == ["max_version"] and kw["max_version"][0] >= 1:
        managed(cap).version.major = 2
    return cap


asarray, Array = namespace(_answer)
