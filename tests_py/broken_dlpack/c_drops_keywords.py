"""Breaks C7.pass: from_dlpack asks for a versioned capsule but keeps its
copy keyword to itself (it copies afterwards, so C7.copy still holds)."""

import godlpack as gd

from ._base import GD_CONSUMER, ask, namespace

__dlpack_check__ = GD_CONSUMER
asarray, Array = namespace(lambda a, kw: a.__dlpack__(**kw))


def from_dlpack(x, *, device=None, copy=None):
    cap = ask(x)  # a local, not a temporary: the capsule dies as this frame does, not mid-call with an error set
    a = gd.from_dlpack(cap)  # copy is not passed on
    return a.copy() if copy else a
