"""Breaks C3.deleter: the producer's deleter never runs (the import is leaked)."""

import godlpack as gd

from ._base import GD_CONSUMER, namespace

__dlpack_check__ = GD_CONSUMER
asarray, Array = namespace(lambda a, kw: a.__dlpack__(**kw))


_leaked = []


def from_dlpack(x, *, device=None, copy=None):
    a = gd.from_dlpack(x, copy=copy)
    _leaked.append(a)
    return a
