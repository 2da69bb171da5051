"""``python -m godlpack check TARGET``: a DLPack conformance report for a library.

The checker makes TARGET's arrays (every dtype it has; 0-d, empty,
contiguous, transposed, negative-stride, sliced and read-only), calls their
``__dlpack__`` with every keyword combination, and hands each answer to
godlpack's core (``_native._judge_export`` -> ``conformance.JudgeExport``, core/conformance), which
grades it by the same functions godlpack's own exchanges run. This file
gathers evidence and prints; it decides no rule.

The target is imported only in child processes, which write their answers
on a pipe of their own (what the target prints goes to a file): a call that
kills the child is a CRASH, one that does not return in time a HANG, each
naming its case, and a new child goes on after it. An import that kills or
hangs the child is the X.import line.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any

from . import _native, _tables
from ._check_targets import HOSTILE, LAYOUTS, TARGETS, Target, generic

# The requests of the keyword sweep: label -> keywords.
SWEEP: list[tuple[str, dict[str, Any]]] = [
    ("no keywords", {}),
    ("max_version=(0, 5)", {"max_version": (0, 5)}),  # below 1.0: a legacy capsule is due
    ("max_version=(1, 0)", {"max_version": (1, 0)}),
    ("max_version=(1, 3)", {"max_version": (1, 3)}),
    ("max_version=(1, 255)", {"max_version": (1, 255)}),
    ("max_version=(2, 0)", {"max_version": (2, 0)}),
    ("dl_device=(kDLCPU, 0)", {"max_version": (1, 3), "dl_device": (1, 0)}),
    ("dl_device=(kDLExtDev, 0)", {"max_version": (1, 3), "dl_device": (12, 0)}),
    ("copy=True", {"max_version": (1, 3), "copy": True}),
    ("copy=False", {"max_version": (1, 3), "copy": False}),
    ("copy=None", {"max_version": (1, 3), "copy": None}),
    ("copy=False, dl_device=(kDLExtDev, 0)", {"max_version": (1, 3), "dl_device": (12, 0), "copy": False}),
    ("stream=None", {"max_version": (1, 3), "stream": None}),
    ("stream=5", {"max_version": (1, 3), "stream": 5}),
]
# dl_device: every other device type core knows, towards the target's own
# arrays (asked of the contiguous float32 array).
DEVICES: list[tuple[str, dict[str, Any]]] = [
    (f"dl_device=({name}, 0)", {"max_version": (1, 3), "dl_device": (code, 0)})
    for code, (name, _) in _tables.DEVICE_TYPES.items() if name not in ("kDLCPU", "kDLExtDev")]
# The ends of a capsule: dropped as it came, or consumed by godlpack and
# released by a Go call with the GIL released (a foreign deleter's P7 case).
RELEASES: list[tuple[str, dict[str, Any]]] = [
    ("dropped unconsumed", {"max_version": (1, 3)}),
    ("dropped unconsumed, legacy", {}),
    ("released without the GIL", {"max_version": (1, 3)}),
]
# The type's C exchange API (C9), where it has one: a tensor through
# managed_tensor_from_py_object_no_sync, judged as a versioned capsule.
API: tuple[str, dict[str, Any]] = ("exchange API", {"max_version": (1, 3)})
# ... and its managed_tensor_allocator, given a prototype of the array's
# dtype, shape and device (its own capsule, read and dropped).
ALLOC: tuple[str, dict[str, Any]] = ("exchange API allocator", {"max_version": (1, 3)})
# Every dtype is also read back with these.
VALUES_ONLY = [r for r in SWEEP if r[0] in ("no keywords", "max_version=(1, 3)")]
SWEEP_DTYPE = "float32"
PREAMBLE = "def _readonly(a):\n    a.setflags(write=False)\n    return a\n"


@dataclass
class Case:
    """One array of the target and one request."""

    index: int
    dtype: str
    layout: str
    read_only: bool
    label: str
    kwargs: dict[str, Any]

    @property
    def name(self) -> str:
        ro = " read-only" if self.read_only else ""
        return f"{self.dtype}{ro} {self.layout}: {self.label}"


def cases(t: Target) -> list[Case]:
    """Every case for target t, in a fixed order (the child skips by index)."""
    out: list[Case] = []
    for dt in t.dtypes:
        for layout in LAYOUTS:
            if layout in t.no_views:
                continue
            for ro in (True,) if t.immutable else (False, True):
                if ro and not t.immutable and (t.read_only is None or layout != "contiguous" or not t.home):
                    continue
                reqs = SWEEP if dt == SWEEP_DTYPE else (VALUES_ONLY if layout in ("contiguous", "transposed") else [])
                if dt == SWEEP_DTYPE and layout == "contiguous":
                    reqs = reqs + DEVICES
                if dt == SWEEP_DTYPE or layout == "contiguous":  # every layout's end, and every dtype's
                    reqs = reqs + RELEASES
                if dt == SWEEP_DTYPE or layout == "contiguous":
                    reqs = reqs + [API]
                if dt == SWEEP_DTYPE and layout == "contiguous" and (t.immutable or not ro):
                    reqs = reqs + [ALLOC]
                for label, kw in reqs:
                    out.append(Case(len(out), dt, layout, ro, label, kw))
    return out


def _source(t: Target, c: Case) -> tuple[str, str | None]:
    """(the target's array, the numpy data's view) as Python expressions."""
    data, view = LAYOUTS[c.layout]
    data = data.format(dt=repr(c.dtype))
    make = (t.read_only if c.read_only and t.read_only and not t.immutable else t.make).format(data=data)
    make = t.devices[t.device].format(x=make) if t.device else make
    if view is None:
        return make, None
    return t.views.get(c.layout, view).format(x=f"({make})"), view.format(x=f"({data})")


# The checks judged on a versioned capsule's flags or data pointer: their
# reproducers end by printing both, so that what failed shows when run.
_FLAG_CHECKS = ("P2.read_only", "P4.copy")
_SHOW_FLAGS = '''
import ctypes
api = ctypes.pythonapi
api.PyCapsule_GetName.restype, api.PyCapsule_GetName.argtypes = ctypes.c_char_p, [ctypes.py_object]
api.PyCapsule_GetPointer.restype = ctypes.c_void_p
api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
name = api.PyCapsule_GetName(cap)
if name == b"dltensor_versioned":  # DLManagedTensorVersioned: flags 24 bytes in, dl_tensor.data 32
    p = api.PyCapsule_GetPointer(cap, name)
    flags, data = ctypes.c_uint64.from_address(p + 24).value, ctypes.c_void_p.from_address(p + 32).value
    print(f"flags {flags:#x}: READ_ONLY {bool(flags & 1)}, IS_COPIED {bool(flags & 2)}; data {data:#x}")
else:
    print(name.decode(), "capsule: a legacy capsule has no flags")'''


# A read-only array exported without READ_ONLY (P2): its reproducer goes on
# to write through a consumer that trusts the capsule (godlpack imports a
# legacy capsule, or a versioned one without READ_ONLY, writable) and shows
# the library's own array changed.
_WRITE_THROUGH = '''
import godlpack as gd
y = np.asarray(gd.from_dlpack(cap))
if y.flags.writeable and y.size:
    y.reshape(-1)[0] = 42
    print("after a write through the import, the array begins", np.from_dlpack(x).reshape(-1)[:3])'''


def _showing(reproducer: str, show: str) -> str:
    """reproducer, then show where it ends with the capsule it asked for."""
    last = reproducer.rstrip().rsplit("\n", 1)[-1]
    return reproducer.rstrip() + show if show and last.startswith("cap = ") else reproducer


def reproducer(t: Target, c: Case) -> str:
    make, _ = _source(t, c)
    kw = ", ".join(f"{k}={v!r}" for k, v in c.kwargs.items())
    pre = PREAMBLE if c.read_only and not t.immutable else ""
    imp = "" if t.alias == "np" else f"import {t.module}\n" if t.alias == t.module else \
        f"import {t.module} as {t.alias}\n"
    return f"import numpy as np\n{imp}{pre}x = {make}\ncap = x.__dlpack__({kw})"


def _builtin_class(e: BaseException) -> str:
    """The exception's first builtin class: a library's subclass of
    BufferError refuses as a BufferError."""
    for k in type(e).__mro__:
        if k.__module__ == "builtins":
            return k.__name__
    return type(e).__name__


def _dtype_triple(name: str) -> list[int]:
    code, bits = _tables.DTYPES[name]
    return [code, bits, 1]


class Sources:
    """The target's arrays, made once per dtype, layout and read-only-ness,
    so that every request of a case asks the same array (and the addresses
    its answers carry can be compared); with the first-element address of
    its plain max_version=(1, 3) export."""

    def __init__(self) -> None:
        self.arrays: dict[tuple[str, str, bool], Any] = {}
        self.baselines: dict[tuple[str, str, bool], int] = {}


def run_case(t: Target, mod: Any, np: Any, c: Case, src: Sources) -> list[dict[str, Any]]:
    """Makes the array (once), asks it for the capsule and has core judge
    the answer."""
    ns = {"np": np, t.alias: mod, "_readonly": _readonly}
    if t.module != "godlpack":
        import godlpack as gd

        ns["gd"] = gd
    make, view = _source(t, c)
    key = (c.dtype, c.layout, c.read_only)
    try:
        if key not in src.arrays:
            src.arrays[key] = eval(make, ns)  # the target table's own expressions
        x = src.arrays[key]
    except Exception as e:  # the library cannot make this array: nothing to judge
        return [{"id": "", "case": c.name, "result": "N/A", "evidence": f"{make}: {_builtin_class(e)}: {e}"}]
    data = eval(LAYOUTS[c.layout][0].format(dt=repr(c.dtype)), ns)
    want = eval(view, ns) if view else data
    if t.flat:
        want = want.ravel()
    want = want.copy(order="C")  # C order, 0-d kept
    dtype = _made_dtype(np, x) or c.dtype  # judged on what the library made (mlx makes float32 of float64)
    if dtype != c.dtype:
        want = want.astype(dtype)
    dev, bad = x.__dlpack_device__(), ""
    try:
        pair = [int(dev[0]), int(dev[1])]
    except Exception:  # P8 grades it; the other checks go on with id 0
        pair, bad = [int(dev[0]) if isinstance(dev[0], int) else 0, 0], repr(dev)
    case = {
        "case": c.name,
        "device": pair,
        "device_error": bad,
        "read_only": c.read_only,
        "dtype": _dtype_triple(dtype),
        "shape": list(want.shape),
        "values": list(want.tobytes()),
        "baseline": src.baselines.get(key, 0),
        "raised": "",
        "message": "",
        "name": "",
    }
    for k in ("max_version", "dl_device", "copy", "stream"):
        v = c.kwargs.get(k)
        case[k] = list(v) if isinstance(v, tuple) else v
    if c.label in dict(RELEASES):
        return _release(x, c, case)
    if c.label in (API[0], ALLOC[0]):
        how = 2 if c.label == ALLOC[0] else 0
        proto = None
        if how == 2 and getattr(type(x), "__dlpack_c_exchange_api__", None) is not None:
            try:
                proto = x.__dlpack__(max_version=(1, 3))
            except Exception:  # P1 grades the refusal
                pass
        if how == 2 and _capsule_name(proto) != "dltensor_versioned":  # no API, or P1 grades it
            return []
        got = _native._exchange_api(x, how, proto)
        if got is None:
            return []
        (major, minor), missing, rc, cap = got
        case["api"] = {"how": "allocator" if how == 2 else "", "version": [major, minor], "missing": missing,
                       "rc": rc, "message": cap if isinstance(cap, str) else ""}
        cap = None if isinstance(cap, str) else cap
        case["name"] = "dltensor_versioned" if cap is not None else ""
        return json.loads(_native._judge_export(json.dumps(case), cap))["results"]
    cap = None
    try:
        cap = x.__dlpack__(**c.kwargs)
        case["name"] = _capsule_name(cap)
    except Exception as e:
        case["raised"], case["message"] = _builtin_class(e), str(e)[:300]
    try:
        judged = json.loads(_native._judge_export(json.dumps(case), cap))
    except RuntimeError as e:
        if "invalid memory address" not in str(e):
            raise
        raise TargetFault(f"reading the capsule that __dlpack__ returned faulted, as any consumer's read would: "
                          f"{e}") from None
    if c.label == "max_version=(1, 3)" and judged["first"]:
        src.baselines[key] = judged["first"]
    del cap
    return judged["results"]


def _made_dtype(np: Any, x: Any) -> str | None:
    """The dtype x says it has, as numpy names it (torch.float32, mlx's
    mlx.core.float32: float32); None when it says none numpy knows."""
    name = str(getattr(x, "dtype", "")).rsplit(".", 1)[-1]
    try:
        return str(np.dtype(name).name) if name else None
    except TypeError:
        return None


def _release(x: Any, c: Case, case: dict[str, Any]) -> list[dict[str, Any]]:
    """The end of a capsule: dropped unconsumed (its destructor), or consumed
    by godlpack and released inside a Go call that runs without the GIL (the
    deleter's P7 case: _check_keep holds the import in Go, _check_drop_kept
    releases). Counted twice: the calls of its deleter (a trampoline put in
    the tensor's deleter field, _probe_deleter) and the references to x its
    producer holds."""
    import gc

    import godlpack as gd

    case["release"] = "nogil" if c.label == "released without the GIL" else "unconsumed"
    case["refs_before"] = sys.getrefcount(x)
    try:
        cap = x.__dlpack__(**c.kwargs)
    except Exception as e:
        case["raised"], case["message"] = _builtin_class(e), str(e)[:300]
        return json.loads(_native._judge_export(json.dumps(case), None))["results"]
    case["refs_held"] = sys.getrefcount(x)
    counter = _native._probe_capsule(cap, True) if _capsule_name(cap) in ("dltensor", "dltensor_versioned") else None
    if case["release"] == "nogil":
        try:
            y = gd.from_dlpack(cap)
        except Exception:  # a capsule godlpack refuses: other checks say why
            return []
        del cap
        _native._check_keep(y)
        del y
        gc.collect()
        _native._check_drop_kept()
    else:
        del cap
    gc.collect()
    case["refs_after"] = sys.getrefcount(x)
    if counter is not None:
        case["deleter_calls"] = _native._probe_calls(counter)
    return json.loads(_native._judge_export(json.dumps(case), None))["results"]


def _readonly(a: Any) -> Any:
    a.setflags(write=False)
    return a


def _capsule_name(cap: Any) -> str:
    import ctypes

    f = ctypes.pythonapi.PyCapsule_GetName
    f.restype, f.argtypes = ctypes.c_char_p, [ctypes.py_object]
    try:
        name = f(cap)
    except Exception:
        return f"<not a capsule: {type(cap).__name__}>"
    return name.decode(errors="replace") if name else ""


# ---- TARGET as a consumer: its from_dlpack on instrumented producers ----

# (label, from_dlpack keywords, an old producer (no max_version))
IMPORT_VARIANTS: list[tuple[str, dict[str, Any], bool]] = [
    ("from_dlpack(p)", {}, False),
    ("an old producer", {}, True),
    ("copy=True", {"copy": True}, False),
    ("copy=False", {"copy": False}, False),
]


@dataclass
class ImportSpec(Case):
    """One from_dlpack call of the target on a producer over a godlpack array."""

    old: bool = False  # a producer from before DLPack 1.0
    damaged: str = ""  # Probe's damage: "major2", "dtype99", "byte_offset"
    lacked: bool = False  # a dtype the target does not have
    unlisted: bool = False  # a dtype godlpack makes that the target's row neither lists nor lacks
    packed: bool = False  # an unlisted sub-byte dtype, packed (_PACKED_SRC), not padded
    pydtor: bool = False  # the capsule's destructor is Python code (_PYDTOR_SRC)


class Expr:
    """A keyword value that is a Python expression of the target's (its
    device object): written as is in reproducers, evaluated in the child."""

    def __init__(self, src: str) -> None:
        self.src = src

    def __repr__(self) -> str:
        return self.src


# The consumer's side of the C exchange API: a godlpack tensor handed to the
# type's managed_tensor_to_py_object_no_sync.
TO_PY = "exchange API to_py"


def import_cases(t: Target) -> list[ImportSpec]:
    out: list[ImportSpec] = []
    if t.from_dlpack is None or t.feed not in TARGETS["godlpack"].devices:
        return out
    variants = [v for v in IMPORT_VARIANTS if (t.takes_copy or "copy" not in v[1]) and not (t.takes_capsule and v[2])]
    if t.cpu_device and t.feed == "cpu":
        variants.append(("device=cpu", {"device": Expr(t.cpu_device)}, False))

    def add(dt: str, layout: str, ro: bool, label: str, kw: dict[str, Any], **extra: Any) -> None:
        out.append(ImportSpec(len(out), dt, layout, ro, label, kw, **extra))

    for dt in t.dtypes:
        # every layout, whatever the target can make itself (no_views is
        # about its own arrays): a consumer is handed what producers export
        layouts = list(LAYOUTS) if dt == SWEEP_DTYPE else ["contiguous"]
        for layout in layouts:
            for label, kw, old in variants if dt == SWEEP_DTYPE else variants[:1]:
                add(dt, layout, False, label, kw, old=old)
    if t.feed == "cpu":  # a move to a device makes a writable copy
        add(SWEEP_DTYPE, "contiguous", True, "from_dlpack(p)", {})
        add(SWEEP_DTYPE, "contiguous", False, TO_PY, {})
        add(SWEEP_DTYPE, "contiguous", True, TO_PY, {})
    add(SWEEP_DTYPE, "contiguous", False, "a capsule of version 2.0", {}, damaged="major2")
    add(SWEEP_DTYPE, "contiguous", False, "an unknown type code", {}, damaged="dtype99")
    add(SWEEP_DTYPE, "contiguous", False, "a non-zero byte_offset", {}, damaged="byte_offset")
    for layout in HOSTILE if t.feed == "cpu" else ():  # a move to a device would undo them
        add(SWEEP_DTYPE, layout, False, "from_dlpack(p)", {})
    for dt in t.lacks:
        add(dt, "contiguous", False, f"{dt}, which it lacks", {}, lacked=True)
    # producers written with ctypes, whose destructor runs Python code; not for
    # a target handed a capsule: the temporary the row's call makes of it
    # dies with the target's error in flight, the checker's doing, not its
    if t.feed == "cpu" and not t.takes_capsule:
        add(SWEEP_DTYPE, "contiguous", False, PYDTOR, {}, pydtor=True)
        add(SWEEP_DTYPE, "contiguous", False, f"a capsule of version 2.0, {PYDTOR}", {}, damaged="major2",
            pydtor=True)
        for dt in t.lacks:
            add(dt, "contiguous", False, f"{dt}, which it lacks, {PYDTOR}", {}, lacked=True, pydtor=True)
    # last, so that the cases before them run in the child as they did before them
    for dt in unlisted_dtypes(t):  # refused or imported as it is, whatever the target makes itself
        if _sub_byte(dt):
            add(dt, "contiguous", False, f"{dt} padded, which its row does not list", {}, unlisted=True)
            add(dt, "contiguous", False, f"{dt} packed, which its row does not list", {}, unlisted=True,
                packed=True)
        else:
            add(dt, "contiguous", False, f"{dt}, which its row does not list", {}, unlisted=True)
    return out


def unlisted_dtypes(t: Target) -> list[str]:
    """The dtypes of core's table that t's row neither lists nor says it
    lacks: a consumer is handed them too (the sub-byte ones padded, one
    element per byte, as godlpack makes them, and only on the CPU)."""
    known = set(t.dtypes) | set(t.lacks)
    # padded sub-byte data has no copy, so no move to a device
    return [dt for dt in _tables.DTYPES if dt not in known and (t.feed == "cpu" or not _sub_byte(dt))]


def _raw(a: Any) -> tuple[list[int], list[int], list[int]]:
    """A godlpack array's dtype triple, shape and bytes in C order, whatever
    its dtype (bfloat16 and float8 have no buffer format). A sub-byte array
    gives one code per element, padded or packed alike: a consumer may
    import one and export the other, and the values are what is judged."""
    d = a.dtype
    if d.bits < 8 and a.itemsize == 0:  # packed: whole and C-contiguous, read in place
        import ctypes

        import numpy as np

        stream = np.unpackbits(np.frombuffer(ctypes.string_at(a.data_ptr, a.nbytes), np.uint8), bitorder="little")
        bits = stream[:a.size * d.bits].reshape(a.size, d.bits).astype(np.uint16)
        codes = (bits << np.arange(d.bits, dtype=np.uint16)).sum(axis=1)
        return [d.code, d.bits, d.lanes], list(a.shape), [int(v) for v in codes]
    got = _native._bytes_view(a, "check") if d.bits < 8 else None
    if got is not None and not got[1]:  # padded: read in place (it has no copy)
        u8 = got[0]
    else:
        flat = a.copy().reshape(-1)
        u8 = flat.view("uint8") if flat.size else flat
    return [d.code, d.bits, d.lanes], list(a.shape), list(bytes(memoryview(u8)))


def _padded(gd: Any, data: Any, dt: str) -> Any:
    """A godlpack array of the sub-byte dtype dt, padded, over data's values
    taken as codes (the uint8 array of its elements reinterpreted)."""
    u8 = gd.asarray(data.astype("uint8").ravel())
    return _native._reinterpret(u8, getattr(gd, dt)._key, tuple(data.shape), False, False, True)


# A producer written with ctypes of packed sub-byte data (DLPack's default
# for float6 and float4: several elements per byte, little bit-endian),
# which godlpack itself makes only by import. packed(codes, code, bits) is
# godlpack's import of it: an Array over the codes (uint8, one per element)
# packed. The harness runs these lines; the reproducers print them.
_PACKED_SRC = """import ctypes
class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16), ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                ("byte_offset", ctypes.c_uint64)]
class _Versioned(ctypes.Structure):  # DLManagedTensorVersioned, version 1.1, no flags: packed
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]
_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype, _capsule_new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_NAME = ctypes.c_char_p(b"dltensor_versioned")  # lives as long as the capsules
_KEPT = {}  # each tensor's struct, shape and bytes, until its deleter runs
@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _deleter(ptr):
    _KEPT.pop(ptr, None)
class _Packed:
    def __init__(self, codes, code, bits):
        stream = np.unpackbits(codes.astype(np.uint8).reshape(-1, 1), axis=1, bitorder="little")[:, :bits]
        packed = np.packbits(stream.reshape(-1), bitorder="little")  # element i at bits i*bits.. of the stream
        # room for one byte per element: a consumer that takes the data for padded reads wrong values, not
        # memory beyond the buffer
        data = np.zeros(max(codes.size, 1), np.uint8)
        data[:packed.size] = packed
        shape = (ctypes.c_int64 * max(codes.ndim, 1))(*codes.shape)
        t = _DLTensor(data.ctypes.data, 1, 0, codes.ndim, code, bits, 1, ctypes.addressof(shape), None, 0)
        m = _Versioned(1, 1, None, ctypes.cast(_deleter, ctypes.c_void_p), 0, t)
        _KEPT[ctypes.addressof(m)] = (m, shape, data)
        self.cap = _capsule_new(ctypes.addressof(m), _NAME, None)
    def __dlpack_device__(self):
        return (1, 0)
    def __dlpack__(self, **kw):
        return self.cap
def packed(codes, code, bits):
    return gd.from_dlpack(_Packed(codes, code, bits))
"""
_packed_ns: dict[str, Any] = {}


def _packed(gd: Any, np: Any, data: Any, dt: str) -> Any:
    """godlpack's import of data's values, taken as codes, packed in the
    sub-byte dtype dt by _PACKED_SRC's producer (defined once per process)."""
    if not _packed_ns:
        exec(_PACKED_SRC, _packed_ns)
    _packed_ns.update(gd=gd, np=np)
    code, bits, _ = _dtype_triple(dt)
    return _packed_ns["packed"](data.astype("uint8"), code, bits)


def _sub_byte(dt: str) -> bool:
    return _tables.DTYPES[dt][1] < 8


class Probe:
    """A producer over a godlpack array that records every __dlpack__ call
    and keeps the capsules it gave (to read their names after the import)."""

    def __init__(self, arr: Any, damage: str = "", pydtor: bool = False) -> None:
        self.arr, self.damage, self.damaged, self.pydtor = arr, damage, False, pydtor
        self.raised: BaseException | None = None
        self.probes: list[int] = []  # counting deleters (_native._probe_capsule)
        self.asked: list[dict[str, Any]] = []
        self.caps: list[Any] = []

    def __dlpack_device__(self) -> Any:
        return self.arr.__dlpack_device__()

    def __dlpack__(self, **kw: Any) -> Any:
        self.asked.append({k: list(v) if isinstance(v, tuple) else v if v is None or isinstance(v, (bool, int))
                           else repr(v) for k, v in kw.items()})
        try:
            cap = self.arr.__dlpack__(**kw)
        except Exception as e:
            self.raised = e
            raise
        if self.damage and _capsule_name(cap) == "dltensor_versioned":
            _damage(cap, self.damage)
            self.damaged = True
        if _capsule_name(cap) in ("dltensor_versioned", "dltensor"):
            cap, probe = _native._probe_capsule(cap)
            self.probes.append(probe)
            if self.pydtor:  # not kept: the consumer's reference may be the last (names: SEEN)
                return _pydtor()["with_python_destructor"](cap)
        self.caps.append(cap)
        return cap


class OldProbe(Probe):
    """A producer from before DLPack 1.0: __dlpack__(stream=None) only."""

    def __dlpack__(self, stream: Any = None) -> Any:  # type: ignore[override]
        return super().__dlpack__(**({} if stream is None else {"stream": stream}))


def _damage(cap: Any, how: str) -> None:
    """Changes a versioned capsule's struct by the lines its reproducers
    show (_DAMAGE_LINES: DLPack's fixed layout, version at 0,
    dl_tensor.data at 32, dtype.code at 52, byte_offset at 72)."""
    import ctypes
    import textwrap

    f = ctypes.pythonapi.PyCapsule_GetPointer
    f.restype, f.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    exec(textwrap.dedent(_DAMAGE_LINES[how]), {"ctypes": ctypes, "ptr": f(cap, b"dltensor_versioned")})


def import_reproducer(t: Target, c: ImportSpec) -> str:
    data, view = HOSTILE[c.layout] if c.layout in HOSTILE else LAYOUTS[c.layout]
    kw = "".join(f", {k}={v!r}" for k, v in c.kwargs.items())
    imp = "" if t.alias in ("np", "gd") else f"import {t.module}\n" if t.alias == t.module else \
        f"import {t.module} as {t.alias}\n"
    if c.packed:
        code, bits, _ = _dtype_triple(c.dtype)
        src = _PACKED_SRC + f"codes = {data.format(dt=repr('uint8'))}\np = packed(codes, {code}, {bits})\n"
    elif c.unlisted and _sub_byte(c.dtype):  # padded: one element per byte
        src = (f"codes = {data.format(dt=repr('uint8'))}\n"
               f"p = gd._native._reinterpret(gd.asarray(codes.ravel()), gd.{c.dtype}._key, codes.shape, "
               f"False, False, True)\n")
    elif c.lacked or c.unlisted:
        src = f"p = gd.asarray({data.format(dt=repr('float32'))}).astype({c.dtype!r})\n"
    elif c.layout in HOSTILE:
        src = (f"base = {data.format(dt=repr(c.dtype))}\n"
               f"p = gd.from_dlpack({view.format(x='base', dt=repr(c.dtype)) if view else 'base'})\n")
    else:
        src = (_ALIGNED_SRC + f"base = _aligned({data.format(dt=repr(c.dtype))})\n" +
               ("base.setflags(write=False)\n" if c.read_only else "") +
               f"p = {_on_device(t, 'gd.from_dlpack(' + (view.format(x='base') if view else 'base') + ')')}\n")
    if c.damaged:
        src += _DAMAGE_SRC.format(how=_DAMAGE_LINES[c.damaged])
    if c.pydtor:
        src += _PYDTOR_SRC + _PYDTOR_USE
    if c.label == TO_PY:
        call = (f"cap = p.__dlpack__(max_version=(1, 3))\n"
                f"_, _, rc, y = gd._native._exchange_api({t.make.format(data='np.zeros(1)')}, 1, cap)")
    else:
        call = f"y = {(t.from_dlpack or '').format(p='p', kw=kw)}"
    return f"import numpy as np\nimport godlpack as gd\n{imp}{src}{call}"


def _on_device(t: Target, gd_array: str) -> str:
    """godlpack's array expression moved to where the target's producers live."""
    return TARGETS["godlpack"].devices[t.feed].format(x=gd_array)


_DAMAGE_SRC = """import ctypes
class Damaged:  # the producer changes its versioned capsule
    def __init__(self, a):
        self.a = a
    def __dlpack_device__(self):
        return self.a.__dlpack_device__()
    def __dlpack__(self, **kw):
        cap = self.a.__dlpack__(**kw)
        get = ctypes.pythonapi.PyCapsule_GetPointer
        get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
        ptr = get(cap, b"dltensor_versioned")
{how}
        return cap
p = Damaged(p)
"""
_DAMAGE_LINES = {
    "major2": "        ctypes.c_uint32.from_address(ptr).value = 2  # version.major",
    "dtype99": "        ctypes.c_uint8.from_address(ptr + 52).value = 99  # dtype.code",
    "byte_offset": "        ctypes.c_uint64.from_address(ptr + 32).value -= 64  # data\n"
                   "        ctypes.c_uint64.from_address(ptr + 72).value += 64  # byte_offset",
}


PYDTOR = "its capsule destructor in Python"
# A producer written with ctypes, whose capsule destructor is Python code
# (numpy#32697: a consumer that refuses such a capsule with an exception set
# may leave the destructor unable to run). with_python_destructor moves a
# capsule's tensor into a new capsule of the same name whose destructor,
# in Python, calls the deleter while the name is unused. The harness runs
# these lines; the reproducers print them.
_PYDTOR_SRC = """import ctypes
_api = ctypes.PyDLL(None)  # CPython's C API, with argument types of its own (not ctypes.pythonapi's)
_api.PyCapsule_GetName.restype, _api.PyCapsule_GetName.argtypes = ctypes.c_char_p, [ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_SetName.restype, _api.PyCapsule_SetName.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_NAME = {n: ctypes.c_char_p(n) for n in (b"dltensor", b"dltensor_versioned")}  # names live as long as capsules
_USED = {n: ctypes.c_char_p(b"used_" + n) for n in _NAME}
_DELETER_AT = {b"dltensor": 56, b"dltensor_versioned": 16}  # DLManagedTensor, DLManagedTensorVersioned
SEEN = []  # the name each capsule had when it died
@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _destructor(capsule):
    name = _api.PyCapsule_GetName(capsule)
    SEEN.append(name.decode())
    if name in _DELETER_AT:  # not consumed: the tensor is still the capsule's
        ptr = _api.PyCapsule_GetPointer(capsule, name)
        deleter = ctypes.c_void_p.from_address(ptr + _DELETER_AT[name]).value
        if deleter:
            ctypes.CFUNCTYPE(None, ctypes.c_void_p)(deleter)(ptr)
def with_python_destructor(cap):
    name = _api.PyCapsule_GetName(id(cap))
    ptr = _api.PyCapsule_GetPointer(id(cap), name)
    _api.PyCapsule_SetName(cap, _USED[name])  # the old capsule lets go of the tensor
    return _api.PyCapsule_New(ptr, _NAME[name], ctypes.cast(_destructor, ctypes.c_void_p))
"""
_PYDTOR_USE = """class PyDestructor:  # the producer's capsule destructor is Python code
    def __init__(self, a):
        self.a = a
    def __dlpack_device__(self):
        return self.a.__dlpack_device__()
    def __dlpack__(self, **kw):
        return with_python_destructor(self.a.__dlpack__(**kw))
p = PyDestructor(p)
"""
_pydtor_ns: dict[str, Any] = {}


def _pydtor() -> dict[str, Any]:
    """_PYDTOR_SRC's names (with_python_destructor, SEEN), defined once per
    process."""
    if not _pydtor_ns:
        exec(_PYDTOR_SRC, _pydtor_ns)
    return _pydtor_ns


def run_import(t: Target, mod: Any, np: Any, c: ImportSpec) -> list[dict[str, Any]]:
    import gc

    import godlpack as gd

    ns: dict[str, Any] = {"np": np, t.alias: mod, "gd": gd}
    made = c.lacked or c.unlisted  # godlpack makes the source: numpy may not have the dtype
    if c.layout in HOSTILE:
        data, view = HOSTILE[c.layout]
        base = eval(data.format(dt=repr(c.dtype)), ns)
    else:
        data, view = LAYOUTS[c.layout]
        base = _aligned(eval(data.format(dt=repr("float32" if made else c.dtype)), ns))
    npsrc = eval(view.format(x="base", dt=repr(c.dtype)), {"base": base, "np": np}) if view else base
    if c.read_only:
        base.setflags(write=False)
    if c.packed:
        src = _packed(gd, np, npsrc, c.dtype)
    elif c.unlisted and _sub_byte(c.dtype):
        src = _padded(gd, npsrc, c.dtype)
    else:
        src = gd.asarray(npsrc).astype(c.dtype) if made else gd.from_dlpack(npsrc)
    values = _raw(src)[2] if c.unlisted else None  # read on the CPU, before any move
    if t.feed != "cpu":
        src = eval(_on_device(t, "src"), {"src": src})
    want = npsrc.copy(order="C")
    probe = (OldProbe if c.old else Probe)(src, c.damaged, c.pydtor)
    case: dict[str, Any] = {
        "case": c.name, "old_producer": c.old, "read_only": c.read_only, "supported": not c.lacked,
        "unlisted": c.unlisted, "dtype": _dtype_triple(c.dtype), "shape": list(want.shape),
        "values": values if c.unlisted else list(want.tobytes()),
        "copy": c.kwargs.get("copy"), "raised": "", "message": "", "got_dtype": [0, 0, 0], "got_shape": [],
        "got_values": [], "writable": None, "shares": None,
        "device": [1, 0] if "device" in c.kwargs else None,
        "producer_device": [int(v) for v in src.__dlpack_device__()],
    }
    case["refs_before"] = _native._owner_refs(src)
    kw = "".join(f", {k}={v!r}" for k, v in c.kwargs.items())
    y = None
    if c.label == TO_PY:
        y = _to_py(t, ns, src, probe, case)
        if y is False:
            return []
    else:
        try:
            y = eval((t.from_dlpack or "").format(p="p", kw=kw), dict(ns, p=probe))
        except Exception as e:
            case["raised"], case["message"] = _builtin_class(e), str(e)[:300]
            case["producer_raised"] = e is probe.raised
    case["damaged"] = c.damaged if probe.damaged else ""
    case["py_destructor"] = c.pydtor
    case["asked"] = [] if t.takes_capsule else probe.asked
    if c.label != TO_PY and not c.pydtor:
        case["names"] = [_capsule_name(cap) for cap in probe.caps]
    probe.caps.clear()  # unconsumed capsules' destructors run here
    gc.collect()
    case["refs_alive"] = _native._owner_refs(src)
    case["deleter_alive"] = [_native._probe_calls(p) for p in probe.probes]
    if y is not None and c.unlisted:
        try:  # through DLPack, which carries any dtype (numpy has no bfloat16)
            case["got_dtype"], case["got_shape"], case["got_values"] = _raw(gd.from_dlpack(y))
        except Exception as e:  # the target's export of what it imported: not judged (C.values says so)
            case["readback_error"] = f"godlpack.from_dlpack(y): {_builtin_class(e)}: {str(e)[:200]}"
    elif y is not None:
        ns["y"] = y
        try:
            got = np.asarray(eval(t.to_numpy.format(y="y"), ns))
        except Exception as e:  # an import that cannot be read back: C.values says so
            case["readback_error"] = f"{t.to_numpy.format(y='y')}: {_builtin_class(e)}: {str(e)[:200]}"
            got = np.zeros(0, np.uint8)
        case["got_shape"] = list(got.shape)
        case["got_values"] = list(got.copy(order="C").tobytes())
        try:
            case["got_dtype"] = _dtype_triple(got.dtype.name)
        except Exception:
            case["got_dtype"] = [-1, 0, 0]
        if t.writable:
            case["writable"] = bool(eval(t.writable.format(y="y"), ns))
        on_host = t.feed == "cpu"
        if want.size and not c.lacked and t.pointer:
            lo, n = (base.__array_interface__["data"][0], base.nbytes) if on_host else (src.data_ptr, src.nbytes)
            try:
                case["shares"] = lo <= int(eval(t.pointer.format(y="y"), ns)) < lo + n
            except Exception:  # an array of another kind than the row expects: unknown
                case["shares"] = None
        elif want.size and not c.lacked and on_host:
            case["shares"] = _shares(np, base, npsrc, lambda: np.asarray(eval(t.to_numpy.format(y="y"), ns)))
        del ns["y"], got
    del y
    gc.collect()
    # a library that frees imports on a thread of its own (jax) is given a
    # moment for it before its deleter calls are counted
    deadline = time.monotonic() + (2.0 if t.frees_later else 0.0)
    while time.monotonic() < deadline and any(_native._probe_calls(p) == 0 for p in probe.probes):
        time.sleep(0.01)
        gc.collect()
    case["refs_after"] = _native._owner_refs(src)
    case["deleter_after"] = [_native._probe_calls(p) for p in probe.probes]
    if c.pydtor:  # the names the capsules died with, when their destructor could tell
        seen = _pydtor()["SEEN"]
        case["names"] = list(seen)
        seen.clear()
    return json.loads(_native._judge_import(json.dumps(case)))["results"]


def _to_py(t: Target, ns: dict[str, Any], src: Any, probe: Probe, case: dict[str, Any]) -> Any:
    """src's versioned tensor (behind a counting deleter) through the target
    type's managed_tensor_to_py_object_no_sync: its object, None when the
    call failed, False when the type has no exchange API."""
    try:
        inst = eval(t.make.format(data="np.zeros(1)"), ns)
    except Exception:  # no instance of the target's type to reach its exchange API through
        return False
    cap, pid = _native._probe_capsule(src.__dlpack__(max_version=(1, 3)))
    got = _native._exchange_api(inst, 1, cap)
    if got is None:
        return False
    (major, minor), missing, rc, y = got
    case["api"] = {"version": [major, minor], "missing": missing, "rc": rc}
    probe.probes.append(pid)
    probe.caps.append(cap)
    case["names"] = []  # the checker renamed the capsule for the API, which takes the tensor
    if y is None:
        case["raised"], case["message"] = "error", f"managed_tensor_to_py_object_no_sync returned {rc}"
    return y


def _aligned(a: Any) -> Any:
    """a copy of numpy array a at a 64-byte boundary, where consumers that
    need alignment (jax) share memory rather than copy"""
    import numpy as np

    buf = np.empty(a.nbytes + 64, np.uint8)
    off = -buf.ctypes.data % 64
    out = buf[off : off + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def _aligned_source() -> str:
    """_aligned's code without its docstring, for reproducers."""
    import inspect

    lines = inspect.getsource(_aligned).replace("a: Any) -> Any:", "a):").splitlines()
    keep, doc = [], False
    for line in lines:
        if line.strip().startswith('"""'):
            doc = not line.strip().endswith('"""', 3)
            continue
        if doc:
            doc = not line.strip().endswith('"""')
            continue
        if line.strip() and "import numpy" not in line:
            keep.append(line)
    return "\n".join(keep) + "\n"


_ALIGNED_SRC = _aligned_source()


def _shares(np: Any, base: Any, view: Any, read: Any) -> bool:
    """Whether the consumer's array sees a write through the producer's
    memory: one byte of the first element flipped in base (the contiguous
    array view looks into), then restored."""
    ro = not base.flags.writeable
    if ro:
        base.setflags(write=True)
    raw = base.reshape(-1).view(np.uint8)
    off = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    before = read().tobytes()
    raw[off] ^= 0xFF
    try:
        return bool(read().tobytes() != before)
    finally:
        raw[off] ^= 0xFF
        if ro:
            base.setflags(write=False)


def target_of(name: str, device: str | None = None) -> Target:
    """The table's entry, else an array-API namespace, checked on device
    (None: where the library makes arrays); a module may describe itself
    with a ``__dlpack_check__`` dict of Target fields (how to make a
    read-only array, the dtypes it has, the views it lacks, its devices)."""
    if name in TARGETS:
        return TARGETS[name].on(device)
    t = generic(name)
    hook = getattr(importlib.import_module(name), "__dlpack_check__", None)
    for k, v in (hook or {}).items():
        setattr(t, k, tuple(v) if k == "no_views" else v)
    return t.on(device)


def child(target: str, skip: int, role: str, device: str | None = None, fd: int | None = None,
          replay: bool = True) -> int:
    """Runs the cases of one role from index skip on, one JSON line per event
    on fd (the pipe the parent reads; stdout when None). Role "info": the
    target's version, device and cases, or the error that stops the check."""
    out = os.fdopen(fd, "w", encoding="utf-8", closefd=False) if fd is not None else sys.stdout

    def say(ev: dict[str, Any]) -> None:
        out.write(json.dumps(ev) + "\n")
        out.flush()

    if role == "info":
        return _info(target, device, say)
    t = target_of(target, device)
    import gc

    import numpy as np

    import godlpack  # noqa: F401  (the producers' arrays)

    mod = importlib.import_module(t.module)
    # What the imports made is never garbage: frozen, it is left out of the
    # collections each case runs (which would otherwise walk all of torch).
    gc.freeze()
    if role == "consumer":
        specs = import_cases(t)
        for spec in specs[skip:]:
            say({"begin": spec.index})
            try:
                results = run_import(t, mod, np, spec)
            except Exception:  # the harness's own fault: whatever the target does is caught inside
                say({"harness": spec.index, "traceback": traceback.format_exc()})
                return 3
            say({"done": spec.index, "results": results})
        say({"end": len(specs)})
        return 0
    src = Sources()
    all_cases = cases(t)
    # the baselines of the skipped cases are asked again (a crash lost them)
    for c in all_cases[:skip] if replay else []:
        if c.label == "max_version=(1, 3)":
            say({"replay": c.index})
            try:
                run_case(t, mod, np, c, src)
            except Exception:
                pass
    for c in all_cases[skip:]:
        say({"begin": c.index})
        try:
            results = run_case(t, mod, np, c, src)
        except TargetFault as e:  # the target's capsule points nowhere: this process dies, as a consumer would
            sys.stderr.write(f"{e}\n")
            sys.stderr.flush()
            os._exit(1)
        except Exception:  # the harness's own fault, as above
            say({"harness": c.index, "traceback": traceback.format_exc()})
            return 3
        say({"done": c.index, "results": results})
    say({"end": len(all_cases)})
    return 0


def _info(target: str, device: str | None, say: Any) -> int:
    try:
        t = target_of(target, device)
        mod = importlib.import_module(t.module)
    except (ImportError, ValueError) as e:  # not installed; a device it is not checked on
        say({"error": str(e), "class": "ImportError" if isinstance(e, ImportError) else "ValueError"})
        return 0
    try:  # an array of one element: a library that cannot run here (no device, no runtime) says so now
        import numpy as np

        eval(t.make.format(data="np.zeros(1)"), {"np": np, t.alias: mod, "gd": importlib.import_module("godlpack")})
    except Exception as e:
        why = str(e).strip().splitlines()[0].rstrip(".") if str(e).strip() else "no message"
        say({"error": f"{target} cannot make an array on {t.device}: {type(e).__name__}: {why}; the check needs a "
                      "working installation of it (its device and runtime)", "class": "CannotRun"})
        return 0
    top = sys.modules.get(t.module.split(".")[0])
    say({"info": {
        "version": str(getattr(mod, "__version__", "") or getattr(top, "__version__", "?")),
        "device": t.device, "named": t.named,
        "producer": [[c.name, reproducer(t, c)] for c in cases(t)],
        "consumer": [[c.name, import_reproducer(t, c)] for c in import_cases(t)],
    }})
    return 0


class CannotRun(RuntimeError):
    """The target is installed but cannot make an array here (no device, a
    runtime missing): there is nothing to check."""


class TargetFault(Exception):
    """Core, reading what the target answered, went through a pointer that
    points nowhere (a consumer in C would die there)."""


class HarnessError(RuntimeError):
    """The checker itself failed (its fault, not the target's): the case
    and the traceback, never a verdict on the target."""

    def __init__(self, case: str, tb: str) -> None:
        super().__init__(f"the checker failed at {case} (a bug of godlpack's checker, not of the target; please "
                         f"report it with this traceback):\n{tb.rstrip()}")


@dataclass
class Report:
    target: str
    version: str
    device: str
    checks: list[dict[str, Any]]
    calls: int
    seconds: float

    # the checks that gate ok and failures(): "must" (the standard's MUSTs),
    # "should" (and its recommendations) or "godlpack" (every check)
    level: str = "godlpack"

    def gated(self, c: dict[str, Any]) -> bool:
        """Whether check c counts at the report's level."""
        return LEVEL_RANK[c["level"]] <= LEVEL_RANK[LEVELS[self.level]]

    @property
    def ok(self) -> bool:
        return all(c["result"] in ("PASS", "N/A") for c in self.checks if self.gated(c))

    def failures(self) -> str:
        """Every check at the report's level that did not pass, with its
        evidence and reproducers (failure_text's): the message of ``assert
        report.ok, report.failures()``; empty when ok."""
        return "\n".join(failure_text(c) for c in self.checks if c["result"] not in ("PASS", "N/A") and self.gated(c))


# --level's names -> the checks' levels (core.LevelMust, ...), strictest first
LEVELS = {lv.lower(): lv for lv in _tables.CHECK_LEVELS}
LEVEL_RANK = {lv: i for i, lv in enumerate(_tables.CHECK_LEVELS)}
MUST, _, ADVICE = _tables.CHECK_LEVELS
LEVEL_TITLES = {lv: f"{lv}: {what}" for lv, what in zip(_tables.CHECK_LEVELS, (
    "what the standard requires", "what the standard recommends", "our advice, where the standard is silent"))}


def failure_text(c: dict[str, Any]) -> str:
    """One check that did not pass: its id, result, rule and count, then each
    case's evidence with its reproducer."""
    lines = [f"{c['id']} {c['result']} ({c['level']}): {c['rule']} ({c['failed']} of {c['cases']} cases)"]
    for e in c["evidence"]:
        lines.append(f"  {e['case']}: {e['evidence']}")
        if e["reproducer"]:
            lines.append("    " + e["reproducer"].replace("\n", "\n    "))
    return "\n".join(lines)


ROLES = ("producer", "consumer")
# Seconds a case may take before it is a HANG; a child's start (the imports)
# gets IMPORTS_TIMES as long. A role stops after HANGS_IN_ROW hangs or
# DEATHS_IN_ROW crashes in a row: the target then fails every case alike.
CASE_TIMEOUT_S = 10.0
IMPORTS_TIMES = 3
HANGS_IN_ROW = 2
DEATHS_IN_ROW = 3


def check(target: str, verbose: bool = False, roles: tuple[str, ...] = ROLES, device: str | None = None,
          timeout: float = CASE_TIMEOUT_S, level: str = "godlpack") -> Report:
    """Grades TARGET as a DLPack producer and consumer on device (None: where
    it makes arrays): every case, in child processes (the target is never
    imported here). level ("must", "should" or "godlpack") says which checks
    the report's ok counts; every check is graded and reported. ImportError
    when it is not installed, ValueError for a device it is not checked on
    or an unknown level."""
    if level not in LEVELS:
        raise ValueError(f"check(): level must be one of {', '.join(LEVELS)}, not {level!r}; pass one of those")
    start = time.monotonic()
    from concurrent.futures import ThreadPoolExecutor

    # The info child (version, device, the cases) and each role's children
    # run at once: each imports the target, most of a run's time for a
    # large library. A role child needs the cases' names only to report a
    # death, after its info has come.
    with ThreadPoolExecutor(1 + len(roles)) as pool:
        asked = pool.submit(_events, target, "info", device, lambda: [], verbose, ["--skip", "0"], timeout)

        def names_of(role: str) -> Callable[[], list[str]]:
            def names() -> list[str]:
                events, _ = asked.result()
                info: dict[str, Any] = next((ev["info"] for ev in events if "info" in ev), {})
                return [n for n, _ in info.get(role, [])]
            return names

        runs = [pool.submit(_run_children, target, role, names_of(role), verbose, device, timeout) for role in roles]
        events, death = asked.result()
        got = next((ev for ev in events if "info" in ev or "error" in ev), None)
        if got is None:
            assert death is not None
            line = {"id": "X.import", "case": f"import {target}", **death}
            return Report(target, "?", device or "?", _grade([line], roles, timeout, imported=False), 0,
                          time.monotonic() - start, level)
        if "error" in got:
            raise {"ImportError": ImportError, "CannotRun": CannotRun}.get(got["class"], ValueError)(got["error"])
        results: list[dict[str, Any]] = []
        calls = 0
        for role, run in zip(roles, runs):
            reproducers = dict(got["info"][role])  # the children count cases by index
            calls += len(reproducers)
            for r in run.result():
                r.setdefault("reproducer", reproducers.get(r["case"], ""))
                results.append(r)
    return Report(target, got["info"]["version"], got["info"]["device"], _grade(results, roles, timeout), calls,
                  time.monotonic() - start, level)


def _events(target: str, role: str, device: str | None, names: Callable[[], list[str]], verbose: bool,
            extra: list[str], timeout: float) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Runs one child: its events, and how it died or hung (None when it
    ended well): {"result": "CRASH" | "HANG", "evidence": ...}. The child's
    events come on a pipe of its own, read with a deadline; what it prints
    goes to a file, read after it ends (no pipe of it can fill up)."""
    import queue
    import tempfile
    import threading

    read, write = os.pipe()
    argv = [sys.executable, "-m", "godlpack._check", "--child", target, "--role", role, "--fd", str(write), *extra]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONFAULTHANDLER"}  # any value turns it on
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        with os.fdopen(read, encoding="utf-8", errors="replace") as f:
            for line in f:
                lines.put(line)
        lines.put(None)

    events: list[dict[str, Any]] = []
    with tempfile.TemporaryFile() as said:
        try:
            p = subprocess.Popen(argv + (["--device", device] if device else []), stdin=subprocess.DEVNULL,
                                 stdout=said, stderr=said, env=env, pass_fds=(write,), start_new_session=True)
        finally:
            os.close(write)
        threading.Thread(target=pump, daemon=True).start()
        hung = False
        wait = IMPORTS_TIMES * timeout
        while True:
            try:
                line = lines.get(timeout=wait)
            except queue.Empty:
                hung = True
                os.killpg(p.pid, signal.SIGKILL)
                break
            if line is None:
                break
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            events.append(ev)
            wait = timeout  # the import is behind it
            if verbose and "done" in ev:
                print(f"  {role}: {names()[ev['done']]}", file=sys.stderr)
        rc = p.wait()
        said.seek(0)
        err = said.read()[-4000:].decode("utf-8", "replace").strip()
    if hung:
        return events, {"result": "HANG", "evidence": f"no answer in {wait:g} s; the process was stopped"}
    if any("end" in ev or "info" in ev or "error" in ev for ev in events):
        return events, None
    how = f"on signal {signal.Signals(-rc).name}" if rc < 0 else f"with exit status {rc}"
    last = next((x.strip() for x in reversed(err.splitlines()) if x.strip()), "")
    return events, {"result": "CRASH",
                    "evidence": f"the process ended {how}" + (f": {last[:300]}" if last else ", saying nothing")}


def _run_children(target: str, role: str, names: Callable[[], list[str]], verbose: bool, device: str | None,
                  timeout: float = CASE_TIMEOUT_S) -> list[dict[str, Any]]:
    """The results of every case of role, from child processes; a child
    that dies or hangs leaves CRASH or HANG for the case it ran, and the
    next starts after it. names() gives the cases' names (it may wait for
    them)."""
    results: list[dict[str, Any]] = []
    skip, replay = 0, True
    hangs = deaths = 0
    while True:
        extra = ["--skip", str(skip)] + ([] if replay else ["--no-replay"])
        events, death = _events(target, role, device, names, verbose, extra, timeout)
        begun = last = None
        for ev in events:
            if "harness" in ev:
                raise HarnessError(f"{role} case {names()[ev['harness']]}", ev["traceback"])
            if "begin" in ev:
                begun = ev["begin"]
            elif "done" in ev:
                results.extend(ev["results"] or [])
                begun, last = None, ev["done"]
                hangs = deaths = 0
        if death is None:
            break
        if begun is None and replay and any("replay" in ev for ev in events):
            replay = False  # it died asking a baseline again: go on without them
            continue
        if begun is None and last is not None:  # after a call returned: its capsule's end
            begun = last
            death = dict(death, evidence=death["evidence"] + " (after the call returned, as its answer was dropped)")
        if begun is None:  # before its first case: at the import, in a child that worked before
            results.append({"id": "X.import", "case": f"import {target} (for the {role} role)", **death})
            break
        kind, ns = death["result"], names()
        if begun >= len(ns):  # the cases this process knows are not the info child's: nothing to name
            break
        results.append({"id": "X.hang" if kind == "HANG" else "X.crash", "case": ns[begun], **death})
        skip = begun + 1
        hangs, deaths = (hangs + 1, 0) if kind == "HANG" else (0, deaths + 1)
        if (hangs >= HANGS_IN_ROW or deaths >= DEATHS_IN_ROW) and skip < len(ns):
            results[-1]["evidence"] += (f"; the {len(ns) - skip} cases of the {role} role after it were not run: "
                                        f"{'HANG' if hangs else 'CRASH'} {hangs or deaths} times in a row")
            break
        if skip >= len(ns):
            break
    return results


# The lines of the process checks, which pass when nothing went wrong.
# A crash or a hang fails at every level (docs/rules.md, "Levels").
PROCESS_CHECKS = [
    {"id": "X.import", "rule": "importing the target neither kills nor hangs the process", "level": MUST},
    {"id": "X.crash", "rule": "no call of __dlpack__ or from_dlpack kills the process", "level": MUST},
    {"id": "X.hang", "rule": "every call of __dlpack__ or from_dlpack returns within the case's time ({t:g} s)",
     "level": MUST},
]


def _grade(results: list[dict[str, Any]], roles: tuple[str, ...], timeout: float = CASE_TIMEOUT_S,
           imported: bool = True) -> list[dict[str, Any]]:
    """One line per check: FAIL/CRASH/HANG when any case did, PASS when one
    passed, else N/A. When the import died, only the process checks."""
    catalogue = [] if not imported else \
        (json.loads(_native._judge_export("", None)) if "producer" in roles else []) + \
        (json.loads(_native._judge_import("")) if "consumer" in roles else [])
    catalogue += [dict(c, rule=c["rule"].format(t=timeout)) for c in PROCESS_CHECKS]
    out = []
    for chk in catalogue:
        rs = [r for r in results if r["id"] == chk["id"]]
        bad = [r for r in rs if r["result"] in ("FAIL", "CRASH", "HANG")]
        res = next((k for k in ("CRASH", "HANG", "FAIL") if any(r["result"] == k for r in bad)), None) or \
            ("PASS" if rs else "N/A")
        if chk["id"].startswith("X.") and not bad:
            res = "PASS"
        show = _SHOW_FLAGS if chk["id"] in _FLAG_CHECKS else ""
        show += _WRITE_THROUGH if chk["id"] == "P2.read_only" else ""
        out.append({"id": chk["id"], "rule": chk["rule"], "level": chk["level"], "result": res, "cases": len(rs),
                    "failed": len(bad),
                    "evidence": [{"case": r["case"], "evidence": r.get("evidence", ""),
                                  "reproducer": _showing(r.get("reproducer", ""), show)} for r in _diverse(bad)]})
    na = [r for r in results if r["result"] == "N/A" and not r["id"]]
    if na:
        out.append({"id": "X.make", "rule": "arrays the target could not make (not graded)", "level": ADVICE,
                    "result": "N/A",
                    "cases": len(na), "failed": 0,
                    "evidence": [{"case": r["case"], "evidence": r["evidence"], "reproducer": ""} for r in na[:5]]})
    return out


def _diverse(bad: list[dict[str, Any]], n: int = 5) -> list[dict[str, Any]]:
    """Up to n failures, one per kind of request first: a check that fails
    for copy=True and for copy=False shows both."""
    seen: set[str] = set()
    first = []
    for r in bad:
        label = r["case"].split(": ", 1)[-1]
        if label not in seen:
            seen.add(label)
            first.append(r)
    rest = [r for r in bad if r not in first]
    return (first + rest)[:n]


def print_report(r: Report, verbose: bool = False) -> None:
    print(f"godlpack check {r.target} {r.version} on {r.device}: {r.target}'s DLPack graded by godlpack's core "
          f"({r.calls} calls, {r.seconds:.1f} s)")
    for level, title in LEVEL_TITLES.items():
        checks = [c for c in r.checks if c["level"] == level]
        if not checks:
            continue
        print(f"{title}{'' if r.gated(checks[0]) else ' (not gated at --level ' + r.level + ')'}")
        for c in checks:
            counts = f"({c['failed']} of {c['cases']} cases)" if c["failed"] else f"({c['cases']} cases)"
            print(f"  {c['id']:<14} {c['result']:<6} {c['rule']} {counts}")
            for e in c["evidence"] if c["result"] in ("FAIL", "CRASH", "HANG") or verbose else []:
                print(f"      {e['case']}: {e['evidence']}")
                if e["reproducer"]:
                    print("        " + e["reproducer"].replace("\n", "\n        "))
    tallies = []
    for level in LEVEL_TITLES:
        cs = [c for c in r.checks if c["level"] == level]
        n = {k: sum(1 for c in cs if c["result"] == k) for k in ("PASS", "FAIL", "N/A", "CRASH", "HANG")}
        bad = "".join(f", {n[k]} {k}" for k in ("CRASH", "HANG") if n[k])
        tallies.append(f"{level} {n['PASS']} PASS, {n['FAIL']} FAIL, {n['N/A']} N/A{bad}")
    verdict = "ok" if r.ok else "FAILED"
    print(f"summary: {'; '.join(tallies)}; at --level {r.level}: {verdict}")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m godlpack check")
    p.add_argument("target")
    p.add_argument("--json", metavar="FILE")
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--role", choices=("producer", "consumer", "both", "info"), default="both")
    p.add_argument("--device", help="where the target's arrays are made (default: where the library makes "
                   "them; e.g. cpu, oneapi:0, cuda:0)")
    p.add_argument("--level", choices=tuple(LEVELS), default="godlpack",
                   help="the checks whose failure fails the run (exit 1): must (the standard's MUSTs), should "
                   "(and its recommendations) or godlpack (every check, the default); all are reported")
    p.add_argument("--timeout", type=float, default=CASE_TIMEOUT_S, metavar="SECONDS",
                   help=f"how long one case may take before it is a HANG (default {CASE_TIMEOUT_S:g})")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--skip", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--fd", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--no-replay", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        return child(a.target, a.skip, a.role, a.device, a.fd, not a.no_replay)
    try:
        r = check(a.target, a.verbose, ROLES if a.role == "both" else (a.role,), a.device, a.timeout, a.level)
    except ImportError as e:
        print(f"check: cannot import {a.target!r} ({e}); install it, or name an importable module", file=sys.stderr)
        return 2
    except (ValueError, CannotRun) as e:  # a device the target is not checked on; one it cannot use here
        print(f"check: {e}", file=sys.stderr)
        return 2
    except HarnessError as e:
        print(f"check {a.target}: ERROR: {e}", file=sys.stderr)
        return 2
    print_report(r, a.verbose)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"target": r.target, "version": r.version, "device": r.device, "level": r.level,
                       "ok": r.ok, "checks": r.checks}, f, indent=1)
    return 0 if r.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
