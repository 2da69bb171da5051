"""The fast paths (issue 5): every function of godlpack's DLPack C exchange
API called through ctypes, the consumer side of other types' exchange APIs
(torch's, fakes with a counting API, the per-type cache, the major-version
check, the DLPack 1.2 int attribute), and zero Go-heap allocations on the
exchange hot paths (``_native._go_allocs()``).

Self-contained (own ctypes structures); no timing assertions here: timings
live in ``python -m godlpack bench``."""

import ctypes
import gc

import pytest

import godlpack as gd
from _helpers import CapsuleInfo, collect, craft_capsule, missing, optional, requires
from godlpack import _native

np = optional("numpy")


# ---- ctypes mirror of dlpack.h --------------------------------------------


# The DLPack structs are shared with the other suites (tests_py/_helpers.py).
from _helpers import DLManagedTensorVersioned, DLTensor  # noqa: E402


from _helpers import ExchangeAPI  # noqa: E402


SET_ERROR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)
ALLOCATOR = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(DLTensor), ctypes.POINTER(ctypes.c_void_p),
                             ctypes.c_void_p, SET_ERROR)
# PYFUNCTYPE: called with the GIL held, and a Python error set by the callee is kept.
FROM_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(ctypes.c_void_p))
TO_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
DLTENSOR_FROM_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(DLTensor))
STREAM = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p))
DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
_NewCapsule = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_New", ctypes.pythonapi))
_steal = ctypes.pythonapi.Py_DecRef
_steal.argtypes = [ctypes.c_void_p]
API_NAME = b"dlpack_exchange_api"
_WRONG_NAME = b"dlpack_exchange_api_x"  # capsule names must outlive their capsules


def our_api() -> ExchangeAPI:
    cap = gd.Array.__dlpack_c_exchange_api__
    return ExchangeAPI.from_address(_GetPointer(cap, API_NAME))


def fn(api: ExchangeAPI, field: str, proto):
    addr = getattr(api, field)
    assert addr, field
    return proto(addr)


def managed(addr: int) -> DLManagedTensorVersioned:
    return DLManagedTensorVersioned.from_address(addr)


def delete(addr: int) -> None:
    DELETER(managed(addr).deleter)(addr)


def take_object(addr: int):
    """The new reference at addr as a Python object (the reference is ours)."""
    obj = ctypes.cast(addr, ctypes.py_object).value  # borrows: +1
    _steal(addr)  # drop the reference the API handed out
    return obj


# ---- our API, function by function ------------------------------------------


def test_header_version():
    api = our_api()
    assert (api.header.version.major, api.header.version.minor) == gd.DLPACK_VERSION
    assert api.header.prev_api is None
    assert all(getattr(api, f) for f, _ in ExchangeAPI._fields_[1:])  # every function is offered


def _proto(dtype=(2, 64, 1), shape=(2, 3), device=(1, 0)):
    dims = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    t = DLTensor()
    t.device.device_type, t.device.device_id = device
    t.ndim = len(shape)
    t.dtype.code, t.dtype.bits, t.dtype.lanes = dtype
    t.shape = ctypes.cast(dims, ctypes.POINTER(ctypes.c_int64))
    return t, dims


def test_allocator_success():
    alloc = fn(our_api(), "managed_tensor_allocator", ALLOCATOR)
    errors = []
    set_error = SET_ERROR(lambda ctx, kind, msg: errors.append((kind, msg)))
    proto, _dims = _proto()
    out = ctypes.c_void_p()
    assert alloc(ctypes.byref(proto), ctypes.byref(out), None, set_error) == 0
    assert errors == [] and out.value
    m = managed(out.value)
    assert (m.version.major, m.version.minor) == gd.DLPACK_VERSION
    t = m.dl_tensor
    assert t.ndim == 2 and [t.shape[0], t.shape[1]] == [2, 3] and [t.strides[0], t.strides[1]] == [3, 1]
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (2, 64, 1)
    assert t.data and t.data % 64 == 0
    ctypes.memset(t.data, 0, 6 * 8)  # the memory is ours to write
    # hand it to godlpack: the allocator's tensor round-trips through to_py
    to_py = fn(our_api(), "managed_tensor_to_py_object_no_sync", TO_PY)
    obj = ctypes.c_void_p()
    assert to_py(out.value, ctypes.byref(obj)) == 0
    a = take_object(obj.value)
    assert isinstance(a, gd.Array) and a.shape == (2, 3) and a.tolist() == [[0.0] * 3] * 2


@pytest.mark.parametrize(
    "dtype,shape,device,kind",
    [
        ((2, 64, 4), (2,), (1, 0), b"BufferError"),  # lanes
        ((9, 8, 1), (2,), (1, 0), None),  # unknown dtype code (float8 variants exist; 99 below)
        ((99, 8, 1), (2,), (1, 0), None),
        ((2, 64, 1), (-1,), (1, 0), None),  # negative dim
        ((2, 64, 1), (1,) * 65, (1, 0), None),  # ndim > 64
        ((2, 64, 1), (2,), (2, 0), b"BufferError"),  # not a CPU device
    ],
)
def test_allocator_failure_calls_set_error(dtype, shape, device, kind):
    alloc = fn(our_api(), "managed_tensor_allocator", ALLOCATOR)
    errors = []
    set_error = SET_ERROR(lambda ctx, k, msg: errors.append((ctx, k, msg)))
    proto, _dims = _proto(dtype, shape, device)
    out = ctypes.c_void_p()
    rc = alloc(ctypes.byref(proto), ctypes.byref(out), 1234, set_error)
    if dtype == (9, 8, 1) and rc == 0:  # float8_e4m3b11fnuz is a valid dtype
        assert errors == []
        delete(out.value)
        return
    assert rc == -1
    assert len(errors) == 1, errors  # exactly once
    ctx, k, msg = errors[0]
    assert ctx == 1234
    assert k in (b"BufferError", b"TypeError", b"ValueError", b"MemoryError")
    if kind is not None:
        assert k == kind
    assert msg.startswith(b"managed_tensor_allocator(): ")


def test_allocator_null_prototype():
    alloc = fn(our_api(), "managed_tensor_allocator", ALLOCATOR)
    errors = []
    set_error = SET_ERROR(lambda ctx, k, msg: errors.append(k))
    out = ctypes.c_void_p()
    assert alloc(None, ctypes.byref(out), None, set_error) == -1
    assert errors == [b"ValueError"]


def test_from_py_object_success_is_owning():
    from_py = fn(our_api(), "managed_tensor_from_py_object_no_sync", FROM_PY)
    a = gd.arange(6, dtype="int32").reshape(2, 3)
    out = ctypes.c_void_p()
    assert from_py(a, ctypes.byref(out)) == 0
    m = managed(out.value)
    assert (m.version.major, m.version.minor) == gd.DLPACK_VERSION and m.flags == 0
    t = m.dl_tensor
    assert (t.dtype.code, t.dtype.bits) == (0, 32) and t.ndim == 2 and t.byte_offset == 0
    assert [t.strides[0], t.strides[1]] == [3, 1]
    del a
    gc.collect()
    assert ctypes.c_int32.from_address(t.data + 5 * 4).value == 5  # the tensor keeps the memory alive
    delete(out.value)


@pytest.mark.parametrize("obj", [None, 1.0, [1, 2], "x"])
def test_from_py_object_error_sets_python_exception(obj):
    # PYFUNCTYPE calls with the GIL held and raises the Python exception the
    # callee set on its -1 path; nothing is written to out.
    from_py = fn(our_api(), "managed_tensor_from_py_object_no_sync", FROM_PY)
    out = ctypes.c_void_p()
    with pytest.raises(TypeError, match=r"not a godlpack\.Array"):
        from_py(obj, ctypes.byref(out))
    assert out.value is None


@requires("numpy")
def test_from_py_object_numpy_is_refused():
    from_py = fn(our_api(), "managed_tensor_from_py_object_no_sync", FROM_PY)
    with pytest.raises(TypeError):
        from_py(np.zeros(3), ctypes.byref(ctypes.c_void_p()))


def test_to_py_object_steals_and_returns_array():
    api = our_api()
    from_py = fn(api, "managed_tensor_from_py_object_no_sync", FROM_PY)
    to_py = fn(api, "managed_tensor_to_py_object_no_sync", TO_PY)
    a = gd.arange(4.0)
    out = ctypes.c_void_p()
    assert from_py(a, ctypes.byref(out)) == 0
    obj = ctypes.c_void_p()
    assert to_py(out.value, ctypes.byref(obj)) == 0  # steals out: no delete() here
    b = take_object(obj.value)
    assert type(b) is gd.Array and b.tolist() == [0.0, 1.0, 2.0, 3.0]
    b[0] = 9.0
    assert a[0] == 9.0  # zero-copy


def test_to_py_object_null_is_an_error():
    to_py = fn(our_api(), "managed_tensor_to_py_object_no_sync", TO_PY)
    with pytest.raises(ValueError):
        to_py(None, ctypes.byref(ctypes.c_void_p()))


def test_dltensor_from_py_object_view():
    view = fn(our_api(), "dltensor_from_py_object_no_sync", DLTENSOR_FROM_PY)
    a = gd.arange(12.0).reshape(3, 4)[1:, ::2]
    t = DLTensor()
    assert view(a, ctypes.byref(t)) == 0
    assert t.ndim == 2 and [t.shape[0], t.shape[1]] == [2, 2] and [t.strides[0], t.strides[1]] == [4, 2]
    assert ctypes.c_double.from_address(t.data).value == 4.0 and t.byte_offset == 0
    with pytest.raises(TypeError):
        view([1.0], ctypes.byref(t))


def test_dltensor_from_py_object_refuses_read_only():
    """A DLTensor cannot say read-only: writing through it changed an
    immutable bytes object (issue 12 item 3). Refused as a legacy capsule is
    (P2), in words about the DLTensor: no capsule is involved."""
    view = fn(our_api(), "dltensor_from_py_object_no_sync", DLTENSOR_FROM_PY)
    a = gd.asarray(memoryview(b"immutable"))
    assert a.readonly
    t = DLTensor()
    with pytest.raises(BufferError, match=r"^dltensor_from_py_object_no_sync\(\): a read-only array has no bare "
                       r"DLTensor .*managed_tensor_from_py_object_no_sync") as e:
        view(a, ctypes.byref(t))
    assert "capsule" not in str(e.value)


def test_dltensor_from_py_object_keeps_device_handles():
    """Device memory keeps its data pointer and carries the offset."""
    cap, rec = craft_capsule(shape=(10,), strides=(1,), dtype=(2, 32, 1), data=0x10000, byte_offset=64, device=(4, 0))
    a = gd.from_dlpack(cap)[2:]
    view = fn(our_api(), "dltensor_from_py_object_no_sync", DLTENSOR_FROM_PY)
    t = DLTensor()
    assert view(a, ctypes.byref(t)) == 0
    assert (t.data, t.byte_offset, t.device.device_type) == (0x10000, 72, 4)
    del a, cap
    collect()
    assert rec.deleted == 1


def test_current_work_stream_cpu_is_null():
    stream = fn(our_api(), "current_work_stream", STREAM)
    out = ctypes.c_void_p(1234)
    assert stream(1, 0, ctypes.byref(out)) == 0 and out.value is None
    assert stream(1, 0, None) == 0


# ---- consumer: other types' exchange APIs ------------------------------------


class _Counting:
    """A fake exchange API whose from_py forwards to godlpack's and counts."""

    def __init__(self, major=1, minor=3):
        self.calls = 0
        real = fn(our_api(), "managed_tensor_from_py_object_no_sync", FROM_PY)

        def from_py(obj, out):
            self.calls += 1
            return real(obj.inner, out)

        self.cb = FROM_PY(from_py)
        self.api = ExchangeAPI()
        self.api.header.version.major, self.api.header.version.minor = major, minor
        self.api.managed_tensor_from_py_object_no_sync = ctypes.cast(self.cb, ctypes.c_void_p).value
        self.capsule = _NewCapsule(ctypes.addressof(self.api), API_NAME, None)


_KEEP = []  # fakes live as long as the module: the consumer caches their API per type


def _fake_type(api: _Counting, attr="__dlpack_c_exchange_api__", value=None):
    _KEEP.append(api)
    lookups = []

    class Meta(type):
        def __getattribute__(cls, name):
            if name in ("__dlpack_c_exchange_api__", "__c_dlpack_exchange_api__"):
                lookups.append(name)
            return super().__getattribute__(name)

    class Fake(metaclass=Meta):
        dlpack_calls = 0

        def __init__(self, inner):
            self.inner = inner

        def __dlpack__(self, **kw):
            type(self).dlpack_calls += 1
            return self.inner.__dlpack__(**kw)

        def __dlpack_device__(self):
            return (1, 0)

    setattr(Fake, attr, api.capsule if value is None else value)
    Fake.lookups = lookups
    return Fake


def test_consumer_uses_exchange_api_and_caches_it_per_type():
    api = _Counting()
    Fake = _fake_type(api)
    src = gd.arange(5.0)
    for _ in range(3):
        b = gd.from_dlpack(Fake(src))
        assert b.tolist() == src.tolist()
    b[0] = 7.0
    assert src[0] == 7.0
    assert api.calls == 3 and Fake.dlpack_calls == 0
    assert Fake.lookups.count("__dlpack_c_exchange_api__") == 1  # looked up once, then cached


def test_consumer_ignores_api_of_another_major():
    api = _Counting(major=2)
    Fake = _fake_type(api)
    b = gd.from_dlpack(Fake(gd.arange(3.0)))
    assert b.tolist() == [0.0, 1.0, 2.0]
    assert api.calls == 0 and Fake.dlpack_calls == 1


def test_consumer_ignores_api_older_than_1_2():
    api = _Counting(major=1, minor=1)
    Fake = _fake_type(api)
    gd.from_dlpack(Fake(gd.arange(3.0)))
    assert api.calls == 0 and Fake.dlpack_calls == 1


@pytest.mark.parametrize("attr, value", [
    ("__c_dlpack_exchange_api__", "address"),   # DLPack 1.2's int: any number a class chose
    ("__c_dlpack_exchange_api__", 12345),       # issue 12 item 1: segfaulted
    ("__dlpack_c_exchange_api__", 12345),
    ("__dlpack_c_exchange_api__", "not a capsule"),
    ("__dlpack_c_exchange_api__", "wrong-name capsule"),
])
def test_consumer_ignores_exchange_api_that_is_not_our_capsule(attr, value):
    """Only a PyCapsule named "dlpack_exchange_api" is used; anything else is
    ignored and the object goes through __dlpack__, never a crash."""
    api = _Counting(minor=2)
    if value == "address":
        value = ctypes.addressof(api.api)
    elif value == "wrong-name capsule":
        value = _NewCapsule(ctypes.addressof(api.api), _WRONG_NAME, None)
    Fake = _fake_type(api, attr=attr, value=value)
    b = gd.from_dlpack(Fake(gd.arange(3.0)))
    assert b.tolist() == [0.0, 1.0, 2.0]
    assert api.calls == 0 and Fake.dlpack_calls == 1


def test_consumer_device_keyword_takes_dlpack_path():
    api = _Counting()
    Fake = _fake_type(api)
    gd.from_dlpack(Fake(gd.arange(3.0)), device="cpu")
    assert api.calls == 0 and Fake.dlpack_calls == 1


def test_consumer_many_types_keep_the_cache_working():
    fakes = [(_fake_type(a), a) for a in (_Counting() for _ in range(20))]
    for Fake, a in fakes:
        gd.from_dlpack(Fake(gd.arange(2.0)))
        gd.from_dlpack(Fake(gd.arange(2.0)))
        assert a.calls == 2 and Fake.dlpack_calls == 0
        assert Fake.lookups.count("__dlpack_c_exchange_api__") == 1


@requires("torch")
def test_torch_tensor_goes_through_torch_exchange_api(torch, monkeypatch):
    if not hasattr(torch.Tensor, "__dlpack_c_exchange_api__"):
        missing(f"torch {torch.__version__} has no C exchange API (__dlpack_c_exchange_api__)")
    calls = []
    orig = torch.Tensor.__dlpack__

    def counting(self, *args, **kw):
        calls.append(kw)
        return orig(self, *args, **kw)

    monkeypatch.setattr(torch.Tensor, "__dlpack__", counting)
    t = torch.arange(6, dtype=torch.float64)
    a = gd.from_dlpack(t)
    assert calls == []  # the C API, not __dlpack__
    a[0] = 5.0
    assert float(t[0]) == 5.0
    gd.from_dlpack(t, device="cpu")  # device negotiation: the Python protocol
    assert len(calls) == 1


# ---- zero Go-heap allocations on the hot paths -----------------------------------


def _allocs(f, n=2000, windows=3):
    """The fewest Go heap allocations of n calls of f, over a few windows:
    the counter is the process's, and a goroutine of the runtime (the
    cleanups of Go arrays that earlier tests made and dropped, run after a
    GC) may allocate during one window; a path that allocates does so in
    every window."""
    for _ in range(50):  # warm up: first calls on a thread, caches
        f()
    fewest = None
    for _ in range(windows):
        before = _native._go_allocs()
        for _ in range(n):
            f()
        got = _native._go_allocs() - before
        fewest = got if fewest is None else min(fewest, got)
    return fewest


def test_go_allocs_counter_works():
    assert isinstance(_native._go_allocs(), int) and _native._go_allocs() > 0


@requires("numpy")
@pytest.mark.parametrize(
    "name",
    [
        "np.from_dlpack(gd)",
        "gd.from_dlpack(np)",
        "gd.from_dlpack(gd)",
        "gd.__dlpack__ versioned",
        "gd.__dlpack__ legacy",
        "gd.from_dlpack(capsule)",
        "copy() small",
        "from_dlpack(copy=True) small",
        "exchange API round trip",
    ],
)
def test_hot_paths_allocate_nothing_on_the_go_heap(name):
    a = gd.arange(16.0)
    n = np.arange(16.0)
    api = our_api()
    from_py = fn(api, "managed_tensor_from_py_object_no_sync", FROM_PY)
    to_py = fn(api, "managed_tensor_to_py_object_no_sync", TO_PY)
    out, obj = ctypes.c_void_p(), ctypes.c_void_p()

    def round_trip():
        from_py(a, ctypes.byref(out))
        to_py(out.value, ctypes.byref(obj))
        take_object(obj.value)

    f = {
        "np.from_dlpack(gd)": lambda: np.from_dlpack(a),
        "gd.from_dlpack(np)": lambda: gd.from_dlpack(n),
        "gd.from_dlpack(gd)": lambda: gd.from_dlpack(a),
        "gd.__dlpack__ versioned": lambda: a.__dlpack__(max_version=(1, 3)),
        "gd.__dlpack__ legacy": lambda: a.__dlpack__(),
        "gd.from_dlpack(capsule)": lambda: gd.from_dlpack(n.__dlpack__(max_version=(1, 0))),
        "copy() small": lambda: a.copy(),
        "from_dlpack(copy=True) small": lambda: gd.from_dlpack(a, copy=True),
        "exchange API round trip": round_trip,
    }[name]
    assert _allocs(f) == 0


@requires("torch")
def test_torch_import_allocates_nothing_on_the_go_heap(torch):
    t = torch.arange(16, dtype=torch.float64)
    assert _allocs(lambda: gd.from_dlpack(t)) == 0
    a = gd.arange(16.0)
    assert _allocs(lambda: torch.from_dlpack(a), n=500) == 0


# ---- zero-crossing fast paths (core/fastpath.c) ------------------------------------
#
# The no-copy CPU export and import never call into Go: _native._go_crossings()
# counts the calls made by exports and imports (gocall.h). A request just
# outside the fast path's subset (stream=-1 on export; an unknown flag bit,
# which Go ignores, on import) forces the Go path, and both must give the same
# result.

import struct  # noqa: E402

from _helpers import FLAG_IS_COPIED, FLAG_READ_ONLY, NOFAST, DLManagedTensor  # noqa: E402

GO_ONLY_FLAG = 1 << 3  # not a DLPack flag: Go ignores it, the fast path declines it


def _fast_calls(go_calls, n=200):
    """The crossings n operations make that the fast path answers: none; with
    GODLPACK_NOFAST=1, the go_calls each makes on the Go route."""
    return n * go_calls if NOFAST else 0


def _crossings(f, n=200):
    f()  # warm up (caches, first call on the thread)
    before = _native._go_crossings()
    for _ in range(n):
        f()
    return _native._go_crossings() - before


def _readonly_array():
    n = np.arange(6.0)
    n.flags.writeable = False
    a = gd.from_dlpack(n)
    assert a.readonly
    return a


def test_go_crossings_counter_counts_the_go_path():
    a = gd.arange(4.0)
    assert _crossings(lambda: a.__dlpack__(max_version=(1, 3), stream=-1), n=10) == 10
    assert _crossings(lambda: a.__dlpack__(max_version=(1, 3), copy=True), n=10) == 10


@requires("numpy")
@pytest.mark.parametrize(
    "name",
    [
        "np.from_dlpack(gd)",
        "gd.from_dlpack(np)",
        "gd.from_dlpack(np) read-only",
        "gd.from_dlpack(np, device='cpu')",
        "gd.from_dlpack(np, copy=False)",
        "gd.asarray(np)",
        "gd.from_dlpack(gd)",
        "gd.__dlpack__ versioned",
        "gd.__dlpack__ legacy",
        "gd.__dlpack__ dl_device=(1, 0), copy=False",
        "gd.__dlpack__ read-only versioned",
        "gd.from_dlpack(versioned capsule)",
        "gd.from_dlpack(legacy capsule)",
        "exchange API round trip",
    ],
)
def test_fast_paths_make_no_go_call(name):
    a = gd.arange(16.0).reshape(4, 4)[::-1, 1::2]
    n = np.arange(16.0)
    nro = np.arange(16.0)
    nro.flags.writeable = False
    ro = _readonly_array()
    api = our_api()
    from_py = fn(api, "managed_tensor_from_py_object_no_sync", FROM_PY)
    to_py = fn(api, "managed_tensor_to_py_object_no_sync", TO_PY)
    out, obj = ctypes.c_void_p(), ctypes.c_void_p()

    def round_trip():
        assert from_py(a, ctypes.byref(out)) == 0
        assert to_py(out.value, ctypes.byref(obj)) == 0
        take_object(obj.value)

    # name: (the call, the Go calls it makes on the Go route)
    f, go_calls = {
        "np.from_dlpack(gd)": (lambda: np.from_dlpack(a), 1),
        "gd.from_dlpack(np)": (lambda: gd.from_dlpack(n), 1),
        "gd.from_dlpack(np) read-only": (lambda: gd.from_dlpack(nro), 1),
        "gd.from_dlpack(np, device='cpu')": (lambda: gd.from_dlpack(n, device="cpu"), 2),
        "gd.from_dlpack(np, copy=False)": (lambda: gd.from_dlpack(n, copy=False), 1),
        "gd.asarray(np)": (lambda: gd.asarray(n), 1),
        "gd.from_dlpack(gd)": (lambda: gd.from_dlpack(a), 2),
        "gd.__dlpack__ versioned": (lambda: a.__dlpack__(max_version=(1, 3)), 1),
        "gd.__dlpack__ legacy": (lambda: a.__dlpack__(), 1),
        "gd.__dlpack__ dl_device=(1, 0), copy=False": (lambda: a.__dlpack__(
            max_version=(1, 0), dl_device=(1, 0), copy=False
        ), 1),
        "gd.__dlpack__ read-only versioned": (lambda: ro.__dlpack__(max_version=(1, 3)), 1),
        "gd.from_dlpack(versioned capsule)": (lambda: gd.from_dlpack(n.__dlpack__(max_version=(1, 0))), 1),
        "gd.from_dlpack(legacy capsule)": (lambda: gd.from_dlpack(n.__dlpack__()), 1),
        "exchange API round trip": (round_trip, 2),
    }[name]
    assert _crossings(f) == _fast_calls(go_calls)


@requires("torch")
def test_torch_exchanges_make_no_go_call(torch):
    t = torch.arange(16, dtype=torch.float64)
    a = gd.arange(16.0)
    assert _crossings(lambda: gd.from_dlpack(t)) == _fast_calls(1)
    assert _crossings(lambda: torch.from_dlpack(a)) == _fast_calls(1)


def test_producer_copy_then_fast_import():
    # from_dlpack(copy=True) of our own array: the export copies in Go (one
    # crossing) and marks IS_COPIED; the import of that copy is the fast path.
    a = gd.arange(16.0)
    assert _crossings(lambda: gd.from_dlpack(a, copy=True), n=20) == 20 + _fast_calls(1, n=20)
    b = gd.from_dlpack(a, copy=True)
    b[0] = 5.0
    assert a[0] == 0.0


@requires("numpy")
@pytest.mark.parametrize(
    "call",
    [
        lambda a, ro: a.__dlpack__(max_version=(1, 3), copy=True),
        lambda a, ro: a.__dlpack__(max_version=(1, 3), dl_device=(2, 0)),
        lambda a, ro: a.__dlpack__(max_version=(1, 3), stream=5),
        lambda a, ro: ro.__dlpack__(),
    ],
    ids=["copy=True", "dl_device cuda", "stream=5", "read-only legacy"],
)
def test_outside_the_subset_goes_to_go(call):
    a = gd.arange(4.0)
    ro = _readonly_array()
    before = _native._go_crossings()
    try:
        call(a, ro)
    except BufferError as e:
        assert str(e).startswith("__dlpack__(): ")  # Go's message
    assert _native._go_crossings() - before == 1


def _export_image(cap):
    """The managed tensor of cap with its shape and strides, as bytes; the
    shape/strides pointers as offsets from the struct (one block each)."""
    info = CapsuleInfo(cap)
    cls = DLManagedTensorVersioned if info.versioned else DLManagedTensor
    raw = bytearray(ctypes.string_at(info.address, ctypes.sizeof(cls)))
    t = cls.from_address(info.address).dl_tensor
    sh = ctypes.cast(t.shape, ctypes.c_void_p).value
    st = ctypes.cast(t.strides, ctypes.c_void_p).value
    n = max(t.ndim, 1)
    at = (cls.dl_tensor.offset if info.versioned else 0) + DLTensor.shape.offset
    raw[at : at + 16] = struct.pack("qq", sh - info.address, st - info.address)
    return info.name, bytes(raw) + ctypes.string_at(sh, 8 * n) + ctypes.string_at(st, 8 * n)


def _arrays():
    yield "1-d", gd.arange(16.0)
    yield "negative strides, offset", gd.arange(16.0).reshape(4, 4)[::-1, 1::2]
    yield "0-d", gd.arange(1.0).reshape(())
    yield "empty", gd.zeros((3, 0))
    yield "int8", gd.arange(5, dtype="int8")
    yield "complex128", gd.zeros((2, 2), dtype="complex128")
    yield "bool", gd.zeros((3,), dtype="bool")
    yield "bfloat16", gd.zeros((3,), dtype="bfloat16")
    yield "read-only", _readonly_array()


@requires("numpy")
@pytest.mark.parametrize("max_version", [None, (0, 9), (1, 0), (1, 3), (2, 0)])
def test_fast_export_equals_go_export(max_version):
    for what, a in _arrays():
        if a.readonly and (max_version is None or max_version[0] < 1):
            continue  # refused, by Go
        kw = {} if max_version is None else {"max_version": max_version}
        before = _native._go_crossings()
        fast = a.__dlpack__(**kw)
        assert _native._go_crossings() == before + _fast_calls(1, n=1), what
        slow = a.__dlpack__(stream=-1, **kw)  # stream=-1: accepted, but only by Go
        assert _native._go_crossings() == before + 1 + _fast_calls(1, n=1), what
        assert _export_image(fast) == _export_image(slow), what
        if CapsuleInfo(fast).versioned:
            assert CapsuleInfo(fast).read_only == a.readonly, what


def _described(a):
    info = CapsuleInfo(a.__dlpack__(max_version=(1, 3)))
    return (info.first_element if a.size else 0, info.device, info.dtype, info.shape, info.strides, a.readonly)


_FAST_IMPORT_CASES = [
    dict(shape=(2, 3), strides=(3, 1)),
    dict(shape=(2, 3), strides=None),
    dict(shape=(3, 2), strides=(-2, -1), byte_offset=40),
    dict(shape=(), strides=None),
    dict(shape=(0, 4), strides=(4, 1)),
    dict(shape=(6,), strides=(1,), flags=FLAG_READ_ONLY),
    dict(shape=(6,), strides=(1,), flags=FLAG_IS_COPIED),
    dict(shape=(3,), strides=(2,), dtype=(1, 16, 1)),
]


# Legacy tensors have no flags: those cases exist for versioned ones only.
@pytest.mark.parametrize(
    "versioned,kw",
    [(v, kw) for kw in _FAST_IMPORT_CASES for v in (True, False) if v or "flags" not in kw],
)
def test_fast_import_equals_go_import(versioned, kw):
    kw = dict(kw)  # the parameter dicts are shared between runs
    flags = kw.pop("flags", 0)
    got = []
    for force_go in (False, True):
        buf = (ctypes.c_double * 8)(*range(8))
        cap, rec = craft_capsule(
            buf, versioned=versioned or force_go, flags=flags | (GO_ONLY_FLAG if force_go else 0), **kw
        )
        before = _native._go_crossings()
        a = gd.from_dlpack(cap)
        assert _native._go_crossings() - before == int(force_go) + _fast_calls(1 - int(force_go), n=1)
        d = _described(a)
        got.append(d[1:] + (d[0] and d[0] - ctypes.addressof(buf),))  # data relative to each buffer
        del a, cap
        gc.collect()
        assert rec.deleted == 1
    assert got[0] == got[1]
