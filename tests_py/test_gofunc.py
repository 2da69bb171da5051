"""The extension kit (issue 15): Go functions registered with package gofunc,
called from Python on numpy / torch / godlpack / buffer arrays.

godlpack's own module registers its first users of the kit
(internal/builtins, internal/probes): may_share_memory and the _gofunc_* probes, so these
tests run the kit's whole call path. test_gofunc_kit.py builds a module of
its own (examples/imgkit) with `python -m godlpack build-ext`."""

from __future__ import annotations

import gc
import inspect
import json
import os
import sys
import textwrap
import threading
import time

import pytest

import godlpack as gd
from godlpack import _native as N

from _helpers import need, optional, probes, refcount, requires
from _subproc import run_group
import itertools

pytestmark = probes  # the _gofunc_* probes: a GODLPACK_PROBES=1 build

np = need("numpy")
torch = optional("torch")

DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64",
          "complex128"]
LAYOUTS = {
    "contiguous": lambda x: x,
    "transposed": lambda x: x.T,
    "sliced": lambda x: x[::2, 1:],
    "reversed": lambda x: x[::-1],
}


def _numpy(dtype, layout):
    x = np.arange(24).reshape(4, 6).astype(dtype)
    return LAYOUTS[layout](x)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_arrays_reach_go_as_they_are(dtype, layout):
    x = _numpy(dtype, layout)
    isz = x.itemsize
    got = N._gofunc_describe(x)
    strides = [s // isz for s in x.strides]
    assert got == f"{dtype} [{' '.join(map(str, x.shape))}] [{' '.join(map(str, strides))}] readonly=false"
    assert N._bench_call(x) == float(x.size)
    assert gd.may_share_memory(x, x) and gd.may_share_memory(x, np.asarray(x))
    assert not gd.may_share_memory(x, x.copy())


@requires("torch")
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "int32", "int64", "float32", "float64", "bfloat16", "complex64"])
def test_torch_tensors_reach_go_as_they_are(dtype, layout):
    t = torch.arange(24).reshape(4, 6).to(getattr(torch, dtype))
    t = {"contiguous": t, "transposed": t.T, "sliced": t[::2, 1:], "reversed": t.flip(0)}[layout]
    got = N._gofunc_describe(t)
    assert got.startswith(f"{dtype} [{' '.join(map(str, t.shape))}] [{' '.join(map(str, t.stride()))}]")
    assert N._bench_call(t) == float(t.numel())
    assert N._bench_call_quick(t) == float(t.numel())


def test_read_only_stays_read_only_in_go():
    x = np.arange(6.0)
    x.flags.writeable = False
    assert N._gofunc_describe(x).endswith("readonly=true")
    errs = N._gofunc_write_any(x)
    assert [w in errs for w in ("Bytes(): array is read-only", "AsSlice(): array is read-only", "Set(): array is read-only")] == [True] * 3, errs
    with pytest.raises(ValueError, match=r"^_gofunc_fill\(\): a must be writable, got a read-only array; pass a writable copy"):
        N._gofunc_fill(x, 1.0)
    assert (x == np.arange(6.0)).all()


@pytest.mark.parametrize("make", ["numpy", "godlpack", "torch", "buffer"])
def test_writes_in_go_are_seen_by_the_caller(make):
    if make == "torch":
        need("torch")
    x = {"numpy": lambda: np.zeros(5), "godlpack": lambda: gd.zeros(5),
         "torch": lambda: torch.zeros(5, dtype=torch.float64),
         "buffer": lambda: __import__("array").array("d", [0.0] * 5)}[make]()
    N._gofunc_fill(x, 2.5)
    assert list(x) == [2.5] * 5  # zero-copy: Go wrote the caller's memory


def test_array_results_are_godlpack_arrays_numpy_takes_zero_copy():
    a = N._gofunc_arange(5)
    assert isinstance(a, gd.Array) and a.dtype == "float64" and a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    n = np.from_dlpack(a)
    assert n.ctypes.data == a.data_ptr
    x = np.arange(6.0).reshape(2, 3)
    same, t = N._gofunc_pair(x)  # the input handed back, and a view of it
    assert same.data_ptr == x.ctypes.data and t.shape == (3, 2) and t.strides == (1, 3)
    assert gd.may_share_memory(t, x)


def test_scalars_strings_and_defaults():
    assert N._gofunc_scalars(1, 2.5, True, 1 + 2j, "hé") == "i=1 f=2.5 b=true c=(1+2i) s=hé n=[2 3]"
    assert N._gofunc_scalars(np.int32(-3), 1, np.bool_(False), 2.0, "", n=7) == \
        "i=-3 f=1 b=false c=(2+0i) s= n=[7]"
    assert N._gofunc_scalars(i=0, f=0.0, b=False, c=0j, s="x", n=(4, 5, 6)).endswith("n=[4 5 6]")
    assert N._gofunc_tuple(3) == (-3, (3, 3), 3 + 1j)
    assert N._gofunc_describe(np.zeros(1), prefix="p:").startswith("p:float64")


def test_signatures_and_docstrings_come_from_the_registration():
    assert str(inspect.signature(N._gofunc_scalars)) == "(i, f, b, c, s, n=(2, 3))"
    assert str(inspect.signature(gd.may_share_memory)) == "(a, b)"
    assert gd.may_share_memory.__doc__.startswith("True when the memory of a and b")
    assert "a: an array (dtype float64, C-contiguous, writable)" in N._gofunc_fill.__doc__
    meta = {f["name"]: f for f in json.loads(N._gofuncs())}
    assert meta["_gofunc_sleep"]["context"] and [p["name"] for p in meta["_gofunc_sleep"]["params"]] == ["seconds"]
    assert meta["_gofunc_tuple"]["results"] == ["int", "tuple[int, ...]", "complex"]


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: N._bench_call(), TypeError, r"^_bench_call\(\) missing required argument 'a'$"),
    (lambda: N._bench_call(1, 2), TypeError, r"^_bench_call\(\) takes 1 argument but 2 were given$"),
    (lambda: N._bench_call(a=1, b=2), TypeError, r"unexpected keyword argument 'b'"),
    (lambda: N._gofunc_describe(np.zeros(1), a=np.zeros(1)), TypeError, r"multiple values for argument 'a'"),
    (lambda: N._bench_call([1, 2]), TypeError,
     r"^_bench_call\(\): argument 'a' must be an array \(an object with __dlpack__ or the buffer protocol\), "
     r"got 'list'; pass numpy.asarray\(x\) or godlpack.asarray\(x\)$"),
    (lambda: N._gofunc_scalars(1.5, 1, True, 1j, "s"), TypeError, r"argument 'i' must be an int, got 'float'"),
    (lambda: N._gofunc_scalars(1, "x", True, 1j, "s"), TypeError, r"argument 'f' must be a float, got 'str'"),
    (lambda: N._gofunc_scalars(1, 1, 1, 1j, "s"), TypeError, r"argument 'b' must be a bool, got 'int'"),
    (lambda: N._gofunc_scalars(1, 1, True, 1j, b"s"), TypeError, r"argument 's' must be a str, got 'bytes'"),
    (lambda: N._gofunc_scalars(1, 1, True, 1j, "\udcff"), ValueError,
     r"^_gofunc_scalars\(\): argument 's': 'utf-8' codec can't encode"),
    (lambda: N._gofunc_scalars(1, 1, True, 1j, "s", n=[1, "x"]), TypeError, r"argument 'n' must be an int or a sequence"),
    (lambda: N._gofunc_scalars(2**70, 1, True, 1j, "s"), OverflowError, r"^_gofunc_scalars\(\): argument 'i': "),
    (lambda: N._gofunc_fill(np.zeros(3, np.float32), 1.0), TypeError,
     r"^_gofunc_fill\(\): a must have dtype float64, got float32; convert it first"),
    (lambda: N._gofunc_fill(np.zeros((3, 3))[:, 0], 1.0), BufferError,
     r"^_gofunc_fill\(\): a must be C-contiguous, got strides \[3\]; pass a contiguous copy"),
    (lambda: N._gofunc_fail("value"), ValueError, r"^_gofunc_fail\(\): the value is wrong; pass another$"),
    (lambda: N._gofunc_fail("index"), IndexError, r"^_gofunc_fail\(\): no such element"),
    (lambda: N._gofunc_fail("plain"), RuntimeError, r"^_gofunc_fail\(\): a plain Go error$"),
    (lambda: N._gofunc_fail("panic"), RuntimeError,
     r"^_gofunc_fail\(\): the Go function github.com/godlpack/godlpack/internal/probes.failWith panicked: "
     r"assignment to entry in nil map; the process goes on"),
    (lambda: N._gofunc_stale(), RuntimeError,
     r"^_gofunc_stale\(\): result 0 is an array the Go function had already released .*return a.Retain\(\)"),
])
def test_bad_calls_raise_clear_exceptions(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()
    assert N._bench_call(np.zeros(2)) == 2.0  # and the module goes on


def test_import_refusals_name_the_function_and_argument():
    class NoRead:
        def __dlpack__(self, **kw):
            raise BufferError("cannot export")

    with pytest.raises(BufferError, match=r"^_bench_call\(\): argument 'a': "):
        N._bench_call(NoRead())


def test_dlpack_arguments_are_released_after_the_call():
    # an ndarray subclass takes __dlpack__ (an exact ndarray takes the
    # buffer route: test_gofunc_ndarray.py)
    class Sub(np.ndarray):
        pass

    x = np.zeros(1000).view(Sub)
    before = refcount(x)
    for _ in range(100):
        N._bench_call(x)
        N._gofunc_describe(x)
    gc.collect()
    assert refcount(x) == before


@pytest.mark.parametrize("probe", ["_bench_call", "_bench_call_quick"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["bool", "int8", "float16", "float64", "complex128"])
def test_imported_arguments_reach_go_as_arrays_do(dtype, layout, probe):
    # An imported argument is described straight into the call (no Array
    # object): Go sees what it sees of godlpack.Array over the same memory,
    # and numpy's deleter runs once per call, right after it.
    x = _numpy(dtype, layout)
    base = x.base if x.base is not None else x
    before = refcount(base)
    assert N._gofunc_describe(x) == N._gofunc_describe(gd.from_dlpack(x))
    for _ in range(3):
        assert getattr(N, probe)(x) == float(x.size)
    assert refcount(base) == before


def test_quick_function_holds_the_gil():
    ticks = []
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            ticks.append(time.perf_counter())

    th = threading.Thread(target=spin)
    th.start()
    try:
        while not ticks:
            time.sleep(0.001)
        assert N._gofunc_spin(0.3) is True
        time.sleep(0.05)  # the other thread ticks again
    finally:
        stop.set()
        th.join()
    # The other thread never ran during the call's 0.3 s of spinning: its
    # ticks stop for that long (a call that released the GIL leaves no gap
    # longer than a switch interval).
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert max(gaps) >= 0.25
    assert "Holds the GIL while it runs" in N._gofunc_spin.__doc__
    meta = {f["name"]: f for f in json.loads(N._gofuncs())}
    assert meta["_bench_call_quick"]["quick"] and not meta["_bench_call"]["quick"]


def test_kept_array_lives_until_go_releases_it():
    x = np.zeros(10)
    before = refcount(x)
    N._check_keep(x)
    gc.collect()
    assert refcount(x) == before + 1  # numpy's deleter has not run: Go holds the memory
    del x
    gc.collect()
    assert N._check_drop_kept() == 1  # Release in Go runs numpy's deleter


def test_go_function_holding_an_array_at_exit_is_harmless(tmp_path):
    code = textwrap.dedent("""
        import numpy as np, godlpack as gd
        x = np.zeros(10); gd._native._check_keep(x)
        gd._native._check_keep(gd.zeros(3))
        print("done")
    """)
    p = run_group([sys.executable, "-c", code], 60, dict(os.environ))
    assert p is not None and p.returncode == 0 and p.stdout.strip() == "done", p and p.stderr


def test_gil_is_released_while_go_runs():
    ticks = []
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            ticks.append(1)

    th = threading.Thread(target=spin)
    th.start()
    try:
        before = len(ticks)
        assert N._gofunc_sleep(0.3) is False
        during = len(ticks) - before
    finally:
        stop.set()
        th.join()
    assert during > 0  # the other thread ran while Go slept


def test_ctrl_c_cancels_the_context_and_raises_keyboard_interrupt():
    code = textwrap.dedent("""
        import os, signal, threading, godlpack as gd
        threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        try:
            gd._native._gofunc_sleep(120.0)
            print("not interrupted")
        except KeyboardInterrupt:
            print("interrupted")
        print(gd._native._gofunc_sleep(0.01))
    """)
    p = run_group([sys.executable, "-c", code], 60, dict(os.environ))
    assert p is not None, "Ctrl-C did not end the Go call"
    assert p.stdout.split() == ["interrupted", "False"], p.stderr


def test_forked_child_is_refused_naming_forkserver():
    if not hasattr(os, "fork"):
        pytest.skip("no fork")
    code = textwrap.dedent("""
        import os, sys, numpy as np, godlpack as gd
        gd._native._bench_call(np.zeros(2))
        pid = os.fork()
        if pid == 0:
            try:
                gd._native._bench_call(np.zeros(2))
                os._exit(3)
            except RuntimeError as e:
                os._exit(0 if "forkserver" in str(e) and str(e).startswith("_bench_call()") else 4)
        _, st = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(st))
    """)
    p = run_group([sys.executable, "-W", "ignore", "-c", code], 60, dict(os.environ))
    assert p is not None and p.stdout.strip() == "0", p and (p.stdout, p.stderr)


def test_floor_probe_is_one_empty_go_call():
    # make bench's floor row (group gofunc): one crossing, nothing else
    before = N._go_crossings()
    assert N._bench_floor(object()) == 0.0
    assert N._go_crossings() == before + 1
    with pytest.raises(TypeError):
        N._bench_floor()  # type: ignore[call-arg]


def _mmap8():
    import mmap

    return mmap.mmap(-1, 8)


@pytest.mark.parametrize("make", [bytearray, bytes, lambda n: __import__("array").array("B", bytes(n)),
                                  lambda n: memoryview(bytearray(n)), lambda n: _mmap8()],
                         ids=["bytearray", "bytes", "array.array", "memoryview", "mmap"])
def test_buffer_arguments_are_taken_quietly(make, capfd):
    """A buffer-protocol argument is not DLPack: the call takes its buffer
    without any exception left set along the way (Python 3.13 printed
    "Exception ignored in PyObject_HasAttr()" on every call)."""
    assert N._bench_call(make(8)) == 8.0
    assert "Exception ignored" not in capfd.readouterr().err


def test_an_array_released_on_a_goroutine_is_finished_on_a_python_thread():
    """A kit's goroutine dropping the last reference to an imported array
    does not take the GIL on its thread (which races a fork on CPython
    3.11): the producer's deleter runs on the main thread, from a pending
    call, once Python runs again (issue 27 item 11)."""
    from _helpers import craft_capsule, float64_buffer

    cap, rec = craft_capsule(float64_buffer([1.0, 2.0, 3.0]), shape=(3,))
    a = gd.from_dlpack(cap)
    del cap
    N._check_keep(a)
    del a
    gc.collect()
    assert rec.deleted == 0  # Go holds it
    assert N._check_drop_kept(on_goroutine=True) == 1
    for _ in range(1000):  # pending calls run between bytecodes of the main thread
        if rec.deleted:
            break
        time.sleep(0.001)
    assert rec.deleted == 1
    assert rec.thread == threading.main_thread().ident
