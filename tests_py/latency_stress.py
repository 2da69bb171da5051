"""How soon long operations give way: Ctrl-C and other Python threads.

    PYTHONPATH=python python tests_py/latency_stress.py [--rounds N] [--bytes B] [--only ctrl-c|threads]

The tests assert the behaviour (test_reliability_process.py: SIGINT interrupts
every long operation before its end; test_reliability_threads.py: another
thread runs while one is in flight); this prints how long it takes, as medians
of --rounds runs (default 5) with the range:

* ctrl-c: every long operation of the C skin on a --bytes array (default
  1 GiB; fills 2 GiB, every third byte), default chunk size
  (GODLPACK_CHUNK_MIB overrides it). A fresh interpreter per round times two
  runs of the operation, starts it again, and a helper thread sends SIGINT to
  the process 30 % into it; printed: milliseconds from the signal to
  KeyboardInterrupt, and the duration of one uninterrupted run (the faster
  of the two).
* threads: a 512 MiB float32 copy, strided copy, fill and sum; another thread
  is woken as the call starts. Printed: milliseconds until it holds the GIL,
  and how many times a counting thread advances during the call.

Not collected by pytest; `make stress` runs it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

import godlpack as gd

# The children import the godlpack this script imported.
PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(gd.__file__)))

_CTRL_C_CHILD = """
import json, os, signal, threading, time
import godlpack as gd
n = {n}
a = gd.zeros((n,), dtype="uint8")
a.fill(1)
src = a{view}
def op():
    return {op}
full = 1e9
for _ in range(2):                       # the faster of two: the first also pays for page faults
    t = time.perf_counter(); b = op(); full = min(full, time.perf_counter() - t)
    b = None
in_op, sent = threading.Event(), []
def interrupt():
    in_op.wait()
    time.sleep(0.3 * full)
    sent.append(time.perf_counter())
    os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=interrupt, daemon=True).start()
try:
    in_op.set()
    b = op()
    res = dict(full=full, latency=None)
except KeyboardInterrupt:
    res = dict(full=full, latency=time.perf_counter() - sent[0])
print(json.dumps(res), flush=True)
"""

# name, operation, view of `a`, array size in units of --bytes (test_reliability_process._LONG_OPS)
_LONG_OPS = [
    ("copy-contiguous", "src.copy()", "", 1),
    ("copy-strided", "src.copy()", "[::2]", 1),
    ("fill", "src.fill(2)", "[::3]", 2),
    ("setitem-slice", "src.__setitem__(slice(None, None, 3), 5)", "", 2),
    ("full", "gd.full((n,), 3, dtype='uint8')", "", 2),
    ("sum", "src.sum()", "[::2]", 2),
    ("dlpack-copy", "src.__dlpack__(max_version=(1, 3), copy=True)", "[::2]", 1),
    ("from_dlpack-capsule-copy", "gd.from_dlpack(src.__dlpack__(max_version=(1, 3)), copy=True)", "[::2]", 1),
    ("from_dlpack-copy", "gd.from_dlpack(src, copy=True)", "", 1),
    ("asarray-copy", "gd.asarray(src, copy=True)", "[::2]", 1),
]


def _ms(xs):
    return f"{statistics.median(xs) * 1e3:.1f} ms ({min(xs) * 1e3:.1f}-{max(xs) * 1e3:.1f})"


def ctrl_c(rounds, nbytes):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([PKG_DIR, env.get("PYTHONPATH", "")])
    print(f"ctrl-c: SIGINT 30 % into the operation -> KeyboardInterrupt, median (min-max) of {rounds}; "
          f"GODLPACK_CHUNK_MIB={os.environ.get('GODLPACK_CHUNK_MIB', '(default)')}")
    for name, op, view, scale in _LONG_OPS:
        code = _CTRL_C_CHILD.format(n=nbytes * scale, op=op, view=view)
        lat, full, done = [], [], 0
        for _ in range(rounds):
            p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
            if p.returncode != 0:
                print(f"  {name}: rc={p.returncode}\n{p.stderr}", flush=True)
                return 1
            r = json.loads(p.stdout.strip().splitlines()[-1])
            full.append(r["full"])
            if r["latency"] is None:
                done += 1
            else:
                lat.append(r["latency"])
        shown = _ms(lat) if lat else "never interrupted"
        print(f"  {name + view:34} {shown:28} one op {_ms(full)}"
              + (f", {done} ran to the end" if done else ""), flush=True)
    return 0


def threads(rounds):
    n = 1 << 27
    a = gd.zeros((n,), dtype="float32")
    a.fill(1.0)
    calls = {
        "copy": lambda: a.copy(),
        "strided_copy": lambda: a[::2].copy(),
        "fill": lambda: a.fill(2.0),
        "sum": lambda: a.sum(),
    }
    print(f"threads: 512 MiB float32, median (min-max) of {rounds}: until another thread holds the GIL; "
          "counter steps during the call")
    for name, call in calls.items():
        waits, steps = [], []
        for _ in range(rounds):
            start, ran, stop, count = threading.Event(), [], threading.Event(), [0]

            def woken(start=start, ran=ran):
                start.wait()
                ran.append(time.perf_counter())

            def counter(start=start, stop=stop, count=count):
                start.wait()
                while not stop.is_set():
                    count[0] += 1

            ts = [threading.Thread(target=f, daemon=True) for f in (woken, counter)]
            for t in ts:
                t.start()
            c0 = count[0]
            t0 = time.perf_counter()
            start.set()
            call()
            steps.append(count[0] - c0)
            stop.set()
            for t in ts:
                t.join()
            waits.append(ran[0] - t0)
        print(f"  {name:14} {_ms(waits):28} {statistics.median(steps):,.0f} steps "
              f"({min(steps):,}-{max(steps):,})", flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--bytes", type=int, default=1 << 30)
    ap.add_argument("--only", choices=("ctrl-c", "threads"))
    a = ap.parse_args()
    rc = 0
    if a.only in (None, "ctrl-c"):
        rc |= ctrl_c(a.rounds, a.bytes)
    if a.only in (None, "threads"):
        rc |= threads(a.rounds)
    return rc


if __name__ == "__main__":
    sys.exit(main())
