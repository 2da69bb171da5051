"""Breaks C5.read_only: a READ_ONLY tensor is imported writable."""



from ._base import CONSUMER, namespace, import_capsule, ask

__dlpack_check__ = CONSUMER
asarray, Array = namespace(lambda a, kw: a.__dlpack__(**kw))


def from_dlpack(x, *, device=None, copy=None):
    return import_capsule(ask(x, copy), honour_read_only=False)
