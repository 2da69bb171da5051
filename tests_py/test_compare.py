"""Element-wise comparisons on godlpack.Array (issue 13): ==, !=, <, <=, >,
>= return a new C-contiguous bool Array with numpy 2's answers (broadcasting,
promotion, NEP 50 weak Python scalars, NaN, lexicographic complex order);
arithmetic raises a TypeError naming the way out; a.data_ptr."""

from __future__ import annotations

import math
import operator

import pytest

import godlpack as gd
from _helpers import craft_capsule, missing, optional, requires

np = optional("numpy")
torch = optional("torch")
ml_dtypes = optional("ml_dtypes")

OPS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]


def _values(dtype):
    """Values of dtype that exercise its extremes (as a list for np.array)."""
    if dtype == "bool":
        return [False, True, True, False, True, False, False, True]
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        mid = [0, 1, 2, 3, 100, 127, 255, 256, 2**31, 2**53, 2**53 + 1, 2**63 - 1]
        if info.min < 0:
            mid += [-1, -2, -128, -(2**53) - 1, -(2**63)]
        vals = [info.min, info.max] + [v for v in mid if info.min <= v <= info.max]
        return (vals * 3)[:24]
    if dtype.startswith("complex"):
        nan = float("nan")
        return [0j, 1 + 2j, 1 + 3j, 1 - 2j, 2 + 0j, -1j, complex(nan, 0), complex(1, nan), complex(0.1, 0.1),
                complex(float("inf"), 0), 2**53 + 1j, 16777217 + 0j]
    return [0.0, -0.0, 1.0, -1.0, 0.1, 1 / 3, 2.0, 3.0, 2048.0, 2049.0, 65504.0, 16777217.0, 2.0**53,
            float("nan"), float("inf"), -float("inf"), 1e-8, 255.0, 127.5, 1e30]


def _np_dtype(dtype):
    if dtype == "bfloat16":
        if ml_dtypes is None:
            missing("bfloat16 needs ml_dtypes")
        return ml_dtypes.bfloat16
    return np.dtype(dtype)


def _np_array(dtype, shape=None):
    with np.errstate(all="ignore"):
        a = np.array(_values(dtype)).astype(_np_dtype(dtype)) if dtype != "bool" else np.array(_values(dtype))
    if shape is not None:
        a = np.resize(a, shape)
    return a


def _ref(x):
    """numpy cannot promote bfloat16 with most dtypes: every bfloat16 is a
    float32, so compare that (the same values)."""
    if isinstance(x, np.ndarray) and ml_dtypes is not None and x.dtype == ml_dtypes.bfloat16:
        return x.astype(np.float32)
    return x


_KEEP = []  # numpy buffers behind crafted bfloat16 capsules


def _gd(v):
    """v (a numpy array, any layout) as a godlpack.Array over the same memory;
    numpy cannot export bfloat16 through DLPack, so those go through a crafted
    capsule."""
    if ml_dtypes is None or v.dtype != ml_dtypes.bfloat16:
        return gd.from_dlpack(v)
    _KEEP.append(v)
    cap, rec = craft_capsule(data=v.ctypes.data, shape=v.shape, strides=[s // 2 for s in v.strides],
                             dtype=(4, 16, 1))
    _KEEP.append(rec)
    return gd.from_dlpack(cap)


def _check(got, want):
    assert isinstance(got, gd.Array)
    assert got.dtype == "bool"
    g = np.from_dlpack(got)
    assert g.shape == np.shape(want)
    assert g.flags.c_contiguous
    np.testing.assert_array_equal(g, want)


# ---------------------------------------------------------------- arrays vs arrays


@requires("numpy")
@pytest.mark.parametrize("ydt", DTYPES)
@pytest.mark.parametrize("xdt", DTYPES)
def test_every_dtype_pair_matches_numpy(xdt, ydt):
    x = _np_array(xdt, (4, 6))
    y = _np_array(ydt, (4, 6))[:, ::-1]
    gx, gy = _gd(x), _gd(y)
    for _name, op in OPS.items():
        with np.errstate(all="ignore"):
            want = op(_ref(x), _ref(y))
        _check(op(gx, gy), want)


_LAYOUTS = {
    "contiguous": lambda a: a,
    "transposed": lambda a: a.T,
    "stride-2": lambda a: a[:, ::2],
    "negative-step": lambda a: a[::-1, ::-3],
    "0-d": lambda a: a[1, 2, ...],
    "broadcast": lambda a: np.broadcast_to(a[:1], (3,) + a.shape[1:]),
    "empty": lambda a: a[:0],
}


@requires("numpy")
@pytest.mark.parametrize("layout", list(_LAYOUTS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_layouts_match_numpy(dtype, layout):
    base = _np_array(dtype, (5, 6))
    v = _LAYOUTS[layout](base)
    g = _gd(v)
    other = _np_array(dtype, (6,))[::-1][: v.shape[-1]] if v.ndim else _np_array(dtype, (6,))
    go = _gd(np.ascontiguousarray(other))
    for _name, op in OPS.items():
        with np.errstate(all="ignore"):
            _check(op(g, go), op(_ref(v), _ref(other)))
            _check(op(g, g), op(_ref(v), _ref(v)))


@requires("numpy")
@pytest.mark.parametrize("xs, ys, want", [
    ((2, 3), (3,), (2, 3)),
    ((2, 1), (1, 3), (2, 3)),
    ((), (2, 3), (2, 3)),
    ((2, 3), (), (2, 3)),
    ((4, 1, 3), (5, 1), (4, 5, 3)),
    ((0, 3), (1, 3), (0, 3)),
    ((2, 0), (), (2, 0)),
    ((1,), (0,), (0,)),
    ((1, 1, 1), (7,), (1, 1, 7)),
    ((3, 1, 2, 1), (4, 1, 1), (3, 4, 2, 1)),
])
def test_broadcast_shapes(xs, ys, want):
    x = np.arange(int(np.prod(xs)), dtype=np.int32).reshape(xs)
    y = (np.arange(int(np.prod(ys)), dtype=np.float64) * 0.5).reshape(ys)
    r = gd.from_dlpack(x) <= gd.from_dlpack(y)
    assert r.shape == want == np.broadcast_shapes(xs, ys)
    _check(r, x <= y)


@pytest.mark.parametrize("xs, ys", [((2, 3), (4,)), ((2, 3), (3, 2)), ((0,), (2,)), ((2, 1, 5), (3, 4))])
def test_shapes_that_do_not_broadcast(xs, ys):
    x, y = gd.zeros(xs), gd.zeros(ys)
    shp = lambda s: "(" + ",".join(map(str, s)) + ("," if len(s) == 1 else "") + ")"
    with pytest.raises(ValueError, match=r"^==: operands could not be broadcast together with shapes "
                       + re_escape(f"{shp(xs)} {shp(ys)}") + r"; make each dimension equal or 1"):
        x == y  # noqa: B015
    with pytest.raises(ValueError, match=r"^<: operands could not be broadcast"):
        x < y  # noqa: B015


def re_escape(s):
    import re

    return re.escape(s)


def test_result_is_new_c_contiguous_memory():
    a = gd.arange(12, dtype="int16").reshape(3, 4).T
    r = a >= 5
    assert r.dtype == "bool" and r.shape == (4, 3) and r.strides == (3, 1)
    assert not r.readonly
    r2 = a >= 5
    assert r.data_ptr != r2.data_ptr != a.data_ptr
    assert (a == a.copy()).tolist() == [[True] * 3] * 4
    assert (gd.asarray(5.0) == 5).shape == ()


def test_comparing_with_itself():
    a = gd.asarray([1.0, float("nan"), 3.0])
    assert (a == a).tolist() == [True, False, True]
    assert (a != a).tolist() == [False, True, False]
    assert (a == a.copy()).tolist() == [True, False, True]


def test_arrays_stay_unhashable():
    assert gd.Array.__hash__ is None
    with pytest.raises(TypeError):
        hash(gd.zeros(2))


@pytest.mark.slow
@requires("numpy")
def test_long_comparisons_in_chunks_are_exact():
    # GODLPACK_CHUNK_MIB=1: the result is computed in ranges of one chunk,
    # one Go call each, with Ctrl-C checked between them (each of these
    # operands spans several chunks).
    import os
    import subprocess
    import sys

    code = """
import numpy as np, godlpack as gd
rng = np.random.default_rng(7)
x = rng.integers(-50, 50, size=(3, 1 << 20)).astype(np.int16)
y = rng.integers(-50, 50, size=(1 << 20,)).astype(np.float32)
cases = [(x, y), (x[:, ::-1], y[::2].repeat(2)), (x.T, x.T[:1]), (x[::-1, ::3], np.float64(0.5)),
         (x.astype(np.complex128)[:, :5000], y[:5000].astype(np.complex64)), (x, 3), (x[:, :8192, None], y[:256])]
for a, b in cases:
    ga = gd.from_dlpack(np.ascontiguousarray(a) if a.ndim == 3 else a)
    gb = gd.from_dlpack(b) if isinstance(b, np.ndarray) else b
    for op in ("__lt__", "__eq__", "__ge__"):
        got = np.from_dlpack(getattr(ga, op)(gb))
        want = getattr(np.ascontiguousarray(a) if a.ndim == 3 else a, op)(b)
        assert got.shape == want.shape and (got == want).all(), (a.shape, op)
print("chunks ok")
"""
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(gd.__file__)))
    env = dict(os.environ, GODLPACK_CHUNK_MIB="1",
               PYTHONPATH=os.pathsep.join([pkg, os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert "chunks ok" in p.stdout, p.stdout + p.stderr


# ---------------------------------------------------------------- scalars

_SCALARS = [0, 1, -1, 2, 127, 128, 255, 256, 300, -129, 2049, 16777217, 2**31, 2**53 + 1, 2**63 - 1, 2**63,
            2**64 - 1, 2**64, 2**70, -(2**63), -(2**63) - 1, -(2**70), 10**400, -(10**400),
            True, False, 0.0, -0.0, 0.1, 0.5, 1.5, 2048.0, 2049.0, 65504.0, 65519.0, 65520.0, 1e30, 1e300,
            float("nan"), float("inf"), -float("inf"), 1e-8, 127.5, 2.0**53, 2.0**63, 2.0**64,
            1j, 1 + 0j, 0.1 + 0j, complex(0.1, 1e-30), complex(float("nan"), 0), complex(1, float("nan")),
            2**53 + 0j, complex(16777217, 0)]


def _weak_ref_bf16(op, v32, s):
    """numpy cannot promote bfloat16 (ml_dtypes) like a builtin dtype: the
    rule godlpack applies, on the float32 values of the array."""
    if isinstance(s, bool):
        return op(v32, np.float32(s))
    if isinstance(s, complex):
        return op(v32.astype(np.complex64), np.complex64(s))
    f = float(s) if not isinstance(s, int) or abs(s) < 2**1024 else (math.inf if s > 0 else -math.inf)
    return op(v32, np.array(np.float32(f)).astype(ml_dtypes.bfloat16).astype(np.float32))


def _weak_ref(op, v, s):
    """numpy 2's answer for array v (numpy) op Python scalar s."""
    kind = v.dtype.kind if not (ml_dtypes is not None and v.dtype == ml_dtypes.bfloat16) else "bf"
    if isinstance(s, int) and not isinstance(s, bool) and kind in "biu":
        # exact at any size (numpy 2 raises OverflowError for bool arrays beyond int64)
        return np.array([op(int(e), s) for e in v.ravel().tolist()], dtype=bool).reshape(v.shape)
    if kind == "bf":
        # a weak scalar is rounded to bfloat16 (through float32, as stored by fill())
        with np.errstate(all="ignore"):
            return _weak_ref_bf16(op, v.astype(np.float32), s)
    if isinstance(s, int) and not isinstance(s, bool) and abs(s) >= 2**1024:
        s = math.inf if s > 0 else -math.inf  # numpy raises OverflowError; godlpack compares with ±inf
    with np.errstate(all="ignore"):
        return op(v, s)


@requires("numpy")
@pytest.mark.parametrize("dtype", DTYPES)
def test_python_scalars_are_weak_like_numpy_2(dtype):
    v = _np_array(dtype)
    g = _gd(v)
    for s in _SCALARS:
        for name, op in OPS.items():
            got = np.from_dlpack(op(g, s))
            want = _weak_ref(op, v, s)
            assert (got == want).all(), (dtype, name, s, v[got != want], got[got != want])
            # reflected: s op g is g op' s
            np.testing.assert_array_equal(np.from_dlpack(op(s, g)), _weak_ref(op, v, s) if name in "==!=" else
                                          _weak_ref({"<": operator.gt, "<=": operator.ge, ">": operator.lt,
                                                     ">=": operator.le}[name], v, s), err_msg=f"{dtype} {s} {name}")


def test_the_examples_of_the_issue():
    assert (gd.asarray([1, 2, 255], dtype="uint8") == 300).tolist() == [False] * 3
    assert (gd.asarray([1, 2, 255], dtype="uint8") < 300).tolist() == [True] * 3
    assert (gd.asarray([-(2**63), 2**63 - 1], dtype="int64") < 2**70).tolist() == [True, True]
    assert (gd.asarray([2**64 - 1], dtype="uint64") > -1).tolist() == [True]
    assert (gd.asarray([True, False]) == 1).tolist() == [True, False]
    nan = gd.asarray([float("nan")])
    assert [(op(nan, nan)).tolist() for op in OPS.values()] == [[False], [True], [False], [False], [False], [False]]


@requires("numpy")
def test_int64_against_uint64_is_exact_at_the_extremes():
    i = gd.asarray([-1, -(2**63), 2**53, 2**63 - 1, 0], dtype="int64")
    u = gd.asarray([2**64 - 1, 2**63, 2**53 + 1, 2**63 - 1, 0], dtype="uint64")
    assert (i == u).tolist() == [False, False, False, True, True]
    assert (i < u).tolist() == [True, True, True, False, False]
    assert (u > i).tolist() == [True, True, True, False, False]
    assert (u >= i).tolist() == [True, True, True, True, True]


def test_64_bit_integers_against_floats_round_like_numpy():
    # numpy promotes int64 with any float to float64: 2**53 + 1 becomes 2**53
    i = gd.asarray([2**53 + 1], dtype="int64")
    assert (i == gd.asarray([2.0**53])).tolist() == [True]
    assert (i == 2.0**53).tolist() == [True]
    assert (i == 2**53).tolist() == [False]  # a Python int compares exactly
    assert (gd.asarray([16777217], dtype="int32") == gd.asarray([16777216.0], dtype="float32")).tolist() == [False]


@requires("numpy")
def test_numpy_scalars_are_strong():
    f16 = gd.asarray([0.1], dtype="float16")
    assert (f16 == 0.1).tolist() == [True]  # weak: 0.1 rounded to float16
    assert (f16 == np.float64(0.1)).tolist() == [False]  # strong: float16(0.1) != 0.1
    assert (f16 == np.float32(0.1)).tolist() == (np.array([0.1], np.float16) == np.float32(0.1)).tolist()
    f32 = gd.asarray([0.1], dtype="float32")
    assert (f32 == 0.1).tolist() == [True]
    assert (f32 == np.float64(0.1)).tolist() == [False]
    assert (f32 == np.float32(0.1)).tolist() == [True]
    assert (gd.asarray([3], dtype="uint8") == np.int64(3)).tolist() == [True]
    assert (gd.asarray([2**64 - 1], dtype="uint64") == np.uint64(2**64 - 1)).tolist() == [True]
    assert (gd.asarray([1.0]) == np.bool_(True)).tolist() == [True]
    assert (gd.asarray([1j], dtype="complex64") == np.complex64(1j)).tolist() == [True]


@pytest.mark.parametrize("other", ["x", None, object(), b"ab", gd.Array, int, {}, {1: 2}, {1}, frozenset()],
                         ids=lambda o: type(o).__name__ + ("" if o is None or type(o) is object else f"-{o!r:.20}"))
@pytest.mark.parametrize("shape", [(2,), (2, 0), ()])
def test_objects_that_are_no_number_compare_element_wise_as_in_numpy(other, shape):
    """numpy 2 compares each element with the object and finds none equal:
    == is all False and != all True, in the array's shape (a == None
    included); the object has no order."""
    x = np.ones(shape, dtype="int16")
    a = gd.asarray(x)
    for op in (operator.eq, operator.ne):
        got, want = op(a, other), op(x, other)
        assert isinstance(got, gd.Array) and got.dtype == want.dtype == np.bool_, (op, got)
        assert got.shape == want.shape and got.tolist() == want.tolist()
        assert op(other, a).tolist() == want.tolist()  # the reflected operation too
    with pytest.raises(TypeError, match=r"not supported between instances of 'godlpack\.Array'"):
        a < other  # noqa: B015


@pytest.mark.parametrize("make", [lambda: bytearray(b"\x00\x01\x05\x03"), lambda: memoryview(bytes([0, 1, 5, 3])),
                                  lambda: memoryview(np.arange(4.0))], ids=["bytearray", "memoryview-bytes",
                                                                           "memoryview-float64"])
def test_buffers_compare_element_wise_as_in_numpy(make):
    """A bytearray or memoryview is an array to numpy (issue 36, item 13)."""
    x = np.arange(4, dtype="int16")
    a = gd.asarray(x)
    for op in (operator.eq, operator.ne, operator.lt, operator.ge):
        got, want = op(a, make()), op(x, make())
        assert isinstance(got, gd.Array) and got.tolist() == want.tolist(), op


@pytest.mark.parametrize("ragged", [[[1, 2], [3]], [1, [2], 3], ([1], (2, 3))], ids=["rows", "mixed", "tuples"])
def test_a_ragged_sequence_is_a_value_error_as_in_numpy(ragged):
    """numpy cannot make an array of it, and says so for any comparison
    (issue 36, item 13); it is not "unequal"."""
    x = np.arange(2)
    a = gd.asarray(x)
    for op in (operator.eq, operator.ne, operator.lt):
        with pytest.raises(ValueError):
            op(x, ragged)
        with pytest.raises(ValueError, match=r"inhomogeneous nested sequence"):
            op(a, ragged)


class _Equals:
    """An object with a comparison of its own: it decides, not the array."""

    def __eq__(self, other):
        return "mine"

    __hash__ = None


def test_an_object_with_its_own_comparison_decides():
    a = gd.asarray([1, 2])
    assert (a == _Equals()) == "mine"
    with pytest.raises(TypeError, match=r"not supported between instances of 'godlpack\.Array'"):
        a < _Equals()  # noqa: B015


# Sequences numpy makes an array of strings or of Python objects of, not of
# numbers (issue 36, item 13): compared element-wise as numpy compares them.
_NOT_NUMBERS = {
    "strings": ["a", "b", "c"], "strings and numbers": [1, "a", 2.0], "bytes": (b"a", 1, 2),
    "None": [None, 1, 2], "objects": [object(), 1.0, 2], "nested None": [[None, 1, 2], [0, None, 5]],
    "beyond int64": [2**63, 1, 2], "beyond uint64": [2**70, 1, -(2**70)], "int64 and beyond": [2**63 + 1, 1.5, 2],
    "column with None": [[None], [1], [2]],
}


@requires("numpy")
@pytest.mark.parametrize("other", list(_NOT_NUMBERS))
@pytest.mark.parametrize("dtype", ["int64", "uint64", "float64", "float32", "int8", "bool", "complex128"])
def test_sequences_of_strings_and_objects_compare_as_numpys_arrays_of_them(other, dtype):
    seq = _NOT_NUMBERS[other]
    x = np.array([2**62, 0, 1]).astype(dtype) if dtype != "bool" else np.array([True, False, True])
    a = gd.asarray(x)
    for op in (operator.eq, operator.ne, operator.lt, operator.ge):
        try:
            want = op(x, seq)
        except TypeError:
            with pytest.raises(TypeError):
                op(a, seq)
            continue
        for got in (op(a, seq), {operator.lt: operator.gt, operator.ge: operator.le}.get(op, op)(seq, a)):
            assert isinstance(got, gd.Array) and got.dtype == np.bool_, (op, got)
            assert got.shape == want.shape and got.tolist() == want.tolist(), (op, got.tolist(), want.tolist())


@requires("numpy")
@pytest.mark.parametrize("make", [list, tuple, lambda v: range(len(v))], ids=["list", "tuple", "range"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "uint64", "bool"])
def test_sequences_compare_element_wise_like_numpy(make, dtype):
    x = np.arange(4).astype(dtype)
    seq = make([0, 1, 2, 3]) if make is not list else [0, 1, 5, 3]
    a = gd.asarray(x)
    for op in (operator.eq, operator.ne, operator.lt, operator.ge):
        got, want = op(a, seq), op(x, seq)
        assert isinstance(got, gd.Array), (op, got)
        assert got.tolist() == want.tolist(), (op, dtype)


@requires("numpy")
def test_sequences_of_another_shape_broadcast_or_raise_like_numpy():
    a, x = gd.arange(6).reshape(2, 3), np.arange(6).reshape(2, 3)
    assert (a == [[0, 1, 2]]).tolist() == (x == [[0, 1, 2]]).tolist()
    assert (a < [[1], [4]]).tolist() == (x < [[1], [4]]).tolist()
    with pytest.raises(ValueError):
        np.arange(4.0) == [0, 1, 2]  # noqa: B015
    with pytest.raises(ValueError):
        gd.arange(4.0) == [0, 1, 2]  # noqa: B015


@requires("numpy")
@pytest.mark.parametrize("shape", [(4,), (2, 2), (2, 1, 2), ()])
@pytest.mark.parametrize("value", [2, 2.0, 9, -1, True, float("nan")])
def test_contains_is_numpys(shape, value):
    x = np.arange(int(np.prod(shape))).astype("float64").reshape(shape)
    assert (value in gd.asarray(x)) == (value in x)


# ---------------------------------------------------------------- other array libraries


@requires("numpy")
def test_numpy_operands_are_imported_zero_copy():
    a = gd.asarray([[1.0, 2.0], [3.0, 4.0]])
    n = np.array([1.0, 5.0])
    r = a < n
    assert isinstance(r, gd.Array)
    _check(r, np.from_dlpack(a) < n)
    assert isinstance(n < a, np.ndarray)  # numpy on the left answers itself
    _check(a == np.array(3.0), np.from_dlpack(a) == 3.0)
    _check(a >= np.array([[2], [3]], dtype=np.int8), np.from_dlpack(a) >= np.array([[2], [3]]))


@requires("torch")
def test_torch_operands():
    a = gd.asarray([1, 2, 3], dtype="int32")
    t = torch.tensor([3, 2, 1], dtype=torch.int64)
    assert (a < t).tolist() == [True, False, False]
    assert (a == torch.tensor(2.0)).tolist() == [False, True, False]
    assert (t > a).tolist() == [True, False, False]  # torch declines, the reflected comparison answers


@requires("torch")
def test_an_operand_that_cannot_be_imported_names_the_operator():
    a = gd.asarray([1.0])
    t = torch.ones(1, requires_grad=True)
    with pytest.raises(Exception, match=r"^==: the other operand could not be imported through DLPack"):
        a == t  # noqa: B015


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu"])
def test_float8_is_refused_with_the_way_out(dtype):
    a = gd.zeros(3, dtype=dtype)
    with pytest.raises(TypeError, match=r"^==: comparing " + dtype + r" arrays is not supported; compare after "
                       r"a.astype\('float32'\)"):
        a == 0  # noqa: B015
    with pytest.raises(TypeError, match=r"^<: comparing "):
        gd.zeros(3) < a  # noqa: B015


def test_sub_byte_dtypes_are_refused():
    a = gd.empty(4, dtype="float4_e2m1fn")
    with pytest.raises(TypeError, match=r"^!=: comparing float4_e2m1fn arrays is not supported"):
        a != 0  # noqa: B015


def test_device_arrays_are_refused():
    cap, _rec = craft_capsule(shape=(2,), strides=(1,), dtype=(2, 32, 1), data=0x10000, device=(4, 0))
    a = gd.from_dlpack(cap)
    with pytest.raises(BufferError, match=r"^==: the array.s opencl:0 memory is not accessible from the CPU; .*to_device"):
        a == 0  # noqa: B015
    with pytest.raises(BufferError, match=r"^>: the array.s opencl:0 memory"):
        gd.zeros(2) > a  # noqa: B015


# ---------------------------------------------------------------- arithmetic

_BINARY = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
           "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "@": operator.matmul,
           "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift,
           ">>": operator.rshift, "divmod()": divmod}


@pytest.mark.parametrize("entry", list(_BINARY))
def test_arithmetic_names_the_way_out(entry):
    op = _BINARY[entry]
    a = gd.ones((2, 2), dtype="int32")
    for x, y, labels in [(a, 1, "'godlpack.Array' and 'int'"), (2.5, a, "'float' and 'godlpack.Array'"),
                         (a, a, "'godlpack.Array' and 'godlpack.Array'")]:
        with pytest.raises(TypeError) as e:
            op(x, y)
        msg = str(e.value)
        assert msg.startswith(f"{entry}: unsupported operand types {labels}; godlpack.Array does no arithmetic"), msg
        assert "np.from_dlpack(a) or torch.from_dlpack(a)" in msg


@pytest.mark.parametrize("entry, op", [("unary -", operator.neg), ("unary +", operator.pos), ("abs()", abs),
                                       ("unary ~", operator.invert)])
def test_unary_arithmetic_names_the_way_out(entry, op):
    with pytest.raises(TypeError, match=r"^" + re_escape(entry) + r": godlpack.Array does no arithmetic"):
        op(gd.ones(2))


def test_in_place_arithmetic_is_refused_too():
    a = gd.ones(2)
    with pytest.raises(TypeError, match=r"godlpack\.Array does no arithmetic"):
        a += 1
    with pytest.raises(TypeError, match=r"godlpack\.Array does no arithmetic"):
        pow(a, 2, 3)


@requires("numpy")
@pytest.mark.parametrize("entry", ["+", "-", "*", "/", "**", "@"])
def test_numpy_still_computes_with_arrays_on_either_side(entry):
    op = _BINARY[entry]
    a = gd.asarray([[1.0, 2.0], [3.0, 4.0]])
    n = np.array([[2.0, 1.0], [0.5, 3.0]])
    want = op(np.from_dlpack(a), n)
    for got in (op(a, n), ):
        assert isinstance(got, np.ndarray)
        np.testing.assert_array_equal(got, want)
    got = op(n, a)
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, op(n, np.from_dlpack(a)))


@requires("torch")
def test_torch_tensors_get_the_way_out():
    with pytest.raises(TypeError, match=r"^\+: unsupported operand types 'torch.Tensor' and 'godlpack.Array'"):
        torch.ones(2) + gd.ones(2)


# ---------------------------------------------------------------- data_ptr


_VIEWS = {"whole": lambda a: a, "rows": lambda a: a[1:], "offset": lambda a: a[2:, 3:],
          "strided": lambda a: a[1::2, 2::3], "reversed": lambda a: a[::-1, ::-1], "transposed": lambda a: a.T[1:],
          "0-d": lambda a: a[3, 4, ...]}


@requires("numpy")
@pytest.mark.parametrize("view", list(_VIEWS))
@pytest.mark.parametrize("dtype", ["uint8", "int32", "float64", "complex128"])
def test_data_ptr_is_numpys(dtype, view):
    a = gd.zeros((6, 8), dtype=dtype)
    v = _VIEWS[view](a)
    assert isinstance(v.data_ptr, int)
    assert v.data_ptr == np.from_dlpack(v).ctypes.data
    n = np.from_dlpack(a)
    assert v.data_ptr == _VIEWS[view](n).ctypes.data
    assert a.data_ptr == n.ctypes.data


@requires("torch")
@pytest.mark.parametrize("dtype", ["uint8", "int32", "float64", "bfloat16", "bool"])
def test_data_ptr_is_torchs(dtype):
    a = gd.zeros((6, 8), dtype=dtype)
    for v in (a, a[1:], a[2:, 3:], a[1::2, 2::3], a.T[2:]):
        assert v.data_ptr == torch.from_dlpack(v).data_ptr()


@requires("numpy")
def test_data_ptr_of_an_import_is_the_producers():
    n = np.arange(100, dtype=np.float32).reshape(10, 10)
    for v in (n, n[3:, 2:], n[::2, 1::3], n[::-1]):
        assert gd.from_dlpack(v).data_ptr == v.ctypes.data


def test_data_ptr_is_read_only():
    a = gd.zeros(3)
    with pytest.raises(AttributeError):
        a.data_ptr = 0
