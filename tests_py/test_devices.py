"""Devices on import (docs/rules.md S8, P3, C7; peers.md item 29): tensors from
devices we cannot read are held opaque (their device kept by every view and
re-export, every CPU access refused with BufferError, never a crash);
CPU-accessible host memory (kDLCUDAHost, kDLROCMHost, kDLCUDAManaged) is readable."""

import ctypes

import pytest

import godlpack as gd
from _helpers import CapsuleInfo, collect, craft_capsule, float64_buffer, gd_ptr

T = gd.DLDeviceType


@pytest.fixture
def cuda_array():
    buf = float64_buffer([1.0, 2.0, 3.0, 4.0])
    cap, rec = craft_capsule(buf, shape=(2, 2), device=(2, 0))
    a = gd.from_dlpack(cap)
    yield a, rec
    del a, cap


def test_foreign_device_is_kept(cuda_array):
    a, _rec = cuda_array
    assert a.device.type == T.kDLCUDA and a.device.id == 0
    assert a.__dlpack_device__() == (T.kDLCUDA, 0)
    for v in (a[0], a.T, a[::-1], a.reshape((4,))):
        assert v.__dlpack_device__() == (T.kDLCUDA, 0), "views keep the device"
        assert CapsuleInfo(v.__dlpack__(max_version=(1, 0))).device == (2, 0)
    assert "cuda" in repr(a)


@pytest.mark.parametrize("op", ["tolist", "sum", "fill", "memoryview", "setitem", "copy"])
def test_foreign_device_cpu_access_refused(cuda_array, op):
    a, _rec = cuda_array
    calls = {
        "tolist": lambda: a.tolist(),
        "sum": lambda: a.sum(),
        "fill": lambda: a.fill(0.0),
        "memoryview": lambda: memoryview(a),
        "setitem": lambda: a.__setitem__((0, 0), 5.0),
        "copy": lambda: a.copy(),
    }
    with pytest.raises(BufferError):
        calls[op]()


def test_foreign_device_export_to_cpu_refused(cuda_array):
    a, _rec = cuda_array
    with pytest.raises(BufferError) as ei:
        a.__dlpack__(max_version=(1, 0), dl_device=(1, 0))
    assert "dl_device" in str(ei.value)
    with pytest.raises(BufferError):
        gd.from_dlpack(a, device="cpu")


def test_foreign_device_deleter_once():
    buf = float64_buffer([1.0])
    cap, rec = craft_capsule(buf, shape=(1,), device=(10, 0))
    a = gd.from_dlpack(cap)
    v = a[::-1]
    del a, cap
    collect()
    assert rec.deleted == 0
    del v
    collect()
    assert rec.deleted == 1


@pytest.mark.parametrize("dev", [T.kDLCUDAHost, T.kDLROCMHost, T.kDLCUDAManaged])
def test_host_accessible_memory(dev):
    buf = float64_buffer([1.0, 2.0, 3.0])
    cap, _rec = craft_capsule(buf, shape=(3,), device=(int(dev), 0))
    a = gd.from_dlpack(cap)
    assert a.device.type == dev
    assert a.tolist() == [1.0, 2.0, 3.0] and a.sum() == 6.0
    assert gd_ptr(a) == ctypes.addressof(buf)
    cap2, _rec2 = craft_capsule(buf, shape=(3,), device=(int(dev), 0))
    c = gd.from_dlpack(cap2, device="cpu")
    assert c.device.type == T.kDLCPU and c.tolist() == [1.0, 2.0, 3.0]
