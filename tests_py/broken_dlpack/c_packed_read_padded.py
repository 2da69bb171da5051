"""Breaks C.values with packed sub-byte data: a float6 or float4 tensor is
taken for one element per byte whatever its flags say (as a consumer whose
own sub-byte types are padded, ml_dtypes' for one, might). DLPack's default
for those types is packed (S7); the checker hands consumers both."""

import godlpack as gd

from ._base import GD_CONSUMER, ask, managed, namespace

__dlpack_check__ = GD_CONSUMER
asarray, Array = namespace(lambda a, kw: a.__dlpack__(**kw))

IS_SUBBYTE_TYPE_PADDED = 1 << 2


def from_dlpack(x, *, device=None, copy=None):
    cap = ask(x, copy)
    m = managed(cap)
    if hasattr(m, "flags") and m.dl_tensor.dtype.bits < 8:
        m.flags |= IS_SUBBYTE_TYPE_PADDED  # the break: packed data read as padded
    return gd.from_dlpack(cap)
