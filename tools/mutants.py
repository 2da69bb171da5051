"""Mutation run over the Python shim (issue 39, item 7): `make mutants`.

Each mutant below is one small change to python/godlpack that a user would
see (a view that became a copy, numpy's promotion bent), with the tests that
must notice it. The run copies the package into a temporary folder, checks
that the tests pass on the copy as it is, then, one mutant at a time,
applies the change and runs the tests again: a mutant is killed when they
fail. It prints each mutant and the score, and exits 1 when one survives
(a test to write) or when a mutant no longer applies (the code it changes
moved: update its row).

The rows are the decisions the shim still holds; when one moves into core
(issue 39, item 2), its row goes with it (numpy's promotion of a stacked
list did: core/promote.go, tested against numpy's table in
tests_go/promote_test.go).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass
class Mutant:
    name: str
    path: str  # relative to python/godlpack
    old: str
    new: str
    tests: tuple[str, ...]  # pytest node ids or files, relative to the repository


RAVEL = ("tests_py/test_ndarray_protocols.py::test_ravel_and_view_are_numpys",)
STACK = ("tests_py/test_convert.py::test_lists_of_arrays_stack",)

MUTANTS = [
    Mutant("ravel always copies", "_ndarray.py",
           "return flat if flat.size <= 1 or flat.strides == (1,) else flat.copy()", "return flat.copy()", RAVEL),
    Mutant("ravel gives strided views", "_ndarray.py",
           "return flat if flat.size <= 1 or flat.strides == (1,) else flat.copy()", "return flat", RAVEL),
    Mutant("arange(n) counts from n", "__init__.py", "start, stop = 0, start", "start, stop = start, 0",
           ("tests_py/test_api.py::test_arange",)),
    Mutant("arange hands core integers as reals", "__init__.py", "int(v) if ints else float(v)", "float(v)",
           ("tests_py/test_api.py::test_arange",)),
    Mutant("a numpy scalar loses its dtype", "__init__.py",
           'return _as_dtype(v.dtype)._key if hasattr(v, "dtype") else -1', "return -1",
           ("tests_py/test_convert.py::test_numpy_scalars_keep_their_dtype",)),
    Mutant("a stacked list ignores dtype=", "_convert.py", "dt = dtype if dtype is not None else",
           "dt = None if dtype is not None else", STACK),
    Mutant("`in` asks every element", "_ndarray.py", "bool(eq.any())", "bool(eq.all())",
           ("tests_py/test_compare.py::test_contains_is_numpys",)),
    Mutant("astype(copy=False) copies", "_convert.py", "if copy is False and self.dtype == dt:\n        return self",
           "if copy is False and self.dtype == dt:\n        return self.copy()", ("tests_py/test_convert.py",)),
]


def run_tests(pkg_root: str, tests: tuple[str, ...]) -> int:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [pkg_root, os.environ.get("PYTHONPATH")])))
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-m", "not slow and not stress",
           *tests]
    return subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode


def main() -> int:
    src = os.path.join(ROOT, "python", "godlpack")
    if not os.path.exists(os.path.join(src, "_native.abi3.so")):
        print("make mutants: python/godlpack/_native.abi3.so is missing; run `make build` first")
        return 2
    t0, killed, failed = time.monotonic(), 0, False
    with tempfile.TemporaryDirectory(prefix="godlpack-mutants-") as tmp:
        pkg = os.path.join(tmp, "godlpack")
        shutil.copytree(src, pkg, ignore=shutil.ignore_patterns("__pycache__"))
        everything = tuple(dict.fromkeys(t for m in MUTANTS for t in m.tests))
        if run_tests(tmp, everything) != 0:
            print("make mutants: the tests fail on the unchanged package; fix them first")
            return 2
        for m in MUTANTS:
            path = os.path.join(pkg, m.path)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if text.count(m.old) != 1:
                print(f"  STALE     {m.name}: {m.path} no longer holds the line it changes once; update its row")
                failed = True
                continue
            with open(path, "w", encoding="utf-8") as f:
                f.write(text.replace(m.old, m.new))
            try:
                rc = run_tests(tmp, m.tests)
            finally:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
            if rc == 1:
                killed += 1
                print(f"  killed    {m.name}")
            else:
                failed = True
                print(f"  SURVIVED  {m.name} (pytest exit {rc}: {' '.join(m.tests)})")
    print(f"mutants: {killed} of {len(MUTANTS)} killed ({time.monotonic() - t0:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
