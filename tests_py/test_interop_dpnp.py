"""godlpack <-> dpnp 0.20 / dpctl 0.22 on the SYCL CPU device (kDLOneAPI), issues 4 and 14.

What dpctl does (checked here, not assumed):
* dpnp.from_dlpack(cpu_producer) with device=None returns a numpy.ndarray over
  the producer's memory; with device=<SYCL device> it asks the producer for
  kDLOneAPI (dl_device=(14, id)); godlpack's oneAPI backend copies host -> device
  (IS_COPIED) into USM of dpctl's own context, which dpctl takes as it is.
* A dpnp array exports kDLOneAPI with data at the allocation and the view's start
  in byte_offset. godlpack's from_dlpack keeps it on its device, zero-copy
  (backends/oneapi); test_oneapi.py covers godlpack's own oneAPI arrays.
"""

from __future__ import annotations

import pytest

import _dpenv  # noqa: F401  (OCL_ICD_FILENAMES before any device lookup)
import godlpack as gd
from _dpenv import DPNP_DTYPES as DTYPES
from _dpenv import Spy, usm_first, values
from _helpers import FLAG_IS_COPIED, FLAG_READ_ONLY, CapsuleInfo, collect, gd_ptr, optional, requires

np = optional("numpy")
dpnp = optional("dpnp")

pytestmark = requires("numpy", "dpnp", "dpctl")

T = gd.DLDeviceType


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
def test_to_dpnp_device_is_our_device_copy(dev, kind):
    device = _device_args(dev)[kind]
    a = gd.arange(5, dtype="float64")
    spy = Spy(a)
    y = dpnp.from_dlpack(spy, device=device)
    assert isinstance(y, dpnp.ndarray) and y.sycl_device == dev
    # dpctl asks for kDLOneAPI: our backend copies into USM of dpctl's context
    assert spy.requests == [{"max_version": (1, 0), "dl_device": (14, dev.get_device_id()), "copy": None}]
    info = spy.info
    assert info.device == (14, dev.get_device_id()) and info.flags == FLAG_IS_COPIED
    assert usm_first(y) == info.first_element, "dpctl took our USM copy as it is"
    assert dpnp.asnumpy(y).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    a[0] = 99.0  # a copy: later writes are not seen
    assert float(y[0]) == 0.0


def test_to_dpnp_device_readonly_copy_is_writable(dev):
    src = np.arange(4.0)
    src.flags.writeable = False
    a = gd.from_dlpack(src)
    y = dpnp.from_dlpack(a, device=dev)  # our copy on the device is a new, writable array
    y[0] = 5.0
    assert dpnp.asnumpy(y).tolist() == [5.0, 1.0, 2.0, 3.0] and src[0] == 0.0


def test_to_dpnp_device_copy_true(dev):
    a = gd.arange(3, dtype="int32")
    y = dpnp.from_dlpack(a, device=dev, copy=True)
    assert y.sycl_device == dev and dpnp.asnumpy(y).tolist() == [0, 1, 2]


def test_to_dpnp_device_copy_false_refused(dev):
    a = gd.arange(3, dtype="int32")
    with pytest.raises(BufferError, match="Importing data via DLPack requires copying, but copy=False was provided"):
        dpnp.from_dlpack(a, device=dev, copy=False)


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


@pytest.mark.parametrize("view", list(VIEWS))
def test_to_dpnp_device_strided_views(dev, view):
    # godlpack copies every view to the device itself (C-contiguous), so
    # dpctl 0.22.1's own fallback, which fails on views whose last axis is
    # not contiguous (DPCTL_LAST_AXIS, numpy producers too), is never used
    ref = VIEWS[view](np.arange(12, dtype=np.int64))
    a = VIEWS[view](gd.arange(12, dtype="int64"))
    y = dpnp.from_dlpack(a, device=dev)
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


def asked_with_stream(spy, dev, first=None, **kw):
    """godlpack took the tensor of a request with kw plus stream= its own queue
    on the device (dpctl synchronises nothing for stream=None): the last one.
    The first tensor of a producer type godlpack has not seen on the device is
    asked for once without a stream (with first, when not kw), and asked again."""
    q = gd._oneapi.consumer_stream(14, dev.get_device_id())
    want = dict(kw, stream=q)
    assert spy.requests[-1] == want and spy.requests[-1]["stream"] is q
    assert spy.requests[:-1] in ([], [kw if first is None else first]), spy.requests
    return True


def test_from_dpnp_kept_on_device_zero_copy(dev):
    x = dpnp.arange(6, dtype="float32", device=dev)
    spy = Spy(x)
    a = gd.from_dlpack(spy)
    assert asked_with_stream(spy, dev, max_version=(1, 3))
    info = spy.info
    assert info.name == "dltensor_versioned" and info.device == (14, dev.get_device_id())
    assert a.device == gd.Device((14, dev.get_device_id())) and not a.readonly
    assert gd_ptr(a) == usm_first(x), "zero-copy"
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]  # device USM of a CPU device: host-accessible
    a[0] = 7.0
    assert float(x[0]) == 7.0
    x[1] = 8.0  # queued by dpnp: the reader waits for it
    x.sycl_queue.wait()
    assert a.tolist()[1] == 8.0


def test_from_dpnp_copy_true_single_copy(dev):
    # dpctl's __dlpack__(copy=True) copies without waiting for the kernels dpnp
    # queued on x (arange here), whatever the stream: its copy may hold stale
    # bytes for good. So godlpack asks for the tensor itself with its queue,
    # waits, and makes the one copy (C8), with no wait here.
    x = dpnp.arange(4, dtype="int64", device=dev)
    spy = Spy(x)
    a = gd.from_dlpack(spy, copy=True)
    assert asked_with_stream(spy, dev, first=dict(max_version=(1, 3), copy=True), max_version=(1, 3))
    assert not spy.info.flags & FLAG_IS_COPIED and spy.info.device == (14, dev.get_device_id())
    assert gd_ptr(a) not in (spy.info.first_element, usm_first(x)), "godlpack's own copy"
    assert a.device.type == T.kDLOneAPI and a.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("device", ["cpu", (1, 0)])
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
    assert spy.info.flags == FLAG_READ_ONLY
    assert a.readonly and gd_ptr(a) == usm_first(x)
    with pytest.raises(ValueError):
        a[0] = 1.0
    b = gd.from_dlpack(x, copy=True)  # godlpack's own copy: writable, as on the CPU and in numpy
    assert not b.readonly and gd_ptr(b) != usm_first(x)
    assert b.tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("dtype", DTYPES)
def test_from_dpnp_dtypes(dev, dtype):
    _device_has(dev, dtype)
    ref = values(dtype)
    x = dpnp.asarray(ref, device=dev)
    a = gd.from_dlpack(x)
    assert a.dtype == dtype and a.device.type == T.kDLOneAPI
    assert gd_ptr(a) == usm_first(x)
    assert np.from_dlpack(a.to_device("cpu")).tolist() == ref.tolist()


@pytest.mark.parametrize("view", list(VIEWS))
def test_from_dpnp_strided_views(dev, view):
    ref = VIEWS[view](np.arange(12, dtype=np.int64))
    x = VIEWS[view](dpnp.arange(12, dtype="int64", device=dev))
    spy = Spy(x)
    a = gd.from_dlpack(spy)
    assert a.shape == ref.shape and a.tolist() == ref.tolist()
    assert a.device.type == T.kDLOneAPI and gd_ptr(a) == spy.info.first_element


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
        # our export keeps dpctl's convention: data at the allocation, offset in byte_offset
        ours = CapsuleInfo(b.__dlpack__(max_version=(1, 3)))
        assert (ours.data, ours.byte_offset) == (base.data, offset)
        # values of the view, not of the allocation's start
        assert gd.from_dlpack(view).tolist() == dpnp.asnumpy(view).tolist()


@pytest.mark.parametrize("copy", [None, True, False])
def test_from_dpnp_device_oneapi(dev, copy):
    x = dpnp.arange(3, device=dev)
    a = gd.from_dlpack(x, device=(14, dev.get_device_id()), copy=copy)
    assert a.device == gd.Device((14, dev.get_device_id())) and a.tolist() == [0, 1, 2]
    assert (gd_ptr(a) == usm_first(x)) is (copy is not True)


# C8: a copy of a tensor dpnp has just computed holds its values. dpnp's own
# copy (copy=True passed to its __dlpack__) is not ordered before godlpack's
# queue, and about one import in ten read it unwritten; godlpack now takes
# the tensor in place, waits, and copies it itself. Many fresh arrays: the
# race showed within a few hundred.
@pytest.mark.parametrize("device", ["oneapi", None])
def test_copies_of_fresh_dpnp_arrays_hold_their_values(dev, device):
    want = list(range(7))
    target = None if device is None else (14, dev.get_device_id())
    wrong = 0
    for _ in range(400):
        x = dpnp.arange(7, device=dev)
        a = gd.from_dlpack(x, device=target, copy=True)
        wrong += a.tolist() != want
        assert gd_ptr(a) != usm_first(x)
    assert wrong == 0


def test_from_dpnp_other_oneapi_device_refused(dev):
    x = dpnp.arange(3, device=dev)
    other = dev.get_device_id() + 1
    # dpctl refuses to export to another device; godlpack says which request failed
    with pytest.raises(BufferError, match=rf"^from_dlpack\(\): .*dl_device=\(14, {other}\)"):
        gd.from_dlpack(x, device=(14, other))


def test_asarray_of_dpnp_is_zero_copy(dev):
    x = dpnp.arange(5, dtype="int32", device=dev)
    spy = Spy(x)
    a = gd.asarray(spy)
    assert asked_with_stream(spy, dev, max_version=(1, 3))
    assert gd_ptr(a) == usm_first(x) and a.tolist() == [0, 1, 2, 3, 4]
    b = gd.asarray(x, copy=False)
    assert gd_ptr(b) == usm_first(x)


@pytest.mark.parametrize("make", [
    lambda n: dpnp.arange(n, dtype="int64")[::-1],
    lambda n: dpnp.arange(n, dtype="int64").reshape(-1, 8).T,
    lambda n: dpnp.arange(n, dtype="int64") * 3 + 1,
])
def test_from_dpnp_waits_for_the_kernels_that_made_it(dev, make):
    # dpnp queues its kernels and returns; dpctl's __dlpack__(stream=None)
    # synchronises nothing. godlpack asks with its own queue as the stream
    # and waits for it, so the values read at once are the finished ones
    # (without it about a third of these imports read unwritten memory).
    n = 1 << 14
    ref = dpnp.asnumpy(make(n)).tolist()
    for _ in range(40):
        a = gd.from_dlpack(make(n))
        assert a.tolist() == ref
        assert np.from_dlpack(a.to_device("cpu")).tolist() == ref


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
        # the stream goes on to dpctl: godlpack's queue waits for x's kernels
        return self.x.__dlpack__(max_version=max_version, stream=stream)


@pytest.mark.parametrize("copy", [None, True, False])
def test_oneapi_producer_without_host_copies_is_held_on_device(dev, copy):
    # godlpack never asks a oneAPI producer for a host copy: the tensor stays
    # on its device; copy=True copies it there (the producer did not say IS_COPIED)
    x = dpnp.arange(4, dtype="float32", device=dev)
    a = gd.from_dlpack(RefusingOneAPIProducer(x), copy=copy)
    assert a.device == gd.Device((14, dev.get_device_id())) and a.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert (gd_ptr(a) == usm_first(x)) is (copy is not True)
    with pytest.raises(BufferError, match="no host copies here"):
        gd.from_dlpack(RefusingOneAPIProducer(x), device="cpu")
