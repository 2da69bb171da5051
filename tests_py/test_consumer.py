"""Consumer side: ``gd.from_dlpack`` (docs/rules.md C1-C7, S1-S8; peers.md
items 2, 13, 14, 22, 24-28, 31, 32). Unusual and hostile tensors are built in
ctypes memory (_helpers.craft_capsule) with a counting deleter, so every test
checks that the deleter runs exactly once, by the right party."""

import re
import ctypes
import gc
import struct
import sys

import pytest

import godlpack as gd
from _helpers import (
    FLAG_IS_COPIED,
    FLAG_READ_ONLY,
    CapsuleInfo,
    capsule_name,
    collect,
    craft_capsule,
    float64_buffer,
    gd_ptr,
    kDLBfloat,
    kDLBool,
    kDLComplex,
    kDLFloat,
    kDLInt,
    kDLOpaqueHandle,
    kDLUInt,
    requires,
)


def f64(n):
    return float64_buffer([float(i) for i in range(n)])


# ---------------------------------------------------------------- raw capsules (C6), renaming (C3, items 24, 25)


@pytest.mark.parametrize("versioned", [True, False])
def test_raw_capsule_import_renames_and_deletes_once(versioned):
    buf = f64(6)
    cap, rec = craft_capsule(buf, shape=(2, 3), strides=(3, 1), versioned=versioned)
    a = gd.from_dlpack(cap)
    assert a.shape == (2, 3) and a.strides == (3, 1) and a.dtype == "float64"
    assert a.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert capsule_name(cap) == ("used_dltensor_versioned" if versioned else "used_dltensor")
    assert gd_ptr(a) == ctypes.addressof(buf), "import must be zero-copy"
    buf[4] = 40.0
    assert a.tolist()[1][1] == 40.0
    a[0, 0] = -1.0
    assert buf[0] == -1.0
    del cap
    collect()
    assert rec.deleted == 0, "the consumer owns the tensor now; the used capsule must not delete it"
    view = a[1]
    del a
    collect()
    assert rec.deleted == 0, "a view keeps the imported memory alive"
    assert view.tolist() == [3.0, 40.0, 5.0]
    del view
    collect()
    assert rec.deleted == 1


@pytest.mark.parametrize("versioned", [True, False])
def test_consume_twice(versioned):
    buf = f64(3)
    cap, rec = craft_capsule(buf, shape=(3,), versioned=versioned)
    a = gd.from_dlpack(cap)
    for _ in range(3):
        with pytest.raises((ValueError, BufferError)) as ei:
            gd.from_dlpack(cap)
        msg = str(ei.value).lower()
        assert "consum" in msg or "used" in msg
    assert a.tolist() == [0.0, 1.0, 2.0]
    del a, cap
    collect()
    assert rec.deleted == 1


@requires("numpy")
@pytest.mark.parametrize("mv", [None, (1, 0)])
def test_consume_numpy_capsule_twice(np, mv):
    x = np.arange(4.0)
    cap = x.__dlpack__(max_version=mv)
    a = gd.from_dlpack(cap)
    with pytest.raises((ValueError, BufferError)):
        gd.from_dlpack(cap)
    assert capsule_name(cap).startswith("used_")
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("name", ["used_dltensor", "used_dltensor_versioned", "something_else"])
def test_capsule_with_wrong_or_used_name(name):
    # A capsule whose name is not an unused DLPack name is never read.
    import ctypes as c

    new = c.PYFUNCTYPE(c.py_object, c.c_void_p, c.c_char_p, c.c_void_p)(("PyCapsule_New", c.pythonapi))
    keep = _NAMES.setdefault(name, name.encode())  # capsule names must outlive the capsule
    dummy = _NAMES.setdefault(name + "_buf", c.c_int64(0))
    cap = new(c.addressof(dummy), keep, None)
    with pytest.raises((ValueError, BufferError, TypeError)):
        gd.from_dlpack(cap)


_NAMES = {}


# ---------------------------------------------------------------- validation (S1-S8, item 13, C4)


def _refused(cap, rec, exc=BufferError):
    with pytest.raises(exc) as ei:
        gd.from_dlpack(cap)
    return ei


@pytest.mark.parametrize(
    "dtype",
    [
        (kDLFloat, 128, 1),   # longdouble-like
        (kDLFloat, 12, 1),
        (kDLInt, 7, 1),
        (kDLInt, 128, 1),
        (kDLUInt, 0, 1),
        (kDLComplex, 32, 1),  # complex32 is not supported
        (kDLComplex, 48, 1),
        (kDLOpaqueHandle, 64, 1),
        (kDLBool, 16, 1),
        (kDLBfloat, 32, 1),
        (99, 32, 1),
        (kDLFloat, 32, 2),    # lanes
        (kDLFloat, 32, 0),
    ],
)
@pytest.mark.parametrize("versioned", [True, False])
def test_unsupported_dtype_refused_before_renaming(dtype, versioned):
    buf = f64(4)
    cap, rec = craft_capsule(buf, shape=(2,), strides=(1,), dtype=dtype, versioned=versioned)
    _refused(cap, rec)
    assert capsule_name(cap) in ("dltensor", "dltensor_versioned"), "C4: refused capsules stay unrenamed"
    assert rec.deleted == 0
    del cap
    collect()
    assert rec.deleted == 1, "the producer's destructor frees a refused capsule exactly once"


@pytest.mark.parametrize("version", [(0, 9), (2, 0), (3, 1), (1000, 0)])
def test_versioned_major_mismatch(version):
    buf = f64(4)
    # Hostile fields beyond the version must not be read (S1): ndim -5, NULL shape.
    cap, rec = craft_capsule(buf, shape=(2,), strides=(1,), version=version)
    rec.struct.dl_tensor.ndim = -5
    rec.struct.dl_tensor.shape = None
    with pytest.raises(BufferError) as ei:
        gd.from_dlpack(cap)
    assert "version" in str(ei.value)
    del cap, ei
    collect()
    assert rec.deleted == 1, "exactly one of consumer and destructor calls the deleter"


@pytest.mark.parametrize("minor", [0, 1, 2, 3, 4, 200])
def test_versioned_minor_any(minor):
    buf = f64(4)
    cap, rec = craft_capsule(buf, shape=(4,), strides=(1,), version=(1, minor))
    a = gd.from_dlpack(cap)
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]
    del a, cap
    collect()
    assert rec.deleted == 1


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(shape=(2, -1), strides=(1, 1)),              # negative dimension
        dict(shape=(2**62, 8), strides=(8, 1)),          # element count overflow
        dict(shape=(2**40, 2**40), strides=(2**40, 1)),  # overflow
        dict(shape=(3,), strides=(2**62,)),              # byte extent overflow
        dict(shape=(3,), strides=(-(2**62),)),           # negative extent overflow
        dict(shape=(2,), data=0),                        # NULL data, non-empty
        dict(shape=(2,), null_shape=True),               # NULL shape, ndim > 0
        dict(shape=(1,) * 65),                            # ndim > 64
    ],
    ids=["negdim", "count-overflow", "count-overflow2", "extent", "neg-extent", "null-data", "null-shape", "ndim65"],
)
@pytest.mark.parametrize("versioned", [True, False])
def test_bad_structure_refused(kwargs, versioned):
    buf = f64(8)
    cap, rec = craft_capsule(buf, versioned=versioned, **kwargs)
    _refused(cap, rec)
    assert capsule_name(cap) in ("dltensor", "dltensor_versioned")
    del cap
    collect()
    assert rec.deleted == 1


def test_negative_ndim_refused():
    buf = f64(2)
    cap, rec = craft_capsule(buf, shape=(2,), strides=(1,))
    rec.struct.dl_tensor.ndim = -1
    _refused(cap, rec)
    del cap
    collect()
    assert rec.deleted == 1


@pytest.mark.parametrize("device", [(99, 0), (0, 0), (2, -1)])
def test_unknown_device_refused(device):
    buf = f64(2)
    cap, rec = craft_capsule(buf, shape=(2,), strides=(1,), device=device)
    _refused(cap, rec)
    del cap
    collect()
    assert rec.deleted == 1


def test_ndim_64_accepted():
    buf = f64(2)
    cap, _rec = craft_capsule(buf, shape=(1,) * 63 + (2,), strides=(7,) * 63 + (1,))
    a = gd.from_dlpack(cap)
    assert a.ndim == 64 and a.strides == (7,) * 63 + (1,), "size-1 strides are kept"
    assert a.sum() == 1.0


# ---------------------------------------------------------------- strides, offsets, NULL data (S3-S5)


@pytest.mark.parametrize("versioned,version", [(False, None), (True, (1, 0)), (True, (1, 1))])
def test_null_strides_mean_c_contiguous(versioned, version):
    buf = f64(6)
    kw = dict(version=version) if versioned else {}
    cap, _rec = craft_capsule(buf, shape=(2, 3), strides=None, versioned=versioned, **kw)
    a = gd.from_dlpack(cap)
    assert a.strides == (3, 1)
    assert a.tolist() == [[0, 1, 2], [3, 4, 5]]


def test_byte_offset_honoured():
    buf = f64(8)
    base = ctypes.addressof(buf)
    cap, _rec = craft_capsule(buf, shape=(3,), strides=(2,), byte_offset=16, data=base)
    a = gd.from_dlpack(cap)
    assert a.tolist() == [2.0, 4.0, 6.0]
    assert gd_ptr(a) == base + 16


@pytest.mark.parametrize("versioned", [True, False])
def test_negative_strides_import(versioned):
    buf = f64(6)
    last = ctypes.addressof(buf) + 5 * 8
    cap, _rec = craft_capsule(buf, shape=(2, 3), strides=(-3, -1), data=last, versioned=versioned)
    a = gd.from_dlpack(cap)
    assert a.strides == (-3, -1)
    assert a.tolist() == [[5, 4, 3], [2, 1, 0]]
    assert gd_ptr(a) == last


def test_zero_strides_import():
    buf = f64(1)
    buf[0] = 3.0
    cap, _rec = craft_capsule(buf, shape=(4, 2), strides=(0, 0))
    a = gd.from_dlpack(cap)
    assert a.strides == (0, 0) and a.tolist() == [[3.0] * 2] * 4


@pytest.mark.parametrize("data", [0, "buf"])
@pytest.mark.parametrize("shape", [(0,), (1, 0), (3, 0, 1), (0, 4)])
def test_zero_size_import_null_or_not(shape, data):
    buf = f64(1)
    cap, rec = craft_capsule(buf, shape=shape, data=0 if data == 0 else None)
    a = gd.from_dlpack(cap)
    assert a.shape == shape and a.size == 0
    assert a.tolist() == gd.zeros(shape).tolist()
    del a, cap
    collect()
    assert rec.deleted == 1


def test_0d_import_null_shape_and_strides():
    buf = f64(1)
    buf[0] = 2.5
    cap, _rec = craft_capsule(buf, shape=(), strides=None, null_shape=True)
    a = gd.from_dlpack(cap)
    assert a.shape == () and a.tolist() == 2.5


def test_null_deleter_is_fine():
    buf = f64(3)
    cap, rec = craft_capsule(buf, shape=(3,), deleter=False)
    a = gd.from_dlpack(cap)
    assert a.tolist() == [0.0, 1.0, 2.0]
    del a, cap
    collect()
    assert rec.deleted == 0


def test_unaligned_data_import():
    # item 31: we never require 256-byte alignment of imported data (S4); element
    # misalignment is either handled correctly or refused with BufferError.
    raw = (ctypes.c_uint8 * 64)()
    base = ctypes.addressof(raw)
    start = base + (8 - base % 8) + 8  # 8-aligned but not 16/64/256-aligned
    struct.pack_into("<3d", raw, start - base, 1.0, 2.0, 3.0)
    cap, _rec = craft_capsule(raw, shape=(3,), data=start)
    a = gd.from_dlpack(cap, copy=False)
    assert a.tolist() == [1.0, 2.0, 3.0] and gd_ptr(a) == start
    odd = base + 33
    struct.pack_into("<2d", raw, odd - base, 5.0, 6.0)
    cap2, _rec2 = craft_capsule(raw, shape=(2,), data=odd)
    try:
        b = gd.from_dlpack(cap2, copy=False)
    except BufferError as e:
        assert "align" in str(e)
    else:
        assert b.tolist() == [5.0, 6.0]


# ---------------------------------------------------------------- READ_ONLY / IS_COPIED (C5, items 21, 22)


def test_readonly_flag_honoured():
    buf = f64(3)
    cap, _rec = craft_capsule(buf, shape=(3,), flags=FLAG_READ_ONLY)
    a = gd.from_dlpack(cap)
    assert a.readonly is True
    with pytest.raises(ValueError):
        a[0] = 5.0
    with pytest.raises(ValueError):
        a.fill(1.0)
    assert buf[0] == 0.0
    assert a[1:].readonly
    # Re-export keeps the flag.
    assert CapsuleInfo(a.__dlpack__(max_version=(1, 0))).read_only
    with pytest.raises(BufferError):
        a.__dlpack__()


def test_writable_versioned_import_is_writable():
    buf = f64(3)
    cap, _rec = craft_capsule(buf, shape=(3,), flags=FLAG_IS_COPIED)
    a = gd.from_dlpack(cap)
    assert a.readonly is False
    a[2] = 9.0
    assert buf[2] == 9.0


def test_legacy_import_policy_writable():
    # Policy (documented): legacy imports are writable, like torch.
    buf = f64(3)
    cap, _rec = craft_capsule(buf, shape=(3,), versioned=False)
    a = gd.from_dlpack(cap)
    assert a.readonly is False
    a[0] = 4.0
    assert buf[0] == 4.0


# ---------------------------------------------------------------- device / copy on import (C7)


@requires("numpy")
@pytest.mark.parametrize("device", [None, "cpu", "cpu:0", (1, 0), (gd.DLDeviceType.kDLCPU, 0)])
def test_device_cpu_accepted(np, device):
    x = np.arange(5.0)
    a = gd.from_dlpack(x, device=device)
    assert gd_ptr(a) == x.ctypes.data


@requires("numpy")
def test_device_object_accepted(np):
    x = np.arange(5.0)
    assert gd_ptr(gd.from_dlpack(x, device=gd.Device("cpu"))) == x.ctypes.data


@requires("numpy")
@pytest.mark.parametrize("device", ["gpu", "cuda:x", "", "cpu:-1"])
def test_device_bad_value(np, device):
    with pytest.raises(ValueError) as ei:
        gd.from_dlpack(np.arange(3.0), device=device)
    assert "device" in str(ei.value)


@requires("numpy")
@pytest.mark.parametrize("device", [1.5, [1, 0], (1,), object()])
def test_device_bad_type(np, device):
    with pytest.raises((TypeError, ValueError)) as ei:
        gd.from_dlpack(np.arange(3.0), device=device)
    assert "device" in str(ei.value)


@requires("numpy")
@pytest.mark.parametrize("device", [(10, 0), "oneapi:0", (4, 0)])
@pytest.mark.parametrize("copy", [None, True, False])
def test_device_unreachable(np, device, copy):
    with pytest.raises(BufferError):
        gd.from_dlpack(np.arange(3.0), device=device, copy=copy)


@requires("numpy")
def test_cuda_device_copy_false(np):
    with pytest.raises(BufferError) as ei:
        gd.from_dlpack(np.arange(3.0), device="cuda:0", copy=False)
    assert "copy" in str(ei.value) or "device" in str(ei.value)


@requires("numpy")
@pytest.mark.parametrize("copy", [None, False])
def test_copy_none_false_share(np, copy):
    x = np.arange(6.0).reshape(2, 3)
    a = gd.from_dlpack(x, copy=copy)
    assert gd_ptr(a) == x.ctypes.data
    x[0, 0] = 42
    assert a.tolist()[0][0] == 42


@requires("numpy")
def test_copy_true_does_not_share(np):
    x = np.arange(6.0).reshape(2, 3)
    a = gd.from_dlpack(x, copy=True)
    assert gd_ptr(a) != x.ctypes.data
    x[0, 0] = 42
    assert a.tolist()[0][0] == 0
    assert a.readonly is False


@requires("numpy")
@pytest.mark.parametrize("copy", ["yes", 2, [], "False"])
def test_copy_bad_value(np, copy):
    with pytest.raises((ValueError, TypeError)) as ei:
        gd.from_dlpack(np.arange(3.0), copy=copy)
    assert "copy" in str(ei.value)


@requires("numpy")
def test_readonly_numpy_copy_true_new_pointer(np):
    x = np.arange(4.0)
    x.flags.writeable = False
    a = gd.from_dlpack(x)
    assert a.readonly and gd_ptr(a) == x.ctypes.data
    b = gd.from_dlpack(x, copy=True)
    assert gd_ptr(b) != x.ctypes.data
    assert b.readonly is False
    b[0] = 7.0
    assert x[0] == 0.0


def test_keyword_only():
    with pytest.raises(TypeError):
        gd.from_dlpack(gd.zeros((1,)), "cpu")


def test_from_dlpack_gd_array_round_trip():
    a = gd.arange(5)
    b = gd.from_dlpack(a)
    assert gd_ptr(b) == gd_ptr(a)
    b[0] = 10
    assert a.tolist()[0] == 10


# ---------------------------------------------------------------- legacy and wrapper producers (C1, items 27, 28)


class LegacyProducer:
    """An old producer: only ``__dlpack__(self, stream=None)`` and ``__dlpack_device__``."""

    def __init__(self, x):
        self.x = x
        self.calls = []

    def __dlpack__(self, stream=None):
        self.calls.append(stream)
        return self.x.__dlpack__()

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()


class ModernWrapper:
    def __init__(self, x):
        self.x = x
        self.calls = []

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.calls.append(dict(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy))
        return self.x.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()


@requires("numpy")
def test_legacy_producer(np):
    x = np.arange(6.0).reshape(2, 3)
    p = LegacyProducer(x)
    a = gd.from_dlpack(p)
    assert a.tolist() == x.tolist()
    assert gd_ptr(a) == x.ctypes.data
    assert p.calls and all(s is None for s in p.calls)
    assert a.readonly is False  # legacy policy: writable
    a[1, 2] = -3.0
    assert x[1, 2] == -3.0


@requires("numpy")
def test_legacy_producer_copy_true_copied_by_consumer(np):
    x = np.arange(6.0)
    a = gd.from_dlpack(LegacyProducer(x), copy=True)
    assert gd_ptr(a) != x.ctypes.data
    assert a.tolist() == x.tolist()
    x[0] = 100.0
    assert a.tolist()[0] == 0.0


@requires("numpy")
@pytest.mark.parametrize("kw", [dict(copy=False), dict(device="cpu"), dict(device="cpu", copy=False)])
def test_legacy_producer_same_device(np, kw):
    x = np.arange(3.0)
    a = gd.from_dlpack(LegacyProducer(x), **kw)
    assert gd_ptr(a) == x.ctypes.data


@requires("numpy")
def test_legacy_producer_unreachable_device(np):
    with pytest.raises(BufferError):
        gd.from_dlpack(LegacyProducer(np.arange(3.0)), device=(10, 0))


@requires("numpy")
def test_modern_wrapper_receives_our_max_version(np):
    x = np.arange(4, dtype=np.int32)
    w = ModernWrapper(x)
    a = gd.from_dlpack(w)
    assert gd_ptr(a) == x.ctypes.data
    assert w.calls[0]["max_version"] == (1, 3)
    assert w.calls[0]["stream"] is None  # C8: CPU consumers pass no stream
    b = gd.from_dlpack(w, copy=True)
    assert w.calls[-1]["copy"] is True
    assert gd_ptr(b) != x.ctypes.data


@requires("numpy")
def test_modern_wrapper_readonly(np):
    x = np.arange(4.0)
    x.flags.writeable = False
    a = gd.from_dlpack(ModernWrapper(x))
    assert a.readonly


def test_unrelated_type_error_not_swallowed():
    class Broken:
        def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
            raise TypeError("internal failure 1234")

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(TypeError, match="internal failure 1234"):
        gd.from_dlpack(Broken())


# C1, numpy's rule: a TypeError from the keyword call of a type not yet seen
# taking keywords is answered by asking once more without them, whatever the
# message says (pybind11's "incompatible function arguments" included).
PYBIND11_REFUSAL = (
    "__dlpack__(): incompatible function arguments. The following argument types are supported:\n"
    "    1. (self: ext.Tensor, stream: object = None) -> capsule\n\nInvoked with: kwargs: max_version=(1, 3)"
)


def pybind11_style_producer(calls):
    """A producer shaped like a pybind11 binding of __dlpack__(self, stream=None):
    keywords other than stream raise pybind11's TypeError."""

    class Tensor:
        def __init__(self):
            self.x = gd.arange(3)

        def __dlpack__(self, *args, **kw):
            calls.append(dict(kw))
            if set(kw) - {"stream"} or len(args) > 1:
                raise TypeError(PYBIND11_REFUSAL)
            return self.x.__dlpack__()

        def __dlpack_device__(self):
            return (1, 0)

    return Tensor


@requires("numpy")
def test_pybind11_style_producer_imports_as_numpy_does(np):
    calls = []
    Tensor = pybind11_style_producer(calls)
    assert np.from_dlpack(Tensor()).tolist() == [0, 1, 2]
    calls.clear()
    assert gd.from_dlpack(Tensor()).tolist() == [0, 1, 2]
    assert calls == [{"max_version": (1, 3)}, {}]
    # The type is remembered as one that refuses keywords: one call each after.
    calls.clear()
    assert gd.from_dlpack(Tensor()).tolist() == [0, 1, 2]
    assert gd.asarray(Tensor(), copy=True).tolist() == [0, 1, 2]
    assert calls == [{}, {}]


@requires("numpy")
@pytest.mark.parametrize("text", [
    "producer-specific problem 5678",
    "max_version must be a tuple of two ints",
    "'copy' must be a bool",
])
def test_keyword_type_error_of_a_new_type_asks_without_keywords(np, text):
    def make():
        calls = []

        class Tricky:
            def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
                calls.append(max_version)
                if max_version is not None:
                    raise TypeError(text)
                return gd.arange(3).__dlpack__()

            def __dlpack_device__(self):
                return (1, 0)

        return Tricky, calls

    Tricky, calls = make()
    assert np.from_dlpack(Tricky()).tolist() == [0, 1, 2]
    assert calls == [(1, 0), None]
    Tricky, calls = make()
    assert gd.from_dlpack(Tricky()).tolist() == [0, 1, 2]
    assert calls == [(1, 3), None]


# A type once seen taking our keywords raises for real: its later TypeError is
# the producer's own and surfaces, never hidden by a retry (dpctl#1789).
def test_type_error_of_a_type_that_took_keywords_not_hidden():
    calls = []

    class Flaky:
        fail = False

        def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
            calls.append(max_version)
            if self.fail:
                raise TypeError("producer-specific problem 5678")
            return gd.arange(3).__dlpack__(max_version=max_version)

        def __dlpack_device__(self):
            return (1, 0)

    assert gd.from_dlpack(Flaky()).tolist() == [0, 1, 2]
    bad = Flaky()
    bad.fail = True
    calls.clear()
    with pytest.raises(TypeError, match="5678"):
        gd.from_dlpack(bad)
    assert calls == [(1, 3)]


# Both calls fail: the second error is raised with the first as its context.
@pytest.mark.parametrize("text", [
    "max_version must be a tuple of two ints",
    "dl_device=(2, 0) is not a valid device",
])
def test_type_error_of_both_calls_surfaces(text):
    class Strict:
        def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
            raise TypeError(text if max_version is None else "first " + text)

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(TypeError, match=re.escape(text)) as ei:
        gd.from_dlpack(Strict())
    cause = ei.value.__cause__ if ei.value.__cause__ is not None else ei.value
    chain = [ei.value, cause, cause.__context__]
    assert any(e is not None and str(e).startswith("first ") for e in chain), chain


@pytest.mark.parametrize("text", [
    "__dlpack__() got an unexpected keyword argument 'max_version'",
    "__dlpack__() takes no keyword arguments",
])
def test_old_producer_keyword_refusals_fall_back(text):
    calls = []

    class Old:
        def __dlpack__(self, *args, **kw):
            calls.append(kw)
            if kw:
                raise TypeError(text)
            return gd.arange(3).__dlpack__()

        def __dlpack_device__(self):
            return (1, 0)

    assert gd.from_dlpack(Old()).tolist() == [0, 1, 2]
    assert calls[-1] == {}


def test_producer_buffer_error_propagates():
    class Refuses:
        def __dlpack__(self, **kw):
            raise BufferError("cannot export 999")

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(BufferError, match="999"):
        gd.from_dlpack(Refuses())


@pytest.mark.parametrize("ret", [None, 5, "dltensor", b"x", object()])
def test_producer_returns_non_capsule(ret):
    class Liar:
        def __dlpack__(self, **kw):
            return ret

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises((TypeError, BufferError, ValueError)):
        gd.from_dlpack(Liar())


# ---------------------------------------------------------------- non-DLPack objects (item 32)


@pytest.mark.parametrize("obj", [[1, 2], 3, None, object(), "abc", b"abc", {"a": 1}])
def test_from_dlpack_non_dlpack_object(obj):
    with pytest.raises((TypeError, AttributeError)) as ei:
        gd.from_dlpack(obj)
    assert "__dlpack__" in str(ei.value)


def test_from_dlpack_missing_argument():
    with pytest.raises(TypeError):
        gd.from_dlpack()


# ---------------------------------------------------------------- unsupported numpy dtypes (items 13, 14)


@requires("numpy")
@pytest.mark.parametrize("make", [
    lambda np: np.zeros(3, dtype="M8[s]"),
    lambda np: np.zeros(3, dtype=np.longdouble),
    lambda np: np.zeros(3, dtype=">i4"),
    lambda np: np.zeros(3, dtype="U2"),
    lambda np: np.zeros(3, dtype=object),
    lambda np: np.zeros(4, dtype=[("a", "u1"), ("b", "<i4")])["b"],  # byte stride 5, itemsize 4
], ids=["datetime", "longdouble", "byteswapped", "unicode", "object", "oddstride"])
def test_numpy_unsupported_layouts_or_dtypes(np, make):
    x = make(np)
    with pytest.raises(BufferError):
        gd.from_dlpack(x)


@requires("numpy")
def test_asarray_odd_byte_strides_not_silently_wrong(np):
    x = np.zeros(4, dtype=[("a", "u1"), ("b", "<i4")])["b"]
    x[:] = [1, 2, 3, 4]
    try:
        a = gd.asarray(memoryview(x))
    except (BufferError, ValueError):
        return
    assert a.tolist() == [1, 2, 3, 4]


# ---------------------------------------------------------------- refcounts of producers (item 2)


@requires("numpy")
@pytest.mark.parametrize("route", ["object", "legacy-capsule", "versioned-capsule"])
def test_producer_refcount_back_after_consumer_dies(np, route):
    x = np.arange(10.0)
    base = sys.getrefcount(x)
    for _ in range(100):
        if route == "object":
            a = gd.from_dlpack(x)
        elif route == "legacy-capsule":
            a = gd.from_dlpack(x.__dlpack__())
        else:
            a = gd.from_dlpack(x.__dlpack__(max_version=(1, 0)))
        v = a[::2]
        del a
        assert sys.getrefcount(x) > base, "the import keeps the producer alive"
        del v
    gc.collect()
    assert sys.getrefcount(x) == base
