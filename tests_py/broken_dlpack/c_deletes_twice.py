"""Breaks C3.deleter: the deleter is called twice when the array dies (the
checker's counting deleters count it instead of crashing)."""

from ._base import CONSUMER, ask, import_capsule, namespace

__dlpack_check__ = CONSUMER
asarray, Array = namespace(lambda a, kw: a.__dlpack__(**kw))


def from_dlpack(x, *, device=None, copy=None):
    return import_capsule(ask(x, copy), deletes=2)
