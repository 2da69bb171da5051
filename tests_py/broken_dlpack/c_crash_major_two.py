"""Breaks X.crash: a capsule of version 2.0 kills the process (as a consumer that
reads a struct it does not know would)."""

import os
import godlpack as gd

from _helpers import capsule_name

from ._base import GD_CONSUMER, namespace, ask, managed

__dlpack_check__ = GD_CONSUMER
asarray, Array = namespace(lambda a, kw: a.__dlpack__(**kw))


def from_dlpack(x, *, device=None, copy=None):
    cap = ask(x, copy)
    if capsule_name(cap) == "dltensor_versioned" and managed(cap).version.major == 2:
        os.abort()
    return gd.from_dlpack(cap)
