"""Reliability (issue 6, item 7): memory stays flat over long exchange loops.

Each test runs in a fresh interpreter (subprocess) so other tests' garbage does
not blur RSS: a warm-up of ROUNDS/10, then ROUNDS export/import rounds, and RSS
must grow by less than 2 MiB. ROUNDS is 1,000,000 (GODLPACK_MEMORY_ROUNDS
overrides it).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import godlpack as gd
from _helpers import need

PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(gd.__file__)))
HERE = os.path.dirname(os.path.abspath(__file__))
ROUNDS = int(os.environ.get("GODLPACK_MEMORY_ROUNDS", 1_000_000))

_SCRIPT = """
import gc, os, sys, time
import godlpack as gd
{imports}

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

{setup}

def one(i):
{body}

rounds = {rounds}
for i in range(rounds // 10):
    one(i)
gc.collect()
r0 = rss(); g0 = gd._native._go_allocs(); t0 = time.monotonic()
for i in range(rounds):
    one(i)
gc.collect()
dt = time.monotonic() - t0
print("RESULT", rss() - r0, gd._native._go_allocs() - g0, dt)
"""

_CASES = {
    "gd-versioned": ("", "a = gd.arange(0, 16, dtype='float32')",
                     "b = gd.from_dlpack(a.__dlpack__(max_version=(1, 3)))"),
    "gd-legacy": ("", "a = gd.arange(0, 16, dtype='float32')", "b = gd.from_dlpack(a.__dlpack__())"),
    "gd-object": ("", "a = gd.arange(0, 16, dtype='float32')[::2]", "b = gd.from_dlpack(a)"),
    "numpy-both-ways": ("import numpy as np", "x = np.arange(16.0)",
                        "b = np.from_dlpack(gd.from_dlpack(x))"),
    "torch-both-ways": ("import torch", "t = torch.arange(16.0)",
                        "b = torch.from_dlpack(gd.from_dlpack(t))"),
    "gd-view-copy": ("", "a = gd.arange(0, 24, dtype='float64').reshape((4, 6))", "b = a.T.copy()"),
    "gd-big-copy": ("", "a = gd.arange(0, 1 << 18, dtype='float64')", "b = a[::2].copy() if i % 16 == 0 else a[1:]"),
    "unconsumed-capsule": ("", "a = gd.arange(0, 16, dtype='float32')", "c = a.__dlpack__(max_version=(1, 3))"),
    "refused-capsule": ("", "a = gd.arange(0, 16, dtype='float32')",
                        "try:\n    a.__dlpack__(stream=7)\nexcept BufferError:\n    pass"),
}
_NEEDS = {"numpy-both-ways": "numpy", "torch-both-ways": "torch"}


def _run(case, rounds):
    imports, setup, body = _CASES[case]
    code = _SCRIPT.format(imports=imports, setup=setup, body=textwrap.indent(body, "    "), rounds=rounds)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([PKG_DIR, HERE, env.get("PYTHONPATH", "")])
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case}: {rounds} rounds did not finish in 300 s")
    assert p.returncode == 0, p.stderr
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT")][-1]
    grew, go_allocs, dt = line.split()[1:]
    return int(grew), int(go_allocs), float(dt)


@pytest.mark.slow
@pytest.mark.stress
@pytest.mark.parametrize("case", list(_CASES))
def test_rss_flat_over_many_rounds(case):
    if case in _NEEDS:
        need(_NEEDS[case])
    rounds = ROUNDS
    grew, go_allocs, dt = _run(case, rounds)
    print(f"{case}: {rounds} rounds in {dt:.1f} s, RSS {grew / 1024:+.0f} KiB, Go heap objects +{go_allocs}")
    assert grew < 2 << 20, f"{case}: RSS grew by {grew / 2**20:.2f} MiB over {rounds} rounds"
    if case != "refused-capsule":  # error messages are formatted on the Go heap
        assert go_allocs < 64, f"{case}: {go_allocs} Go heap objects over {rounds} rounds"
