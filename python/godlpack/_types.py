"""DType, Device and DLDeviceType: the small value types of godlpack.

Keep the names in sync with core/dtype.go (DataType.String, ParseDataType)
and core/device.go (deviceNames).
"""

from __future__ import annotations

import enum
from typing import Any, Dict, FrozenSet, Iterator, Tuple, Union

__all__ = ["DLDeviceType", "DType", "Device", "DTypeLike", "DeviceLike"]


class DLDeviceType(enum.IntEnum):
    """DLPack 1.3 device types (DLDeviceType in dlpack.h). 5 and 6 are retired."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17
    kDLTrn = 18


# short names used by Device strings ("cpu:0", "cuda:1")
_SHORT = {
    DLDeviceType.kDLCPU: "cpu",
    DLDeviceType.kDLCUDA: "cuda",
    DLDeviceType.kDLCUDAHost: "cuda_host",
    DLDeviceType.kDLOpenCL: "opencl",
    DLDeviceType.kDLVulkan: "vulkan",
    DLDeviceType.kDLMetal: "metal",
    DLDeviceType.kDLVPI: "vpi",
    DLDeviceType.kDLROCM: "rocm",
    DLDeviceType.kDLROCMHost: "rocm_host",
    DLDeviceType.kDLExtDev: "ext_dev",
    DLDeviceType.kDLCUDAManaged: "cuda_managed",
    DLDeviceType.kDLOneAPI: "oneapi",
    DLDeviceType.kDLWebGPU: "webgpu",
    DLDeviceType.kDLHexagon: "hexagon",
    DLDeviceType.kDLMAIA: "maia",
    DLDeviceType.kDLTrn: "trn",
}
_BY_NAME: Dict[str, DLDeviceType] = {}
for _t, _n in _SHORT.items():
    _BY_NAME[_n] = _t
    _BY_NAME[_t.name] = _t
del _t, _n
_ZERO_ID: FrozenSet[DLDeviceType] = frozenset({DLDeviceType.kDLCPU, DLDeviceType.kDLCUDAHost, DLDeviceType.kDLCUDAManaged})


class Device:
    """A DLPack device: ``Device("cpu")``, ``Device("cuda:1")``, ``Device((2, 1))``.

    ``.type`` is a :class:`DLDeviceType`, ``.id`` an int; ``str(d)`` is ``"cpu:0"``.
    """

    __slots__ = ("_type", "_id")
    _type: DLDeviceType
    _id: int

    def __init__(self, spec: "DeviceLike", id: int | None = None) -> None:
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

    def __reduce__(self) -> Tuple[Any, Tuple[Tuple[int, int]]]:
        return (Device, ((int(self._type), self._id),))


def _check_id(t: DLDeviceType, i: Any, spec: Any) -> int:
    if isinstance(i, bool) or not isinstance(i, int):
        raise TypeError(f"device id must be an int, got {i!r}")
    if i < 0 or i > 2**31 - 1:
        raise ValueError(f"invalid device id {i} in {spec!r}; use a non-negative int")
    if i != 0 and t in _ZERO_ID:
        raise ValueError(f"device {spec!r}: the id of {_SHORT[t]} memory must be 0; use \"{_SHORT[t]}\"")
    return i


def _parse_device(spec: Any) -> Tuple[DLDeviceType, int]:
    """Parses a device spec into (DLDeviceType, id); raises TypeError/ValueError."""
    if isinstance(spec, Device):
        return spec._type, spec._id
    if isinstance(spec, str):
        name, sep, idtext = spec.partition(":")
        t = _BY_NAME.get(name)
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


def _device_pair(spec: Any) -> Tuple[int, int]:
    """Used by the C skin: device spec -> (int type, int id)."""
    t, i = _parse_device(spec)
    return int(t), i


DeviceLike = Union[str, Tuple[int, int], Device]

# ---------------------------------------------------------------- dtypes

# (name, DLPack code, bits): codes from dlpack.h (DLDataTypeCode)
_DTYPES = [
    ("bool", 6, 8),
    ("int8", 0, 8),
    ("int16", 0, 16),
    ("int32", 0, 32),
    ("int64", 0, 64),
    ("uint8", 1, 8),
    ("uint16", 1, 16),
    ("uint32", 1, 32),
    ("uint64", 1, 64),
    ("float16", 2, 16),
    ("float32", 2, 32),
    ("float64", 2, 64),
    ("bfloat16", 4, 16),
    ("complex64", 5, 64),
    ("complex128", 5, 128),
    ("float8_e3m4", 7, 8),
    ("float8_e4m3", 8, 8),
    ("float8_e4m3b11fnuz", 9, 8),
    ("float8_e4m3fn", 10, 8),
    ("float8_e4m3fnuz", 11, 8),
    ("float8_e5m2", 12, 8),
    ("float8_e5m2fnuz", 13, 8),
    ("float8_e8m0fnu", 14, 8),
    ("float6_e2m3fn", 15, 6),
    ("float6_e3m2fn", 16, 6),
    ("float4_e2m1fn", 17, 4),
]


class DType:
    """An element type: ``.name`` ("float32"), ``.code``, ``.bits``, ``.lanes``.

    Compares equal to its name (``gd.float32 == "float32"``) and hashes like it.
    """

    __slots__ = ("_name", "_code", "_bits", "_lanes", "_key")
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

    def __reduce__(self) -> Tuple[Any, Tuple[str]]:
        return (_dtype_by_name, (self._name,))


_BY_KEY: Dict[int, DType] = {}
_BY_DTYPE_NAME: Dict[str, DType] = {}
for _n, _c, _b in _DTYPES:
    _d = DType(_n, _c, _b)
    _BY_KEY[_d._key] = _d
    _BY_DTYPE_NAME[_n] = _d
del _n, _c, _b, _d
# aliases (as core.ParseDataType)
for _alias, _n in {
    "bool_": "bool", "?": "bool", "b1": "bool",
    "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
    "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
    "f2": "float16", "f4": "float32", "f8": "float64",
    "c8": "complex64", "c16": "complex128",
}.items():
    _BY_DTYPE_NAME[_alias] = _BY_DTYPE_NAME[_n]
del _alias, _n
_PY_NAME = {"bool": "bool_"}


def _dtype_by_name(name: str) -> DType:
    return _BY_DTYPE_NAME[name]


DTypeLike = Union[DType, str, type, Any]


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
    # numpy.dtype / numpy scalar types / torch.dtype
    name = getattr(dt, "name", None)
    if not isinstance(name, str):
        name = getattr(getattr(dt, "dtype", None), "name", None) if isinstance(dt, type) else None
    if name is None:
        s = str(dt)
        name = s[len("torch."):] if s.startswith("torch.") else s
    d = _BY_DTYPE_NAME.get(name)
    if d is None:
        raise TypeError(f"{entry}: cannot interpret {dt!r} as a godlpack dtype")
    return d


DLDeviceType.__module__ = "godlpack"
Device.__module__ = "godlpack"
DType.__module__ = "godlpack"
