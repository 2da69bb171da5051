"""Producer side: ``Array.__dlpack__`` and ``__dlpack_device__`` (docs/rules.md
P1-P8; peers.md conformance items 1, 3-11, 17-21, 23, 29). Capsules are read
with ctypes (_helpers.CapsuleInfo), never through godlpack itself."""

import gc
import sys

import pytest

import godlpack as gd
from _helpers import CapsuleInfo, capsule_name, collect, gd_ptr, is_capsule, requires

LEGACY_VERSIONS = [None, (0, 0), (0, 8), (0, 99)]
VERSIONED_VERSIONS = [(1, 0), (1, 3), (1, 99), (2, 0), (10, 10), (100, 3)]
ALL_VERSIONS = LEGACY_VERSIONS + VERSIONED_VERSIONS


def readonly_array():
    a = gd.asarray(bytes(range(16)))
    assert a.readonly
    return a


# ---------------------------------------------------------------- P1: capsule names and versions


@pytest.mark.parametrize("mv", ALL_VERSIONS)
def test_capsule_name_follows_max_version(mv):
    a = gd.arange(6, dtype="float32").reshape((2, 3))
    cap = a.__dlpack__(max_version=mv)
    assert is_capsule(cap)
    info = CapsuleInfo(cap)
    if mv is None or mv[0] < 1:
        assert info.name == "dltensor"
    else:
        assert info.name == "dltensor_versioned"
        assert info.version == (1, 3), "versioned capsules carry OUR version, not the requested one"
        assert info.flags == 0
    assert info.shape == (2, 3)
    assert info.strides == (3, 1), "strides are always emitted"
    assert info.dtype == (2, 32, 1)
    assert info.device == (1, 0)
    assert info.byte_offset == 0
    assert info.data == gd_ptr(a)
    assert info.has_deleter


def test_default_call_is_legacy():
    assert capsule_name(gd.zeros((2,)).__dlpack__()) == "dltensor"


@pytest.mark.parametrize("mv", [1, 1.0, "1.0", (1,), (1, 0, 0), (1, "0"), (1.0, 0), ("a", "b")])
def test_max_version_wrong_type(mv):
    a = gd.zeros((2,))
    with pytest.raises(TypeError) as ei:
        a.__dlpack__(max_version=mv)
    assert "max_version" in str(ei.value)


def test_keywords_only():
    a = gd.zeros((2,))
    with pytest.raises(TypeError):
        a.__dlpack__(None, (1, 0))


def test_unknown_keyword():
    with pytest.raises(TypeError):
        gd.zeros((2,)).__dlpack__(foo=1)


def test_keyword_errors_name_the_signature():
    """__dlpack__'s keywords go through the generated parser (pyspec's Parsed)."""
    a = gd.zeros((2,))
    with pytest.raises(TypeError, match=r"^__dlpack__\(\): takes keyword arguments only \(stream, max_version, "
                                        r"dl_device and copy\)$"):
        a.__dlpack__(None)
    with pytest.raises(TypeError, match=r"^__dlpack__\(\): unsupported keyword argument 'foo'"):
        a.__dlpack__(foo=1)


@requires("numpy")
def test_constant_keyword_tuples_are_learnt_once_and_kept_apart():
    """numpy calls __dlpack__ with constant kwnames tuples of strings that are
    not interned; the parser learns each one seen twice in a row, and two
    tuples (numpy's with and without copy=) interleaved keep their meanings."""
    import numpy as np
    a = gd.arange(4.0)
    for _ in range(4):
        view, copy = np.from_dlpack(a), np.from_dlpack(a, copy=True)
        view2 = np.from_dlpack(a)
        assert np.shares_memory(view, np.from_dlpack(a)) and np.shares_memory(view2, view)
        assert not np.shares_memory(copy, view) and copy.tolist() == [0.0, 1.0, 2.0, 3.0]


# ---------------------------------------------------------------- P2: read-only arrays


def test_readonly_legacy_export_refused():
    r = readonly_array()
    for mv in (None, (0, 8)):
        with pytest.raises(BufferError) as ei:
            r.__dlpack__(max_version=mv)
        assert "max_version" in str(ei.value), "message should point at max_version=(1, 0) as the way out"


def test_readonly_versioned_export_carries_flag():
    r = readonly_array()
    info = CapsuleInfo(r.__dlpack__(max_version=(1, 0)))
    assert info.read_only and not info.is_copied
    assert info.first_element == gd_ptr(r)


def test_readonly_views_carry_flag():
    r = readonly_array()[::-2]
    info = CapsuleInfo(r.__dlpack__(max_version=(1, 3)))
    assert info.read_only and info.strides == (-2,)


def test_writable_versioned_has_no_readonly_flag():
    info = CapsuleInfo(gd.zeros((2,)).__dlpack__(max_version=(1, 0)))
    assert not info.read_only


def test_copy_true_of_readonly_gives_new_pointer():
    r = readonly_array()
    info = CapsuleInfo(r.__dlpack__(max_version=(1, 0), copy=True))
    assert info.first_element != gd_ptr(r)
    assert info.is_copied
    assert not info.read_only, "a fresh copy is writable"


def test_copy_true_of_readonly_still_refused_as_legacy():
    # Our documented P2 policy: a read-only array is never exported as a
    # legacy capsule, not even as a copy.
    with pytest.raises(BufferError, match="max_version"):
        readonly_array().__dlpack__(copy=True)


# ---------------------------------------------------------------- P3: dl_device


@pytest.mark.parametrize("dev", [(1, 0), (gd.DLDeviceType.kDLCPU, 0)])
@pytest.mark.parametrize("copy", [None, False])
def test_dl_device_cpu_accepted_no_copy(dev, copy):
    a = gd.arange(4, dtype="int32")
    info = CapsuleInfo(a.__dlpack__(max_version=(1, 0), dl_device=dev, copy=copy))
    assert info.device == (1, 0)
    assert info.first_element == gd_ptr(a)
    assert not info.is_copied


def test_dl_device_from_dlpack_device_roundtrip():
    a = gd.arange(4)
    cap = a.__dlpack__(max_version=(1, 0), dl_device=a.__dlpack_device__())
    assert CapsuleInfo(cap).first_element == gd_ptr(a)


@pytest.mark.parametrize("dev", [(10, 0), (4, 0), (16, 0), (18, 0)])
@pytest.mark.parametrize("copy", [None, True, False])
def test_dl_device_unreachable(dev, copy):
    with pytest.raises(BufferError) as ei:
        gd.zeros((2,)).__dlpack__(max_version=(1, 0), dl_device=dev, copy=copy)
    assert "dl_device" in str(ei.value)


def test_dl_device_needs_copy_with_copy_false():
    # CUDA may be reachable by copying (once the CUDA backend exists); with copy=False it never is.
    with pytest.raises(BufferError) as ei:
        gd.zeros((2,)).__dlpack__(max_version=(1, 0), dl_device=(2, 0), copy=False)
    msg = str(ei.value)
    assert "dl_device" in msg and "pass" in msg


@pytest.mark.parametrize("dev", [(1,), 1, (1, 0, 0), (1.0, 0), (1, "0")])
def test_dl_device_wrong_type(dev):
    with pytest.raises(TypeError) as ei:
        gd.zeros((2,)).__dlpack__(max_version=(1, 0), dl_device=dev)
    assert "dl_device" in str(ei.value)


def test_dl_device_method_is_type_error():
    a = gd.zeros((2,))
    with pytest.raises(TypeError):
        a.__dlpack__(max_version=(1, 0), dl_device=a.__dlpack_device__)


# ---------------------------------------------------------------- P4: copy


@pytest.mark.parametrize("mv", [None, (1, 0)])
def test_copy_false_shares(mv):
    a = gd.arange(6, dtype="float64")
    info = CapsuleInfo(a.__dlpack__(max_version=mv, copy=False))
    assert info.first_element == gd_ptr(a)
    if mv:
        assert not info.is_copied


def test_copy_none_shares_and_not_flagged():
    a = gd.arange(6, dtype="float64")
    info = CapsuleInfo(a.__dlpack__(max_version=(1, 0), copy=None))
    assert info.first_element == gd_ptr(a) and not info.is_copied


@pytest.mark.parametrize("mv", [None, (1, 0)])
def test_copy_true_copies_and_flags(mv):
    a = gd.arange(12, dtype="int16").reshape((3, 4))[::-1, ::2]
    cap = a.__dlpack__(max_version=mv, copy=True)
    info = CapsuleInfo(cap)
    assert info.first_element != gd_ptr(a)
    assert info.shape == (3, 2)
    if mv:
        assert info.is_copied
    # The copy holds the same values: read them back through an import.
    b = gd.from_dlpack(cap)
    assert b.tolist() == a.tolist()
    a[0, 0] = 1000
    assert b.tolist()[0][0] == 8


@pytest.mark.parametrize("copy", ["yes", "True", [], 2.0, 2])
def test_copy_wrong_value(copy):
    with pytest.raises((ValueError, TypeError)) as ei:
        gd.zeros((2,)).__dlpack__(max_version=(1, 0), copy=copy)
    assert "copy" in str(ei.value)


# ---------------------------------------------------------------- P5: stream


@pytest.mark.parametrize("stream", [None, -1])
def test_stream_accepted_on_cpu(stream):
    a = gd.zeros((2,))
    assert capsule_name(a.__dlpack__(stream=stream, max_version=(1, 0))) == "dltensor_versioned"
    assert capsule_name(a.__dlpack__(stream=stream)) == "dltensor"


@pytest.mark.parametrize("stream", [0, 1, 2, 12345])
def test_stream_rejected_on_cpu(stream):
    with pytest.raises((BufferError, ValueError)) as ei:
        gd.zeros((2,)).__dlpack__(stream=stream, max_version=(1, 0))
    assert "stream" in str(ei.value)


@pytest.mark.parametrize("stream", ["0", 1.5, (1,), object()])
def test_stream_wrong_type(stream):
    with pytest.raises(TypeError) as ei:
        gd.zeros((2,)).__dlpack__(stream=stream, max_version=(1, 0))
    assert "stream" in str(ei.value)


# ---------------------------------------------------------------- P8 / item 29: __dlpack_device__


def test_dlpack_device():
    a = gd.zeros((3, 3))
    dev = a.__dlpack_device__()
    assert isinstance(dev, tuple) and len(dev) == 2
    assert dev[0] is gd.DLDeviceType.kDLCPU
    assert type(dev[1]) is int and dev[1] == 0
    for view in (a[1], a.T, a[::-1], a.reshape((9,)), a[1, 1] if isinstance(a[1, 1], gd.Array) else a[1:2]):
        assert view.__dlpack_device__() == (1, 0)


def test_dlpack_device_takes_no_arguments():
    with pytest.raises(TypeError):
        gd.zeros((1,)).__dlpack_device__(1)


# ---------------------------------------------------------------- layouts kept on export


@pytest.mark.parametrize(
    "make,shape,strides",
    [
        (lambda: gd.arange(24).reshape((2, 3, 4)), (2, 3, 4), (12, 4, 1)),
        (lambda: gd.arange(24).reshape((2, 3, 4)).T, (4, 3, 2), (1, 4, 12)),
        (lambda: gd.arange(10)[::-1], (10,), (-1,)),
        (lambda: gd.arange(10)[::-3], (4,), (-3,)),
        (lambda: gd.arange(24).reshape((4, 6))[::-2, 1::-1], (2, 2), (-12, -1)),
        (lambda: gd.arange(24).reshape((4, 6))[:, 2], (4,), (6,)),
        (lambda: gd.arange(24).reshape((4, 6))[1:2, :], (1, 6), (6, 1)),
        (lambda: gd.arange(24).reshape((4, 6))[:, 3:4], (4, 1), (6, 1)),
        (lambda: gd.zeros(()), (), ()),
        (lambda: gd.zeros((0, 4)), (0, 4), (4, 1)),
    ],
)
@pytest.mark.parametrize("mv", [None, (1, 0)])
def test_export_keeps_strides(make, shape, strides, mv):
    a = make()
    assert a.shape == shape and a.strides == strides
    info = CapsuleInfo(a.__dlpack__(max_version=mv))
    assert info.shape == shape
    assert info.strides == strides, "never normalise strides (pytorch#99803)"
    assert info.byte_offset == 0
    if a.size:
        assert info.first_element == gd_ptr(a)


def test_export_ndim_32_and_64():
    for nd in (32, 64):
        a = gd.zeros((1,) * (nd - 1) + (2,), dtype="int8")
        info = CapsuleInfo(a.__dlpack__(max_version=(1, 0)))
        assert info.ndim == nd and info.shape == a.shape and info.strides == a.strides


@pytest.mark.parametrize("shape", [(0,), (1, 0), (3, 0, 1), (0, 4)])
@pytest.mark.parametrize("mv", [None, (1, 0)])
def test_zero_size_export_data_pointer_policy(shape, mv):
    # S5 says zero-size tensors should carry NULL; core/export.go documents that
    # godlpack does (numpy and torch accept it). Views of empty arrays too.
    for a in (gd.zeros(shape), gd.zeros(shape).T):
        info = CapsuleInfo(a.__dlpack__(max_version=mv))
        assert info.shape == a.shape and info.dtype == (2, 64, 1)
        assert info.data == 0 and info.byte_offset == 0
        assert info.strides == a.strides


# ---------------------------------------------------------------- items 1 and 3: refcounts, exceptions


@pytest.mark.parametrize("mv", [None, (0, 0), (1, 0), (100, 3)])
def test_unconsumed_capsule_refcount(mv):
    a = gd.arange(8)
    base = sys.getrefcount(a)
    caps = [a.__dlpack__(max_version=mv) for _ in range(50)]
    del caps
    collect()
    assert sys.getrefcount(a) == base
    v = a[::2]
    base_v = sys.getrefcount(v)
    cap = v.__dlpack__(max_version=mv)
    del cap
    assert sys.getrefcount(v) == base_v


def test_exception_while_capsule_alive():
    a = gd.arange(8)
    base = sys.getrefcount(a)

    def boom():
        cap = a.__dlpack__(max_version=(1, 0))  # noqa: F841 - alive when raising
        raise RuntimeError("boom")

    for _ in range(20):
        with pytest.raises(RuntimeError):
            boom()
    gc.collect()
    assert sys.getrefcount(a) == base
    assert a.tolist() == list(range(8))


def test_capsule_outlives_array():
    a = gd.arange(1000, dtype="float64")
    cap = a.__dlpack__(max_version=(1, 0))
    del a
    collect()
    b = gd.from_dlpack(cap)
    assert b.sum() == sum(range(1000))
