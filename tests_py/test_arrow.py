"""The Arrow PyCapsule interface (__arrow_c_schema__, __arrow_c_array__):
pyarrow and polars take an Array directly, sharing its elements when they lie
one after the other (core/arrow.c decides; pyext/arrow.c wraps the structs).
Every dtype Arrow has × layouts × both consumers, against what they make of
numpy's array; refusals; and the lifetime of the shared memory, counted on the
numpy array the Array was imported from."""

from __future__ import annotations

import gc
import sys

import pytest

import godlpack as gd
from _helpers import need, requires

ARROW_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                "float32", "float64"]
# name -> (slice of a 12-element array, whether Arrow can share the elements)
LAYOUTS = {"whole": (slice(None), True), "tail": (slice(3, None), True), "one": (slice(4, 5), True),
           "empty": (slice(0, 0), True), "step": (slice(None, None, 3), False),
           "reversed": (slice(None, None, -1), False)}


def _values(np, dtype):
    return (np.arange(12) % 5).astype(dtype)


def _list(lib, out):
    return out.to_list() if lib == "polars" else out.to_pylist()


def _consume(lib, x):
    if lib == "pyarrow":
        return need("pyarrow").array(x)
    return need("polars").Series(x)


@requires("numpy", "pyarrow", "polars")
@pytest.mark.parametrize("lib", ["pyarrow", "polars"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("dtype", ARROW_DTYPES)
def test_consumers_read_an_array_as_numpys(lib, layout, dtype):
    np = need("numpy")
    cut, shared = LAYOUTS[layout]
    n = _values(np, dtype)
    a = gd.asarray(n)[cut]
    got, want = _consume(lib, a), _consume(lib, np.ascontiguousarray(n[cut]))
    assert (got.dtype == want.dtype) if lib == "polars" else (got.type == want.type)
    assert _list(lib, got) == _list(lib, want) == n[cut].tolist()
    if lib == "pyarrow" and dtype != "bool" and a.size:
        at = got.buffers()[1].address
        assert (at == a.data_ptr) is shared  # shared in place, or a copy of its own


@requires("numpy", "pyarrow")
def test_the_schema_is_the_dtypes():
    pa = need("pyarrow")
    for dtype in ARROW_DTYPES:
        assert pa.field(gd.zeros(1, dtype=dtype)).type == pa.from_numpy_dtype(need("numpy").dtype(dtype))


@requires("numpy", "pyarrow")
def test_a_requested_type_is_pyarrows_safe_cast():
    pa, np = need("pyarrow"), need("numpy")
    assert pa.array(gd.arange(3, dtype="float32"), type=pa.float64()).type == pa.float64()
    assert pa.array(gd.asarray([1.0, 2.0]), type=pa.int64()).to_pylist() == [1, 2]
    for x in (gd.asarray([1.5]), np.asarray([1.5])):  # as for numpy's array: no silent truncation
        with pytest.raises(pa.ArrowInvalid, match="truncated"):
            pa.array(x, type=pa.int64())
    # the capsule itself may decline the request: its schema stays the array's
    want = pa.float64().__arrow_c_schema__()
    schema, array = gd.arange(2, dtype="int8").__arrow_c_array__(want)
    assert pa.Array._import_from_c_capsule(schema, array).type == pa.int8()
    schema, array = gd.arange(2, dtype="int8").__arrow_c_array__(requested_schema=want)


REFUSALS = {
    "2-d": (lambda: gd.zeros((2, 2)), r"Arrow arrays have one dimension and this one has 2; pass a\.reshape\(-1\)"),
    "0-d": (lambda: gd.asarray(1.5), r"this one has 0"),
    "complex": (lambda: gd.zeros(2, dtype="complex64"), r"Arrow has no complex, bfloat16 or float8/6/4 type"),
    "bfloat16": (lambda: gd.zeros(2, dtype="bfloat16"), r"no complex, bfloat16"),
    "float8": (lambda: gd.zeros(2, dtype="float8_e4m3fn"), r"no complex, bfloat16 or float8"),
}


@requires("pyarrow", "polars")
@pytest.mark.parametrize("lib", ["pyarrow", "polars", "capsule"])
@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_what_arrow_cannot_carry_is_a_buffer_error_naming_the_way_out(lib, case):
    make, words = REFUSALS[case]
    a = make()
    with pytest.raises(BufferError, match=r"^__arrow_c_array__\(\): .*" + words):
        a.__arrow_c_array__() if lib == "capsule" else _consume(lib, a)
    if case in ("complex", "bfloat16", "float8"):
        with pytest.raises(BufferError, match=r"^__arrow_c_schema__\(\): Arrow has no complex"):
            a.__arrow_c_schema__()


def test_device_memory_is_refused_with_to_device():
    """A CUDA tensor godlpack holds opaque (a crafted producer: no GPU needed)."""
    from test_consumer_offhost import Producer

    a = gd.from_dlpack(Producer((2, 0)))
    with pytest.raises(BufferError, match=r'^__arrow_c_array__\(\): the array is not in memory the CPU can read; '
                                          r'copy it first with a\.to_device\("cpu"\)$'):
        a.__arrow_c_array__()
    assert a.__arrow_c_schema__() is not None  # the type alone needs no memory


def _count(n):
    gc.collect()
    return sys.getrefcount(n)


@requires("numpy", "pyarrow", "polars")
@pytest.mark.parametrize("lib", ["pyarrow", "polars"])
def test_the_shared_memory_lives_as_long_as_the_arrow_array(lib):
    """An Array over numpy's memory, exported to Arrow and deleted: the Arrow
    array keeps the memory (one reference to numpy's array, through the
    owner), and releasing it gives the reference back."""
    np = need("numpy")
    n = np.arange(1000, dtype="int64")
    base = _count(n)
    a = gd.from_dlpack(n)
    held = _count(n)
    assert held > base
    out = _consume(lib, a)
    del a
    assert _count(n) == held  # the Arrow array holds the owner's reference now
    n[7] = -1
    assert _list(lib, out)[7] == -1  # the same memory
    del out
    assert _count(n) == base


@requires("numpy")
@pytest.mark.parametrize("layout", ["whole", "step"])
def test_capsules_never_consumed_release_what_they_hold(layout):
    np = need("numpy")
    n = np.arange(12, dtype="float32")
    base = _count(n)
    a = gd.from_dlpack(n)[LAYOUTS[layout][0]]
    for _ in range(100):
        a.__arrow_c_array__()
        a.__arrow_c_schema__()
    del a
    assert _count(n) == base  # no export kept the owner: numpy's array is free again
