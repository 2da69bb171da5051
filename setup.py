"""Build godlpack's extension module with the Go toolchain.

`pip install .` and `python setup.py build_ext --inplace` (`make build`) run
the one `go build` command line of the extension, `go_build_command` below,
and echo it. The C skin is compiled with Py_LIMITED_API=0x030B0000 and does
not link libpython, so the one .so (and the cp311-abi3 wheel) serves CPython
3.11 and later.

Other builds go through the same command: `build_ext --debug` keeps symbols
and DWARF (and full source paths), `--build-lib DIR` writes
DIR/godlpack/_native.abi3.so, and GOEXPERIMENT and CGO_CFLAGS from the
environment reach the Go toolchain; `make test-cgocheck2` builds with all
three.
"""

import os
import shlex
import shutil
import subprocess
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


def go_build_command(go, out, package="./pyext", debug=False, environ=os.environ):
    """The `go build` of the extension: (argv, environment), run in HERE.

    debug=False strips symbols and DWARF and trims source paths (release
    builds); debug=True keeps all three. CGO_CFLAGS gets the CPython include
    directory in front of the caller's flags (default -O2 -g)."""
    env = dict(environ)
    env["CGO_ENABLED"] = "1"
    env["CGO_CFLAGS"] = f"-I{sysconfig.get_paths()['include']} " + environ.get("CGO_CFLAGS", "-O2 -g")
    ldflags = f"-extldflags=-Wl,--version-script={os.path.join(HERE, 'pyext', 'pyext.map')}"
    # -buildvcs=false: the build must not depend on git (a checkout owned by
    # another user, an sdist, a source tree without .git)
    argv = [go, "build", "-buildvcs=false", "-tags", "pyext", "-buildmode=c-shared"]
    if not debug:
        argv.append("-trimpath")
        ldflags = "-s -w " + ldflags
    argv += [f"-ldflags={ldflags}", "-o", out, package]
    return argv, env


class GoExtension(Extension):
    """An extension built by `go build -buildmode=c-shared` from a Go package."""

    def __init__(self, name, package):
        super().__init__(name, sources=[], py_limited_api=True)
        self.go_package = package


def build_problem(environ=os.environ, config_var=sysconfig.get_config_var, which=shutil.which):
    """Why the extension cannot be built here, as one message, or None."""
    if config_var("Py_GIL_DISABLED"):
        return (
            "error: godlpack cannot be built for a free-threaded CPython (python3.13t and later): its "
            "extension uses the limited C API (abi3), which free-threaded builds do not offer yet. "
            "Install it with a regular CPython 3.11 or newer."
        )
    go = environ.get("GO", "go")
    if which(go) is None:
        return (
            f"error: the Go toolchain ({go!r}) was not found on PATH. godlpack's extension is written in "
            "Go: install Go 1.26 or newer from https://go.dev/dl/ (and a C compiler for cgo), or set "
            "GO=/path/to/go, then run the install again."
        )
    cc = shlex.split(environ.get("CC", "") or "gcc")[0]
    if which(cc) is None and which("cc") is None:
        return (
            f"error: no C compiler ({cc!r}) was found on PATH. godlpack's Go code is built with cgo, "
            "which needs one: install gcc (Debian/Ubuntu: apt-get install gcc; RHEL: dnf install gcc) "
            "or set CC, then run the install again."
        )
    return None


class build_go_ext(build_ext):
    """build_ext that runs the Go toolchain instead of a C compiler."""

    def build_extension(self, ext):
        if not isinstance(ext, GoExtension):
            return super().build_extension(ext)
        problem = build_problem()
        if problem is not None:
            raise SystemExit(problem)
        go = shutil.which(os.environ.get("GO", "go"))
        out = os.path.abspath(self.get_ext_fullpath(ext.name))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        cmd, env = go_build_command(go, out, ext.go_package, debug=bool(self.debug))
        shown = [f"{k}={shlex.quote(env[k])}" for k in ("GOEXPERIMENT", "CGO_CFLAGS", "CC") if env.get(k)]
        print(" ".join(shown + [shlex.join(cmd)]), flush=True)
        rc = subprocess.run(cmd, cwd=HERE, env=env).returncode
        if rc != 0:  # one readable line after the Go toolchain's own messages, no traceback
            raise SystemExit(
                f"error: building godlpack's extension with `go build` failed (exit status {rc}); the Go "
                "toolchain's messages are above. Check that Go 1.26+ and a C compiler work "
                "(`go version`, `go env CC`), then run the install again."
            )
        header = os.path.splitext(out)[0] + ".h"  # c-shared also writes a C header
        if os.path.exists(header):
            os.remove(header)


if __name__ == "__main__":  # pip's build backend runs this file as __main__; tests import it
    setup(
        ext_modules=[GoExtension("godlpack._native", "./pyext")],
        cmdclass={"build_ext": build_go_ext},
        options={"bdist_wheel": {"py_limited_api": "cp311"}},
    )
