"""numpy's array protocols for godlpack.Array and godlpack.DType (set by ``godlpack``).

- ``Array.__array__(dtype=None, copy=None)``, numpy 2's signature: what
  ``np.asarray(a)`` calls when the buffer protocol cannot describe the array
  (bfloat16, float8, ...). A zero-copy view of host memory that keeps
  read-only-ness; dtypes numpy lacks come back as their ml_dtypes dtype, or a
  TypeError naming ``astype`` when ml_dtypes is not installed: never a
  silent float64.
- ``DType.dtype`` and ``__numpy_dtype__``: the numpy dtype of a godlpack
  dtype, which is how ``np.dtype(gd.float32)`` reads it; numpy.dtype's other
  attributes (``kind``, ``char``, ``str``, ...) come from it too, for the
  readers of ``a.dtype`` (pandas, Dask, zarr). ``Array.__numpy_dtype__``
  (numpy 2.4) makes ``np.result_type(a)`` and ``jnp.asarray(a)`` work.
- ``Array.__contains__``: ``v in a`` is ``(a == v).any()``, as numpy's.

numpy (and ml_dtypes) are imported on first use only: ``import godlpack``
imports neither.
"""

from __future__ import annotations

from . import _native, _types

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# godlpack dtype name -> the numpy dtype; filled on first use
_NUMPY_DTYPES: dict = {}
# dtypes numpy lacks: the unsigned integer of the same size numpy reads their bits as
_BITS_AS = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}


def numpy_dtype(dt: _types.DType, entry: str) -> Any:
    """The numpy dtype of dt: numpy's own, else ml_dtypes' (bfloat16, float8,
    int4, ...); TypeError when neither has it."""
    got = _NUMPY_DTYPES.get(dt.name)
    if got is not None:
        return got
    import numpy as np

    try:
        got = np.dtype(dt.name)
    except TypeError:
        try:
            import ml_dtypes
        except ImportError:
            raise TypeError(
                f"{entry}: numpy has no dtype {dt.name}; install ml_dtypes (pip install ml_dtypes), which adds it "
                f"to numpy, or convert first, e.g. a.astype(\"float32\")"
            ) from None
        kind = getattr(ml_dtypes, dt.name, None)
        if kind is None:
            raise TypeError(
                f"{entry}: neither numpy nor ml_dtypes has the dtype {dt.name}; convert first, "
                f"e.g. a.astype(\"float32\")"
            ) from None
        got = np.dtype(kind)
    _NUMPY_DTYPES[dt.name] = got
    return got


def is_ml_dtypes(n: Any) -> bool:
    """Whether numpy array n holds a dtype numpy itself lacks (ml_dtypes'
    bfloat16, float8, float6, float4), which numpy's DLPack export refuses."""
    return n.dtype.kind == "V" or n.dtype.type.__module__.partition(".")[0] == "ml_dtypes"


def from_ml_dtypes(n: Any, entry: str) -> _native.Array:
    """An Array over numpy array n of an ml_dtypes dtype, with that dtype:
    zero-copy through n's bits as unsigned integers; float6 and float4 (a
    byte per element in ml_dtypes, godlpack's padded layout) zero-copy when n
    is contiguous, else from a contiguous copy."""
    dt = _types._as_dtype(n.dtype, entry)
    if dt.bits == 8 * n.itemsize:
        return _native._retype(_native._asarray_dlpack(n.view(f"u{n.itemsize}"), None, False), dt._key, entry)
    import numpy as np

    c = n if n.flags.c_contiguous or n.flags.f_contiguous else np.ascontiguousarray(n)
    from . import _pickle

    return _pickle._rebuild_buffer(c.view(np.uint8), dt._key, c.shape, not c.flags.c_contiguous,
                                   not c.flags.writeable, True)


def _dtype_numpy(self: _types.DType) -> Any:
    """The numpy dtype of this dtype (np.dtype(gd.float32) reads it): numpy's own,
    or ml_dtypes' for bfloat16, float8 and the other dtypes numpy lacks."""
    return numpy_dtype(self, f"np.dtype(godlpack.{self.name})")


def _numpy_attr(self: _types.DType, name: str) -> Any:
    """numpy.dtype's other attributes (kind, char, str, type, ...), which Dask,
    pandas and zarr read from an array's dtype, from the numpy dtype."""
    if name.startswith("_"):
        raise AttributeError(name)
    try:
        return getattr(numpy_dtype(self, f"godlpack.{self.name}.{name}"), name)
    except (ImportError, TypeError) as e:
        raise AttributeError(f"godlpack.DType has no attribute {name!r}: {e}") from None


def _array_numpy_dtype(self: _native.Array) -> Any:
    """The numpy dtype of the array's elements (numpy 2.4's __numpy_dtype__):
    how np.result_type(a), jnp.asarray(a) and other readers of a.dtype see it."""
    return numpy_dtype(self.dtype, "__numpy_dtype__")


def _array(self: _native.Array, dtype: Any = None, copy: bool | None = None) -> Any:
    """np.asarray(a): a numpy.ndarray over the array's memory (zero-copy,
    read-only kept) unless dtype or copy=True asks for a copy."""
    if copy is not None and copy is not True and copy is not False:
        raise ValueError(f"__array__(): copy must be None, True or False, got {copy!r}")
    import numpy as np

    dt = self.dtype
    want = numpy_dtype(dt, "__array__()")
    if self.device != _CPU:
        raise TypeError(
            f"__array__(): the array is on {self.device}, and numpy reads CPU memory only; "
            f"copy it first with a.to_device(\"cpu\")"
        )
    if dt.bits < 8:
        raise TypeError(
            f"__array__(): numpy has no layout for the sub-byte dtype {dt.name}; "
            f"convert first, e.g. a.astype(\"float32\")"
        )
    if want.kind == "V" or want.type.__module__.partition(".")[0] == "ml_dtypes":
        # numpy's DLPack import knows only its own dtypes: take the bits, then view them
        bits = _types._BY_DTYPE_NAME[_BITS_AS[self.itemsize]]
        out = np.from_dlpack(_native._retype(self, bits._key, "__array__()")).view(want)
    else:
        out = np.from_dlpack(self)
    if dtype is not None and np.dtype(dtype) != out.dtype:
        if copy is False:
            raise ValueError(
                f"__array__(): copy=False but converting {dt.name} to {np.dtype(dtype)} needs a copy; "
                f"pass copy=None or True"
            )
        return out.astype(dtype)
    return out.copy() if copy else out


def _contains(self: _native.Array, value: Any) -> bool:
    """v in a: whether any element equals v, as numpy's (a == v).any()."""
    eq = self == value
    return bool(eq.any()) if isinstance(eq, _native.Array) else bool(eq)


def _ravel(self: _native.Array, order: str = "C") -> _native.Array:
    """The elements in one axis, C order, contiguous as numpy's ravel gives
    them: a view of a C-contiguous array, else a copy."""
    if order != "C":
        raise ValueError(f"ravel(): only C order is supported, got order={order!r}; pass order=\"C\"")
    flat = self.reshape(-1)  # a view wherever one axis can step through the elements
    return flat if flat.size <= 1 or flat.strides == (1,) else flat.copy()


def _view(self: _native.Array, dtype: Any) -> _native.Array:
    """The same memory seen as dtype, as numpy's a.view(dtype): any layout when
    the itemsize is the same; a C-contiguous array otherwise, whose last axis
    is rescaled (core/desc.go, ViewDTypeDesc). Here: the dtype argument."""
    try:
        dt = _types._as_dtype(dtype, "view()")
    except ValueError as unknown:
        # numpy's type codes ("B", "<u2"), which zarr passes: numpy is in use then
        import numpy as np

        try:
            kind = np.dtype(dtype)
        except TypeError:
            raise unknown from None
        dt = _types._as_dtype(kind, "view()")
    if dt == self.dtype:
        return self[...]
    return _native._view_dtype(self, dt._key)  # core decides the layout (ViewDTypeDesc)


def _arrow_array(self: _native.Array, type: Any = None) -> Any:
    """pa.array(a) and pa.array(a, type=): pyarrow's array over the Arrow C
    data interface (__arrow_c_array__: 1-d; the elements shared when they lie
    one after the other), cast to type when one is given and differs (a safe
    cast, as pa.array of numpy's array checks its values). pyarrow asks this
    method before the interface, and its own handling of a declined
    requested_schema fails (pyarrow 26: `array.cast`)."""
    import pyarrow as pa  # type: ignore[import-untyped]

    out = pa.Array._import_from_c_capsule(*self.__arrow_c_array__())
    return out if type is None or out.type == type else out.cast(type)


_CPU = _types.CPU


def install(dtype_cls: type) -> None:
    """numpy's protocols on godlpack.DType (Array's come from its generated
    tables: internal/gentables/pyspec, PyImpls)."""
    setattr(dtype_cls, "dtype", property(_dtype_numpy))  # noqa: B010
    setattr(dtype_cls, "__numpy_dtype__", property(_dtype_numpy))  # noqa: B010
    setattr(dtype_cls, "__getattr__", _numpy_attr)  # noqa: B010
