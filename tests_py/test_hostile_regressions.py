"""Regressions of issue 12 (hostile and unusual callers) fixed so far; each
test failed before its fix. Items 1 and 3 are in test_perf_exchange_api.py
(test_consumer_ignores_exchange_api_that_is_not_our_capsule,
test_dltensor_from_py_object_refuses_read_only)."""

from __future__ import annotations

import sys
import threading

from _helpers import requires

import pytest

import godlpack as gd


# ---- 4. __release_buffer__ releases only our own views -------------------------


class _Releasable:
    def __init__(self):
        self.released = 0

    def release(self):
        self.released += 1


@pytest.mark.parametrize("other", [threading.Lock, _Releasable, lambda: memoryview(b"abc"),
                                   lambda: memoryview(gd.arange(3.0))])
def test_release_buffer_refuses_foreign_objects(other):
    a = gd.arange(3.0)
    obj = other()
    if sys.version_info >= (3, 12):
        # CPython's own slot wrapper (PEP 688) checks the argument before our
        # bf_releasebuffer runs: a TypeError for non-memoryviews, a ValueError
        # for a memoryview of another object
        with pytest.raises((TypeError, ValueError)):
            a.__release_buffer__(obj)
    else:  # 3.11 has no such wrapper: godlpack's own method refuses
        with pytest.raises(TypeError, match=r"^__release_buffer__\(\): "):
            a.__release_buffer__(obj)
    if isinstance(obj, _Releasable):
        assert obj.released == 0
    if isinstance(obj, memoryview):
        assert obj[0] is not None  # still usable: not released
    if hasattr(obj, "locked"):
        obj.acquire()  # still a working lock
        obj.release()


def test_release_buffer_releases_its_own_view():
    a = gd.arange(3.0)
    v = a.__buffer__(0)
    a.__release_buffer__(v)
    with pytest.raises(ValueError):
        v[0]


# ---- 8. empty arrays print in constant time ------------------------------------


@pytest.mark.parametrize("shape", [(10**7, 0), (2**62, 0), (0, 2**40), (3, 0, 5)])
def test_repr_of_empty_arrays_is_short(shape):
    a = gd.zeros(shape)
    r = repr(a)
    assert r == f"Array([], shape={shape!r}, dtype=float64)"


def test_repr_of_small_arrays_unchanged():
    assert repr(gd.zeros(0)) == "Array([], dtype=float64)"
    assert repr(gd.arange(3.0)) == "Array([0., 1., 2.])"  # numpy's print (tests_py/test_repr.py)


# ---- 9. empty arrays index without overflow ------------------------------------


@pytest.mark.parametrize("key, want", [
    (-1, (2**30, 0)),
    (slice(None, None, -1), (2**40, 2**30, 0)),
    ((-1, slice(None, None, -3)), (2**30 // 3 + 1, 0)),
    ((slice(2, None), 0), (2**40 - 2, 0)),
])
def test_empty_crafted_tensor_indexes_without_overflow(key, want):
    """Shape (2**40, 2**30, 0), NULL strides: accepted, and every index works
    (it used to raise "offset overflows int64")."""
    from _helpers import collect, craft_capsule

    cap, rec = craft_capsule(shape=(2**40, 2**30, 0), strides=None, data=0)
    a = gd.from_dlpack(cap)
    v = a[key]
    assert v.shape == want and v.size == 0
    del a, v, cap
    collect()
    assert rec.deleted == 1


# ---- 2. subinterpreters cannot repoint the exchange API's state ---------------

_SUBINTERP = r"""
import ctypes, sys, _testcapi
import godlpack as gd
code = _testcapi.run_in_subinterp(
    "try:\n"
    "    import godlpack\n"
    "    print('IMPORTED')\n"
    "except ImportError as e:\n"
    "    print('REFUSED', 'subinterpreter' in str(e) and 'main interpreter' in str(e))\n")
# the main interpreter's exchange API still works: export, then import back
api_cap = type(gd.arange(1.0)).__dlpack_c_exchange_api__
get = ctypes.pythonapi.PyCapsule_GetPointer
get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
api = get(api_cap, b"dlpack_exchange_api")
fields = (ctypes.c_void_p * 8).from_address(api)   # header (version, prev_api), then the functions
FROM_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(ctypes.c_void_p))
TO_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
m = ctypes.c_void_p()
assert FROM_PY(fields[3])(gd.arange(3.0), ctypes.byref(m)) == 0
out = ctypes.c_void_p()
assert TO_PY(fields[4])(m, ctypes.byref(out)) == 0
b = ctypes.cast(out, ctypes.py_object).value
ctypes.pythonapi.Py_DecRef(ctypes.py_object(b))
print("MAIN", type(b).__name__, b.tolist())
"""


def test_subinterpreter_import_is_refused_and_main_keeps_working():
    import os
    import subprocess
    import sys

    pkg = os.path.dirname(os.path.dirname(os.path.abspath(gd.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([pkg, os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run([sys.executable, "-c", _SUBINTERP], capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 0, p.stderr
    assert "REFUSED True" in p.stdout and "IMPORTED" not in p.stdout, p.stdout + p.stderr
    assert "MAIN Array [0.0, 1.0, 2.0]" in p.stdout, p.stdout + p.stderr


# ---- 5. float8 / float16 / bfloat16 values encode exactly as ml_dtypes ---------

_F8 = ["float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
       "float8_e5m2fnuz", "float8_e8m0fnu"]


def _reference(name):
    """(numpy scalar type, unsigned view type) of a godlpack dtype, from ml_dtypes / numpy."""
    import numpy as np

    from _helpers import need

    md = need("ml_dtypes")
    if name == "float16":
        return np.float16, np.uint16
    return getattr(md, name), (np.uint16 if name == "bfloat16" else np.uint8)


def _values(mt, view):
    """Every finite value of the type, both signs, every midpoint between
    neighbours and the doubles just either side of it, and specials."""
    import numpy as np

    with np.errstate(invalid="ignore"):
        codes = np.arange(np.iinfo(view).max + 1, dtype=view).view(mt).astype(np.float64)
    fin = np.unique(np.concatenate([codes[np.isfinite(codes)], -codes[np.isfinite(codes)]]))
    mids = (fin[:-1] + fin[1:]) / 2
    # the midpoint above the largest finite value: ties to even decide between it and overflow
    top = fin[-1] + (fin[-1] - fin[-2]) / 2
    mids = np.concatenate([mids, [top, -top]])
    specials = [0.0, -0.0, np.inf, -np.inf, 1e300, -1e300, 1e-300, -1e-300, 1e-40, -1e-40, 2.0**-128,
                0.75 * 2.0**-127, 1.5 * 2.0**-127, 2.0**-149, 3.4e38, 3.5e38, 65504.0, 65520.0]
    return np.concatenate([fin, mids, np.nextafter(mids, np.inf), np.nextafter(mids, -np.inf), specials])


def _bits(a, view):
    import ctypes

    import numpy as np

    from _helpers import CapsuleInfo

    info = CapsuleInfo(a.__dlpack__(max_version=(1, 3)))
    n = a.size * np.dtype(view).itemsize
    return np.frombuffer(bytes((ctypes.c_uint8 * n).from_address(info.first_element)), dtype=view)


def _same(got, want, mt, view):
    """Equal bits, or both NaN (formats with several NaN codes)."""
    import numpy as np

    g, w = got.view(mt).astype(np.float64), want.view(mt).astype(np.float64)
    return (got == want) | (np.isnan(g) & np.isnan(w))


@requires("numpy", "ml_dtypes")
@pytest.mark.parametrize("name", _F8 + ["float16", "bfloat16"])
def test_float_encoding_matches_ml_dtypes_exhaustively(name):
    import numpy as np

    mt, view = _reference(name)
    vals = _values(mt, view)
    with np.errstate(over="ignore"):
        want = vals.astype(mt).view(view)
    got = _bits(gd.asarray(vals.tolist(), dtype=name), view)
    bad = np.nonzero(~_same(got, want, mt, view))[0]
    assert bad.size == 0, [(float(vals[i]), hex(got[i]), hex(want[i])) for i in bad[:8]]


@requires("numpy", "ml_dtypes")
@pytest.mark.parametrize("name", ["float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz", "float8_e8m0fnu"])
def test_float_encoding_of_full_fill_and_setitem(name):
    """The same encoder behind full(), fill() and a[i] = v (issue 12: fnuz
    negatives that round to zero gave 0x01/0x81; e8m0fnu ties went down)."""
    import numpy as np

    mt, view = _reference(name)
    vals = [-1e-9, -2.0**-20, 3.0, 0.75, -0.0, 1.5 * 2.0**-127]
    with np.errstate(over="ignore"):
        want = np.array(vals).astype(mt).view(view)
    for i, v in enumerate(vals):
        a = gd.full((3,), v, dtype=name)
        b = gd.zeros(3, dtype=name)
        b.fill(v)
        c = gd.zeros(3, dtype=name)
        c[1] = v
        for arr, k in ((a, 0), (b, 2), (c, 1)):
            got = _bits(arr, view)[k:k + 1]
            assert _same(got, want[i:i + 1], mt, view).all(), (v, hex(got[0]), hex(want[i]))


@requires("numpy", "ml_dtypes")
@pytest.mark.parametrize("name,value", [
    ("float8_e8m0fnu", 2.5e38), ("float8_e8m0fnu", 6e-39), ("float8_e4m3fn", float("-inf")),
    ("float8_e4m3fn", 464.0), ("float8_e3m4", float("nan")), ("float8_e4m3", float("nan")),
    ("float8_e5m2", float("nan")), ("float8_e4m3", -float("nan")), ("float8_e4m3fn", -float("nan")),
    ("bfloat16", -float("nan")), ("float16", -float("nan")),
])
def test_scalar_writes_are_bit_exact_nan_sign_included(name, value):
    """Issue 27 item 2: the scalar path had an encoder of its own (e8m0fnu
    2.5e38 gave 0xff, 6e-39 gave 0x00; NaN codes and signs differed; 464.0 gave
    NaN in float8_e4m3fn). It is core's codec now (gd_elem_write, compared with
    core.ConvertInto in tests_go/element_test.go): every path gives ml_dtypes'
    (numpy's for float16) bits, and the same as astype."""
    import numpy as np

    mt, view = _reference(name)
    want = np.array([value], dtype=np.float64 if name == "float16" else np.float32).astype(mt).view(view)[0]
    a = gd.zeros(1, dtype=name)
    a[0] = value
    b = gd.asarray([value], dtype=name)
    c = gd.asarray([value]).astype(name)
    for arr in (a, b, c):
        assert int(_bits(arr, view)[0]) == int(want), (hex(int(_bits(arr, view)[0])), hex(int(want)))


# ---- 6. a low address-space limit fails the import, not the process ------------


@pytest.mark.parametrize("how", ["alone", "threads"])
@pytest.mark.parametrize("kib", [600_000, 700_000, 950_000, 1_250_000, 1_300_000, 1_350_000, 1_480_000, 1_540_000,
                                 1_620_000, 2_000_000])
def test_import_under_an_address_space_limit_works_or_raises_import_error(kib, how):
    """The Go runtime reserves ~1.2 GiB of address space as the extension
    loads and ends the process when it cannot: "failed to reserve page
    summary memory" under ulimit -v 700000, "out of memory allocating heap
    arena map" at 1300000, "pthread_create failed" at 950000 (glibc's
    per-thread arenas took the room; issue 27, item 4). Each of
    these limits now imports, or raises ImportError naming the way out; the
    whole sweep is tests_py/ulimit_sweep.py (make stress)."""
    import os

    from ulimit_sweep import run

    verdict, said = run(kib, how)
    assert verdict != "ended", said
    if kib < 1_300_000:
        assert verdict == "import-error", said
        assert "the address-space limit" in said and "ulimit -v" in said, said
    need = gd._tables.GO_ADDRESS_SPACE + gd._tables.GO_THREAD_SPACE * (os.cpu_count() or 1) + (64 << 20)  # + the interpreter
    if kib << 10 >= need:
        assert verdict in ("imported", "worked"), said


@pytest.mark.parametrize("procs", [8, 64])
@pytest.mark.parametrize("kib", [1_540_000, 1_700_000])
def test_the_address_space_check_counts_the_threads_of_gomaxprocs(kib, procs):
    """GOMAXPROCS above the CPU count: Go runs a thread per P, so the check
    budgets one stack per P (issue 36, item 8): imports or ImportError, never
    an abort (pthread_create failed) as in 5 of 30 runs before."""
    import os

    from ulimit_sweep import run

    verdict, said = run(kib, "threads", procs)
    assert verdict != "ended", said
    need = gd._tables.GO_ADDRESS_SPACE + gd._tables.GO_THREAD_SPACE * max(procs, os.cpu_count() or 1)
    if kib << 10 < need:
        assert verdict == "import-error", said


def test_go_procs_reads_gomaxprocs_as_go_does(monkeypatch):
    import os

    cpus = os.cpu_count() or 1
    for value, want in (("", cpus), ("abc", cpus), ("0", cpus), ("-3", cpus), ("1", cpus), (str(cpus + 60), cpus + 60)):
        monkeypatch.setenv("GOMAXPROCS", value)
        assert gd._go_procs(os) == want, value


# ---- 7. the exception classes of the README, with our entry point --------------


class _Raising:
    """A producer whose __dlpack__ raises exc (a CPU tensor, so far as it says)."""

    def __init__(self, exc):
        self.exc = exc

    def __dlpack__(self, **kw):
        raise self.exc

    def __dlpack_device__(self):
        return (1, 0)


@pytest.mark.parametrize("exc, cls", [(RuntimeError("Found no NVIDIA driver"), BufferError),
                                      (BufferError("cannot export"), BufferError),
                                      (ValueError("bad"), BufferError),
                                      (NotImplementedError("nope"), BufferError),
                                      (TypeError("wrong thing"), TypeError)])
@pytest.mark.parametrize("entry", ["from_dlpack", "asarray"])
def test_producer_errors_name_the_entry_point(exc, cls, entry):
    with pytest.raises(cls) as e:
        getattr(gd, entry)(_Raising(exc))
    assert str(e.value).startswith(f"{entry}(): _Raising.__dlpack__() failed: {type(exc).__name__}: {exc}")
    assert e.value.__cause__ is exc


def test_producer_memory_error_passes_unchanged():
    err = MemoryError()
    with pytest.raises(MemoryError) as e:
        gd.from_dlpack(_Raising(err))
    assert e.value is err


@requires("torch")
@pytest.mark.parametrize("device", ["cuda:0", "hexagon:0", (2, 0), (16, 0)])
def test_unreachable_device_is_refused_before_asking_the_producer(device):
    import torch

    t = torch.arange(3.0)
    with pytest.raises(BufferError, match=r"^from_dlpack\(\): godlpack has no memory backend for device="):
        gd.from_dlpack(t, device=device)
    spy = _Raising(AssertionError("the producer must not be asked"))
    with pytest.raises(BufferError, match=r"^asarray\(\): godlpack has no memory backend"):
        gd.asarray(spy, device=device)


@pytest.mark.parametrize("shape", [(2**63,), 2**63, (3, 2**64), (-(2**70),)])
@pytest.mark.parametrize("ctor", [gd.empty, gd.zeros, gd.ones])
def test_huge_dimensions_are_value_errors(shape, ctor):
    with pytest.raises(ValueError, match=rf"^{ctor.__name__}\(\): dimension -?\d+ does not fit a 64-bit integer"):
        ctor(shape)


@pytest.mark.parametrize("padded", [False, True])
@pytest.mark.parametrize("how", ["from_dlpack(copy=True)", "__dlpack__(copy=True)", "copy()"])
def test_sub_byte_copies_are_refused_with_the_right_class_and_words(padded, how):
    """An exchange that would copy sub-byte data is a BufferError (the tensor
    cannot be exchanged as asked); copy() stays a ValueError; padded data is
    not called packed (issue 12 item 7)."""
    import ctypes

    from _helpers import FLAG_IS_SUBBYTE_TYPE_PADDED, collect, craft_capsule

    buf = (ctypes.c_uint8 * 8)()
    kw = dict(shape=(8,) if padded else (16,), strides=(1,), dtype=(17, 4, 1),
              flags=FLAG_IS_SUBBYTE_TYPE_PADDED if padded else 0)
    cap, rec = craft_capsule(buf, **kw)
    word = "padded" if padded else "packed"
    if how == "from_dlpack(copy=True)":
        with pytest.raises(BufferError, match=rf"^from_dlpack\(\): .*{word}"):
            gd.from_dlpack(cap, copy=True)
        assert rec.deleted == 0  # refused before it was taken: the capsule still owns it
    else:
        a = gd.from_dlpack(cap)
        if how == "copy()":
            with pytest.raises(ValueError, match=r"one element per byte" if padded else r"packed sub-byte"):
                a.copy()
        else:
            with pytest.raises(BufferError, match=rf"^__dlpack__\(\): .*{word}"):
                a.__dlpack__(copy=True, max_version=(1, 3))
        del a
    del cap
    collect()
    assert rec.deleted == 1


# ---------------------------------------------------------------- issue 36, items 9 and 15


@pytest.mark.parametrize("marker", ["[]", '{"go": [1]}', '{"go": "pkg"}', '{"plugin": {}}', "3"])
def test_a_malformed_kit_marker_leaves_godlpack_working(tmp_path, marker):
    """A godlpack_kits/*.json of valid JSON but the wrong shape anywhere on
    sys.path (here the working directory) is no kit: import godlpack works,
    says nothing, and the kit's own import names the file and the way out."""
    import os
    import subprocess

    (tmp_path / "godlpack_kits").mkdir()
    (tmp_path / "godlpack_kits" / "x.json").write_text(marker)
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(gd.__file__)))
    code = ("import godlpack as gd, godlpack.kits as k\n"
            "print(gd.asarray([1.5]).tolist())\n"
            "try:\n    k.bind('x', {})\nexcept ImportError as e:\n    print(e)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([pkg, os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    first, why = p.stdout.splitlines()[:2]
    assert first == "[1.5]"
    assert why.startswith("import x: ") and "x.json is not a kit marker" in why, why
    assert why.endswith("remove it or reinstall the kit"), why


@requires("numpy", "ml_dtypes")
def test_a_pickle_cannot_make_an_array_of_a_dtype_godlpack_lacks():
    """_retype, which pickles naming _engines._from_numpy reach, takes only
    godlpack's own dtype keys: code 99 is refused, not exported."""
    import pickle

    from _helpers import need
    from godlpack import _engines

    np, ml_dtypes = need("numpy"), need("ml_dtypes")
    bad = 99 | 16 << 8 | 1 << 16  # a 16-bit dtype of code 99

    class Crafted:
        def __reduce__(self):
            return (_engines._from_numpy, (np.zeros(2, dtype=ml_dtypes.bfloat16), bad))

    with pytest.raises(BufferError, match=r"^pickle\.loads\(\): dtype key \d+ is none of godlpack's dtypes"):
        pickle.loads(pickle.dumps(Crafted()))
