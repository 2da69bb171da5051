"""Lifetimes: memory kept alive by either side after the other is gone, refcounts
back to baseline, deleters on other threads, no RSS growth over many exchanges
(peers.md items 1-3, 26; docs/rules.md P6, P7, lifetime table)."""

import gc
import sys
import threading

import pytest

import godlpack as gd
from _helpers import collect, craft_capsule, float64_buffer, forget, gd_ptr, requires, rss_bytes

MiB = 1 << 20


# ---------------------------------------------------------------- keep-alive


@requires("numpy")
@pytest.mark.parametrize("route", ["object", "legacy", "versioned"])
def test_gd_keeps_numpy_memory_alive(np, route):
    x = np.arange(100_000, dtype=np.float64)
    if route == "object":
        a = gd.from_dlpack(x)
    else:
        a = gd.from_dlpack(x.__dlpack__(max_version=None if route == "legacy" else (1, 0)))
    v = a[10:20]
    del x, a
    collect()
    assert v.tolist() == [float(i) for i in range(10, 20)]
    v[0] = -1.0
    assert v.tolist()[0] == -1.0


@requires("numpy")
@pytest.mark.parametrize("route", ["object", "legacy", "versioned"])
def test_numpy_keeps_gd_memory_alive(np, route):
    a = gd.arange(100_000, dtype="int64")
    if route == "object":
        x = np.from_dlpack(a)
    else:
        cap = a.__dlpack__(max_version=None if route == "legacy" else (1, 0))
        x = np.from_dlpack(type("H", (), {"__dlpack__": lambda s, **k: cap, "__dlpack_device__": lambda s: (1, 0)})())
        del cap
    del a
    collect()
    # Allocate and touch other memory so a freed buffer would likely be reused.
    junk = [gd.full((100_000,), 7, dtype="int64") for _ in range(4)]
    assert int(x.sum()) == sum(range(100_000))
    assert x[99_999] == 99_999
    del junk


@requires("torch")
def test_gd_keeps_torch_memory_alive(torch):
    t = torch.arange(50_000, dtype=torch.float64)
    a = gd.from_dlpack(t)
    del t
    collect()
    assert a.sum() == sum(range(50_000))


@requires("torch")
def test_torch_keeps_gd_memory_alive(torch):
    a = gd.arange(50_000, dtype="int32")
    t = torch.from_dlpack(a)
    del a
    collect()
    junk = [gd.full((50_000,), 3, dtype="int32") for _ in range(4)]
    assert int(t.sum()) == sum(range(50_000))
    del junk


@requires("numpy", "torch")
def test_chain_lifetime(np, torch):
    x = np.arange(1000.0)
    a = gd.from_dlpack(x)
    t = torch.from_dlpack(a)
    b = gd.from_dlpack(t)
    del x, a, t
    collect()
    assert b.sum() == sum(range(1000))


def test_capsule_keeps_memory_after_array_dies():
    a = gd.arange(1000)
    cap = a.__dlpack__(max_version=(1, 0))
    del a
    collect()
    junk = [gd.full((1000,), 9, dtype="int64") for _ in range(8)]
    b = gd.from_dlpack(cap)
    assert b.tolist() == list(range(1000))
    del junk


# ---------------------------------------------------------------- refcounts (items 1, 2)


@requires("numpy")
def test_numpy_refcount_baseline_after_imports_and_exports(np):
    x = np.arange(16.0)
    base_x = sys.getrefcount(x)
    a = gd.arange(16, dtype="float64")
    base_a = sys.getrefcount(a)
    for _ in range(500):
        b = gd.from_dlpack(x)
        y = np.from_dlpack(a)
        z = np.from_dlpack(b)
        del b, y, z
    collect()
    assert sys.getrefcount(x) == base_x
    assert sys.getrefcount(a) == base_a


@requires("torch")
def test_torch_refcount_baseline(torch):
    t = torch.arange(16.0)
    base_t = sys.getrefcount(t)
    a = gd.arange(16, dtype="float32")
    base_a = sys.getrefcount(a)
    for _ in range(300):
        b = gd.from_dlpack(t)
        u = torch.from_dlpack(a)
        del b, u
    collect()
    assert sys.getrefcount(t) == base_t
    assert sys.getrefcount(a) == base_a


def test_gd_self_exchange_refcount():
    a = gd.arange(8)
    base = sys.getrefcount(a)
    for mv in (None, (1, 0)):
        for _ in range(200):
            b = gd.from_dlpack(a.__dlpack__(max_version=mv))
            c = gd.from_dlpack(a)
            del b, c
    collect()
    assert sys.getrefcount(a) == base


def test_views_do_not_leak_base_refcount():
    a = gd.arange(24).reshape((2, 3, 4))
    base = sys.getrefcount(a)
    for _ in range(200):
        v = a[1, ::-1].T
        m = memoryview(a)
        m.release()
        del v, m
    collect()
    assert sys.getrefcount(a) == base


# ---------------------------------------------------------------- deleters (exactly once, any thread)


def test_crafted_deleter_called_once_after_many_views():
    buf = float64_buffer([1.0, 2.0, 3.0, 4.0])
    cap, rec = craft_capsule(buf, shape=(2, 2), strides=(2, 1))
    a = gd.from_dlpack(cap)
    del cap
    views = [a.T, a[0], a[::-1], a.reshape((4,))]
    exported = a.__dlpack__(max_version=(1, 0))
    del a
    collect()
    assert rec.deleted == 0
    del views
    collect()
    assert rec.deleted == 0, "our own exported capsule still holds the owner"
    b = gd.from_dlpack(exported)
    assert b.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    del exported, b
    collect()
    assert rec.deleted == 1


def test_deleter_on_other_thread():
    buf = float64_buffer([5.0, 6.0])
    cap, rec = craft_capsule(buf, shape=(2,))
    a = gd.from_dlpack(cap)
    del cap
    holder = [a]
    del a

    def drop():
        holder.clear()
        gc.collect()

    th = threading.Thread(target=drop)
    th.start()
    th.join()
    collect()
    assert rec.deleted == 1


def test_unconsumed_gd_capsules_dropped_on_threads():
    a = gd.arange(1000)
    base = sys.getrefcount(a)
    caps = [a.__dlpack__(max_version=mv) for mv in (None, (1, 0)) for _ in range(50)]
    out = []

    def worker(chunk):
        try:
            for c in chunk:
                out.append(gd.from_dlpack(c).sum())
            chunk.clear()
        except Exception as e:  # pragma: no cover - reported below
            out.append(e)

    threads = [threading.Thread(target=worker, args=(caps[i::4],)) for i in range(4)]
    del caps
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    collect()
    assert out == [sum(range(1000))] * 100
    assert sys.getrefcount(a) == base


def test_concurrent_exchanges_threads():
    a = gd.arange(4096, dtype="float64")
    errors = []

    def worker():
        try:
            for _ in range(2000):
                b = gd.from_dlpack(a.__dlpack__(max_version=(1, 0)))
                assert gd_ptr(b) == gd_ptr(a)
        except Exception as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []


# ---------------------------------------------------------------- memory (item 26, no RSS growth)


@pytest.mark.slow
def test_big_buffer_freed_when_unconsumed_capsule_dies():
    collect()
    r0 = rss_bytes()
    a = gd.full((8 * MiB,), 1.0, dtype="float64")  # 64 MiB, pages touched
    r1 = rss_bytes()
    assert r1 - r0 > 48 * MiB
    cap = a.__dlpack__(max_version=(1, 0))
    del a
    collect()
    assert rss_bytes() - r0 > 48 * MiB, "the capsule must keep the buffer alive"
    del cap
    collect()
    assert rss_bytes() - r0 < 16 * MiB, "buffer not freed after its unconsumed capsule died"


@pytest.mark.slow
def test_big_buffer_freed_after_views_and_imports():
    collect()
    r0 = rss_bytes()
    a = gd.ones((8 * MiB,), dtype="float64")
    a.fill(2.0)
    b = gd.from_dlpack(a)
    v = b[::1000]
    del a, b
    collect()
    assert rss_bytes() - r0 > 48 * MiB
    assert v.tolist()[:2] == [2.0, 2.0]
    del v
    collect()
    assert rss_bytes() - r0 < 16 * MiB


def _rss_growth(fn, n, warm=2000):
    for _ in range(warm):
        fn()
    collect()
    r0 = rss_bytes()
    for _ in range(n):
        fn()
    collect()
    return rss_bytes() - r0


@pytest.mark.slow
def test_no_rss_growth_gd_self():
    a = gd.arange(64, dtype="float32")

    def once():
        gd.from_dlpack(a.__dlpack__(max_version=(1, 0)))
        gd.from_dlpack(a.__dlpack__())
        a.__dlpack__(max_version=(1, 0))  # dropped unconsumed

    assert _rss_growth(once, 200_000) < 4 * MiB


@pytest.mark.slow
@requires("numpy")
def test_no_rss_growth_numpy(np):
    x = np.arange(64, dtype=np.float32)
    a = gd.arange(64, dtype="float32")

    def once():
        gd.from_dlpack(x)
        np.from_dlpack(a)

    assert _rss_growth(once, 200_000) < 4 * MiB


@pytest.mark.slow
@requires("torch")
def test_no_rss_growth_torch(torch):
    t = torch.arange(64, dtype=torch.float32)
    a = gd.arange(64, dtype="float32")

    def once():
        gd.from_dlpack(t)
        torch.from_dlpack(a)

    assert _rss_growth(once, 50_000, warm=20_000) < 4 * MiB


@pytest.mark.slow
def test_no_rss_growth_refused_imports():
    buf = float64_buffer([0.0] * 4)

    def once():
        cap, rec = craft_capsule(buf, shape=(2,), dtype=(2, 32, 2))
        try:
            gd.from_dlpack(cap)
        except BufferError:
            pass
        del cap
        forget(rec)  # the deleter ran (asserted by forget); drop our bookkeeping

    # Error paths format messages on the Go heap, which grows to its first GC
    # target (a few MiB) before it is collected: warm up past that first.
    assert _rss_growth(once, 20_000, warm=20_000) < 4 * MiB


@pytest.mark.slow
def test_no_rss_growth_errors():
    a = gd.zeros((4,))

    def once():
        for kw in (dict(max_version=1), dict(stream=5, max_version=(1, 0)), dict(copy="x")):
            try:
                a.__dlpack__(**kw)
            except (TypeError, ValueError, BufferError):
                pass
        try:
            gd.from_dlpack(3)
        except (TypeError, AttributeError):
            pass

    assert _rss_growth(once, 50_000, warm=20_000) < 4 * MiB


# ---------------------------------------------------------------- fork (go-python-notes: Go does not survive fork)


_FORK_SCRIPT = r"""
import os, sys, time
import godlpack as gd

parent = gd.arange(1 << 20, dtype="float64")  # big enough for parallel kernels
parent.copy()  # goroutines, right before fork()
pid = os.fork()
if pid == 0:  # child: exchanges and frees without Go; Go work is refused at once
    code = 1
    try:
        c = gd.from_dlpack(parent.__dlpack__(max_version=(1, 0)))
        ok = c[12345] == 12345.0 and c.shape == parent.shape
        # The no-copy exchanges take the pure-C fast path: no Go at all, and
        # every capsule and array made here is freed by the C deleters.
        n0 = gd._native._go_crossings()
        for _ in range(20000):
            gd.from_dlpack(parent)
            gd.from_dlpack(c.__dlpack__())
        ok = ok and gd._native._go_crossings() == n0
        n0 = gd._native._go_crossings()
        ok = ok and parent.copy().tolist() == parent.tolist() and gd.zeros(3).tolist() == [0.0] * 3
        ok = ok and gd._native._go_crossings() == n0  # C paths (pyext/nogo.c)
        ok = ok and parent[::2].tolist() == list(range(0, 1 << 20, 2)) and gd._native._go_crossings() == n0
        for op in (lambda: parent.astype("float32"), parent.sum, lambda: parent[::2].reshape(-1, 2)):
            try:
                op()
                ok = False
            except RuntimeError as e:
                ok = ok and "forkserver" in str(e)
        code = 0 if ok else 2
    finally:
        os._exit(code)
_, status = os.waitpid(pid, 0)
assert parent.sum() == sum(range(1 << 20))
print("child exit", os.waitstatus_to_exitcode(status))
"""


def _run_fork_script(timeout=60.0):
    """Runs _FORK_SCRIPT in a fresh interpreter in its own session (the pytest
    process has torch, jax and dpctl threads, which fork() does not survive),
    killing the whole process group on timeout. Returns stdout or "hung"."""
    import os
    import signal
    import subprocess

    env = dict(os.environ)
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(gd.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([pkg, env.get("PYTHONPATH", "")])
    p = subprocess.Popen([sys.executable, "-c", _FORK_SCRIPT], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return "hung"
    assert p.returncode == 0, err
    return out


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork()")
def test_forked_child_can_use_godlpack():
    # No retry, no sleep: a forked child never enters the Go runtime
    # (pyext/fork.c), so fork() right after Go calls cannot hang it.
    out = _run_fork_script()
    assert "child exit 0" in out
