"""core.Blocks and ReadBlocks (issue 37) against numpy, through the probes
_gofunc_blocks_sum (the sum of every element, read through ReadBlocks) and
_gofunc_blocks_scale (every element multiplied in place through Blocks):
numpy's own arrays and views, handed over zero-copy, over dtypes x layouts
(negative, zero and broadcast strides, Fortran order, 0-d, empty, long
strided runs that fill several buffers). The write-back lands on the view's
elements and nowhere else."""

from __future__ import annotations

import pytest

from godlpack import _native as N
from _helpers import optional, probes, requires

np = optional("numpy")

pytestmark = [requires("numpy")]

DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "float32", "float64"]

# name -> the view of a base array (shape (40, 60), values 0..2399 mod 100)
LAYOUTS = {
    "contiguous": lambda b: b,
    "transposed": lambda b: b.T,
    "Fortran": lambda b: np.asfortranarray(b),
    "reversed rows": lambda b: b[::-1],
    "reversed both": lambda b: b[::-1, ::-1],
    "stepped": lambda b: b[1::3, 2::5],
    "transposed and stepped": lambda b: b.T[::2, ::-3],
    "column": lambda b: b[:, 7],
    "row": lambda b: b[11],
    "long strided run": lambda b: b.reshape(-1)[::3],
    "3-d": lambda b: b.reshape(4, 10, 60).transpose(2, 0, 1)[::2],
    "0-d": lambda b: b[3, 4, ...],
    "empty": lambda b: b[5:5],
    "size-1 axes": lambda b: b[None, 3:4, :, None],
}
BROADCAST = {
    "broadcast rows": lambda b: np.broadcast_to(b[0], (7, 60)),
    "broadcast scalar": lambda b: np.broadcast_to(b[1, 1], (3, 4)),
}


def _base(dtype):
    return (np.arange(2400) % 100).astype(dtype).reshape(40, 60)


@probes
@pytest.mark.parametrize("layout", list(LAYOUTS) + list(BROADCAST))
@pytest.mark.parametrize("dtype", DTYPES)
def test_read_blocks_sum_every_element_as_numpy_holds_them(dtype, layout):
    x = {**LAYOUTS, **BROADCAST}[layout](_base(dtype))
    total, blocks = N._gofunc_blocks_sum(x)
    assert total == float(x.astype("float64").sum())
    assert (blocks == 0) == (x.size == 0)
    if x.flags.c_contiguous or x.flags.f_contiguous:
        assert blocks <= 1, "a contiguous array is one block"


@probes
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_blocks_write_back_onto_the_views_elements_only(dtype, layout):
    base = _base(dtype)
    view = LAYOUTS[layout](base)
    # which elements of base the view holds: the same view of their indices
    where = np.zeros(base.size, bool)
    where[np.asarray(LAYOUTS[layout](np.arange(base.size).reshape(base.shape))).ravel()] = True
    if not np.shares_memory(view, base) and view.size:  # Fortran order: a copy, all of which is the view
        base, where = view, np.ones(view.size, bool)
    before = base.copy()
    N._gofunc_blocks_scale(view, 3)
    with np.errstate(over="ignore"):
        want = np.where(where.reshape(base.shape), before * np.array(3, dtype=dtype), before)
    assert np.array_equal(base, want)


@probes
@pytest.mark.parametrize("layout", list(BROADCAST))
def test_blocks_refuse_to_write_a_broadcast_view(layout):
    x = BROADCAST[layout](_base("float64")).copy()
    x = np.lib.stride_tricks.as_strided(x, (5, 60), (0, 8), writeable=True)  # writable, yet one row 5 times
    with pytest.raises(ValueError, match=r"broadcast view .*stride 0.*Copy\(\)"):
        N._gofunc_blocks_scale(x, 2)


# The kit loops of make bench row 15 (internal/builtins/loops.go: ReadBlocks,
# ReadRows and the typed kernels, in every module, not probes) give numpy's
# answers over the same layouts, float64.
@pytest.mark.parametrize("layout", list(LAYOUTS) + list(BROADCAST))
def test_bench_loops_give_numpys_sum_variance_and_column_mean(layout):
    x = {**LAYOUTS, **BROADCAST}[layout](np.random.default_rng(37).random((40, 60)))
    np.testing.assert_allclose(N._bench_sum(x), x.sum(), rtol=1e-12)
    if x.size:
        np.testing.assert_allclose(N._bench_var(x), x.var(), rtol=1e-12)
    if x.ndim == 2:
        with np.errstate(invalid="ignore", divide="ignore"):
            want = x.mean(0) if x.shape[0] else np.full(x.shape[1], np.nan)
        np.testing.assert_allclose(np.asarray(N._bench_colmean(x)), want, rtol=1e-12)


# core.MapBlocks through the probe _gofunc_map_axpy (out += alpha*x + y,
# element-wise): the inputs broadcast to out's shape as numpy's ufuncs do,
# and read as if before any write where they overlap out (numpy copies
# them): numpy's np.add(out, alpha*x + y, out=out) on copies gives the
# answer, and out's base changes at out's elements only.
MAP_CASES = {
    # name: (base shape, out view, x view, y view), views of one shared base
    "contiguous": ((40, 60), lambda b: b[:20], lambda b: b[20:], lambda b: b[20:]),
    "transposed out": ((40, 60), lambda b: b[:30, :30].T, lambda b: b[10:, 30:][::-1], lambda b: b[35, :30]),
    "broadcast row and column": ((40, 60), lambda b: b[:10], lambda b: b[20], lambda b: b[30:40, 5:6]),
    "0-d input": ((40, 60), lambda b: b[::3, ::2], lambda b: b[39, 59, ...], lambda b: b[5, :30]),
    "negative out": ((40, 60), lambda b: b[19::-1, ::-1], lambda b: b[20:], lambda b: b[21]),
    "long strided run": ((30000,), lambda b: b[:18000:2], lambda b: b[18000:27000], lambda b: b[29000:29001]),
    "in place": ((40, 60), lambda b: b[:, :30], lambda b: b[:, :30], lambda b: b[0, 30:]),
    "overlap shifted": ((8000,), lambda b: b[1:], lambda b: b[:-1], lambda b: b[5:6]),
    "overlap reversed": ((40, 60), lambda b: b, lambda b: b[::-1, ::-1], lambda b: b[0]),
    "overlap interleaved": ((20000,), lambda b: b[::2], lambda b: b[1::2], lambda b: b[:10000]),
    "0-d": ((40, 60), lambda b: b[3, 4, ...], lambda b: b[5, 6, ...], lambda b: b[7, 8, ...]),
    "empty": ((40, 60), lambda b: b[:, 5:5], lambda b: b[0, 5:5], lambda b: b[:, :1]),
}


@probes
@pytest.mark.parametrize("case", list(MAP_CASES))
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_map_blocks_is_numpys_broadcast_with_inputs_read_first(dtype, case):
    shape, of_out, of_x, of_y = MAP_CASES[case]
    base = (np.arange(int(np.prod(shape))) % 97 - 40).astype(dtype).reshape(shape)
    want = base.copy()
    out_w = of_out(want)
    np.add(out_w, 3 * of_x(base).copy() + of_y(base).copy(), out=out_w)  # inputs read before out is written
    out = of_out(base)
    assert (np.shares_memory(out, base) or out.size == 0) and out.shape == out_w.shape
    N._gofunc_map_axpy(out, of_x(base), of_y(base), 3)
    np.testing.assert_array_equal(base, want)


@probes
def test_map_blocks_refuses_what_does_not_broadcast_and_read_only_out():
    out = np.zeros((4, 5))
    with pytest.raises(ValueError, match=r"input 0 of shape \(4,\) does not broadcast to out's shape \(4,5\)"):
        N._gofunc_map_axpy(out, np.ones(4), np.ones(5), 1)
    ro = np.zeros((4, 5))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only"):
        N._gofunc_map_axpy(ro, np.ones(5), np.ones(5), 1)


_CHECKED_CHILD = """
import sys
import numpy as np
from godlpack import _native as N
b = (np.arange(2400) % 100).astype("float64").reshape(40, 60)
views = [b, b.T, b[::-1, ::-3], b[:, 7], np.broadcast_to(b[0], (7, 60))]
print("sums", all(N._gofunc_blocks_sum(v)[0] == float(v.sum()) for v in views))
for v in (b.copy(), b.T.copy().T[::2]):
    want = v * 3
    N._gofunc_blocks_scale(v, 3)
    print("scale", bool((v == want).all()))
out = b[:20].copy()
want = out + 2 * b[20:] + b[0]
N._gofunc_map_axpy(out, b[20:], b[0], 2)
print("map", bool((out == want).all()))
v = b if sys.argv[1] == "own" else b.T  # the array's own memory; gathered runs of 40
N._gofunc_keep_block(v)
try:
    N._gofunc_keep_block(v)
    print("kept", "not caught")
except RuntimeError as e:
    print("kept", e)
"""


@probes
@pytest.mark.parametrize("block", ["own", "gathered"])
@pytest.mark.parametrize("checked", ["1", ""])
def test_a_block_kept_past_its_call_is_caught_when_blocks_are_checked(checked, block):
    """GODLPACK_CHECK_BLOCKS=1 leaves every loop's values and write-back as
    they are, and turns a block kept past its call (the array's own memory,
    or a gathered block) into a RuntimeError naming the function."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "GODLPACK_CHECK_BLOCKS": checked}
    out = subprocess.run([sys.executable, "-c", _CHECKED_CHILD, block], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[:4] == ["sums True", "scale True", "scale True", "map True"], out.stdout
    assert len(lines) == 5, out.stdout
    if checked:
        assert "_gofunc_keep_block(): the Go function" in lines[4], lines[4]
        assert "used a block of core.Blocks, ReadBlocks or MapBlocks after its step" in lines[4], lines[4]
    else:
        assert lines[4] == "kept not caught"
