"""``python -m godlpack check TARGET``: a DLPack conformance report for a library.

The checker makes TARGET's arrays (every dtype it has; 0-d, empty,
contiguous, transposed, negative-stride, sliced and read-only), calls their
``__dlpack__`` with every keyword combination, and hands each answer to
godlpack's core (``_native._judge_export`` -> ``core.JudgeExport``), which
grades it by the same functions godlpack's own exchanges run. This file
gathers evidence and prints; it decides no rule.

The calls run in a child process: a call that kills it is reported as CRASH
and the child is restarted after it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

from . import _native
from ._check_targets import LAYOUTS, TARGETS, Target, generic

# The requests of the keyword sweep: label -> keywords.
SWEEP: list[tuple[str, dict[str, Any]]] = [
    ("no keywords", {}),
    ("max_version=(1, 0)", {"max_version": (1, 0)}),
    ("max_version=(1, 3)", {"max_version": (1, 3)}),
    ("max_version=(1, 255)", {"max_version": (1, 255)}),
    ("max_version=(2, 0)", {"max_version": (2, 0)}),
    ("dl_device=(kDLCPU, 0)", {"max_version": (1, 3), "dl_device": (1, 0)}),
    ("dl_device=(kDLExtDev, 0)", {"max_version": (1, 3), "dl_device": (12, 0)}),
    ("copy=True", {"max_version": (1, 3), "copy": True}),
    ("copy=False", {"max_version": (1, 3), "copy": False}),
    ("copy=None", {"max_version": (1, 3), "copy": None}),
    ("copy=False, dl_device=(kDLExtDev, 0)", {"max_version": (1, 3), "dl_device": (12, 0), "copy": False}),
    ("stream=None", {"max_version": (1, 3), "stream": None}),
    ("stream=5", {"max_version": (1, 3), "stream": 5}),
]
# Every dtype is also read back with these.
VALUES_ONLY = SWEEP[:1] + SWEEP[2:3]
SWEEP_DTYPE = "float32"
PREAMBLE = "def _readonly(a):\n    a.setflags(write=False)\n    return a\n"


@dataclass
class Case:
    """One array of the target and one request."""

    index: int
    dtype: str
    layout: str
    read_only: bool
    label: str
    kwargs: dict[str, Any]

    @property
    def name(self) -> str:
        ro = " read-only" if self.read_only else ""
        return f"{self.dtype}{ro} {self.layout}: {self.label}"


def cases(t: Target) -> list[Case]:
    """Every case for target t, in a fixed order (the child skips by index)."""
    out: list[Case] = []
    for dt in t.dtypes:
        for layout in LAYOUTS:
            if layout in t.no_views:
                continue
            for ro in (False, True):
                if ro and (t.read_only is None or layout != "contiguous"):
                    continue
                reqs = SWEEP if dt == SWEEP_DTYPE else (VALUES_ONLY if layout in ("contiguous", "transposed") else [])
                for label, kw in reqs:
                    out.append(Case(len(out), dt, layout, ro, label, kw))
    return out


def _source(t: Target, c: Case) -> tuple[str, str | None]:
    """(the target's array, the numpy data's view) as Python expressions."""
    data, view = LAYOUTS[c.layout]
    data = data.format(dt=repr(c.dtype))
    make = (t.read_only if c.read_only and t.read_only else t.make).format(data=data)
    if view is None:
        return make, None
    return view.format(x=f"({make})"), view.format(x=f"({data})")


def reproducer(t: Target, c: Case) -> str:
    make, _ = _source(t, c)
    kw = ", ".join(f"{k}={v!r}" for k, v in c.kwargs.items())
    pre = PREAMBLE if c.read_only else ""
    imp = "" if t.alias == "np" else f"import {t.module}\n" if t.alias == t.module else \
        f"import {t.module} as {t.alias}\n"
    return f"import numpy as np\n{imp}{pre}x = {make}\ncap = x.__dlpack__({kw})"


def _builtin_class(e: BaseException) -> str:
    """The exception's first builtin class: a library's subclass of
    BufferError refuses as a BufferError."""
    for k in type(e).__mro__:
        if k.__module__ == "builtins":
            return k.__name__
    return type(e).__name__


def _dtype_triple(np: Any, name: str) -> list[int]:
    from . import zeros

    d = zeros(0, dtype=name).dtype
    return [d.code, d.bits, d.lanes]


class Sources:
    """The target's arrays, made once per dtype, layout and read-only-ness,
    so that every request of a case asks the same array (and the addresses
    its answers carry can be compared); with the first-element address of
    its plain max_version=(1, 3) export."""

    def __init__(self) -> None:
        self.arrays: dict[tuple[str, str, bool], Any] = {}
        self.baselines: dict[tuple[str, str, bool], int] = {}


def run_case(t: Target, mod: Any, np: Any, c: Case, src: Sources) -> list[dict[str, Any]]:
    """Makes the array (once), asks it for the capsule and has core judge
    the answer."""
    ns = {"np": np, t.alias: mod, "_readonly": _readonly}
    if t.module != "godlpack":
        import godlpack as gd

        ns["gd"] = gd
    make, view = _source(t, c)
    key = (c.dtype, c.layout, c.read_only)
    try:
        if key not in src.arrays:
            src.arrays[key] = eval(make, ns)  # the target table's own expressions
        x = src.arrays[key]
    except Exception as e:  # the library cannot make this array: nothing to judge
        return [{"id": "", "case": c.name, "result": "N/A", "evidence": f"{make}: {_builtin_class(e)}: {e}"}]
    data = eval(LAYOUTS[c.layout][0].format(dt=repr(c.dtype)), ns)
    want = eval(view, ns) if view else data
    if t.flat:
        want = want.ravel()
    want = want.copy(order="C")  # C order, 0-d kept
    dev = x.__dlpack_device__()
    case = {
        "case": c.name,
        "device": [int(dev[0]), int(dev[1])],
        "read_only": c.read_only,
        "dtype": _dtype_triple(np, c.dtype),
        "shape": list(want.shape),
        "values": list(want.tobytes()),
        "baseline": src.baselines.get(key, 0),
        "raised": "",
        "message": "",
        "name": "",
    }
    for k in ("max_version", "dl_device", "copy", "stream"):
        v = c.kwargs.get(k)
        case[k] = list(v) if isinstance(v, tuple) else v
    cap = None
    try:
        cap = x.__dlpack__(**c.kwargs)
        case["name"] = _capsule_name(cap)
    except Exception as e:
        case["raised"], case["message"] = _builtin_class(e), str(e)[:300]
    judged = json.loads(_native._judge_export(json.dumps(case), cap))
    if c.label == "max_version=(1, 3)" and judged["first"]:
        src.baselines[key] = judged["first"]
    del cap
    return judged["results"]


def _readonly(a: Any) -> Any:
    a.setflags(write=False)
    return a


def _capsule_name(cap: Any) -> str:
    import ctypes

    f = ctypes.pythonapi.PyCapsule_GetName
    f.restype, f.argtypes = ctypes.c_char_p, [ctypes.py_object]
    try:
        name = f(cap)
    except Exception:
        return f"<not a capsule: {type(cap).__name__}>"
    return name.decode() if name else ""


def target_of(name: str) -> Target:
    """The table's entry, else an array-API namespace; a module may describe
    itself with a ``__dlpack_check__`` dict of Target fields (how to make a
    read-only array, the dtypes it has, the views it lacks)."""
    if name in TARGETS:
        return TARGETS[name]
    t = generic(name)
    hook = getattr(importlib.import_module(name), "__dlpack_check__", None)
    for k, v in (hook or {}).items():
        setattr(t, k, tuple(v) if k == "no_views" else v)
    return t


def child(target: str, skip: int) -> int:
    """Runs the cases from index skip on, one JSON line per event."""
    t = target_of(target)
    import numpy as np

    mod = importlib.import_module(t.module)
    src = Sources()
    all_cases = cases(t)
    # the baselines of the skipped cases are asked again (a crash lost them)
    for c in all_cases[:skip]:
        if c.label == "max_version=(1, 3)":
            try:
                run_case(t, mod, np, c, src)
            except Exception:
                pass
    for c in all_cases[skip:]:
        print(json.dumps({"begin": c.index}), flush=True)
        print(json.dumps({"done": c.index, "results": run_case(t, mod, np, c, src)}), flush=True)
    print(json.dumps({"end": len(all_cases)}), flush=True)
    return 0


@dataclass
class Report:
    target: str
    version: str
    checks: list[dict[str, Any]]
    calls: int
    seconds: float

    @property
    def ok(self) -> bool:
        return all(c["result"] in ("PASS", "N/A") for c in self.checks)


def check(target: str, verbose: bool = False) -> Report:
    """Grades TARGET as a DLPack producer: every case, in child processes."""
    t = target_of(target)
    mod = importlib.import_module(t.module)  # fails here, in the parent, when it is not installed
    top = sys.modules.get(t.module.split(".")[0])
    version = str(getattr(mod, "__version__", "") or getattr(top, "__version__", "?"))
    all_cases = cases(t)
    results: list[dict[str, Any]] = []
    start, skip = time.monotonic(), 0
    env = dict(os.environ, PYTHONFAULTHANDLER="0")
    while skip < len(all_cases):
        p = subprocess.Popen([sys.executable, "-m", "godlpack._check", "--child", target, "--skip", str(skip)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        begun, ended = None, False
        assert p.stdout is not None
        for line in p.stdout:
            ev = json.loads(line)
            if "begin" in ev:
                begun = ev["begin"]
            elif "done" in ev:
                results.extend(ev["results"])
                begun = None
                if verbose:
                    print(f"  {all_cases[ev['done']].name}", file=sys.stderr)
            elif "end" in ev:
                ended = True
        err = p.stderr.read() if p.stderr else ""
        rc = p.wait()
        if ended:
            break
        if begun is None:
            raise RuntimeError(f"check {target}: the checker's child process failed (exit {rc}):\n{err[-2000:]}")
        c = all_cases[begun]
        results.append({"id": "X.crash", "case": c.name, "result": "CRASH",
                        "evidence": f"the process died (exit {rc}) during the call: {err.strip()[-300:]}"})
        skip = begun + 1
    return Report(target, version, _grade(t, all_cases, results), len(all_cases), time.monotonic() - start)


def _grade(t: Target, all_cases: list[Case], results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One line per check: FAIL/CRASH when any case did, PASS when one passed, else N/A."""
    by_name = {c.name: c for c in all_cases}
    catalogue = json.loads(_native._judge_export("", None)) + [
        {"id": "X.crash", "rule": "no call of __dlpack__ kills the process"}]
    out = []
    for chk in catalogue:
        rs = [r for r in results if r["id"] == chk["id"]]
        bad = [r for r in rs if r["result"] in ("FAIL", "CRASH")]
        res = "CRASH" if any(r["result"] == "CRASH" for r in bad) else "FAIL" if bad else "PASS" if rs else "N/A"
        if chk["id"] == "X.crash" and not bad:
            res = "PASS"
        entry = {"id": chk["id"], "rule": chk["rule"], "result": res, "cases": len(rs), "failed": len(bad),
                 "evidence": [{"case": r["case"], "evidence": r.get("evidence", ""),
                               "reproducer": reproducer(t, by_name[r["case"]]) if r["case"] in by_name else ""}
                              for r in _diverse(bad, by_name)]}
        out.append(entry)
    na = [r for r in results if r["result"] == "N/A" and not r["id"]]
    if na:
        out.append({"id": "X.make", "rule": "arrays the target could not make (not graded)", "result": "N/A",
                    "cases": len(na), "failed": 0, "evidence": [{"case": r["case"], "evidence": r["evidence"],
                                                                  "reproducer": ""} for r in na[:5]]})
    return out


def _diverse(bad: list[dict[str, Any]], by_name: dict[str, Case], n: int = 5) -> list[dict[str, Any]]:
    """Up to n failures, one per kind of request first: a check that fails
    for copy=True and for copy=False shows both."""
    seen: set[str] = set()
    first = []
    for r in bad:
        label = by_name[r["case"]].label if r["case"] in by_name else r["case"]
        if label not in seen:
            seen.add(label)
            first.append(r)
    rest = [r for r in bad if r not in first]
    return (first + rest)[:n]


def print_report(r: Report, verbose: bool = False) -> None:
    print(f"godlpack check {r.target} {r.version}: {r.target}'s __dlpack__ graded by godlpack's core "
          f"({r.calls} calls, {r.seconds:.1f} s)")
    for c in r.checks:
        counts = f"({c['failed']} of {c['cases']} cases)" if c["failed"] else f"({c['cases']} cases)"
        print(f"  {c['id']:<14} {c['result']:<6} {c['rule']} {counts}")
        for e in c["evidence"] if c["result"] in ("FAIL", "CRASH") or verbose else []:
            print(f"      {e['case']}: {e['evidence']}")
            if e["reproducer"]:
                print("        " + e["reproducer"].replace("\n", "\n        "))
    n = {k: sum(1 for c in r.checks if c["result"] == k) for k in ("PASS", "FAIL", "N/A", "CRASH")}
    print(f"summary: {n['PASS']} PASS, {n['FAIL']} FAIL, {n['N/A']} N/A, {n['CRASH']} CRASH")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m godlpack check")
    p.add_argument("target")
    p.add_argument("--json", metavar="FILE")
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--skip", type=int, default=0, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        return child(a.target, a.skip)
    try:
        r = check(a.target, a.verbose)
    except ImportError as e:
        print(f"check: cannot import {a.target!r} ({e}); install it, or name an importable module", file=sys.stderr)
        return 2
    print_report(r, a.verbose)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"target": r.target, "version": r.version, "checks": r.checks}, f, indent=1)
    return 0 if r.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
