"""`import godlpack` under address-space limits (issue 27, item 4): for each
`ulimit -v` of a sweep, a fresh interpreter imports godlpack, alone or
with 8 threads working on arrays; the import must work or raise ImportError,
and nothing may end the process (Go's runtime aborts when it cannot reserve
address space). Prints one line per limit, then the address space the
import takes without a limit (the figure of docs/reliability.md).

    python tests_py/ulimit_sweep.py                 # 800-1600 MB by 50, both ways
    python tests_py/ulimit_sweep.py 1200 1500 10 3  # from, to, step (MB of 1000 KiB), rounds

make stress runs it; tests_py/test_hostile_regressions.py runs a few limits.
Exit status 1 when any run ended otherwise.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

CHILD = r"""
import sys, threading
try:
    import godlpack as gd
except ImportError as e:
    print("IMPORT-ERROR", e)
    sys.exit(0)
if sys.argv[1] == "threads":
    failed = []

    def work():
        try:
            for _ in range(200):
                a = gd.arange(10000.0)
                a.sum(); a.astype("float32"); a[::2].copy(); a.reshape(100, 100).T.copy()
                gd.from_dlpack(a.__dlpack__(max_version=(1, 3))); gd.may_share_memory(a, a)
        except MemoryError:
            failed.append("MemoryError")

    threads = []
    for _ in range(8):
        t = threading.Thread(target=work)
        try:
            t.start()
        except RuntimeError:  # the limit leaves no room for the thread's stack
            failed.append("no thread")
            continue
        threads.append(t)
    for t in threads:
        t.join()
    print("WORKED", len(threads), "threads", sorted(set(failed)))
else:
    print("IMPORTED")
"""

VMSIZE = r"""
def vm():
    for line in open("/proc/self/status"):
        if line.startswith("VmSize"):
            return int(line.split()[1]) >> 10
before = vm()
import godlpack
print(before, vm())
"""


def _env(gomaxprocs: int | None = None) -> dict[str, str]:
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__import__("godlpack").__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([pkg, os.environ.get("PYTHONPATH", "")]))
    env.pop("GOMAXPROCS", None)
    if gomaxprocs is not None:
        env["GOMAXPROCS"] = str(gomaxprocs)
    return env


def run(kib: int, how: str, gomaxprocs: int | None = None) -> tuple[str, str]:
    """One interpreter under ulimit -v kib (and GOMAXPROCS when given):
    ("imported" | "worked" | "import-error" | "ended", what it printed)."""
    # the limit is set by a shell, not preexec_fn (no fork of a threaded process)
    cmd = f"ulimit -v {kib}; exec {shlex.quote(sys.executable)} -c {shlex.quote(CHILD)} {how}"
    p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=120,
                       env=_env(gomaxprocs))
    out = (p.stdout + p.stderr).strip()
    if p.returncode != 0 or "fatal error" in p.stderr or "pthread_create failed" in p.stderr:
        return "ended", f"exit {p.returncode}: " + " | ".join(out.splitlines()[:2])
    first = out.splitlines()[0] if out else ""
    for tag, verdict in (("IMPORT-ERROR", "import-error"), ("WORKED", "worked"), ("IMPORTED", "imported")):
        if first.startswith(tag):
            return verdict, first
    return "ended", "unexpected output: " + first


def main(argv: list[str]) -> int:
    lo, hi, step, rounds = (int(x) for x in (argv + ["800", "1600", "50", "1"][len(argv):]))
    ended = 0
    for procs in (None, 8, 64):  # Go's default (the CPUs), and more Ps than CPUs
        for mb in range(lo, hi + 1, step):
            cells = []
            for how in ("alone", "threads"):
                for _ in range(rounds):
                    verdict, said = run(mb * 1000, how, procs)
                    ended += verdict == "ended"
                    cells.append(verdict if verdict != "ended" else f"ENDED ({said[:70]})")
            print(f"GOMAXPROCS={procs or 'unset':<5} ulimit -v {mb * 1000:>9}: " + ", ".join(cells), flush=True)
    p = subprocess.run([sys.executable, "-c", VMSIZE], capture_output=True, text=True, env=_env(), check=True)
    before, after = (int(x) for x in p.stdout.split())
    print(f"without a limit: VmSize {before} MiB before import godlpack, {after} MiB after (+{after - before} MiB)")
    print(f"{ended} run(s) ended the process")
    return 1 if ended else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
