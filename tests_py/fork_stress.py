"""fork() right after Go calls, many times; counts the children that hang.

    python tests_py/fork_stress.py [FORKS] [--kind tight|copy|threads] [--timeout S] [--gdb]

Each iteration makes a Go call (tight: one small copy; copy: also a parallel
1M-element copy every third fork, i.e. goroutines that just finished; threads:
two Python threads keep calling godlpack while the main thread forks; gcerr:
a Go GC before each fork, an error first thing in the child), then
os.fork()s at once. The child makes a few godlpack calls and exits; the parent
polls waitpid and, after --timeout seconds (default 5), counts the child as
hung and SIGKILLs it (--gdb first writes `gdb -batch -ex "thread apply all bt"`
of the hung child to fork_hang_<pid>.txt). Prints one line: forks, hung,
failed, held (children whose forking thread's P was pinned by the fork-hold of
pyext/reliability.c) and the median time of os.fork() in the parent.

GODLPACK_FORK_HOLD=0 turns the fork-hold off (the behaviour before it),
GODLPACK_FORK_HOLD=gc keeps only its GC part. README "Reliability" has the
figures. Not collected by pytest (test_reliability_process.py runs a short
version).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time

import godlpack as gd


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("forks", type=int, nargs="?", default=3000)
    ap.add_argument("--kind", choices=("tight", "copy", "threads", "gcerr"), default="tight")
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--gdb", action="store_true")
    a = ap.parse_args()

    big = gd.arange(1 << 20, dtype="float64")
    small = gd.arange(1000, dtype="float64")
    stop = threading.Event()
    workers = []
    if a.kind == "threads":
        def work():
            x = gd.arange(1 << 16, dtype="float64")
            while not stop.is_set():
                x.copy(); x.sum()
                time.sleep(0.0005)
        workers = [threading.Thread(target=work, daemon=True) for _ in range(2)]
        for t in workers:
            t.start()

    hung = failed = held = 0
    fork_ns = []
    t0 = time.monotonic()
    for i in range(a.forks):
        if a.kind == "copy" and i % 3 == 0:
            big.copy()
        if a.kind == "gcerr":
            gd._native._test_go_gc()  # a GC empties sync.Pools: the child's first error refills fmt's
        small.copy()
        t = time.perf_counter_ns()
        pid = os.fork()
        if pid == 0:
            code = 3
            try:
                if a.kind == "gcerr":
                    try:
                        small.__dlpack__(stream=7)  # an error message: fmt, a sync.Pool
                    except BufferError:
                        pass
                b = small[::-1].copy()
                b.fill(1.0)
                c = gd.from_dlpack(small.__dlpack__(max_version=(1, 0)))
                ok = b.sum() == 1000.0 and c.sum() == small.sum()
                code = (0 if ok else 2) + (4 if gd._native._fork_held() else 0)
            finally:
                os._exit(code)
        fork_ns.append(time.perf_counter_ns() - t)
        deadline = time.monotonic() + a.timeout
        while True:
            r, st = os.waitpid(pid, os.WNOHANG)
            if r:
                rc = os.waitstatus_to_exitcode(st)
                held += rc == 4
                failed += rc not in (0, 4)
                break
            if time.monotonic() > deadline:
                hung += 1
                print(f"fork {i}: child {pid} hung", flush=True)
                if a.gdb:
                    out = subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex", "thread apply all bt"],
                                         capture_output=True, text=True)
                    with open(f"fork_hang_{pid}.txt", "w") as f:
                        f.write(out.stdout + out.stderr)
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                break
            time.sleep(0.0002)
    stop.set()
    fork_ns.sort()
    print(f"forks={a.forks} hung={hung} failed={failed} held={held} kind={a.kind} "
          f"hold={os.environ.get('GODLPACK_FORK_HOLD', 'on')} "
          f"fork_median_us={fork_ns[len(fork_ns) // 2] / 1e3:.0f} secs={time.monotonic() - t0:.1f}", flush=True)
    return 1 if hung or failed else 0


if __name__ == "__main__":
    sys.exit(main())
