"""godlpack: n-dimensional arrays in Go, exchanged zero-copy through DLPack 1.3."""

from typing import Any, TypeAlias
from collections.abc import Sequence

from ._native import Array as Array
from ._native import from_dlpack as from_dlpack
from ._native import may_share_memory as may_share_memory
from ._types import DLDeviceType as DLDeviceType
from ._types import Device as Device
from ._types import DType as DType

__all__ = [
    "DLPACK_VERSION",
    "Array",
    "DLDeviceType",
    "DType",
    "Device",
    "arange",
    "asarray",
    "bfloat16",
    "bool_",
    "complex64",
    "complex128",
    "empty",
    "float4_e2m1fn",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float16",
    "float32",
    "float64",
    "from_dlpack",
    "full",
    "int8",
    "int16",
    "int32",
    "int64",
    "may_share_memory",
    "ones",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "zeros",
]

__version__: str
DLPACK_VERSION: tuple[int, int]

DeviceLike: TypeAlias = str | tuple[int, int] | Device
DTypeLike: TypeAlias = DType | str | type | Any
ShapeLike: TypeAlias = int | Sequence[int]

bool_: DType
int8: DType
int16: DType
int32: DType
int64: DType
uint8: DType
uint16: DType
uint32: DType
uint64: DType
float16: DType
bfloat16: DType
float32: DType
float64: DType
complex64: DType
complex128: DType
float8_e3m4: DType
float8_e4m3: DType
float8_e4m3b11fnuz: DType
float8_e4m3fn: DType
float8_e4m3fnuz: DType
float8_e5m2: DType
float8_e5m2fnuz: DType
float8_e8m0fnu: DType
float6_e2m3fn: DType
float6_e3m2fn: DType
float4_e2m1fn: DType

def empty(shape: ShapeLike, dtype: DTypeLike = "float64", device: DeviceLike | None = "cpu") -> Array: ...
def zeros(shape: ShapeLike, dtype: DTypeLike = "float64", device: DeviceLike | None = "cpu") -> Array: ...
def ones(shape: ShapeLike, dtype: DTypeLike = "float64", device: DeviceLike | None = "cpu") -> Array: ...
def full(
    shape: ShapeLike,
    fill_value: bool | complex,
    dtype: DTypeLike | None = None,
    device: DeviceLike | None = "cpu",
) -> Array: ...
def arange(
    start: float,
    stop: float | None = None,
    step: float = 1,
    dtype: DTypeLike | None = None,
    device: DeviceLike | None = "cpu",
) -> Array: ...
def asarray(
    obj: Any, dtype: DTypeLike | None = None, copy: bool | None = None, device: DeviceLike | None = None
) -> Array: ...
