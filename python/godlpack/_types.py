"""DType, Device and DLDeviceType: the small value types of godlpack.

Every name and number comes from _tables.py, which `make tables` writes from
the Go core; nothing here restates a DLPack table. No typing at runtime: the
annotations are for readers and checkers (the public ones are in
__init__.pyi).
"""

from __future__ import annotations

from . import _oneapi

import enum

from . import _tables

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Iterator

__all__ = ["DLDeviceType", "DType", "Device"]

DLDeviceType = enum.IntEnum(
    "DLDeviceType", [(enum_name, t) for t, (enum_name, _) in _tables.DEVICE_TYPES.items()], module="godlpack"
)
DLDeviceType.__doc__ = (
    f"DLPack {_tables.DLPACK_VERSION[0]}.{_tables.DLPACK_VERSION[1]} device types (DLDeviceType in dlpack.h). "
    "5 and 6 are retired."
)

# short names used by Device strings ("cpu:0", "cuda:1"); IntEnum members
# hash and compare as their ints, so they index this directly
_SHORT = {t: short for t, (_, short) in _tables.DEVICE_TYPES.items()}
# short name or enum name -> DLDeviceType, built by the first parse of a name
_BY_NAME: dict = {}


def _device_names() -> dict:
    for t in DLDeviceType:
        _BY_NAME[_SHORT[t]] = t
        _BY_NAME[t.name] = t
    return _BY_NAME


class Device:
    """A DLPack device: ``Device("cpu")``, ``Device("cuda:1")``, ``Device((2, 1))``.

    ``.type`` is a :class:`DLDeviceType`, ``.id`` an int; ``str(d)`` is ``"cpu:0"``.
    """

    __slots__ = ("_id", "_type")
    _type: DLDeviceType
    _id: int

    def __init__(self, spec: DeviceLike, id: int | None = None) -> None:
        t, i = _parse_device(spec)
        if id is not None:
            if isinstance(spec, str) and ":" in spec:
                raise TypeError("Device(): give the id either in the string or as id=, not both")
            if isinstance(spec, (tuple, Device)):
                raise TypeError("Device(): id= is only valid with a device name")
            i = _check_id(t, id, spec)
        object.__setattr__(self, "_type", t)
        object.__setattr__(self, "_id", i)

    @property
    def type(self) -> DLDeviceType:
        return self._type

    @property
    def id(self) -> int:
        return self._id

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("godlpack.Device is immutable")

    def __iter__(self) -> Iterator[int]:
        return iter((self._type, self._id))

    def __str__(self) -> str:
        return f"{_SHORT[self._type]}:{self._id}"

    def __repr__(self) -> str:
        return f"Device('{self}')"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Device):
            return self._type == other._type and self._id == other._id
        if isinstance(other, (str, tuple)):
            try:
                return (self._type, self._id) == _parse_device(other)
            except (TypeError, ValueError):
                return False
        return NotImplemented

    def __hash__(self) -> int:
        return hash((int(self._type), self._id))

    def __reduce__(self) -> tuple[Any, tuple[tuple[int, int]]]:
        return (Device, ((int(self._type), self._id),))


# What Device() and every device= argument accept (also at run time: see
# godlpack.DeviceLike).
DeviceLike = str | tuple[int, int] | Device


def _check_id(t: DLDeviceType, i: Any, spec: Any) -> int:
    if isinstance(i, bool) or not isinstance(i, int):
        raise TypeError(f"device id must be an int, got {i!r}")
    if i < 0 or i > _tables.MAX_DEVICE_ID:
        raise ValueError(f"invalid device id {i} in {spec!r}; use a non-negative int")
    if i != 0 and t in _tables.ZERO_ID_DEVICE_TYPES:
        raise ValueError(f"device {spec!r}: the id of {_SHORT[t]} memory must be 0; use \"{_SHORT[t]}\"")
    return i


def _parse_device(spec: Any) -> tuple[DLDeviceType, int]:
    """Parses a device spec into (DLDeviceType, id); raises TypeError/ValueError."""
    if isinstance(spec, Device):
        return spec._type, spec._id
    if isinstance(spec, str):
        name, sep, idtext = spec.partition(":")
        t = (_BY_NAME or _device_names()).get(name)
        if t is None:
            raise ValueError(
                f"unknown device {spec!r}; use \"cpu\", \"cuda:N\" or another DLPack device name such as \"oneapi:0\""
            )
        i = 0
        if sep:
            if not idtext.isdigit() or not idtext.isascii():
                raise ValueError(f"invalid device id in {spec!r}; use a non-negative integer, e.g. \"{_SHORT[t]}:0\"")
            i = int(idtext)
        return t, _check_id(t, i, spec)
    if isinstance(spec, tuple):
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in spec):
            raise TypeError(f"a device tuple must be (device_type, device_id) of ints, got {spec!r}")
        if len(spec) != 2:
            raise ValueError(f"a device tuple must have two items (device_type, device_id), got {spec!r}")
        try:
            t = DLDeviceType(spec[0])
        except ValueError:
            raise ValueError(f"unknown DLPack device type {spec[0]} in {spec!r}") from None
        return t, _check_id(t, spec[1], spec)
    raise TypeError(
        f"expected a device: \"cpu\", \"cuda:N\", a godlpack.Device or a (device_type, device_id) tuple, got {spec!r}"
    )


def _device_pair(spec: Any, entry: str | None = None) -> tuple[int, int]:
    """Used by the C skin: device spec -> (int type, int id), a refusal
    starting with the entry point the user called when given."""
    try:
        t, i = _parse_device(spec)
    except (TypeError, ValueError) as e:
        if entry is None:
            raise
        raise type(e)(f"{entry}: {e}") from None
    if t == _oneapi.KDL_ONEAPI:
        _oneapi.ensure()
    return int(t), i


# ---------------------------------------------------------------- dtypes


class DType:
    """An element type: ``.name`` ("float32"), ``.code``, ``.bits``, ``.lanes``.

    Compares equal to its name (``gd.float32 == "float32"``) and hashes like it.
    """

    __slots__ = ("_bits", "_code", "_key", "_lanes", "_name")
    _name: str
    _code: int
    _bits: int
    _lanes: int
    _key: int

    def __init__(self, name: str, code: int, bits: int, lanes: int = 1) -> None:
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_code", code)
        object.__setattr__(self, "_bits", bits)
        object.__setattr__(self, "_lanes", lanes)
        object.__setattr__(self, "_key", code | (bits << 8) | (lanes << 16))

    @property
    def name(self) -> str:
        """numpy / ml_dtypes name, e.g. 'float32'."""
        return self._name

    @property
    def code(self) -> int:
        """DLPack DLDataTypeCode."""
        return self._code

    @property
    def bits(self) -> int:
        """Bits per lane."""
        return self._bits

    @property
    def lanes(self) -> int:
        """Lanes (always 1)."""
        return self._lanes

    @property
    def itemsize(self) -> int:
        """Bytes per element; 0 for packed sub-byte types."""
        b = self._bits * self._lanes
        return b // 8 if b % 8 == 0 else 0

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("godlpack.DType is immutable")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DType):
            return self._key == other._key
        if isinstance(other, str):
            d = _BY_DTYPE_NAME.get(other)
            return d is not None and d._key == self._key
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._name)

    def __str__(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"godlpack.{_PY_NAME.get(self._name, self._name)}"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (_dtype_by_name, (self._name,))


# The C skin receives _BY_KEY at import and looks every array's dtype up in
# it, so all DType objects exist from the start.
_BY_KEY = {}
# name or alias (as core.ParseDataType) -> DType
_BY_DTYPE_NAME = {}
for _n, (_c, _b) in _tables.DTYPES.items():
    _d = DType(_n, _c, _b)
    _BY_KEY[_d._key] = _BY_DTYPE_NAME[_n] = _d
for _n, _c in _tables.DTYPE_ALIASES.items():
    _BY_DTYPE_NAME[_n] = _BY_DTYPE_NAME[_c]
del _n, _c, _b, _d
# Python names of the dtype constants that differ from the dtype's name
_PY_NAME = {"bool": "bool_"}


def _dtype_constants() -> dict:
    """The module-level dtype constants of godlpack: Python name -> DType."""
    return {_PY_NAME.get(n, n): _BY_DTYPE_NAME[n] for n in _tables.DTYPES}


def _dtype_by_name(name: str) -> DType:
    return _BY_DTYPE_NAME[name]


def _as_dtype(dt: Any, entry: str = "dtype") -> DType:
    """dtype argument -> DType: a DType, a name, a Python type, or an object
    with a numpy-like .name / str() (numpy.dtype, torch.dtype)."""
    if isinstance(dt, DType):
        return dt
    if isinstance(dt, str):
        d = _BY_DTYPE_NAME.get(dt)
        if d is not None:
            return d
        raise ValueError(
            f"{entry}: unknown dtype {dt!r}; use a name such as \"float32\", \"int64\", \"bool\" or \"float8_e4m3fn\""
        )
    if dt is bool:
        return _BY_DTYPE_NAME["bool"]
    if dt is int:
        return _BY_DTYPE_NAME["int64"]
    if dt is float:
        return _BY_DTYPE_NAME["float64"]
    if dt is complex:
        return _BY_DTYPE_NAME["complex128"]
    # numpy.dtype (ml_dtypes' too) and torch.dtype name themselves; numpy's
    # and ml_dtypes' scalar types (np.float32, ml_dtypes.bfloat16) by their
    # class name. Neither numpy nor torch is imported for this.
    name = getattr(dt, "name", None)
    if not isinstance(name, str):
        name = None
        if isinstance(dt, type) and dt.__module__.partition(".")[0] in ("numpy", "ml_dtypes"):
            name = dt.__name__
        elif type(dt).__module__ == "torch":
            s = str(dt)
            name = s[len("torch."):] if s.startswith("torch.") else s
    d = _BY_DTYPE_NAME.get(name) if name is not None else None
    if d is None:
        raise TypeError(
            f"{entry}: cannot interpret {dt!r} as a godlpack dtype; pass a dtype name such as \"float32\", "
            f"a godlpack dtype (godlpack.float32), or a numpy, ml_dtypes or torch dtype"
        )
    return d


Device.__module__ = "godlpack"
DType.__module__ = "godlpack"
