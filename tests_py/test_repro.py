"""Reproducible builds (issue 40): a release build's Go build id names what
the build is made of, never where it lies, and the sdist is the same bytes
for the same files. `make wheel-repro` (CI) checks a whole wheel."""

import importlib.util
import io
import os
import shutil
import sysconfig
import tarfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # setup.py: not __main__, defines, does not build
    return mod


@pytest.fixture(scope="module")
def gobuild():
    return _load("godlpack_gobuild_repro", os.path.join(ROOT, "python", "godlpack", "_gobuild.py"))


def _tree(base, module_dir):
    """A kit module and the main package a build writes for it, as go.work
    names them (one relative, one absolute)."""
    mod = os.path.join(base, module_dir)
    os.makedirs(os.path.join(mod, "sum"))
    with open(os.path.join(mod, "go.mod"), "w") as f:
        f.write("module example.com/kit\n\ngo 1.26\n")
    with open(os.path.join(mod, "sum", "sum.go"), "w") as f:
        f.write("package sum\n\nfunc Sum(x []float64) (s float64) {\n\tfor _, v := range x {\n\t\ts += v\n\t}\n\treturn\n}\n")
    work = os.path.join(base, "work")
    os.makedirs(work)
    with open(os.path.join(work, "main.go"), "w") as f:
        f.write('package main\n\nimport _ "example.com/kit/sum"\n\nfunc main() {}\n')
    with open(os.path.join(work, "go.mod"), "w") as f:
        f.write("module kitmain\n\ngo 1.26\n")
    with open(os.path.join(work, "go.work"), "w") as f:
        f.write(f'go 1.26\n\nuse (\n\t.\n\t"{mod}"\n)\n')
    return work, mod


def test_the_build_id_is_the_same_from_any_path_and_follows_the_content(gobuild, tmp_path):
    env = {"CC": "gcc", "CGO_CFLAGS": "-I/usr/include/python3.11 -O2"}
    argv = ["go", "build", "-trimpath"]
    work_a, mod_a = _tree(str(tmp_path / "a"), "kit")
    work_b, _ = _tree(str(tmp_path / "b" / "a much" / "longer path"), "elsewhere/kit")
    assert gobuild._work_dirs(work_a) == [work_a, mod_a]
    first = gobuild.content_build_id("go", argv, env, work_a)
    assert first == gobuild.content_build_id("go", argv, env, work_b)
    assert len(first) == 65 and first[32] == "/"
    # what changes the code changes the id: a source, a flag, the compiler, the command
    with open(os.path.join(mod_a, "sum", "sum.go"), "a") as f:
        f.write("\n// an edit\n")
    edited = gobuild.content_build_id("go", argv, env, work_a)
    assert edited != first
    assert gobuild.content_build_id("go", argv, dict(env, CGO_CFLAGS="-I/x -O3"), work_b) != first
    assert gobuild.content_build_id("go", argv, dict(env, CC="clang"), work_b) != first
    assert gobuild.content_build_id("go", [*argv, "-race"], env, work_b) != first
    # but not where the compiler or the Python headers are
    gcc = shutil.which("gcc")
    if gcc is not None:
        os.makedirs(tmp_path / "bin")
        os.symlink(gcc, tmp_path / "bin" / "gcc")
        assert gobuild.content_build_id("go", argv, dict(env, CC=str(tmp_path / "bin" / "gcc")), work_b) == first
    include = sysconfig.get_paths()["include"]
    assert (gobuild.content_build_id("go", argv, dict(env, CGO_CFLAGS=f"-I{include} -O2"), work_b)
            == gobuild.content_build_id("go", argv, dict(env, CGO_CFLAGS="-O2"), work_b))
    shutil.copy(os.path.join(mod_a, "sum", "sum.go"), os.path.join(str(tmp_path / "b" / "a much" / "longer path"),
                                                                   "elsewhere", "kit", "sum", "sum.go"))
    assert gobuild.content_build_id("go", argv, env, work_b) == edited


def test_a_release_build_names_its_content_and_a_debug_build_does_not(gobuild, tmp_path):
    work, _ = _tree(str(tmp_path), "kit")
    argv, env = gobuild.go_build_command("go", str(tmp_path / "x.so"), work, environ={"CC": "gcc"})
    ld = next(a for a in argv if a.startswith("-ldflags="))
    want = gobuild.content_build_id("go", argv[:argv.index("-trimpath") + 1], env, work)
    assert f" -buildid={want} " in ld
    argv, _ = gobuild.go_build_command("go", str(tmp_path / "x.so"), work, debug=True, environ={"CC": "gcc"})
    assert "-buildid" not in next(a for a in argv if a.startswith("-ldflags="))


def _tarball(path, mtime, uid, order):
    with tarfile.open(path, "w:gz") as t:
        for name in order:
            data = f"contents of {name}\n".encode()
            info = tarfile.TarInfo(f"pkg-1.0/{name}")
            info.size, info.mtime, info.uid, info.uname, info.mode = len(data), mtime, uid, f"user{uid}", 0o664
            t.addfile(info, io.BytesIO(data))


def _bytes(path):
    with open(path, "rb") as f:
        return f.read()


def test_the_sdist_is_the_same_bytes_whenever_and_by_whomever_made(tmp_path):
    setup = _load("godlpack_setup_repro", os.path.join(ROOT, "setup.py"))
    a, b = str(tmp_path / "a.tar.gz"), str(tmp_path / "b.tar.gz")
    _tarball(a, 1_000_000, 1000, ["setup.py", "README.md"])
    _tarball(b, 2_000_000, 0, ["README.md", "setup.py"])
    assert _bytes(a) != _bytes(b)
    for p in (a, b):
        setup.normalize_tarball(p, 1_700_000_000)
    assert _bytes(a) == _bytes(b)
    with tarfile.open(a) as t:
        members = t.getmembers()
        assert [m.name for m in members] == ["pkg-1.0/README.md", "pkg-1.0/setup.py"]
        assert {(m.mtime, m.uid, m.uname, m.mode) for m in members} == {(1_700_000_000, 0, "", 0o644)}
        assert t.extractfile("pkg-1.0/setup.py").read() == b"contents of setup.py\n"
