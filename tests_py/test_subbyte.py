"""Sub-byte and float8 types (docs/rules.md S7; DLPack 1.1 codes 7-17): packed
sub-byte tensors are exchanged whole (C-contiguous, offset 0); views of them are
refused; bits must match the type."""

import ctypes

import pytest

import godlpack as gd
from _helpers import FLAG_IS_SUBBYTE_TYPE_PADDED, CapsuleInfo, collect, craft_capsule, gd_ptr

FLOAT8 = [("float8_e3m4", 7), ("float8_e4m3", 8), ("float8_e4m3b11fnuz", 9), ("float8_e4m3fn", 10),
          ("float8_e4m3fnuz", 11), ("float8_e5m2", 12), ("float8_e5m2fnuz", 13), ("float8_e8m0fnu", 14)]
SUBBYTE = [("float6_e2m3fn", 15, 6), ("float6_e3m2fn", 16, 6), ("float4_e2m1fn", 17, 4)]


def _buf(n):
    return (ctypes.c_uint8 * max(n, 1))(*range(max(n, 1)))


@pytest.mark.parametrize("name,code", FLOAT8)
def test_float8_constants_and_import(name, code):
    dt = getattr(gd, name)
    assert dt.name == name and dt.code == code and dt.bits == 8 and dt.lanes == 1
    buf = _buf(6)
    cap, rec = craft_capsule(buf, shape=(2, 3), dtype=(code, 8, 1))
    a = gd.from_dlpack(cap)
    assert a.dtype == name and a.itemsize == 1 and a.strides == (3, 1)
    assert gd_ptr(a) == ctypes.addressof(buf)
    v = a.T  # float8 is byte-sized: views are fine
    info = CapsuleInfo(v.__dlpack__(max_version=(1, 0)))
    assert info.dtype == (code, 8, 1) and info.strides == (1, 3)
    del a, v, cap
    collect()
    assert rec.deleted == 1


@pytest.mark.parametrize("name,code,bits", SUBBYTE)
def test_subbyte_packed_whole_round_trip(name, code, bits):
    dt = getattr(gd, name)
    assert dt.code == code and dt.bits == bits
    n = 8
    buf = _buf(n * bits // 8)
    cap, _rec = craft_capsule(buf, shape=(n,), strides=(1,), dtype=(code, bits, 1))
    a = gd.from_dlpack(cap)
    assert a.dtype == name and a.shape == (n,)
    out = CapsuleInfo(a.__dlpack__(max_version=(1, 0)))
    assert out.dtype == (code, bits, 1) and out.shape == (n,)
    assert out.data == ctypes.addressof(buf) and out.byte_offset == 0


@pytest.mark.parametrize("name,code,bits", SUBBYTE)
def test_subbyte_packed_views_refused(name, code, bits):
    buf = _buf(16)
    cap, _rec = craft_capsule(buf, shape=(2, 8), strides=(8, 1), dtype=(code, bits, 1))
    a = gd.from_dlpack(cap)
    for make in (lambda: a[1], lambda: a[:, ::2], lambda: a.T.copy(), lambda: a[::-1]):
        with pytest.raises((BufferError, ValueError, TypeError)):
            make()


@pytest.mark.parametrize("name,code,bits", SUBBYTE)
def test_subbyte_non_contiguous_import_refused(name, code, bits):
    buf = _buf(16)
    cap, rec = craft_capsule(buf, shape=(4,), strides=(2,), dtype=(code, bits, 1))
    with pytest.raises(BufferError):
        gd.from_dlpack(cap)
    del cap
    collect()
    assert rec.deleted == 1


@pytest.mark.parametrize("code,bits", [(15, 8), (16, 4), (17, 8), (17, 6), (10, 4), (10, 16)])
def test_subbyte_wrong_bits_refused(code, bits):
    buf = _buf(16)
    cap, rec = craft_capsule(buf, shape=(4,), dtype=(code, bits, 1))
    with pytest.raises(BufferError):
        gd.from_dlpack(cap)
    del cap
    collect()
    assert rec.deleted == 1


@pytest.mark.parametrize("name,code,bits", SUBBYTE)
def test_subbyte_padded_flag(name, code, bits):
    # IS_SUBBYTE_TYPE_PADDED: one element per byte; bits still say 4 or 6.
    buf = _buf(4)
    cap, _rec = craft_capsule(buf, shape=(4,), dtype=(code, bits, 1), flags=FLAG_IS_SUBBYTE_TYPE_PADDED)
    a = gd.from_dlpack(cap)
    assert a.dtype == name and a.shape == (4,)
    out = CapsuleInfo(a.__dlpack__(max_version=(1, 0)))
    assert out.flags & FLAG_IS_SUBBYTE_TYPE_PADDED
    assert out.data == ctypes.addressof(buf)
