"""godlpack <-> JAX 0.10 (CPU), issue 4.

JAX speaks only legacy capsules: as a consumer it calls __dlpack__(stream=None)
(never max_version), as a producer it answers "dltensor" even to
max_version=(1, 3). It copies CPU buffers that are not 64-byte aligned; ours
are 256-byte aligned, so they arrive without a copy (data pointers compared
through unsafe_buffer_pointer()). A read-only godlpack array cannot travel: a
legacy capsule cannot say read-only, so our __dlpack__ refuses (BufferError).
"""

from __future__ import annotations

import pytest

import godlpack as gd
from _dpenv import Spy
from _helpers import collect, gd_ptr, optional, requires

np = optional("numpy")
jax = optional("jax")
jnp = optional("jax.numpy")

pytestmark = requires("numpy", "jax")

# dtypes JAX holds without jax_enable_x64, and the 64-bit ones it holds with it
DTYPES_32 = ["bool", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float16", "bfloat16",
             "float32", "complex64", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
             "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"]
DTYPES_64 = ["int64", "uint64", "float64", "complex128"]


def jptr(j) -> int:
    return j.unsafe_buffer_pointer()


def test_gd_arrays_are_aligned_for_jax():
    for shape in [(1,), (7,), (3, 5), (1000,)]:
        assert gd_ptr(gd.zeros(shape, dtype="float32")) % 64 == 0


def test_to_jax_legacy_capsule_zero_copy():
    a = gd.arange(8, dtype="float32")
    spy = Spy(a)
    j = jnp.from_dlpack(spy)
    assert spy.requests == [{"stream": None}], "JAX never asks for max_version"
    assert spy.info.name == "dltensor"
    assert jptr(j) == gd_ptr(a), "no copy"
    a[2] = 42.0  # the memory is shared (JAX arrays are immutable, the buffer is ours)
    assert float(j[2]) == 42.0
    del a
    collect()
    assert j.tolist()[:3] == [0.0, 1.0, 42.0], "JAX keeps our memory alive"


@pytest.mark.parametrize("dtype", DTYPES_32)
def test_to_jax_dtypes_zero_copy(dtype):
    src = jnp.arange(1, 9).astype(dtype)
    ref = np.asarray(src)
    a = gd.from_dlpack(src).copy()  # our own (aligned, writable) memory
    j = jnp.from_dlpack(a)
    assert str(j.dtype) == dtype
    assert jptr(j) == gd_ptr(a)
    assert np.asarray(j).tobytes() == ref.tobytes()


@pytest.mark.parametrize("dtype", DTYPES_64)
def test_to_jax_dtypes_64bit_zero_copy_with_x64(dtype):
    with jax.enable_x64(True):
        ref = np.arange(1, 9).astype(dtype)
        # our own memory: gd.asarray(ref, copy=True) would hold numpy's IS_COPIED copy,
        # which is only 16-byte aligned, and JAX would copy that again
        a = gd.asarray(ref).copy()
        j = jnp.from_dlpack(a)
        assert str(j.dtype) == dtype and jptr(j) == gd_ptr(a)
        assert np.asarray(j).tolist() == ref.tolist()


def test_to_jax_float64_without_x64_is_converted():
    a = gd.arange(4, dtype="float64")
    with jax.enable_x64(False):
        j = jnp.from_dlpack(a)
        assert j.dtype == jnp.float32 and jptr(j) != gd_ptr(a)  # JAX's own conversion copy


def test_to_jax_float4_refused_by_jax():
    # packed sub-byte exchange works JAX -> godlpack, but JAX cannot take it back (CPU layout)
    j = jnp.zeros(8, dtype=jnp.float4_e2m1fn)
    a = gd.from_dlpack(j)
    assert a.dtype == "float4_e2m1fn"
    with pytest.raises(Exception, match="PjRt CPU buffers only support default layout"):
        jnp.from_dlpack(a)


@pytest.mark.parametrize("order", ["C", "F"])
def test_to_jax_2d_zero_copy(order):
    a = gd.arange(12, dtype="float32").reshape(3, 4)
    if order == "F":
        a = a.T  # a transposed buffer is fine for JAX
    j = jnp.from_dlpack(a)
    assert jptr(j) == gd_ptr(a)
    assert j.tolist() == a.tolist()


def test_to_jax_unaligned_view_is_copied_by_jax():
    a = gd.arange(8, dtype="float32")
    v = a[1:]  # 4 bytes past an aligned start
    assert gd_ptr(v) % 64 == 4
    j = jnp.from_dlpack(v)
    assert jptr(j) != gd_ptr(v) and j.tolist() == v.tolist()
    with pytest.raises(ValueError, match=r"not aligned to 64 bytes.*copy=False"):
        jnp.from_dlpack(v, copy=False)
    assert jptr(jnp.from_dlpack(a, copy=False)) == gd_ptr(a)


def test_to_jax_strided_view_refused_by_jax():
    a = gd.arange(8, dtype="float32")
    with pytest.raises(Exception, match="Only DLPack tensors with trivial \\(compact\\) striding"):
        jnp.from_dlpack(a[::2])


def test_to_jax_readonly_refused_clearly():
    src = np.arange(4, dtype=np.float32)
    src.flags.writeable = False
    a = gd.from_dlpack(src)
    assert a.readonly
    spy = Spy(a)
    with pytest.raises(BufferError) as ei:
        jnp.from_dlpack(spy)
    assert spy.requests == [{"stream": None}]
    msg = str(ei.value)
    assert msg.startswith("__dlpack__(): a read-only array cannot be exported as a legacy capsule")
    assert "max_version=(1, 0)" in msg  # the way out (for consumers that can ask for it)
    # a writable copy travels
    assert jnp.from_dlpack(a.copy()).tolist() == [0.0, 1.0, 2.0, 3.0]


# ================================================================ jax -> godlpack


def test_from_jax_legacy_zero_copy():
    j = jnp.arange(8, dtype=jnp.float32)
    spy = Spy(j)
    a = gd.from_dlpack(spy)
    assert spy.requests == [{"max_version": (1, 3)}]
    assert spy.info.name == "dltensor", "JAX answers a legacy capsule even to max_version=(1, 3)"
    assert gd_ptr(a) == jptr(j)
    assert a.readonly is False, "legacy imports are writable (README, C5)"
    assert a.tolist() == list(range(8))
    del j
    collect()
    assert a.sum() == 28.0


@pytest.mark.parametrize("dtype", DTYPES_32)
def test_from_jax_dtypes_round_trip(dtype):
    j = jnp.arange(1, 9).astype(dtype)
    a = gd.from_dlpack(j)
    assert a.dtype == dtype and gd_ptr(a) == jptr(j)
    back = jnp.from_dlpack(a)
    assert back.dtype == j.dtype and jptr(back) == jptr(j), "round trip without a copy"
    assert np.asarray(back).tobytes() == np.asarray(j).tobytes()


@pytest.mark.parametrize("dtype", DTYPES_64)
def test_from_jax_dtypes_64bit(dtype):
    with jax.enable_x64(True):
        j = jnp.arange(1, 9).astype(dtype)
        a = gd.from_dlpack(j)
        assert a.dtype == dtype and gd_ptr(a) == jptr(j)
        assert a.tolist() == np.asarray(j).tolist()


def test_from_jax_2d():
    j = jnp.arange(12.0).reshape(3, 4)
    a = gd.from_dlpack(j)
    assert a.shape == (3, 4) and a.strides == (4, 1) and gd_ptr(a) == jptr(j)


@pytest.mark.parametrize("device", [None, "cpu", (1, 0)])
def test_from_jax_copy_false_shares(device):
    j = jnp.arange(4, dtype=jnp.int32)
    spy = Spy(j)
    a = gd.from_dlpack(spy, device=device, copy=False)
    assert gd_ptr(a) == jptr(j)
    assert spy.requests[0]["copy"] is False


def test_from_jax_copy_true_new_memory():
    j = jnp.arange(4, dtype=jnp.int32)
    a = gd.from_dlpack(j, copy=True)
    assert gd_ptr(a) != jptr(j) and a.tolist() == [0, 1, 2, 3]
    a[0] = 9
    assert int(j[0]) == 0


def test_from_jax_oneapi_device_refused():
    j = jnp.arange(4, dtype=jnp.int32)
    with pytest.raises(BufferError):
        gd.from_dlpack(j, device=(14, 0))
