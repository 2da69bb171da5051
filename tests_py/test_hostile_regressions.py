"""Regressions of issue 12 (hostile and unusual callers) fixed so far; each
test failed before its fix. Items 1 and 3 are in test_perf_exchange_api.py
(test_consumer_ignores_exchange_api_that_is_not_our_capsule,
test_dltensor_from_py_object_refuses_read_only)."""

from __future__ import annotations

import threading

import pytest

import godlpack as gd


# ---- 4. __release_buffer__ releases only our own views -------------------------


class _Releasable:
    def __init__(self):
        self.released = 0

    def release(self):
        self.released += 1


@pytest.mark.parametrize("other", [threading.Lock, _Releasable, lambda: memoryview(b"abc"),
                                   lambda: memoryview(gd.arange(3.0))])
def test_release_buffer_refuses_foreign_objects(other):
    a = gd.arange(3.0)
    obj = other()
    with pytest.raises(TypeError, match=r"^__release_buffer__\(\): "):
        a.__release_buffer__(obj)
    if isinstance(obj, _Releasable):
        assert obj.released == 0
    if isinstance(obj, memoryview):
        assert obj[0] is not None  # still usable: not released
    if hasattr(obj, "locked"):
        obj.acquire()  # still a working lock
        obj.release()


def test_release_buffer_releases_its_own_view():
    a = gd.arange(3.0)
    v = a.__buffer__(0)
    a.__release_buffer__(v)
    with pytest.raises(ValueError):
        v[0]


# ---- 8. empty arrays print in constant time ------------------------------------


@pytest.mark.parametrize("shape", [(10**7, 0), (2**62, 0), (0, 2**40), (3, 0, 5)])
def test_repr_of_empty_arrays_is_short(shape):
    a = gd.zeros(shape)
    r = repr(a)
    assert r == f"Array([], shape={shape!r}, dtype=float64)"


def test_repr_of_small_arrays_unchanged():
    assert repr(gd.zeros(0)) == "Array([], dtype=float64)"
    assert repr(gd.arange(3.0)) == "Array([0.0, 1.0, 2.0], dtype=float64)"


# ---- 9. empty arrays index without overflow ------------------------------------


@pytest.mark.parametrize("key, want", [
    (-1, (2**30, 0)),
    (slice(None, None, -1), (2**40, 2**30, 0)),
    ((-1, slice(None, None, -3)), (2**30 // 3 + 1, 0)),
    ((slice(2, None), 0), (2**40 - 2, 0)),
])
def test_empty_crafted_tensor_indexes_without_overflow(key, want):
    """Shape (2**40, 2**30, 0), NULL strides: accepted, and every index works
    (it used to raise "offset overflows int64")."""
    from _helpers import collect, craft_capsule

    cap, rec = craft_capsule(shape=(2**40, 2**30, 0), strides=None, data=0)
    a = gd.from_dlpack(cap)
    v = a[key]
    assert v.shape == want and v.size == 0
    del a, v, cap
    collect()
    assert rec.deleted == 1


# ---- 2. subinterpreters cannot repoint the exchange API's state ---------------

_SUBINTERP = r"""
import ctypes, sys, _testcapi
import godlpack as gd
code = _testcapi.run_in_subinterp(
    "try:\n"
    "    import godlpack\n"
    "    print('IMPORTED')\n"
    "except ImportError as e:\n"
    "    print('REFUSED', 'subinterpreter' in str(e) and 'main interpreter' in str(e))\n")
# the main interpreter's exchange API still works: export, then import back
api_cap = type(gd.arange(1.0)).__dlpack_c_exchange_api__
get = ctypes.pythonapi.PyCapsule_GetPointer
get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
api = get(api_cap, b"dlpack_exchange_api")
fields = (ctypes.c_void_p * 8).from_address(api)   # header (version, prev_api), then the functions
FROM_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(ctypes.c_void_p))
TO_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
m = ctypes.c_void_p()
assert FROM_PY(fields[3])(gd.arange(3.0), ctypes.byref(m)) == 0
out = ctypes.c_void_p()
assert TO_PY(fields[4])(m, ctypes.byref(out)) == 0
b = ctypes.cast(out, ctypes.py_object).value
ctypes.pythonapi.Py_DecRef(ctypes.py_object(b))
print("MAIN", type(b).__name__, b.tolist())
"""


def test_subinterpreter_import_is_refused_and_main_keeps_working():
    import os
    import subprocess
    import sys

    pkg = os.path.dirname(os.path.dirname(os.path.abspath(gd.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([pkg, os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run([sys.executable, "-c", _SUBINTERP], capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 0, p.stderr
    assert "REFUSED True" in p.stdout and "IMPORTED" not in p.stdout, p.stdout + p.stderr
    assert "MAIN Array [0.0, 1.0, 2.0]" in p.stdout, p.stdout + p.stderr
