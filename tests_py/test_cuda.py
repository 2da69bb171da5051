"""CUDA tensors from torch (needs a GPU; skipped without one, also under CI;
without torch they fail under CI like every missing library).

godlpack has no CUDA backend yet: CUDA tensors are imported as opaque arrays that
keep their device and pointer; CPU access is refused. NOTE: written without a GPU
at hand (no device was lent to this task); run it on one before trusting it."""

import pytest

import godlpack as gd
from _helpers import CapsuleInfo, gd_ptr, optional, requires

torch = optional("torch")
# No GPU is a skip, also under CI; no torch is a failure under CI (requires).
pytestmark = [
    requires("torch"),
    pytest.mark.skipif(torch is not None and not torch.cuda.is_available(), reason="needs a CUDA device"),
]


def test_cuda_tensor_import_is_opaque_zero_copy():
    t = torch.arange(12.0, device="cuda").reshape(3, 4)
    a = gd.from_dlpack(t)
    assert a.device.type == gd.DLDeviceType.kDLCUDA and a.device.id == t.device.index
    assert a.shape == (3, 4) and a.strides == (4, 1)
    assert gd_ptr(a) == t.data_ptr()
    with pytest.raises(BufferError):
        a.tolist()
    v = a.T
    assert v.__dlpack_device__() == (gd.DLDeviceType.kDLCUDA, t.device.index)


def test_cuda_tensor_round_trip_or_clean_refusal():
    t = torch.arange(6.0, device="cuda")
    a = gd.from_dlpack(t)
    info = CapsuleInfo(a.__dlpack__(max_version=(1, 0)))
    assert info.device == (2, t.device.index) and info.data == t.data_ptr()
    try:
        back = torch.from_dlpack(a)  # torch passes its current stream
    except BufferError as e:
        assert "stream" in str(e) or "device" in str(e)
        return
    assert back.device == t.device and back.data_ptr() == t.data_ptr()
    back[0] = 42.0
    assert t[0].item() == 42.0


def test_cuda_to_cpu_refused_without_backend():
    t = torch.zeros(3, device="cuda")
    # Refused by torch (dl_device with copy=False) or by us; never a crash or a silent copy.
    with pytest.raises((BufferError, ValueError, RuntimeError)):
        gd.from_dlpack(t, device="cpu", copy=False)
