"""numpy's array protocols on godlpack.Array (issue 22): __array__, np.dtype of a
godlpack dtype, gd.asarray of objects numpy reads, __sizeof__ and protocol-5
pickling with the buffers Ray and Dask hand back. Each is checked against
what numpy itself does with the same data."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

import godlpack as gd
from godlpack import _tables
from _helpers import optional, requires

np = optional("numpy")
ml_dtypes = optional("ml_dtypes")

NUMPY_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float16", "float32", "float64", "complex64", "complex128"]
# whole-byte dtypes numpy has only through ml_dtypes
ML_DTYPES = [n for n, (code, bits) in _tables.DTYPES.items() if bits % 8 == 0 and n not in NUMPY_DTYPES]
SUBBYTE = [n for n, (code, bits) in _tables.DTYPES.items() if bits % 8 != 0]

# views over a (4, 6) base: name -> index
LAYOUTS = {
    "contiguous": (slice(None), slice(None)),
    "row": (1, slice(None)),
    "column": (slice(None), 2),
    "reversed": (slice(None, None, -1), slice(None, None, -2)),
    "strided": (slice(1, None, 2), slice(None, None, 3)),
    "scalar": (2, 3),
    "empty": (slice(2, 2), slice(None)),
}


def _base(name):
    """A (4, 6) godlpack array of dtype name with values exact in every dtype."""
    return gd.asarray(np.arange(24).reshape(4, 6) % 7, dtype=name)


def _as_numpy_kind(name):
    return np.dtype(name) if name in NUMPY_DTYPES else np.dtype(getattr(ml_dtypes, name))


@requires("numpy", "ml_dtypes")
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("name", NUMPY_DTYPES + ML_DTYPES)
def test_asarray_is_a_zero_copy_view_with_the_right_dtype(name, layout):
    b = _base(name)
    key = LAYOUTS[layout]
    if layout == "scalar":
        key = (slice(2, 3), slice(3, 4))
    a = b[key]
    n = np.asarray(a)
    assert n.dtype == _as_numpy_kind(name)
    assert n.shape == a.shape
    if a.size:
        assert [s // n.itemsize for s in n.strides] == list(a.strides)
        assert n.__array_interface__["data"][0] == a.data_ptr
    if name in NUMPY_DTYPES:
        assert n.tolist() == a.tolist()
    else:
        want = np.array(a.astype("float64").tolist()).reshape(a.shape)
        np.testing.assert_array_equal(n.astype("float64"), want)
    assert n.flags.writeable


@requires("numpy", "ml_dtypes")
@pytest.mark.parametrize("name", ["float32", "int16", *ML_DTYPES])
def test_writes_go_both_ways(name):
    a = gd.ones((3,), dtype=name)
    n = np.asarray(a)
    n[1] = 2
    assert a.astype("float64").tolist() == [1.0, 2.0, 1.0]
    a[2] = 4
    assert n.astype("float64").tolist() == [1.0, 2.0, 4.0]


@requires("numpy", "ml_dtypes")
@pytest.mark.parametrize("name", ["float64", "uint8", "bfloat16", "float8_e4m3fn"])
def test_read_only_stays_read_only(name):
    data, bufs = _ro_pickle(gd.asarray([0.0, 1.0, 2.0, 3.0], dtype=name))
    a = pickle.loads(data, buffers=bufs)
    assert a.readonly
    n = np.asarray(a)
    assert not n.flags.writeable
    assert n.__array_interface__["data"][0] == a.data_ptr
    with pytest.raises(ValueError):
        n[0] = 1


def _ro_pickle(a):
    """(pickle bytes, buffers=[read-only buffers]) of a, as Ray's object store hands them back."""
    bufs = []
    data = pickle.dumps(a, protocol=5, buffer_callback=bufs.append)
    return data, [memoryview(b.raw()).toreadonly() for b in bufs]


@requires("numpy", "ml_dtypes")
@pytest.mark.parametrize("name", ["float32", "bfloat16"])
def test_dtype_and_copy_keywords_follow_numpy(name):
    a = gd.asarray([1.0, 2.0, 3.0], dtype=name)
    same = np.asarray(a, copy=False)
    assert same.__array_interface__["data"][0] == a.data_ptr
    copied = np.array(a, copy=True)
    assert copied.__array_interface__["data"][0] != a.data_ptr
    assert copied.tolist() == same.tolist()
    f64 = np.asarray(a, dtype=np.float64)
    assert f64.dtype == np.float64 and f64.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="copy"):
        np.asarray(a, dtype=np.float64, copy=False)
    with pytest.raises(ValueError, match="copy must be None, True or False"):
        a.__array__(copy="yes")


@requires("numpy")
@pytest.mark.parametrize("name", SUBBYTE)
def test_sub_byte_dtypes_name_the_way_out(name):
    a = gd.empty((4,), dtype=name)
    with pytest.raises(TypeError, match=r"__array__\(\): .*astype"):
        a.__array__()


@requires("numpy")
def test_without_ml_dtypes_the_error_names_astype():
    code = (
        "import sys; sys.modules['ml_dtypes'] = None\n"
        "import numpy as np, godlpack as gd\n"
        "a = gd.asarray([1.0], dtype='bfloat16')\n"
        "try:\n    np.asarray(a)\nexcept TypeError as e:\n    print('TypeError', e)\n"
        "else:\n    print('no error')\n"
    )
    out = _python(code)
    assert out.startswith("TypeError __array__(): numpy has no dtype bfloat16"), out
    assert "astype" in out and "pip install ml_dtypes" in out


@requires("numpy", "ml_dtypes")
@pytest.mark.parametrize("name", NUMPY_DTYPES + ML_DTYPES)
def test_np_dtype_of_every_godlpack_dtype(name):
    dt = getattr(gd, "bool_" if name == "bool" else name)
    assert np.dtype(dt) == _as_numpy_kind(name)
    assert np.dtype(_as_numpy_kind(name)) == dt  # numpy's == reads the dtype too
    assert np.zeros(2, dtype=dt).dtype == _as_numpy_kind(name)
    kind = _as_numpy_kind(name)
    assert (dt.kind, dt.char, dt.str) == (kind.kind, kind.char, kind.str)  # numpy.dtype's attributes read through
    assert np.result_type(gd.zeros(2, dtype=name)) == kind  # Array.__numpy_dtype__


def test_importing_godlpack_imports_neither_numpy_nor_the_engines():
    code = (
        "import sys, godlpack as gd\n"
        "a = gd.arange(4.0); b = a == [0, 1, 2, 3]; sys.getsizeof(a)\n"
        "print(sorted(m for m in ('numpy', 'ml_dtypes', 'dask', 'distributed', 'ray', 'pandas', 'joblib')"
        " if m in sys.modules))\n"
    )
    assert _python(code).strip() == "[]"


def _python(code: str) -> str:
    """stdout of code run in a fresh interpreter, which must succeed."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


# ---------------------------------------------------------------- gd.asarray of numpy's protocols


class _OnlyArray:
    """An object numpy reads only through __array__ (as xarray and pandas objects)."""

    def __init__(self, x):
        self._x = x

    def __array__(self, dtype=None, copy=None):
        x = self._x if dtype is None else self._x.astype(dtype)
        return x.copy() if copy else x


class _OnlyInterface:
    """An object numpy reads only through __array_interface__ (as PIL images)."""

    def __init__(self, x):
        self._x = x
        self.__array_interface__ = x.__array_interface__


@requires("numpy")
@pytest.mark.parametrize("wrap", [_OnlyArray, _OnlyInterface])
def test_asarray_of_numpys_protocols_is_zero_copy(wrap):
    x = np.arange(12.0).reshape(3, 4)[:, ::2]
    a = gd.asarray(wrap(x))
    assert a.shape == x.shape and a.tolist() == x.tolist()
    assert a.data_ptr == x.__array_interface__["data"][0]
    c = gd.asarray(wrap(x), copy=True)
    assert c.tolist() == x.tolist() and c.data_ptr != a.data_ptr
    f = gd.asarray(wrap(x), dtype="float32")
    assert f.dtype == gd.float32 and f.tolist() == x.tolist()


@requires("numpy")
def test_asarray_copy_false_follows_numpy():
    class NeedsCopy:
        def __array__(self, dtype=None, copy=None):
            if copy is False:
                raise ValueError("NeedsCopy: cannot avoid a copy")
            return np.arange(3.0)

    with pytest.raises(ValueError, match="cannot avoid a copy"):
        gd.asarray(NeedsCopy(), copy=False)
    assert gd.asarray(NeedsCopy()).tolist() == [0.0, 1.0, 2.0]


# ---------------------------------------------------------------- sys.getsizeof


@requires("numpy")
@pytest.mark.parametrize("make", ["zeros", "empty", "arange", "asarray", "copy", "astype", "pickle4", "pickle5"])
def test_sizeof_counts_owned_data_like_numpy(make):
    shape = (1000, 100)
    base = gd.zeros(shape)
    a = {
        "zeros": lambda: gd.zeros(shape),
        "empty": lambda: gd.empty(shape),
        "arange": lambda: gd.arange(100000.0, dtype="float32"),
        "asarray": lambda: gd.asarray([[1.0] * 100] * 1000),
        "copy": lambda: base.T.copy(),
        "astype": lambda: gd.zeros(shape, dtype="float32").astype("float64"),
        "pickle4": lambda: pickle.loads(pickle.dumps(base, protocol=4)),
        "pickle5": lambda: _oob(base),
    }[make]()
    x = np.zeros(shape)
    header = sys.getsizeof(a[:])
    assert header < 1000
    if make == "pickle5":  # a view of the caller's buffer, as numpy's would be
        assert sys.getsizeof(a) == header
        assert sys.getsizeof(_oob(x)) < 1000
    else:
        assert sys.getsizeof(a) == header + a.nbytes
        assert sys.getsizeof(x) - sys.getsizeof(x[:]) == x.nbytes
    for view in (a[1:], a.T, a.reshape(-1), a[::2]):
        assert sys.getsizeof(view) < 1000


def _oob(a):
    """a through pickle with its buffers out of band."""
    bufs = []
    data = pickle.dumps(a, protocol=5, buffer_callback=bufs.append)
    return pickle.loads(data, buffers=[b.raw() for b in bufs])


def test_sizeof_of_imports_counts_the_header_only():
    a = gd.asarray(bytearray(1 << 20))
    assert sys.getsizeof(a) < 1000
    assert sys.getsizeof(gd.zeros(1 << 20, dtype="uint8")) > 1 << 20


# ---------------------------------------------------------------- protocol-5 buffers


@requires("numpy")
@pytest.mark.parametrize("readonly_buffer", [True, False])
def test_out_of_band_buffers_are_shared_like_numpys(readonly_buffer):
    a = gd.arange(1000.0).reshape(10, 100)
    x = np.arange(1000.0).reshape(10, 100)
    got, want = [], []
    for src, out in ((a, got), (x, want)):
        bufs = []
        data = pickle.dumps(src, protocol=5, buffer_callback=bufs.append)
        raw = [memoryview(b.raw()) for b in bufs]
        if readonly_buffer:
            raw = [m.toreadonly() for m in raw]
        out.append(pickle.loads(data, buffers=raw))
    b, y = got[0], want[0]
    assert b.readonly == (not y.flags.writeable) == readonly_buffer
    assert b.data_ptr == a.data_ptr  # zero-copy, as numpy's
    assert y.__array_interface__["data"][0] == x.__array_interface__["data"][0]
    assert b.tolist() == a.tolist()


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_in_band_loads_copy_at_most_once(protocol):
    a = gd.arange(1 << 16, dtype="float64")
    data = pickle.dumps(a, protocol=protocol)
    b = pickle.loads(data)
    assert not b.readonly and b.tolist() == a.tolist()
    b[0] = 7.0  # writable and its own memory
    assert a[0] == 0.0


# ---------------------------------------------------------------- ravel, view (what zarr calls)


@requires("numpy")
@pytest.mark.parametrize("layout", ["contiguous", "reversed", "strided", "transposed"])
def test_ravel_and_view_are_numpys(layout):
    """ravel: numpy's, a view of a C-contiguous array and a contiguous copy of
    any other (never a strided view, which reshape(-1) may give)."""
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = gd.asarray(x)
    pick = {"contiguous": lambda v: v, "reversed": lambda v: v[::-1, ::-2], "strided": lambda v: v[1:, ::3],
            "transposed": lambda v: v.T}[layout]
    assert pick(a).ravel().tolist() == pick(x).ravel().tolist()
    # a view exactly where numpy's ravel is one (a C-contiguous array), else a contiguous copy
    assert gd.may_share_memory(pick(a).ravel(), a) == np.shares_memory(pick(x).ravel(), x), layout
    assert pick(a).ravel().strides == (1,)
    if layout == "contiguous":
        assert a.ravel().data_ptr == a.data_ptr
    assert pick(a).view("int32").tolist() == pick(x).view("int32").tolist()  # same size: any layout
    with pytest.raises(ValueError, match="order"):
        a.ravel(order="F")
    if layout == "contiguous":
        assert a.view("uint8").shape == x.view("uint8").shape
        assert a.view("uint8").tolist() == x.view("uint8").tolist()
        assert a.view("float64").tolist() == x.view("float64").tolist()
        assert a.view("uint8").data_ptr == a.data_ptr
    else:
        with pytest.raises(ValueError, match="C-contiguous"):
            pick(a).view("uint8")
