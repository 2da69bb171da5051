"""numpy.ndarray arguments of registered Go functions (issues 15 and 25's
call cost): an exact ndarray is read in place (numpy's C layout, core's
gd_numpy_route) instead of through __dlpack__ where its fields say all the
DLPack export would. Go must see the same array either way, for every numpy
dtype and layout: these tests compare each ndarray with the same array
offered through __dlpack__ alone, refusals included, and check the lifetime
of the in-place route."""

from __future__ import annotations

import gc
import threading

import pytest

from godlpack import _native as N

from _helpers import missing, need, optional, probes, refcount

pytestmark = probes  # the _gofunc_* probes: a GODLPACK_PROBES=1 build

np = need("numpy")
ml_dtypes = optional("ml_dtypes")


class DLPackOnly:
    """x offered through __dlpack__ alone: the route every non-ndarray takes."""

    def __init__(self, x):
        self.x = x

    def __dlpack__(self, **kw):
        return self.x.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()


DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32",
          "float64", "complex64", "complex128", "longdouble", "clongdouble", ">f8", ">i4", "<f8", "=i2", "|u1",
          "datetime64[s]", "timedelta64[ms]", "object", "S3", "U2", "V8", "i4,f8", "bfloat16", "float8_e4m3fn"]


def _dtype(name):
    if name in ("bfloat16", "float8_e4m3fn"):
        if ml_dtypes is None:
            missing("ml_dtypes is not installed")
        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


def _base(dt):
    if dt.kind == "O":
        return np.array([object()] * 24, dtype=object).reshape(4, 6)
    return np.frombuffer(bytearray(24 * dt.itemsize), dtype=dt).reshape(4, 6).copy()


def _unaligned(x):
    raw = np.zeros(x.nbytes + 1, dtype=np.uint8)
    return raw[1:].view(x.dtype).reshape(x.shape)


LAYOUTS = {
    "contiguous": lambda x: x,
    "transposed": lambda x: x.T,
    "sliced": lambda x: x[::2, 1:],
    "reversed": lambda x: x[::-1],
    "column": lambda x: x[:, :1],          # a length-1 dimension (numpy's buffer rewrites its stride)
    "row": lambda x: x[1:2],
    "newaxis": lambda x: x[None],
    "zero-size": lambda x: x[:0],
    "0-d": lambda x: x[1, 2],
    "scalar-array": lambda x: np.asarray(x[1, 2]) if x.dtype.kind != "O" else x[1:2, 2:3],
    "broadcast": lambda x: np.broadcast_to(x[0], (3, 6)),
    "broadcast_arrays": lambda x: np.broadcast_arrays(x[0], x[:, :1])[0],  # writable but warns on write
    "read-only": lambda x: _readonly(x),
    "unaligned": lambda x: _unaligned(x) if x.dtype.itemsize > 1 and x.dtype.kind != "O" else x,
    "byte-strided": lambda x: x.view(np.uint8)[:, 1::x.dtype.itemsize] if x.dtype.kind != "O" else x,
    "3-d": lambda x: x.reshape(2, 3, 4),
}


def _readonly(x):
    y = x.copy()
    y.flags.writeable = False
    return y


def _seen(f, x):
    try:
        return "ok", f(x)
    except Exception as e:  # the refusal itself is compared (naming the producer's type as ndarray)
        return type(e).__name__, str(e).replace("DLPackOnly", "ndarray")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_go_sees_an_ndarray_as_its_dlpack_export(dtype, layout):
    x = LAYOUTS[layout](_base(_dtype(dtype)))
    if not isinstance(x, np.ndarray):  # 0-d of some dtypes: a numpy scalar or a Python object
        x = np.asarray(x)
    assert type(x) is np.ndarray
    for fn in (N._gofunc_describe, N._bench_call, N._bench_call_quick, N._gofunc_write_any):
        assert _seen(fn, x) == _seen(fn, DLPackOnly(x)), fn.__name__


def test_writes_through_the_in_place_route_reach_the_ndarray():
    x = np.zeros((4, 3))
    N._gofunc_fill(x[1:], 2.5)
    assert x[0].tolist() == [0, 0, 0] and (x[1:] == 2.5).all()


def test_a_class_named_like_ndarray_is_not_read_in_place():
    """Only numpy's own (static) type is read in place: a Python class that
    calls itself numpy.ndarray goes through its __dlpack__."""
    fake = type("ndarray", (), {"__module__": "numpy", "__qualname__": "ndarray",
                                "__dlpack__": lambda self, **kw: np.arange(6.0).__dlpack__(**kw),
                                "__dlpack_device__": lambda self: (1, 0)})
    for fn in (N._bench_call, N._bench_call_quick):
        assert fn(fake()) == 6.0
        assert fn(np.arange(4.0)) == 4.0  # the real one still is


def test_ndarray_subclasses_take_their_own_dlpack():
    class Sub(np.ndarray):
        calls = 0

        def __dlpack__(self, **kw):
            Sub.calls += 1
            return np.asarray(self).__dlpack__(**kw)

    x = np.arange(6.0).reshape(2, 3).view(Sub)
    assert N._bench_call(x) == 6.0
    assert Sub.calls == 1


def test_in_place_route_holds_the_ndarray_for_the_call_only():
    x = np.arange(12.0)
    before = refcount(x)
    for _ in range(50):
        N._bench_call(x)
        N._bench_call_quick(x)
        N._gofunc_describe(x)
    gc.collect()
    assert refcount(x) == before
    x.resize(24, refcheck=True)  # no buffer export left open


def test_kept_ndarray_lives_until_go_releases_it_on_any_thread():
    x = np.arange(12.0)
    before = refcount(x)
    N._check_keep(x)
    assert refcount(x) == before + 1  # the kept array's owner holds it
    with pytest.raises(ValueError):
        x.resize(24, refcheck=True)  # numpy knows an export is open
    out = []
    th = threading.Thread(target=lambda: out.append(N._check_drop_kept()))
    th.start()
    th.join()
    assert out == [1]
    gc.collect()
    assert refcount(x) == before
    x.resize(24, refcheck=True)
