"""Reliability (issue 6): fork / spawn / forkserver, interpreter shutdown,
Go panics, Ctrl-C during long copies.

Everything that could hang or kill the interpreter runs in a subprocess under a
timeout, so a hang fails the test instead of hanging CI.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap

import pytest

import godlpack as gd
from _subproc import run_group
from _helpers import IN_CI, need, optional, probes, requires

np_mod = optional("numpy")
torch_mod = optional("torch")

PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(gd.__file__)))
HERE = os.path.dirname(os.path.abspath(__file__))


_run = run_group


def run_py(code, timeout=60, env=None):
    """Run code in a fresh interpreter that imports the godlpack under test.
    A run that times out fails the test (no retry: forks included, see
    test_fork_right_after_go_calls_never_hangs)."""
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([PKG_DIR, HERE, e.get("PYTHONPATH", "")])
    e["PYTHONFAULTHANDLER"] = "1"
    if env:
        e.update(env)
    p = _run([sys.executable, "-c", textwrap.dedent(code)], timeout, e)
    if p is None:
        pytest.fail(f"subprocess hung (> {timeout} s)")
    return p


def ok(p):
    assert p.returncode == 0, f"rc={p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    return p.stdout


# ---------------------------------------------------------------- panics


@probes
def test_go_panic_becomes_runtime_error_and_interpreter_lives_on():
    for _ in range(1000):
        with pytest.raises(RuntimeError, match="recovered Go panic"):
            gd._native._test_panic()
    a = gd.arange(10)
    assert a.sum() == 45
    assert gd.from_dlpack(a.__dlpack__(max_version=(1, 3))).tolist() == list(range(10))


@probes
def test_go_panic_in_threads():
    import threading

    errors = []

    def work():
        for _ in range(2000):
            try:
                gd._native._test_panic()
            except RuntimeError:
                continue
            errors.append("no exception")

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(30)
    assert not errors and not any(t.is_alive() for t in ts)


# ---------------------------------------------------------------- fork

# A forked child never enters the Go runtime (pyext/fork.c, pyext/gocall.h):
# what the C paths serve works, everything that needs Go raises RuntimeError at
# once, naming forkserver/spawn. Every scenario below forks with no sleep and
# no retry; a child that does not finish within CHILD_TIMEOUT is a hang and
# fails the test. tests_py/fork_stress.py runs the same scenarios at scale.
CHILD_TIMEOUT = 10

# What a child does with an array `a` made in the parent: C paths (godlpack's
# own capsules through the fast paths, numpy/torch exchanges, memoryview,
# element access, tolist, attributes, freeing), then Go work, refused.
_CHILD_WORK = """
def child_work(a, np=None, torch=None):
    import godlpack as gd
    out = {}
    b = gd.from_dlpack(a.__dlpack__(max_version=(1, 3)))
    out["exchange"] = b.shape == a.shape and b[3] == 3.0 and memoryview(b)[5] == 5.0
    out["legacy"] = gd.from_dlpack(a.__dlpack__()).tolist() == a.tolist()
    if np is not None:
        import pickle
        h = pickle.loads(pickle.dumps(gd.asarray([1.5, 2.5], dtype="bfloat16"), protocol=4))
        out["np_asarray"] = (np.asarray(a[::2]).tolist() == a.tolist()[::2]
                             and str(np.asarray(h).dtype) == "bfloat16" and np.asarray(h).tolist() == [1.5, 2.5])
        x = np.arange(12.0).reshape(3, 4)
        g = gd.from_dlpack(x)
        out["numpy"] = np.from_dlpack(g)[2, 3] == 11.0 and np.from_dlpack(a)[7] == 7.0 and g[1, 2] == 6.0
    if torch is not None:
        out["torch"] = float(torch.from_dlpack(a)[9]) == 9.0 and gd.from_dlpack(torch.arange(4.0))[2] == 2.0
    out["flag"] = gd._native._in_fork_child()
    # new host memory and contiguous copies need no Go (pyext/nogo.c)
    import pickle
    c = a.copy()
    out["nogo"] = (c.tolist() == a.tolist() and c.data_ptr != a.data_ptr and gd.zeros(3).tolist() == [0.0] * 3
                   and gd.arange(3, dtype="int16").tolist() == [0, 1, 2] and gd.full((2,), 7.5).tolist() == [7.5, 7.5]
                   and pickle.loads(pickle.dumps(a, protocol=4)).tolist() == a.tolist())
    # views too: core/fastpath.c's twins of core's view rules
    v = a[::-2][1:]
    out["views"] = (v.tolist() == a.tolist()[::-2][1:] and a.reshape(2, -1).T.shape == (a.size // 2, 2)
                    and a[None, 3:5, ...].tolist() == [a.tolist()[3:5]] and v.data_ptr != a.data_ptr)
    refused = []
    for name, op in [("astype", lambda: a.astype("float32")), ("strided reshape", lambda: a[::2].reshape(2, -1)),
                     ("fill", lambda: b.fill(1.0)), ("sum", lambda: a.sum()),
                     ("stream", lambda: a.__dlpack__(stream=7)),
                     ("copy=True", lambda: gd.from_dlpack(a, copy=True)), ("Go function", lambda: gd.may_share_memory(a, a))]:
        try:
            op()
            refused.append(name + ": not refused")
        except RuntimeError as e:
            if not ("forkserver" in str(e) and "spawn" in str(e) and "forked" in str(e)):
                refused.append(name + ": " + str(e))
        except Exception as e:
            refused.append(name + ": " + repr(e))
    out["refused"] = refused or True
    return out
"""

_WANT = {"exchange": True, "legacy": True, "flag": True, "nogo": True, "views": True, "refused": True}

# How the parent forks: os.fork() runs Python's at-fork hooks; a fork() by C
# code (ctypes.PyDLL keeps the GIL) runs none: the pthread_atfork child
# handler alone must flag the child.
_FORK_CALLS = {"os.fork": "os.fork()", "c-fork": "__import__('ctypes').PyDLL(None).fork()"}

# The parent is busy in Go when it forks: 4 threads inside long copies and
# sums (the GIL released), and the main thread right after Go calls.
_BUSY_PARENT = """
import os, sys, json, threading, time
import godlpack as gd
stop = threading.Event()
def busy():
    x = gd.arange(4 << 20, dtype="float64")
    while not stop.is_set():
        x.copy(); x.sum(); x[::3].copy()
threads = [threading.Thread(target=busy, daemon=True) for _ in range(4)]
for t in threads: t.start()
a = gd.arange(64, dtype="float64")
def read_all(fd):
    data = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk: return data
        data += chunk
"""

_FORK_AND_REPORT = f"""
def fork_and_report(n, fork_call, np=None, torch=None):
    results, hung = [], 0
    for i in range(n):
        a.sum(); a[::-1].copy()                      # a Go call right before fork()
        r, w = os.pipe()
        pid = fork_call()
        if pid == 0:
            os.close(r)
            try:
                res = child_work(a, np, torch)
            except BaseException as e:
                res = {{"exception": repr(e)}}
            os.write(w, json.dumps(res).encode())
            os._exit(0)
        os.close(w)
        deadline = time.monotonic() + {CHILD_TIMEOUT}
        while not os.waitpid(pid, os.WNOHANG)[0]:
            if time.monotonic() > deadline:
                os.kill(pid, 9); os.waitpid(pid, 0); hung += 1
                break
            time.sleep(0.0005)
        data = read_all(r)
        os.close(r)
        if data:
            results.append(json.loads(data))
    return results, hung
"""


@pytest.mark.slow
@pytest.mark.parametrize("how", list(_FORK_CALLS))
def test_fork_child_works_and_refuses_go_runtime(how):
    # A fork() by C code skips CPython's own after-fork repair (the GIL, the
    # thread states), so CPython survives it only without other threads: the
    # busy threads stop first. os.fork() forks while they are inside Go.
    quiet = "stop.set()\nfor t in threads: t.join()\n" if how == "c-fork" else ""
    code = _BUSY_PARENT + _CHILD_WORK + _FORK_AND_REPORT + quiet + f"""
import numpy as np
res, hung = fork_and_report(20, lambda: {_FORK_CALLS[how]}, np=np)
stop.set()
for t in threads: t.join()
print(json.dumps(dict(res=res, hung=hung)))
assert not gd._native._in_fork_child()
"""
    need("numpy")
    need("ml_dtypes")
    out = json.loads(ok(run_py(code, timeout=120)).strip().splitlines()[-1])
    assert out["hung"] == 0
    assert len(out["res"]) == 20
    for r in out["res"]:
        assert r == dict(_WANT, numpy=True, np_asarray=True), r


@pytest.mark.slow
def test_fork_in_forked_child():
    # A forked child forks again: each grandchild behaves like any forked child.
    code = _BUSY_PARENT + _CHILD_WORK + """
import json
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    out = {"child": child_work(a)}
    kids = []
    for i in range(5):
        r2, w2 = os.pipe()
        g = os.fork()
        if g == 0:
            os.close(r2)
            os.write(w2, json.dumps(child_work(a)).encode())
            os._exit(0)
        os.close(w2)
        data = read_all(r2)
        os.waitpid(g, 0)
        kids.append(json.loads(data))
    out["grandchildren"] = kids
    os.write(w, json.dumps(out).encode())
    os._exit(0)
os.close(w)
data = read_all(r)
os.waitpid(pid, 0)
stop.set()
for t in threads: t.join()
assert gd.may_share_memory(a, a)  # the parent is unaffected
print(data.decode())
"""
    out = json.loads(ok(run_py(code, timeout=120)).strip().splitlines()[-1])
    assert out["child"] == _WANT
    assert out["grandchildren"] == [_WANT] * 5


FORKS = int(os.environ.get("GODLPACK_FORKS", 300))


@pytest.mark.slow
@pytest.mark.stress
def test_fork_right_after_go_calls_never_hangs():
    # The short version of `python tests_py/fork_stress.py` (all scenarios).
    p = _run([sys.executable, os.path.join(HERE, "fork_stress.py"), str(FORKS // 5), "--timeout", str(CHILD_TIMEOUT)],
             FORKS * 0.2 + 120, dict(os.environ, PYTHONPATH=os.pathsep.join([PKG_DIR, HERE])))
    assert p is not None, "fork_stress.py hung"
    print(p.stdout)
    assert p.returncode == 0, p.stdout + p.stderr
    from fork_stress import SCENARIOS

    assert f"forks={FORKS // 5 * len(SCENARIOS)} hung=0 failed=0" in p.stdout


_POOL_SCRIPT = _CHILD_WORK + """
import multiprocessing as mp
import godlpack as gd

A = gd.arange(64, dtype="float64")

def task(i):
    # fork: the parent's array (its fill is refused); spawn/forkserver: a
    # fresh one per task (its fill works and would change A for the next task)
    r = child_work(A if gd._native._in_fork_child() else gd.arange(64, dtype="float64"))
    r["go_works"] = not r["flag"] and gd.arange(4.0).sum() == 6.0
    return r

if __name__ == "__main__":
    ctx = mp.get_context(%r)
    with ctx.Pool(2) as pool:
        res = pool.map(task, range(6), chunksize=1)
    print(__import__("json").dumps(res))
"""


@pytest.mark.slow
@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_multiprocessing_pools(method, tmp_path):
    path = tmp_path / "pool.py"
    path.write_text(textwrap.dedent(_POOL_SCRIPT % method))
    e = dict(os.environ, PYTHONPATH=os.pathsep.join([PKG_DIR, HERE, os.environ.get("PYTHONPATH", "")]))
    p = _run([sys.executable, str(path)], 120, e)
    assert p is not None, f"{method} pool hung"
    res = json.loads(ok(p).strip().splitlines()[-1])
    assert len(res) == 6
    for r in res:
        assert r["exchange"] and r["legacy"], r
        if method == "fork":
            assert r["flag"] and r["refused"] is True and not r["go_works"], r
        else:  # a fresh interpreter: Go works and nothing is refused
            assert not r["flag"] and r["go_works"], r
            assert r["refused"] != True and all(x.endswith("not refused") or x.startswith(("stream:", "copy=True"))  # noqa: E712
                                                 for x in r["refused"]), r


_DATALOADER_SCRIPT = """
import json, sys
import torch
import godlpack as gd
from torch.utils.data import DataLoader, Dataset

ARRAYS = [gd.full((8,), float(i), dtype="float32") for i in range(16)]

class HandOver(Dataset):      # hands arrays made in the parent to torch: no Go
    def __len__(self): return len(ARRAYS)
    def __getitem__(self, i): return torch.from_dlpack(ARRAYS[i])

class NeedsGo(Dataset):       # converts in the worker: needs Go, refused at once
    def __len__(self): return len(ARRAYS)
    def __getitem__(self, i): return torch.from_dlpack(ARRAYS[i].astype("float64"))

if __name__ == "__main__":
    ctx = sys.argv[1]
    out = {}
    dl = DataLoader(HandOver(), batch_size=None, num_workers=4, multiprocessing_context=ctx)
    out["handover"] = [float(t[0]) for t in dl] == [float(i) for i in range(16)]
    try:
        for t in DataLoader(NeedsGo(), batch_size=None, num_workers=4, multiprocessing_context=ctx):
            pass
        out["needs_go"] = "no error"
    except RuntimeError as e:
        out["needs_go"] = "forkserver" in str(e) and "forked" in str(e)
    print(json.dumps(out))
"""


@pytest.mark.slow
@requires("torch")
@pytest.mark.parametrize("ctx", ["fork", "forkserver"])
def test_dataloader_workers(torch, ctx, tmp_path):
    path = tmp_path / "loader.py"
    path.write_text(_DATALOADER_SCRIPT)
    e = dict(os.environ, PYTHONPATH=os.pathsep.join([PKG_DIR, HERE, os.environ.get("PYTHONPATH", "")]))
    p = _run([sys.executable, str(path), ctx], 180, e)
    assert p is not None, "DataLoader hung"
    out = json.loads(ok(p).strip().splitlines()[-1])
    assert out["handover"] is True
    # under fork, a worker that needs Go fails at once; under forkserver it works
    assert out["needs_go"] == (True if ctx == "fork" else "no error"), out


@pytest.mark.slow
@requires("torch")
def test_torch_exchange_in_forked_child(torch):
    code = _BUSY_PARENT + _CHILD_WORK + _FORK_AND_REPORT + """
import torch
res, hung = fork_and_report(5, lambda: os.fork(), torch=torch)
stop.set()
for t in threads: t.join()
print(json.dumps(dict(res=res, hung=hung)))
"""
    out = json.loads(ok(run_py(code, timeout=120)).strip().splitlines()[-1])
    assert out["hung"] == 0 and len(out["res"]) == 5
    for r in out["res"]:
        assert r == dict(_WANT, torch=True), r


# ---------------------------------------------------------------- interpreter shutdown

# Things left alive at exit. Each is created by a statement bound to a name.
_ITEMS = {
    "gd_capsule_versioned": "gd.arange(5).__dlpack__(max_version=(1, 3))",
    "gd_capsule_legacy": "gd.arange(5).__dlpack__()",
    "gd_capsule_consumed": "(lambda c: (gd.from_dlpack(c), c))(gd.arange(5).__dlpack__(max_version=(1, 3)))",
    "gd_array": "gd.arange(5)",
    "gd_view": "gd.arange(50).reshape((5, 10))[::2, 1::3]",
    "gd_copy_of_numpy": "gd.from_dlpack(np.arange(5.0), copy=True)",
    "numpy_of_gd": "np.from_dlpack(gd.arange(5))",
    "gd_of_numpy": "gd.from_dlpack(np.arange(5.0))",
    "gd_of_numpy_legacy_capsule": "gd.from_dlpack(np.arange(5.0).__dlpack__())",
    "numpy_capsule_unconsumed": "np.arange(5.0).__dlpack__(max_version=(1, 0))",
    "numpy_of_gd_of_numpy": "np.from_dlpack(gd.from_dlpack(np.arange(5.0)))",
    "crafted_capsule": "__import__('_helpers').craft_capsule(__import__('_helpers').float64_buffer([1.0, 2.0]), shape=(2,))",
    "crafted_imported": "gd.from_dlpack(__import__('_helpers').craft_capsule(__import__('_helpers').float64_buffer([1.0, 2.0]), shape=(2,))[0])",
}
_TORCH_ITEMS = {
    "torch_of_gd": "torch.from_dlpack(gd.arange(5))",
    "gd_of_torch": "gd.from_dlpack(torch.arange(5.0))",
    "torch_capsule_unconsumed": "torch.to_dlpack(torch.arange(5.0))",
    "gd_of_torch_capsule": "gd.from_dlpack(torch.to_dlpack(torch.arange(5.0)))",
}

# Where the item lives at exit.
_PLACES = {
    "global": "KEEP_{n} = {expr}",
    "cycle": "_c_{n} = []; _c_{n}.append(_c_{n}); _c_{n}.append({expr}); del _c_{n}",
    "thread": ("import threading, time as _t\n"
               "def _hold_{n}():\n    x = {expr}\n    _t.sleep(30)\n"
               "threading.Thread(target=_hold_{n}, daemon=True).start(); _t.sleep(0.05)"),
    "atexit": "import atexit as _ae; _x_{n} = {expr}; _ae.register(lambda x=_x_{n}: None)",
    "module_attr": "import sys as _s; _s.modules['godlpack']._kept_{n} = {expr}",
}


def _shutdown_script(items, place):
    lines = ["import godlpack as gd", "import numpy as np"]
    if any(k in _TORCH_ITEMS for k in items):
        lines.append("import torch")
    for n, (_name, expr) in enumerate(items.items()):
        lines.append(_PLACES[place].format(n=n, expr=expr))
    lines.append("print('done')")
    return "\n".join(lines) + "\n"


def _assert_clean_exit(p):
    assert p.returncode == 0, f"rc={p.returncode}\n{p.stderr}"
    assert p.stdout.strip().endswith("done")
    assert p.stderr == "", p.stderr


@pytest.mark.slow
@requires("numpy")
@pytest.mark.parametrize("place", list(_PLACES))
@pytest.mark.parametrize("item", list(_ITEMS))
def test_shutdown_with_live_objects(item, place):
    _assert_clean_exit(run_py(_shutdown_script({item: _ITEMS[item]}, place), timeout=60))


@pytest.mark.slow
@requires("numpy")
@pytest.mark.parametrize("place", list(_PLACES))
def test_shutdown_with_everything_alive(place):
    items = dict(_ITEMS)
    if torch_mod is not None or IN_CI:
        need("torch")  # CI=true: no torch fails, rather than a smaller test
        items.update(_TORCH_ITEMS)
    _assert_clean_exit(run_py(_shutdown_script(items, place), timeout=90))


@pytest.mark.slow
@requires("numpy", "torch")
@pytest.mark.parametrize("place", ["global", "cycle", "thread"])
@pytest.mark.parametrize("item", list(_TORCH_ITEMS))
def test_shutdown_torch(item, place):
    _assert_clean_exit(run_py(_shutdown_script({item: _TORCH_ITEMS[item]}, place), timeout=90))


@pytest.mark.slow
@requires("numpy")
def test_deleter_after_finalization_does_not_touch_python():
    # A numpy array imported by godlpack whose deleter runs at the very end
    # (the godlpack array is kept by a C-level owner referenced from a capsule
    # that an atexit handler re-creates): exit code 0, nothing on stderr.
    code = """
import godlpack as gd, numpy as np, atexit
holders = []
def late():
    holders.append(gd.from_dlpack(np.arange(3.0)).__dlpack__(max_version=(1, 3)))
atexit.register(late)
print('done')
"""
    _assert_clean_exit(run_py(code))


# ---------------------------------------------------------------- Ctrl-C during long copies

# One fresh child per operation. A helper thread sends SIGINT to the process as
# soon as it runs; with a switch interval far longer than any test it can run
# only when the main thread releases the GIL, which happens inside op() (between
# in_op.set() and op() nothing releases it). So the signal arrives while op() is
# in flight, and the op, split in 1 MiB chunks here, must stop at a chunk
# boundary and raise KeyboardInterrupt. That it stopped before its end is
# checked without a clock: the last 8 MiB of the array it reads or writes are
# mprotect()ed PROT_NONE (reaching them faults), and `full`, which makes a new
# array, must not have touched all of it (peak RSS). How soon it stops is
# measured by tests_py/latency_stress.py, not asserted here.
_SIGINT_CHILD = """
import ctypes, json, os, signal, sys, threading
import godlpack as gd
from _helpers import gd_ptr
n = {n}
a = gd.zeros((n,), dtype="uint8")
a.fill(1)
src = a{view}
def op():
    return {op}
def peak_rss():                                    # this process image's (not ru_maxrss: kept across exec)
    with open("/proc/self/status") as f:
        return next(int(ln.split()[1]) << 10 for ln in f if ln.startswith("VmHWM:"))
libc = ctypes.CDLL(None, use_errno=True)
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
page = os.sysconf("SC_PAGE_SIZE")
end = (gd_ptr(a) + n) // page * page
guard = (end - (8 << 20), 8 << 20)
assert libc.mprotect(*guard, 0) == 0, ctypes.get_errno()      # PROT_NONE
in_op = threading.Event()
def interrupt():
    in_op.wait()
    os.kill(os.getpid(), signal.SIGINT)
sys.setswitchinterval(1000.0)
threading.Thread(target=interrupt, daemon=True).start()
rss0 = peak_rss()
NOT_RUN = object()
b, interrupted = NOT_RUN, False
try:
    in_op.set()
    b = op()
except KeyboardInterrupt:
    interrupted = True
grew = peak_rss() - rss0
sys.setswitchinterval(0.005)
assert libc.mprotect(*guard, 3) == 0, ctypes.get_errno()      # PROT_READ | PROT_WRITE
print(json.dumps(dict(interrupted=interrupted, result=b is not NOT_RUN, rss_grew=grew)), flush=True)
"""

SIGINT_BYTES = int(os.environ.get("GODLPACK_SIGINT_BYTES", 256 << 20))

# Every long operation of the C skin: copies, fills, the sum, and the copies
# that exports and imports make when asked to.
_LONG_OPS = [
    ("copy-contiguous", "src.copy()", ""),
    ("copy-strided", "src.copy()", "[::2]"),
    ("fill", "src.fill(2)", "[::3]"),
    ("setitem-slice", "src.__setitem__(slice(None, None, 3), 5)", ""),
    ("full", "gd.full((n,), 3, dtype='uint8')", ""),
    ("sum", "src.sum()", "[::2]"),
    ("compare-scalar", "src != 1", "[::2]"),
    ("compare-arrays", "src <= src", "[::3]"),
    ("dlpack-copy", "src.__dlpack__(max_version=(1, 3), copy=True)", "[::2]"),
    ("from_dlpack-capsule-copy", "gd.from_dlpack(src.__dlpack__(max_version=(1, 3)), copy=True)", "[::2]"),
    ("from_dlpack-copy", "gd.from_dlpack(src, copy=True)", ""),
    ("asarray-copy", "gd.asarray(src, copy=True)", "[::2]"),
]


@pytest.mark.slow
@pytest.mark.parametrize("op,view", [o[1:] for o in _LONG_OPS], ids=[o[0] for o in _LONG_OPS])
def test_ctrl_c_interrupts_long_operation(op, view):
    code = _SIGINT_CHILD.format(n=SIGINT_BYTES, op=op, view=view)
    out = ok(run_py(code, timeout=120, env={"GODLPACK_CHUNK_MIB": "1"}))
    import json

    r = json.loads(out.strip().splitlines()[-1])
    assert r["interrupted"] and not r["result"], r
    if op.startswith("gd.full"):
        assert r["rss_grew"] < SIGINT_BYTES // 2, f"full() wrote most of its array before stopping: {r}"


@pytest.mark.slow
@requires("numpy")
def test_chunked_copy_and_fill_are_exact():
    # With 1 MiB chunks (GODLPACK_CHUNK_MIB=1) every layout below is split:
    # by rows, by blocks of rows, and recursively when one row exceeds a chunk.
    code = """
import numpy as np, godlpack as gd
rng = np.random.default_rng(5)
base = rng.integers(0, 255, size=(3 << 20,), dtype=np.uint8)   # 3 MiB
shapes = [
    ("1d", lambda x: x),
    ("1d-neg", lambda x: x[::-1]),
    ("1d-step3", lambda x: x.view(np.float32)[::3]),
    ("2d-T", lambda x: x.view(np.float64).reshape(512, 768).T),
    ("2d-wide-rows", lambda x: x.view(np.int16).reshape(2, -1)),
    ("3d-mixed", lambda x: x.view(np.int32).reshape(16, 128, 384)[::-1, 3:, ::2]),
    ("3d-row-equal-to-chunk", lambda x: x.view(np.uint8).reshape(1, 3, 1 << 20)[:, ::-1, :]),
    ("3d-row-bigger-than-chunk", lambda x: x.reshape(1, 1, 3 << 20)[:, :, ::-1]),
    ("2d-rows-1.5MiB", lambda x: x.reshape(2, 3 << 19)[::-1, 1:]),
    ("4d-fortran", lambda x: np.asfortranarray(x.view(np.float32).reshape(8, 8, 96, 128))),
]
for name, make in shapes:
    v = make(base)
    g = gd.from_dlpack(v)
    c = g.copy()
    assert c.strides == tuple(int(s) // v.itemsize for s in np.empty(v.shape, v.dtype).strides), name
    assert np.from_dlpack(c).tobytes() == np.ascontiguousarray(v).tobytes(), name
    # fill writes every element of the view and no byte outside it: numpy's
    # assignment on the same view of another copy is the expected buffer.
    buf, want = base.copy(), base.copy()
    w = make(buf)
    gw = gd.from_dlpack(w)
    gw.fill(7)
    make(want)[...] = 7
    assert (w == 7).all(), name
    assert buf.tobytes() == want.tobytes(), name
    # the copies of exports and imports (copy=True), chunked the same way
    for cap in (g.__dlpack__(max_version=(1, 3), copy=True), g.__dlpack__(copy=True)):
        e = gd.from_dlpack(cap)
        assert np.from_dlpack(e).tobytes() == np.ascontiguousarray(v).tobytes(), name
    i = gd.from_dlpack(g.__dlpack__(max_version=(1, 3)), copy=True)
    assert np.from_dlpack(i).tobytes() == np.ascontiguousarray(v).tobytes(), name
    assert np.from_dlpack(i).__array_interface__["data"][0] != v.__array_interface__["data"][0], name
    buf, want = base.copy(), base.copy()
    w = make(buf)
    gw = gd.from_dlpack(w)
    gw[...] = 9
    make(want)[...] = 9
    assert (w == 9).all(), name
    assert buf.tobytes() == want.tobytes(), name
# sums: integers (and integer-valued floats, exact in float64) split in chunks
x = np.arange(3 << 18, dtype=np.int64) - (1 << 18)
for name, v in [("i64", x), ("i64-rev3", x[::-3]), ("i32-2d-T", x.astype(np.int32).reshape(768, 1024).T),
                ("u8", (x % 251).astype(np.uint8)), ("f64-step2", x.astype(np.float64)[::2]),
                ("c128", (x + 1j * x).astype(np.complex128)), ("bool", x % 3 == 0)]:
    assert gd.from_dlpack(v).sum() == v.sum(), name
    assert type(gd.from_dlpack(v).sum()) is type(v.sum().item()), name
f = gd.full((3, 1 << 20), 7, dtype="uint8")
assert (np.from_dlpack(f) == 7).all()
z = gd.zeros((5 << 17,), dtype="float64")
assert not np.from_dlpack(z).any()
print("chunks ok")
"""
    assert "chunks ok" in ok(run_py(code, env={"GODLPACK_CHUNK_MIB": "1"}))
