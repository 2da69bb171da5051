"""The suite's own rule: with CI=true a missing library fails, never skips
(conftest.py and _helpers.requires / need / missing), pytest.importorskip
included; a skip for absent hardware stays a skip."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ABSENT = "godlpack_no_such_module"

_PROBE = f"""
import pytest
from _helpers import missing, need, requires

def test_importorskip():
    pytest.importorskip("{ABSENT}")

@requires("{ABSENT}")
def test_requires():
    pass

def test_need():
    need("{ABSENT}")

def test_missing():
    missing("this torch has no such feature")

def test_no_gpu_skip():
    pytest.skip("no GPU")

@pytest.mark.skipif(True, reason="no GPU")
def test_no_gpu_skipif():
    pass
"""

_PROBE_MODULE = f"""
import pytest
lib = pytest.importorskip("{ABSENT}")

def test_uses_lib():
    pass
"""


def _outcomes(tmp_path, ci, **extra_env):
    """{test name (the module's name for the whole module): passed/failed/error/skipped}."""
    import xml.etree.ElementTree as ET

    for name in ("conftest.py", "_helpers.py"):
        shutil.copy(os.path.join(HERE, name), tmp_path / name)
    (tmp_path / "test_probe.py").write_text(_PROBE)
    (tmp_path / "test_probe_module.py").write_text(_PROBE_MODULE)
    env = dict(os.environ, CI="true" if ci else "false", **extra_env)
    if "GODLPACK_TEST_LIBS" not in extra_env:
        env.pop("GODLPACK_TEST_LIBS", None)
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "--no-header", "-p", "no:cacheprovider",
                        "--continue-on-collection-errors", "--junitxml", "junit.xml", "."],
                       capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    out = {}
    for case in ET.parse(tmp_path / "junit.xml").iter("testcase"):
        kids = [k.tag for k in case if k.tag in ("failure", "error", "skipped")]
        out[case.get("name")] = kids[0] if kids else "passed"
    return out, p.stdout + p.stderr


@pytest.mark.parametrize("ci", [False, True], ids=["local", "CI"])
def test_missing_library_fails_under_ci(tmp_path, ci):
    out, log = _outcomes(tmp_path, ci)
    lib = ("failure", "error") if ci else ("skipped",)
    for test in ("test_importorskip", "test_requires", "test_need", "test_missing", "test_probe_module"):
        assert out.get(test) in lib, (test, out, log)
    for test in ("test_no_gpu_skip", "test_no_gpu_skipif"):
        assert out.get(test) == "skipped", (test, out, log)


@pytest.mark.parametrize("declared,absent_skips", [("numpy,torch", True), (f"numpy,{ABSENT}", False)])
def test_declared_library_set_under_ci(tmp_path, declared, absent_skips):
    """GODLPACK_TEST_LIBS narrows what CI=true promises (make test-wheel's 3.13 venv):
    a library outside the list skips; one inside it still fails when missing."""
    out, log = _outcomes(tmp_path, True, GODLPACK_TEST_LIBS=declared)
    lib = ("skipped",) if absent_skips else ("failure", "error")
    for test in ("test_importorskip", "test_requires", "test_need", "test_probe_module"):
        assert out.get(test) in lib, (test, out, log)
    assert out.get("test_missing") in ("failure", "error"), (out, log)  # features are not libraries


# Libraries (and tools) a test may need; a skip that names one hides a missing install.
_LIBRARY_WORDS = ("numpy", "torch", "ml_dtypes", "jax", "dpnp", "dpctl", "dask", "distributed", "ray", "pandas",
                  "pyarrow", "polars", "xarray", "zarr", "sklearn", "joblib", "installed", "toolchain")


def test_the_suite_skips_only_for_hardware_and_platform():
    """No test module calls pytest.importorskip, and no pytest.skip or skipif names a library:
    those go through _helpers (requires / need / missing), which fail under CI=true."""
    import re

    bad = []
    for name in sorted(os.listdir(HERE)):
        if not name.endswith(".py") or name in ("_helpers.py", "conftest.py", "test_ci_skips.py"):
            continue
        with open(os.path.join(HERE, name), encoding="utf-8") as f:
            for no, line in enumerate(f, 1):
                if "importorskip(" in line:
                    bad.append(f"{name}:{no}: {line.strip()}")
                m = re.search(r"pytest\.skip\((.*)|skipif\(.*reason=(.*)", line)
                if m and any(w in (m.group(1) or m.group(2)).lower() for w in _LIBRARY_WORDS):
                    bad.append(f"{name}:{no}: {line.strip()}")
    assert not bad, "use _helpers.requires / need / missing instead:\n" + "\n".join(bad)
