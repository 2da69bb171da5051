"""DType, Device and DLDeviceType: the small value types of godlpack.

Every name and number comes from _tables.py, which `make tables` writes from
the Go core; nothing here restates a DLPack table. No typing at runtime: the
annotations are for readers and checkers (the public ones are in
__init__.pyi).
"""

from __future__ import annotations

from . import _oneapi

import sys

from . import _native, _tables

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Iterator
    from enum import IntEnum as DLDeviceType  # the class device_types() builds (see _types.pyi)

__all__ = ["DLDeviceType", "DType", "Device"]

# short names used by Device strings ("cpu:0", "cuda:1"), by device type value
_SHORT = {t: short for t, (_, short) in _tables.DEVICE_TYPES.items()}
# DLDeviceType is an IntEnum, and `enum` (with functools and collections)
# costs more than the rest of `import godlpack`: the class is built by its
# first use (godlpack.DLDeviceType, Device.type, __dlpack_device__), or as soon
# as any other module imports enum (_engines). Until then `DLDeviceType` is
# answered by a module __getattr__ here and in the package, which the build
# removes: a module with one is not specialised for `gd.name` lookups.
_MEMBERS: dict = {}
# threads that use it first build one class between them; reentrant, because
# `import enum` here runs _engines' hook, which calls device_types again
_BUILDING = __import__("_thread").RLock()


def device_types() -> type[DLDeviceType]:
    """godlpack.DLDeviceType, built by the first call."""
    if not _MEMBERS:
        with _BUILDING:
            import enum  # may build it (the hook)

            if not _MEMBERS:
                _build_device_types(enum)
    return type(_MEMBERS[1])


def _build_device_types(enum: Any) -> None:
    cls = enum.IntEnum("DLDeviceType", [(name, t) for t, (name, _) in _tables.DEVICE_TYPES.items()],
                       module="godlpack")
    cls.__doc__ = (f"DLPack {_tables.DLPACK_VERSION[0]}.{_tables.DLPACK_VERSION[1]} device types "
                   "(DLDeviceType in dlpack.h). 5 and 6 are retired.")
    _MEMBERS.update({int(m): m for m in cls})  # at once: readers outside the lock see all or none
    for mod in (sys.modules[__name__], sys.modules.get(__package__)):
        if mod is not None:
            vars(mod)["DLDeviceType"] = cls
            vars(mod).pop("__getattr__", None)


def __getattr__(name: str) -> Any:
    if name == "DLDeviceType":
        return device_types()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Device:
    """A DLPack device: ``Device("cpu")``, ``Device("cuda:1")``, ``Device((2, 1))``.

    ``.type`` is a :class:`DLDeviceType`, ``.id`` an int; ``str(d)`` is ``"cpu:0"``.
    """

    __slots__ = ("_id", "_type")
    _type: int
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
        if not _MEMBERS:
            device_types()
        return _MEMBERS[self._type]

    @property
    def id(self) -> int:
        return self._id

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("godlpack.Device is immutable")

    def __iter__(self) -> Iterator[int]:
        return iter((self.type, self._id))

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
        return hash((self._type, self._id))

    def __reduce__(self) -> tuple[Any, tuple[tuple[int, int]]]:
        return (Device, ((self._type, self._id),))


# What Device() and every device= argument accept (also at run time: see
# godlpack.DeviceLike).
DeviceLike = str | tuple[int, int] | Device


def _check_id(t: int, i: Any, spec: Any, entry: str = "Device()") -> int:
    if isinstance(i, bool) or not isinstance(i, int):
        raise TypeError(f"{entry}: device id must be an int, got {i!r}")
    return _native._device(repr(spec), entry, t, i)[1]


def _parse_device(spec: Any, entry: str = "Device()") -> tuple[int, int]:
    """Parses a device spec into (device type value, id): core's rule
    (core.DeviceArg); raises TypeError/ValueError starting with entry."""
    if isinstance(spec, Device):
        return spec._type, spec._id
    if isinstance(spec, tuple):
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in spec):
            raise TypeError(f"{entry}: a device tuple must be (device_type, device_id) of ints, got {spec!r}")
        if len(spec) != 2:
            raise ValueError(f"{entry}: a device tuple must have two items (device_type, device_id), got {spec!r}")
    elif not isinstance(spec, str):
        raise TypeError(f"{entry}: expected a device: \"cpu\", \"cuda:N\", a godlpack.Device or a (device_type, "
                        f"device_id) tuple, got {spec!r}")
    if (got := _SEEN.get(spec)) is None:
        got = _native._device(spec, entry) if isinstance(spec, str) else _native._device(repr(spec), entry, *spec)
        if len(_SEEN) < 64:
            _SEEN[spec] = got
    return got


# specs core accepted: a device= that names one again costs no call into Go
_SEEN: dict[Any, tuple[int, int]] = {}


def _device_pair(spec: Any, entry: str | None = None) -> tuple[int, int]:
    """Used by the C skin: device spec -> (int type, int id), a refusal
    starting with the entry point the user called."""
    t, i = _parse_device(spec, entry or "Device()")
    if t == _oneapi.KDL_ONEAPI:
        _oneapi.ensure()
    return t, i


CPU = Device.__new__(Device)  # Device("cpu"), made without a call into core: import runs no Go code
object.__setattr__(CPU, "_type", next(t for t, (_, short) in _tables.DEVICE_TYPES.items() if short == "cpu"))
object.__setattr__(CPU, "_id", 0)


# ---------------------------------------------------------------- dtypes

# numpy's kind of each dtype numpy itself has (ml_dtypes adds the others)
_NUMPY_KINDS = {"bool": "b", "int8": "i", "int16": "i", "int32": "i", "int64": "i", "uint8": "u", "uint16": "u",
                "uint32": "u", "uint64": "u", "float16": "f", "float32": "f", "float64": "f", "complex64": "c",
                "complex128": "c"}


def _numpy_hash(name: str, bits: int) -> int:
    """hash(np.dtype(name)), computed without numpy as numpy computes it for
    a dtype with no fields: from its kind, byte order, flags, size and
    alignment. numpy's own types: no flags, alignment their size (a
    complex's, a part's), "|" for one byte; ml_dtypes' (bfloat16, float8,
    float6, float4): flag 64, kind "V" (float8_e5m2: "f"), a byte each for
    the sub-byte ones."""
    native = "<" if sys.byteorder == "little" else ">"
    size = max(bits // 8, 1)
    if name not in _NUMPY_KINDS:
        return hash(("f" if name == "float8_e5m2" else "V", native, 64, size, size))
    kind = _NUMPY_KINDS[name]
    return hash((kind, "|" if size == 1 else native, 0, size, size // 2 if kind == "c" else size))


class DType:
    """An element type: ``.name`` ("float32"), ``.code``, ``.bits``, ``.lanes``.

    Compares and hashes as numpy's dtype does: ``gd.float64`` equals
    ``np.dtype("float64")``, ``np.float64``, ``float``, ``"f8"``, ``"<f8"``,
    ``"double"`` (every spelling numpy accepts for it) and hashes as
    ``np.dtype("float64")``, so ``a.dtype in (np.float32, np.float64)`` and
    ``{np.dtype("float64"): v}[a.dtype]`` work as with numpy's arrays.
    """

    __slots__ = ("_bits", "_code", "_hash", "_key", "_lanes", "_name")
    _name: str
    _code: int
    _bits: int
    _lanes: int
    _key: int
    _hash: int

    def __init__(self, name: str, code: int, bits: int, lanes: int = 1) -> None:
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_code", code)
        object.__setattr__(self, "_bits", bits)
        object.__setattr__(self, "_lanes", lanes)
        object.__setattr__(self, "_key", code | (bits << 8) | (lanes << 16))
        object.__setattr__(self, "_hash", _numpy_hash(name, bits))

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
        d = _spelled(other)
        if d is NotImplemented:
            return NotImplemented
        return d is not None and d._key == self._key

    def __hash__(self) -> int:
        return self._hash

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

# numpy's other spellings of the dtypes godlpack has (Linux, numpy 2: C long
# is 64 bits). numpy takes a byte-order prefix on its type codes only
# (_NUMPY_CODES and the kind+size aliases of DTYPE_ALIASES), never on names.
_NUMPY_NAMES = {
    "byte": "int8", "ubyte": "uint8", "short": "int16", "ushort": "uint16", "intc": "int32", "uintc": "uint32",
    "int": "int64", "int_": "int64", "intp": "int64", "long": "int64", "longlong": "int64",
    "uint": "uint64", "uintp": "uint64", "ulong": "uint64", "ulonglong": "uint64",
    "half": "float16", "single": "float32", "double": "float64", "float": "float64",
    "csingle": "complex64", "cdouble": "complex128", "complex": "complex128",
}
_NUMPY_CODES = {
    "b": "int8", "B": "uint8", "h": "int16", "H": "uint16", "i": "int32", "I": "uint32",
    "l": "int64", "q": "int64", "p": "int64", "n": "int64", "L": "uint64", "Q": "uint64", "P": "uint64", "N": "uint64",
    "e": "float16", "f": "float32", "d": "float64", "F": "complex64", "D": "complex128",
}
_BY_SPELLING = dict(_BY_DTYPE_NAME)
for _n, _c in (*_NUMPY_NAMES.items(), *_NUMPY_CODES.items()):
    _BY_SPELLING[_n] = _BY_DTYPE_NAME[_c]
del _n, _c
_PYTHON_TYPES = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}


def _by_spelling(s: str) -> DType | None:
    """numpy's reading of the string s, when it names a dtype godlpack has."""
    d = _BY_SPELLING.get(s)
    if d is not None or s[:1] not in ("<", ">", "=", "|"):
        return d
    code = s[1:]
    if code not in _NUMPY_CODES and not (code in _tables.DTYPE_ALIASES and (code == "?" or code[1:].isdigit())):
        return None
    d = _BY_SPELLING[code]
    # ">f8" is big-endian, which godlpack has no dtype for; a byte has no order
    return d if s[0] != (">" if sys.byteorder == "little" else "<") or d._bits <= 8 else None


def _spelled(x: Any) -> Any:
    """The DType that numpy's dtype would equal x: a string, None (numpy's
    float64), a Python type, a numpy or ml_dtypes dtype, scalar type or
    scalar; None when x is one of those but no dtype of godlpack's;
    NotImplemented for anything else (an ndarray compares elementwise)."""
    if isinstance(x, str):
        return _by_spelling(x)
    if x is None:
        return _BY_DTYPE_NAME["float64"]
    if isinstance(x, type):
        if x in _PYTHON_TYPES:
            return _BY_DTYPE_NAME[_PYTHON_TYPES[x]]
        if x.__module__.partition(".")[0] in ("numpy", "ml_dtypes"):  # np.float32, ml_dtypes.bfloat16
            return _BY_SPELLING.get(x.__name__)
        return NotImplemented
    if type(x).__module__.partition(".")[0] not in ("numpy", "ml_dtypes") or type(x).__name__ == "ndarray":
        return NotImplemented
    if type(x).__module__ != "numpy.dtypes" and not hasattr(x, "isnative"):  # a scalar: its dtype
        x = getattr(x, "dtype", None)
        if x is None:
            return NotImplemented
    if not x.isnative or x.names is not None or x.subdtype is not None:
        return None
    return _BY_DTYPE_NAME.get(x.name)




def _dtype_constants() -> dict:
    """The module-level dtype constants of godlpack: Python name -> DType."""
    return {_PY_NAME.get(n, n): _BY_DTYPE_NAME[n] for n in _tables.DTYPES}


def _dtype_by_name(name: str) -> DType:
    return _BY_DTYPE_NAME[name]


def _big_endian(entry: str, dt: Any, native: Any) -> ValueError:
    return ValueError(f"{entry}: {dt!r} is a big-endian dtype, and godlpack's arrays are little-endian; "
                      f"use {native!r} (numpy's byteswap() turns big-endian data around)")


def _as_dtype(dt: Any, entry: str = "dtype") -> DType:
    """dtype argument -> DType: a DType, any spelling numpy accepts for one
    (a string, a Python type, a numpy or ml_dtypes dtype or scalar type), or
    a torch.dtype."""
    if isinstance(dt, DType):
        return dt
    if isinstance(dt, str):
        d = _by_spelling(dt)
        if d is not None:
            return d
        if dt[:1] == ">" and _by_spelling("<" + dt[1:]) is not None:
            raise _big_endian(entry, dt, "<" + dt[1:])
        raise ValueError(
            f"{entry}: unknown dtype {dt!r}; use a name such as \"float32\", \"int64\", \"bool\" or \"float8_e4m3fn\""
        )
    d = _spelled(dt) if dt is not None else NotImplemented
    if d is NotImplemented and type(dt).__module__ == "torch":  # torch.float32 prints as its name
        s = str(dt)
        d = _BY_DTYPE_NAME.get(s[len("torch."):] if s.startswith("torch.") else s)
    if d is None and getattr(dt, "isnative", True) is False and getattr(dt, "names", 1) is None:
        native = dt.newbyteorder("=")
        if isinstance(_spelled(native), DType):  # np.dtype(">f8"): refused as the string is, not read as "<f8"
            raise _big_endian(entry, dt, native)
    if not isinstance(d, DType):
        raise TypeError(
            f"{entry}: cannot interpret {dt!r} as a godlpack dtype; pass a dtype name such as \"float32\", "
            f"a godlpack dtype (godlpack.float32), or a numpy, ml_dtypes or torch dtype"
        )
    return d


Device.__module__ = "godlpack"
DType.__module__ = "godlpack"
