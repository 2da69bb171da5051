"""Array.astype and the stacking half of asarray(list of arrays).

The conversions themselves run in the Go core (core/convert.go) through
_native._convert and _native._stack_into; this module parses arguments and
chooses the stacked dtype.
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


# numpy's promotion of two dtypes, by kind and bits.
def _promote2(a: DType, b: DType) -> DType | None:
    if a == b:
        return a
    ka, kb = _kind(a), _kind(b)
    if ka is None or kb is None:  # bfloat16, float8: only with bool or wider standard floats
        x, y = (a, b) if ka is None else (b, a)
        ky = _kind(y)
        if ky == "b":
            return x
        if ky in ("f", "c") and y.bits > 16:
            return y
        return None
    if ka == "b":
        return b
    if kb == "b":
        return a
    if ka in "iu" and kb in "iu":
        if ka == kb:
            return a if a.bits >= b.bits else b
        s, u = (a, b) if ka == "i" else (b, a)
        if s.bits > u.bits:
            return s
        return _by_name(f"int{u.bits * 2}") if u.bits < 64 else _by_name("float64")
    # at least one float or complex: the float bits needed to hold the other side
    fb = max(_float_bits(a), _float_bits(b))
    if "c" in (ka, kb):
        return _by_name(f"complex{max(fb, 32) * 2}")
    return _by_name(f"float{fb}")


def _kind(d: DType) -> str | None:
    n = d.name
    if n == "bool":
        return "b"
    if n.startswith("int"):
        return "i"
    if n.startswith("uint"):
        return "u"
    if n in ("float16", "float32", "float64"):
        return "f"
    if n.startswith("complex"):
        return "c"
    return None


def _float_bits(d: DType) -> int:
    """The float width that holds d's values (numpy: int8 -> 16, int16 -> 32, ...)."""
    k = _kind(d)
    if k == "f":
        return d.bits
    if k == "c":
        return d.bits // 2
    return {8: 16, 16: 32}.get(d.bits, 64)


def _by_name(n: str) -> DType:
    return _types._BY_DTYPE_NAME[n]


def stack(items: Any, dtype: DType | None, asarray: Any) -> _native.Array:
    """asarray([a, b, ...]) of arrays (or objects with __dlpack__) of one shape: np.stack."""
    arrs: list[_native.Array] = [x if isinstance(x, _native.Array) else asarray(x) for x in items]
    shape = arrs[0].shape
    dt = dtype
    for a in arrs:
        if a.shape != shape:
            raise ValueError(
                f"asarray(): the arrays of a stacked list must have one shape, got {shape} and {a.shape}; "
                f"pass arrays of the same shape"
            )
        if dtype is None:
            p = _promote2(dt, a.dtype) if dt is not None else a.dtype
            if p is None:
                raise TypeError(
                    f"asarray(): cannot stack {dt} with {a.dtype} without choosing a dtype; pass dtype="
                )
            dt = p
    assert dt is not None
    out = _native._full((len(arrs),) + tuple(shape), dt._key, None)
    for i, a in enumerate(arrs):
        _native._stack_into(out, i, a, "asarray()")
    return out
