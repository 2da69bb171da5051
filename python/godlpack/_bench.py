"""``python -m godlpack bench [--quick] [exchange] [copy] [reduce] [convert] [gofunc] [oneapi] [startup] [pydata]
[kits]``:
godlpack against numpy and torch (all groups of rows unless some are named).

Every row times godlpack and a reference in the SAME run, interleaved: each
round times every candidate once (a batch of calls, order rotated per round),
and the printed ratio is the median over rounds of (godlpack / reference),
with the median absolute times beside it. Targets are goals, not assertions:
the script prints PASS or MISS per row and always exits 0 unless it fails to
run. ``--quick`` is a smoke run (a few seconds, small sizes) for CI; its
figures mean nothing.

Rows:
  1  np.from_dlpack(gd array)      vs np.from_dlpack(np array)     <= 1.3x
  2  gd.from_dlpack(np array)      vs np.from_dlpack(np array)     <= 1.3x
  3  torch.from_dlpack(gd array)   vs torch.from_dlpack(np array)  <= 1.0x
  4  gd.from_dlpack(torch tensor)  vs np.from_dlpack(torch tensor) <= 0.5x
     (rows 1-4: 16 float64 elements; the array dies at once, so the
     deleter is timed too)
  6  Array.copy(), from_dlpack(copy=True) of 256 MiB contiguous float64
     vs ndarray.copy() <= 1.1x; a.T.copy() of 4096x4096 float64 vs
     np.ascontiguousarray(n.T) <= 0.7x
  8  a.sum() and a.max() of float64 arrays of 1e6 and 1e8 elements,
     contiguous and stride 3 (a[::3] of 3e6 / 3e8 elements), vs the same
     numpy calls on the same memory <= 1.0x; a[::3].copy() of 1e6 elements
     vs numpy's <= 1.0x (--quick: 1e5 elements only)
  9  a.astype(float32) of float64, astype(float64) of int64, astype(bfloat16)
     of float32 (ml_dtypes on the numpy side), 1e6 and 1e8 elements, vs
     ndarray.astype <= 1.5x; gd.asarray(list) of 2e5 Python ints and of 2e5
     floats vs np.asarray <= 1.5x (group "convert"; --quick: 1e6 and 2e4)
  11 oneAPI (group "oneapi", skipped with a note without dpnp or a SYCL
     device): gd.from_dlpack(dpnp array) and dpnp.from_dlpack(gd array on
     the device) vs dpnp.from_dlpack(dpnp array) <= 1.0x per call; 256 MiB
     float64 host -> device (a.to_device("oneapi:N") vs dpnp.asarray(n,
     device=...)) and device -> host (d.to_device("cpu") vs dpnp.asnumpy)
     >= 0.9x dpctl's throughput (time <= 1/0.9x)
  7  `import godlpack` in a fresh interpreter adds <= 10 ms to its start
     (fastest wall time of `python -c "import godlpack"` minus the fastest
     of `python -c "pass"`), and after numpy <= 5 ms (`python -c "import
     numpy, godlpack"` minus `python -c "import numpy"`); all interleaved,
     the median paired difference and -X importtime beside each; the
     extension is stripped and exports PyInit__native and Go's symbols,
     which kits' Go plugins bind to, but none of the C skin's (read from
     its ELF tables).
 12  the PyData stack (group "pydata"): np.asarray(a) of 16 float64 vs
     np.asarray(ndarray) <= 1.5x (info rows: np.asarray of a memoryview and
     of an ndarray subclass, numpy's own cost for objects that are not
     exactly an ndarray); pa.array(a) and pl.Series(a) of 16 float64 vs
     the same of an ndarray <= 1.2x; pickle.loads protocol 5 of 64 MiB with a
     read-only out-of-band buffer vs numpy's <= 2x; ray.get of 256 MiB vs
     numpy's <= 1.5x; 256 MiB through a Dask LocalCluster of 2 processes
     (scatter, an identity task, result) vs numpy's <= 1.1x; joblib's loky
     backend, 32 tasks over one 64 MiB array (memory-mapped once) vs numpy's
     <= 1.5x (the last three not under --quick; 9 rounds each)
 10  a registered Go function (the extension kit, group "gofunc") called with
     one array of 16 float64 returning a float, godlpack._native._bench_call,
     against what a user would pick instead: a numba @njit function of the
     same work (its element count) on the same ndarray, the default call
     (the GIL released) <= 1.8x and the same probe registered gofunc.Quick()
     (the GIL held) <= 1.2x (numba from requirements-bench.txt; without it
     the rows say so). Info rows: np.add.reduce of the array, the calls with
     a torch tensor and a gd.Array, gd.from_dlpack(ndarray), and
     _bench_floor: an empty Go export called with the GIL released, the
     least any such call pays, alone and right after gd.from_dlpack.
 13  a Go stencil over strided views (group "gofunc"): _bench_box3, a 3x3
     box mean written with core.ReadRows (internal/builtins/stencil.go),
     on a 1500x1500 float64 crop of a bigger image (rows of another stride)
     vs the same function on the contiguous copy <= 1.5x; on a transposed
     view (each row gathered) and numpy's nine-slice box on the contiguous
     image as info rows.
 15  kit loops vs numba (group "gofunc", godlpack/_bench_loops.py): the sum
     of 1e6 float64 <= 1.1x, the column mean of a.T 1000x1000 <= 1.3x, the
     variance of a strided column of 1e6 <= 1.5x numba's @njit loops.
 14  Go kits (group "kits", godlpack/_bench_kits.py): `import KIT` of a
     prebuilt kit over `import godlpack` <= 150 ms; an editable kit's
     edit -> call <= 5 s.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import timeit
from typing import Any
from collections.abc import Callable, Sequence

import godlpack as gd
from godlpack import _native

Result = tuple[str, str, str, str, str, str]  # row, what, ratio, times, target, verdict


def _fmt_t(s: float) -> str:
    if s < 1e-6:
        return f"{s * 1e9:.0f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.1f} µs"
    if s < 1.0:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def _calibrate(t: timeit.Timer, target_s: float) -> int:
    n = 1
    while True:
        dt = t.timeit(n)
        if dt >= target_s or n >= 1 << 22:
            return n
        n = max(n * 2, int(n * target_s / max(dt, 1e-9) * 1.2))


def interleaved(stmts: Sequence[str], env: dict[str, Any], rounds: int, batch_s: float,
                setup: Callable[[], None] | None = None) -> list[list[float]]:
    """Seconds per call of each statement, one list per statement, rounds long."""
    timers = [timeit.Timer(s, globals=env) for s in stmts]
    for t in timers:  # first calls start Go threads, fault pages in, fill caches
        t.timeit(3)
    ns = [_calibrate(t, batch_s) for t in timers]
    out: list[list[float]] = [[] for _ in stmts]
    for r in range(rounds):
        # rotated, and reversed every other round: a rotation alone keeps each
        # statement right before its reference, which then finds the shared
        # data in cache (godlpack then ran first, on colder memory, in most rounds)
        order = list(range(len(stmts)))
        k = (r // 2) % len(order)
        order = order[k:] + order[:k]
        if r % 2:
            order.reverse()
        for i in order:
            if setup is not None:
                setup()
            timers[i].timeit(1)  # untimed: each batch starts with its data as warm as the others'
            out[i].append(timers[i].timeit(ns[i]) / ns[i])
    return out


def _ratio(ours: list[float], ref: list[float]) -> float:
    return statistics.median(a / b for a, b in zip(ours, ref))


def _verdict(ratio: float, target: float, quick: bool) -> str:
    v = "PASS" if ratio <= target else "MISS"
    return v + (" (quick)" if quick else "")


class Bench:
    def __init__(self, quick: bool) -> None:
        self.quick = quick
        self.rounds = 5 if quick else 31
        self.batch_s = 0.002 if quick else 0.02
        self.results: list[Result] = []

    def add(self, row: str, what: str, ours: list[float], ref: list[float], ref_name: str,
            target: float | None) -> None:
        r = _ratio(ours, ref)
        times = f"{_fmt_t(statistics.median(ours))} vs {_fmt_t(statistics.median(ref))} ({ref_name})"
        tgt = f"<= {target:.1f}x" if target is not None else "-"
        v = _verdict(r, target, self.quick) if target is not None else "info"
        self.results.append((row, what, f"{r:.2f}x", times, tgt, v))

    def note(self, row: str, what: str, why: str) -> None:
        self.results.append((row, what, "-", why, "-", "n/a"))

    # ---- rows 1-4: small exchanges ---------------------------------------

    def exchanges(self, np: Any, torch: Any) -> None:
        a = gd.arange(16, dtype="float64")
        n = np.arange(16, dtype=np.float64)
        env: dict[str, Any] = {"np": np, "gd": gd, "a": a, "n": n, "torch": torch}
        if torch is not None:
            env["t"] = torch.arange(16, dtype=torch.float64)
        stmts = ["np.from_dlpack(a)", "np.from_dlpack(n)", "gd.from_dlpack(n)",
                 "a.__dlpack__(max_version=(1, 3))", "n.__dlpack__(max_version=(1, 3))",
                 "gd.from_dlpack(a)"]
        if torch is not None:
            stmts += ["torch.from_dlpack(a)", "torch.from_dlpack(n)", "gd.from_dlpack(t)", "np.from_dlpack(t)"]
        res = dict(zip(stmts, interleaved(stmts, env, self.rounds, self.batch_s)))
        self.add("1", "np.from_dlpack(gd.Array)", res["np.from_dlpack(a)"], res["np.from_dlpack(n)"],
                 "np.from_dlpack(ndarray)", 1.3)
        self.add("2", "gd.from_dlpack(ndarray)", res["gd.from_dlpack(n)"], res["np.from_dlpack(n)"],
                 "np.from_dlpack(ndarray)", 1.3)
        if torch is not None:
            self.add("3", "torch.from_dlpack(gd.Array)", res["torch.from_dlpack(a)"], res["torch.from_dlpack(n)"],
                     "torch.from_dlpack(ndarray)", 1.0)
            self.add("4", "gd.from_dlpack(torch.Tensor)", res["gd.from_dlpack(t)"], res["np.from_dlpack(t)"],
                     "np.from_dlpack(Tensor)", 0.5)
        else:
            self.note("3", "torch.from_dlpack(gd.Array)", "torch not installed")
            self.note("4", "gd.from_dlpack(torch.Tensor)", "torch not installed")
        self.add("i", "Array.__dlpack__(max_version=(1, 3))", res["a.__dlpack__(max_version=(1, 3))"],
                 res["n.__dlpack__(max_version=(1, 3))"], "ndarray.__dlpack__", None)
        self.add("i", "gd.from_dlpack(gd.Array) (C exchange API)", res["gd.from_dlpack(a)"],
                 res["np.from_dlpack(n)"], "np.from_dlpack(ndarray)", None)

    # ---- row 10: a registered Go function (the extension kit) ----------------

    def gofuncs(self, np: Any, torch: Any) -> None:
        n = np.arange(16, dtype=np.float64)
        env: dict[str, Any] = {"gd": gd, "n": n, "probe": _native._bench_call, "a": gd.from_dlpack(n),
                               "quick": _native._bench_call_quick, "floor": _native._bench_floor,
                               "add": np.add}
        stmts = ["probe(n)", "quick(n)", "gd.from_dlpack(n)", "probe(a)", "floor(n)", "floor(gd.from_dlpack(n))",
                 "add.reduce(n)", "floor(True)"]
        import importlib

        numba: Any = None
        try:  # requirements-bench.txt; by name, so that type checkers need no numba
            numba = importlib.import_module("numba")
        except ImportError:
            pass
        if numba is not None:
            env["nb"] = numba.njit(lambda x: float(x.size))
            env["nb"](n)  # compiled before the rounds
            stmts.append("nb(n)")
        if torch is not None:
            env["t"] = torch.arange(16, dtype=torch.float64)
            stmts += ["probe(t)", "gd.from_dlpack(t)", "quick(t)", "floor(gd.from_dlpack(t))"]
        res = dict(zip(stmts, interleaved(stmts, env, self.rounds, self.batch_s)))
        if numba is not None:
            self.add("10", "Go function(ndarray) -> float", res["probe(n)"], res["nb(n)"], "numba @njit(ndarray)", 1.8)
            self.add("10", "Quick Go function(ndarray) -> float", res["quick(n)"], res["nb(n)"],
                     "numba @njit(ndarray)", 1.2)
            self.add("i", "np.add.reduce(ndarray)", res["add.reduce(n)"], res["nb(n)"], "numba @njit(ndarray)", None)
            # what is left of a call with nothing to do: row 10's floors
            self.add("i", "empty Go call, GIL released (default's floor)", res["floor(n)"], res["nb(n)"],
                     "numba @njit(ndarray)", None)
            self.add("i", "empty Go call, GIL held (Quick's floor)", res["floor(True)"], res["nb(n)"],
                     "numba @njit(ndarray)", None)
        else:
            self.note("10", "Go function(ndarray) -> float", "numba not installed (requirements-bench.txt)")
            self.note("10", "Quick Go function(ndarray) -> float", "numba not installed (requirements-bench.txt)")
        self.add("i", "Go function(ndarray) -> float", res["probe(n)"], res["gd.from_dlpack(n)"],
                 "gd.from_dlpack(ndarray)", None)
        if torch is not None:
            self.add("i", "Go function(torch.Tensor) -> float", res["probe(t)"], res["gd.from_dlpack(t)"],
                     "gd.from_dlpack(Tensor)", None)
        self.add("i", "Go function(gd.Array) -> float", res["probe(a)"], res["gd.from_dlpack(n)"],
                 "gd.from_dlpack(ndarray)", None)
        self.add("i", "empty Go call, GIL released (the floor)", res["floor(n)"], res["gd.from_dlpack(n)"],
                 "gd.from_dlpack(ndarray)", None)
        # The floor right after an import: a Go call made just after the
        # producer's export costs more than the same call alone.
        self.add("i", "floor(gd.from_dlpack(ndarray))", res["floor(gd.from_dlpack(n))"], res["gd.from_dlpack(n)"],
                 "gd.from_dlpack(ndarray)", None)
        if torch is not None:
            self.add("i", "floor(gd.from_dlpack(torch.Tensor))", res["floor(gd.from_dlpack(t))"],
                     res["gd.from_dlpack(t)"], "gd.from_dlpack(Tensor)", None)
            self.add("i", "Quick Go function(torch.Tensor) -> float", res["quick(t)"], res["gd.from_dlpack(t)"],
                     "gd.from_dlpack(Tensor)", None)
        self.stencils(np)
        from . import _bench_loops

        _bench_loops.loops(self, np)

    # ---- row 13: a Go stencil over strided views -----------------------------

    def stencils(self, np: Any) -> None:
        big = np.random.default_rng(0).random((1600, 1600))
        crop = big[50:1550, 50:1550]
        c = np.ascontiguousarray(crop)
        env = {"box": _native._bench_box3, "crop": crop, "c": c, "t": np.ascontiguousarray(c.T).T}
        stmts = ["box(crop)", "box(c)", "box(t)",
                 "(c[:-2, :-2] + c[:-2, 1:-1] + c[:-2, 2:] + c[1:-1, :-2] + c[1:-1, 1:-1] + c[1:-1, 2:]"
                 " + c[2:, :-2] + c[2:, 1:-1] + c[2:, 2:]) / 9"]
        res = interleaved(stmts, env, 5 if self.quick else 11, self.batch_s)
        self.add("13", "Go 3x3 box (ReadRows) of a strided crop", res[0], res[1], "the same, contiguous", 1.5)
        self.add("i", "Go 3x3 box (ReadRows) of a transposed view", res[2], res[1], "the same, contiguous", None)
        self.add("i", "numpy's nine-slice 3x3 box", res[3], res[1], "Go 3x3 box, contiguous", None)

    # ---- row 6: copies --------------------------------------------------

    def copies(self, np: Any) -> None:
        mib = 8 if self.quick else 256
        n = np.arange(mib * (1 << 20) // 8, dtype=np.float64)
        a = gd.from_dlpack(n)
        env = {"np": np, "gd": gd, "a": a, "n": n}
        rounds = 3 if self.quick else 9
        stmts = ["a.copy()", "gd.from_dlpack(a, copy=True)", "n.copy()", "gd.from_dlpack(n, copy=True)"]
        res = interleaved(stmts, env, rounds, 0.0)
        self.add("6", f"Array.copy() {mib} MiB float64", res[0], res[2], "ndarray.copy()", 1.1)
        self.add("6", f"gd.from_dlpack(gd.Array, copy=True) {mib} MiB", res[1], res[2], "ndarray.copy()", 1.1)
        # numpy's __dlpack__(copy=True) makes this copy itself (IS_COPIED): numpy's kernel
        self.add("i", f"gd.from_dlpack(ndarray, copy=True) {mib} MiB", res[3], res[2], "ndarray.copy()", None)
        del a, n, env
        side = 512 if self.quick else 4096
        n2 = np.arange(side * side, dtype=np.float64).reshape(side, side)
        a2 = gd.from_dlpack(n2)
        env = {"np": np, "a": a2, "n": n2}
        res = interleaved(["a.T.copy()", "np.ascontiguousarray(n.T)"], env, rounds, 0.0)
        self.add("6", f"a.T.copy() {side}x{side} float64", res[0], res[1], "np.ascontiguousarray(n.T)", 0.7)

    # ---- row 8: reductions and strided copies ----------------------------------

    def reductions(self, np: Any) -> None:
        sizes = [10**5] if self.quick else [10**6, 10**8]
        rounds = 3 if self.quick else 9
        for size in sizes:
            big = size >= 10**8
            base = np.random.default_rng(0).random(3 * size)  # the same values for both
            a = gd.asarray(base)
            del base
            n = np.from_dlpack(a)
            env = {"a": a, "n": n, "ac": a[:size], "nc": n[:size], "a3": a[::3], "n3": n[::3]}
            label = f"1e{len(str(size)) - 1}"
            stmts = ["ac.sum()", "nc.sum()", "a3.sum()", "n3.sum()", "ac.max()", "nc.max()", "a3.max()", "n3.max()"]
            if not big:
                stmts += ["a3.copy()", "n3.copy()"]
            res = dict(zip(stmts, interleaved(stmts, env, rounds, 0.0 if big else self.batch_s)))
            for op in ("sum", "max"):
                self.add("8", f"a.{op}() {label} float64", res[f"ac.{op}()"], res[f"nc.{op}()"], f"ndarray.{op}()", 1.0)
                self.add("8", f"a[::3].{op}() {label} float64", res[f"a3.{op}()"], res[f"n3.{op}()"],
                         f"ndarray[::3].{op}()", 1.0)
            if not big:
                self.add("8", f"a[::3].copy() {label} float64", res["a3.copy()"], res["n3.copy()"],
                         "ndarray[::3].copy()", 1.0)
            del a, n, env

    # ---- row 12: the PyData stack ---------------------------------------

    def pydata(self, np: Any) -> None:
        import pickle

        a, x = gd.arange(16.0), np.arange(16.0)

        sub = type("Sub", (np.ndarray,), {})
        views = {"np": np, "a": a, "x": x, "m": memoryview(x), "s": x.view(sub)}
        t = interleaved(["np.asarray(a)", "np.asarray(x)", "np.asarray(m)", "np.asarray(s)"], views, self.rounds,
                        self.batch_s)
        self.add("12", "np.asarray(a), 16 float64", t[0], t[1], "np.asarray(ndarray)", 1.5)
        # what numpy itself pays for objects that are not exactly an ndarray
        self.add("i", "np.asarray(memoryview of an ndarray)", t[2], t[1], "np.asarray(ndarray)", None)
        self.add("i", "np.asarray(ndarray subclass)", t[3], t[1], "np.asarray(ndarray)", None)
        self._arrow(np)
        n = (1 << 20) if self.quick else (8 << 20)  # 64 MiB of float64
        env: dict[str, Any] = {"pickle": pickle}
        for name, arr in (("gd", gd.arange(n, dtype="float64")), ("np", np.arange(n, dtype="float64"))):
            bufs: list[Any] = []
            env[name] = pickle.dumps(arr, protocol=5, buffer_callback=bufs.append)
            env[name + "_bufs"] = [memoryview(b.raw()).toreadonly() for b in bufs]
            env[name + "_keep"] = arr
        t = interleaved(["pickle.loads(gd, buffers=gd_bufs)", "pickle.loads(np, buffers=np_bufs)"], env,
                        self.rounds, self.batch_s)
        self.add("12", f"pickle.loads protocol 5, read-only buffer, {n * 8 >> 20} MiB", t[0], t[1],
                 "numpy's", 2.0)
        if self.quick:
            self.note("12", "Dask LocalCluster and ray.get of 256 MiB", "not in --quick (cluster start-up)")
            return
        big = 32 << 20  # 256 MiB of float64
        self._ray(np, big)
        self._dask(np, big)
        self._joblib(np, 8 << 20)

    def _arrow(self, np: Any) -> None:
        """pa.array(a) and pl.Series(a) through the Arrow PyCapsule interface,
        against the same of numpy's array (both zero-copy)."""
        env: dict[str, Any] = {"a": gd.arange(16.0), "x": np.arange(16.0)}
        for lib, call in (("pyarrow", "pa.array"), ("polars", "pl.Series")):
            try:
                env[call.split(".")[0]] = __import__(lib)
            except ImportError:
                self.note("12", f"{call}(a), 16 float64", f"{lib} is not installed")
                continue
            t = interleaved([f"{call}(a)", f"{call}(x)"], env, self.rounds, self.batch_s)
            self.add("12", f"{call}(a), 16 float64 (Arrow C data interface)", t[0], t[1], f"{call}(ndarray)", 1.2)

    def _ray(self, np: Any, n: int) -> None:
        try:
            import ray
        except ImportError:
            self.note("12", "ray.get of 256 MiB", "ray is not installed")
            return
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
        try:
            env = {"ray": ray, "g": ray.put(gd.arange(n, dtype="float64")), "x": ray.put(np.arange(n, dtype="float64"))}
            t = interleaved(["ray.get(g)", "ray.get(x)"], env, 9, self.batch_s)
            self.add("12", "ray.get of 256 MiB (zero-copy, read-only)", t[0], t[1], "ray.get(ndarray)", 1.5)
        finally:
            ray.shutdown()

    def _dask(self, np: Any, n: int) -> None:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            self.note("12", "Dask LocalCluster of 256 MiB", "distributed is not installed")
            return
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None) as cl, Client(cl) as c:
            env = {"c": c, "g": gd.arange(n, dtype="float64"), "x": np.arange(n, dtype="float64"),
                   "ident": _identity}
            stmt = "c.submit(ident, c.scatter({}, hash=False), pure=False).result()"
            t = interleaved([stmt.format("g"), stmt.format("x")], env, 9, self.batch_s)
            self.add("12", "Dask LocalCluster: scatter + identity task + result, 256 MiB", t[0], t[1],
                     "the same with an ndarray", 1.1)

    def _joblib(self, np: Any, n: int) -> None:
        try:
            from joblib import Parallel, delayed  # type: ignore[import-untyped]
        except ImportError:
            self.note("12", "joblib, 32 tasks over one 64 MiB array", "joblib is not installed")
            return

        def run(x: Any) -> Any:
            return Parallel(n_jobs=2, backend="loky", max_nbytes="1M")(delayed(_nbytes)(x) for _ in range(32))

        env = {"run": run, "g": gd.arange(n, dtype="float64"), "x": np.arange(n, dtype="float64")}
        t = interleaved(["run(g)", "run(x)"], env, 9, self.batch_s)
        self.add("12", f"joblib loky: 32 tasks over one {n * 8 >> 20} MiB array (memory-mapped once)", t[0], t[1],
                 "the same with an ndarray", 1.5)

    # ---- row 9: conversions -------------------------------------------

    def conversions(self, np: Any) -> None:
        try:
            import ml_dtypes
        except ImportError:
            ml_dtypes = None  # type: ignore[assignment]
        sizes = [10**6] if self.quick else [10**6, 10**8]
        for size in sizes:
            big = size >= 10**8
            rounds = 3 if self.quick or big else 15
            cases = [("float64", "float32", np.float32), ("int64", "float64", np.float64)]
            if ml_dtypes is not None:
                cases.append(("float32", "bfloat16", ml_dtypes.bfloat16))
            for src, dst, ndst in cases:
                n = (np.arange(size) * 1.37).astype(src)
                a = gd.from_dlpack(n)
                env = {"a": a, "n": n, "dst": dst, "ndst": ndst}
                res = interleaved(["a.astype(dst)", "n.astype(ndst)"], env, rounds, 0.0 if big else self.batch_s)
                self.add("9", f"astype {src} -> {dst}, {size:.0e} elements", res[0], res[1], "ndarray.astype", 1.5)
                del a, n, env
            if ml_dtypes is None:
                self.note("9", "astype float32 -> bfloat16", "ml_dtypes not installed")
        count = 2 * 10**4 if self.quick else 2 * 10**5
        for kind, items in (("ints", list(range(count))), ("floats", [i * 0.5 for i in range(count)])):
            env = {"np": np, "gd": gd, "items": items}
            res = interleaved(["gd.asarray(items)", "np.asarray(items)"], env, self.rounds, self.batch_s)
            self.add("9", f"gd.asarray(list of {count:.0e} Python {kind})", res[0], res[1], "np.asarray", 1.5)

    # ---- row 11: oneAPI exchanges and host <-> device copies ----------------

    def oneapi(self, np: Any) -> None:
        lib = os.path.join(sys.prefix, "lib", "libintelocl.so")
        if os.path.exists(lib):  # the Intel OpenCL CPU runtime of the dpctl wheels (Makefile, tests_py/_dpenv.py)
            os.environ.setdefault("OCL_ICD_FILENAMES", lib)
        try:
            import dpctl
            import dpnp
        except Exception as e:  # ImportError, or a broken SYCL install
            self.note("11", "oneAPI exchanges and copies", f"dpnp not importable ({type(e).__name__})")
            return
        try:
            dev = dpctl.SyclDevice()
        except Exception:
            self.note("11", "oneAPI exchanges and copies", "no SYCL device (set OCL_ICD_FILENAMES)")
            return
        where = f"oneapi:{dev.get_device_id()}"
        x = dpnp.arange(16, dtype="float64", device=dev)
        g = gd.arange(16, dtype="float64").to_device(where)
        env: dict[str, Any] = {"gd": gd, "dpnp": dpnp, "x": x, "g": g}
        stmts = ["gd.from_dlpack(x)", "dpnp.from_dlpack(g)", "dpnp.from_dlpack(x)"]
        res = interleaved(stmts, env, self.rounds, self.batch_s)
        self.add("11", "gd.from_dlpack(dpnp array) on the device", res[0], res[2], "dpnp.from_dlpack(dpnp)", 1.0)
        self.add("11", f"dpnp.from_dlpack(gd.Array on {where})", res[1], res[2], "dpnp.from_dlpack(dpnp)", 1.0)
        mib = 8 if self.quick else 256
        n = np.arange(mib * (1 << 20) // 8, dtype=np.float64)
        h = gd.from_dlpack(n)
        d = h.to_device(where)
        y = dpnp.asarray(n, device=dev)
        env = {"gd": gd, "dpnp": dpnp, "n": n, "h": h, "d": d, "y": y, "dev": dev, "where": where}
        rounds = 3 if self.quick else 9
        stmts = ["h.to_device(where)", "dpnp.asarray(n, device=dev)", "d.to_device('cpu')", "dpnp.asnumpy(y)"]
        res = interleaved(stmts, env, rounds, 0.0)
        self.add("11", f"host -> {where} {mib} MiB (>= 0.9x throughput)", res[0], res[1],
                 "dpnp.asarray(ndarray, device=)", 1 / 0.9)
        self.add("11", f"{where} -> host {mib} MiB (>= 0.9x throughput)", res[2], res[3], "dpnp.asnumpy", 1 / 0.9)

    # ---- row 7: import time and the shared object ----------------------------

    def startup(self) -> None:
        py = sys.executable
        pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(gd.__file__)))
        env = dict(os.environ)
        env["PYTHONPATH"] = pkg_parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        # Installed packages import from cached bytecode: allow it, and warm it.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        bare = [py, "-c", "pass"]
        alone = [py, "-c", "import godlpack"]
        base = [py, "-c", "import numpy"]
        ours = [py, "-c", "import numpy, godlpack"]
        runs = 3 if self.quick else 31
        # The floor any Go extension pays: an empty c-shared Go library (one
        # no-op export) loaded and called after numpy (which imports ctypes
        # itself), timed in the same interleaved rounds.
        tmp = None if self.quick else tempfile.TemporaryDirectory(prefix="godlpack-bench-")
        floor = _empty_go_library(tmp.name) if tmp is not None else None
        empty = [py, "-c", f"import numpy, ctypes; ctypes.CDLL({floor!r}).Nop()"] if floor else None
        cmds = [bare, alone, base, ours] + ([empty] if empty else [])
        times: list[list[float]] = [[] for _ in cmds]
        # -X importtime's cumulative figure for godlpack, alone and after numpy
        cum: tuple[list[float], list[float]] = ([], [])
        timer = timeit.default_timer
        for cmd in cmds:
            subprocess.run(cmd, env=env, check=True)
        for i in range(runs):
            order = list(range(len(cmds)))
            k = i % len(order)
            for j in order[k:] + order[:k]:
                t0 = timer()
                subprocess.run(cmds[j], env=env, check=True)
                times[j].append(timer() - t0)
            for code, acc in (("import godlpack", cum[0]), ("import numpy, godlpack", cum[1])):
                p = subprocess.run([py, "-X", "importtime", "-c", code], env=env, check=True,
                                   capture_output=True, text=True)
                for line in p.stderr.splitlines():
                    parts = [x.strip() for x in line.split("|")]
                    if len(parts) == 3 and parts[2] == "godlpack":
                        acc.append(int(parts[1]) / 1e6)

        # Start-up noise only adds time: the difference of the fastest runs is
        # the robust estimate; the median of paired differences is shown too.
        def row(what: str, ti: int, ri: int, ref: str, acc: list[float] | None, target_ms: float | None) -> None:
            t, r = times[ti], times[ri]
            d = min(t) - min(r)
            paired = statistics.median(a - b for a, b in zip(t, r))
            extra = f", -X importtime {_fmt_t(min(acc))}" if acc else ""
            self.results.append((
                "i" if target_ms is None else "7", what, f"{d * 1e3:+.1f} ms",
                f"min {_fmt_t(min(t))} vs {_fmt_t(min(r))} ({ref}), median paired {paired * 1e3:+.1f} ms{extra}",
                "-" if target_ms is None else f"<= {target_ms:.0f} ms",
                "info" if target_ms is None else _verdict(d * 1e3, target_ms, self.quick)))

        row("python -c 'import godlpack' (fresh interpreter)", 1, 0, "python -c 'pass'", cum[0], 10.0)
        row("python -c 'import numpy, godlpack'", 3, 2, "python -c 'import numpy'", cum[1], 5.0)
        if empty:
            row("empty Go c-shared library (Go's floor)", 4, 2, "python -c 'import numpy'", None, None)
        elif not self.quick:
            self.note("i", "empty Go c-shared library (Go's floor)", "no Go toolchain to build it")
        if tmp is not None:
            tmp.cleanup()
        so = _native.__file__
        info = elf_info(so)
        what = "extension stripped, exports PyInit__native and Go's symbols (kit plugins bind to them), no C"
        if info is None:
            self.note("7", what, "not an ELF64 file")
            return
        stripped, exports = info
        inits = [e for e in exports if e.startswith("PyInit_")]
        skin = [e for e in exports if e.startswith("gd_")]
        go = sum(1 for e in exports if "." in e)
        ok = stripped and inits == ["PyInit__native"] and not skin and go > 0
        size = os.path.getsize(so) / (1 << 20)
        self.results.append(("7", what, "-",
                             f"{size:.1f} MiB, {'stripped' if stripped else 'NOT stripped'}, exports "
                             f"{', '.join(inits) or 'no PyInit'}, {go} Go symbols, {len(skin)} of the C skin",
                             "stripped, Go's + PyInit only", "PASS" if ok else "MISS"))

    def print(self) -> None:
        head = ("row", "what", "ratio", "median times (godlpack vs reference)", "target", "")
        rows = [head, *self.results]
        w = [max(len(r[i]) for r in rows) for i in range(6)]
        for k, r in enumerate(rows):
            print("  ".join(c.rjust(w[i]) if i == 2 else c.ljust(w[i]) for i, c in enumerate(r)).rstrip())
            if k == 0:
                print("  ".join("-" * w[i] for i in range(6)).rstrip())


def _empty_go_library(d: str) -> str | None:
    """Builds a c-shared Go library with one no-op export in d; None when
    no Go toolchain is found or the build fails."""
    go = shutil.which("go")
    if go is None:
        return None
    with open(os.path.join(d, "go.mod"), "w") as f:
        f.write("module emptygo\n\ngo 1.21\n")
    with open(os.path.join(d, "main.go"), "w") as f:
        f.write('package main\n\nimport "C"\n\n//export Nop\nfunc Nop() {}\n\nfunc main() {}\n')
    lib = os.path.join(d, "libempty.so")
    r = subprocess.run([go, "build", "-buildmode=c-shared", "-trimpath", "-ldflags=-s -w", "-o", lib, "."],
                       cwd=d, capture_output=True, text=True)
    return lib if r.returncode == 0 and os.path.exists(lib) else None


def elf_info(path: str) -> tuple[bool, list[str]] | None:
    """(stripped, defined global dynamic symbols) of an ELF64 shared object
    (godlpack/_elf.py), or None."""
    from . import _elf

    return _elf.info(path)


def _identity(v: Any) -> Any:
    return v


def _nbytes(v: Any) -> int:
    return int(v.nbytes)


def main(argv: list[str]) -> int:
    quick = "--quick" in argv or os.environ.get("BENCH_QUICK") not in (None, "", "0")
    groups = {"exchange", "copy", "reduce", "convert", "startup", "gofunc", "oneapi", "pydata", "kits"}
    only = {a for a in argv if a in groups} or groups
    unknown = [a for a in argv if a != "--quick" and a not in groups]
    if unknown:
        print("usage: python -m godlpack bench [--quick] "
              "[exchange] [copy] [reduce] [convert] [gofunc] [oneapi] [startup] [pydata] [kits]",
              file=sys.stderr)
        return 2
    import numpy as np

    try:
        import torch
    except ImportError:
        torch = None  # type: ignore[assignment]
    b = Bench(quick)
    print(f"godlpack {gd.__version__} bench{' --quick (smoke run: figures are not meaningful)' if quick else ''}: "
          f"Python {sys.version.split()[0]}, numpy {np.__version__}"
          f"{', torch ' + torch.__version__ if torch is not None else ''}, {os.cpu_count()} CPUs")
    print("ratio = median over interleaved rounds of godlpack time / reference time\n")
    if "exchange" in only:
        b.exchanges(np, torch)
    if "copy" in only:
        b.copies(np)
    if "reduce" in only:
        b.reductions(np)
    if "convert" in only:
        b.conversions(np)
    if "oneapi" in only:
        b.oneapi(np)
    if "pydata" in only:
        b.pydata(np)
    if "startup" in only:
        b.startup()
    if "gofunc" in only:
        b.gofuncs(np, torch)
    if "kits" in only:
        from . import _bench_kits

        _bench_kits.kits(b)
    b.print()
    return 0
