"""``python -m godlpack matrix``: the DLPack interoperability matrix.

For every installed library (numpy, torch, dpnp, jax, array_api_strict; cupy and
torch CUDA only where a GPU exists) and both directions, one round trip of a
float32 vector, printed as a table:

negotiated   what the consumer asked ``__dlpack__`` for, and the capsule it got
             (name, version, flags); "C exchange API" when godlpack takes the
             producer's ``__dlpack_c_exchange_api__`` (no capsule at all)
zero-copy    "yes" when both sides see the same data pointer; otherwise who
             copied and why
read-only    what happens to a read-only source: kept, dropped, refused (and why)
time         best-of-5 time of one exchange (the plain call, without the spy)

The table prints the long "negotiated" cell last. Every cell is measured in this
run: data pointers are compared, flags are read from the capsules with ctypes.
Rows whose behaviour is not the one documented in README.md ("Interoperability
matrix") are marked "<- unexpected", and the exit status is then 1, else 0.
"""

from __future__ import annotations

import ctypes
import importlib
import os
import sys
from typing import Any
from collections.abc import Callable

import godlpack as gd

# ---------------------------------------------------------------- capsules through ctypes

_api = ctypes.pythonapi
_GetName = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", _api))
_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_GetPointer", _api))

FLAG_READ_ONLY = 1
FLAG_IS_COPIED = 2


class _Cap:
    """What a fresh DLPack capsule holds: name, version, flags, device, first element."""

    def __init__(self, cap: Any) -> None:
        name = _GetName(cap)
        self.name = name.decode() if name else "?"
        p = _GetPointer(cap, name)
        self.version: tuple[int, int] | None = None
        self.flags = 0
        if self.name == "dltensor_versioned":
            major, minor = (ctypes.c_uint32 * 2).from_address(p)
            self.version = (major, minor)
            self.flags = ctypes.c_uint64.from_address(p + 24).value
            t = p + 32  # dl_tensor after version, manager_ctx, deleter, flags
        else:
            t = p  # DLManagedTensor starts with its DLTensor
        data = ctypes.c_void_p.from_address(t).value or 0
        dev = (ctypes.c_int32 * 2).from_address(t + 8)
        self.device = (dev[0], dev[1])
        self.first = data + ctypes.c_uint64.from_address(t + 40).value

    def describe(self) -> str:
        s = self.name
        if self.version is not None:
            s += f" {self.version[0]}.{self.version[1]}"
        fl = [n for b, n in ((FLAG_READ_ONLY, "READ_ONLY"), (FLAG_IS_COPIED, "IS_COPIED")) if self.flags & b]
        if fl:
            s += " " + "|".join(fl)
        if self.device[0] != 1:
            s += f" on {self.device}"
        return s


class _Spy:
    """Forwards __dlpack__/__dlpack_device__ and records every request and answer."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj
        self.calls: list[tuple[dict[str, Any], Any]] = []  # (kwargs, _Cap or exception)

    def __dlpack__(self, **kw: Any) -> Any:
        try:
            cap = self.obj.__dlpack__(**kw)
        except Exception as e:
            self.calls.append((kw, e))
            raise
        self.calls.append((kw, _Cap(cap)))
        return cap

    def __dlpack_device__(self) -> Any:
        return self.obj.__dlpack_device__()

    @property
    def cap(self) -> _Cap | None:
        for _, r in reversed(self.calls):
            if isinstance(r, _Cap):
                return r
        return None

    def describe(self) -> str:
        parts = []
        for kw, r in self.calls:
            args = ", ".join(f"{k}={v!r}" for k, v in kw.items() if v is not None or k == "stream")
            if isinstance(r, _Cap):
                parts.append(f"({args}) -> {r.describe()}")
            else:
                parts.append(f"({args}) -> {type(r).__name__}")
        return "; ".join(parts) if parts else "no __dlpack__ call"


# ---------------------------------------------------------------- timing and formatting


def _time_per_call(fn: Callable[[], Any], target_s: float = 0.1) -> float:
    n = 1
    while True:
        t0 = _perf()
        for _ in range(n):
            fn()
        dt = _perf() - t0
        if dt > target_s / 5 or n >= 1 << 18:
            break
        n *= 4
    best = dt / n
    for _ in range(4):
        t0 = _perf()
        for _ in range(n):
            fn()
        best = min(best, (_perf() - t0) / n)
    return best


def _perf() -> float:
    import time

    return time.perf_counter()


def _fmt_time(s: float) -> str:
    if s < 1e-6:
        return f"{s * 1e9:.0f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.2f} µs"
    return f"{s * 1e3:.2f} ms"


class _Row:
    def __init__(self, lib: str, direction: str, negotiated: str, zero_copy: str, read_only: str,
                 time: str, ok: bool = True) -> None:
        self.cells = (lib, direction, negotiated, zero_copy, read_only, time)
        self.ok = ok


def _err(e: BaseException) -> str:
    msg = str(e).split("\n")[0]
    return f"{type(e).__name__}: {msg[:90]}"


def _gd_ptr(a: Any) -> int:
    return _Cap(a.__dlpack__(max_version=(1, 0))).first


def _ro_gd() -> Any:
    """A read-only godlpack array (imported read-only from a versioned capsule)."""
    src = gd.arange(8, dtype="float32")
    cap = src.__dlpack__(max_version=(1, 3))
    # mark it READ_ONLY in place, as a producer of read-only memory would
    p = _GetPointer(cap, b"dltensor_versioned")
    ctypes.c_uint64.from_address(p + 24).value |= FLAG_READ_ONLY
    a = gd.from_dlpack(cap)
    assert a.readonly
    return a


# ---------------------------------------------------------------- per library


def _numpy(np: Any) -> list[_Row]:
    rows = []
    a = gd.arange(8, dtype="float32")
    spy = _Spy(a)
    x = np.from_dlpack(spy)
    zc = x.ctypes.data == _gd_ptr(a)
    y = np.from_dlpack(_ro_gd())
    ro = "kept" if not y.flags.writeable else "DROPPED"
    rows.append(_Row("numpy", "godlpack -> numpy", spy.describe(), _yes(zc), ro,
                     _fmt_time(_time_per_call(lambda: np.from_dlpack(a))), zc and not y.flags.writeable))
    n = np.arange(8, dtype=np.float32)
    spy = _Spy(n)
    g = gd.from_dlpack(spy)
    zc = _gd_ptr(g) == n.ctypes.data
    r = n.copy()
    r.flags.writeable = False
    ro_ok = gd.from_dlpack(r).readonly
    rows.append(_Row("numpy", "numpy -> godlpack", spy.describe(), _yes(zc), "kept" if ro_ok else "DROPPED",
                     _fmt_time(_time_per_call(lambda: gd.from_dlpack(n))), zc and ro_ok))
    return rows


def _torch(torch: Any) -> list[_Row]:
    rows = []
    a = gd.arange(8, dtype="float32")
    spy = _Spy(a)
    t = torch.from_dlpack(spy)
    zc = t.data_ptr() == _gd_ptr(a)
    rt = torch.from_dlpack(_ro_gd())
    rows.append(_Row("torch", "godlpack -> torch", spy.describe(), _yes(zc),
                     "dropped (torch: always writable)" if rt is not None else "?",
                     _fmt_time(_time_per_call(lambda: torch.from_dlpack(a))), zc))
    t = torch.arange(8, dtype=torch.float32)
    g = gd.from_dlpack(t)
    zc = _gd_ptr(g) == t.data_ptr()
    route = "C exchange API (no capsule)" if hasattr(type(t), "__dlpack_c_exchange_api__") else _Spy(t).describe()
    rows.append(_Row("torch", "torch -> godlpack", route, _yes(zc), "n/a (torch: always writable)",
                     _fmt_time(_time_per_call(lambda: gd.from_dlpack(t))), zc))
    if torch.cuda.is_available():
        rows.extend(_torch_cuda(torch))
    return rows


def _torch_cuda(torch: Any) -> list[_Row]:
    # Not run on a GPU yet (none was lent while this was written).
    rows = []
    t = torch.arange(8, dtype=torch.float32, device="cuda")
    spy = _Spy(t)
    try:  # CUDA tensors are held opaque, zero-copy (no CUDA backend yet)
        g = gd.from_dlpack(spy)
        zc = g.device.type == gd.DLDeviceType.kDLCUDA and _gd_ptr(g) == t.data_ptr()
        rows.append(_Row("torch", "torch cuda:0 -> godlpack", spy.describe(), _yes(zc) + " (opaque array)", "n/a",
                         _fmt_time(_time_per_call(lambda: gd.from_dlpack(t))), zc))
    except Exception as e:
        rows.append(_Row("torch", "torch cuda:0 -> godlpack", spy.describe(), _err(e), "n/a", "-", False))
    spy = _Spy(t)
    try:
        g = gd.from_dlpack(spy, device="cpu")
        ok = g.device == gd.Device("cpu") and g.tolist() == t.cpu().tolist()
        rows.append(_Row("torch", "torch cuda:0 -> godlpack (device=cpu)", spy.describe(),
                         "copy by torch (device -> host)", "n/a",
                         _fmt_time(_time_per_call(lambda: gd.from_dlpack(t, device="cpu"))), ok))
    except Exception as e:
        rows.append(_Row("torch", "torch cuda:0 -> godlpack (device=cpu)", spy.describe(), _err(e), "n/a", "-", False))
    a = gd.arange(8, dtype="float32")
    spy = _Spy(a)
    try:
        t = torch.from_dlpack(spy, device="cuda")
        ok = t.device.type == "cuda" and t.cpu().tolist() == a.tolist()
        rows.append(_Row("torch", "godlpack -> torch cuda:0", spy.describe(), "copy by torch (host -> device)",
                         "n/a", _fmt_time(_time_per_call(lambda: torch.from_dlpack(a, device="cuda"))), ok))
    except Exception as e:
        rows.append(_Row("torch", "godlpack -> torch cuda:0", spy.describe(), _err(e), "n/a", "-", False))
    return rows


def _cupy(cp: Any) -> list[_Row]:
    rows = []
    a = gd.arange(8, dtype="float32")
    spy = _Spy(a)
    try:
        x = cp.from_dlpack(spy)
        rows.append(_Row("cupy", "godlpack -> cupy", spy.describe(), "copy (host -> device by cupy)", "n/a",
                         _fmt_time(_time_per_call(lambda: cp.from_dlpack(a))), x.get().tolist() == a.tolist()))
    except Exception as e:  # cupy refuses CPU producers
        rows.append(_Row("cupy", "godlpack -> cupy", spy.describe(), "refused: " + _err(e), "n/a", "-", True))
    x = cp.arange(8, dtype=cp.float32)
    spy = _Spy(x)
    try:
        g = gd.from_dlpack(spy)  # held opaque on its CUDA device, zero-copy
        zc = _gd_ptr(g) == x.data.ptr
        rows.append(_Row("cupy", "cupy -> godlpack", spy.describe(), _yes(zc) + " (opaque array)", "n/a",
                         _fmt_time(_time_per_call(lambda: gd.from_dlpack(x))), zc))
    except Exception as e:
        rows.append(_Row("cupy", "cupy -> godlpack", spy.describe(), _err(e), "n/a", "-", False))
    return rows


def _dpnp(dpnp: Any) -> list[_Row]:
    import numpy as np
    import dpctl

    rows = []
    dev = dpctl.SyclDevice("cpu")
    # godlpack -> dpnp, device=None: dpnp hands back a numpy.ndarray over our memory
    a = gd.arange(8, dtype="float32")
    spy = _Spy(a)
    x = dpnp.from_dlpack(spy)
    zc = isinstance(x, np.ndarray) and x.ctypes.data == _gd_ptr(a)
    y = dpnp.from_dlpack(_ro_gd())
    rows.append(_Row("dpnp", "godlpack -> dpnp (device=None)", spy.describe(),
                     _yes(zc) + f" ({type(x).__module__}.{type(x).__name__})",
                     "kept" if not y.flags.writeable else "DROPPED",
                     _fmt_time(_time_per_call(lambda: dpnp.from_dlpack(a))), zc and not y.flags.writeable))
    # godlpack on the SYCL device (backends/oneapi: USM in dpctl's own context) -> dpnp
    d = gd.arange(8, dtype="float32", device=f"oneapi:{dev.get_device_id()}")
    spy = _Spy(d)
    x = dpnp.from_dlpack(spy)
    zc = x.device.sycl_device == dev and _Cap(x.__dlpack__(max_version=(1, 3))).first == _gd_ptr(d)
    r = gd.from_dlpack(_ro_gd(), device=f"oneapi:{dev.get_device_id()}")
    y = dpnp.from_dlpack(gd.from_dlpack(r.__dlpack__(max_version=(1, 3), copy=False)))
    rows.append(_Row("dpnp", f"godlpack (oneapi:{dev.get_device_id()}) -> dpnp", spy.describe(), _yes(zc),
                     "kept" if not r.readonly or not y.flags.writable else "DROPPED",
                     _fmt_time(_time_per_call(lambda: dpnp.from_dlpack(d))), zc))
    # godlpack (cpu) -> dpnp on the device: dpctl asks for kDLOneAPI, our backend copies
    spy = _Spy(a)
    x = dpnp.from_dlpack(spy, device=dev)
    ok = x.device.sycl_device == dev and x.asnumpy().tolist() == a.tolist()
    rows.append(_Row("dpnp", f"godlpack (cpu) -> dpnp (device={dev.filter_string})", spy.describe(),
                     "copy by godlpack (host -> device, IS_COPIED)", "n/a (a new copy)",
                     _fmt_time(_time_per_call(lambda: dpnp.from_dlpack(a, device=dev))), ok))
    # dpnp (kDLOneAPI) -> godlpack: kept on its device, zero-copy
    x = dpnp.arange(8, dtype="float32", device=dev)
    spy = _Spy(x)
    g = gd.from_dlpack(spy)
    cap = spy.cap
    zc = cap is not None and not (cap.flags & FLAG_IS_COPIED) and _gd_ptr(g) == cap.first
    xr = dpnp.arange(8, dtype="float32", device=dev)
    xr.flags.writable = False
    ro_ok = gd.from_dlpack(xr).readonly
    rows.append(_Row("dpnp", "dpnp -> godlpack", spy.describe(), _yes(zc) + f" (on {g.device})",
                     "kept" if ro_ok else "DROPPED",
                     _fmt_time(_time_per_call(lambda: gd.from_dlpack(x))),
                     zc and ro_ok and g.tolist() == x.asnumpy().tolist()))
    return rows


def _jax(jax: Any) -> list[_Row]:
    import jax.numpy as jnp

    rows = []
    a = gd.arange(8, dtype="float32")
    spy = _Spy(a)
    j = jnp.from_dlpack(spy)
    zc = j.unsafe_buffer_pointer() == _gd_ptr(a)
    try:
        jnp.from_dlpack(_ro_gd())
        ro, ro_ok = "DROPPED", False
    except BufferError:
        ro, ro_ok = "refused: BufferError (legacy only)", True
    rows.append(_Row("jax", "godlpack -> jax", spy.describe(), _yes(zc) + " (256-byte aligned)", ro,
                     _fmt_time(_time_per_call(lambda: jnp.from_dlpack(a))), zc and ro_ok))
    j = jnp.arange(8, dtype=jnp.float32)
    spy = _Spy(j)
    g = gd.from_dlpack(spy)
    zc = _gd_ptr(g) == j.unsafe_buffer_pointer()
    rows.append(_Row("jax", "jax -> godlpack", spy.describe(), _yes(zc),
                     "n/a (legacy: imported writable)",
                     _fmt_time(_time_per_call(lambda: gd.from_dlpack(j))), zc))
    return rows


def _array_api_strict(xp: Any) -> list[_Row]:
    import numpy as np

    rows = []
    a = gd.arange(8, dtype="float32")
    spy = _Spy(a)
    x = xp.from_dlpack(spy)
    zc = x._array.ctypes.data == _gd_ptr(a)
    y = xp.from_dlpack(_ro_gd())
    rows.append(_Row("array_api_strict", "godlpack -> array_api_strict", spy.describe(), _yes(zc),
                     "kept" if not y._array.flags.writeable else "DROPPED",
                     _fmt_time(_time_per_call(lambda: xp.from_dlpack(a))), zc and not y._array.flags.writeable))
    x = xp.arange(8, dtype=xp.float32)
    spy = _Spy(x)
    g = gd.from_dlpack(spy)
    zc = _gd_ptr(g) == x._array.ctypes.data
    r = np.arange(8, dtype=np.float32)
    r.flags.writeable = False
    ro_ok = gd.from_dlpack(xp.asarray(r)).readonly
    rows.append(_Row("array_api_strict", "array_api_strict -> godlpack", spy.describe(), _yes(zc),
                     "kept" if ro_ok else "DROPPED",
                     _fmt_time(_time_per_call(lambda: gd.from_dlpack(x))), zc and ro_ok))
    return rows


def _yes(b: Any) -> str:
    return "yes" if bool(b) else "NO"


def _gpu_count() -> int:
    try:
        import torch

        return torch.cuda.device_count() if torch.cuda.is_available() else 0
    except Exception:
        return 0


LIBRARIES: list[tuple[str, str, Callable[[Any], list[_Row]]]] = [
    ("numpy", "numpy", _numpy),
    ("torch", "torch", _torch),
    ("dpnp", "dpnp", _dpnp),
    ("jax", "jax", _jax),
    ("array_api_strict", "array_api_strict", _array_api_strict),
    ("cupy", "cupy", _cupy),
]


def _sycl_env() -> None:
    """dpctl's OpenCL CPU runtime from PyPI needs OCL_ICD_FILENAMES (see Makefile)."""
    lib = os.path.join(sys.prefix, "lib", "libintelocl.so")
    if os.path.exists(lib):
        os.environ.setdefault("OCL_ICD_FILENAMES", lib)


def _print_table(rows: list[_Row]) -> None:
    # the long "negotiated" cell goes last, so that the short columns line up
    order = (0, 1, 3, 4, 5, 2)
    head = ("library", "direction", "negotiated: __dlpack__(request) -> capsule", "zero-copy", "read-only source",
            "time")
    cells = [tuple(c[i] for i in order) for c in [head] + [r.cells for r in rows]]
    w = [max(len(c[i]) for c in cells) for i in range(6)]
    just = [str.ljust, str.ljust, str.ljust, str.ljust, str.rjust, str.ljust]
    print("  ".join(h.ljust(w[i]) for i, h in enumerate(cells[0])).rstrip())
    print("  ".join("-" * w[i] for i in range(6)))
    for r, c in zip(rows, cells[1:]):
        line = "  ".join(just[i](c[i], w[i]) for i in range(6)).rstrip()
        print(line + ("" if r.ok else "  <- unexpected"))


def matrix(argv: list[str] | None = None) -> int:
    _sycl_env()
    gpus = _gpu_count()
    print(f"godlpack {gd.__version__}: DLPack {gd.DLPACK_VERSION[0]}.{gd.DLPACK_VERSION[1]}, "
          f"Python {sys.version.split()[0]}, {gpus} CUDA GPU(s)")
    rows: list[_Row] = []
    versions, missing = [], []
    for name, module, fn in LIBRARIES:
        if name == "cupy" and gpus == 0:
            continue
        try:
            mod = importlib.import_module(module)
        except ImportError:
            missing.append(name)
            continue
        versions.append(f"{name} {getattr(mod, '__version__', '?')}")
        try:
            rows.extend(fn(mod))
        except Exception as e:  # report and go on with the other libraries
            rows.append(_Row(name, "error", _err(e), "NO", "-", "-", False))
    print("libraries: " + ", ".join(versions))
    print()
    _print_table(rows)
    if missing:
        print(f"\nnot installed (skipped): {', '.join(missing)}")
    bad = [r for r in rows if not r.ok]
    print(f"\n{len(rows) - len(bad)}/{len(rows)} exchanges as expected")
    return 0 if not bad else 1
