"""Breaks X.crash: from_dlpack kills the process on negative strides (as torch
before 2.15 did, pytorch#188023). The library makes no reversed views of its
own (no_views), which must not keep the checker from handing it one."""

import os

import godlpack as gd

from ._base import GD_CONSUMER, ask, managed, namespace

__dlpack_check__ = dict(GD_CONSUMER, no_views=("reversed",))
asarray, Array = namespace(lambda a, kw: a.__dlpack__(**kw))


def from_dlpack(x, *, device=None, copy=None):
    cap = ask(x, copy)
    t = managed(cap).dl_tensor
    if t.strides and any(t.strides[i] < 0 for i in range(t.ndim)):
        os.abort()
    return gd.from_dlpack(cap)
