"""Tests of the example module imgkit, built by `python -m godlpack build-ext
imgkit ./examples/imgkit -o DIR` and run with DIR on sys.path
(tests_py/test_gofunc_kit.py builds it and runs this file in a fresh
interpreter: imgkit must be imported before godlpack)."""

import imgkit  # first: imgkit is godlpack's runtime in this process

import importlib.util
import os

import numpy as np
import pytest

import godlpack as gd

torch = pytest.importorskip("torch") if importlib.util.find_spec("torch") else None
dpnp = None
if os.environ.get("IMGKIT_DPNP") == "1":
    import dpnp


def reference_blur(img, sigma):
    r = int(np.ceil(3 * sigma))
    k = np.exp(-np.arange(-r, r + 1) ** 2 / (2 * sigma * sigma))
    k /= k.sum()
    pad = np.pad(img.astype(np.float64), r, mode="edge")
    h = sum(k[j] * pad[r:-r, j:j + img.shape[1]] for j in range(2 * r + 1))
    hp = np.pad(h, ((r, r), (0, 0)), mode="edge")
    return sum(k[j] * hp[j:j + img.shape[0]] for j in range(2 * r + 1))


def test_imgkit_is_godlpack():
    assert gd._native is imgkit and gd.Array is imgkit.Array
    assert imgkit.asarray is gd.asarray and imgkit.from_dlpack is gd.from_dlpack
    assert imgkit.blur.__doc__.startswith("Blur returns img")
    assert str(__import__("inspect").signature(imgkit.blur)) == "(img, sigma=1.0)"


@pytest.mark.parametrize("sigma", [0.5, 1.0, 2.5])
@pytest.mark.parametrize("shape", [(1, 1), (7, 5), (64, 48)])
def test_blur_matches_numpy(shape, sigma):
    img = np.random.default_rng(0).random(shape, dtype=np.float32)
    out = imgkit.blur(img, sigma)
    assert isinstance(out, gd.Array) and out.dtype == "float32" and out.shape == shape
    np.testing.assert_allclose(np.from_dlpack(out), reference_blur(img, sigma), rtol=1e-4, atol=1e-5)


def test_blur_from_torch_and_back_zero_copy():
    if torch is None:
        pytest.skip("torch not installed")
    t = torch.rand(16, 12)
    out = imgkit.blur(t, sigma=1.5)
    r = torch.from_dlpack(out)
    assert r.data_ptr() == out.data_ptr  # the result reaches torch without a copy
    np.testing.assert_allclose(r.numpy(), reference_blur(t.numpy(), 1.5), rtol=1e-4, atol=1e-5)


def test_scale_writes_the_callers_memory():
    x = np.ones((3, 4), np.float32)
    imgkit.scale(x, 3.0)
    assert (x == 3.0).all()
    if torch is not None:
        t = torch.ones(5)
        imgkit.scale(t, -2.0)
        assert (t == -2.0).all()
    g = gd.ones(4, dtype="float32")
    imgkit.scale(g, 0.5)
    assert g.tolist() == [0.5] * 4


@pytest.mark.parametrize("bins", [1, 4, 256])
def test_histogram(bins):
    data = np.random.default_rng(1).integers(0, 256, (30, 17), dtype=np.uint8)
    got = np.from_dlpack(imgkit.histogram(data, bins=bins))
    want = np.histogram(data, bins=bins, range=(0, 256))[0]
    assert got.dtype == np.int64 and (got == want).all()
    ro = data.copy()
    ro.flags.writeable = False  # read-only inputs are read (core.ReadSlice)
    assert (np.from_dlpack(imgkit.histogram(ro, bins)) == want).all()
    if torch is not None:
        assert (np.from_dlpack(imgkit.histogram(torch.from_numpy(data), bins)) == want).all()


def test_dpnp_inputs():
    if dpnp is None:
        pytest.skip("dpnp not requested (IMGKIT_DPNP=1)")
    img = np.random.default_rng(2).random((9, 8), dtype=np.float32)
    out = imgkit.blur(dpnp.asarray(img, device="cpu"), 1.0)  # dpnp hands godlpack a host copy
    np.testing.assert_allclose(np.from_dlpack(out), reference_blur(img, 1.0), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: imgkit.blur(np.zeros((4, 4), np.float64)), TypeError, r"^blur\(\): img must have dtype float32, got float64"),
    (lambda: imgkit.blur(np.zeros(4, np.float32)), ValueError, r"^blur\(\): img must have 2 dimensions, got 1"),
    (lambda: imgkit.blur(np.zeros((4, 4), np.float32).T), BufferError, r"^blur\(\): img must be C-contiguous"),
    (lambda: imgkit.blur(np.zeros((4, 4), np.float32), -1.0), ValueError, r"^blur\(\): sigma must be in \(0, 1000\]"),
    (lambda: imgkit.histogram(np.zeros(4, np.uint8), bins=0), ValueError, r"^histogram\(\): bins must be in \[1, 256\]"),
    (lambda: imgkit.scale(np.zeros(4, np.float32)), TypeError, r"^scale\(\) missing required argument 'factor'"),
])
def test_bad_input(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()
