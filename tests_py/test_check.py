"""`python -m godlpack check`: the conformance checker grades producers by
core's rules (core/conformance/). Its self-test: each deliberately broken
producer of tests_py/broken_dlpack fails exactly the checks it breaks and
passes every other; godlpack and numpy pass every check."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import pytest

from _helpers import requires
from _subproc import run_group
from godlpack import _check

HERE = os.path.dirname(os.path.abspath(__file__))

# module -> the checks its break fails (FAIL or CRASH)
BROKEN = {
    "broken_dlpack.legacy_always": {"P1.name"},
    "broken_dlpack.version_two": {"P1.version"},
    "broken_dlpack.versioned_below_one": {"P1.name"},
    "broken_dlpack.read_only_ignored": {"P2.read_only"},
    "broken_dlpack.immutable_writable": {"P2.read_only"},
    "broken_dlpack.bool_as_uint8": {"S.values"},
    "broken_dlpack.wrong_refusals": {"P2.read_only", "P3.dl_device", "P4.copy"},
    "broken_dlpack.copy_unflagged": {"P4.copy"},
    "broken_dlpack.stream_ignored": {"P5.stream"},
    "broken_dlpack.crash_major_two": {"X.crash"},
    "broken_dlpack.leaky_deleter": {"P6.destructor", "P7.thread"},
    "broken_dlpack.destructor_after_rename": {"P6.destructor"},
    "broken_dlpack.api_empty": {"C9.header", "C9.export", "C9.allocator", "C9.to_py"},
    "broken_dlpack.device_id_none": {"P8.device"},
    "broken_dlpack.c_drops_keywords": {"C7.pass"},
    "broken_dlpack.c_legacy_only": {"C1.versioned"},
    "broken_dlpack.c_never_deletes": {"C3.deleter"},
    "broken_dlpack.c_deletes_twice": {"C3.deleter"},
    "broken_dlpack.c_no_rename": {"C3.rename"},
    "broken_dlpack.c_read_only_ignored": {"C5.read_only"},
    "broken_dlpack.c_crash_major_two": {"X.crash"},
    "broken_dlpack.c_crash_negative_strides": {"X.crash"},
    "broken_dlpack.c_bfloat16_as_float16": {"C.values"},
    "broken_dlpack.c_packed_read_padded": {"C.values"},
}
# every check's level, as docs/rules.md ("Levels") argues it from the standard's text:
# a broken library fails its checks at these levels (core's table must agree)
LEVEL = {**dict.fromkeys(["S.struct", "S.values", "P3.dl_device", "P4.copy", "P5.stream", "P8.device",
                          "P6.destructor", "P7.thread", "C9.header", "C9.export", "C9.allocator", "C3.rename",
                          "C3.deleter", "C.values", "C7.copy", "C9.to_py", "C4.refuse", "X.import", "X.crash",
                          "X.hang"], "MUST"),
         **dict.fromkeys(["P1.name", "P1.version", "P2.read_only", "C1.versioned", "C1.fallback"], "SHOULD"),
         **dict.fromkeys(["C5.read_only", "C7.pass", "C4.class", "C3.pydtor"], "godlpack")}
# the checks of a C exchange API, which numpy's arrays (all but api_empty's) lack
NO_API = {"C9.header", "C9.export", "C9.allocator", "C9.to_py"}
# checks a break leaves without a case to judge
# never asked for a versioned capsule, nothing read-only or damaged reached c_legacy_only
UNJUDGED = {"broken_dlpack.c_legacy_only": {"C5.read_only", "C4.refuse", "C4.class", "C3.pydtor"},
            # its consumer dies on every version 2.0 capsule, the Python-destructor one too
            "broken_dlpack.c_crash_major_two": {"C3.pydtor"},
            # a capsule of version 2.0 cannot be consumed to be released
            "broken_dlpack.version_two": {"P7.thread"}}


@pytest.fixture
def broken_path(monkeypatch):
    """The broken producers importable here and in the checker's children."""
    monkeypatch.syspath_prepend(HERE)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [HERE, os.environ.get("PYTHONPATH")])))


def _outcome(report):
    return {c["id"]: c["result"] for c in report.checks}


@requires("numpy")
@pytest.mark.parametrize("module", sorted(BROKEN))
def test_each_broken_producer_fails_exactly_what_it_breaks(module, broken_path):
    r = _check.check(module)
    got = _outcome(r)
    bad = {k for k, v in got.items() if v in ("FAIL", "CRASH")}
    assert bad == BROKEN[module], got
    na = UNJUDGED.get(module, set()) | (set() if module == "broken_dlpack.api_empty" else NO_API)
    assert all(v == "PASS" for k, v in got.items() if k not in bad | na), got
    assert all(got[k] == "N/A" for k in na), got
    assert not r.ok
    assert {c["id"]: c["level"] for c in r.checks} == LEVEL, "core's levels differ from the table"
    for c in r.checks:
        if c["id"] in bad:  # evidence and a reproducer for each failure
            assert c["evidence"] and all(e["evidence"] for e in c["evidence"])
            assert all(e["reproducer"].startswith("import numpy as np\n") for e in c["evidence"])


@requires("numpy")
def test_godlpack_passes_every_check():
    r = _check.check("godlpack")
    assert r.ok and all(v == "PASS" for v in _outcome(r).values()), _outcome(r)
    assert r.calls > 200


@requires("numpy")
def test_numpy_passes_every_must_and_fails_numpy_32697_and_the_refusal_class():
    """numpy passes at --level must. Its findings are godlpack's advice: a
    capsule whose destructor is Python code, refused by np.from_dlpack, dies
    with numpy's exception in flight, so the destructor cannot run and the
    deleter never does (numpy#32697, open: C3.pydtor; from_dlpack then raises
    SystemError). Before 2.5 numpy also refuses dtypes it lacks with
    RuntimeError ("Unsupported dtype in DLTensor."), not BufferError
    (C4.class); numpy 2.5 raises BufferError."""
    import numpy as np

    r = _check.check("numpy", level="must")
    got = _outcome(r)
    assert all(got[k] == "N/A" for k in NO_API), got
    assert {k for k, v in got.items() if v != "PASS"} - NO_API == {"C3.pydtor", "C4.class"}, (np.__version__, got)
    assert got["C3.deleter"] == "PASS" and r.ok and r.failures() == "", r.failures()
    checks = {c["id"]: c for c in r.checks}
    assert _check.failure_text(checks["C3.pydtor"]).startswith("C3.pydtor FAIL (godlpack)")
    assert checks["C3.pydtor"]["evidence"] and all(_check.PYDTOR in e["case"] and "ran 0 times" in e["evidence"]
                                                    for e in checks["C3.pydtor"]["evidence"])
    assert "with_python_destructor" in checks["C3.pydtor"]["evidence"][0]["reproducer"]
    old = tuple(int(x) for x in np.__version__.split(".")[:2]) < (2, 5)
    classes = {e["evidence"].split(" with ")[1].split(" ")[0] for e in checks["C4.class"]["evidence"]}
    assert classes == ({"RuntimeError", "SystemError"} if old else {"SystemError"}), checks["C4.class"]["evidence"]


# Each library's findings, as docs/conformance.md's report cards give them
# for the versions requirements-interop.txt pins: the checks it fails. A
# change is a new finding of the checker or a library that changed; the card
# says which, and is rerun with it.
FINDINGS = {
    "torch": {"P3.dl_device", "P4.copy", "C4.class"},
    "jax": {"P3.dl_device", "P1.name", "P2.read_only", "C1.versioned", "C7.copy", "C7.pass", "C4.class", "C.values"},
    "dpnp": {"C3.pydtor", "C.values", "C4.class"},
    "array_api_strict": {"C3.pydtor", "C7.pass", "C4.class"},
    "pyarrow": {"P2.read_only"},
}
# the findings that are the standard's MUSTs (check --level must fails on them)
MUST_FINDINGS = {"torch": {"P3.dl_device", "P4.copy"}, "jax": {"P3.dl_device", "C7.copy", "C.values"},
                 "dpnp": {"C.values"}, "array_api_strict": set(), "pyarrow": set()}


@pytest.mark.parametrize("lib", [pytest.param(lib, marks=requires(lib)) for lib in sorted(FINDINGS)])
def test_the_report_cards_hold(lib):
    r = _check.check(lib, level="must")
    bad = {c["id"] for c in r.checks if c["result"] in ("FAIL", "CRASH", "HANG")}
    assert bad == FINDINGS[lib], _outcome(r)
    assert {c["id"] for c in r.checks if c["id"] in bad and r.gated(c)} == MUST_FINDINGS[lib]
    assert r.ok == (not MUST_FINDINGS[lib])


# broken_dlpack.hostile's attacks on the checker (issue 36, item 7): where:what
# -> the process check it fails. Each run has 3 s per case (--timeout 3).
HOSTILE = {
    "import:segfault": "X.import", "import:exit": "X.import", "import:systemexit": "X.import",
    "import:hang": "X.import",
    "dlpack:segfault": "X.crash", "dlpack:exit": "X.crash", "dlpack:systemexit": "X.crash",
    "dlpack:keyboardinterrupt": "X.crash", "dlpack:garbage": "X.crash", "dlpack:hang": "X.hang",
    "device:segfault": "X.crash", "device:hang": "X.hang",
    "from_dlpack:segfault": "X.crash", "from_dlpack:exit": "X.crash", "from_dlpack:hang": "X.hang",
}


@requires("numpy")
@pytest.mark.slow
@pytest.mark.parametrize("mode", sorted(HOSTILE))
def test_a_target_that_kills_or_hangs_its_process_is_a_crash_or_hang_line(mode, broken_path, monkeypatch):
    """Never the checker's own death, hang or traceback: the line of the
    process check names the case (or the import), and the exit status is 1."""
    monkeypatch.setenv("GODLPACK_HOSTILE", mode)
    start = time.monotonic()
    p = run_group([sys.executable, "-m", "godlpack", "check", "broken_dlpack.hostile", "--timeout", "3"], 300,
                  dict(os.environ))
    assert p is not None, "the checker hung"
    print(f"{mode}: {time.monotonic() - start:.1f} s")
    want = HOSTILE[mode]
    kind = "HANG" if mode.endswith(":hang") else "CRASH"
    assert p.returncode == 1, p.stdout[-3000:] + p.stderr[-3000:]
    assert "Traceback" not in p.stdout + p.stderr, p.stdout[-3000:] + p.stderr[-3000:]
    line = next(x for x in p.stdout.splitlines() if x.strip().startswith(want))
    assert line.split()[1] == kind, p.stdout
    others = [x for x in p.stdout.splitlines() if x.strip().startswith("X.") and not x.strip().startswith(want)]
    assert all(x.split()[1] == "PASS" for x in others), p.stdout
    said = p.stdout.split(line + "\n", 1)[1].splitlines()[0].strip()  # its first piece of evidence
    assert said.startswith("import broken_dlpack.hostile:" if want == "X.import" else "bool "), p.stdout
    assert ("no answer in" if kind == "HANG" else "the process ended") in said, said


@requires("numpy")
@pytest.mark.parametrize("where", ["import", "dlpack"])
def test_what_a_target_prints_cannot_confuse_the_checker(where, broken_path, monkeypatch):
    """A MiB on stderr and lines on stdout (one of them looks like the
    checker's own answers) at import or in every __dlpack__: the report is
    the report of the target it wraps, numpy."""
    monkeypatch.setenv("GODLPACK_HOSTILE", f"{where}:flood")
    r = _check.check("broken_dlpack.hostile")
    got = _outcome(r)
    assert r.ok and all(v == "PASS" for k, v in got.items() if k not in NO_API), got


@requires("numpy")
def test_a_crash_is_reported_and_the_rest_still_runs(broken_path):
    r = _check.check("broken_dlpack.crash_major_two")
    crash = next(c for c in r.checks if c["id"] == "X.crash")
    assert crash["failed"] == 7  # the seven max_version=(2, 0) calls, each in its own child
    assert "max_version=(2, 0)" in crash["evidence"][0]["case"]
    assert _outcome(r)["P1.name"] == "PASS"  # the calls after each crash were judged


@requires("numpy")
def test_the_reproducer_reproduces(broken_path):
    """The reproducer of a failure is the code the checker ran: run alone it
    gives the same capsule."""
    r = _check.check("broken_dlpack.copy_unflagged")
    ev = next(c for c in r.checks if c["id"] == "P4.copy")["evidence"][0]
    code = ev["reproducer"].replace("import numpy as np\n", "import numpy as np\nimport broken_dlpack.copy_unflagged as xp\n", 1)
    code += "\nfrom _helpers import CapsuleInfo\nprint(CapsuleInfo(cap).is_copied)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ)
    said, is_copied = out.stdout.strip().splitlines()  # the reproducer's own line, then the test's
    assert "IS_COPIED False" in said and is_copied == "False", out.stdout


@requires("numpy")
def test_command_line_and_json(tmp_path, broken_path):
    out = tmp_path / "r.json"
    p = subprocess.run([sys.executable, "-m", "godlpack", "check", "broken_dlpack.stream_ignored", "--json", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "P5.stream      FAIL" in p.stdout, p.stdout
    assert "summary: MUST 15 PASS, 1 FAIL, 4 N/A; SHOULD 5 PASS, 0 FAIL, 0 N/A; godlpack 4 PASS, 0 FAIL, 0 N/A; " \
        "at --level godlpack: FAILED" in p.stdout, p.stdout
    doc = json.loads(out.read_text())
    assert doc["target"] == "broken_dlpack.stream_ignored" and doc["level"] == "godlpack" and not doc["ok"]
    assert {c["id"]: c["level"] for c in doc["checks"]} == LEVEL
    assert {c["id"] for c in doc["checks"]} == {"P1.name", "P1.version", "S.struct", "S.values", "P2.read_only",
                                                "P3.dl_device", "P4.copy", "P5.stream", "P8.device", "P6.destructor",
                                                "P7.thread", "C9.header", "C9.export", "C9.allocator",
                                                "C1.versioned", "C1.fallback", "C3.rename", "C3.deleter", "C3.pydtor",
                                                "C5.read_only", "C.values", "C7.copy", "C9.to_py", "C7.pass",
                                                "C4.refuse", "C4.class", "X.import", "X.crash", "X.hang"}
    assert all(c["result"] in ("PASS", "FAIL", "N/A", "CRASH", "HANG") for c in doc["checks"])
    p = subprocess.run([sys.executable, "-m", "godlpack", "check", "no_such_module_xyz"], capture_output=True, text=True)
    assert p.returncode == 2 and "cannot import 'no_such_module_xyz'" in p.stderr


@requires("numpy")
@pytest.mark.parametrize("target,outcome", [("broken_dlpack.stream_ignored", "1 failed, 24 passed, 4 skipped"),
                                            ("godlpack", "29 passed")])
def test_the_checks_as_pytest_tests(target, outcome, tmp_path, broken_path):
    """pytest --pyargs godlpack.testing.conformance --dlpack-target=...: one
    test per check, the failure with its evidence (the option comes from the
    package's pytest11 entry point)."""
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--pyargs",
                        "godlpack.testing.conformance", f"--dlpack-target={target}"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert outcome in p.stdout, p.stdout[-3000:] + p.stderr[-2000:]
    if "failed" in outcome:
        assert "FAILED ::test_dlpack[P5.stream]" in p.stdout and "cap = x.__dlpack__(max_version=(1, 3), stream=5)" in p.stdout


@requires("numpy")
def test_dlpack_report_for_a_libraries_own_tests(broken_path):
    from godlpack.testing import dlpack_report

    r = dlpack_report("broken_dlpack.read_only_ignored", roles=("producer",))
    assert not r.ok
    assert {c["id"] for c in r.checks if c["result"] == "FAIL"} == {"P2.read_only"}
    text = r.failures()  # what the testing docstring puts in its assert
    assert text.startswith("P2.read_only FAIL (SHOULD): ") and "__dlpack__" in text and "PASS" not in text, text
    # a flag's reproducer prints the flag, which shows the failure when run
    repro = next(e["reproducer"] for c in r.checks if c["id"] == "P2.read_only" for e in c["evidence"]
                 if "max_version=(1, 3)" in e["reproducer"])
    p = subprocess.run([sys.executable, "-c", repro], capture_output=True, text=True, cwd=HERE)
    assert p.returncode == 0 and "READ_ONLY False, IS_COPIED False; data 0x" in p.stdout, p.stdout + p.stderr


@requires("numpy")
@pytest.mark.parametrize("module,level,rc", [
    ("broken_dlpack.stream_ignored", "must", 1),        # P5.stream: a MUST
    ("broken_dlpack.legacy_always", "must", 0),         # P1.name: a SHOULD
    ("broken_dlpack.legacy_always", "should", 1),
    ("broken_dlpack.c_read_only_ignored", "should", 0),  # C5.read_only: godlpack's advice
    ("broken_dlpack.c_read_only_ignored", "godlpack", 1),
])
def test_level_gates_only_on_the_checks_at_or_above_it(module, level, rc, broken_path):
    """--level must fails the run only for the standard's MUSTs; every check
    is still graded and reported, each under its level."""
    p = subprocess.run([sys.executable, "-m", "godlpack", "check", module, "--level", level], capture_output=True,
                       text=True)
    assert p.returncode == rc, p.stdout + p.stderr
    assert "MUST: what the standard requires" in p.stdout and "godlpack: our advice" in p.stdout, p.stdout
    verdict = "FAILED" if rc else "ok"
    assert f"at --level {level}: {verdict}" in p.stdout, p.stdout
    if level != "godlpack":
        assert f"(not gated at --level {level})" in p.stdout, p.stdout


@requires("numpy")
def test_an_immutable_library_is_judged_read_only_and_shown_written_through(broken_path):
    """A library declared immutable has every array judged as read-only
    (P2); the reproducer of a failure writes through a consumer that trusts
    the capsule and prints the library's array changed."""
    r = dlpack_report_of("broken_dlpack.immutable_writable")
    p2 = next(c for c in r.checks if c["id"] == "P2.read_only")
    assert p2["result"] == "FAIL" and p2["failed"] == p2["cases"] > 100, p2["failed"]
    repro = next(e["reproducer"] for e in p2["evidence"] if "legacy capsule came back" in e["evidence"])
    out = subprocess.run([sys.executable, "-c", repro], capture_output=True, text=True, cwd=HERE)
    # the first element was 0 (False for bool): the write shows
    assert out.returncode == 0 and re.search(r"the array begins \[\s*(42|True)\b", out.stdout), \
        out.stdout + out.stderr


def dlpack_report_of(module):
    return _check.check(module, roles=("producer",))


def test_an_unknown_level_is_a_value_error_naming_the_levels():
    with pytest.raises(ValueError, match=r"check\(\): level must be one of must, should, godlpack, not 'x'"):
        _check.check("numpy", level="x")


def test_the_pytest_checks_without_a_target_are_one_usage_error(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "GODLPACK_CHECK_TARGET"}
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--pyargs",
                        "godlpack.testing.conformance"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert p.returncode == 4, p.stdout + p.stderr
    assert p.stderr.count("ERROR:") == 1 and "--dlpack-target=MODULE" in p.stderr, p.stdout + p.stderr
    assert "error" not in p.stdout.lower(), p.stdout


@requires("dpnp")
def test_on_a_device():
    """--device oneapi:0: godlpack's arrays made on the SYCL device pass every
    check that bears on them (the values read back through the device's
    backend); read-only arrays and the host-only routes are N/A there."""
    r = _check.check("godlpack", device="oneapi:0")
    got = _outcome(r)
    assert r.device == "oneapi:0" and r.ok, got
    assert {k for k, v in got.items() if v == "N/A"} == {"P2.read_only", "C5.read_only", "C9.to_py", "C3.pydtor"}, got
    values = next(c for c in r.checks if c["id"] == "S.values")
    assert values["cases"] > 100
    # dpnp makes its arrays there; it is checked there by default
    assert _check.check("dpnp", roles=("producer",)).device == "oneapi:0"


@requires("numpy")
def test_a_device_the_target_has_not_is_refused_with_the_choices():
    p = subprocess.run([sys.executable, "-m", "godlpack", "check", "numpy", "--device", "oneapi:0"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "numpy is checked on cpu; pick one of those" in p.stderr, p.stderr


# A fault of the checker's own harness (here injected into the consumer
# children: core's judge raises) is an ERROR with its traceback and exit
# status 2, never a verdict (CRASH, FAIL) on the target.
_HARNESS_FAULT = """
import sys
if "--child" in sys.argv and "consumer" in sys.argv:
    import godlpack._native as n

    def _judge_import(case):
        raise KeyError("a fault of the harness, injected by the test")

    n._judge_import = _judge_import
"""


@requires("numpy")
def test_a_fault_of_the_checker_itself_is_an_error_not_a_verdict(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(_HARNESS_FAULT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    p = subprocess.run([sys.executable, "-m", "godlpack", "check", "numpy", "--role", "consumer"], capture_output=True,
                       text=True, env=env, timeout=300)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "check numpy: ERROR: the checker failed at consumer case " in p.stderr, p.stderr
    assert "KeyError: 'a fault of the harness, injected by the test'" in p.stderr, p.stderr
    assert "CRASH" not in p.stdout + p.stderr and "FAIL" not in p.stdout, p.stdout


@requires("dpnp")
def test_a_library_that_cannot_run_here_is_one_line_and_exit_2():
    """dpnp without its OpenCL runtime (no SYCL device): one line that says
    so, not a CRASH per case."""
    env = dict(os.environ, OCL_ICD_FILENAMES="")
    p = subprocess.run([sys.executable, "-m", "godlpack", "check", "dpnp"], capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 2 and p.stdout == "", p.stdout + p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("check: dpnp cannot make an array on oneapi:0: "), p.stderr


@requires("numpy")
def test_a_library_that_makes_another_dtype_is_judged_on_what_it_made(broken_path):
    """broken_dlpack.narrows_float64's asarray makes float32 of float64 data
    (as mlx's does): correct, so every check it bears on passes; the float64
    cases are judged as the float32 arrays they are."""
    r = _check.check("broken_dlpack.narrows_float64", roles=("producer",))
    got = _outcome(r)
    assert r.ok and got["S.values"] == "PASS", got
    assert not any("float64" in e["evidence"] for c in r.checks for e in c["evidence"])
