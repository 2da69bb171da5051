"""Breaks P1.name: asked for max_version alone, a legacy capsule where a
versioned one was asked for (read-only arrays stay versioned, so that only P1
breaks)."""

from ._base import CHECK, namespace

__dlpack_check__ = CHECK


def _answer(a, kw):
    if list(kw) == ["max_version"] and kw["max_version"][0] >= 1 and a.flags.writeable:
        kw = {}
    return a.__dlpack__(**kw)


asarray, Array = namespace(_answer)
