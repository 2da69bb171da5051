"""Breaks P4.copy: copy=True makes a copy but leaves IS_COPIED clear."""

from _helpers import FLAG_IS_COPIED

from ._base import CHECK, namespace, managed

__dlpack_check__ = CHECK


def _answer(a, kw):
    cap = a.__dlpack__(**kw)
    if kw.get("copy") is True:
        managed(cap).flags &= ~FLAG_IS_COPIED
    return cap


asarray, Array = namespace(_answer)
