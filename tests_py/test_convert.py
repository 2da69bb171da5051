"""astype, asarray(x, dtype=), asarray(nested list): godlpack's conversions
against numpy's and ml_dtypes' casts, compared bit for bit through
np.from_dlpack (ml_dtypes dtypes as their bytes)."""

import warnings

import pytest

import godlpack as gd
from godlpack import _native
from _helpers import collect, need, need_probes, refcount, rss_bytes

np = need("numpy", module=True)
md = need("ml_dtypes", module=True)

ML = ["bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
      "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"]
STD = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
       "float64", "complex64", "complex128"]
ALL = STD + ML


def npdt(name):
    return np.dtype(getattr(md, name)) if name in ML else np.dtype(name)


def to_gd(x):
    """numpy -> godlpack (ml_dtypes arrays through their bytes), C order."""
    x = np.ascontiguousarray(x)
    if x.dtype.name in ML:
        u8 = gd.asarray(x.view(np.uint8).reshape(-1))
        return _native._reinterpret(u8, gd._as_dtype(x.dtype.name)._key, x.shape, False, False, False)
    return gd.asarray(x)


def to_np(a):
    if a.dtype.name in ML:
        u8, _ = _native._bytes_view(a, "test")
        return np.from_dlpack(u8).view(npdt(a.dtype.name)).reshape(a.shape)
    return np.from_dlpack(a)


def np_cast(x, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return x.astype(npdt(name))
        except TypeError:  # ml_dtypes has no direct cast for some pairs: through float32, as it rounds
            return x.astype(np.float32).astype(npdt(name))


def assert_same(got, exp, src):
    """Bitwise for narrow floats; NaN == NaN for wide floats; integers from
    floats only where numpy's result is defined (finite, in range)."""
    assert got.shape == exp.shape and got.dtype == exp.dtype
    got, exp = got.reshape(-1), exp.reshape(-1)
    if exp.dtype.kind in "iu" and src.dtype.kind not in "biu":
        info = np.iinfo(exp.dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f = src.reshape(-1).astype(np.complex128).real if src.dtype.kind == "c" else src.reshape(-1).astype(np.float64)
        keep = np.isfinite(f) & (f > info.min - 1) & (f < info.max + 1)
        bad = np.nonzero(keep & (got != exp))[0]
    elif exp.dtype.itemsize <= 2 and exp.dtype.kind not in "biu":
        u = f"u{exp.dtype.itemsize}"
        bad = np.nonzero(got.view(u) != exp.view(u))[0]
    else:
        bad = np.nonzero(~((got == exp) | ((got != got) & (exp != exp))))[0]
    assert bad.size == 0, [(src.reshape(-1)[i], got[i], exp[i]) for i in bad[:5]]


# ---------------------------------------------------------------- exhaustive narrow sources


@pytest.mark.parametrize("src", ["float16"] + ML)
@pytest.mark.parametrize("dst", ALL)
def test_every_narrow_code_point(src, dst):
    k = npdt(src).itemsize
    x = np.arange(1 << (8 * k), dtype=f"u{k}").view(npdt(src))
    assert_same(to_np(to_gd(x).astype(dst)), np_cast(x, dst), x)


def _wide_sources():
    rng = np.random.default_rng(7)
    f64 = [rng.standard_normal(2000) * 10.0 ** rng.integers(-45, 45, 2000), rng.standard_normal(1000) * 300,
           np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e300, -1e300, 5e-324, 2.0**-127, 2.0**-149,
                     65504, 65520, 65519.99, 448, 464, 465, 480, 57344, 61440, 240])]
    # halfway cases of every narrow kind, and their float32/float64 neighbours
    for n in ["float16"] + ML:
        t = npdt(n)
        b = np.arange(1 << (8 * t.itemsize), dtype=f"u{t.itemsize}").view(t).astype(np.float64)
        b = np.unique(b[np.isfinite(b)])
        m = (b[1:] + b[:-1]) / 2
        m32 = m.astype(np.float32)
        f64 += [m, np.nextafter(m, np.inf), np.nextafter(m, -np.inf),
                np.nextafter(m32, np.float32(np.inf)).astype(np.float64),
                np.nextafter(m32, np.float32(-np.inf)).astype(np.float64), b * (1 + 2.0**-30), b * (1 - 2.0**-30)]
    f64 = np.concatenate(f64)
    ints = np.array([0, 1, -1, 2**63 - 1, -2**63, 2**24 + 1, 2**24 + 2**16 + 1, 2**53 + 1, 65519, 65520])
    return {
        "float64": f64, "float32": f64.astype(np.float32),
        "complex128": f64 + 1j * f64[::-1], "complex64": (f64 + 1j * f64[::-1]).astype(np.complex64),
        "int64": np.concatenate([rng.integers(-2**63, 2**63 - 1, 3000, dtype=np.int64), ints]),
        "uint64": np.concatenate([rng.integers(0, 2**64 - 1, 3000, dtype=np.uint64),
                                  np.array([0, 1, 2**64 - 1, 2**63, 257 * 2**32 + 1], np.uint64)]),
        "int32": rng.integers(-2**31, 2**31 - 1, 3000, dtype=np.int32),
        "uint32": rng.integers(0, 2**32 - 1, 3000, dtype=np.uint32),
        "int16": np.arange(-2**15, 2**15, dtype=np.int16), "uint16": np.arange(2**16, dtype=np.uint16),
        "int8": np.arange(-128, 128, dtype=np.int8), "uint8": np.arange(256, dtype=np.uint8),
        "bool": np.array([True, False, True]),
    }


with warnings.catch_warnings(), np.errstate(all="ignore"):
    warnings.simplefilter("ignore")
    WIDE = _wide_sources()


@pytest.mark.parametrize("src", list(WIDE))
@pytest.mark.parametrize("dst", ALL)
def test_random_and_halfway_values(src, dst):
    x = WIDE[src]
    assert_same(to_np(gd.asarray(x).astype(dst)), np_cast(x, dst), x)


# ---------------------------------------------------------------- layouts


LAYOUTS = {
    "c": lambda x: x,
    "transposed": lambda x: x.T,
    "reversed": lambda x: x[::-1, ::-2],
    "sliced": lambda x: x[1:, ::3],
    "broadcast": lambda x: np.broadcast_to(x[:1], x.shape),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("pair", [("float64", "float32"), ("int64", "float64"), ("float32", "bfloat16"),
                                  ("bfloat16", "float32"), ("float16", "float8_e4m3fn"), ("complex128", "int16"),
                                  ("uint8", "bool"), ("bool", "complex64"), ("float8_e5m2", "float16")])
def test_layouts(pair, layout):
    src, dst = pair
    base = np_cast((np.arange(6 * 45) % 97 - 40.25).reshape(6, 45), src)
    g = to_gd(base)
    view = {"c": g, "transposed": g.T, "reversed": g[::-1, ::-2], "sliced": g[1:, ::3]}.get(layout)
    if view is None:  # stride 0: numpy's broadcast view (ml_dtypes' as its bits, viewed back in godlpack)
        bits = base[:1].view(f"u{base.itemsize}") if src in ML else base[:1]
        view = gd.asarray(np.broadcast_to(bits, base.shape)).view(src)
    got = view.astype(dst)
    assert got.strides == tuple(int(np.prod(got.shape[i + 1:])) for i in range(got.ndim))  # C-contiguous
    assert_same(to_np(got), np_cast(LAYOUTS[layout](base), dst), LAYOUTS[layout](base))


def test_big_conversion_runs_in_chunks():
    x = np.arange(5 * 10**6, dtype=np.float64) * 0.37  # 40 MB: chunked (Ctrl-C) and parallel
    a = gd.asarray(x)[::-1]
    assert np.array_equal(np.from_dlpack(a.astype("float32")), x[::-1].astype(np.float32))
    assert np.array_equal(to_np(gd.asarray(x).astype("bfloat16")).view(np.uint16),
                          x.astype(md.bfloat16).view(np.uint16))


# ---------------------------------------------------------------- astype / asarray(dtype=) API


def test_astype_copy_flag():
    a = gd.arange(6, dtype="float32")
    assert a.astype("float32", copy=False) is a
    b = a.astype("float32")
    assert b is not a and b.tolist() == a.tolist()
    b[0] = 9
    assert a.tolist()[0] == 0
    assert a.astype(gd.int8, copy=False).dtype == "int8"
    with pytest.raises(ValueError, match=r"^astype\(\): copy must be"):
        a.astype("int8", copy=None)


def test_asarray_dtype_converts_without_lists():
    x = np.arange(12.0).reshape(3, 4)[:, ::2]
    a = gd.asarray(x, dtype="int16")
    assert a.dtype == "int16" and np.array_equal(np.from_dlpack(a), x.astype(np.int16))
    g = gd.asarray(x)
    assert gd.asarray(g, dtype="float64") is g
    assert gd.asarray(g, dtype=np.float32).dtype == "float32"
    assert gd.asarray(bytearray(b"\x01\x02"), dtype="float32").tolist() == [1.0, 2.0]
    assert gd.asarray(gd.empty((0, 3)), dtype="bfloat16").shape == (0, 3)
    with pytest.raises(ValueError, match=r"^asarray\(\): copy=False"):
        gd.asarray(g, dtype="float32", copy=False)


DTYPE_FORMS = [("float32", "float32"), (np.float32, "float32"), (np.dtype("int16"), "int16"), (np.bool_, "bool"),
               (md.bfloat16, "bfloat16"), (np.dtype(md.float8_e4m3fn), "float8_e4m3fn"), (gd.uint8, "uint8"),
               (complex, "complex128"), ("f8", "float64"), (np.intc, "int32")]


def _torch_forms():
    torch = need("torch")
    return [(torch.float32, "float32"), (torch.bfloat16, "bfloat16"), (torch.bool, "bool"), (torch.int8, "int8"),
            (torch.cfloat, "complex64"), (torch.float8_e5m2, "float8_e5m2"), (torch.half, "float16")]


@pytest.mark.parametrize("entry", ["asarray", "astype", "empty", "zeros", "ones", "full", "arange"])
@pytest.mark.parametrize("torch_forms", [False, True])
def test_dtype_forms(entry, torch_forms):
    forms = _torch_forms() if torch_forms else DTYPE_FORMS
    for form, name in forms:
        if entry == "asarray":
            a = gd.asarray([1, 0], dtype=form)
        elif entry == "astype":
            a = gd.arange(2).astype(form)
        elif entry == "full":
            a = gd.full((2,), 1, dtype=form)
        elif entry == "arange":
            a = gd.arange(2, dtype=form)
        else:
            a = getattr(gd, entry)((2,), dtype=form)
        assert a.dtype == name, (entry, form)


@pytest.mark.parametrize("entry, call", [
    ("asarray", lambda d: gd.asarray([1], dtype=d)), ("astype", lambda d: gd.arange(2).astype(d)),
    ("empty", lambda d: gd.empty(2, dtype=d)), ("arange", lambda d: gd.arange(2, dtype=d)),
])
@pytest.mark.parametrize("bad", [np.longdouble, object, 3, "torch.float32x"])
def test_unknown_dtype_errors(entry, call, bad):
    with pytest.raises((TypeError, ValueError), match=rf"^{entry}\(\): .*(float32|dtype)") as e:
        call(bad)
    assert "pass" in str(e.value) or "use" in str(e.value)


@pytest.mark.parametrize("sub", ["float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn"])
def test_packed_subbyte_refused(sub):
    with pytest.raises(TypeError, match=r"^astype\(\): cannot convert float32 to .*sub-byte.*ml_dtypes"):
        gd.arange(4, dtype="float32").astype(sub)
    with pytest.raises(TypeError, match=r"^asarray\(\): .*sub-byte"):
        gd.asarray(gd.arange(4, dtype="float32"), dtype=sub)


# ---------------------------------------------------------------- asarray(nested list)


@pytest.mark.parametrize("obj", [
    [1, 2, 3], [[1, 2], [3, 4], [5, 6]], [1.5, 2], [True, False], [1, 2.5j], [True, 2], [[[1]], [[2]]],
    (1, 2.0), [(1, 2), (3, 4)], [], [[]], [[], []], [[1.0, -0.0, float("inf")]], [2**63 - 1, -2**63],
    [[True, 1.5], [0, 1j]],
])
def test_nested_lists_like_numpy(obj):
    a = gd.asarray(obj)
    e = np.asarray(obj)
    exp_dtype = {"b": "bool", "i": "int64", "f": "float64", "c": "complex128"}[e.dtype.kind]
    assert a.shape == e.shape and a.dtype == exp_dtype
    assert np.array_equal(np.from_dlpack(a), e)


@pytest.mark.parametrize("dtype", ["float32", "int8", "uint16", "bfloat16", "float8_e4m3fn", "complex64", "bool"])
def test_nested_with_dtype(dtype):
    obj = [[0, 1, 2], [3, 4, 5]]
    assert_same(to_np(gd.asarray(obj, dtype=dtype)), np.asarray(obj).astype(npdt(dtype)), np.asarray(obj))


@pytest.mark.parametrize("obj", [[[1, 2], [3]], [[1, 2], 3], [1, [2, 3]], [[1], [[2]]]])
def test_ragged_rejected(obj):
    with pytest.raises(ValueError, match=r"^asarray\(\): inhomogeneous"):
        gd.asarray(obj)


@pytest.mark.parametrize("obj", [[2**63], [1, -(2**63) - 1], [[0], [2**70]]])
def test_int_overflow(obj):
    with pytest.raises(OverflowError, match=r"^asarray\(\): Python integer .* out of bounds for int64"):
        gd.asarray(obj)


def test_strings_rejected():
    with pytest.raises(TypeError, match=r"^asarray\(\)"):
        gd.asarray(["a", "b"])


def test_numpy_scalars_and_other_numbers():
    assert gd.asarray([np.float32(1.5), 2]).tolist() == [1.5, 2.0]
    assert gd.asarray([np.int8(3), True]).dtype == "int8"  # numpy's: the scalars' dtypes promote

    class Idx:
        def __index__(self):
            return 7

    assert gd.asarray([Idx(), 1]).tolist() == [7, 1]


@pytest.mark.parametrize("make", [
    lambda: [gd.arange(3), gd.arange(3, dtype="int8")],
    lambda: [np.arange(3.0), np.arange(3.0)],
    lambda: [gd.asarray(1.0), gd.asarray(2.0)],
    lambda: [np.ones((2, 2), np.float32), gd.ones((2, 2), dtype="int16")],
])
def test_lists_of_arrays_stack(make):
    items = make()
    a = gd.asarray(items)
    e = np.stack([np.from_dlpack(x) if isinstance(x, gd.Array) else x for x in items])
    assert a.shape == e.shape and a.dtype == e.dtype.name
    assert np.array_equal(np.from_dlpack(a), e)
    assert gd.asarray(items, dtype="float32").dtype == "float32"


STACK_NUMPY = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
               "float64", "complex64", "complex128"]
STACK_ML = ["bfloat16", "float8_e4m3fn", "float8_e5m2"]


def _stacked(a, b):
    """The dtype asarray([a-array, b-array]) chooses, None when it refuses."""
    try:
        return gd.asarray([gd.zeros(2, dtype=a), gd.zeros(2, dtype=b)]).dtype.name
    except TypeError as e:
        assert "pass dtype=" in str(e)
        return None


@pytest.mark.parametrize("a", STACK_NUMPY)
def test_stacked_dtype_is_numpys_promotion(a):
    """asarray of a list of arrays promotes as np.stack: np.promote_types over
    every pair of numpy's own dtypes (signed with unsigned, bool, complex)."""
    for b in STACK_NUMPY:
        assert _stacked(a, b) == np.promote_types(a, b).name, (a, b)


@pytest.mark.parametrize("a", STACK_ML)
def test_stacked_ml_dtypes_promote_as_ml_dtypes_or_ask(a):
    """bfloat16 and float8 with any dtype: ml_dtypes' promotion, or a
    TypeError asking for dtype= where godlpack does not choose (never another
    dtype than ml_dtypes')."""
    for b in STACK_NUMPY + STACK_ML:
        for x, y in ((a, b), (b, a)):
            try:
                want = np.promote_types(np.dtype(getattr(md, x, x)), np.dtype(getattr(md, y, y))).name
            except TypeError:  # DTypePromotionError: ml_dtypes has no common dtype either
                want = None
            got = _stacked(x, y)
            assert got in (None, want), (x, y, got, want)
    assert _stacked(a, "bool") == a
    assert _stacked(a, "float64") == "float64"
    assert _stacked("bfloat16", "float16") is None  # ml_dtypes: float32; godlpack asks


def test_numpy_scalars_keep_their_dtype():
    """asarray and full of a numpy (or ml_dtypes) scalar keep its dtype, as
    numpy's: the skin reads the dtype, core keeps it (core/scalarkind.c)."""
    for v in (np.float32(2.5), np.int8(3), np.uint16(7), np.bool_(True), np.complex64(1j), md.bfloat16(1.5)):
        want = np.asarray(v).dtype.name
        assert gd.asarray(v).dtype == want, v
        assert gd.full(2, v).dtype == want, v


@pytest.mark.parametrize("items", [
    [np.int8(1), np.int8(2)], [np.int8(1), 2], [np.int8(1), 2.5], [np.float32(1), 2.5], [np.float32(1), 2],
    [np.uint8(1), np.int8(2)], [True, np.int8(1)], [np.float16(1), 1j], [[np.float32(1)], [np.float32(2)]],
    [md.bfloat16(1), 1.0], [np.uint64(1), np.int64(1)],
])
def test_a_list_of_numpy_scalars_promotes_as_numpy(items):
    """asarray of a list that holds numpy scalars: numpy's dtype, the
    promotion of the scalars' dtypes with the Python numbers' (int64,
    float64, ...), as core/promote.go decides it."""
    assert gd.asarray(items).dtype == np.asarray(items).dtype.name
    assert gd.asarray(items).tolist() == np.asarray(items).tolist()


def test_stack_shape_mismatch():
    with pytest.raises(ValueError, match=r"^asarray\(\): the arrays of a stacked list must have one shape"):
        gd.asarray([gd.arange(2), gd.arange(3)])


def test_failing_element_half_way_leaks_nothing():
    class Bad:
        def __float__(self):
            raise RuntimeError("boom")

    bad = Bad()
    row = [0.5] * 100_000
    obj = [row, row[:-1] + [bad]]
    before_bad, before_row = refcount(bad), refcount(row)
    for _ in range(3):  # warm up
        with pytest.raises(RuntimeError, match="boom"):
            gd.asarray(obj)
    collect()
    rss = rss_bytes()
    for _ in range(200):  # 200 x 1.6 MB would show
        with pytest.raises(RuntimeError, match="boom"):
            gd.asarray(obj)
    collect()
    assert rss_bytes() - rss < 64 << 20
    assert refcount(bad) == before_bad and refcount(row) == before_row
    with pytest.raises(OverflowError):
        gd.asarray([[1] * 1000, [1] * 999 + [2**64]])


# numpy's complex scalars (complex64, clongdouble) are not Python complex: every
# entry point that takes a number keeps their imaginary part, with no
# ComplexWarning (issue 27, item 1).
NP_COMPLEX = ["complex64", "complex128", "clongdouble"]


@pytest.mark.parametrize("kind", NP_COMPLEX)
@pytest.mark.parametrize("entry", ["setitem", "slice setitem", "full", "full inferred", "asarray list",
                                   "fill", "Go function"])
def test_numpy_complex_scalars_keep_the_imaginary_part(kind, entry):
    v = np.dtype(kind).type(1.5 - 2.25j)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if entry == "setitem":
            a = gd.zeros(2, dtype="complex128")
            a[1] = v
            got = a.tolist()[1]
        elif entry == "slice setitem":
            a = gd.zeros(3, dtype="complex64")
            a[:] = v
            got = a.tolist()[2]
        elif entry == "full":
            got = gd.full(2, v, dtype="complex128").tolist()[0]
        elif entry == "full inferred":
            a = gd.full(2, v)
            assert a.dtype.name.startswith("complex")
            got = a.tolist()[0]
        elif entry == "asarray list":
            a = gd.asarray([v, 1.0])
            assert a.dtype.name.startswith("complex")
            got = a.tolist()[0]
        elif entry == "fill":
            a = gd.zeros(2, dtype="complex128")
            a.fill(v)
            got = a.tolist()[0]
        else:
            need_probes()
            got = gd._native._gofunc_scalars(1, 2.5, True, v, "x")
            assert "c=(1.5-2.25i)" in got
            return
    assert got == 1.5 - 2.25j
