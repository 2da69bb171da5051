"""The composed-kit cache and the check of a new composed module, without
building one (issue 36, items 4-6, 10-12): what enters a cache key, what a
verification child's death or hang becomes, damaged or read-only entries,
a killed builder's leftovers, and a wait on another builder. The end-to-end
runs with real kits are in test_kits.py."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from godlpack import _gofiles, _kits


def _module(tmp, files):
    root = tmp / "kit"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


_GO_WITH_EMBED = textwrap.dedent("""\
    package kitq

    import _ "embed"

    //go:embed data/table.txt "quoted name.txt"
    var table string
    """)


def test_module_files_are_what_a_go_build_reads(tmp_path):
    root = _module(tmp_path, {
        "go.mod": "module example.com/kitq\n", "go.sum": "", "kitq.go": _GO_WITH_EMBED,
        "asm_amd64.S": "", "asm_arm64.s": "", "help.c": "", "help.h": "", "kitq_test.go": "",
        "data/table.txt": "1 2 3", "data/other.txt": "", "quoted name.txt": "", "kitq/__init__.py": "",
        "README.md": "", "build/lib/x.go": "", ".git/x.go": "", "nested/go.mod": "", "nested/n.go": "",
    })
    assert _gofiles.module_files(str(root)) == sorted([
        "asm_amd64.S", "asm_arm64.s", "data/table.txt", "go.mod", "go.sum", "help.c", "help.h", "kitq.go",
        "quoted name.txt"])
    assert "kitq_test.go" in _gofiles.module_files(str(root), tests=True)


@pytest.mark.parametrize("edit,rebuilds", [
    ("asm_amd64.S", True), ("data/table.txt", True), ("kitq.go", True), ("go.mod", True),
    ("kitq/__init__.py", False), ("README.md", False), ("kitq_test.go", False),
])
def test_a_cache_key_changes_with_every_file_the_build_reads(tmp_path, edit, rebuilds):
    root = _module(tmp_path, {
        "go.mod": "module example.com/kitq\n", "kitq.go": _GO_WITH_EMBED, "asm_amd64.S": "",
        "data/table.txt": "1", "quoted name.txt": "", "kitq/__init__.py": "", "README.md": "", "kitq_test.go": "",
    })
    stock = sys.modules["godlpack._native"].__file__
    kits = [("kitq", [str(root)])]
    before = _kits._key(kits, stock)
    with open(root / edit, "a") as f:
        f.write("\n// edited\n")
    assert (_kits._key(kits, stock) != before) == rebuilds


def _fake_module(tmp, body):
    """A Python file in place of a composed module: the verification child
    loads whatever the path holds (a .py path gets Python's loader)."""
    p = tmp / "fake_native.py"
    p.write_text(textwrap.dedent(body))
    return str(p)


@pytest.mark.parametrize("body,said", [
    ("import os\nos._exit(0)\n",
     "ended (with status 0) before it finished loading, with nothing on stderr: a kit's Go init function ends "
     "the process (os.Exit)"),
    ("import os\nos.write(2, b'panic: kit init says \\xff no\\n\\ngoroutine 1 [running]:\\nmain.init()\\n')\n"
     "os._exit(2)\n",
     "a kit's Go init function failed: panic: kit init says \ufffd no"),
    ("raise RuntimeError('registering \"half\": no')\n", "RuntimeError: registering \"half\": no"),
])
def test_a_verification_child_that_ends_early_is_a_failure_with_its_reason(tmp_path, body, said):
    with pytest.raises(SystemExit) as e:
        _kits._verify(_fake_module(tmp_path, body))
    assert said in str(e.value)


def test_a_verification_child_that_hangs_is_a_failure_after_the_timeout(tmp_path, monkeypatch):
    monkeypatch.setattr(_kits, "VERIFY_TIMEOUT_S", 2)
    with pytest.raises(SystemExit, match=r"did not finish in 2 s: a kit's Go init function blocks"):
        _kits._verify(_fake_module(tmp_path, "import time\ntime.sleep(60)\n"))


def test_a_verification_child_that_loads_passes(tmp_path):
    assert _kits._verify(_fake_module(tmp_path, "def _install_gofuncs():\n    pass\n")) is None


def _entry(tmp, content=b"a module"):
    where = tmp / "cache" / "k"
    where.mkdir(parents=True, mode=0o700)
    (tmp / "cache").chmod(0o700)
    out = where / "_native.abi3.so"
    out.write_bytes(content)
    (where / "_native.abi3.so.sha256").write_text(_kits._digest(str(out)) + "\n")
    return where, out


@pytest.mark.parametrize("damage", ["truncated", "overwritten", "sha256 removed"])
def test_a_damaged_cached_module_is_not_loaded(tmp_path, damage):
    where, out = _entry(tmp_path)
    assert _kits._cached(str(where), str(out))
    if damage == "truncated":
        out.write_bytes(b"a mod")
    elif damage == "overwritten":
        out.write_bytes(b"a MODULE")
    else:
        (where / "_native.abi3.so.sha256").unlink()
    assert not _kits._cached(str(where), str(out))


def test_a_cached_module_on_a_read_only_filesystem_is_served(tmp_path, monkeypatch):
    kit = _module(tmp_path, {"go.mod": "module example.com/kitq\n", "kitq.go": "package kitq\n"})
    stock = sys.modules["godlpack._native"].__file__
    kits = [("kitq", [str(kit)])]
    monkeypatch.setenv("GODLPACK_KITS_CACHE", str(tmp_path / "cache"))
    where = tmp_path / "cache" / _kits._key(kits, stock)
    where.mkdir(parents=True, mode=0o700)
    out = where / "_native.abi3.so"
    out.write_bytes(b"built before")
    (where / "_native.abi3.so.sha256").write_text(_kits._digest(str(out)))

    def read_only(*a, **k):
        raise OSError(30, "Read-only file system", str(out))

    monkeypatch.setattr(os, "utime", read_only)
    assert _kits.composite(kits, stock) == str(out)


def test_a_builder_waits_for_another_saying_so_and_removes_a_killed_builders_leftovers(tmp_path, capsys):
    where = tmp_path / "entry"
    where.mkdir(mode=0o700)
    (where / "_native.4242.tmp.abi3.so").write_bytes(b"x" * 1000)  # a builder killed mid-build
    (where / "_gokit.so.4243.tmp").write_bytes(b"x")
    hold = ("import fcntl, os, sys, time\n"
            "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            "time.sleep(1)\n"
            "print('letting go', flush=True)\n"
            "fcntl.flock(fd, fcntl.LOCK_UN)\n")
    other = subprocess.Popen([sys.executable, "-c", hold, str(where / ".lock")], stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout is not None and other.stdout.readline().strip() == "held"
        with _kits._locked(str(where), "composing godlpack with the Go kits kitq"):
            assert other.stdout.readline().strip() == "letting go"  # it had to, first
            assert sorted(os.listdir(where)) == [".lock"]
    finally:
        other.wait(30)
    said = capsys.readouterr().err
    assert f"godlpack: waiting for another process composing godlpack with the Go kits kitq (it holds {where}/.lock)" \
        in said


def test_the_lock_is_never_a_link(tmp_path):
    where = tmp_path / "entry"
    where.mkdir(mode=0o700)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (where / ".lock").symlink_to(victim)
    with pytest.raises(OSError), _kits._locked(str(where), "composing"):
        pass
    assert victim.read_text() == "keep me"


def test_a_relative_xdg_cache_home_is_ignored(monkeypatch, tmp_path):
    """As Go does: a relative one would put the cache (and what it loads)
    under whatever folder Python runs in."""
    monkeypatch.delenv("GODLPACK_KITS_CACHE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", ".cache")
    assert _kits.cache_dir() == os.path.join(str(tmp_path), ".cache", "godlpack", "kits")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _kits.cache_dir() == os.path.join(str(tmp_path / "xdg"), "godlpack", "kits")


@pytest.mark.parametrize("mode", [0o720, 0o702, 0o777])
def test_an_entry_others_may_write_is_refused_with_the_reason(tmp_path, mode):
    where, out = _entry(tmp_path)
    os.chmod(out, mode)
    with pytest.raises(OSError, match=r"may be written by others .*chmod go-w it, or remove it"):
        _kits._cached(str(where), str(out))
    os.chmod(out, 0o700)
    os.chmod(where, mode)
    with pytest.raises(OSError, match=r"the kit cache entry .* may be written by others"):
        _kits._entry(str(where))


def test_a_new_cache_is_private(tmp_path):
    where = tmp_path / "new-cache" / "key"
    _kits._entry(str(where))
    assert os.stat(where.parent).st_mode & 0o777 == 0o700 and os.stat(where).st_mode & 0o777 == 0o700
