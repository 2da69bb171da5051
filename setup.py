"""Build godlpack's extension module with the Go toolchain.

`pip install .` and `python setup.py build_ext --inplace` (`make build`) run
the one `go build` command line of every godlpack module
(python/godlpack/_gobuild.py: a generated main package over pyext) and echo
it. The C skin is compiled with Py_LIMITED_API=0x030B0000 and does
not link libpython, so the one .so (and the cp311-abi3 wheel) serves CPython
3.11 and later.

Other builds go through the same command: `build_ext --debug` keeps symbols
and DWARF (and full source paths), `--build-lib DIR` writes
DIR/godlpack/_native.abi3.so, and GOEXPERIMENT and CGO_CFLAGS from the
environment reach the Go toolchain; `make test-cgocheck2` builds with all
three.
"""

import importlib.util
import os
import shutil

import setuptools
from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

# pyproject.toml states its licence as an SPDX expression (PEP 639), which
# setuptools reads from 77 on; an older one (a --no-build-isolation build)
# would stop on it with a traceback about the pyproject schema instead.
if tuple(int(p) for p in setuptools.__version__.split(".")[:1] if p.isdigit()) < (77,):
    raise SystemExit(
        f"error: building godlpack needs setuptools 77 or newer (this environment has {setuptools.__version__}): "
        "run `pip install -U 'setuptools>=77'` here, or build without --no-build-isolation"
    )

# setuptools 70.1 and later: imported after the check above
from setuptools.command.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))

# The one build mechanism of every godlpack module, loaded by path: no
# godlpack package exists yet while it is being built.
_spec = importlib.util.spec_from_file_location("godlpack_gobuild", os.path.join(HERE, "python", "godlpack", "_gobuild.py"))
_gobuild = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_gobuild)

GoExtension = _gobuild.GoExtension
build_go_ext = _gobuild.build_go_ext
build_problem = _gobuild.build_problem


def go_build_command(go, out, workdir=".", debug=False, environ=os.environ):
    """The `go build` of an extension module (python/godlpack/_gobuild.py)."""
    return _gobuild.go_build_command(go, out, workdir, debug=debug, environ=environ)


# The Go sources the wheel carries (godlpack/_gosrc), so that
# `python -m godlpack build-ext` and godlpack.build work from an installed
# godlpack with only Go and a C compiler.
GOSRC_DIRS = ("core", "backends", "pyext", "gofunc", "internal/builtins")
GOSRC_FILES = ("go.mod", "go.sum")  # the licences are the wheel's own (.dist-info/licenses)
GOSRC_EXT = (".go", ".c", ".h", ".s")


class build_py_gosrc(build_py):
    """build_py that also copies godlpack's Go sources into godlpack/_gosrc."""

    def run(self):
        super().run()
        dst = os.path.join(self.build_lib, "godlpack", "_gosrc")
        shutil.rmtree(dst, ignore_errors=True)  # exactly the sources below: nothing left from an older build
        for name in GOSRC_FILES:
            if os.path.exists(os.path.join(HERE, name)):
                os.makedirs(dst, exist_ok=True)
                shutil.copy2(os.path.join(HERE, name), os.path.join(dst, name))
        for top in GOSRC_DIRS:
            for root, _dirs, files in os.walk(os.path.join(HERE, top)):
                for f in files:
                    if f.endswith(GOSRC_EXT) and not f.endswith("_test.go"):
                        rel = os.path.relpath(os.path.join(root, f), HERE)
                        os.makedirs(os.path.join(dst, os.path.dirname(rel)), exist_ok=True)
                        shutil.copy2(os.path.join(HERE, rel), os.path.join(dst, rel))


class bdist_wheel_sbom(bdist_wheel):
    """bdist_wheel that also writes the wheel's CycloneDX SBOM (PEP 770,
    issue 40) into .dist-info/sboms/ (tools/sbom.py: the Go version and
    modules `go version -m` reads from the built extension, zig's pieces when
    CC is zig cc); RECORD, written after, lists it as any other file."""

    building = False  # write_wheelfile within run: an editable install's wheel (pip install -e) has no .so

    def run(self):
        self.building = True
        super().run()

    def write_wheelfile(self, wheelfile_base, *args, **kwargs):
        super().write_wheelfile(wheelfile_base, *args, **kwargs)
        if not self.building:
            return
        so = os.path.join(self.bdist_dir, "godlpack", "_native.abi3.so")
        spec = importlib.util.spec_from_file_location("godlpack_sbom", os.path.join(HERE, "tools", "sbom.py"))
        sbom = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sbom)
        try:
            sbom.write_sbom(wheelfile_base, so, self.distribution.get_version())
        except sbom.SbomError as e:
            raise SystemExit(f"error: writing the wheel's SBOM (tools/sbom.py) failed: {e}") from None


class sdist_repro(sdist):
    """sdist whose tarball is the same bytes for the same files wherever and
    whenever it is made: members sorted, owned by root with no names, modes
    0644 or 0755, times SOURCE_DATE_EPOCH (else 0) and no time in the gzip
    header. setuptools stamps the files' own times."""

    def make_distribution(self):
        super().make_distribution()
        for path in self.archive_files:
            if path.endswith(".tar.gz"):
                normalize_tarball(path, int(os.environ.get("SOURCE_DATE_EPOCH") or 0))


def normalize_tarball(path, mtime):
    """Rewrites the .tar.gz at path as sdist_repro says."""
    import gzip
    import io
    import tarfile

    with tarfile.open(path, "r:gz") as src:
        members = [(m, src.extractfile(m).read() if m.isfile() else None) for m in src.getmembers()]
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as dst:
        for m, data in sorted(members, key=lambda md: md[0].name):
            m.mtime, m.uid, m.gid, m.uname, m.gname, m.pax_headers = mtime, 0, 0, "", "", {}
            m.mode = 0o755 if m.isdir() or m.mode & 0o111 else 0o644
            dst.addfile(m, io.BytesIO(data) if data is not None else None)
    with open(path, "wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as gz:
        gz.write(buf.getvalue())


REPOSITORY = "https://github.com/godlpack/godlpack/blob/main/"


def index_readme(text):
    """README.md for the package index: its links into the repository
    (docs/, examples/) made absolute, since an index page has no repository
    around it; web links and in-page anchors stay."""
    import re

    return re.sub(r"\]\((?![a-z]+:|#)([^)\s]+)\)", lambda m: f"]({REPOSITORY}{m.group(1)})", text)


if __name__ == "__main__":  # pip's build backend runs this file as __main__; tests import it
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = index_readme(f.read())
    setup(
        long_description=readme,
        long_description_content_type="text/markdown",
        # godlpack._native is a module of the kit like any other: pyext and
        # the functions godlpack itself registers with gofunc.
        ext_modules=[GoExtension("godlpack._native", [], gosrc=HERE)],
        cmdclass={"build_ext": build_go_ext, "build_py": build_py_gosrc, "sdist": sdist_repro,
                  "bdist_wheel": bdist_wheel_sbom},
        options={"bdist_wheel": {"py_limited_api": "cp311"}},
    )
