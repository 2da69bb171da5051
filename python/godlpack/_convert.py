"""Array.astype and the stacking half of asarray(list of arrays).

The conversions themselves run in the Go core (core/convert.go, core/kernels/convert.go) through
_native._convert and _native._stack_into, and core chooses the stacked dtype
(core/promote.go, _native._result_type); this module parses arguments.
"""

from __future__ import annotations

from . import _native, _types

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._types import DType


def astype(self: _native.Array, dtype: Any, order: str = "K", *, copy: bool = True) -> _native.Array:
    """A new C-contiguous array of ``dtype`` holding this array's values cast as numpy
    casts them (float -> int truncates, complex -> real drops the imaginary part,
    x -> bool is x != 0; float16/bfloat16/float8 round as numpy and ml_dtypes do).
    ``copy=False`` returns the array itself when it already has ``dtype``. ``order``
    is accepted as numpy's ("K", "A", "C"; the result is C-contiguous); "F" is refused."""
    if order not in ("K", "A", "C"):
        raise ValueError(f"astype(): order must be \"K\", \"A\" or \"C\" (the result is C-contiguous), got {order!r}")
    dt = _types._as_dtype(dtype, "astype()")
    if copy is not True and copy is not False:
        raise ValueError(f"astype(): copy must be True or False, got {copy!r}; pass copy=True or copy=False")
    if copy is False and self.dtype == dt:
        return self
    return _native._convert(self, dt._key, "astype()")


def stack(items: Any, dtype: DType | None, asarray: Any) -> _native.Array:
    """asarray([a, b, ...]) of arrays (or objects with __dlpack__) of one shape: np.stack."""
    arrs: list[_native.Array] = [x if isinstance(x, _native.Array) else asarray(x) for x in items]
    shape = arrs[0].shape
    for a in arrs:
        if a.shape != shape:
            raise ValueError(
                f"asarray(): the arrays of a stacked list must have one shape, got {shape} and {a.shape}; "
                f"pass arrays of the same shape"
            )
    # numpy's promotion, as core decides it (core/promote.go)
    dt = dtype if dtype is not None else _types._BY_KEY[_native._result_type(tuple(a.dtype._key for a in arrs),
                                                                               "asarray()")]
    out = _native._full((len(arrs),) + tuple(shape), dt._key, None)
    for i, a in enumerate(arrs):
        _native._stack_into(out, i, a, "asarray()")
    return out
