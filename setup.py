"""Build godlpack's extension module with the Go toolchain.

`pip install .` (or `python setup.py build_ext --inplace`) runs

    go build -tags pyext -buildmode=c-shared -trimpath \
        -ldflags="-s -w -extldflags=-Wl,--version-script=<repo>/pyext/pyext.map" \
        -o <build dir>/godlpack/_native.abi3.so ./pyext

with CGO_CFLAGS holding the CPython include directory. The C skin is compiled
with Py_LIMITED_API=0x030B0000 and does not link libpython, so the one .so
(and the cp311-abi3 wheel) serves CPython 3.11 and later.
"""

import os
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


class GoExtension(Extension):
    """An extension built by `go build -buildmode=c-shared` from a Go package."""

    def __init__(self, name, package):
        super().__init__(name, sources=[], py_limited_api=True)
        self.go_package = package


class build_go_ext(build_ext):
    """build_ext that runs the Go toolchain instead of a C compiler."""

    def build_extension(self, ext):
        if not isinstance(ext, GoExtension):
            return super().build_extension(ext)
        go = shutil.which(os.environ.get("GO", "go"))
        if go is None:
            raise SystemExit(
                "error: the Go toolchain ('go') was not found on PATH. godlpack's extension is "
                "written in Go: install Go 1.26 or newer from https://go.dev/dl/ (and a C compiler "
                "for cgo), or set GO=/path/to/go, then run the install again."
            )
        out = os.path.abspath(self.get_ext_fullpath(ext.name))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        include = sysconfig.get_paths()["include"]
        env = dict(os.environ)
        env["CGO_ENABLED"] = "1"
        env["CGO_CFLAGS"] = f"-I{include} " + os.environ.get("CGO_CFLAGS", "-O2 -g")
        mapfile = os.path.join(HERE, "pyext", "pyext.map")
        cmd = [
            go, "build", "-tags", "pyext", "-buildmode=c-shared", "-trimpath",
            f"-ldflags=-s -w -extldflags=-Wl,--version-script={mapfile}",
            "-o", out, ext.go_package,
        ]
        print(f"CGO_CFLAGS={shlex.quote(env['CGO_CFLAGS'])} {shlex.join(cmd)}", flush=True)
        subprocess.run(cmd, cwd=HERE, env=env, check=True)
        header = os.path.splitext(out)[0] + ".h"  # c-shared also writes a C header
        if os.path.exists(header):
            os.remove(header)


setup(
    ext_modules=[GoExtension("godlpack._native", "./pyext")],
    cmdclass={"build_ext": build_go_ext},
    options={"bdist_wheel": {"py_limited_api": "cp311"}},
)
