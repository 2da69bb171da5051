"""setuptools support for kit packages: Python packages whose functions are
Go functions, run in godlpack's one Go runtime with every other installed
kit (godlpack/_kits.py).

A kit's wheel is a platform wheel (``py3-none-<platform>``) that holds:

- ``<module>/_gokit.so``: the kit's Go packages built as a Go plugin against
  the godlpack installed where the wheel is built, the way that godlpack's
  module was built (its build record, ``_native.buildinfo.json``: Go
  version, tags, flags, C compiler), so that a user needs neither Go nor a
  C compiler;
- the marker ``godlpack_kits/<module>.json``: the plugin's path and
  fingerprint (Go version, platform, the godlpack version and module build
  id it was built against, the Go modules it contains) and the kit's Go
  packages;
- the Go module sources (under ``<module>/_go``), from which godlpack
  composes the kit where the plugin does not fit and Go is on PATH;
- ``<module>/__init__.pyi`` with the functions' signatures and docs.

The wheel requires exactly the godlpack it was built against
(``godlpack==X.Y.Z``): every godlpack release needs the kit's wheels rebuilt.
The build loads the plugin once in a child interpreter to write the stub: a
registration mistake or a compile error stops ``pip wheel`` with the
message, before anything is installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from ._gobuild import GODLPACK_MODULE, _module_root
from ._gofiles import module_files
PLUGIN = "_gokit.so"


def go_kit(module: str, go_packages: Sequence[str] | str = (".",)) -> dict[str, Any]:
    """The ``setup()`` keywords of a kit package::

        setup(**go_kit("statkit", ["./go"]))

    ``module`` is the Python package (its ``__init__.py`` calls
    ``godlpack.kits.bind(__name__, globals())``); ``go_packages`` are the
    directories of the Go packages that register its functions with gofunc.
    With ``dynamic = ["dependencies"]`` in its pyproject.toml the wheel
    requires the godlpack it was built against, exactly.
    """
    from setuptools import Distribution
    from setuptools.command.build_py import build_py

    try:
        from setuptools.command.bdist_wheel import bdist_wheel
    except ImportError:  # setuptools < 70.1
        try:
            from wheel.bdist_wheel import bdist_wheel  # type: ignore[no-redef,import-untyped,unused-ignore]
        except ImportError:
            raise SystemExit("error: go_kit() needs setuptools 70.1 or newer where the kit is built (its "
                             "pyproject.toml: requires = [\"setuptools>=70.1\", ...]); pip install -U "
                             "setuptools") from None

    pkgs = [go_packages] if isinstance(go_packages, str) else list(go_packages)
    if not re.fullmatch(r"[A-Za-z_]\w*", module):
        raise ValueError(f"go_kit(): {module!r} is not a top-level Python package name")

    def run(self: Any) -> None:
        build_py.run(self)
        if getattr(self, "editable_mode", False):  # pip install -e: the plugin is built at import, when stale
            editable(module, pkgs)
            return
        ship(module, pkgs, self.build_lib)

    def get_tag(self: Any) -> tuple[str, str, str]:
        return ("py3", "none", bdist_wheel.get_tag(self)[2])  # no CPython API in the plugin: any Python 3

    import godlpack

    return {
        "packages": [module],
        "install_requires": [f"godlpack=={godlpack.__version__}"],
        # a platform wheel: the Go plugin is for one platform
        "distclass": type("KitDistribution", (Distribution,), {"has_ext_modules": lambda self: True}),
        "cmdclass": {"build_py": type("build_kit", (build_py,), {"run": run}),
                     "bdist_wheel": type("bdist_kit_wheel", (bdist_wheel,), {"get_tag": get_tag})},
    }


def ship(module: str, go_packages: Sequence[str], build_lib: str) -> str:
    """Copies the Go modules of go_packages under build_lib/module/_go,
    builds the Go plugin and the stub, and writes the marker; returns the
    marker's path."""
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
    plugin = build(module, go_packages, os.path.join(build_lib, module))
    marker = os.path.join(build_lib, "godlpack_kits", module + ".json")
    os.makedirs(os.path.dirname(marker), exist_ok=True)
    with open(marker, "w", encoding="utf-8") as f:
        json.dump({"module": module, "go": rel_pkgs,
                   "plugin": {"path": f"{module}/{PLUGIN}", "fingerprint": plugin}}, f, indent=1, sort_keys=True)
        f.write("\n")
    return marker


EDITABLE = "_godlpack_kit.json"


def editable(module: str, go_packages: Sequence[str]) -> str:
    """An editable install (pip install -e): writes <module>/_godlpack_kit.json
    in the source tree, naming the kit's Go packages there; the kit's import
    builds its plugin from them when they changed (godlpack/_kits.py)."""
    dirs = []
    for p in go_packages:
        if not os.path.isdir(p):
            raise SystemExit(f"error: go_kit({module!r}): {p!r} is not a directory of a Go package")
        dirs.append(os.path.abspath(p))
    path = os.path.join(module, EDITABLE)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"module": module, "editable": True, "go": dirs}, f, indent=1)
        f.write("\n")
    return path


def _copy_module(root: str, dest: str) -> None:
    if os.path.exists(dest):
        shutil.rmtree(dest)
    for rel in module_files(root):
        out = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if rel == "go.mod":
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                text = f.read()
            # the composition puts godlpack's own sources in the workspace
            text = re.sub(rf"(?m)^replace\s+{re.escape(GODLPACK_MODULE)}\s*(v\S+\s*)?=>.*\n?", "", text)
            with open(out, "w", encoding="utf-8") as f:
                f.write(text)
        else:
            shutil.copy2(os.path.join(root, rel), out)


# A cross build (python -m godlpack build-kit --arch): the folder holding the
# godlpack package of the target platform's wheel (its build record and Go
# sources), whose module the kit's plugin is built for.
TARGET_ENV = "GODLPACK_KIT_TARGET"


def host() -> tuple[str, dict[str, Any]]:
    """(module file, build record) of the godlpack installed here: what a
    kit's plugin is built against."""
    import godlpack

    from . import _kits

    native = godlpack._native.__file__
    info = _kits.host_info(native)
    if info is None:
        raise SystemExit(f"error: the godlpack installed here ({native}) has no build record that matches its "
                         "module (_native.buildinfo.json), so a kit's Go plugin cannot be built for it; reinstall "
                         "godlpack from its wheel, or rebuild it (pip install --force-reinstall godlpack)")
    if godlpack._native.__name__ != "godlpack._native" or os.path.dirname(native) != os.path.dirname(godlpack.__file__):
        raise SystemExit(f"error: godlpack runs in {native} here, not in its own module; build kits where "
                         "`import godlpack` loads godlpack's own module (no kit composed, no build-ext module)")
    return native, info


def target() -> tuple[dict[str, Any], str] | None:
    """(build record, Go sources) of the cross build's target godlpack
    (TARGET_ENV), or None for a build for this machine's godlpack."""
    where = os.environ.get(TARGET_ENV)
    if not where:
        return None
    pkg = os.path.join(where, "godlpack")
    try:
        with open(os.path.join(pkg, "_native.buildinfo.json"), encoding="utf-8") as f:
            info: dict[str, Any] = json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit(f"error: {TARGET_ENV}={where} holds no godlpack build record ({e}); point it at the "
                         "unpacked godlpack wheel of the target platform") from None
    return info, os.path.join(pkg, "_gosrc")


def build(module: str, go_packages: Sequence[str], pkgdir: str) -> dict[str, Any]:
    """Builds the kit's Go plugin into pkgdir (for this machine's godlpack,
    or the cross build's target), loads a plugin for this machine's godlpack
    in a child interpreter to write __init__.pyi and py.typed there, and
    returns the fingerprint of the plugin shipped."""
    import tempfile

    from . import _buildext, _gobuild

    _, info = host()
    cross = target()
    tinfo, gosrc = cross if cross is not None else (info, None)
    os.makedirs(pkgdir, exist_ok=True)
    out = os.path.join(pkgdir, PLUGIN)
    with tempfile.TemporaryDirectory(prefix="godlpack-kit-") as tmp:
        _gobuild.build_plugin(module, list(go_packages), out, os.path.join(tmp, "main"), tinfo, gosrc=gosrc)
        probe = out
        if cross is not None:  # the target's plugin cannot load here: a native one says what it registers
            probe = os.path.join(tmp, "native.so")
            _gobuild.build_plugin(module, list(go_packages), probe, os.path.join(tmp, "native"), info)
        funcs = describe(module, probe)
    with open(os.path.join(pkgdir, "__init__.pyi"), "w", encoding="utf-8") as f:
        f.write(_buildext.stub_text(module, funcs, kit=True))
    with open(os.path.join(pkgdir, "py.typed"), "w", encoding="utf-8") as f:
        f.write("")
    return {
        "go": tinfo["go"], "goos": tinfo["goos"], "goarch": tinfo["goarch"], "godlpack": tinfo["godlpack"],
        "build_id": tinfo["build_id"], "tags": tinfo["tags"], "modules": go_modules(out, go_packages),
    }


_DESCRIBE = r"""
import json, sys
import godlpack
import os
fns = godlpack._native._load_kit(os.fsencode(sys.argv[2])).get(sys.argv[1])
meta = [f for f in json.loads(godlpack._native._gofuncs()) if f.get("module") == sys.argv[1]]
sys.stdout.write(json.dumps(meta if fns is not None else []))
"""


def describe(module: str, plugin: str) -> list[dict[str, Any]]:
    """The functions of the kit's plugin, loaded into the installed
    godlpack in a fresh interpreter (a registration mistake stops here)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    p = subprocess.run([sys.executable, "-c", _DESCRIBE, module, plugin], env=env, capture_output=True, text=True,
                       timeout=300)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        last = (p.stderr.strip().splitlines() or [f"exit status {p.returncode}"])[-1]
        raise SystemExit(f"error: the Go plugin of the kit {module} was built ({plugin}) but does not load into "
                         f"godlpack: {last}")
    funcs: list[dict[str, Any]] = json.loads(p.stdout)
    if not funcs:
        raise SystemExit(f"error: the Go packages of the kit {module} register no function with gofunc; register "
                         "one in an init function (gofunc.Func1(...))")
    return funcs


def go_modules(plugin: str, go_packages: Sequence[str]) -> dict[str, str]:
    """The Go modules the plugin contains, path -> version (with its go.sum
    hash): two kits that contain one module at different versions cannot
    share a Go runtime (godlpack/_kits.py refuses the second). A module
    without a version (the kit's own, a local replace) gets the hash of its
    Go files."""
    import hashlib

    go = shutil.which(os.environ.get("GO", "go")) or "go"
    p = subprocess.run([go, "version", "-m", plugin], capture_output=True, text=True,
                       env=dict(os.environ, GOTOOLCHAIN="local"))
    mods: dict[str, str] = {}
    local: dict[str, str] = {}
    for p_ in go_packages:
        root, path = _module_root(p_)
        local[path] = root
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) >= 3 and f[0] in ("dep", "=>"):  # not "mod": the generated main package
            path, ver = f[1], f[2]
            if path == GODLPACK_MODULE:
                continue  # godlpack's own: the build id covers it
            if f[0] == "=>" and mods:
                last = next(reversed(mods))
                mods[last] = f"{ver} {f[3] if len(f) > 3 else ''}".strip()
                continue
            mods[path] = f"{ver} {f[3] if len(f) > 3 else ''}".strip()
    for path, root in local.items():
        h = hashlib.sha256()
        for rel in module_files(root):
            with open(os.path.join(root, rel), "rb") as fh:
                h.update(f"{rel}\0".encode() + fh.read())
        mods[path] = "local h1:" + h.hexdigest()[:32]
    return mods
