"""The exception table (docs/exceptions.md, linked from the README), walked:
every "when" of every row has calls here, one per entry point it concerns,
and each raises the row's class with a message that starts with the entry
point the user called. A row or item added to the table without cases here
fails (issue 12)."""

from __future__ import annotations

import ctypes
import os
import re
import subprocess
import sys

import pytest

import godlpack as gd
from _helpers import craft_capsule, need_probes

TABLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "exceptions.md")


def _table():
    """{class name: [when, ...]} from docs/exceptions.md's table."""
    with open(TABLE, encoding="utf-8") as f:
        text = f.read()
    section = text.split("# Exceptions", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"\| `(\w+)` \| (.*) \|$", line)
        if m:
            when = m.group(2).split(": ", 1)[-1]
            rows[m.group(1)] = [w.strip() for w in when.split("; ")]
    return rows


_KEEP = []  # crafted capsules' buffers live as long as the module


def _device_array(device=(4, 0)):
    cap, rec = craft_capsule(shape=(4,), strides=(1,), dtype=(2, 32, 1), data=0x10000, device=device)
    _KEEP.append((cap, rec))
    return gd.from_dlpack(cap)


def _host_kind_array():
    buf = (ctypes.c_float * 4)()
    cap, rec = craft_capsule(buf, shape=(4,), strides=(1,), dtype=(2, 32, 1), device=(3, 0))  # kDLCUDAHost
    _KEEP.append((buf, cap, rec))
    return gd.from_dlpack(cap)


def _capsule(**kw):
    buf = (ctypes.c_uint8 * 64)()
    cap, rec = craft_capsule(buf, **kw)
    _KEEP.append((buf, cap, rec))
    return cap


def _read_only():
    return gd.asarray(memoryview(b"12345678"))


def _used():
    c = gd.arange(3.0).__dlpack__(max_version=(1, 3))
    gd.from_dlpack(c)
    return c


class _Failing:
    def __dlpack__(self, **kw):
        raise RuntimeError("no driver")

    def __dlpack_device__(self):
        return (1, 0)


a = gd.arange(4.0)

CASES = {
    "BufferError": {
        "unreachable `dl_device`/`device`": [
            ("__dlpack__()", lambda: a.__dlpack__(max_version=(1, 3), dl_device=(10, 0))),
            ("from_dlpack()", lambda: gd.from_dlpack(a, device="cuda:0")),
            ("asarray()", lambda: gd.asarray(a, device=(16, 0))),
        ],
        "a `stream` on the CPU": [("__dlpack__()", lambda: a.__dlpack__(stream=7))],
        "`copy=False` when a copy is needed": [
            ("from_dlpack()", lambda: gd.from_dlpack(_host_kind_array(), device="cpu", copy=False)),
            ("__dlpack__()", lambda: _host_kind_array().__dlpack__(max_version=(1, 3), dl_device=(1, 0), copy=False)),
        ],
        "a read-only array asked for as a legacy capsule": [("__dlpack__()", lambda: _read_only().__dlpack__())],
        "a consumed capsule": [("from_dlpack()", lambda: gd.from_dlpack(_used())),
                               ("asarray()", lambda: gd.asarray(_used()))],
        "an unsupported dtype, lanes or DLPack major version": [
            ("from_dlpack()", lambda: gd.from_dlpack(_capsule(shape=(2,), dtype=(3, 64, 1)))),
            ("from_dlpack()", lambda: gd.from_dlpack(_capsule(shape=(2,), dtype=(2, 32, 4)))),
            ("from_dlpack()", lambda: gd.from_dlpack(_capsule(shape=(2,), version=(2, 0)))),
        ],
        "a producer whose `__dlpack__` fails": [("from_dlpack()", lambda: gd.from_dlpack(_Failing())),
                                                ("asarray()", lambda: gd.asarray(_Failing()))],
        "CPU access to an array on another device": [
            ("memoryview()", lambda: memoryview(_device_array())),
            ("float()", lambda: float(_device_array()[0])),
        ],
        'allocation on a device without a backend (CUDA so far)': [
            ("zeros()", lambda: gd.zeros(3, device="cuda:0")),
            ("empty()", lambda: gd.empty(3, device="hexagon:0")),
        ],
    },
    "TypeError": {
        "`max_version`/`dl_device` not a 2-tuple of ints": [
            ("__dlpack__()", lambda: a.__dlpack__(max_version=1)),
            ("__dlpack__()", lambda: a.__dlpack__(dl_device=(1,))),
        ],
        "a non-integer `stream`": [("__dlpack__()", lambda: a.__dlpack__(stream="s"))],
        "`from_dlpack` of an object without `__dlpack__`": [("from_dlpack()", lambda: gd.from_dlpack(object()))],
        "`int()`/`float()` of an array that is not 0-d (numpy 2)": [("int()", lambda: int(a)),
                                                                    ("float()", lambda: float(a))],
        "arithmetic (`a + 1`: the message names `np.from_dlpack(a)` and `torch.from_dlpack(a)`)": [
            ("+", lambda: a + 1), ("unary -", lambda: -a), ("@", lambda: a @ a)],
        "comparing or reducing float8/float6/float4 arrays": [
            ("==", lambda: gd.zeros(3, dtype="float8_e4m3fn") == 0),
            ("sum()", lambda: gd.zeros(3, dtype="float8_e5m2").sum()),
            ("max()", lambda: gd.zeros(3, dtype="float8_e4m3fn").max())],
        "an unsupported reduction keyword": [("sum()", lambda: a.sum(where=True)),
                                             ("max()", lambda: a.max(initial=0.0))],
    },
    "ValueError": {
        "`copy` not `None`/`True`/`False`": [("from_dlpack()", lambda: gd.from_dlpack(a, copy=2)),
                                             ("__dlpack__()", lambda: a.__dlpack__(copy=2))],
        "an unknown device or dtype name": [("from_dlpack()", lambda: gd.from_dlpack(a, device="gpu")),
                                            ("zeros()", lambda: gd.zeros(3, dtype="float128"))],
        "a dimension beyond 64 bits": [("empty()", lambda: gd.empty((2**63,)))],
        "a write to a read-only array": [("__setitem__()", lambda: _read_only().__setitem__(0, 1)),
                                         ("fill()", lambda: _read_only().fill(1))],
        "the truth value of an array of more than one element": [("bool()", lambda: bool(a))],
        "shapes that do not broadcast": [("<", lambda: gd.zeros((2, 3)) < gd.zeros(4)),
                                         ("==", lambda: gd.zeros((2, 3)) == gd.zeros((3, 2)))],
        # ErrAxis is one class everywhere: transpose, reductions, repeats.
        "an axis out of range": [("sum()", lambda: a.sum(axis=3)), ("any()", lambda: a.any(axis=(0, -2))),
                                 ("sum()", lambda: a.sum(axis=(1, 1))),
                                 ("transpose()", lambda: gd.zeros((2, 3)).transpose((0, 5))),
                                 ("transpose()", lambda: gd.zeros((2, 3)).transpose((0, 2**40))),
                                 ("transpose()", lambda: gd.zeros((2, 3)).transpose((1, 1))),
                                 ("transpose()", lambda: gd.zeros((2, 3)).transpose((0,)))],
        "`min`/`max` of an empty array": [("max()", lambda: gd.zeros(0).max()),
                                          ("min()", lambda: gd.zeros((2, 0)).min(axis=1))],
    },
    "IndexError": {
        "an index out of range": [("__getitem__()", lambda: a[10]), ("__setitem__()", lambda: a.__setitem__(-9, 1.0))],
    },
    "OverflowError": {
        "a Python integer out of the range of the integer dtype it is stored into (numpy 2 raises the same)": [
            ("asarray()", lambda: gd.asarray([2**63], dtype="int64")),
            ("asarray()", lambda: gd.asarray([300], dtype="int8")),
            ("__setitem__()", lambda: gd.zeros(2, dtype="uint8").__setitem__(0, -1)),
            ("fill()", lambda: gd.zeros(2, dtype="int16").fill(2**15)),
            ("full()", lambda: gd.full((2,), 2**64, dtype="uint64")),
            ("arange()", lambda: gd.arange(2**63, 2**63 + 2, dtype="int64"))],
    },
    "MemoryError": {
        "an allocation failed": [("empty()", lambda: gd.empty((1 << 58,)))],
    },
    "RuntimeError": {
        "a recovered Go panic": [("_test_panic()", "probe")],
        "in a forked child, work that needs the Go runtime (the message names the `spawn` and `forkserver` start methods)": [
            ("astype()", "fork")],
    },
}


def test_every_row_and_item_of_the_table_has_cases():
    table = _table()
    assert set(table) == set(CASES), "rows of docs/exceptions.md's table"
    for cls, items in table.items():
        assert set(items) == set(CASES[cls]), f"items of the {cls} row"


def _forked_child_astype():
    code = ("import os, godlpack as gd\na = gd.arange(3.0)\npid = os.fork()\nif pid == 0:\n"
            "    try:\n        a.astype('float32')\n    except RuntimeError as e:\n"
            "        os._exit(0 if str(e).startswith('astype(): ') and 'spawn' in str(e) and 'forkserver' in str(e) else 3)\n"
            "    os._exit(4)\nprint(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))\n")
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(gd.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([pkg, os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.parametrize("cls, item, entry, call", [
    (cls, item, entry, call) for cls, items in CASES.items() for item, calls in items.items() for entry, call in calls
], ids=lambda v: v if isinstance(v, str) and len(v) < 40 else None)
def test_table_case_raises_its_class_with_the_entry_point(cls, item, entry, call):
    if call == "probe":  # a test probe: a GODLPACK_PROBES=1 build
        need_probes()
        call = gd._native._test_panic
    if call == "fork":
        p = _forked_child_astype()
        assert p.stdout.strip() == "0", p.stdout + p.stderr
        return
    with pytest.raises(getattr(__builtins__, cls) if isinstance(__builtins__, type(sys)) else __builtins__[cls]) as e:
        call()
    assert type(e.value).__name__ == cls
    assert str(e.value).startswith(entry + ": "), str(e.value)


# The skin decides no class: outside errors.c (the translation), no C file of
# pyext names a Python exception class to raise, nor raises MemoryError by
# PyErr_NoMemory; what the skin checks itself is raised by core's sentinel
# number (gd_errf, docs/exceptions.md "One table"). Asking what was raised
# (ExceptionMatches) and telling an exception from other objects
# (PyType_IsSubtype of PyExc_Exception) decide nothing.
_PYEXT = os.path.join(os.path.dirname(TABLE), "..", "pyext")
_DECIDED = re.compile(r"PyExc_\w+|PyErr_NoMemory")
_ASKS = re.compile(r"ExceptionMatches|PyType_IsSubtype\(.*PyExc_Exception")


def test_pyext_raises_no_class_of_its_own():
    found = []
    for name in sorted(os.listdir(_PYEXT)):
        if not name.endswith((".c", ".h")) or name == "errors.c":
            continue
        with open(os.path.join(_PYEXT, name), encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if _DECIDED.search(line) and not _ASKS.search(line):
                    found.append(f"pyext/{name}:{n}: {line.strip()}")
    assert not found, "raise these with gd_errf(GD_E_...) instead:\n" + "\n".join(found)


@pytest.mark.parametrize("sentinel,cls", [
    ("ErrConsumed", BufferError), ("ErrCapsule", BufferError), ("ErrShapeArg", ValueError),
    ("ErrMaxVersion", TypeError), ("ErrDLDeviceArg", TypeError), ("ErrBufferRequest", BufferError),
])
def test_the_table_names_the_class_the_skin_raises(sentinel, cls):
    with open(TABLE, encoding="utf-8") as f:
        row = next(line for line in f if line.startswith(f"| `{sentinel}` |"))
    assert f"`{cls.__name__}`" in row
    cases = {
        "ErrConsumed": lambda: gd.from_dlpack(_used_capsule()),
        "ErrCapsule": lambda: gd.from_dlpack(_other_capsule()),
        "ErrShapeArg": lambda: gd.zeros((-1,)),
        "ErrMaxVersion": lambda: gd.arange(2).__dlpack__(max_version=1),
        "ErrDLDeviceArg": lambda: gd.arange(2).__dlpack__(dl_device=1),
        "ErrBufferRequest": lambda: memoryview(gd.zeros(3, dtype="bfloat16")),
    }
    with pytest.raises(cls):
        cases[sentinel]()


def _used_capsule():
    cap = gd.arange(2).__dlpack__(max_version=(1, 3))
    gd.from_dlpack(cap)
    return cap


def _other_capsule():
    PyCapsule_New = ctypes.pythonapi.PyCapsule_New
    PyCapsule_New.restype = ctypes.py_object
    PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return PyCapsule_New(ctypes.c_void_p(8), b"not_a_tensor", None)
