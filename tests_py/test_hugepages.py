"""Large fresh buffers are advised transparent huge pages (backends/hugepage.h),
on the CPU and as device USM of a SYCL CPU device (host memory there), as
numpy does for its own data: first touching them then faults a few hundred
times instead of tens of thousands, most of the time of a large copy in.

Each case runs in a fresh interpreter so that the buffer has its own mapping,
and reads the kernel's account of it (/proc/self/smaps)."""

from __future__ import annotations

import os
import sys
import textwrap

import pytest

from _helpers import requires
from _subproc import run_group

THP = "/sys/kernel/mm/transparent_hugepage/enabled"

CODE = textwrap.dedent("""
    import sys
    import godlpack as gd

    a = gd.empty((8 << 20,), dtype="float64", device=sys.argv[1])  # 64 MiB
    a.fill(1.0)  # the first touch
    mid = a.data_ptr + a.nbytes // 2  # the first page may hold the allocator's header
    inside = False
    for line in open("/proc/self/smaps"):
        f = line.split()
        if "-" in f[0] and all(c in "0123456789abcdef-" for c in f[0]):
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            inside = lo <= mid < hi
        elif inside and f[0] == "AnonHugePages:":
            print(int(f[1]) * 1024, a.nbytes)
            break
""")


def huge_bytes(device: str) -> tuple[int, int]:
    try:
        with open(THP) as f:
            mode = f.read()
    except OSError:
        pytest.skip(f"{THP} is absent: this kernel has no transparent huge pages")
    if "[never]" in mode:
        pytest.skip(f"transparent huge pages are off here ({THP}: {mode.strip()})")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    r = run_group([sys.executable, "-c", CODE, device], 120, env)
    assert r is not None, "timed out"
    assert r.returncode == 0, r.stderr
    huge, n = (int(x) for x in r.stdout.split())
    return huge, n


def test_cpu_buffers_get_huge_pages():
    huge, n = huge_bytes("cpu")
    assert huge >= n // 2, f"{huge} of {n} bytes on huge pages"


@requires("dpctl")
def test_oneapi_cpu_device_buffers_get_huge_pages(dev):
    import _dpenv  # noqa: F401  (OCL_ICD_FILENAMES for the child too)

    huge, n = huge_bytes(f"oneapi:{dev.get_device_id()}")
    assert huge >= n // 2, f"{huge} of {n} bytes on huge pages"
