"""Not broken: its asarray makes float32 of float64 data, as mlx's does
(mx.asarray of a float64 array is float32). The checker judges the array
it made, float32, and every check passes."""

import numpy as np

from ._base import CHECK, namespace

__dlpack_check__ = CHECK


def _answer(a, kw):
    return a.__dlpack__(**kw)


_asarray, Array = namespace(_answer)


def asarray(x, *args, **kwargs):
    x = np.asarray(x)
    if x.dtype == np.float64:
        y = x.astype(np.float32)
        y.flags.writeable = x.flags.writeable
        x = y
    return _asarray(x, *args, **kwargs)
