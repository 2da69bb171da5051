"""setuptools support for kit packages: Python packages whose functions are
Go functions, composed with godlpack and every other installed kit into one
native module at import (godlpack/_kits.py).

The wheel is pure: it ships the Python package, the Go module sources of
its Go packages (under ``<module>/_go``, without the ``replace`` of
godlpack, which the composition provides), the marker
``godlpack_kits/<module>.json`` naming them, and ``<module>/__init__.pyi``
with the functions' signatures and docs. The build compiles the kit once,
alone, to write that stub: a registration mistake or a compile error stops
``pip install`` with the message, before anything is installed. Go and a C
compiler are needed there and where the kit is first imported.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Sequence
from typing import Any

from ._gobuild import GODLPACK_MODULE, _module_root

_SKIP_DIRS = ("build", "dist", "__pycache__", "node_modules")
_GO_FILES = (".go", ".c", ".h", ".s", ".S")


def go_kit(module: str, go_packages: Sequence[str] | str = (".",)) -> dict[str, Any]:
    """The ``setup()`` keywords of a kit package::

        setup(**go_kit("statkit", ["./go"]))

    ``module`` is the Python package (its ``__init__.py`` calls
    ``godlpack.kits.bind(__name__, globals())``); ``go_packages`` are the
    directories of the Go packages that register its functions with gofunc.
    """
    from setuptools.command.build_py import build_py

    pkgs = [go_packages] if isinstance(go_packages, str) else list(go_packages)
    if not re.fullmatch(r"[A-Za-z_]\w*", module):
        raise ValueError(f"go_kit(): {module!r} is not a top-level Python package name")

    def run(self: Any) -> None:
        build_py.run(self)
        ship(module, pkgs, self.build_lib)

    return {"packages": [module], "cmdclass": {"build_py": type("build_kit", (build_py,), {"run": run})}}


def ship(module: str, go_packages: Sequence[str], build_lib: str) -> str:
    """Copies the Go modules of go_packages under build_lib/module/_go and
    writes the marker; returns the marker's path."""
    roots: list[str] = []
    rel_pkgs: list[str] = []
    for p in go_packages:
        if not os.path.isdir(p):
            raise SystemExit(f"error: go_kit({module!r}): {p!r} is not a directory of a Go package")
        root, _ = _module_root(p)
        if root not in roots:
            roots.append(root)
        dest = os.path.join(module, "_go", str(roots.index(root)))
        rel = os.path.relpath(os.path.abspath(p), root)
        rel_pkgs.append(os.path.normpath(os.path.join(dest, rel)).replace(os.sep, "/"))
    for i, root in enumerate(roots):
        _copy_module(root, os.path.join(build_lib, module, "_go", str(i)))
    _stub(module, go_packages, os.path.join(build_lib, module))
    marker = os.path.join(build_lib, "godlpack_kits", module + ".json")
    os.makedirs(os.path.dirname(marker), exist_ok=True)
    with open(marker, "w", encoding="utf-8") as f:
        json.dump({"module": module, "go": rel_pkgs}, f, indent=1)
        f.write("\n")
    return marker


def _copy_module(root: str, dest: str) -> None:
    if os.path.exists(dest):
        shutil.rmtree(dest)
    for base, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")) and d not in _SKIP_DIRS
                         and not d.endswith(".egg-info") and not os.path.exists(os.path.join(base, d, "go.mod")))
        out = os.path.join(dest, os.path.relpath(base, root))
        for name in files:
            if name == "go.mod":
                os.makedirs(out, exist_ok=True)
                with open(os.path.join(base, name), encoding="utf-8") as f:
                    text = f.read()
                # the composition puts godlpack's own sources in the workspace
                text = re.sub(rf"(?m)^replace\s+{re.escape(GODLPACK_MODULE)}\s*(v\S+\s*)?=>.*\n?", "", text)
                with open(os.path.join(out, name), "w", encoding="utf-8") as f:
                    f.write(text)
            elif name == "go.sum" or (name.endswith(_GO_FILES) and not name.endswith("_test.go")):
                os.makedirs(out, exist_ok=True)
                shutil.copy2(os.path.join(base, name), os.path.join(out, name))


def _stub(module: str, go_packages: Sequence[str], pkgdir: str) -> None:
    """Builds the kit alone as a module of build-ext in a temporary folder,
    reads its functions in a child interpreter, and writes the package's
    __init__.pyi and py.typed (PEP 561)."""
    import tempfile

    from . import _buildext, _gobuild

    name = f"_godlpack_kitcheck_{module}"
    with tempfile.TemporaryDirectory(prefix="godlpack-kit-") as tmp:
        so = os.path.join(tmp, name + ".abi3.so")
        _gobuild.build_module(name, list(go_packages), so, os.path.join(tmp, "main"), what=f"the kit {module}")
        funcs = [f for f in _buildext.describe(name, so) if not f["go_name"].startswith(_buildext._OWN)]
    os.makedirs(pkgdir, exist_ok=True)
    with open(os.path.join(pkgdir, "__init__.pyi"), "w", encoding="utf-8") as f:
        f.write(_buildext.stub_text(module, funcs, kit=True))
    with open(os.path.join(pkgdir, "py.typed"), "w", encoding="utf-8") as f:
        f.write("")
