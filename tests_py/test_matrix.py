"""`python -m godlpack matrix` (issue 4): the table lists every installed library
both ways, with what was negotiated, zero-copy or who copied, what happens to a
read-only source, and a time; the command exits 0 when every exchange behaved as
expected. The cells checked here are the behaviour the interop test modules
prove in detail (test_interop_*.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

import _dpenv  # noqa: F401  (OCL_ICD_FILENAMES for the child's dpctl)
from _helpers import requires

# Every test here starts `python -m godlpack matrix` or another interpreter.
pytestmark = pytest.mark.slow

# direction -> (negotiated, zero-copy, read-only): substrings of the cells
EXPECTED = {
    "numpy": {
        "godlpack -> numpy": ("(max_version=(1, 0)) -> dltensor_versioned 1.3", "yes", "kept"),
        "numpy -> godlpack": ("(max_version=(1, 3)) -> dltensor_versioned 1.0", "yes", "kept"),
    },
    "torch": {
        "godlpack -> torch": ("(max_version=(1, 0)) -> dltensor_versioned 1.3", "yes", "dropped (torch: always writable)"),
        "torch -> godlpack": ("C exchange API (no capsule)", "yes", "n/a"),
    },
    "dpnp": {
        "godlpack -> dpnp (device=None)": ("(max_version=(1, 0)) -> dltensor_versioned 1.3", "yes (numpy.ndarray)", "kept"),
        "godlpack (oneapi:0) -> dpnp": ("(max_version=(1, 0)) -> dltensor_versioned 1.3 on (14, 0)", "yes", "kept"),
        "godlpack (cpu) -> dpnp (device=": ("(max_version=(1, 0), dl_device=(14, 0)) -> dltensor_versioned 1.3 IS_COPIED on (14, 0)",
                                            "copy by godlpack (host -> device, IS_COPIED)", "n/a (a new copy)"),
        "dpnp -> godlpack": ("(max_version=(1, 3)) -> dltensor_versioned 1.3 on (14, 0)", "yes (on oneapi:0)", "kept"),
    },
    "jax": {
        "godlpack -> jax": ("(stream=None) -> dltensor", "yes (256-byte aligned)", "refused: BufferError (legacy only)"),
        "jax -> godlpack": ("(max_version=(1, 3)) -> dltensor", "yes", "n/a (legacy: imported writable)"),
    },
    "array_api_strict": {
        "godlpack -> array_api_strict": ("(max_version=(1, 0)) -> dltensor_versioned 1.3", "yes", "kept"),
        "array_api_strict -> godlpack": ("(max_version=(1, 3)) -> dltensor_versioned 1.0", "yes", "kept"),
    },
}


@pytest.fixture(scope="module")
def matrix_run():
    r = subprocess.run([sys.executable, "-m", "godlpack", "matrix"], capture_output=True, text=True,
                       timeout=300, env=dict(os.environ))
    return r


@pytest.fixture(scope="module")
def table(matrix_run):
    """{(library, direction): (negotiated, zero-copy, read-only, time)} parsed by column spans
    (printed as library, direction, zero-copy, read-only, time, negotiated)."""
    lines = matrix_run.stdout.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("library "))
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[i + 1])]
    assert len(spans) == 6, lines[i + 1]
    rows = {}
    for ln in lines[i + 2:]:
        if not ln.strip():
            break
        cells = [ln[a:b].strip() for a, b in spans[:5]] + [ln[spans[5][0]:].strip()]
        rows[(cells[0], cells[1])] = (cells[5], cells[2], cells[3], cells[4])
    return rows


def test_matrix_exit_status(matrix_run):
    assert matrix_run.returncode == 0, matrix_run.stdout + matrix_run.stderr
    m = re.search(r"^(\d+)/(\d+) exchanges as expected$", matrix_run.stdout, re.M)
    assert m and m.group(1) == m.group(2) and int(m.group(2)) >= 2


@pytest.mark.parametrize("lib", [pytest.param(lib, marks=requires(lib)) for lib in EXPECTED])
def test_matrix_library_rows(lib, matrix_run, table):
    mod = __import__(lib)
    assert f"{lib} {mod.__version__}" in matrix_run.stdout
    got = {d: c for (lb, d), c in table.items() if lb == lib}
    for direction, (neg, zc, ro) in EXPECTED[lib].items():
        match = [d for d in got if d == direction or (direction.endswith("=") and d.startswith(direction)
                                                      and not d.endswith("None)"))]
        assert len(match) == 1, f"{direction!r} not in {sorted(got)}"
        n, z, r, t = got[match[0]]
        assert neg in n, (direction, n)
        assert z.startswith(zc), (direction, z)
        assert r.startswith(ro), (direction, r)
        assert re.fullmatch(r"\d+(\.\d+)? (ns|µs|ms)", t), (direction, t)
    both = {d.split(" ")[0] for d in got}
    assert {"godlpack", lib} <= both, "both directions"


def test_matrix_gpu_rows_only_with_a_gpu(matrix_run):
    gpus = int(re.search(r"(\d+) CUDA GPU\(s\)", matrix_run.stdout).group(1))
    has_cuda_rows = "cuda:0" in matrix_run.stdout or "cupy" in matrix_run.stdout
    assert has_cuda_rows == (gpus > 0)


def test_matrix_usage():
    r = subprocess.run([sys.executable, "-m", "godlpack", "nonsense"], capture_output=True, text=True)
    assert r.returncode == 2 and "matrix" in r.stderr
