"""Regressions of issue 10 ("One place for every rule"): each test failed
before its fix. The rules themselves live in core/ (docs/architecture.md)."""

from __future__ import annotations

import ctypes

import pytest

import godlpack as gd
from _helpers import CapsuleInfo, collect, craft_capsule, optional, requires

np = optional("numpy")
dpnp = optional("dpnp")

kDLOpenCL, kDLOneAPI, kDLHexagon = 4, 14, 16


# ---- 1. byte_offset of device memory stays in byte_offset -------------------


# Devices without a backend: a oneAPI handle would be checked against dpctl's
# runtime once it is loaded (test_oneapi.py covers oneAPI's byte_offset).
@pytest.mark.parametrize("device", [(kDLOpenCL, 0), (kDLHexagon, 0), (7, 1)])
@pytest.mark.parametrize("max_version", [(1, 3), None])
def test_device_handle_keeps_data_and_byte_offset(device, max_version):
    """A crafted device tensor, data=0x10000 (a handle, never memory) and
    byte_offset=64, comes back with the same data and byte_offset, and a view
    a[2:] adds to byte_offset, not to the handle."""
    handle = 0x10000
    cap, rec = craft_capsule(shape=(10,), strides=(1,), dtype=(2, 32, 1), data=handle, byte_offset=64,
                             device=device)
    a = gd.from_dlpack(cap)  # a raw capsule: held where it lives
    assert a.device == gd.Device(device)
    for view, want in [(a, 64), (a[2:], 72), (a[::-1], 64 + 9 * 4), (a[3:8:2][1:], 64 + 5 * 4)]:
        info = CapsuleInfo(view.__dlpack__(max_version=max_version))
        assert info.data == handle, "the handle must not be offset"
        assert info.byte_offset == want
        assert info.device == device
    del a, view, cap
    collect()
    assert rec.deleted == 1


def test_host_memory_still_folds_byte_offset():
    """CPU memory keeps DLPack's recommended form: data at the first element."""
    buf = (ctypes.c_double * 8)(*range(8))
    cap, rec = craft_capsule(buf, shape=(4,), strides=(1,), byte_offset=16)
    a = gd.from_dlpack(cap)
    assert a.tolist() == [2.0, 3.0, 4.0, 5.0]
    info = CapsuleInfo(a[1:].__dlpack__(max_version=(1, 3)))
    assert (info.data, info.byte_offset) == (ctypes.addressof(buf) + 24, 0)
    del a, cap
    collect()
    assert rec.deleted == 1


@requires("numpy", "dpnp", "dpctl")
@pytest.mark.parametrize("view", ["[::-1]", "[2:]", "[1:9:3]", "[::-2][1:]"])
def test_dpnp_round_trip_of_a_view(view):
    import _dpenv
    import dpnp.tensor as dpt

    _dpenv.sycl_cpu_device()
    x = eval("dpt.arange(10, dtype='i4')" + view)
    y = gd.from_dlpack(x.__dlpack__(max_version=(1, 3)))  # held on kDLOneAPI
    assert y.device.type == gd.DLDeviceType.kDLOneAPI
    z = dpt.from_dlpack(y)
    assert dpt.asnumpy(z).tolist() == dpt.asnumpy(x).tolist()
    w = dpt.from_dlpack(y[1:])
    assert dpt.asnumpy(w).tolist() == dpt.asnumpy(x).tolist()[1:]


# ---- 3. writes name __setitem__() --------------------------------------------


@pytest.mark.parametrize("key, exc", [("n", IndexError), ("-n-1", IndexError), ((0, 0), IndexError),
                                      (slice(None), None), ("..., n", IndexError)])
@pytest.mark.parametrize("n", [3, 1 << 23])  # small, and big enough for the chunked a[slice] = v
def test_setitem_errors_name_setitem(key, exc, n):
    if isinstance(key, str):
        key = eval(key, {"n": n})
    a = gd.zeros(n)
    if exc is None:
        a[key] = 1.0
        assert a[0] == 1.0 and a[n - 1] == 1.0
        return
    with pytest.raises(exc, match=r"^__setitem__\(\): "):
        a[key] = 1.0
    with pytest.raises(exc, match=r"^__getitem__\(\): "):
        a[key]


def test_setitem_on_read_only_names_setitem():
    a = gd.from_dlpack(gd.arange(3.0).__dlpack__(max_version=(1, 3)))
    b = gd.asarray(memoryview(b"abc"))
    with pytest.raises(ValueError, match=r"^__setitem__\(\): .*read-only"):
        b[0] = 1
    a[0] = 2.0  # writable stays writable


# ---- 5. one device parser, one answer ------------------------------------------


@pytest.mark.parametrize("spec", [(1, 0, 0), (1,), (), ("cpu", 0), (1, 0.0), (99, 0), (1, 5), "gpu",
                                  "cpu:x", "cuda:-1", 3.5, [1, 0]])
@pytest.mark.parametrize("entry", ["from_dlpack", "asarray"])
def test_device_argument_errors_match_device(spec, entry):
    """from_dlpack/asarray(device=spec) refuse exactly what gd.Device(spec)
    refuses (core.DeviceArg's one rule), with the same class and message,
    each starting with its own entry point."""
    with pytest.raises((TypeError, ValueError)) as want:
        gd.Device(spec)
    a = gd.arange(3.0)
    f = getattr(gd, entry)
    with pytest.raises(want.type) as got:
        f(a, device=spec)
    assert str(want.value).startswith("Device(): ")
    assert str(got.value) == f"{entry}(): " + str(want.value).removeprefix("Device(): ")


@pytest.mark.parametrize("spec", ["cpu", "cpu:0", (1, 0), gd.Device("cpu")])
def test_device_argument_accepted_like_device(spec):
    assert gd.Device(spec) == gd.Device("cpu")
    assert gd.from_dlpack(gd.arange(3.0), device=spec).tolist() == [0.0, 1.0, 2.0]


# ---- 2. decide, then copy ------------------------------------------------------


def _read_only(nbytes):
    a = gd.asarray(memoryview(bytes(nbytes)))
    assert a.readonly
    return a


_REFUSED_COPY = r"""
import json, sys
import godlpack as gd

def peak_kib():   # VmHWM: this process's peak RSS (ru_maxrss carries the parent's across exec)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])

kw = eval(sys.argv[1])
a = gd.asarray(memoryview(bytes(64 << 20)))           # read-only, 64 MiB
assert a.readonly
before_rss = peak_kib()
before = gd._native._go_crossings()
try:
    a.__dlpack__(**kw)
    out = "exported"
except BufferError as e:
    out = str(e)
print(json.dumps(dict(out=out, calls=gd._native._go_crossings() - before, grew_kib=peak_kib() - before_rss)))
"""


@pytest.mark.parametrize("kw", [
    dict(copy=True),                                  # legacy: a read-only array cannot leave
    dict(copy=True, max_version=(0, 8)),
    dict(copy=True, max_version=(1, 3), dl_device=(1, 5)),
    dict(copy=True, max_version=(1, 3), dl_device=(2, 0)),
    dict(copy=True, max_version=(1, 3), stream=7),
])
def test_refused_copy_export_copies_nothing(kw):
    """A 64 MiB request that will be refused is decided first: one Go call
    (the plan), and the process never holds a copy (its peak RSS does not
    grow by the 64 MiB a copy would take). Used to copy for ~235 ms first."""
    import json
    import os
    import subprocess
    import sys

    pkg = os.path.dirname(os.path.dirname(os.path.abspath(gd.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([pkg, os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run([sys.executable, "-c", _REFUSED_COPY, repr(kw)], capture_output=True, text=True,
                       timeout=120, env=env)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout.strip().splitlines()[-1])
    assert r["out"].startswith("__dlpack__(): "), r
    assert r["calls"] == 1, r
    assert r["grew_kib"] < 16 << 10, r


def test_planned_big_copy_export_still_copies_in_chunks():
    a = _read_only(64 << 20)
    before = gd._native._go_crossings()
    info = CapsuleInfo(cap := a.__dlpack__(copy=True, max_version=(1, 3)))
    assert gd._native._go_crossings() - before > 2  # plan, allocation, chunks, export
    assert info.is_copied and not info.read_only
    b = gd.from_dlpack(cap)
    assert b.nbytes == a.nbytes and b[::1 << 20].tolist() == [0] * 64


# ---- 4. errors say what the user asked for ------------------------------------


@pytest.mark.parametrize("kw, want", [
    (dict(device="cpu"), r"^from_dlpack\(\): device=cpu:0 cannot be reached from a tensor on hexagon:0"),
    (dict(device=(1, 0), copy=False), r"^from_dlpack\(\): device=cpu:0 cannot be reached"),
    (dict(copy=True), r"^from_dlpack\(\): copy=True but godlpack has no memory backend for hexagon:0"),
])
def test_own_device_array_refusal_names_from_dlpack_arguments(kw, want):
    cap, rec = craft_capsule(shape=(4,), strides=(1,), dtype=(0, 32, 1), data=0x10000, device=(kDLHexagon, 0))
    y = gd.from_dlpack(cap)  # an opaque hexagon:0 array
    with pytest.raises(BufferError, match=want) as e:
        gd.from_dlpack(y, **kw)
    assert "dl_device" not in str(e.value) and "__dlpack__" not in str(e.value)
    del y, cap
    collect()
    assert rec.deleted == 1
