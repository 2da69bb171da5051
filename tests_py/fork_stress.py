"""fork() under load, many times: counts children that hang, fail or are refused.

    python tests_py/fork_stress.py [FORKS] [--scenario NAME ...] [--timeout S] [--gdb]

A forked child never enters the Go runtime (pyext/fork.c, pyext/gocall.h): it
either works through the C paths or gets RuntimeError at once. Each scenario
forks FORKS times (default 1000 each) and every child does the same thing:
exchanges and reads an array the parent made (np/torch-free: godlpack's own
capsules, memoryview, tolist, element access) and then asks for work that
needs Go (a copy, a view, a fill, a sum, a new array), which must raise
RuntimeError naming forkserver/spawn. Scenarios, all with no sleep before
fork():

  after-calls  the parent makes Go calls (copies, sums, a GC every 50 forks)
               right before each fork()
  threads      5 Python threads stay inside Go calls (large copies and sums,
               the GIL released) while the main thread forks
  reproducer   the loop of issue 11: the parent runs b.fill(2.0); b[::2].copy()
               and forks; the child runs c.fill (refused), a strided copy and
               c.reshape(7, 3) (both in C) and exits
  c-fork       fork() called by C code (ctypes), no Python at-fork hook runs
  nested       each child forks a grandchild, which does the same work
  kit-release  a Python thread keeps buffer imports in Go (_check_keep) and
               has a goroutine release them (_check_drop_kept(True)) while the
               main thread forks: the releases godlpack hands to a Python
               thread (issue 27 item 11: on 3.11 a Go thread taking the GIL
               raced the child's after-fork cleanup, 11 hangs in 8,747 forks)

A child still alive after --timeout seconds (default 10) counts as hung: with
--gdb its stacks are written to fork_hang_<pid>.txt first, then it is killed.
Prints one line per scenario and a total: forks, hung, failed, refused (the
RuntimeErrors children saw), and the median os.fork() time in the parent.
Not collected by pytest; tests_py/test_reliability_process.py runs short
versions of the same scenarios.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import statistics
import subprocess
import sys
import threading
import time

import godlpack as gd

# Exit codes of a child: 0 all as expected; 2 a C path gave a wrong answer;
# 3 a Go operation was not refused; 4 an exception of another kind.
_EXPECTED_REFUSALS = 5


def child_work(a) -> int:
    """Runs in a forked child: C paths work, Go work is refused. Returns the
    child's exit code (0 when everything behaved)."""
    try:
        b = gd.from_dlpack(a.__dlpack__(max_version=(1, 3)))   # fast export + fast import
        mv = memoryview(b)
        if b[3] != 3.0 or mv[5] != 5.0 or a.tolist()[:3] != [0.0, 1.0, 2.0] or b.shape != a.shape:
            return 2
        refused = 0
        if a.copy().tolist() != a.tolist() or gd.zeros(3).tolist() != [0.0] * 3:  # C paths (pyext/nogo.c)
            return 5
        if a[::-3].T.tolist() != a.tolist()[::-3]:  # views: core/fastpath.c
            return 6
        for op in (lambda: a.astype("float32"), lambda: a[::2].reshape(2, -1), lambda: b.fill(1.0), lambda: a.sum(),
                   lambda: gd.may_share_memory(a, b)):
            try:
                op()
            except RuntimeError as e:
                refused += "forkserver" in str(e) and "spawn" in str(e)
        if refused != _EXPECTED_REFUSALS:
            return 3
        return 0
    except BaseException:
        return 4


def _stacks(pid: int) -> None:
    with open(f"fork_hang_{pid}.txt", "w") as f:
        subprocess.run(["gdb", "-batch", "-p", str(pid), "-ex", "thread apply all bt"],
                       stdout=f, stderr=subprocess.STDOUT, timeout=60, check=False)


def _wait(pid: int, timeout: float, gdb: bool) -> str:
    deadline = time.monotonic() + timeout
    while True:
        r, st = os.waitpid(pid, os.WNOHANG)
        if r:
            return "ok" if os.waitstatus_to_exitcode(st) == 0 else "failed"
        if time.monotonic() > deadline:
            if gdb:
                _stacks(pid)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "hung"
        time.sleep(0.0002)


_libc_fork = ctypes.PyDLL(None).fork


def run(scenario: str, forks: int, timeout: float, gdb: bool) -> dict:
    a = gd.arange(64, dtype="float64")
    big = gd.arange(1 << 20, dtype="float64")
    b = gd.zeros(1 << 16)
    stop = threading.Event()
    threads = []
    if scenario == "threads":
        def busy():
            x = gd.arange(4 << 20, dtype="float64")     # 32 MiB: copies and sums release the GIL
            while not stop.is_set():
                x.copy()
                x.sum()
                x[::3].copy()
        threads = [threading.Thread(target=busy, daemon=True) for _ in range(5)]
        for t in threads:
            t.start()
        time.sleep(0.2)
    if scenario == "kit-release":
        def keep_and_release():
            while not stop.is_set():
                for _ in range(8):
                    gd._native._check_keep(memoryview(bytearray(64)))  # a Python-owned import, kept in Go
                gd._native._check_drop_kept(True)  # released on a goroutine: handed to a Python thread
        threads = [threading.Thread(target=keep_and_release, daemon=True)]
        threads[0].start()
        time.sleep(0.1)
    # a Go collection in the parent between forks: the test probe where the
    # module has it (make build), else a Go function call
    go_gc = getattr(gd._native, "_test_go_gc", None) or (lambda: gd.may_share_memory(a, a))
    counts = {"forks": 0, "hung": 0, "failed": 0}
    fork_ns = []
    try:
        for i in range(forks):
            if scenario == "after-calls":
                if i % 3 == 0:
                    big.copy()
                if i % 50 == 25:
                    go_gc()
                a.sum()
                a[::-1].copy()
            elif scenario == "reproducer":
                b.fill(2.0)
                b[::2].copy()
            t0 = time.perf_counter_ns()
            pid = _libc_fork() if scenario == "c-fork" else os.fork()
            if pid == 0:
                code = 4
                try:
                    if scenario == "reproducer":
                        code = 0
                        c = b
                        try:  # fill needs Go: refused
                            c.fill(1.0)
                            code = 3
                        except RuntimeError:
                            pass
                        # a strided copy and a reshape run in C (pyext/nogo.c, core/fastpath.c)
                        if c[::3].copy().tolist()[:2] != [2.0, 2.0] or c[:21].reshape(7, 3).shape != (7, 3):
                            code = 3
                        code = code or child_work(a)
                    elif scenario == "nested":
                        g = os.fork()
                        if g == 0:
                            os._exit(child_work(a))
                        r = _wait(g, timeout, gdb)
                        code = {"ok": 0, "failed": 2, "hung": 5}[r] or child_work(a)
                    else:
                        code = child_work(a)
                finally:
                    os._exit(code)
            fork_ns.append(time.perf_counter_ns() - t0)
            counts["forks"] += 1
            r = _wait(pid, timeout, gdb)
            if r != "ok":
                counts[r] += 1
    finally:
        stop.set()
        for t in threads:
            t.join()
    counts["refused"] = (counts["forks"] - counts["hung"] - counts["failed"]) * _EXPECTED_REFUSALS
    counts["fork_ms_median"] = round(statistics.median(fork_ns) / 1e6, 3) if fork_ns else 0.0
    return counts


SCENARIOS = ("after-calls", "threads", "reproducer", "c-fork", "nested", "kit-release")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("forks", type=int, nargs="?", default=1000, help="forks per scenario")
    ap.add_argument("--scenario", action="append", choices=SCENARIOS)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--gdb", action="store_true")
    args = ap.parse_args()
    total = {"forks": 0, "hung": 0, "failed": 0, "refused": 0}
    t0 = time.monotonic()
    for s in args.scenario or SCENARIOS:
        c = run(s, args.forks, args.timeout, args.gdb)
        print(f"{s:12s} forks={c['forks']} hung={c['hung']} failed={c['failed']} refused={c['refused']} "
              f"fork_ms_median={c['fork_ms_median']}", flush=True)
        for k in total:
            total[k] += c[k]
    print(f"{'total':12s} forks={total['forks']} hung={total['hung']} failed={total['failed']} "
          f"refused={total['refused']} secs={time.monotonic() - t0:.0f}", flush=True)
    return 0 if total["hung"] == 0 and total["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
