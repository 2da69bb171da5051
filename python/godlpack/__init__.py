"""godlpack: n-dimensional arrays in Go, exchanged zero-copy through DLPack 1.3.

>>> import godlpack as gd
>>> a = gd.arange(6, dtype="float32").reshape(2, 3)
>>> import numpy as np
>>> n = np.from_dlpack(a)          # zero-copy, versioned capsule
>>> b = gd.from_dlpack(n)          # and back

The array type, the DLPack producer/consumer and the buffer protocol live in
the compiled extension ``godlpack._native`` (a C skin around a Go core); this
module holds the Python value types and the creation functions.
"""

from __future__ import annotations

# Address space the extension needs when it loads (docs/reliability.md,
# "Address-space limits"), core's figures (core/addrspace.go): Go's runtime
# ends the process, not the import, when a limit (ulimit -v, RLIMIT_AS)
# refuses what it reserves, and no code of the extension runs before it.
from . import _tables


def _go_procs(os: Any) -> int:
    """The Ps Go's runtime will run: GOMAXPROCS when set (Go reads it as we
    do: a positive integer, else ignored), else the CPU count."""
    cpus = os.cpu_count() or 1
    try:
        asked = int(os.environ.get("GOMAXPROCS", ""))
    except ValueError:
        return cpus
    return max(cpus, asked) if asked > 0 else cpus


def _check_address_space() -> None:
    try:
        with open("/proc/self/limits", "rb") as f:
            lines = f.read().splitlines()
    except OSError:  # not Linux: nothing to check
        return
    for line in lines:
        if line.startswith(b"Max address space"):
            soft = line.split()[3]
            if soft == b"unlimited":
                return
            import os

            # glibc reserves 64 MiB of address space for each thread that
            # allocates (its own malloc arena), which under a limit starves
            # Go's threads at random: one arena, unless the user chose
            if "MALLOC_ARENA_MAX" not in os.environ:
                try:
                    import ctypes

                    ctypes.CDLL(None).mallopt(-8, 1)  # M_ARENA_MAX
                except (OSError, AttributeError):  # not glibc
                    pass
            with open("/proc/self/statm", "rb") as f:
                used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
            need = _tables.GO_ADDRESS_SPACE + _tables.GO_THREAD_SPACE * _go_procs(os)
            free = int(soft) - used
            if free < need:
                raise ImportError(
                    f"import godlpack: the address-space limit (ulimit -v, RLIMIT_AS) leaves {free >> 20} MiB, "
                    f"but godlpack's Go runtime reserves about {need >> 20} MiB of address space when it starts "
                    f"(virtual memory, not RAM); raise the limit to at least {(used + need) >> 10} KiB "
                    f"(ulimit -v {(used + need) >> 10}) or remove it (ulimit -v unlimited)"
                )
            return


_check_address_space()

# _native first: loading it starts the Go runtime on a thread of its own,
# which then initialises while the modules below import.
from . import _markers  # noqa: E402

_markers.load_native()  # the native module composed with the installed Go kits, if any (godlpack/_kits.py)
from . import _native, _types  # noqa: E402
from ._native import Array, from_dlpack  # noqa: E402
from ._types import DType, Device, _as_dtype  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The stubs' typing aliases exist at run time too, for annotations evaluated
# then (typing.get_type_hints, pydantic); spelt with `|` over builtin types so
# that importing godlpack does not import typing. __init__.pyi has the precise
# forms (ShapeLike: any Sequence[int]; DTypeLike: also numpy and torch dtypes).
DeviceLike = _types.DeviceLike
DTypeLike = DType | str | type | object
ShapeLike = int | tuple[int, ...] | list[int]

# The dtype constants (bool_, int8, ..., float4_e2m1fn): one per dtype of the
# Go core's table (_tables.DTYPES).
_DTYPE_CONSTANTS = _types._dtype_constants()
globals().update(_DTYPE_CONSTANTS)

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
    *_DTYPE_CONSTANTS,
]

__version__ = "0.1.0"

#: The DLPack version godlpack produces and understands.
DLPACK_VERSION: tuple[int, int] = _tables.DLPACK_VERSION

_INT64 = _types._BY_DTYPE_NAME["int64"]
_FLOAT64 = _types._BY_DTYPE_NAME["float64"]

def _sequence_operand(obj: Any, a: Array, op: str) -> Any:
    """The answer of a OP obj for a list, tuple, range or buffer obj (op:
    "<", "==", ...), which numpy makes an array first; a list or tuple that
    is no array of numbers compares as numpy's array of strings or objects
    (_objcompare.py). pyext/compare.c returns what this returns."""
    try:
        y = asarray(obj)
    except (TypeError, OverflowError):
        if not isinstance(obj, (list, tuple)):
            raise
        from . import _objcompare

        return _objcompare.compare(a, obj, op)
    return _COMPARE[op](a, y)


_COMPARE = {"<": Array.__lt__, "<=": Array.__le__, "==": Array.__eq__, "!=": Array.__ne__, ">": Array.__gt__,
            ">=": Array.__ge__}


# DLDeviceType is built by its first use (see _types.device_types), which
# also removes this __getattr__: CPython specialises `godlpack.name` lookups
# only in modules without one, and `gd.from_dlpack(x)` in a loop would pay for
# the lookup on every call. Any import of enum (numpy, torch, re) builds it
# too (_engines), so that window stays short.
def __getattr__(name: str) -> Any:
    if name == "DLDeviceType":
        return _types.device_types()
    raise AttributeError(f"module 'godlpack' has no attribute {name!r}")


_CPU = _types.CPU
_native._init(
    _types._BY_KEY, Device, _types.device_types, _CPU, _types._device_pair, _sequence_operand
)

# Array's attributes written in Python (repr and format: _repr.py; pickle and
# copy: _pickle.py; numpy's and pyarrow's protocols, ravel, view:
# _ndarray.py; astype: _convert.py; oneAPI's interfaces: _oneapi.py;
# to_device below) are rows of its generated tables (PyImpls in
# internal/gentables/pyspec), each module imported by the first use.
# np.dtype(gd.float32) and the like: see _ndarray.py
from . import _ndarray  # noqa: E402

_ndarray.install(DType)

# Dask's sizeof and serializers, joblib's pickler: registered once those are imported (_engines.py)
from . import _engines  # noqa: E402

_engines.install()

# The Go functions registered with gofunc (may_share_memory; in a module built
# by build-ext, the developer's too) join _native last: describing them is the
# first call into Go, which waits for the Go runtime to finish starting, and by
# now it has started while the modules above imported (pyext/module.c).
_native._install_gofuncs()
from ._native import may_share_memory  # noqa: E402

# A forked child never enters the Go runtime: the extension's pthread_atfork
# child handler flags it (pyext/fork.c), and every call that needs Go then
# raises RuntimeError naming forkserver/spawn (docs/reliability.md#fork).


_CPU_PAIR = (_CPU._type, 0)


def _check_device(device: Any, entry: str) -> tuple[int, int] | None:
    """None for the CPU, else the (type, id) pair of a device that godlpack can
    allocate on (core decides: a device without a backend is refused here,
    naming entry)."""
    if device is None:
        return None
    pair = _types._device_pair(device)
    if pair == _CPU_PAIR:
        return None
    _native._full((0,), _FLOAT64._key, None, pair, entry)  # raises for a device without a backend
    return pair


def _full(shape: ShapeLike, key: int, value: Any, device: Any, entry: str) -> Array:
    pair = _CPU_PAIR if device is None or device == "cpu" else _types._device_pair(device)
    return _native._full(shape, key, value, pair, entry)


def empty(shape: ShapeLike, dtype: Any = "float64", device: Any = "cpu") -> Array:
    """A new uninitialised C-contiguous array (memory aligned to 256 bytes) on
    device ("cpu", or a oneAPI device such as "oneapi:0")."""
    return _full(shape, _as_dtype(dtype, "empty()")._key, None, device, "empty()")


def zeros(shape: ShapeLike, dtype: Any = "float64", device: Any = "cpu") -> Array:
    """A new array of zeros."""
    return _full(shape, _as_dtype(dtype, "zeros()")._key, 0, device, "zeros()")


def ones(shape: ShapeLike, dtype: Any = "float64", device: Any = "cpu") -> Array:
    """A new array of ones."""
    return _full(shape, _as_dtype(dtype, "ones()")._key, 1, device, "ones()")


def full(shape: ShapeLike, fill_value: Any, dtype: Any = None, device: Any = "cpu") -> Array:
    """A new array filled with ``fill_value`` (dtype inferred from it when None)."""
    dt = _infer_scalar_dtype(fill_value) if dtype is None else _as_dtype(dtype, "full()")
    return _full(shape, dt._key, fill_value, device, "full()")


def _to_device(self: Array, device: Any, /, *, stream: Any = None) -> Array:
    """The array on ``device``: itself (a view) when it is there already, else a
    C-contiguous copy (host <-> oneAPI through the device's queue, complete
    when it returns). ``stream`` is accepted as the array API asks (a
    ``dpctl.SyclQueue`` for oneAPI); godlpack's copies leave no queued work."""
    return from_dlpack(self, device=device)



def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None, device: Any = "cpu") -> Array:
    """Evenly spaced values in [start, stop) like ``range`` (floats allowed)."""
    on = _check_device(device, "arange()")
    if on is not None:
        return _to_device(arange(start, stop, step, dtype), on)
    if stop is None:
        start, stop = 0, start
    for v in (start, stop, step):
        if (isinstance(v, (bool, complex)) or not isinstance(v, (int, float))) and (
            not hasattr(v, "__index__") and not hasattr(v, "__float__")
        ):
            raise TypeError(f"arange(): start, stop and step must be real numbers, got {v!r}")
    ints = all(isinstance(v, int) or hasattr(v, "__index__") for v in (start, stop, step))
    key = -1 if dtype is None else _as_dtype(dtype, "arange()")._key
    # core/arange.c plans (the length, the dtype, the arithmetic) as numpy does
    return _native._arange(*(int(v) if ints else float(v) for v in (start, stop, step)), key)


# ---------------------------------------------------------------- asarray


def _scalar_own_key(v: Any) -> int:
    """The key of the dtype a number that is not Python's carries (a numpy scalar's), else -1."""
    try:
        return _as_dtype(v.dtype)._key if hasattr(v, "dtype") else -1
    except (TypeError, ValueError):
        return -1


def _infer_scalar_dtype(v: Any) -> DType:
    """The dtype of the number v as an array element: numpy's (bool, int64,
    float64, complex128; a numpy scalar keeps its own), decided by core
    (core/scalarkind.c)."""
    return _types._BY_KEY[_native._scalar_dtype(v, _scalar_own_key)]


def _numpy_protocols(obj: Any) -> bool:
    """Whether obj offers one of numpy's own array protocols."""
    t = type(obj)
    return hasattr(t, "__array__") or hasattr(obj, "__array_interface__") or hasattr(obj, "__array_struct__")


def _is_numpy_scalar(obj: Any) -> bool:
    """A numpy or ml_dtypes scalar (np.float32(2.5), ml_dtypes.bfloat16(1)),
    told without importing numpy."""
    t = type(obj)
    return t.__module__.partition(".")[0] in ("numpy", "ml_dtypes") and t.__name__ != "ndarray" and hasattr(
        obj, "dtype") and getattr(obj, "ndim", None) == 0


def asarray(obj: Any, dtype: Any = None, copy: bool | None = None, device: Any = None) -> Array:
    """Convert obj to a godlpack.Array.

    obj may be a godlpack.Array, an object with ``__dlpack__`` (numpy, torch,
    ...; zero-copy unless a copy is needed or ``copy=True``), a DLPack capsule,
    a buffer object (bytes, memoryview, array.array; zero-copy), an object
    numpy reads through ``__array__`` or ``__array_interface__`` (pandas,
    xarray; zero-copy where numpy's view is), a nested sequence of numbers,
    or a scalar. ``copy=False`` raises BufferError (or ValueError for Python
    sequences and numpy's refusals) when a copy cannot be avoided.
    """
    if copy is not None and copy is not True and copy is not False:
        raise ValueError(f"asarray(): copy must be None, True or False, got {copy!r}")
    dt = None if dtype is None else _as_dtype(dtype, "asarray()")
    if isinstance(obj, Array):
        a = obj
        if device is not None:
            a = _native._asarray_dlpack(a, device, copy)
        elif copy and (dt is None or dt == a.dtype):
            a = a.copy()  # (a conversion below copies anyway)
    elif type(obj).__name__ == "ndarray" and hasattr(obj, "dtype") and _ndarray.is_ml_dtypes(obj):
        a = _ndarray.from_ml_dtypes(obj, "asarray()")  # numpy's DLPack export refuses ml_dtypes' dtypes
        if device is not None or copy:
            return asarray(a, dtype=dtype, copy=copy, device=device)
    elif hasattr(obj, "__dlpack__") or type(obj).__name__ == "PyCapsule":
        a = _native._asarray_dlpack(obj, device, copy)
    else:
        on = _check_device(device, "asarray()")
        if on is not None:
            return _to_device(asarray(obj, dtype=dtype, copy=copy), on)
        a = None
        if not isinstance(obj, (list, tuple, int, float, complex, bool)):
            if _is_numpy_scalar(obj):  # np.float32(2.5): copied, writable, as numpy does
                if copy is False:
                    raise ValueError("asarray(): copy=False but a numpy scalar must be copied; pass copy=None or True")
                copy = True
            try:
                a = _native._from_buffer(obj)
            except TypeError:
                a = None
            if a is None and _numpy_protocols(obj):
                # pandas, xarray, PIL: numpy reads the object (zero-copy where it can), godlpack the result
                import numpy as np

                n = np.asarray(obj, copy=copy)
                a = _ndarray.from_ml_dtypes(n, "asarray()") if _ndarray.is_ml_dtypes(n) else _native._asarray_dlpack(
                    n, None, False)
                copy = None
            if a is not None and copy:
                a = a.copy()
        if a is None:
            if copy is False:
                raise ValueError(
                    "asarray(): copy=False but a Python sequence or scalar must be copied; pass copy=None or True"
                )
            if isinstance(obj, (list, tuple)) or (
                hasattr(obj, "__len__") and hasattr(obj, "__getitem__") and not isinstance(obj, (str, bytes))
            ):
                # one pass in C: shape, kind, then the numbers into C memory
                a = _native._from_nested(obj, -1 if dt is None else dt._key, _scalar_own_key)
                if a is NotImplemented:  # a list of arrays: np.stack
                    from . import _convert

                    return _convert.stack(obj, dt, asarray)
                return a
            return _native._full((), (dt or _infer_scalar_dtype(obj))._key, obj, _CPU_PAIR, "asarray()")
    if dt is not None and a.dtype != dt:
        if copy is False:
            raise ValueError(
                f"asarray(): copy=False but converting {a.dtype} to {dt} needs a copy; pass copy=None or True"
            )
        return _native._convert(a, dt._key, "asarray()")
    return a


# A kit module (python -m godlpack build-ext) holds godlpack's runtime and
# became godlpack._native before this package was imported over it: its own
# namespace offers godlpack's API too, so that `import mykit` alone is enough.
if _native.__name__ != "godlpack._native":
    for _name in __all__:
        if not hasattr(_native, _name):  # DLDeviceType is built here, through this module's __getattr__
            setattr(_native, _name, globals()[_name] if _name in globals() else __getattr__(_name))
