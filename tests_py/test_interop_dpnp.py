"""godlpack <-> dpnp 0.20 / dpctl 0.22 on the SYCL CPU device (kDLOneAPI), issue 4.

What dpctl does (checked here, not assumed):
* dpnp.from_dlpack(cpu_producer) with device=None returns a numpy.ndarray over
  the producer's memory; with device=<SYCL device> it asks the producer for
  kDLOneAPI (dl_device=(14, id)); godlpack answers BufferError, dpctl falls back
  to a legacy capsule and copies host -> device itself (copy=False: BufferError).
* A dpnp array exports kDLOneAPI with non-zero byte_offset for views. godlpack's
  from_dlpack sees that __dlpack_device__ is not CPU-readable and asks for
  dl_device=(kDLCPU, 0): dpctl copies to the host and says IS_COPIED, and we take
  that copy as the result without copying again.
"""

from __future__ import annotations

import pytest

import _dpenv  # noqa: F401  (OCL_ICD_FILENAMES before any device lookup)
import godlpack as gd
from _dpenv import Spy, sycl_cpu_device
from _helpers import FLAG_IS_COPIED, FLAG_READ_ONLY, CapsuleInfo, collect, gd_ptr, optional, requires

np = optional("numpy")
dpnp = optional("dpnp")

pytestmark = requires("numpy", "dpnp", "dpctl")

T = gd.DLDeviceType
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


@pytest.fixture(scope="module")
def dev():
    return sycl_cpu_device()


def values(dtype, n=12):
    """numpy reference values of dtype, not all equal and not all zero."""
    x = np.arange(1, n + 1)
    if dtype == "bool":
        return x % 3 == 0
    if dtype.startswith("complex"):
        return (x + 1j * (x % 5)).astype(dtype)
    if dtype.startswith("float"):
        return (x / 4).astype(dtype)
    return x.astype(dtype)


def usm_first(x) -> int:
    """Address of a dpnp array's first element: data + byte_offset of its own export."""
    return CapsuleInfo(x.__dlpack__(max_version=(1, 3))).first_element


# ================================================================ godlpack -> dpnp


def test_to_dpnp_default_is_numpy_sharing_memory():
    a = gd.arange(6, dtype="float32")
    spy = Spy(a)
    y = dpnp.from_dlpack(spy)
    assert type(y) is np.ndarray, "dpnp returns a numpy.ndarray for a CPU producer"
    assert spy.requests == [{"max_version": (1, 0), "dl_device": None, "copy": None}]
    assert spy.info.name == "dltensor_versioned" and spy.info.version == (1, 3)
    assert y.ctypes.data == gd_ptr(a)
    a[2] = 40.0
    assert y[2] == 40.0
    y[3] = 50.0
    assert a[3] == 50.0


@pytest.mark.parametrize("copy", [False, True])
def test_to_dpnp_default_copy(copy):
    a = gd.arange(4, dtype="int64")
    y = dpnp.from_dlpack(a, copy=copy)
    assert type(y) is np.ndarray
    assert (y.ctypes.data == gd_ptr(a)) is (not copy)
    assert y.tolist() == [0, 1, 2, 3]


def test_to_dpnp_default_readonly_kept():
    src = np.arange(4.0)
    src.flags.writeable = False
    a = gd.from_dlpack(src)
    assert a.readonly
    y = dpnp.from_dlpack(a)
    assert type(y) is np.ndarray and not y.flags.writeable
    assert y.ctypes.data == src.ctypes.data


def _device_args(dev):
    return {
        "SyclDevice": dev,
        "filter string": dev.filter_string,
        "cpu": "cpu",
        "tuple": (int(T.kDLOneAPI), dev.get_device_id()),
    }


@pytest.mark.parametrize("kind", ["SyclDevice", "filter string", "cpu", "tuple"])
def test_to_dpnp_device_copies_through_host(dev, kind):
    device = _device_args(dev)[kind]
    a = gd.arange(5, dtype="float64")
    spy = Spy(a)
    y = dpnp.from_dlpack(spy, device=device)
    assert isinstance(y, dpnp.ndarray) and y.sycl_device == dev
    # dpctl asks for kDLOneAPI, we refuse, it falls back to a legacy capsule
    assert spy.requests == [{"max_version": (1, 0), "dl_device": (14, dev.get_device_id()), "copy": None}, {}]
    assert isinstance(spy.calls[0][1], BufferError)
    assert spy.info.name == "dltensor"
    assert dpnp.asnumpy(y).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    a[0] = 99.0  # a copy: later writes are not seen
    assert float(y[0]) == 0.0


def test_our_refusal_of_oneapi_is_buffererror(dev):
    a = gd.arange(3)
    with pytest.raises(BufferError) as ei:
        a.__dlpack__(max_version=(1, 0), dl_device=(14, dev.get_device_id()))
    assert "dl_device" in str(ei.value)


def test_to_dpnp_device_copy_true(dev):
    a = gd.arange(3, dtype="int32")
    y = dpnp.from_dlpack(a, device=dev, copy=True)
    assert y.sycl_device == dev and dpnp.asnumpy(y).tolist() == [0, 1, 2]


def test_to_dpnp_device_copy_false_refused(dev):
    a = gd.arange(3, dtype="int32")
    with pytest.raises(BufferError, match="Importing data via DLPack requires copying, but copy=False was provided"):
        dpnp.from_dlpack(a, device=dev, copy=False)


def test_to_dpnp_device_readonly_refused(dev):
    # dpctl's fallback asks for a legacy capsule, which cannot carry READ_ONLY (P2)
    src = np.arange(4.0)
    src.flags.writeable = False
    a = gd.from_dlpack(src)
    with pytest.raises(BufferError, match="read-only array cannot be exported as a legacy capsule"):
        dpnp.from_dlpack(a, device=dev)


def _device_has(dev, dtype):
    if dtype in ("float64", "complex128") and not dev.has_aspect_fp64:
        pytest.xfail(f"{dev.filter_string} has no fp64 aspect: dpnp cannot hold {dtype} there")
    if dtype == "float16" and not dev.has_aspect_fp16:
        pytest.xfail(f"{dev.filter_string} has no fp16 aspect: dpnp cannot hold float16 there")


@pytest.mark.parametrize("dtype", DTYPES)
def test_to_dpnp_device_dtypes(dev, dtype):
    _device_has(dev, dtype)
    ref = values(dtype)
    a = gd.asarray(ref)
    y = dpnp.from_dlpack(a, device=dev)
    assert y.sycl_device == dev
    assert str(y.dtype) == dtype
    out = dpnp.asnumpy(y)
    assert out.dtype == ref.dtype and (out == ref).all()


VIEWS = {
    "step 2": lambda x: x[::2],
    "reversed": lambda x: x[::-1],
    "offset": lambda x: x[3:],
    "offset reversed": lambda x: x[3:][::-1],
    "2-D block": lambda x: x.reshape(3, 4)[1:, 1:],
    "transpose": lambda x: x.reshape(3, 4).T,
    "column": lambda x: x.reshape(3, 4)[:, 1],
    "reversed rows step": lambda x: x.reshape(3, 4)[::-1, ::2],
}


# dpctl 0.22.1's host -> device fallback (dpnp/tensor/_dlpack.pyx:984) cannot take a view
# whose last axis is not contiguous, from any producer: numpy arrays fail the same way.
DPCTL_LAST_AXIS = "To change to a dtype of a different size, the last axis must be contiguous"
LAST_AXIS_STRIDED = {"step 2", "reversed", "offset reversed", "transpose", "column", "reversed rows step"}


def _dpctl_xfail(view):
    if view in LAST_AXIS_STRIDED:
        return pytest.param(view, marks=pytest.mark.xfail(
            raises=ValueError, strict=True,
            reason=f"dpctl 0.22.1 bug, numpy producers too: ValueError: {DPCTL_LAST_AXIS}"))
    return view


@pytest.mark.parametrize("view", [_dpctl_xfail(v) for v in VIEWS])
def test_to_dpnp_device_strided_views(dev, view):
    ref = VIEWS[view](np.arange(12, dtype=np.int64))
    a = VIEWS[view](gd.arange(12, dtype="int64"))
    try:
        y = dpnp.from_dlpack(a, device=dev)
    except ValueError as e:
        assert str(e) == DPCTL_LAST_AXIS
        with pytest.raises(ValueError, match=DPCTL_LAST_AXIS):  # not ours: numpy gets the same
            dpnp.from_dlpack(ref, device=dev)
        raise
    assert y.shape == ref.shape
    assert dpnp.asnumpy(y).tolist() == ref.tolist()


@pytest.mark.parametrize("view", list(VIEWS))
def test_to_dpnp_default_strided_views(view):
    ref = VIEWS[view](np.arange(12, dtype=np.int64))
    a = VIEWS[view](gd.arange(12, dtype="int64"))
    z = dpnp.from_dlpack(a)  # device=None: a numpy view over our memory, strides kept
    assert type(z) is np.ndarray and z.strides == ref.strides and z.tolist() == ref.tolist()
    assert z.ctypes.data == gd_ptr(a)


# ================================================================ dpnp -> godlpack


def test_from_dpnp_asks_for_host_copy(dev):
    x = dpnp.arange(6, dtype="float32", device=dev)
    assert x.__dlpack_device__() == (T.kDLOneAPI, dev.get_device_id())
    spy = Spy(x)
    a = gd.from_dlpack(spy)
    # the plain request answers a kDLOneAPI capsule, which we drop unconsumed
    # (its destructor frees it) and ask again for the host
    assert spy.requests == [{"max_version": (1, 3)}, {"max_version": (1, 3), "dl_device": (1, 0)}]
    assert spy.calls[0][1].device == (14, dev.get_device_id())
    info = spy.info
    assert info.name == "dltensor_versioned" and info.device == (1, 0)
    assert info.flags == FLAG_IS_COPIED
    # the producer's copy is the result: no second copy on our side
    assert gd_ptr(a) == info.first_element
    assert a.device == gd.Device("cpu") and a.readonly is False
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    a[0] = 7.0  # our copy is writable and independent of the device array
    assert float(x[0]) == 0.0


def test_from_dpnp_copy_true_single_copy(dev):
    x = dpnp.arange(4, dtype="int64", device=dev)
    spy = Spy(x)
    a = gd.from_dlpack(spy, copy=True)
    # copy=True: __dlpack_device__ is asked first, so dpctl makes no device copy for nothing
    assert spy.requests == [{"max_version": (1, 3), "dl_device": (1, 0), "copy": True}]
    assert spy.info.flags & FLAG_IS_COPIED
    assert gd_ptr(a) == spy.info.first_element, "IS_COPIED honoured: no second copy"
    assert a.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("device", [None, "cpu", (1, 0)])
def test_from_dpnp_copy_false_refused(dev, device):
    x = dpnp.arange(4, dtype="int64", device=dev)
    with pytest.raises(BufferError) as ei:
        gd.from_dlpack(x, copy=False, device=device)
    msg = str(ei.value)
    assert "cannot be placed on the requested device without a copy" in msg
    if device is None:  # our wrapper names the entry point and the way out
        assert msg.startswith("from_dlpack(): ") and "pass copy=None or True" in msg


@pytest.mark.parametrize("device", ["cpu", gd.Device("cpu"), (1, 0)])
def test_from_dpnp_explicit_cpu(dev, device):
    x = dpnp.arange(3, dtype="float64", device=dev)
    spy = Spy(x)
    a = gd.from_dlpack(spy, device=device)
    assert spy.requests == [{"max_version": (1, 3), "dl_device": (1, 0)}]
    assert gd_ptr(a) == spy.info.first_element
    assert a.tolist() == [0.0, 1.0, 2.0]


def test_from_dpnp_readonly_kept(dev):
    x = dpnp.arange(4, dtype="float32", device=dev)
    x.flags.writable = False
    spy = Spy(x)
    a = gd.from_dlpack(spy)
    assert spy.info.flags == FLAG_READ_ONLY | FLAG_IS_COPIED
    assert a.readonly
    with pytest.raises(ValueError):
        a[0] = 1.0
    b = gd.from_dlpack(x, copy=True)  # dpctl flags its copy READ_ONLY too: honoured
    assert b.readonly
    assert b.tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("dtype", DTYPES)
def test_from_dpnp_dtypes(dev, dtype):
    _device_has(dev, dtype)
    ref = values(dtype)
    x = dpnp.asarray(ref, device=dev)
    a = gd.from_dlpack(x)
    assert a.dtype == dtype
    assert np.from_dlpack(a).tolist() == ref.tolist()


@pytest.mark.parametrize("view", list(VIEWS))
def test_from_dpnp_strided_views(dev, view):
    ref = VIEWS[view](np.arange(12, dtype=np.int64))
    x = VIEWS[view](dpnp.arange(12, dtype="int64", device=dev))
    spy = Spy(x)
    a = gd.from_dlpack(spy)
    assert a.shape == ref.shape and a.tolist() == ref.tolist()
    assert gd_ptr(a) == spy.info.first_element


def test_from_dpnp_nonzero_byte_offset_on_device(dev):
    """dpctl keeps data at the allocation and puts the view's start in byte_offset."""
    x = dpnp.arange(12, dtype="int64", device=dev)
    base = CapsuleInfo(x.__dlpack__(max_version=(1, 3)))
    for view, offset, strides in [(x[3:], 24, (1,)), (x[3:][::-1], 88, (-1,)),
                                  (x.reshape(3, 4)[1:, 1:], 40, (4, 1))]:
        info = CapsuleInfo(view.__dlpack__(max_version=(1, 3)))
        assert (info.data, info.byte_offset, info.strides) == (base.data, offset, strides)
        # a raw capsule cannot be negotiated: held on its device as an opaque
        # array whose first element honours byte_offset
        b = gd.from_dlpack(view.__dlpack__(max_version=(1, 3)))
        assert b.device == gd.Device((14, dev.get_device_id()))
        assert gd_ptr(b) == base.data + offset
        assert b.strides == strides
        # through the host: values of the view, not of the allocation's start
        assert gd.from_dlpack(view).tolist() == dpnp.asnumpy(view).tolist()


def test_from_dpnp_kept_on_device_is_opaque_and_round_trips(dev):
    x = dpnp.arange(10, dtype="int64", device=dev)
    v = x[3:]
    a = gd.from_dlpack(v.__dlpack__(max_version=(1, 3)))  # a raw capsule is held as it is
    assert gd_ptr(a) == usm_first(v), "zero-copy"
    for op in (a.tolist, a.sum, a.copy, lambda: memoryview(a)):
        with pytest.raises(BufferError):
            op()
    with pytest.raises(BufferError):
        gd.from_dlpack(a, device="cpu")  # we cannot read oneAPI memory ourselves
    back = dpnp.from_dlpack(a)  # our export: data at the first element, byte_offset 0
    assert isinstance(back, dpnp.ndarray) and back.sycl_device == dev
    assert usm_first(back) == usm_first(v)
    back[0] = 100
    assert int(x[3]) == 100


@pytest.mark.parametrize("copy", [None, True, False])
def test_from_dpnp_device_oneapi_refused(dev, copy):
    # C7: godlpack has no oneAPI memory backend, so it cannot produce an array
    # on (14, n), not even for a tensor that already lives there.
    x = dpnp.arange(3, device=dev)
    with pytest.raises(BufferError, match="no memory backend"):
        gd.from_dlpack(x, device=(14, dev.get_device_id()), copy=copy)
    assert x.tolist() == [0, 1, 2]


def test_from_dpnp_other_oneapi_device_refused(dev):
    x = dpnp.arange(3, device=dev)
    other = dev.get_device_id() + 1
    # refused by godlpack before dpctl is asked: no backend for oneAPI (yet)
    with pytest.raises(BufferError, match=rf"^from_dlpack\(\): godlpack has no memory backend for device=oneapi:{other}"):
        gd.from_dlpack(x, device=(14, other))


def test_asarray_of_dpnp_takes_the_host_copy(dev):
    x = dpnp.arange(5, dtype="int32", device=dev)
    spy = Spy(x)
    a = gd.asarray(spy)
    assert spy.requests == [{"max_version": (1, 3)}, {"max_version": (1, 3), "dl_device": (1, 0)}]
    assert gd_ptr(a) == spy.info.first_element and a.tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(BufferError) as ei:
        gd.asarray(x, copy=False)
    assert str(ei.value).startswith("asarray(): the 'dpnp_array' is on device type 14")
    assert "cannot be placed on the requested device without a copy" in str(ei.value)


def test_from_dpnp_keeps_memory_alive(dev):
    x = dpnp.arange(1000, dtype="float64", device=dev)
    a = gd.from_dlpack(x)
    del x
    collect()
    assert a.sum() == sum(range(1000))


# ---------------------------------------------------------------- producers on kDLOneAPI, by hand


class OldOneAPIProducer:
    """A kDLOneAPI producer from before DLPack 1.0: __dlpack__(stream=None) only."""

    def __init__(self, x):
        self.x = x

    def __dlpack__(self, stream=None):
        return self.x.__dlpack__()

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()


def test_old_oneapi_producer_is_held_opaque(dev):
    # it never sees dl_device, so there is no host copy to ask for: held on its device
    x = dpnp.arange(4, dtype="float32", device=dev)
    a = gd.from_dlpack(OldOneAPIProducer(x))
    assert a.device == gd.Device((14, dev.get_device_id()))
    assert gd_ptr(a) == usm_first(x)


class RefusingOneAPIProducer(OldOneAPIProducer):
    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        if dl_device is not None and dl_device != self.x.__dlpack_device__():
            raise BufferError("no host copies here")
        return self.x.__dlpack__(max_version=max_version)


@pytest.mark.parametrize("copy", [None, True, False])
def test_refused_host_copy_is_a_clear_buffererror(dev, copy):
    x = dpnp.arange(4, dtype="float32", device=dev)
    with pytest.raises(BufferError) as ei:
        gd.from_dlpack(RefusingOneAPIProducer(x), copy=copy)
    msg = str(ei.value)
    assert msg.startswith("from_dlpack(): the 'RefusingOneAPIProducer' is on device type 14")
    assert f"__dlpack__(dl_device=(1, 0), copy={copy})" in msg and "no host copies here" in msg
    assert ("pass copy=None or True" if copy is False else "pass a raw capsule") in msg
    # the raw capsule is the way out
    a = gd.from_dlpack(RefusingOneAPIProducer(x).__dlpack__(max_version=(1, 3)))
    assert a.device.type == T.kDLOneAPI
