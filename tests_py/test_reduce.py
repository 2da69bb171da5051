"""Reductions: Array.sum, prod, min, max, any, all, mean (axis, dtype, out,
keepdims) against numpy on the same memory (np.from_dlpack), numpy's
dispatch (np.sum(a) calls a.sum(...)), accuracy against math.fsum, errors,
and the chunked (Ctrl-C) path."""

from __future__ import annotations

import math
import os
import sys
import warnings

import pytest

import godlpack as gd

from _helpers import need
from _subproc import run_group

np = need("numpy")

OPS = ["sum", "prod", "min", "max", "any", "all", "mean"]
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
LAYOUTS = ["contiguous", "transposed", "stride3", "negative", "0-d", "size0"]
AXES = [None, 0, -1, (0, 2), (), (2, 0, 1)]


def _data(dtype: str, shape, seed=0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == "bool":
        v = rng.random(n) < 0.6
    elif dtype.startswith("int"):
        v = rng.integers(-3, 4, n)
    elif dtype.startswith("uint"):
        v = rng.integers(0, 4, n)
    elif dtype.startswith("complex"):
        v = rng.normal(size=n) + 1j * rng.normal(size=n)
    else:
        v = rng.normal(size=n)
    return v.astype(dtype).reshape(shape)


def _layout(dtype: str, layout: str):
    """(godlpack view, numpy view of the same memory)."""
    if layout == "0-d":
        base = _data(dtype, ())
        a = gd.from_dlpack(base)
        return a, np.from_dlpack(a)
    base = _data(dtype, (9, 4, 5) if layout == "stride3" else (0, 4, 5) if layout == "size0" else (3, 4, 5))
    a = gd.asarray(base)  # a godlpack-owned copy
    n = np.from_dlpack(a)
    if layout == "transposed":
        return a.transpose(2, 0, 1), n.transpose(2, 0, 1)
    if layout == "stride3":
        return a[::3, :, ::2], n[::3, :, ::2]
    if layout == "negative":
        return a[::-1, ::-2], n[::-1, ::-2]
    return a, n


def _tol(dt: str):
    return {"float16": 2e-2, "float32": 2e-5, "complex64": 2e-5}.get(dt, 1e-12)


def _close(got, want, dt):
    want = np.asarray(want)
    got = np.asarray(got)
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got.astype(want.dtype), want, rtol=_tol(dt), atol=_tol(dt) * 10, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def _numpy(n, op, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # mean of empty slice
        return getattr(np, op)(n, **kw)


def _check(a, n, op, **kw):
    try:
        want = _numpy(n, op, **kw)
    except ValueError:  # numpy's AxisError, or min/max with no identity
        with pytest.raises(ValueError, match=rf"^{op}\(\): "):
            getattr(a, op)(**kw)
        return
    got = getattr(a, op)(**kw)
    if isinstance(want, np.ndarray) and want.ndim > 0:
        assert isinstance(got, gd.Array), (op, kw)
        g = np.from_dlpack(got)
        assert g.shape == want.shape and g.dtype == want.dtype, (g.shape, g.dtype, want.shape, want.dtype)
        _close(g, want, str(a.dtype))
    else:
        assert not isinstance(got, gd.Array), (op, kw)
        kind = np.asarray(want).dtype.kind
        assert isinstance(got, {"b": bool, "i": int, "u": int, "f": float, "c": complex}[kind]), (type(got), kind)
        _close(got, want, str(a.dtype))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_reduce_matches_numpy(op, dtype, layout):
    a, n = _layout(dtype, layout)
    for axis in AXES:
        for keepdims in (False, True):
            _check(a, n, op, axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("op", OPS)
def test_reduce_bfloat16(op):
    base = np.arange(-6, 6, dtype=np.float64).reshape(3, 4) / 4  # exact in bfloat16
    a = gd.asarray(base.tolist(), dtype="bfloat16")
    for axis in (None, 0, 1):
        got = getattr(a, op)(axis=axis)
        want = getattr(np, op)(base, axis=axis)
        if axis is None:
            assert float(got) == pytest.approx(float(want), rel=1e-2)
        else:
            assert got.dtype == ("bool" if op in ("any", "all") else "bfloat16")
            np.testing.assert_allclose(np.asarray(got.tolist(), dtype=np.float64), want, rtol=1e-2)


@pytest.mark.parametrize("op", ["sum", "prod", "mean", "min", "max"])
def test_numpy_dispatch(op):
    a = gd.asarray(np.arange(1.0, 13.0).reshape(3, 4))
    n = np.from_dlpack(a)
    f = getattr(np, op)
    assert f(a) == pytest.approx(f(n))
    np.testing.assert_allclose(np.from_dlpack(f(a, axis=0)), f(n, axis=0))
    np.testing.assert_allclose(np.from_dlpack(f(a, axis=1, keepdims=True)), f(n, axis=1, keepdims=True))
    out = gd.zeros((4,))
    assert f(a, axis=0, out=out) is out
    np.testing.assert_allclose(np.from_dlpack(out), f(n, axis=0))


def test_numpy_dispatch_any_all_and_dtype():
    a = gd.asarray([[0, 1], [0, 0]])
    assert np.any(a) is True and np.all(a) is False
    assert np.from_dlpack(np.any(a, axis=1)).tolist() == [True, False]
    assert np.sum(a, dtype=np.float32) == 1.0 and isinstance(np.sum(a, dtype=np.float32), float)
    assert np.from_dlpack(np.sum(a, axis=0, dtype="int8")).dtype == np.int8
    assert np.mean(gd.asarray([1, 2]), dtype=np.float32) == 1.5


def test_result_dtypes_follow_numpy():
    for dt, want in [("bool", "int64"), ("int8", "int64"), ("int32", "int64"), ("uint8", "uint64"),
                     ("uint32", "uint64"), ("float16", "float16"), ("float32", "float32"),
                     ("complex64", "complex64")]:
        a = gd.ones((2, 3), dtype=dt)
        assert a.sum(axis=0).dtype == want and a.prod(axis=0).dtype == want
        assert a.max(axis=0).dtype == dt and a.any(axis=0).dtype == "bool"
    assert gd.ones((2, 3), dtype="int16").mean(axis=0).dtype == "float64"
    assert gd.ones((2, 3), dtype="float16").mean(axis=0).dtype == "float16"


def test_sum_int_wraps_and_unsigned_widens():
    assert gd.full((2,), 2**63 - 1, dtype="int64").sum() == -2
    assert gd.full((4,), 255, dtype="uint8").sum() == 1020
    assert gd.full((3,), 100, dtype="int8").sum(dtype="int8") == np.int8(300 - 256)
    assert gd.full((3,), 2**62, dtype="int64").prod() == 0


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("where", [0, 7, 63, 130, 999])
def test_min_max_propagate_nan(dtype, where):
    v = np.arange(1000, dtype=dtype)
    v[where] = np.nan
    a = gd.asarray(v)
    assert math.isnan(a.max()) and math.isnan(a.min())
    assert math.isnan(a[::3].max()) == (where % 3 == 0)
    m = gd.asarray(v.reshape(10, 100))
    got = np.from_dlpack(m.max(axis=0))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(v.reshape(10, 100).max(axis=0)))
    got = np.from_dlpack(m.min(axis=1))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(v.reshape(10, 100).min(axis=1)))


def test_empty_reductions():
    e = gd.zeros((0, 3))
    assert e.sum() == 0 and e.prod() == 1 and e.any() is False and e.all() is True
    assert math.isnan(e.mean())
    assert np.from_dlpack(e.sum(axis=0)).tolist() == [0, 0, 0]
    assert e.max(axis=1).shape == (0,)
    for op, ufunc in (("max", "maximum"), ("min", "minimum")):
        with pytest.raises(ValueError, match=rf"^{op}\(\): zero-size array to reduction operation {ufunc} which has no identity"):
            getattr(e, op)()
        with pytest.raises(ValueError, match=rf"^{op}\(\): zero-size"):
            getattr(e, op)(axis=0)


def test_out_casts_and_is_returned():
    a = gd.asarray(np.arange(12.0).reshape(3, 4) + 0.5)
    out = gd.zeros((4,), dtype="int32")
    assert a.sum(axis=0, out=out) is out
    assert out.tolist() == [13, 16, 19, 22]  # 13.5 ... truncated as numpy's unsafe cast
    o0 = gd.zeros((), dtype="float32")
    assert a.max(out=o0) is o0 and o0.tolist() == 11.5
    ok = gd.zeros((3, 1))
    assert a.mean(axis=1, keepdims=True, out=ok) is ok
    assert np.from_dlpack(ok).ravel().tolist() == pytest.approx([2.0, 6.0, 10.0])
    strided = gd.zeros((8,))[::2]
    a.min(axis=0, out=strided)
    assert strided.tolist() == [0.5, 1.5, 2.5, 3.5]


def test_out_may_overlap_the_input():
    a = gd.asarray(np.arange(12.0).reshape(3, 4))
    a.sum(axis=0, out=a[0])
    assert a[0].tolist() == [12.0, 15.0, 18.0, 21.0]


def test_out_errors():
    a = gd.ones((3, 4))
    with pytest.raises(ValueError, match=r"^sum\(\): out has shape \(3,\), the result has shape \(4,\)"):
        a.sum(axis=0, out=gd.zeros((3,)))
    with pytest.raises(TypeError, match=r"^sum\(\): out must be a godlpack.Array, got ndarray"):
        a.sum(axis=0, out=np.zeros(4))
    ro = gd.from_dlpack(np.zeros(4))
    n = np.zeros(4)
    n.flags.writeable = False
    ro = gd.from_dlpack(n)
    with pytest.raises(ValueError, match=r"^max\(\): out is read-only"):
        a.max(axis=0, out=ro)


def test_dtype_argument():
    a = gd.asarray([1, 2, 3], dtype="int16")
    assert a.sum(dtype="float32") == 6.0 and isinstance(a.sum(dtype="float32"), float)
    assert a.sum(dtype="complex128") == 6 + 0j
    assert a.prod(dtype="uint8") == 6
    assert a.mean(dtype="int64") == 2
    with pytest.raises(TypeError, match=r"^sum\(\): cannot accumulate float64 values in dtype=int32"):
        gd.ones(3).sum(dtype="int32")
    with pytest.raises(TypeError, match=r"^max\(\): unsupported keyword argument 'dtype'"):
        a.max(dtype="int64")


@pytest.mark.parametrize("kw", ["initial", "where", "ddof"])
def test_unsupported_keywords_are_named(kw):
    with pytest.raises(TypeError, match=rf"^sum\(\): unsupported keyword argument '{kw}'"):
        gd.ones(3).sum(**{kw: 0})


def test_axis_errors():
    a = gd.ones((2, 3))
    with pytest.raises(ValueError, match=r"^sum\(\): axis 3 is out of bounds for array of dimension 2; pass an axis in \[-2, 2\)$"):
        a.sum(axis=3)
    with pytest.raises(ValueError, match=r"^min\(\): axis -3 is out of bounds"):
        a.min(axis=-3)
    with pytest.raises(ValueError, match=r"^any\(\): duplicate value in 'axis'"):
        a.any(axis=(1, -1))
    with pytest.raises(ValueError, match=r"^sum\(\): axis 1 is out of bounds for array of dimension 0"):
        gd.ones(()).sum(axis=1)
    with pytest.raises(ValueError, match=r"^sum\(\): axis 0 is out of bounds for array of dimension 0"):
        gd.ones(()).sum(axis=(0,))
    assert gd.ones(()).sum(axis=-1) == 1.0  # numpy accepts a lone 0 or -1 on 0-d arrays
    for bad in (1.0, [0], "0", True):
        with pytest.raises(TypeError, match=r"^mean\(\): axis must be None, an int or a tuple of ints"):
            a.mean(axis=bad)
    with pytest.raises(TypeError, match=r"^sum\(\): takes at most 4 positional arguments"):
        a.sum(0, None, None, False, 1)
    assert a.sum(np.int64(1)).tolist() == [3.0, 3.0]  # numpy integers are axes too


def test_positional_arguments_follow_numpy():
    a = gd.asarray(np.arange(6.0).reshape(2, 3))
    assert a.sum(0, "float32").dtype == "float32"
    assert a.max(1, None, True).shape == (2, 1)


def test_unreadable_dtypes_refused():
    a = gd.zeros((4,), dtype="float8_e4m3fn")
    for op in OPS:
        with pytest.raises(TypeError, match=rf"^{op}\(\): float8_e4m3fn arrays cannot be reduced; convert them first"):
            getattr(a, op)()


def test_float_sum_accuracy_at_least_numpys():
    rng = np.random.default_rng(5)
    cases = [np.full(10**6, 0.1),
             rng.normal(size=10**6) * 10.0 ** rng.integers(-8, 9, 10**6),
             np.concatenate([np.full(10**5, 1e-3), [1e10, -1e10], np.full(10**5, 1e-3)])]
    for v in cases:
        exact = math.fsum(v.tolist())
        for view_gd, view_np in ((gd.asarray(v), v), (gd.asarray(v)[::3], v[::3])):
            exact = math.fsum(view_np.tolist())
            ours = abs(view_gd.sum() - exact)
            theirs = abs(float(view_np.sum()) - exact)
            assert ours <= theirs + abs(exact) * 2**-52, (ours, theirs)
    f32 = rng.random(10**6).astype(np.float32)
    exact = math.fsum(f32.astype(np.float64).tolist())
    assert abs(gd.asarray(f32).sum() - exact) <= abs(float(f32.sum()) - exact) + abs(exact) * 2**-23


def test_large_strided_and_contiguous_match_numpy():
    v = np.random.default_rng(2).normal(size=3 * 10**5)
    a = gd.asarray(v)
    for x, n in ((a, v), (a[::3], v[::3]), (a[::-7], v[::-7])):
        assert x.max() == n.max() and x.min() == n.min()
        assert x.sum() == pytest.approx(n.sum(), rel=1e-12, abs=1e-9)


@pytest.mark.slow
def test_chunked_reductions_match_numpy():
    # GODLPACK_CHUNK_MIB=1: a few-MiB reduction runs as many Go calls with
    # signal checks between them (chunk.c), along and across axes.
    code = r"""
import numpy as np, godlpack as gd, warnings
rng = np.random.default_rng(0)
v = 1 + 0.01 * rng.normal(size=(700, 1100))  # products stay normal numbers
a = gd.asarray(v)
checks = []
for x, n in ((a, v), (a.T, v.T), (a[::3, ::-1], v[::3, ::-1])):
    for op in ("sum", "max", "min", "mean", "prod", "any", "all"):
        for axis in (None, 0, 1, (0, 1)):
            got = getattr(x, op)(axis=axis)
            want = getattr(np, op)(n, axis=axis)
            got = np.from_dlpack(got) if isinstance(got, gd.Array) else got
            checks.append(np.allclose(got, want, rtol=1e-9, atol=0))
i = gd.asarray(rng.integers(-5, 5, size=(3000, 700)))
ni = np.from_dlpack(i)
checks.append(i.sum() == ni.sum() and (np.from_dlpack(i.sum(axis=0)) == ni.sum(axis=0)).all())
o = gd.zeros((1100,))
checks.append(a.max(axis=0, out=o) is o and (np.from_dlpack(o) == v.max(axis=0)).all())
print(all(checks), checks.count(False))
"""
    env = dict(os.environ, GODLPACK_CHUNK_MIB="1")
    r = run_group([sys.executable, "-c", code], 120, env)
    assert r is not None and r.returncode == 0, r and r.stderr
    assert r.stdout.split()[0] == "True", r.stdout


def test_existing_sum_behaviour_kept():
    assert gd.arange(101).sum() == 5050 and isinstance(gd.arange(101).sum(), int)
    assert gd.asarray([True, True, False]).sum() == 2
    m = gd.arange(12).reshape((3, 4))
    assert m.T.sum() == 66 and m[::-1, ::-2].sum() == sum(range(1, 12, 2))


# ---- long float64 rows split over two goroutines (core/kernels/reduce_fold.go splitRow)


@pytest.mark.parametrize("step", [1, 3])
def test_two_goroutine_rows_give_one_goroutines_bits(step):
    # 3e6 elements (24 MB, one chunk): the pairwise tree's top halves run on two
    # goroutines, the additions in numpy's order, so the sum is numpy's bit for bit
    n = np.random.default_rng(7).standard_normal(3_000_000 * step) * 1e3
    a = gd.from_dlpack(n)[::step]
    v = n[::step]
    assert a.sum() == v.sum()
    assert a.max() == v.max() and a.min() == v.min()
    for where in (5, len(v) // 2 - 3, len(v) // 2 + 3, len(v) - 1):  # a NaN in either half
        w = v.copy()
        w[where] = np.nan
        b = gd.from_dlpack(w)
        assert math.isnan(b.max()) and math.isnan(b.min()) and math.isnan(b.sum())
