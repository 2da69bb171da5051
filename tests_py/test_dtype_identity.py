"""godlpack.DType compares and hashes as numpy's dtype (issue 35, item 1).

For every godlpack dtype and every spelling numpy knows (the names and codes
of numpy.sctypeDict, type codes with each byte-order prefix, Python types,
numpy and ml_dtypes scalar types, dtypes and scalars, None), ``gd_dtype ==
x`` and ``x == gd_dtype`` give numpy's own answer for its twin
(``np.dtype`` of the same name, ml_dtypes' for bfloat16, float8, float6 and
float4), and the hashes are numpy's: what makes ``a.dtype in (np.float32,
np.float64)``, ``{np.dtype("float64"): v}[a.dtype]`` and scikit-learn's
dtype checks behave as with an ndarray.
"""

import warnings

import pytest

from _helpers import need, optional, requires

import godlpack as gd
from godlpack import _types

NAMES = list(_types._tables.DTYPES)


def _twin(name):
    """numpy's dtype of that name: its own, else ml_dtypes'."""
    np = need("numpy")
    ml_dtypes = need("ml_dtypes")
    return np.dtype(getattr(ml_dtypes, name)) if hasattr(ml_dtypes, name) else np.dtype(name)


def _spellings():
    """Everything numpy's dtype compares with: each is compared as it is."""
    np = need("numpy")
    ml_dtypes = need("ml_dtypes")
    torch = optional("torch")  # its dtypes, where installed: numpy equals none of them

    strings = {k for k in np.sctypeDict if isinstance(k, str)}
    strings |= set(np.typecodes["All"]) | set(_types._tables.DTYPE_ALIASES) | {"E", "4", "f1", "V2"}
    strings |= {p + s for p in "<>=|" for s in list(strings)}
    strings |= {"", "f8 ", "Float64", "float", "int0", "<float64", "bool__", "godlpack"}
    types = [bool, int, float, complex, str, object, bytes, type(None)]
    types += [t for t in np.sctypeDict.values() if isinstance(t, type)]
    types += [np.generic, np.number, np.floating, np.integer, np.signedinteger, np.complexfloating]
    types += [getattr(ml_dtypes, n) for n in NAMES if hasattr(ml_dtypes, n)]
    dtypes = [np.dtype(t) for t in types if t not in (str, object, bytes, type(None)) and not t.__name__.endswith(
        ("generic", "number", "floating", "integer", "signedinteger", "complexfloating", "datetime64", "timedelta64")
    )]
    dtypes += [np.dtype(">f8"), np.dtype(">i2"), np.dtype(">i1"), np.dtype([("a", "f8")]), np.dtype(("f8", (2,))),
               np.dtype("M8[ns]"), np.dtype("f8", metadata={"unit": "m"})]
    scalars = [np.float32(1.5), np.float64(2), np.int8(3), np.bool_(True), np.complex64(1j), ml_dtypes.bfloat16(1)]
    others = [None, 3, 2.5, (), [], object()] + ([torch.float32, torch.bool] if torch is not None else [])
    return sorted(strings) + types + dtypes + scalars + others


@requires("numpy", "ml_dtypes")
@pytest.mark.parametrize("name", NAMES)
def test_dtype_compares_as_numpys_dtype_with_every_spelling(name):
    d, twin = _types._dtype_by_name(name), _twin(name)
    wrong = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's deprecated aliases ("a") warn
        for x in _spellings():
            want = bool(twin == x)
            if (d == x) is not want or (d != x) is want:
                wrong.append(f"gd.{name} == {x!r}: {d == x}, numpy: {want}")
            if (x == d) is not bool(x == twin):
                wrong.append(f"{x!r} == gd.{name}: {x == d}, numpy: {x == twin}")
    assert not wrong, "\n".join(wrong[:30])


@requires("numpy", "ml_dtypes")
@pytest.mark.parametrize("name", NAMES)
def test_dtype_hashes_as_numpys_dtype(name):
    d, twin = _types._dtype_by_name(name), _twin(name)
    assert hash(d) == hash(twin)
    assert {twin: "v"}.get(d) == "v" and {d: "v"}.get(twin) == "v"
    assert d in {twin} and twin in {d}


@requires("numpy", "ml_dtypes")
@pytest.mark.parametrize("name", NAMES)
def test_every_spelling_numpy_reads_as_a_godlpack_dtype_is_a_dtype_argument(name):
    """What numpy reads as this dtype, gd.zeros(dtype=) reads as it too;
    a big-endian spelling is a ValueError that says how to go on."""
    np = need("numpy")
    twin = _twin(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for x in _spellings():
            if isinstance(x, (int, float, tuple, list)) or x is None or type(x).__module__ == "torch":
                continue
            try:
                read = np.dtype(x)
            except (TypeError, ValueError):
                continue
            if read != twin:
                continue
            got = _types._as_dtype(x)
            assert got == twin and got.name == name, (x, got)
        if twin.itemsize > 1 and twin.kind in "iufc":  # numpy's own codes (ml_dtypes' have none)
            for big in (">" + twin.str[1:], twin.newbyteorder(">")):  # the string and numpy's dtype alike
                for call in (lambda d: gd.zeros(2, dtype=d), lambda d: gd.asarray([1], dtype=d),
                             lambda d: gd.zeros(1).astype(d)):
                    with pytest.raises(ValueError, match=r"big-endian.*byteswap"):
                        call(big)


@requires("numpy")
def test_the_checks_numpys_users_write_hold_for_godlpack_arrays():
    np = need("numpy")
    a = gd.asarray(np.arange(4.0))
    f32 = gd.asarray(np.arange(4, dtype=np.float32))
    assert a.dtype == np.float64 and a.dtype == float and a.dtype == "f8" and a.dtype == np.dtype("<f8")
    assert (a > 1).dtype == bool and (a > 1).dtype == np.bool_
    assert f32.dtype in (np.float32, np.float64) and f32.dtype not in (np.float64, np.int32)
    assert {np.dtype("float64"): "v"}.get(a.dtype) == "v"
    assert np.dtype(a.dtype) == a.dtype and np.zeros(2, dtype=f32.dtype).dtype == np.float32
    assert gd.zeros(2, dtype="double").dtype == gd.float64 and gd.zeros(2, dtype="<i4").dtype == gd.int32
    assert gd.float64 != ">f8" and gd.float64 != "float128" and gd.int8 == ">i1"


@requires("numpy", "sklearn")
def test_scikit_learn_keeps_a_float32_array_float32():
    """check_array(X, dtype=[np.float64, np.float32]) keeps a float32 input as
    it is, and estimators then answer in float32, as for an ndarray."""
    np = need("numpy")
    from sklearn.decomposition import PCA
    from sklearn.linear_model import Ridge
    from sklearn.utils.validation import check_array

    x = np.random.default_rng(0).standard_normal((40, 5)).astype(np.float32)
    a = gd.asarray(x)
    assert check_array(a, dtype=[np.float64, np.float32]).dtype == np.float32
    y = x @ np.arange(5, dtype=np.float32)
    for data in (x, a):
        assert Ridge().fit(data, y).coef_.dtype == np.float32
        assert PCA(2).fit_transform(data).dtype == np.float32
