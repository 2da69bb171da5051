"""Go kits that compose: any number of kit packages and godlpack in one Go
runtime, in any import order.

A process can hold one Go runtime, so the functions of every kit package
installed in an environment live in one native module: godlpack's own
``_native`` composed with the kits' Go packages. A kit package (made with
``godlpack.build.go_kit``, e.g. by ``python -m godlpack init-kit``) ships
its Go sources and a marker, ``godlpack_kits/<module>.json`` beside its
Python package. When ``import godlpack`` (or of any kit, which imports
godlpack) finds markers on ``sys.path``, it loads the module composed for
that set of kits from a cache, building it with Go the first time, and each
kit's ``__init__`` binds its functions (:func:`bind`). Without markers,
``import godlpack`` costs what it did: a stat per ``sys.path`` entry.

The cache (``$GODLPACK_KITS_CACHE``, else ``$XDG_CACHE_HOME/godlpack/kits``,
else ``~/.cache/godlpack/kits``) holds one module per set of kits, keyed by
godlpack's own module and every kit file's name, size and time: installing,
changing or removing a kit selects (or builds) another, and one not loaded
for 30 days is removed when another is built.
"""

from __future__ import annotations

import os
import sys
from typing import Any

MARKERS = "godlpack_kits"

# Why the installed kits' functions are not there (ImportError of bind), or
# None while nothing went wrong.
_problem: str | None = None


def markers() -> dict[str, str]:
    """module -> marker file, the first on sys.path for each module."""
    found: dict[str, str] = {}
    for entry in sys.path:
        d = os.path.join(entry or ".", MARKERS)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(".json"):
                found.setdefault(name[:-5], os.path.join(d, name))
    return found


def _kits(found: dict[str, str]) -> list[tuple[str, list[str]]]:
    """(module, Go package directories) of each marker."""
    import json

    out = []
    for module, path in sorted(found.items()):
        with open(path, encoding="utf-8") as f:
            spec = json.load(f)
        site = os.path.dirname(os.path.dirname(path))
        out.append((module, [os.path.join(site, p) for p in spec["go"]]))
    return out


def cache_dir() -> str:
    base = os.environ.get("GODLPACK_KITS_CACHE")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "godlpack", "kits")
    return base


def _key(kits: list[tuple[str, list[str]]], stock: str) -> str:
    import hashlib

    h = hashlib.sha256()
    st = os.stat(stock)
    h.update(f"{stock}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    for module, dirs in kits:
        h.update(f"kit\0{module}\0".encode())
        for d in dirs:
            root = _go_root(d)
            for base, subdirs, files in os.walk(root):
                subdirs[:] = sorted(s for s in subdirs if not s.startswith((".", "_")) or s == "_go")
                for name in sorted(files):
                    if name.endswith((".go", ".mod", ".sum", ".c", ".h")):
                        p = os.path.join(base, name)
                        s = os.stat(p)
                        h.update(f"{os.path.relpath(p, root)}\0{s.st_size}\0{s.st_mtime_ns}\0".encode())
            h.update(f"pkg\0{os.path.relpath(d, root)}\0".encode())
    return h.hexdigest()[:20]


def _go_root(d: str) -> str:
    cur = os.path.abspath(d)
    while not os.path.exists(os.path.join(cur, "go.mod")):
        parent = os.path.dirname(cur)
        if parent == cur:
            return os.path.abspath(d)
        cur = parent
    return cur


def composite(kits: list[tuple[str, list[str]]], stock: str) -> str:
    """The native module composed for kits: from the cache, else built with
    Go (once: a lock keeps concurrent imports from building it twice)."""
    import fcntl

    where = os.path.join(cache_dir(), _key(kits, stock))
    out = os.path.join(where, "_native.abi3.so")
    if os.path.exists(out):
        os.utime(out)  # in use: _prune keeps it
        return out
    os.makedirs(where, exist_ok=True)
    with open(os.path.join(where, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(out):
            return out
        from . import _gobuild

        names = ", ".join(m for m, _ in kits)
        print(f"godlpack: composing its native module with the Go kits {names}, once for this set of kits "
              f"(in {where}) ...", file=sys.stderr, flush=True)
        homes = {d: m for m, dirs in kits for d in dirs}
        tmp = os.path.join(where, f"_native.{os.getpid()}.tmp.abi3.so")  # an extension suffix: _verify loads it
        try:
            import contextlib
            import io

            with contextlib.redirect_stdout(io.StringIO()):
                _gobuild.build_module("godlpack._native", list(homes), tmp, os.path.join(where, "gomain"),
                                      what=f"godlpack with the kits {names}", homes=homes)
            _verify(tmp)
            os.replace(tmp, out)
            _prune(where)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
        print("godlpack: done.", file=sys.stderr, flush=True)
    return out


# A composed module not loaded for this long is removed when another is built
# (each is a few MB, and every change of a kit makes a new one).
PRUNE_AFTER_S = 30 * 24 * 3600


def _prune(keep: str) -> None:
    import shutil
    import time

    base = os.path.dirname(keep)
    for name in os.listdir(base):
        d = os.path.join(base, name)
        try:
            old = time.time() - os.stat(os.path.join(d, "_native.abi3.so")).st_mtime > PRUNE_AFTER_S
        except OSError:
            continue  # being built, or not ours
        if d != keep and old:
            shutil.rmtree(d, ignore_errors=True)


_VERIFY = """import importlib.util, sys
spec = importlib.util.spec_from_file_location("godlpack._native", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
sys.modules["godlpack._native"] = mod
spec.loader.exec_module(mod)
mod._install_gofuncs()
"""


def _verify(path: str) -> None:
    """Loads the module in a child interpreter first: a kit whose
    registrations fail must not leave this process holding a Go runtime it
    cannot use (a second one, the stock module's, cannot start)."""
    import subprocess

    p = subprocess.run([sys.executable, "-c", _VERIFY, path], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or [f"exit status {p.returncode}"])[-1]
        raise SystemExit(last)


def load_native() -> None:
    """Puts the native module composed for the installed kits in
    sys.modules as godlpack._native; does nothing without kits, or when a
    native module is loaded already (a kit module built by build-ext, or
    godlpack imported before)."""
    global _problem
    if "godlpack._native" in sys.modules:
        return
    found = markers()
    if not found:
        return
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.find_spec("godlpack._native")
    stock = spec.origin if spec is not None and spec.origin else os.path.join(here, "_native.abi3.so")
    try:
        path = composite(_kits(found), stock)
    except (SystemExit, OSError, ValueError, KeyError) as e:
        _problem = f"composing godlpack with the installed Go kits ({', '.join(sorted(found))}) failed: {e}"
        print(f"godlpack: {_problem}; godlpack works without them", file=sys.stderr, flush=True)
        return
    spec = importlib.util.spec_from_file_location("godlpack._native", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["godlpack._native"] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules["godlpack._native"]
        raise


def bind(module: str, namespace: dict[str, Any]) -> None:
    """Binds the Go functions of the kit module into its namespace: a kit
    package's ``__init__`` calls ``bind(__name__, globals())``."""
    import godlpack

    native = godlpack._native
    fns = getattr(native, "_kit_functions", {}).get(module)
    if fns is None:
        if _problem is not None:
            why = _problem + "; fix that (the message above says how) and import again"
        elif native.__name__ != "godlpack._native":
            why = (f"godlpack runs in the extension module {native.__name__} (built by build-ext), which does "
                   f"not hold the kit {module}; import {module} in a process that does not load that module")
        elif module not in markers():
            why = f"no godlpack_kits/{module}.json is on sys.path; reinstall the package {module}"
        else:
            why = (f"godlpack was loaded in this process before {module} was installed; restart Python to "
                   f"compose the kits anew")
        raise ImportError(f"import {module}: its Go functions are not in godlpack's native module: {why}")
    namespace.update(fns)
    namespace.setdefault("__all__", sorted(fns))
