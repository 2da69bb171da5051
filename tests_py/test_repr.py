"""repr(), str() and format() of godlpack.Array print as numpy prints.

numpy is the oracle for the dtypes it prints itself (bool, integers,
float16/32/64, complex): repr(gd array) must equal numpy's repr with "array"
spelt "Array", and str() must equal numpy's str. bfloat16 and float8, which
numpy prints through ml_dtypes' 6-significant-digit scalar repr, are checked
for the property numpy keeps for its own floats: every number printed is the
shortest that rounds back to the element in its dtype.
"""

import math
import os
import re
import zlib

import numpy as np
import pytest

import godlpack as gd
from _helpers import need

ml_dtypes = need("ml_dtypes", module=True)

NUMPY_PRINTED = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float16", "float32", "float64", "complex64", "complex128"]

SHAPES = [(), (1,), (5,), (3, 4), (2, 3, 4), (30, 40), (1001,), (4, 300), (7, 8, 20), (0,), (2, 0), (0, 3, 1)]

KINDS = ["small", "wide", "frac", "special"]


def _values(dtype, shape, kind, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        if kind == "wide":
            return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True).reshape(shape)
        return rng.integers(max(info.min, -50), 50, n).astype(dtype).reshape(shape)
    if kind == "small":
        x = rng.integers(-20, 20, n).astype(np.float64) / 4
    elif kind == "wide":
        x = rng.standard_normal(n) * 10.0 ** rng.integers(-12, 12, n)
    elif kind == "frac":
        x = rng.random(n)
    else:
        x = rng.standard_normal(n) * 100
        x[:: max(1, n // 3)] = np.nan
        x[1 :: max(1, n // 2)] = -np.inf
        if n > 2:
            x[2] = -0.0
    if dtype.startswith("complex"):
        x = x + 1j * np.roll(x, 1)[::-1] * 3
    with np.errstate(over="ignore"):
        return x.astype(dtype).reshape(shape)


def _numpy_repr(n):
    return "Array" + repr(n)[len("array"):]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype, kind", [(d, k) for d in NUMPY_PRINTED for k in KINDS if d != "bool" or k == "small"])
def test_repr_and_str_match_numpy(dtype, kind, shape):
    n = _values(dtype, shape, kind, zlib.crc32(repr((dtype, kind, shape)).encode()))
    a = gd.asarray(n)
    assert repr(a) == _numpy_repr(n)
    assert str(a) == str(n)


@pytest.mark.parametrize("layout", ["T", "step2", "reversed", "broadcast"])
def test_views_print_their_elements(layout):
    base = np.arange(24.0).reshape(4, 6) / 3
    a = gd.asarray(base)
    views = {
        "T": (a.T, base.T),
        "step2": (a[::2, 1::2], base[::2, 1::2]),
        "reversed": (a[::-1], base[::-1]),
        "broadcast": (gd.asarray(np.broadcast_to(base[0], (3, 6))), np.broadcast_to(base[0], (3, 6))),
    }
    v, n = views[layout]
    assert repr(v) == _numpy_repr(n)


def test_issue_examples():
    assert repr(gd.asarray([0.1, 1.0], dtype="float32")) == "Array([0.1, 1. ], dtype=float32)"
    assert repr(gd.asarray(0.1, dtype="bfloat16")) == "Array(0.1, dtype=bfloat16)"
    assert str(gd.asarray(0.1, dtype="float16")) == "0.1"
    assert repr(gd.arange(1001)) == "Array([   0,    1,    2, ...,  998,  999, 1000], shape=(1001,))"
    assert repr(gd.zeros((2, 0))) == "Array([], shape=(2, 0), dtype=float64)"
    assert repr(gd.asarray([0.5, 448.0], dtype="float8_e4m3fn")) == (
        "Array([5.0e-01, 4.5e+02], dtype='float8_e4m3fn')"
    )


def test_huge_broadcast_prints_summarised_in_constant_time():
    n = np.broadcast_to(np.arange(3.0), (10**6, 10**6, 3))
    a = gd.asarray(n)  # 3e12 elements over one row of memory: only the shown ones are read
    assert repr(a) == _numpy_repr(n)
    assert str(a) == str(n)


NARROW = ["bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
          "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"]


def _tokens(s):
    return [t for t in re.split(r"[\s,\[\]]+", s) if t and t != "..."]


@pytest.mark.parametrize("dtype", NARROW)
def test_narrow_floats_print_shortest_round_trip_digits(dtype):
    t = getattr(ml_dtypes, dtype)
    codes = np.arange(256, dtype=np.uint8) if dtype != "bfloat16" else np.arange(0, 65536, 97, dtype=np.uint16)
    n = codes.view(t)
    n = n[np.isfinite(n.astype(np.float64))]
    if dtype == "float8_e8m0fnu":
        # ml_dtypes converts every value below 2**-126 to 2**-126, so no
        # decimal converts back to the smallest value, 2**-127
        n = n[n.astype(np.float64) >= 2.0**-126]
    for chunk in range(0, len(n), 8):  # a row of 8: scientific or positional as the row needs
        part = n[chunk:chunk + 8]
        a = gd.asarray(part.astype(np.float64).tolist(), dtype=dtype)
        printed = _tokens(str(a))
        assert len(printed) == len(part)
        for tok, want in zip(printed, part.astype(np.float64)):
            got = np.float64(float(tok)).astype(t).astype(np.float64)
            assert got == want or (got == 0 and want == 0), (dtype, tok, want)
            mant = tok.split("e")[0].lstrip("-").replace(".", "").strip("0")
            if len(mant) > 1 and "e" not in tok and len(tok.split(".")[1]) < 8:
                shorter = f"{float(tok):.{len(mant) - 2}e}"
                back = np.float64(float(shorter)).astype(t).astype(np.float64)
                assert back != want, f"{dtype}: {tok} prints more digits than {shorter} needs"


@pytest.mark.parametrize("value,spec,want", [(3.14159, ".2f", "3.14"), (7, "05d", "00007"), (0.1, "", "0.1"),
                                             (1 + 2j, ".1f", "1.0+2.0j"), (True, "", "True")])
def test_format_of_0d_arrays(value, spec, want):
    assert format(gd.asarray(value), spec) == want
    assert f"{gd.asarray(value):{spec}}" == want


def test_format_spec_on_nd_arrays_names_the_way_out():
    with pytest.raises(TypeError, match=r"^format\(\): .*0-d arrays only.*tolist"):
        format(gd.arange(3.0), ".2f")
    assert format(gd.arange(3.0), "") == str(gd.arange(3.0))


def test_float32_zero_d_str_is_shortest():
    assert str(gd.asarray(0.1, dtype="float32")) == str(np.float32(0.1)) == "0.1"
    assert str(gd.asarray(1e-5, dtype="float32")) == str(np.float32(1e-5))
    assert str(gd.asarray(1e20, dtype="float32")) == str(np.float32(1e20))
    assert str(gd.asarray(complex(0.1, 0.2), dtype="complex64")) == str(np.complex64(complex(0.1, 0.2)))
    assert math.isnan(float(str(gd.asarray(float("nan"), dtype="float16"))))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_child_prints_without_go():
    a = gd.asarray(np.arange(5000.0).reshape(50, 100) / 7)  # summarised: read element by element
    small = gd.asarray(np.arange(6, dtype=np.float32) / 3)
    want = repr(a) + "\n" + str(small)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.write(w, (repr(a) + "\n" + str(small)).encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        got = f.read().decode()
    os.waitpid(pid, 0)
    assert got == want


_SCALAR_VALUES = [100, 999, 1000, 1e4, 1e5, 1e6, 1e7, 1e8, 1e15, 1e16, 1e-4, 1e-5, -65504, 0.1, 3.14159, -2.5e-7, 0.0,
                  -0.0, 448, 57344, 240, float("inf"), float("nan"), 1.5e-3]


@pytest.mark.filterwarnings("ignore:overflow encountered")
@pytest.mark.parametrize("name", ["float16", "float32", "float64", "bfloat16", "float8_e4m3fn", "float8_e5m2",
                                  "float8_e8m0fnu"])
def test_str_of_a_0d_array_is_the_scalars(name):
    """str() of a 0-d array is its scalar's, as numpy prints it (float16
    65504 is 6.55e+04: scientific from 10**precision) and, for ml_dtypes'
    types, as ml_dtypes' scalars print (6 significant digits)."""
    nd = np.dtype(name) if name.startswith(("float16", "float32", "float64")) else getattr(ml_dtypes, name)
    for v in _SCALAR_VALUES:
        x = np.array(v).astype(nd)
        assert str(gd.asarray(float(x), dtype=name)) == str(x), (name, v)
