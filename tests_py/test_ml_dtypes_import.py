"""gd.asarray of numpy arrays and scalars of ml_dtypes' dtypes, and of numpy
scalars (issue 35, items 4 and 7): numpy's DLPack export refuses bfloat16,
float8, float6 and float4, so godlpack reads their bits; the Array has the
ml_dtypes dtype and, where the layout allows, the same memory."""

import pytest

from _helpers import need, requires

import godlpack as gd

WIDE = ["bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
        "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"]
NARROW = ["float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"]


def _values(name):
    np, ml_dtypes = need("numpy"), need("ml_dtypes")
    v = np.array([[1, 2, 4], [0.5, 0.25, 8]], np.float32)
    return v.astype(getattr(ml_dtypes, name))


@requires("numpy", "ml_dtypes")
@pytest.mark.parametrize("name", WIDE)
@pytest.mark.parametrize("layout", ["c", "f", "strided", "readonly"])
def test_an_ml_dtypes_array_is_imported_zero_copy_with_its_dtype(name, layout):
    np = need("numpy")
    x = _values(name)
    x = {"c": x, "f": np.asfortranarray(x), "strided": x[:, ::-2], "readonly": x.copy()}[layout]
    if layout == "readonly":
        x.flags.writeable = False
    a = gd.asarray(x)
    assert a.dtype == x.dtype and a.dtype.name == name and a.shape == x.shape
    assert a.tolist() == x.astype(np.float32).tolist()
    assert np.shares_memory(np.asarray(a), x) and a.readonly == (layout == "readonly")
    c = gd.asarray(x, copy=True)
    assert c.tolist() == a.tolist() and not np.shares_memory(np.asarray(c), x)
    assert gd.asarray(x, dtype="float32").tolist() == a.tolist()


@requires("numpy", "ml_dtypes")
@pytest.mark.parametrize("name", NARROW)
def test_float6_and_float4_arrays_keep_their_dtype(name):
    """ml_dtypes stores a byte per element: godlpack's padded layout, the same
    memory when contiguous."""
    np = need("numpy")
    x = _values(name)
    for v in (x, np.asfortranarray(x), x[:, ::2]):
        a = gd.asarray(v)
        assert a.dtype == v.dtype and a.dtype.name == name and a.shape == v.shape
    assert gd.asarray(x).data_ptr == x.ctypes.data


@requires("numpy", "ml_dtypes")
def test_numpy_scalars_become_writable_arrays_as_in_numpy():
    np, ml_dtypes = need("numpy"), need("ml_dtypes")
    for s in (np.float32(2.5), np.int8(3), np.bool_(True), np.complex64(1j), ml_dtypes.bfloat16(1.5)):
        a, n = gd.asarray(s), np.asarray(s)
        assert not a.readonly and n.flags.writeable and a.shape == () and a.dtype == n.dtype
        assert a.tolist() == n.astype(np.complex128 if n.dtype.kind == "c" else np.float64).tolist()
        a[()] = 1
        with pytest.raises(ValueError):
            np.asarray(s, copy=False)
        with pytest.raises(ValueError, match=r"copy=False but a numpy scalar must be copied"):
            gd.asarray(s, copy=False)
