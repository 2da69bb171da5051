"""from_dlpack(x) with device=None when x is on a device the CPU cannot read
(issue 4; docs/rules.md C1, C5, C7): godlpack asks the producer for a host copy,
dl_device=(kDLCPU, 0), and takes the producer's IS_COPIED copy as the result
without copying again. CUDA and ROCm tensors are held opaque instead (zero-copy;
the planned CUDA backend uses them in place), so are our own arrays and
producers that do not take dl_device. Crafted producers: no library needed."""

import ctypes

import pytest

import godlpack as gd
from _helpers import FLAG_IS_COPIED, collect, craft_capsule, float64_buffer, gd_ptr


class Producer:
    """Answers __dlpack__ with a crafted capsule: on its own device when no
    dl_device is asked for, else a CPU "copy" flagged IS_COPIED."""

    def __init__(self, device, host_copy=True):
        self.device = device
        self.host_copy = host_copy
        self.requests = []
        self.recs = []
        self.bufs = []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.requests.append({k: v for k, v in dict(stream=stream, max_version=max_version,
                                                    dl_device=dl_device, copy=copy).items() if v is not None})
        buf = float64_buffer([1.0, 2.0, 3.0])
        self.bufs.append(buf)
        if dl_device is None or tuple(dl_device) == tuple(self.device):
            cap, rec = craft_capsule(buf, shape=(3,), strides=(1,), device=self.device)
        elif tuple(dl_device) == (1, 0) and self.host_copy and copy is not False:
            cap, rec = craft_capsule(buf, shape=(3,), strides=(1,), device=(1, 0), flags=FLAG_IS_COPIED)
        else:
            raise BufferError(f"cannot export to {dl_device}")
        self.recs.append(rec)
        return cap


@pytest.mark.parametrize("dev", [(16, 0), (4, 0), (7, 1), (15, 0)])
@pytest.mark.parametrize("copy", [None, True])
def test_offhost_producer_gives_host_copy(dev, copy):
    p = Producer(dev)
    a = gd.from_dlpack(p, copy=copy)
    if copy is None:
        # CPU producers pay nothing: the device is read from the capsule; an
        # off-host one is dropped unconsumed (its destructor frees it) and asked again
        assert p.requests == [{"max_version": (1, 3)}, {"max_version": (1, 3), "dl_device": (1, 0)}]
        assert p.recs[0].deleted == 1
    else:  # copy=True asks __dlpack_device__ first: no device copy for nothing
        assert p.requests == [{"max_version": (1, 3), "dl_device": (1, 0), "copy": True}]
    assert a.device == gd.Device("cpu") and a.tolist() == [1.0, 2.0, 3.0]
    assert gd_ptr(a) == ctypes.addressof(p.bufs[-1]), "IS_COPIED: the producer's copy, no second copy"
    assert p.recs[-1].deleted == 0
    del a
    collect()
    assert p.recs[-1].deleted == 1


@pytest.mark.parametrize("dev", [(2, 0), (10, 1)])
def test_cuda_rocm_producers_held_opaque(dev):
    p = Producer(dev)
    a = gd.from_dlpack(p)
    assert p.requests == [{"max_version": (1, 3)}]
    assert a.device == gd.Device(dev)
    with pytest.raises(BufferError):
        a.tolist()


@pytest.mark.parametrize("dev", [(1, 0), (3, 0), (13, 0)])
def test_cpu_readable_producers_not_asked_for_a_device(dev):
    p = Producer(dev)
    a = gd.from_dlpack(p)
    assert p.requests == [{"max_version": (1, 3)}]
    assert a.tolist() == [1.0, 2.0, 3.0]


def test_copy_false_refused_with_way_out():
    p = Producer((16, 0))
    with pytest.raises(BufferError) as ei:
        gd.from_dlpack(p, copy=False)
    msg = str(ei.value)
    assert msg.startswith("from_dlpack(): the 'Producer' is on device type 16, which the CPU cannot read")
    assert "copy=False" in msg and msg.endswith("pass copy=None or True")


def test_refusing_producer_names_raw_capsule_way_out():
    p = Producer((16, 0), host_copy=False)
    with pytest.raises(BufferError) as ei:
        gd.from_dlpack(p)
    assert "cannot export to (1, 0)" in str(ei.value) and "pass a raw capsule" in str(ei.value)
    a = gd.from_dlpack(p.__dlpack__(max_version=(1, 3)))  # the way out: held opaque
    assert a.device == gd.Device((16, 0))


def test_explicit_offhost_device_is_refused():
    # C7: no backend for kDLHexagon, so device=(16, 0) cannot be produced; the
    # request is not silently turned into a host copy either.
    p = Producer((16, 0))
    with pytest.raises(BufferError, match=r"no memory backend for device=hexagon:0; pass device=None"):
        gd.from_dlpack(p, device=(16, 0))
    assert all(r.get("dl_device") != (1, 0) for r in p.requests)


def test_own_opaque_array_is_viewed_in_place():
    p = Producer((16, 0))
    a = gd.from_dlpack(p.__dlpack__(max_version=(1, 3)))
    b = gd.from_dlpack(a)  # our own array: no host copy asked for
    assert b.device == a.device and gd_ptr(b) == gd_ptr(a)


def test_broken_dlpack_device_propagates():
    class Broken(Producer):
        def __dlpack_device__(self):
            raise RuntimeError("device query failed")

    with pytest.raises(RuntimeError, match="device query failed"):
        gd.from_dlpack(Broken((16, 0)), copy=True)  # asked only when copy=True


@pytest.mark.parametrize("dev", [(16, 0), (2, 0)])
def test_copy_false_with_device_capsule_first(dev):
    p = Producer(dev)
    if dev == (2, 0):
        a = gd.from_dlpack(p, copy=False)  # CUDA: opaque, zero-copy
        assert p.requests == [{"max_version": (1, 3), "copy": False}]
        assert a.device == gd.Device(dev)
    else:
        with pytest.raises(BufferError):
            gd.from_dlpack(p, copy=False)
        assert p.requests == [{"max_version": (1, 3), "copy": False},
                              {"max_version": (1, 3), "dl_device": (1, 0), "copy": False}]
        collect()
        assert p.recs[0].deleted == 1
