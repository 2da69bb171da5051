"""Zero-copy exchange with numpy and torch, both directions, parametrized over
dtypes x layouts x capsule route (peers.md items 8, 12, 15-22, 26, 29).

Every case proves zero-copy three ways: equal data pointers, a write on one
side observed on the other, and the reverse write."""

import math

import pytest

import godlpack as gd
from _helpers import CapsuleInfo, capsule_name, gd_ptr, missing, optional, requires

np_mod = optional("numpy")
torch_mod = optional("torch")

COMMON = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
NUMPY_DTYPES = COMMON
TORCH_DTYPES = COMMON + ["bfloat16"]


# ---------------------------------------------------------------- values and layouts


def py_values(name, n):
    if name == "bool":
        return [i % 3 == 0 for i in range(n)]
    if name.startswith("complex"):
        return [complex(i, n - i) for i in range(n)]
    if name.startswith(("float", "bfloat")):
        return [i * 0.5 for i in range(n)]
    return [i % 100 for i in range(n)]


def fill_values(name):
    """Two values different from each other and from most py_values."""
    if name == "bool":
        return True, False
    if name.startswith("complex"):
        return 1.5 + 2j, -1j
    if name.startswith(("float", "bfloat")):
        return 0.75, 2.25
    return 101, 7


def prod(shape):
    return math.prod(shape)


# name -> (base shape, view function (x, T) -> view, negative strides?)
LAYOUTS = {
    "c3d": ((2, 3, 4), lambda x, T: x, False),
    "transpose": ((2, 3, 4), lambda x, T: T(x), False),
    "fortran": ((4, 3, 2), lambda x, T: T(x), False),
    "row": ((3, 4), lambda x, T: x[1], False),
    "column": ((3, 4), lambda x, T: x[:, 1], False),
    "step": ((10,), lambda x, T: x[1::3], False),
    "slice2d": ((4, 6), lambda x, T: x[1:3, ::2], False),
    "size1odd": ((3, 7, 4), lambda x, T: x[:, 2:3, :], False),
    "size1T": ((5, 1), lambda x, T: T(x), False),
    "0d": ((1,), lambda x, T: x.reshape(()), False),
    "zero0": ((0,), lambda x, T: x, False),
    "zero10": ((0,), lambda x, T: x.reshape((1, 0)), False),
    "zero301": ((0,), lambda x, T: x.reshape((3, 0, 1)), False),
    "zero04T": ((0,), lambda x, T: T(x.reshape((4, 0))), False),
    "ndim32": ((32,), lambda x, T: x.reshape((2,) * 5 + (1,) * 27), False),
    "ndim32T": ((32,), lambda x, T: T(x.reshape((2,) * 5 + (1,) * 27)), False),
    "neg1": ((10,), lambda x, T: x[::-1], True),
    "neg2": ((4, 6), lambda x, T: x[::-2, ::-1], True),
    "negT": ((4, 6), lambda x, T: T(x)[1::-1], True),
}
POS_LAYOUTS = [k for k, v in LAYOUTS.items() if not v[2]]


def np_T(x):
    return x.transpose()


def torch_T(t):
    return t.permute(*reversed(range(t.ndim)))


def gd_T(a):
    return a.T


def np_make(np, name, layout):
    shape, view, _ = LAYOUTS[layout]
    vals = py_values(name, prod(shape))
    base = np.array(vals, dtype=np.bool_ if name == "bool" else name).reshape(shape)
    return view(base, np_T)


def torch_make(torch, name, layout):
    shape, view, _ = LAYOUTS[layout]
    vals = py_values(name, prod(shape))
    if name.startswith("uint") and name != "uint8":
        base = torch.tensor(vals, dtype=torch.int64).to(getattr(torch, name))
    else:
        base = torch.tensor(vals, dtype=getattr(torch, name))
    return view(base.reshape(shape), torch_T)


def gd_make(name, layout):
    shape, view, _ = LAYOUTS[layout]
    vals = py_values(name, prod(shape))
    base = gd.asarray(vals, dtype=name) if vals else gd.zeros((0,), dtype=name)
    return view(base.reshape(shape), gd_T)


def np_strides(x):
    return tuple(s // x.itemsize for s in x.strides)


def flat(v):
    if isinstance(v, list):
        out = []
        for e in v:
            out.extend(flat(e))
        return out
    return [v]


def torch_list(t):
    return t.tolist()


def same_values(a, b):
    return flat(a) == flat(b)


def dtype_ok(a, name):
    assert a.dtype == name, f"dtype {a.dtype!r} != {name}"
    assert a.dtype.name == name


# ---------------------------------------------------------------- numpy -> godlpack


ROUTES = ["object", "legacy", "versioned"]


def import_np(x, route):
    if route == "object":
        return gd.from_dlpack(x)
    cap = x.__dlpack__(max_version=None if route == "legacy" else (1, 0))
    a = gd.from_dlpack(cap)
    assert capsule_name(cap) == ("used_dltensor" if route == "legacy" else "used_dltensor_versioned")
    return a


@requires("numpy")
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("name", NUMPY_DTYPES)
def test_numpy_to_gd(np, name, layout, route):
    x = np_make(np, name, layout)
    a = import_np(x, route)
    dtype_ok(a, name)
    assert a.shape == x.shape
    assert a.strides == np_strides(x), "strides must be kept exactly"
    assert a.readonly is False
    assert a.__dlpack_device__() == (1, 0)
    assert same_values(a.tolist(), x.tolist())
    if x.size == 0:
        return
    assert gd_ptr(a) == np_ptr(x)
    v1, v2 = fill_values(name)
    x[...] = v1
    assert all(e == v1 for e in flat(a.tolist())), "numpy write not seen by godlpack"
    a.fill(v2)
    assert all(e == v2 for e in flat(x.tolist())), "godlpack write not seen by numpy"


def np_ptr(x):
    return x.__array_interface__["data"][0]


@requires("numpy")
@pytest.mark.parametrize("start", range(0, 7))
@pytest.mark.parametrize("step", [-1, -2, -3])
def test_numpy_negative_strides_every_start(np, start, step):
    x = np.arange(7, dtype=np.int32)[start::step]
    a = gd.from_dlpack(x)
    assert a.strides == (step,) and a.tolist() == x.tolist()
    assert gd_ptr(a) == np_ptr(x)
    y = np.from_dlpack(a)
    assert y.strides == x.strides and np_ptr(y) == np_ptr(x)


@requires("numpy")
def test_numpy_size1_odd_strides_kept(np):
    base = np.arange(100, dtype=np.float32)
    x = np.lib.stride_tricks.as_strided(base, shape=(3, 1, 4), strides=(16, 28, 4))
    a = gd.from_dlpack(x)
    assert a.strides == (4, 7, 1)
    y = np.from_dlpack(a)
    assert y.strides == (16, 28, 4)


@requires("numpy")
def test_numpy_zero_strides(np):
    x = np.lib.stride_tricks.as_strided(np.arange(3.0), shape=(4, 3), strides=(0, 8))
    a = gd.from_dlpack(x)
    assert a.strides == (0, 1) and a.tolist() == x.tolist()


# ---------------------------------------------------------------- godlpack -> numpy


class Holder:
    """Hands numpy a capsule we made with a chosen max_version."""

    def __init__(self, cap):
        self.cap = cap

    def __dlpack__(self, **kw):
        return self.cap

    def __dlpack_device__(self):
        return (1, 0)


def export_to_np(np, a, route):
    if route == "object":
        return np.from_dlpack(a)
    return np.from_dlpack(Holder(a.__dlpack__(max_version=None if route == "legacy" else (1, 0))))


@requires("numpy")
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("name", NUMPY_DTYPES)
def test_gd_to_numpy(np, name, layout, route):
    a = gd_make(name, layout)
    x = export_to_np(np, a, route)
    assert x.dtype == (np.bool_ if name == "bool" else np.dtype(name))
    assert x.shape == a.shape
    assert same_values(x.tolist(), a.tolist())
    # numpy makes (non-empty) legacy imports read-only; versioned ones follow READ_ONLY.
    if route != "legacy":
        assert x.flags.writeable
    if a.size == 0:
        return  # numpy rewrites the strides of empty arrays itself
    assert np_strides(x) == a.strides
    assert np_ptr(x) == gd_ptr(a)
    v1, v2 = fill_values(name)
    a.fill(v1)
    assert all(e == v1 for e in flat(x.tolist()))
    if route == "legacy":
        return
    x[...] = v2
    assert all(e == v2 for e in flat(a.tolist()))


# ---------------------------------------------------------------- torch <-> godlpack


def torch_dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def import_torch(t, route):
    if route == "object":
        return gd.from_dlpack(t)
    cap = t.__dlpack__() if route == "legacy" else t.__dlpack__(max_version=(1, 0))
    assert capsule_name(cap) == ("dltensor" if route == "legacy" else "dltensor_versioned")
    return gd.from_dlpack(cap)


@requires("torch")
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("layout", POS_LAYOUTS)
@pytest.mark.parametrize("name", TORCH_DTYPES)
def test_torch_to_gd(torch, name, layout, route):
    t = torch_make(torch, name, layout)
    a = import_torch(t, route)
    dtype_ok(a, name)
    assert a.shape == tuple(t.shape)
    assert a.strides == tuple(t.stride())
    assert a.readonly is False, "torch never marks exports read-only"
    assert same_values(a.tolist(), torch_list(t))
    if t.numel() == 0:
        return
    assert gd_ptr(a) == t.data_ptr()
    v1, v2 = fill_values(name)
    t.fill_(v1)
    assert all(e == v1 for e in flat(a.tolist())), "torch write not seen by godlpack"
    a.fill(v2)
    assert all(e == v2 for e in flat(torch_list(t))), "godlpack write not seen by torch"


def export_to_torch(torch, a, route):
    if route == "object":
        return torch.from_dlpack(a)
    cap = a.__dlpack__(max_version=None if route == "legacy" else (1, 0))
    return torch.from_dlpack(cap)


@requires("torch")
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("layout", POS_LAYOUTS)
@pytest.mark.parametrize("name", TORCH_DTYPES)
def test_gd_to_torch(torch, name, layout, route):
    a = gd_make(name, layout)
    t = export_to_torch(torch, a, route)
    assert torch_dtype_name(t) == name
    assert tuple(t.shape) == a.shape
    assert tuple(t.stride()) == a.strides
    assert same_values(torch_list(t), a.tolist())
    if a.size == 0:
        return
    assert t.data_ptr() == gd_ptr(a)
    v1, v2 = fill_values(name)
    a.fill(v1)
    assert all(e == v1 for e in flat(torch_list(t)))
    t.fill_(v2)
    assert all(e == v2 for e in flat(a.tolist()))


@requires("torch")
def test_gd_negative_strides_to_torch_no_crash(torch):
    # torch cannot represent negative strides; it must fail cleanly (pytorch#188023)
    # or copy, never crash. godlpack itself must export them unchanged.
    a = gd.arange(10, dtype="float32")[::-1]
    assert CapsuleInfo(a.__dlpack__(max_version=(1, 0))).strides == (-1,)
    try:
        t = torch.from_dlpack(a)
    except (RuntimeError, BufferError, ValueError):
        return
    assert t.tolist() == a.tolist()


@requires("torch")
@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"])
def test_torch_float8_round_trip(torch, name):
    if not hasattr(torch, name):
        missing(f"torch {torch.__version__} has no {name}")
    t = torch.ones(2, 3, dtype=getattr(torch, name))
    try:
        cap = t.__dlpack__(max_version=(1, 0))
    except (BufferError, RuntimeError, TypeError) as e:
        missing(f"torch {torch.__version__} cannot export {name}: {e}")
    a = gd.from_dlpack(cap)
    assert a.dtype == name and a.shape == (2, 3) and a.itemsize == 1
    assert gd_ptr(a) == t.data_ptr()
    back = torch.from_dlpack(a)
    assert back.dtype == t.dtype and back.data_ptr() == t.data_ptr()
    assert torch.equal(back.view(torch.uint8), t.view(torch.uint8))


@requires("torch")
def test_torch_complex32_refused(torch):
    t = torch.zeros(3, dtype=torch.complex32)
    with pytest.raises(BufferError):
        gd.from_dlpack(t)


@requires("torch")
def test_torch_zero_stride_expand(torch):
    t = torch.arange(3.0).expand(4, 3)
    a = gd.from_dlpack(t)
    assert a.strides == (0, 1) and a.tolist() == t.tolist()


@requires("torch")
def test_torch_size1_odd_strides_kept(torch):
    t = torch.arange(100.0).as_strided((3, 1, 4), (4, 7, 1))
    a = gd.from_dlpack(t)
    assert a.strides == (4, 7, 1)
    b = torch.from_dlpack(a)
    assert b.stride() == (4, 7, 1)


@requires("torch")
def test_torch_storage_offset(torch):
    t = torch.arange(20.0)[7:]
    a = gd.from_dlpack(t)
    assert gd_ptr(a) == t.data_ptr() and a.tolist() == t.tolist()


# ---------------------------------------------------------------- read-only both ways (items 21, 22)


@requires("numpy")
def test_readonly_numpy_to_gd(np):
    x = np.arange(6.0).reshape(2, 3)
    x.flags.writeable = False
    for a in (gd.from_dlpack(x), gd.from_dlpack(x.__dlpack__(max_version=(1, 0)))):
        assert a.readonly is True
        assert gd_ptr(a) == np_ptr(x)
        with pytest.raises(ValueError):
            a[0, 0] = 1.0
        with pytest.raises(ValueError):
            a.fill(0.0)
        assert x[0, 0] == 0.0
    with pytest.raises(BufferError):
        x.__dlpack__()  # numpy itself refuses the legacy route


@requires("numpy")
def test_readonly_numpy_broadcast_to_gd(np):
    x = np.broadcast_to(np.arange(3.0), (4, 3))
    a = gd.from_dlpack(x)
    assert a.readonly and a.strides == (0, 1)


@requires("numpy")
def test_readonly_gd_to_numpy(np):
    src = np.arange(4.0)
    src.flags.writeable = False
    r = gd.from_dlpack(src)
    x = np.from_dlpack(r)
    assert not x.flags.writeable
    assert np_ptr(x) == np_ptr(src)
    with pytest.raises(ValueError):
        x[0] = 1.0
    with pytest.raises(BufferError):
        np.from_dlpack(Holder(r.__dlpack__()))  # never reached: legacy export refused


@requires("numpy")
def test_readonly_gd_from_bytes_to_numpy(np):
    r = gd.asarray(b"\x01\x02\x03")
    x = np.from_dlpack(r)
    assert not x.flags.writeable and x.tolist() == [1, 2, 3]


@requires("torch")
def test_readonly_gd_to_torch_ignored_by_torch(torch):
    r = gd.asarray(bytes(range(6)))
    assert r.readonly
    t = torch.from_dlpack(r)  # torch asks for a versioned capsule and ignores READ_ONLY
    assert t.data_ptr() == gd_ptr(r) and t.tolist() == list(range(6))


@requires("torch")
def test_torch_to_gd_writable(torch):
    t = torch.zeros(3)
    a = gd.from_dlpack(t)
    assert not a.readonly
    a[1] = 5.0
    assert t[1].item() == 5.0


# ---------------------------------------------------------------- copy / dl_device with peers (items 8, 23)


@requires("numpy")
def test_numpy_consumer_copy_flags(np):
    a = gd.arange(5, dtype="float64")
    x = np.from_dlpack(a, copy=True)
    assert np_ptr(x) != gd_ptr(a) and x.tolist() == a.tolist()
    y = np.from_dlpack(a, copy=False)
    assert np_ptr(y) == gd_ptr(a)
    z = np.from_dlpack(a, device="cpu")
    assert np_ptr(z) == gd_ptr(a)


@requires("numpy")
def test_numpy_copy_true_readonly_source(np):
    src = np.arange(4.0)
    src.flags.writeable = False
    r = gd.from_dlpack(src)
    x = np.from_dlpack(r, copy=True)
    assert np_ptr(x) != np_ptr(src)
    assert x.flags.writeable
    x[0] = 9.0
    assert src[0] == 0.0


@requires("numpy")
def test_numpy_is_copied_capsule_import(np):
    x = np.arange(4.0)
    cap = x.__dlpack__(max_version=(1, 0), copy=True)
    assert CapsuleInfo(cap).is_copied
    a = gd.from_dlpack(cap)
    assert gd_ptr(a) != np_ptr(x) and a.tolist() == x.tolist() and not a.readonly


@requires("torch")
def test_torch_consumer_on_views(torch):
    base = gd.arange(24, dtype="float32").reshape((4, 6))
    for view in (base[1], base[:, 2], base.T, base[1:3, ::2]):
        t = torch.from_dlpack(view)
        assert t.data_ptr() == gd_ptr(view) and tuple(t.stride()) == view.strides
        assert t.device.type == "cpu"


# ---------------------------------------------------------------- chains


@requires("numpy", "torch")
def test_numpy_gd_torch_chain_zero_copy(np, torch):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = gd.from_dlpack(x)
    t = torch.from_dlpack(a)
    assert t.data_ptr() == np_ptr(x) == gd_ptr(a)
    t[1, 1] = -7.0
    assert x[1, 1] == -7.0 and a.tolist()[1][1] == -7.0
    y = np.from_dlpack(gd.from_dlpack(t))
    assert np_ptr(y) == np_ptr(x)


# ---------------------------------------------------------------- buffer protocol with numpy (memoryview addresses)


BUFFER_LAYOUTS = ["c3d", "transpose", "fortran", "column", "slice2d", "neg2", "negT", "0d", "size1odd"]


@requires("numpy")
@pytest.mark.parametrize("layout", BUFFER_LAYOUTS)
@pytest.mark.parametrize("name", NUMPY_DTYPES)
def test_buffer_protocol_numpy_zero_copy(np, name, layout):
    a = gd_make(name, layout)
    mv = memoryview(a)
    assert mv.shape == a.shape
    assert mv.strides == tuple(s * a.itemsize for s in a.strides)
    x = np.asarray(mv)
    assert x.dtype == (np.bool_ if name == "bool" else np.dtype(name))
    assert x.strides == mv.strides
    assert np_ptr(x) == gd_ptr(a), "memoryview must expose the array's own memory"
    assert same_values(x.tolist(), a.tolist())
    v1, v2 = fill_values(name)
    x[...] = v1
    assert all(e == v1 for e in flat(a.tolist()))
    a.fill(v2)
    assert all(e == v2 for e in flat(x.tolist()))


@requires("numpy")
def test_buffer_protocol_readonly_numpy(np):
    src = np.arange(4.0)
    src.flags.writeable = False
    r = gd.from_dlpack(src)
    x = np.asarray(memoryview(r))
    assert not x.flags.writeable and np_ptr(x) == np_ptr(src)


@requires("numpy")
def test_asarray_numpy_buffer_zero_copy(np):
    x = np.arange(12, dtype=np.int16).reshape(3, 4)[:, ::-2]
    a = gd.asarray(x)
    assert gd_ptr(a) == np_ptr(x) and a.strides == (4, -2)
    a[0, 0] = -9
    assert x[0, 0] == -9


# ---------------------------------------------------------------- max_version sent by future consumers


@requires("numpy", "torch")
@pytest.mark.parametrize("mv", [(0, 8), (1, 0), (1, 3), (1, 7), (2, 0), (10, 10)])
def test_future_max_version_still_consumable(np, torch, mv):
    a = gd.arange(6, dtype="float32").reshape((2, 3)).T
    cap = a.__dlpack__(max_version=mv)
    info = CapsuleInfo(cap)
    assert info.versioned == (mv[0] >= 1)
    if info.versioned:
        assert info.version == (1, 3)
    x = np.from_dlpack(Holder(cap))
    assert np_ptr(x) == gd_ptr(a) and x.tolist() == a.tolist()
    t = torch.from_dlpack(a.__dlpack__(max_version=mv))
    assert t.data_ptr() == gd_ptr(a) and t.tolist() == a.tolist()
