"""Python's protocols on godlpack.Array (issue 13, the parts done so far):
truth and number conversions of one-element arrays with numpy's answers,
unhashable arrays, weak references."""

from __future__ import annotations

import gc
import operator
import weakref

import pytest

import godlpack as gd
from _helpers import optional

np = optional("numpy")

ONE_ELEMENT = [((), 0), ((1,), 2), ((1, 1, 1), 3)]


@pytest.mark.parametrize("shape, v", ONE_ELEMENT)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8", "bool", "float16", "bfloat16",
                                   "float8_e4m3fn", "complex128"])
def test_one_element_converts_like_numpy(shape, v, dtype):
    a = gd.full(shape, v, dtype=dtype)
    x = a.tolist()
    while isinstance(x, list):
        (x,) = x
    assert bool(a) == bool(x)
    if shape != ():  # numpy 2: int(), float(), complex() take 0-d arrays only
        for conv in (int, float, complex):
            with pytest.raises(TypeError, match=r"only 0-dimensional arrays can be converted to Python scalars"):
                conv(a)
            if np is not None:
                with pytest.raises(TypeError, match=r"only 0-dimensional arrays"):
                    conv(np.ones(shape))
        return
    if dtype != "complex128":
        assert float(a) == float(x)
        assert int(a) == int(x)
    else:
        with pytest.raises(TypeError):
            float(a)
    assert complex(a) == complex(x)


def test_the_snippet_of_issue_13():
    assert bool(gd.asarray([0])) is False
    assert int(gd.asarray(7)) == 7 and float(gd.asarray(3.5)) == 3.5
    with pytest.raises(TypeError, match=r"^int\(\): only 0-dimensional arrays"):
        int(gd.asarray(list(b"42"), dtype="uint8"))   # used to read the raw bytes as text: 42
    with pytest.raises(ValueError, match=r"^bool\(\): the truth value of an array with more than one element"):
        bool(gd.zeros(3))


@pytest.mark.parametrize("conv", [float, int, complex])
@pytest.mark.parametrize("shape", [(0,), (1,), (3,), (2, 2)])
def test_other_sizes_raise(conv, shape):
    with pytest.raises(TypeError, match=r"only 0-dimensional arrays can be converted to Python scalars"):
        conv(gd.zeros(shape))


def test_empty_truth_is_ambiguous():
    with pytest.raises(ValueError, match=r"^bool\(\): the truth value of an empty array"):
        bool(gd.zeros((0, 3)))


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint16", "uint64"])
def test_index_of_integer_arrays(dtype):
    a = gd.full((), 3, dtype=dtype)
    assert operator.index(a) == 3
    assert [10, 11, 12, 13][a] == 13


@pytest.mark.parametrize("dtype", ["float64", "bool", "float16"])
def test_index_of_other_dtypes_is_refused(dtype):
    with pytest.raises(TypeError, match=r"^__index__\(\): only integer scalar arrays"):
        operator.index(gd.zeros((), dtype=dtype))


def test_device_arrays_refuse_conversion():
    from _helpers import craft_capsule

    cap, _rec = craft_capsule(shape=(1,), strides=(1,), data=0x10000, device=(4, 0))
    a = gd.from_dlpack(cap)
    for conv, x in ((bool, a), (int, a[0]), (float, a[0])):  # int() and float() take 0-d arrays
        with pytest.raises(BufferError, match="the CPU cannot read"):
            conv(x)
    del a, cap
    gc.collect()


def test_arrays_are_unhashable():
    with pytest.raises(TypeError, match="unhashable"):
        hash(gd.zeros(2))
    assert gd.Array.__hash__ is None


def test_weakref():
    a = gd.arange(3.0)
    r = weakref.ref(a)
    d = weakref.WeakValueDictionary(k=a)
    assert r() is a and d["k"] is a
    del a
    gc.collect()
    assert r() is None and "k" not in d


# ---------------------------------------------------------------- issue 13's opening snippet


@pytest.mark.requires("numpy")
def test_issue_snippet_gives_numpys_answers():
    """Each line of the snippet that opened issue 13, now answered as numpy answers it."""
    import copy
    import pickle

    assert bool(gd.asarray([0])) is False and bool(np.asarray([0])) is False
    with pytest.raises(ValueError, match="ambiguous"):
        bool(gd.zeros(3))
    with pytest.raises(TypeError):  # numpy: only 0-d / length-1 arrays convert
        int(gd.asarray(list(b"42"), dtype="uint8"))
    assert int(gd.asarray(list(b"4"), dtype="uint8")[0]) == 52  # the element, never its bytes read as text
    assert int(gd.asarray(7)) == 7 and float(gd.asarray(3.5)) == 3.5
    a = gd.arange(3.0)
    eq = a == a.copy()
    assert isinstance(eq, gd.Array) and eq.dtype == gd.bool_ and eq.tolist() == [True, True, True]
    assert pickle.loads(pickle.dumps(a)).tolist() == [0.0, 1.0, 2.0]
    assert copy.deepcopy(a).tolist() == [0.0, 1.0, 2.0]
    assert weakref.ref(a)() is a
    assert np.sum(a) == 3.0 and np.sum(gd.arange(6).reshape((2, 3)), axis=0).tolist() == [3, 5, 7]
    assert (np.mean(a), np.max(a), np.min(a), np.prod(a)) == (1.0, 2.0, 0.0, 0.0)
