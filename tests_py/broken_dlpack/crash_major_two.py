"""Breaks X.crash: max_version=(2, 0) kills the process (as a C producer
that indexes a table by major version would)."""

import os

from ._base import CHECK, namespace

__dlpack_check__ = CHECK


def _answer(a, kw):
    if kw.get("max_version", (0, 0))[0] >= 2:
        os.abort()
    return a.__dlpack__(**kw)


asarray, Array = namespace(_answer)
