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


def _interface(a: Any, syclobj: Any) -> dict[str, Any]:
    t, _ = a.__dlpack_device__()
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
        "syclobj": syclobj,
    }


class _Lease:
    """What dpctl's Memory over an array's data holds on to: the interface
    and an alias of the array (a view, another object), so that the memory
    keeps the data alive without keeping the array itself, which owns the
    memory through _memories below."""

    __slots__ = ("__sycl_usm_array_interface__", "alias")

    def __init__(self, a: Any) -> None:
        t, i = a.__dlpack_device__()
        self.__sycl_usm_array_interface__ = _interface(a, consumer_stream(t, i))
        self.alias = a[...]


# id(array) -> (weakref to it, its dpctl Memory), dropped when the array goes.
_memories: dict[int, tuple[Any, Any]] = {}


def _memory(a: Any) -> Any:
    """One dpctl Memory over a's data per array, made on first use.

    dpnp.asarray(a) takes a zero-copy only when the queue it reads from
    a.sycl_queue is the very object its usm_ndarray reports (an identity
    test), and dpctl builds a new queue object for every Memory it makes
    from an interface; so a's queue, interface and usm_ndarray all come
    from this one Memory."""
    from ._perarray import kept

    def make(x: Any) -> Any:
        import dpctl.memory as dpm

        return dpm.as_usm_memory(_Lease(x))

    return kept(_memories, a, make)


def usm_array_interface(a: Any) -> dict[str, Any]:
    """__sycl_usm_array_interface__ of a godlpack array on a oneAPI device:
    dpctl's convention, as its own arrays write it (data at the allocation,
    strides and offset in elements, syclobj a.sycl_queue). dpctl's
    consumers take the memory zero-copy and keep a alive. Arrays elsewhere,
    or of dtypes dpctl does not hold, have none (AttributeError, so that
    hasattr() is False)."""
    iface = _interface(a, None)  # refuses before dpctl is touched
    iface["syclobj"] = _memory(a).sycl_queue
    return iface


def usm_ndarray(a: Any) -> Any:
    """__usm_ndarray__: a dpnp.tensor.usm_ndarray over a's memory (a view:
    writes are seen both ways; read-only stays read-only), on a.sycl_queue.
    dpnp.asarray(a) and dpnp.tensor.asarray(a) return it without a copy."""
    iface = _interface(a, None)
    mem = _memory(a)
    import dpnp.tensor as dpt

    # the Memory starts at a's lowest element (dpctl's rule); a's first
    # element lies (its offset less that lowest element's) past it
    lowest = iface["offset"]
    if a.size:
        lowest += sum(st * (n - 1) for n, st in zip(a.shape, a.strides) if st < 0)
    u = dpt.usm_ndarray(a.shape, dtype=iface["typestr"], strides=a.strides, buffer=mem,
                        offset=iface["offset"] - lowest)
    if a.readonly:
        u.flags["W"] = False
    return u


def sycl_queue(a: Any) -> Any:
    """The dpctl.SyclQueue of an array on a oneAPI device (dpctl's
    convention): a queue on godlpack's context and device, one object per
    array (see _memory), the syclobj of its __sycl_usm_array_interface__.
    Arrays of dtypes dpctl does not hold have no dpctl Memory: theirs is
    godlpack's queue on the device."""
    t, i = a.__dlpack_device__()
    if t != KDL_ONEAPI:
        raise AttributeError(f"sycl_queue: only arrays on oneAPI devices have one, not one on {a.device}")
    if a.dtype.name not in _TYPESTR:
        return consumer_stream(t, i)
    return _memory(a).sycl_queue
