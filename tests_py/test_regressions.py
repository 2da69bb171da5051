"""Regression tests for defects found in review (one section per defect)."""

from __future__ import annotations

import ctypes
import gc

import pytest

import godlpack as gd

from _helpers import optional, requires

np = optional("numpy")
torch = optional("torch")


# ---------------------------------------------------------------- torch checks on both import paths


def _torch_cases():
    return [
        ("requires_grad", lambda: torch.arange(3.0, requires_grad=True), "detach()"),
        ("parameter", lambda: torch.nn.Parameter(torch.ones(2)), "detach()"),
        ("conj", lambda: torch.tensor([1 + 2j]).conj(), "resolve_conj()"),
        ("neg", lambda: torch.tensor([1 + 2j]).conj().imag, "resolve_neg()"),
    ]


@requires("torch")
@pytest.mark.parametrize("case", range(4), ids=["requires_grad", "parameter", "conj", "neg"])
@pytest.mark.parametrize("kw", [{}, {"device": "cpu"}, {"copy": True}], ids=["exchange", "dlpack", "copy"])
def test_torch_producer_checks_not_skipped(case, kw):
    _, make, hint = _torch_cases()[case]
    t = make()
    with pytest.raises(BufferError, match=r"\." + hint.replace("(", r"\(").replace(")", r"\)")):
        gd.from_dlpack(t, **kw)


@requires("torch")
@pytest.mark.parametrize("kw", [{}, {"device": "cpu"}])
def test_torch_resolved_tensors_import(kw):
    t = torch.tensor([1 + 2j]).conj()
    assert gd.from_dlpack(t.resolve_conj(), **kw).tolist() == [1 - 2j]
    n = torch.tensor([1 + 2j]).conj().imag
    assert gd.from_dlpack(n.resolve_neg(), **kw).tolist() == [-2.0]
    g = torch.arange(3.0, requires_grad=True)
    assert gd.from_dlpack(g.detach(), **kw).tolist() == [0.0, 1.0, 2.0]


# ---------------------------------------------------------------- huge slice bounds

_BIG = [None, 0, 1, 3, -1, -3, 10**30, -(10**30), 2**63, -(2**63), 2**63 - 1, -(2**63) + 1, 10, -10]
_STEPS = [None, 1, 2, -1, -2, 10**30, -(10**30)]


def _slices():
    return [slice(a, b, c) for a in _BIG for b in _BIG[:8] for c in _STEPS]


@requires("numpy")
@pytest.mark.parametrize("sl", _slices(), ids=repr)
def test_huge_slice_bounds_read_write(sl):
    ref = np.arange(5)
    a = gd.arange(5)
    assert a[sl].tolist() == ref[sl].tolist()
    ref[sl] = 99
    a[sl] = 99
    assert a.tolist() == ref.tolist()


# ---------------------------------------------------------------- broadcast arrays larger than 2**63 bytes


def _broadcast(n, dtype):
    return gd.from_dlpack(torch.zeros(1, dtype=dtype).expand(n))


@requires("torch")
@pytest.mark.parametrize("n", [2**60, 2**62, 2**63 - 1, 2**61 + 3])
@pytest.mark.parametrize("dt", ["float64", "int32", "complex128"])
def test_broadcast_nbytes_exact_and_buffer_refused(n, dt):
    dtype = getattr(torch, dt)
    a = _broadcast(n, dtype)
    isz = torch.zeros(0, dtype=dtype).element_size()
    assert a.size == n
    assert a.nbytes == n * isz
    if n * isz > 2**63 - 1:
        with pytest.raises(BufferError, match="broadcast"):
            memoryview(a)
    else:
        assert memoryview(a).nbytes == n * isz
    with pytest.raises((MemoryError, BufferError, ValueError, OverflowError)):
        a.tolist()
    r = repr(a)  # summarised: only the shown elements are read
    assert r.startswith("Array([") and "..." in r and f"shape=({n},)" in r


# ---------------------------------------------------------------- PyBUF_SIMPLE buffer requests


class _Py_buffer(ctypes.Structure):
    _fields_ = [
        ("buf", ctypes.c_void_p),
        ("obj", ctypes.py_object),
        ("len", ctypes.c_ssize_t),
        ("itemsize", ctypes.c_ssize_t),
        ("readonly", ctypes.c_int),
        ("ndim", ctypes.c_int),
        ("format", ctypes.c_char_p),
        ("shape", ctypes.POINTER(ctypes.c_ssize_t)),
        ("strides", ctypes.POINTER(ctypes.c_ssize_t)),
        ("suboffsets", ctypes.POINTER(ctypes.c_ssize_t)),
        ("internal", ctypes.c_void_p),
    ]


def _simple_buffer(obj, flags):
    get = ctypes.pythonapi.PyObject_GetBuffer
    get.argtypes = [ctypes.py_object, ctypes.POINTER(_Py_buffer), ctypes.c_int]
    get.restype = ctypes.c_int
    b = _Py_buffer()
    get(obj, ctypes.byref(b), flags)
    return b


def _release(b):
    rel = ctypes.pythonapi.PyBuffer_Release
    rel.argtypes = [ctypes.POINTER(_Py_buffer)]
    rel.restype = None
    rel(ctypes.byref(b))


PyBUF_SIMPLE, PyBUF_WRITABLE, PyBUF_FORMAT = 0, 1, 4


@pytest.mark.parametrize("flags", [PyBUF_SIMPLE, PyBUF_WRITABLE, PyBUF_FORMAT, PyBUF_WRITABLE | PyBUF_FORMAT])
@pytest.mark.parametrize(
    "make",
    [lambda: gd.arange(6).reshape(2, 3), lambda: gd.arange(5), lambda: gd.asarray(3.5), lambda: gd.zeros((2, 0, 3))],
    ids=["2d", "1d", "0d", "empty"],
)
def test_simple_buffer_is_flat(make, flags):
    a = make()
    b = _simple_buffer(a, flags)
    try:
        assert b.ndim == 1
        assert not b.shape and not b.strides
        assert b.len == a.nbytes
        frombuf = ctypes.pythonapi.PyMemoryView_FromBuffer
        frombuf.argtypes = [ctypes.POINTER(_Py_buffer)]
        frombuf.restype = ctypes.py_object
        m = frombuf(ctypes.byref(b))
        assert m.nbytes == a.nbytes
        assert len(m.tobytes()) == a.nbytes
        del m
    finally:
        _release(b)


def test_simple_buffer_refuses_non_contiguous():
    a = gd.arange(6).reshape(2, 3).T
    get = ctypes.pythonapi.PyObject_GetBuffer
    get.argtypes = [ctypes.py_object, ctypes.POINTER(_Py_buffer), ctypes.c_int]
    get.restype = ctypes.c_int
    b = _Py_buffer()
    with pytest.raises(BufferError):
        get(a, ctypes.byref(b), PyBUF_SIMPLE)


# ---------------------------------------------------------------- arange with bounds beyond int64

_ARANGE_CASES = [
    (0, 1, 2**63, "float32"),
    (0, 1, 2**63, "int32"),
    (0, 1, 2**64, "uint64"),
    (0, 5, 2**70, "int8"),
    (2**63, 2**63 + 3, 1, "float32"),
    (2**63, 2**63 + 3, 1, "float64"),
    (2**63, 2**63 + 2, 1, "uint64"),
    (2**64 - 3, 2**64, 1, "uint64"),
    (2**64 - 1, 2**63, -(2**62), "uint64"),
    (2**63 - 3, 2**63, 1, "int64"),
    (-(2**63), -(2**63) + 3, 1, "int64"),
    (5, -5, -3, "int16"),
    (0, 3, 1, "complex128"),
]


@requires("numpy")
@pytest.mark.parametrize("start,stop,step,dt", _ARANGE_CASES, ids=repr)
def test_arange_beyond_int64_matches_numpy(start, stop, step, dt):
    got = gd.arange(start, stop, step, dtype=getattr(gd, dt))
    assert got.tolist() == np.arange(start, stop, step, dtype=dt).tolist()


@requires("numpy")
@pytest.mark.parametrize("args", [(5,), (0,), (-3,), (2, 5), (5, 2), (5, 0, -2), (0, 10, 3), (10, 0, -3), (-3, 3, 2),
                                  (3, -3, -2), (0, 1, 0.25), (0, 1, 0.3), (0.5, 2.25, 0.5), (0, 2.5, 0.5), (-5.5, 5.5, 1.5),
                                  (1e-3, 1, 1e-3), (0, 1, 2**62), (-(2**62), 2**62, 2**61)], ids=repr)
def test_arange_length_and_dtype_are_numpys(args):
    """core/arange.c's plan: numpy's length ceil((stop - start) / step) and
    default dtype (int64 for integers, float64 else)."""
    got, want = gd.arange(*args), np.arange(*args)
    assert got.shape == want.shape and got.dtype == str(want.dtype)
    assert got.tolist() == ([args[0] + i * args[2] for i in range(got.size)] if len(args) == 3 else want.tolist())


@pytest.mark.parametrize(
    "start,stop,step,dt",
    [(2**63 - 2, 2**63 + 1, 1, "int64"), (-1, 2, 1, "uint64"), (2**64, 2**64 + 1, 1, "uint64"), (2**200, 2**200 + 2, 1, "int32")],
    ids=repr,
)
def test_arange_out_of_range_is_overflow_error(start, stop, step, dt):
    with pytest.raises(OverflowError):
        gd.arange(start, stop, step, dtype=getattr(gd, dt))


_SMALL_FLOATS = ["float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
                 "float8_e8m0fnu"]


@requires("numpy", "ml_dtypes")
@pytest.mark.filterwarnings("ignore:overflow encountered")
@pytest.mark.parametrize("dt", _SMALL_FLOATS)
@pytest.mark.parametrize("bounds", [(-300, 300, 0.7), (0, 10**5, 1), (2**62, 2**62 + 10, 1)], ids=repr)
def test_arange_of_small_floats_is_bit_exact(dt, bounds):
    """arange computes in float64 or int64 and converts with core's codec:
    the bits ml_dtypes gives (there used to be a second, per-element codec)."""
    import ml_dtypes

    got = gd.arange(*bounds, dtype=dt)
    want = np.arange(*bounds).astype(getattr(ml_dtypes, dt, np.float16))
    bits = np.from_dlpack(gd._native._retype(got, getattr(gd, f"uint{got.itemsize * 8}")._key, "test"))
    assert got.dtype == dt and bits.tobytes() == want.tobytes()


# ---------------------------------------------------------------- dealloc during an exception in flight


@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
@pytest.mark.parametrize("op,exc", [("index", IndexError), ("type", TypeError), ("value", ValueError)])
def test_dealloc_with_exception_in_flight_runs_python_deleter(versioned, op, exc):
    from _helpers import craft_capsule, float64_buffer

    buf = float64_buffer([1.0, 2.0, 3.0])
    cap, rec = craft_capsule(buf, shape=(3,), versioned=versioned)
    # the temporary array (the only owner) dies while the exception propagates
    # (the interpreter drops it from its stack); its deleter is a Python (ctypes)
    # callback, which must not see the pending exception
    with pytest.raises(exc):
        if op == "index":
            gd.from_dlpack(cap)[1.5]
        elif op == "type":
            gd.from_dlpack(cap) + object()
        else:
            gd.from_dlpack(cap).reshape(7)
    gc.collect()
    assert rec.deleted == 1


# ---------------------------------------------------------------- old producers: CPython's keyword wordings


@pytest.mark.parametrize(
    "message",
    [
        "'max_version' is an invalid keyword argument for __dlpack__()",
        "'copy' is an invalid keyword argument for __dlpack__()",
        "__dlpack__() got an unexpected keyword argument 'max_version'",
        "__dlpack__() takes no keyword arguments",
    ],
)
def test_old_producer_keyword_refusal_retries_without_keywords(message):
    src = gd.arange(4)

    class Old:
        def __dlpack__(self, *args, **kw):
            if kw:
                raise TypeError(message)
            return src.__dlpack__()

        def __dlpack_device__(self):
            return src.__dlpack_device__()

    assert gd.from_dlpack(Old()).tolist() == [0, 1, 2, 3]
    assert gd.from_dlpack(Old(), copy=True).tolist() == [0, 1, 2, 3]


# ---------------------------------------------------------------- 0-d buffers


@pytest.mark.parametrize(
    "make,value",
    [
        (lambda: ctypes.c_double(1.5), 1.5),
        (lambda: ctypes.c_int32(-7), -7),
        (lambda: ctypes.c_uint8(200), 200),
        (lambda: ctypes.c_bool(True), True),
    ],
    ids=["c_double", "c_int32", "c_uint8", "c_bool"],
)
def test_asarray_of_0d_buffer_is_0d(make, value):
    obj = make()
    a = gd.asarray(obj)
    assert a.shape == ()
    assert a.ndim == 0
    assert a.tolist() == value
    assert memoryview(obj).ndim == 0


# ---------------------------------------------------------------- iterating a 0-d array


@pytest.mark.parametrize("how", ["list", "iter", "for", "tuple", "unpack"])
@pytest.mark.parametrize("make", [lambda: gd.asarray(3), lambda: gd.asarray(2.5), lambda: gd.arange(4)[1, ...]], ids=["int", "float", "indexed"])
def test_iterating_0d_array_is_type_error(make, how):
    a = make()
    with pytest.raises(TypeError, match="0-d"):
        if how == "list":
            list(a)
        elif how == "iter":
            iter(a)
        elif how == "for":
            for _ in a:
                pass
        elif how == "tuple":
            tuple(a)
        else:
            (_x,) = a


def test_iterating_nd_array_still_works():
    assert [x.tolist() for x in gd.arange(6).reshape(2, 3)] == [[0, 1, 2], [3, 4, 5]]
    assert list(gd.arange(3).tolist()) == [0, 1, 2]
    assert [int(x) for x in gd.arange(3)] == [0, 1, 2]
    assert list(gd.zeros((0, 2))) == []


# ---------------------------------------------------------------- huge device numbers, reshape overflow


@pytest.mark.parametrize("dev", [(2**70, 0), (1, 2**70), (-(2**70), 0), (2**63, 2**64)], ids=repr)
def test_from_dlpack_huge_device_is_value_error(dev):
    with pytest.raises(ValueError, match="device"):
        gd.from_dlpack(gd.arange(3), device=dev)


@pytest.mark.parametrize("dev", [(2**70, 0), (1, 2**70), (-(2**70), 0), (2**63, 2**64)], ids=repr)
def test_dunder_dlpack_huge_dl_device_is_buffer_error(dev):
    with pytest.raises(BufferError, match="dl_device"):
        gd.arange(3).__dlpack__(max_version=(1, 3), dl_device=dev)


@pytest.mark.parametrize(
    "size,shape",
    [(6, (2**62, 4, -1)), (6, (2**32, 2**32, 2**32)), (0, (2**40, 2**40, 0)), (0, (2**62, 8, 0)), (6, (-1, 2**62, 8))],
    ids=repr,
)
def test_reshape_shape_product_overflow_is_value_error(size, shape):
    with pytest.raises(ValueError):
        gd.arange(size).reshape(*shape)


# ---------------------------------------------------------------- numpy's bools and buffers in constructors (issue 27)


@requires("numpy")
@pytest.mark.parametrize("case", ["full int64 of np.True_", "asarray of np.True_ and 3", "asarray uint8 of np.False_",
                                  "asarray of memoryviews", "asarray of an array.array and a bytearray"])
def test_constructors_take_numpy_bools_and_buffers_as_numpy(case):
    import array

    make = {
        "full int64 of np.True_": lambda m: m.full(2, np.True_, dtype="int64"),
        "asarray of np.True_ and 3": lambda m: m.asarray([np.True_, 3]),
        "asarray uint8 of np.False_": lambda m: m.asarray(np.False_, dtype="uint8"),
        "asarray of memoryviews": lambda m: m.asarray([memoryview(b"ab"), memoryview(b"cd")]),
        "asarray of an array.array and a bytearray": lambda m: m.asarray([array.array("d", [1, 2]), bytearray(b"ab")]),
    }[case]
    got, want = make(gd), make(np)
    assert got.dtype == str(want.dtype) and got.tolist() == want.tolist()


# ---------------------------------------------------------------- asarray's failures kept Python's recursion depth


@pytest.mark.parametrize(
    "bad",
    [[[1, 2], [3]], [[1, 2], 3], [[1, "x"]], [[[1], [2]], [[3], [object()]]]],
    ids=["ragged", "mixed", "string", "deep-object"],
)
def test_failed_nested_asarray_leaves_the_recursion_limit(bad):
    # The scan of a nested list once entered a recursion level per descent
    # and left it only on success: each failure kept one, and after about
    # sys.getrecursionlimit() failures every Python call deeper than the
    # leak raised RecursionError. A low limit shows it in a few hundred calls.
    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(300)
    try:
        for _ in range(400):
            try:
                gd.asarray(bad)
            except (ValueError, TypeError):
                pass
            else:
                pytest.fail(f"asarray({bad!r}) did not raise")

        def down(k):
            return down(k - 1) if k else 0

        assert down(200) == 0
    finally:
        sys.setrecursionlimit(limit)
    assert gd.asarray([[1, 2], [3, 4]]).shape == (2, 2)


# ---------------------------------------------------------------- the checker's to_py probe gave a refused tensor up twice


def test_to_py_probe_gives_a_refused_tensor_up_once():
    # managed_tensor_to_py_object_no_sync steals its tensor, also when it
    # refuses it (godlpack's own calls the deleter then). The checker's
    # capsule kept its unused name on a refusal, so its destructor called
    # the deleter a second time: a double free outside the probe, and a
    # count of 2 that blamed the target.
    src = gd.zeros(3)
    cap, pid = gd._native._probe_capsule(src.__dlpack__(max_version=(1, 3)))
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    managed = get(cap, b"dltensor_versioned")
    # DLManagedTensorVersioned: version 8, manager_ctx 8, deleter 8, flags 8,
    # then dl_tensor: data 8, device 8, ndim 4, dtype {code, bits, lanes}.
    ctypes.c_uint16.from_address(managed + 32 + 8 + 8 + 4 + 2).value = 2  # lanes 2: refused
    _, _, rc, y = gd._native._exchange_api(src, 1, cap)
    assert rc != 0 and y is None
    del cap
    gc.collect()
    assert gd._native._probe_calls(pid) == 1
