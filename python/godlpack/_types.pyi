"""The value types of godlpack, defined once: godlpack re-exports them and
_native's Array returns them. stubtest (make typecheck) checks this file
against the runtime module, whose DLDeviceType is built from _tables.py."""

import enum
from typing import Any, TypeAlias
from collections.abc import Iterator

__all__ = ["DLDeviceType", "DType", "Device"]

DeviceLike: TypeAlias = str | tuple[int, int] | Device

class DLDeviceType(enum.IntEnum):
    """DLPack device types (DLDeviceType in dlpack.h)."""

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

class Device:
    """A DLPack device: ``Device("cpu")``, ``Device("cuda:1")``, ``Device((2, 1))``."""

    def __init__(self, spec: DeviceLike, id: int | None = None) -> None: ...
    @property
    def type(self) -> DLDeviceType: ...
    @property
    def id(self) -> int: ...
    def __setattr__(self, name: str, value: Any) -> None: ...
    def __iter__(self) -> Iterator[int]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[Any, tuple[tuple[int, int]]]: ...

class DType:
    """An element type; compares equal to its name (``gd.float32 == "float32"``)."""

    _key: int  # code | bits << 8 | lanes << 16: the C skin's dtype key

    def __init__(self, name: str, code: int, bits: int, lanes: int = 1) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def code(self) -> int: ...
    @property
    def bits(self) -> int: ...
    @property
    def lanes(self) -> int: ...
    @property
    def itemsize(self) -> int: ...
    @property
    def dtype(self) -> Any:
        """The numpy.dtype (ml_dtypes' for bfloat16, float8): what np.dtype(gd.float32) reads."""
    def __setattr__(self, name: str, value: Any) -> None: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[Any, tuple[str]]: ...

def _parse_device(spec: Any) -> tuple[DLDeviceType, int]: ...
def _device_pair(spec: Any) -> tuple[int, int]: ...
def _as_dtype(dt: Any, entry: str = ...) -> DType: ...
def _dtype_by_name(name: str) -> DType: ...
def _dtype_constants() -> dict[str, DType]: ...

_BY_KEY: dict[int, DType]
_BY_DTYPE_NAME: dict[str, DType]
