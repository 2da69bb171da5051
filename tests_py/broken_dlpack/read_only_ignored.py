"""Breaks P2.read_only: read-only arrays exported without READ_ONLY."""

from _helpers import FLAG_READ_ONLY

from ._base import CHECK, namespace, managed

__dlpack_check__ = CHECK


def _answer(a, kw):
    cap = a.__dlpack__(**kw)
    if kw.get("max_version", (0, 0))[0] >= 1:
        managed(cap).flags &= ~FLAG_READ_ONLY
    return cap


asarray, Array = namespace(_answer)
