"""What the Go compiler proves about registered functions (_escapes.py): the
parameters a function keeps no pointer to, which gofunc.SetNotKept turns
into arrays lent from the call's frame. A fact wrongly given would let a
kept pointer read a later call's array, so every case where the proof is
missing or says the parameter leaks must give no fact."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GO = shutil.which("go")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"godlpack_{name}_t", os.path.join(ROOT, "python", "godlpack", f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


escapes = _load("_escapes")
gobuild = _load("_gobuild")

SRC = textwrap.dedent("""\
    package kit

    type A struct{ x []int64 }

    var K *A

    func Probe(a *A) float64 { return float64(len(a.x)) }
    func Keep(a *A) float64  { K = a; return 0 }
    func Wrapped(a *A,
    \tb *A) float64 { K = b; return 0 }
    func Content(a *A) []int64 { return a.x }
    func Two(a, b *A) float64 { return 0 }
    func (r *A) Method(a *A) float64 { return 0 }
    func Callback(f func(int) int, a *A) float64 { return 0 }
    """)


@pytest.fixture
def kitdir(tmp_path):
    d = tmp_path / "kit"
    d.mkdir()
    (d / "kit.go").write_text(SRC)
    return d


# (compiler message, the fact it may give) over SRC's lines
@pytest.mark.parametrize("lines, want", [
    (["kit.go:7:12: a does not escape"], {"example.com/kit.Probe": ["a"]}),
    (["kit.go:8:11: leaking param: a"], {}),
    (["kit.go:11:14: leaking param: a to result ~r0 level=1"], {}),
    (["kit.go:11:14: leaking param content: a"], {}),
    # the proved parameter of a wrapped signature, its sibling on the next line leaking
    (["kit.go:9:14: a does not escape", "kit.go:10:2: leaking param: b"], {"example.com/kit.Wrapped": ["a"]}),
    (["kit.go:12:10: a does not escape", "kit.go:12:13: b does not escape"], {"example.com/kit.Two": ["a", "b"]}),
    # a method, a signature cut at a function type's ')', a message in a body: no fact
    (["kit.go:13:7: r does not escape", "kit.go:13:20: a does not escape"], {}),
    (["kit.go:14:32: a does not escape"], {}),
    (["kit.go:7:40: a does not escape"], {}),
    # a proof and a leak of one name: no fact
    (["kit.go:12:10: a does not escape", "kit.go:12:10: leaking param: a"], {}),
    # messages of another package's file (inlined code)
    (["other/x.go:7:12: a does not escape"], {}),
])
@pytest.mark.parametrize("trimmed", [False, True])
def test_not_kept_places_each_message_in_its_signature(kitdir, lines, want, trimmed):
    prefix = "example.com/kit/" if trimmed else os.path.relpath(kitdir, kitdir.parent) + "/"
    out = "# example.com/kit\n" + "".join(prefix + ln + "\n" for ln in lines)
    assert escapes.not_kept(out, {"example.com/kit": str(kitdir)}, str(kitdir.parent)) == want


def test_list_command_compiles_as_the_build_does():
    argv = ["go", "build", "-buildvcs=false", "-tags", "pyext", "-buildmode=plugin", "-trimpath", "-ldflags=-s",
            "-o", "x.so", "."]
    assert escapes.list_command(argv, ["a/b", "c"]) == [
        "go", "list", "-export", "-tags", "pyext", "-buildmode=plugin", "-trimpath", "-gcflags=a/b=-m",
        "-gcflags=c=-m", "-f", "{{.ImportPath}}", "a/b", "c"]


def test_write_main_hands_the_facts_to_gofunc(tmp_path):
    main = gobuild.write_main(str(tmp_path / "w"), "mod", [], gosrc=ROOT,
                              not_kept={"example.com/kit.Probe": ["a", "b"]})
    text = (tmp_path / "w" / "main.go").read_text()
    assert '\tgofunc.SetNotKept("example.com/kit.Probe", "a", "b")\n' in text
    assert main == str(tmp_path / "w")


def _need_go():
    if GO is None:
        if os.environ.get("CI") == "true":
            pytest.fail("go is not on PATH")
        pytest.skip("go is not on PATH")


# The compiler's own messages, through analyse: what a kit gets. A kit
# function that reads its array through core's accessors is proved (core's
# Array takes its lock outside the object: a sync.Mutex inside it made every
# accessor leak the Array); one that stores or returns it is not.
def test_analyse_with_the_compiler(tmp_path):
    _need_go()
    kit = tmp_path / "kit"
    kit.mkdir()
    (kit / "go.mod").write_text("module example.com/kit\n\ngo 1.24\n\nrequire github.com/godlpack/godlpack v0.0.0\n")
    (kit / "kit.go").write_text(textwrap.dedent("""\
        package kit

        import "github.com/godlpack/godlpack/core"

        var kept *core.Array

        func Sum(a *core.Array) (float64, error) {
        \ts, err := a.Float64s()
        \tif err != nil {
        \t\treturn 0, err
        \t}
        \tt := 0.0
        \tfor _, v := range s {
        \t\tt += v
        \t}
        \treturn t, nil
        }

        func Peek(a *core.Array) (float64, error) {
        \tr, err := core.ReadSlice[float64](a)
        \tif err != nil || r.Len() == 0 {
        \t\treturn 0, err
        \t}
        \treturn r.At(0) + float64(a.Size()+int64(a.Ndim())) + float64(uintptr(a.DataPtr())&1), nil
        }

        func Keep(a *core.Array) (float64, error) { kept = a; return 0, nil }

        func Echo(a *core.Array) (*core.Array, error) { return a, nil }
        """))
    (tmp_path / "go.work").write_text(f"go {gobuild._go_version(ROOT)}\n\nuse (\n\t./kit\n\t{ROOT}\n)\n\n"
                                      f"replace github.com/godlpack/godlpack v0.0.0 => {ROOT}\n")
    env = dict(os.environ, GOWORK=str(tmp_path / "go.work"))
    argv = [GO, "build", "-tags", "pyext", "-o", os.devnull, "."]
    got = escapes.analyse(argv, env, str(tmp_path), ["example.com/kit"], {"example.com/kit": str(kit)})
    assert got == {"example.com/kit.Peek": ["a"], "example.com/kit.Sum": ["a"]}
    own = escapes.analyse(argv, dict(os.environ, GOWORK="off"), ROOT, [gobuild.BUILTINS],
                          {gobuild.BUILTINS: os.path.join(ROOT, "internal", "builtins")})
    assert own["github.com/godlpack/godlpack/internal/builtins.probe"] == ["a"]
    assert own["github.com/godlpack/godlpack/internal/builtins.MayShareMemory"] == ["a", "b"]
    assert "github.com/godlpack/godlpack/internal/builtins.keep" not in own


def test_a_failed_compile_proves_nothing(tmp_path):
    _need_go()
    kit = tmp_path / "kit"
    kit.mkdir()
    (kit / "go.mod").write_text("module example.com/kit\n\ngo 1.24\n")
    (kit / "kit.go").write_text("package kit\n\nfunc F(a *int) int { return *a + }\n")
    assert escapes.analyse([GO, "build"], dict(os.environ, GOWORK="off"), str(kit), ["example.com/kit"],
                           {"example.com/kit": str(kit)}) == {}
    assert subprocess.run([GO, "vet", "."], cwd=kit, capture_output=True).returncode != 0
