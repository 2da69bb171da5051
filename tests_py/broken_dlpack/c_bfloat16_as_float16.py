"""Breaks C.values with a dtype its row does not list: bfloat16 (type code 4)
is imported as float16, the same bits read as another type. Every dtype
godlpack makes is handed to a consumer, whatever it makes itself; the
import is read back through DLPack, which carries bfloat16."""

from ._base import CONSUMER, _KIND, namespace, import_capsule, ask

__dlpack_check__ = CONSUMER
asarray, Array = namespace(lambda a, kw: a.__dlpack__(**kw))


def from_dlpack(x, *, device=None, copy=None):
    _KIND.setdefault(4, "f")  # kDLBfloat read as numpy's float16: the break
    return import_capsule(ask(x, copy))
