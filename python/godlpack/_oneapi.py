"""dpctl's SYCL runtime for oneAPI devices, made ready on first use.

godlpack's oneAPI backend (backends/oneapi) dlopen()s dpctl's C library,
libDPCTLSyclInterface.so, the first time a oneAPI device is needed, and finds
it already loaded when dpctl was imported. A oneAPI device named in Python
(device="oneapi:0", (14, 0), to_device) therefore imports dpctl first, once.
Without dpctl nothing happens here: the backend's error names what to
install (pip install dpctl or dpnp) and, when dpctl finds no device, the
OCL_ICD_FILENAMES setting that points the OpenCL loader at a runtime.
"""

from __future__ import annotations

from . import _tables

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing stays unimported at run time: import godlpack must stay cheap
    from typing import Any

_tried = False
_queues: dict[int, Any] = {}

# kDLOneAPI, read from core's device table (_tables.py, generated)
KDL_ONEAPI = next(t for t, (name, _) in _tables.DEVICE_TYPES.items() if name == "kDLOneAPI")


def ensure() -> None:
    global _tried
    if _tried:
        return
    _tried = True
    try:
        import dpctl  # noqa: F401  (loads libDPCTLSyclInterface.so)
    except Exception:  # ImportError, or a broken SYCL install: the backend says why
        pass


def consumer_stream(device_type: int, device_id: int) -> Any:
    """godlpack's queue on oneAPI device ``device_id`` as a dpctl.SyclQueue
    (one per device, kept): the stream from_dlpack hands producers, which
    order their queued work before it (dpctl synchronises nothing for
    stream=None), and the syclobj of __sycl_usm_array_interface__."""
    q = _queues.get(device_id)
    if q is None:
        if device_type != KDL_ONEAPI:
            raise BufferError(f"from_dlpack(): device type {device_type} has no queue godlpack can name")
        import dpctl

        from . import _native

        q = _queues[device_id] = dpctl.SyclQueue(_native._consumer_stream(device_type, device_id))
    return q


# numpy typestrs of the dtypes dpctl holds (__sycl_usm_array_interface__).
_TYPESTR = {
    "bool": "|b1", "int8": "|i1", "uint8": "|u1", "int16": "<i2", "uint16": "<u2", "int32": "<i4",
    "uint32": "<u4", "int64": "<i8", "uint64": "<u8", "float16": "<f2", "float32": "<f4", "float64": "<f8",
    "complex64": "<c8", "complex128": "<c16",
}


def usm_array_interface(a: Any) -> dict[str, Any]:
    """__sycl_usm_array_interface__ of a godlpack array on a oneAPI device:
    dpctl's convention, as its own arrays write it (data at the allocation,
    strides and offset in elements, syclobj a queue of the USM's context).
    dpnp.asarray(a) then takes the memory zero-copy and keeps a alive.
    Arrays elsewhere, or of dtypes dpctl does not hold, have none
    (AttributeError, so that hasattr() is False)."""
    t, i = a.__dlpack_device__()
    if t != KDL_ONEAPI:
        raise AttributeError(
            f"__sycl_usm_array_interface__: only arrays on oneAPI devices have one, not one on {a.device}; "
            f"copy it first with a.to_device(\"oneapi:0\")")
    typestr = _TYPESTR.get(a.dtype.name)
    if typestr is None:
        raise AttributeError(
            f"__sycl_usm_array_interface__: dpctl holds no {a.dtype.name} arrays; convert it first with a.astype(...)")
    data, offset = a._usm_data()
    return {
        "data": (data, a.readonly),
        "shape": a.shape,
        "strides": a.strides,
        "offset": offset,
        "typestr": typestr,
        "version": 1,
        "syclobj": consumer_stream(t, i),
    }


def sycl_queue(a: Any) -> Any:
    """The dpctl.SyclQueue of an array on a oneAPI device (dpctl's
    convention): godlpack's queue there, the syclobj of its
    __sycl_usm_array_interface__. dpnp.asarray(a) computes on this queue and
    so takes a's memory without a copy."""
    t, i = a.__dlpack_device__()
    if t != KDL_ONEAPI:
        raise AttributeError(f"sycl_queue: only arrays on oneAPI devices have one, not one on {a.device}")
    return consumer_stream(t, i)
