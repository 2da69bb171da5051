"""godlpack: n-dimensional arrays in Go, exchanged zero-copy through DLPack 1.3."""

from typing import Any, Iterator, Optional, Sequence, Tuple, Union

from ._native import Array as Array
from ._native import from_dlpack as from_dlpack
from ._native import may_share_memory as may_share_memory
from ._types import DLDeviceType as DLDeviceType
from ._types import Device as Device
from ._types import DType as DType

__all__ = [
    "DLPACK_VERSION",
    "DLDeviceType",
    "Device",
    "DType",
    "Array",
    "from_dlpack",
    "may_share_memory",
    "asarray",
    "empty",
    "zeros",
    "ones",
    "full",
    "arange",
    "bool_",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
]

__version__: str
DLPACK_VERSION: Tuple[int, int]

DeviceLike = Union[str, Tuple[int, int], Device]
DTypeLike = Union[DType, str, type, Any]
ShapeLike = Union[int, Sequence[int]]

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

def empty(shape: ShapeLike, dtype: DTypeLike = "float64", device: Optional[DeviceLike] = "cpu") -> Array: ...
def zeros(shape: ShapeLike, dtype: DTypeLike = "float64", device: Optional[DeviceLike] = "cpu") -> Array: ...
def ones(shape: ShapeLike, dtype: DTypeLike = "float64", device: Optional[DeviceLike] = "cpu") -> Array: ...
def full(
    shape: ShapeLike,
    fill_value: Union[bool, int, float, complex],
    dtype: Optional[DTypeLike] = None,
    device: Optional[DeviceLike] = "cpu",
) -> Array: ...
def arange(
    start: Union[int, float],
    stop: Optional[Union[int, float]] = None,
    step: Union[int, float] = 1,
    dtype: Optional[DTypeLike] = None,
    device: Optional[DeviceLike] = "cpu",
) -> Array: ...
def asarray(
    obj: Any, dtype: Optional[DTypeLike] = None, copy: Optional[bool] = None, device: Optional[DeviceLike] = None
) -> Array: ...
