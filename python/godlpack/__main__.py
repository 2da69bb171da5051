"""Command line: ``python -m godlpack demo``, ``python -m godlpack bench [--quick]``,
``python -m godlpack matrix``, ``python -m godlpack build-kit DIR`` and
``python -m godlpack build-ext NAME PKG... -o DIR``.

bench  godlpack against numpy and torch, measured in the same run
       (see godlpack/_bench.py).

matrix every installed DLPack library (numpy, torch, dpnp, jax, array_api_strict;
       cupy and torch CUDA where a GPU exists), both directions: what was
       negotiated, zero-copy or who copied, read-only propagation, time per
       exchange (godlpack/_matrix.py).

demo   zero-copy round trips between godlpack and every installed DLPack
       library (numpy, torch), printed as a table: library, direction, the
       capsule the consumer received (or "C exchange API" when the producer's
       type offers __dlpack_c_exchange_api__), whether the exchange is zero-copy
       (proved by a write on one side being seen on the other), and the time per
       exchange.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from typing import Any
from collections.abc import Callable

import godlpack as gd


class _Spy:
    """Forwards __dlpack__/__dlpack_device__ and records the capsule handed out."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj
        self.capsule: str | None = None
        self.kwargs: dict[str, Any] = {}

    def __dlpack__(self, **kw: Any) -> Any:
        self.kwargs = kw
        cap = self.obj.__dlpack__(**kw)
        r = repr(cap)  # <capsule object "dltensor_versioned" at 0x...>
        self.capsule = r.split('"')[1] if '"' in r else "?"
        return cap

    def __dlpack_device__(self) -> Any:
        return self.obj.__dlpack_device__()


def _time_per_call(fn: Callable[[], Any], target_s: float = 0.2) -> float:
    """Best-of-5 seconds per call of fn."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt > target_s / 5 or n >= 1 << 20:
            break
        n *= 4
    best = dt / n
    for _ in range(4):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def _fmt_time(s: float) -> str:
    if s < 1e-6:
        return f"{s * 1e9:.0f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.2f} µs"
    return f"{s * 1e3:.2f} ms"


Row = tuple[str, str, str, str, str]


def _rows_numpy(np: Any) -> list[Row]:
    rows: list[Row] = []
    # godlpack -> numpy
    a = gd.arange(8, dtype="float64")
    spy = _Spy(a)
    x = np.from_dlpack(spy)
    x[0] = 123.0
    a[1] = 7.0
    zc = a[0] == 123.0 and x[1] == 7.0
    rows.append(("numpy", "godlpack -> numpy", spy.capsule or "?", _yes(zc),
                 _fmt_time(_time_per_call(lambda: np.from_dlpack(a)))))
    # numpy -> godlpack
    n = np.arange(8, dtype=np.float32)
    spy = _Spy(n)
    g = gd.from_dlpack(spy)
    g[0] = 5.0
    n[1] = 9.0
    zc = n[0] == 5.0 and g[1] == 9.0
    rows.append(("numpy", "numpy -> godlpack", spy.capsule or "?", _yes(zc),
                 _fmt_time(_time_per_call(lambda: gd.from_dlpack(n)))))
    # read-only numpy -> godlpack keeps READ_ONLY
    r = np.arange(4.0)
    r.flags.writeable = False
    spy = _Spy(r)
    g = gd.from_dlpack(spy)
    rows.append(("numpy", "numpy (read-only) -> godlpack", spy.capsule or "?",
                 _yes(g.readonly and np.shares_memory(r, np.from_dlpack(g))) + " (read-only kept)",
                 _fmt_time(_time_per_call(lambda: gd.from_dlpack(r)))))
    # buffer protocol
    a = gd.zeros((2, 3), dtype="int32")
    x = np.asarray(memoryview(a))
    x[1, 2] = 42
    rows.append(("numpy", "godlpack -> numpy (buffer)", "memoryview", _yes(a[1, 2] == 42),
                 _fmt_time(_time_per_call(lambda: np.asarray(memoryview(a))))))
    return rows


def _rows_torch(torch: Any) -> list[Row]:
    rows: list[Row] = []
    a = gd.arange(8, dtype="float32")
    spy = _Spy(a)
    t = torch.from_dlpack(spy)
    t[0] = 123.0
    a[1] = 7.0
    zc = a[0] == 123.0 and float(t[1]) == 7.0
    rows.append(("torch", "godlpack -> torch", spy.capsule or "?", _yes(zc),
                 _fmt_time(_time_per_call(lambda: torch.from_dlpack(a)))))
    # torch.Tensor offers the DLPack C exchange API: from_dlpack uses it
    t = torch.arange(8, dtype=torch.float32)
    g = gd.from_dlpack(t)
    g[0] = 5.0
    t[1] = 9.0
    zc = float(t[0]) == 5.0 and g[1] == 9.0
    rows.append(("torch", "torch -> godlpack", _route(t), _yes(zc),
                 _fmt_time(_time_per_call(lambda: gd.from_dlpack(t)))))
    # the same through __dlpack__ and a capsule
    t = torch.arange(8, dtype=torch.float32)
    spy = _Spy(t)
    g = gd.from_dlpack(spy)
    g[0] = 5.0
    t[1] = 9.0
    zc = float(t[0]) == 5.0 and g[1] == 9.0
    rows.append(("torch", "torch -> godlpack (__dlpack__)", spy.capsule or "?", _yes(zc),
                 _fmt_time(_time_per_call(lambda: gd.from_dlpack(t.__dlpack__(max_version=(1, 3)))))))
    # a strided view keeps its strides both ways
    t = torch.arange(12, dtype=torch.int64).reshape(3, 4).t()
    g = gd.from_dlpack(t)
    g[0, 1] = -1
    zc = int(t[0, 1]) == -1 and g.strides == tuple(t.stride())
    rows.append(("torch", "torch (transposed view) -> godlpack", _route(t), _yes(zc),
                 _fmt_time(_time_per_call(lambda: gd.from_dlpack(t)))))
    return rows


def _route(x: Any) -> str:
    """How gd.from_dlpack(x) takes x: the C exchange API when type(x) offers one."""
    return "C exchange API" if hasattr(type(x), "__dlpack_c_exchange_api__") else "dltensor_versioned"


def _yes(b: Any) -> str:
    return "yes" if bool(b) else "NO"


def _print_table(rows: list[Row]) -> None:
    head = ("library", "direction", "capsule", "zero-copy", "time/exchange")
    w = [max(len(str(r[i])) for r in [head, *rows]) for i in range(5)]
    line = "  ".join(h.ljust(w[i]) for i, h in enumerate(head))
    print(line)
    print("  ".join("-" * w[i] for i in range(5)))
    for r in rows:
        print("  ".join(str(c).ljust(w[i]) if i < 4 else str(c).rjust(w[i]) for i, c in enumerate(r)))


def demo() -> int:
    print(f"godlpack {gd.__version__}: DLPack {gd.DLPACK_VERSION[0]}.{gd.DLPACK_VERSION[1]}, "
          f"Python {sys.version.split()[0]}")
    rows: list[Row] = []
    missing = []
    for name, fn in (("numpy", _rows_numpy), ("torch", _rows_torch)):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            missing.append(name)
            continue
        try:
            rows.extend(fn(mod))
        except Exception as e:  # report, keep going with the other libraries
            rows.append((name, "error", type(e).__name__, "NO", str(e)[:60]))
    # godlpack -> godlpack (our own C exchange API)
    a = gd.arange(4, dtype="int64")
    b = gd.from_dlpack(a)
    b[0] = 99
    rows.append(("godlpack", "godlpack -> godlpack", _route(a), _yes(a[0] == 99),
                 _fmt_time(_time_per_call(lambda: gd.from_dlpack(a)))))
    print()
    _print_table(rows)
    if missing:
        print(f"\nnot installed (skipped): {', '.join(missing)}")
    ok = all(r[3].startswith("yes") for r in rows)
    return 0 if ok else 1


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m godlpack",
        description="godlpack's command line: see what godlpack exchanges with the DLPack libraries installed here.",
        epilog="Run `python -m godlpack COMMAND --help` for a command's options.",
    )
    p.add_argument("--version", action="version",
                   version=f"godlpack {gd.__version__} (DLPack {gd.DLPACK_VERSION[0]}.{gd.DLPACK_VERSION[1]})")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    sub.required = True
    sub.add_parser("demo", help="zero-copy round trips with numpy and torch, as a table",
                   description="Zero-copy round trips between godlpack and numpy/torch: the capsule the consumer "
                   "received, whether a write on one side is seen on the other, the time per exchange. "
                   "Exit status 1 when an exchange was not zero-copy.")
    b = sub.add_parser("bench", help="godlpack against numpy and torch, measured in the same run",
                       description="Ratios of godlpack's time to numpy's/torch's for the same work, interleaved "
                       "rounds in one process; targets and PASS/MISS beside each row. Never asserts timings.")
    b.add_argument("--quick", action="store_true", help="a few-second smoke run (figures are not meaningful)")
    b.add_argument("groups", nargs="*", metavar="GROUP", help="which groups of rows to run (default: all)")
    sub.add_parser("matrix", help="every installed DLPack library, both directions",
                   description="For every installed DLPack library (numpy, torch, dpnp, jax, array_api_strict; "
                   "cupy and torch CUDA with a GPU), both directions: what was negotiated, zero-copy or who "
                   "copied, read-only propagation, time per exchange.")
    c = sub.add_parser("check", help="a DLPack conformance report for a library, graded by godlpack's core",
                       description="As a producer: make TARGET's arrays (every dtype, 0-d, empty, contiguous, "
                       "transposed, negative-stride, sliced, read-only), call their __dlpack__ with every keyword "
                       "combination and grade each answer by godlpack's own rules (capsule name and version, the "
                       "struct, the values read back bit-exactly, READ_ONLY, IS_COPIED, dl_device, copy, stream, "
                       "the class of each refusal). As a consumer: hand TARGET's from_dlpack recording producers "
                       "and grade what it asks, renames, frees, honours and reads. One line per rule; each FAIL "
                       "with its evidence and a reproducer. TARGET is imported and called in child processes "
                       "only: a crash is reported (CRASH), not fatal, and so is a call that hangs (HANG after "
                       "--timeout seconds). Each check has a level: MUST (the standard requires it), SHOULD (it "
                       "recommends it) or godlpack (our advice). Exit status 0 only without FAIL, CRASH or HANG at "
                       "or above --level. See "
                       "docs/conformance.md.")
    c.add_argument("target", metavar="TARGET", help="an importable module: numpy, torch, jax, dpnp, "
                   "array_api_strict, pyarrow, tensorflow, paddle, cupy, godlpack, or any array-API namespace")
    c.add_argument("--role", choices=("producer", "consumer", "both"), default="both",
                   help="grade TARGET's __dlpack__ (producer), its from_dlpack (consumer), or both (default)")
    c.add_argument("--json", metavar="FILE", help="also write the report as JSON (stable check IDs)")
    c.add_argument("--device", metavar="DEVICE", help="where TARGET's arrays are made: cpu, oneapi:0, cuda:0 "
                   "(default: where the library makes them)")
    c.add_argument("--level", choices=("must", "should", "godlpack"), default="godlpack",
                   help="the checks whose failure fails the run: must (the standard's MUSTs), should (and its "
                   "recommendations) or godlpack (every check, the default); all are reported")
    c.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                   help="how long one case may take before it is reported as HANG (default 10)")
    c.add_argument("-v", "--verbose", action="store_true", help="list every case as it runs")
    k = sub.add_parser("init-kit", help="start a kit package: Go functions for Python that compose with other kits",
                       description="Write a kit package in DIR: a Go module that go build, go vet, go test and gopls "
                       "accept as it is (go.mod requires godlpack and replaces it with the Go sources of this "
                       "godlpack), one function registered with gofunc, a Go test of the registrations, the Python "
                       "package NAME that binds the functions, and pyproject.toml / setup.py (godlpack.build.go_kit) "
                       "for pip install. Installed kits compose with godlpack and each other in one Go runtime, in "
                       "any import order. Existing files are never overwritten.")
    k.add_argument("dir", metavar="DIR", help="the directory (created when missing); its name is the default NAME")
    k.add_argument("--name", help="the Python module and Go package name (default: DIR's name)")
    k.add_argument("--module", help="the Go module path (default: example.com/NAME)")
    w = sub.add_parser("build-kit", help="a kit's manylinux wheels, x86-64 and aarch64, for pip install anywhere",
                       description="Build the manylinux2014 wheels of the kit package in DIR (init-kit's layout): "
                       "its Go packages prebuilt as a Go plugin for this godlpack version on each platform (across "
                       "architectures, for godlpack's wheel of that platform, from the index or --find-links), "
                       "checked and tagged by auditwheel. Users install them with pip and need neither Go nor a C "
                       "compiler. Every godlpack release needs the kit's wheels rebuilt. See docs/go.md.")
    w.add_argument("dir", metavar="DIR", help="the kit package (its pyproject.toml)")
    w.add_argument("-o", "--outdir", default="dist", metavar="OUT", help="where the wheels go (default dist)")
    w.add_argument("--arch", action="append", choices=("x86_64", "aarch64"),
                   help="a platform to build for (repeatable; default: x86_64 and aarch64)")
    w.add_argument("--find-links", action="append", default=[], metavar="DIR",
                   help="also look for godlpack's wheels there (pip's --find-links)")
    e = sub.add_parser("build-ext", help="build a Python module from Go packages (the extension kit)",
                       description="Build the abi3 extension module NAME: godlpack's whole API plus the Go "
                       "functions that the Go packages PKG (directories or import paths) register with "
                       "github.com/godlpack/godlpack/gofunc, with docstrings and a .pyi stub from the Go "
                       "signatures and doc comments. Needs Go 1.26+ and a C compiler.")
    e.add_argument("name", metavar="NAME", help="the module name (e.g. imgkit, or mypkg._imgkit)")
    e.add_argument("packages", nargs="+", metavar="PKG", help="Go packages whose init registers functions")
    e.add_argument("-o", "--outdir", default=".", metavar="DIR", help="where NAME.abi3.so and NAME.pyi go (default .)")
    e.add_argument("--debug", action="store_true", help="keep symbols and DWARF")
    e.add_argument("--workdir", metavar="DIR", help="keep the generated main package there (default: a temporary one)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    if args.command == "demo":
        return demo()
    if args.command == "bench":
        from . import _bench

        return _bench.main((["--quick"] if args.quick else []) + args.groups)
    if args.command == "check":
        from . import _check

        return _check.main([args.target, "--role", args.role] + (["--json", args.json] if args.json else []) +
                           (["-v"] if args.verbose else []) + (["--device", args.device] if args.device else []) +
                           ["--timeout", str(args.timeout), "--level", args.level])
    if args.command == "init-kit":
        from ._initkit import init_kit

        return init_kit(args.dir, args.name, args.module)
    if args.command == "build-kit":
        from ._buildkit import build_kit

        return build_kit(args.dir, args.outdir, args.arch or ["x86_64", "aarch64"], args.find_links)
    if args.command == "build-ext":
        from ._buildext import build_ext

        return build_ext(args.name, args.packages, args.outdir, debug=args.debug, workdir=args.workdir)
    from ._matrix import matrix

    return matrix()


if __name__ == "__main__":
    sys.exit(main())
