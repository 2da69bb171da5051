"""godlpack <-> array-api-strict 2.6 (the array API reference; it wraps numpy), issue 4.

As a consumer it asks __dlpack__(max_version=(1, 0), dl_device=None, copy=None),
numpy's request; as a producer it answers "dltensor_versioned" at version 1.0.
Round trips go both ways without a copy; READ_ONLY travels both ways.
"""

from __future__ import annotations

import pytest

import godlpack as gd
from _dpenv import Spy
from _helpers import FLAG_READ_ONLY, collect, gd_ptr, optional, requires

np = optional("numpy")
xp = optional("array_api_strict")

pytestmark = requires("numpy", "array_api_strict")

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128"]


def xptr(x) -> int:
    """Data pointer of an array_api_strict array (its numpy array underneath)."""
    return x._array.ctypes.data


def ref_values(dtype):
    v = np.arange(1, 13).reshape(3, 4)
    if dtype == "bool":
        return v % 2 == 0
    return v.astype(dtype)


def test_to_xp_zero_copy():
    a = gd.arange(6, dtype="float64")
    spy = Spy(a)
    x = xp.from_dlpack(spy)
    assert type(x).__module__.startswith("array_api_strict")
    assert spy.requests == [{"dl_device": None, "copy": None, "max_version": (1, 0)}]
    assert spy.info.name == "dltensor_versioned" and spy.info.version == (1, 3)
    assert x.device == xp.Device("CPU_DEVICE")
    assert xptr(x) == gd_ptr(a)
    a[0] = 5.0
    assert float(x[0]) == 5.0


@pytest.mark.parametrize("copy", [None, False, True])
def test_to_xp_copy_and_device(copy):
    a = gd.arange(4, dtype="int32")
    x = xp.from_dlpack(a, copy=copy, device=xp.Device("CPU_DEVICE"))
    assert (xptr(x) == gd_ptr(a)) is (copy is not True)
    assert x.dtype == xp.int32 and [int(v) for v in x] == [0, 1, 2, 3]


def test_to_xp_readonly_kept():
    src = np.arange(4.0)
    src.flags.writeable = False
    a = gd.from_dlpack(src)
    x = xp.from_dlpack(a)
    assert x._array.flags.writeable is False and xptr(x) == src.ctypes.data


@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_gd_xp_gd(dtype):
    ref = ref_values(dtype)
    a = gd.asarray(ref).copy()
    x = xp.from_dlpack(a)
    assert x.dtype == getattr(xp, dtype) and x.shape == (3, 4)
    assert xptr(x) == gd_ptr(a)
    b = gd.from_dlpack(x)
    assert gd_ptr(b) == gd_ptr(a) and b.dtype == dtype and b.tolist() == ref.tolist()


@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_xp_gd_xp(dtype):
    x = xp.asarray(ref_values(dtype))
    spy = Spy(x)
    a = gd.from_dlpack(spy)
    assert spy.requests == [{"max_version": (1, 3)}]
    assert spy.info.name == "dltensor_versioned" and spy.info.version == (1, 0)
    assert gd_ptr(a) == xptr(x) and a.readonly is False
    y = xp.from_dlpack(a)
    assert xptr(y) == xptr(x)
    assert xp.all(y == x)


def test_from_xp_readonly_kept():
    src = np.arange(4.0)
    src.flags.writeable = False
    x = xp.asarray(src)
    spy = Spy(x)
    a = gd.from_dlpack(spy)
    assert spy.info.flags & FLAG_READ_ONLY
    assert a.readonly
    with pytest.raises(ValueError):
        a[0] = 1.0


@pytest.mark.parametrize("view", ["step", "reversed", "transpose", "block"])
def test_views_both_ways(view):
    f = {"step": lambda t: t[::2], "reversed": lambda t: t[::-1], "transpose": lambda t: t.T,
         "block": lambda t: t[1:, 1:]}[view]
    base = gd.arange(12, dtype="int64").reshape(3, 4) if view in ("transpose", "block") else gd.arange(12, dtype="int64")
    a = f(base)
    x = xp.from_dlpack(a)
    assert xptr(x) == gd_ptr(a) and x._array.tolist() == a.tolist()
    b = gd.from_dlpack(x)
    assert gd_ptr(b) == gd_ptr(a) and b.strides == a.strides


def test_from_xp_copy_true_and_lifetime():
    x = xp.asarray([1.0, 2.0, 3.0])
    a = gd.from_dlpack(x, copy=True)
    assert gd_ptr(a) != xptr(x)
    b = gd.from_dlpack(x)
    del x
    collect()
    assert b.tolist() == [1.0, 2.0, 3.0]
