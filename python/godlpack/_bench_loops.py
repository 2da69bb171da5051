"""Row 15 of ``python -m godlpack bench`` (group "gofunc"): kit loops written
the way docs/go.md shows (core.ReadBlocks, core.ReadRows and the typed
kernels: internal/builtins/loops.go) against the loops a numba user writes
for the same answer, on the same ndarrays, interleaved:

  15 the sum of 1e6 contiguous float64 <= 1.1x; the column mean of a.T
     (a 1000x1000 C array: every column contiguous) <= 1.3x; the variance
     of a strided column (b[:, 1] of a 1e6x4 C array) <= 1.5x. numpy's own
     calls beside each as info rows. --quick: a tenth of the sizes.

numba comes from requirements-bench.txt; without it the rows say so.
"""

from __future__ import annotations

import importlib
from typing import Any

from . import _native

_NUMBA = '''
import numba, numpy as np

@numba.njit(cache=False)
def nb_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s

@numba.njit(cache=False)
def nb_colmean(x):
    n, m = x.shape
    out = np.empty(m)
    for j in range(m):
        s = 0.0
        for i in range(n):
            s += x[i, j]
        out[j] = s / n
    return out

@numba.njit(cache=False)
def nb_var(x):
    n = x.shape[0]
    s = 0.0
    for i in range(n):
        s += x[i]
    mean = s / n
    v = 0.0
    for i in range(n):
        d = x[i] - mean
        v += d * d
    return v / n
'''


def loops(bench: Any, np: Any) -> None:
    from ._bench import interleaved

    # (what, the array's name, numba's function, godlpack's, numpy's call, target)
    rows = [("sum of 1e6 contiguous float64", "v", "nb_sum", "go_sum", "v.sum()", 1.1),
            ("column mean of a.T, 1000x1000 float64", "t", "nb_colmean", "go_colmean", "t.mean(0)", 1.3),
            ("variance of a strided column, 1e6 float64", "c", "nb_var", "go_var", "c.var()", 1.5)]
    try:
        importlib.import_module("numba")
    except ImportError:
        for what, *_ in rows:
            bench.note("15", f"Go kit loop: {what}", "numba not installed (requirements-bench.txt)")
        return
    env: dict[str, Any] = {"go_sum": _native._bench_sum, "go_colmean": _native._bench_colmean,
                           "go_var": _native._bench_var}
    exec(_NUMBA, env)  # the numba side, as a user writes it
    scale = 10 if bench.quick else 1
    rng = np.random.default_rng(15)
    side = 1000 // (3 if bench.quick else 1)
    env.update(v=rng.random(1_000_000 // scale), t=rng.random((side, side)).T,
               c=rng.random((1_000_000 // scale, 4))[:, 1])
    for what, x, nb, go, _, _ in rows:  # compiled, and the answers agree, before any timing
        want, got = env[nb](env[x]), np.asarray(env[go](env[x]))
        if not np.allclose(got, want, rtol=1e-9):
            raise AssertionError(f"bench row 15, {what}: the Go loop gave {got!r}, numba {want!r}")
    stmts = [s for _, x, nb, go, npy, _ in rows for s in (f"{go}({x})", f"{nb}({x})", npy)]
    res = interleaved(stmts, env, 5 if bench.quick else 15, bench.batch_s)
    for k, (what, *_, target) in enumerate(rows):
        go_t, nb_t, np_t = res[3 * k:3 * k + 3]
        bench.add("15", f"Go kit loop: {what}", go_t, nb_t, "numba @njit loop", target)
        bench.add("i", f"numpy: {what}", np_t, nb_t, "numba @njit loop", None)
