"""Breaks P1.name: a max_version below 1.0 ((0, 5): a consumer of the
pre-1.0 ABI) still gets a versioned capsule, which that consumer cannot
read; a legacy "dltensor" one is due."""

from ._base import CHECK, namespace

__dlpack_check__ = CHECK


def _answer(a, kw):
    if kw.get("max_version") is not None and kw["max_version"][0] < 1:
        kw = dict(kw, max_version=(1, 3))
    return a.__dlpack__(**kw)


asarray, Array = namespace(_answer)
