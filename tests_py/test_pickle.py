"""pickle, copy.copy and copy.deepcopy of godlpack.Array (issue 13).

Process-based scenarios (multiprocessing pools, a torch DataLoader) run in a
subprocess under a timeout, so a hang fails the test instead of the run.
"""

from __future__ import annotations

import copy
import ctypes
import os
import pickle
import sys
import textwrap

import pytest

import godlpack as gd
from _subproc import run_group
from godlpack import _native, _tables
from _helpers import (
    FLAG_IS_SUBBYTE_TYPE_PADDED,
    FLAG_READ_ONLY,
    CapsuleInfo,
    collect,
    craft_capsule,
    requires,
)

PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(gd.__file__)))
HERE = os.path.dirname(os.path.abspath(__file__))

# dtypes with whole bytes per element (the packed sub-byte ones are tested apart)
BYTE_DTYPES = [name for name, (code, bits) in _tables.DTYPES.items() if bits % 8 == 0]
SUBBYTE = [(name, code, bits) for name, (code, bits) in _tables.DTYPES.items() if bits % 8 != 0]
PROTOCOLS = [2, 3, 4, 5]


def _raw(a) -> bytes:
    """The bytes of a contiguous array in memory order (every dtype, formats or not)."""
    got = _native._bytes_view(a, "test")
    assert got is not None, "not contiguous"
    return bytes(memoryview(got[0]))


def _ptr(a) -> int:
    return CapsuleInfo(a.__dlpack__(max_version=(1, 3))).first_element


def _pattern(name, n):
    """n elements of dtype name with distinct bytes (valid bool values for bool)."""
    a = gd.zeros((n,), dtype=name)
    u8 = _native._bytes_view(a, "test")[0]
    mv = memoryview(u8)
    if name == "bool":
        mv[:] = bytes(i % 2 for i in range(len(mv)))
    else:
        mv[:] = bytes((7 * i + 3) % 251 for i in range(len(mv)))
    return a


def _readonly(values, shape, strides=None):
    """A read-only float64 array over ctypes memory (a crafted READ_ONLY import)."""
    buf = (ctypes.c_double * len(values))(*values)
    cap, _rec = craft_capsule(buf, shape=shape, strides=strides, flags=FLAG_READ_ONLY)
    a = gd.from_dlpack(cap)
    assert a.readonly
    return a, buf


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("name", BYTE_DTYPES)
def test_every_dtype_round_trips(name, protocol):
    a = _pattern(name, 6).reshape(2, 3)
    b = pickle.loads(pickle.dumps(a, protocol=protocol))
    assert type(b) is gd.Array
    assert b.dtype == a.dtype == name
    assert b.shape == (2, 3) and b.strides == (3, 1)
    assert b.readonly is False
    assert _raw(b) == _raw(a)
    assert _ptr(b) != _ptr(a)
    b[0, 0] = a[0, 1]  # writable, its own memory
    assert _raw(a) == _raw(_pattern(name, 6))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_layouts(protocol):
    a = gd.arange(24.0).reshape(2, 3, 4)
    f = a.T  # Fortran-contiguous
    assert f.strides == (1, 4, 12)
    cases = [
        (a, (12, 4, 1)),
        (f, (1, 4, 12)),
        (a[:, ::2, 1:], (6, 3, 1)),  # strided: its C-contiguous copy
        (a[::-1], (12, 4, 1)),
        (a.transpose(1, 0, 2), (8, 4, 1)),  # neither C nor F: C copy
        (gd.zeros((0, 3)), (3, 1)),
        (gd.asarray(2.5), ()),
    ]
    for x, strides in cases:
        y = pickle.loads(pickle.dumps(x, protocol=protocol))
        assert y.shape == x.shape and y.dtype == x.dtype
        assert y.strides == strides, (x.strides, y.strides)
        assert y.tolist() == x.tolist()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_readonly_kept(protocol):
    vals = [float(i) for i in range(6)]
    for shape, strides in [((2, 3), (3, 1)), ((3, 2), (1, 3)), ((3,), (2,))]:
        a, _buf = _readonly(vals, shape, strides)
        b = pickle.loads(pickle.dumps(a, protocol=protocol))
        assert b.readonly and b.shape == a.shape and b.tolist() == a.tolist()
        with pytest.raises((ValueError, BufferError, TypeError)):
            b[0] = 1.0
    w = gd.arange(6.0)
    assert pickle.loads(pickle.dumps(w, protocol=protocol)).readonly is False


def test_protocol5_out_of_band_is_zero_copy():
    for a in [gd.arange(12.0).reshape(3, 4), gd.arange(12.0).reshape(3, 4).T, _pattern("bfloat16", 8)]:
        bufs = []
        s = pickle.dumps(a, protocol=5, buffer_callback=bufs.append)
        assert len(bufs) == 1 and isinstance(bufs[0], pickle.PickleBuffer)
        assert len(s) < 200, "the data went in band"
        b = pickle.loads(s, buffers=bufs)
        assert _ptr(b) == _ptr(a), "the unpickled array's memory is the original's"
        assert b.strides == a.strides and b.dtype == a.dtype and not b.readonly
        if a.dtype == "float64":
            b[(0, 0)] = 99.0
            assert a[(0, 0)] == 99.0, "a write through the copy is seen by the original"
        del bufs, s
        del a  # b keeps the memory alive on its own
        collect()
        assert _raw(b)


def test_protocol5_out_of_band_readonly_stays_shared():
    a, _buf = _readonly([1.0, 2.0, 3.0], (3,))
    bufs = []
    b = pickle.loads(pickle.dumps(a, protocol=5, buffer_callback=bufs.append), buffers=bufs)
    assert b.readonly and _ptr(b) == _ptr(a)


def test_unpickled_views_release_the_memory_once():
    buf = (ctypes.c_double * 4)(1.0, 2.0, 3.0, 4.0)
    cap, rec = craft_capsule(buf, shape=(4,))
    a = gd.from_dlpack(cap)
    del cap
    bufs = []
    s = pickle.dumps(a, protocol=5, buffer_callback=bufs.append)
    b = pickle.loads(s, buffers=bufs)
    c = copy.deepcopy(a)
    d = pickle.loads(pickle.dumps(a, protocol=4))
    del a
    collect()
    assert rec.deleted == 0, "the out-of-band buffer and the unpickled array hold the memory"
    assert b.tolist() == [1.0, 2.0, 3.0, 4.0]
    del b, bufs
    collect()
    assert rec.deleted == 1
    assert c.tolist() == d.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_protocol5_in_band_is_a_copy():
    a = gd.arange(4.0)
    b = pickle.loads(pickle.dumps(a, protocol=5))
    assert _ptr(b) != _ptr(a)
    b[0] = 7.0
    assert a[0] == 0.0


def test_loads_checks_the_byte_count():
    a = gd.arange(4.0)
    bufs = []
    s = pickle.dumps(a, protocol=5, buffer_callback=bufs.append)
    with pytest.raises(ValueError, match="holds 3 bytes, but the pickled shape needs 32"):
        pickle.loads(s, buffers=[b"abc"])


# ---------------------------------------------------------------- copy / deepcopy


def test_copy_and_deepcopy():
    a = gd.arange(6.0).reshape(2, 3)
    for fn in (copy.copy, copy.deepcopy):
        b = fn(a)
        assert type(b) is gd.Array and b.tolist() == a.tolist() and b.dtype == a.dtype
        assert _ptr(b) != _ptr(a)
        b[(0, 0)] = 42.0
        assert a[(0, 0)] == 0.0
    c = _pattern("float8_e4m3fn", 4)
    assert _raw(copy.deepcopy(c)) == _raw(c)
    # deepcopy of a container keeps sharing within it
    x, y = copy.deepcopy([a, a])
    assert x is y and _ptr(x) != _ptr(a)
    ro, _buf = _readonly([1.0, 2.0], (2,))
    assert copy.deepcopy(ro).readonly is False  # like numpy: a copy is writable


# ---------------------------------------------------------------- refusals


def test_device_arrays_refused():
    cap, _rec = craft_capsule(shape=(8,), strides=(1,), dtype=(2, 32, 1), data=0x10000, device=(4, 0))
    a = gd.from_dlpack(cap)
    for x in (a, a[::2]):
        for protocol in (2, 5):
            with pytest.raises(BufferError, match=r'pickle\.dumps\(\).*to_device\("cpu"\)'):
                pickle.dumps(x, protocol=protocol)


@pytest.mark.parametrize("name,code,bits", SUBBYTE)
def test_packed_subbyte_refused(name, code, bits):
    buf = (ctypes.c_uint8 * 8)()
    cap, _rec = craft_capsule(buf, shape=(8,), dtype=(code, bits, 1))
    a = gd.from_dlpack(cap)
    assert a.itemsize == 0
    for protocol in (2, 5):
        with pytest.raises(TypeError, match=rf"pickle\.dumps\(\): packed sub-byte arrays \(dtype {name}.*__dlpack__"):
            pickle.dumps(a, protocol=protocol)


@pytest.mark.parametrize("name,code,bits", SUBBYTE)
def test_padded_subbyte_round_trips(name, code, bits):
    buf = (ctypes.c_uint8 * 4)(1, 2, 3, 4)
    cap, _rec = craft_capsule(buf, shape=(4,), dtype=(code, bits, 1), flags=FLAG_IS_SUBBYTE_TYPE_PADDED)
    a = gd.from_dlpack(cap)
    for protocol in PROTOCOLS:
        b = pickle.loads(pickle.dumps(a, protocol=protocol))
        assert b.dtype == name and b.shape == (4,) and b.itemsize == 1
        out = CapsuleInfo(b.__dlpack__(max_version=(1, 0)))
        assert out.flags & FLAG_IS_SUBBYTE_TYPE_PADDED
        assert bytes((ctypes.c_uint8 * 4).from_address(out.first_element)) == b"\x01\x02\x03\x04"


# ---------------------------------------------------------------- processes


_run = run_group


def _run_script(tmp_path, code, timeout=180):
    # a file, not -c: spawn and forkserver workers import the main module
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([PKG_DIR, HERE, env.get("PYTHONPATH", "")])
    env["PYTHONFAULTHANDLER"] = "1"
    p = _run([sys.executable, str(script)], timeout, env)
    if p is None:
        pytest.fail(f"subprocess hung (> {timeout} s)")
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.strip().endswith("OK"), p.stdout + p.stderr[-3000:]
    return p


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_pool_round_trip(tmp_path, method):
    _run_script(tmp_path, f"""
        import multiprocessing as mp
        import godlpack as gd

        def make(i):
            # made in the worker, pickled back to the parent
            return gd.arange(float(i), float(i + 6)).reshape(2, 3).T

        def total(a):
            return (a.dtype.name, a.shape, a.strides, a.tolist())

        if __name__ == "__main__":
            with mp.get_context({method!r}).Pool(2) as pool:
                got = pool.map(make, range(4))
                for i, a in enumerate(got):
                    assert type(a) is gd.Array and a.shape == (3, 2) and a.strides == (1, 3), a.strides
                    assert a.tolist() == make(i).tolist()
                sent = [gd.asarray([1, 2, 3], dtype="bfloat16"), gd.arange(6).reshape(2, 3)[:, ::2]]
                back = pool.map(total, sent)
                assert back[0] == ("bfloat16", (3,), (1,), [1.0, 2.0, 3.0]), back[0]
                assert back[1] == ("int64", (2, 2), (2, 1), [[0, 2], [3, 5]]), back[1]
            print("OK")
    """)


def test_fork_pool_worker_returns_parent_array(tmp_path):
    # A forked child never enters Go, so it cannot allocate; pickling reads
    # bytes in C, so it can return arrays the parent made (unpickled there).
    _run_script(tmp_path, """
        import multiprocessing as mp
        import godlpack as gd
        from godlpack import _native

        A = gd.arange(12.0).reshape(3, 4)
        AT = A.T  # views are made in the parent too: a child cannot run Go
        B = gd.asarray([0.5, 1.5, 2.5], dtype="float8_e4m3fn")

        def give(i):
            assert _native._in_fork_child()
            return (A, AT, B)[i]

        if __name__ == "__main__":
            with mp.get_context("fork").Pool(2) as pool:
                a, at, b = pool.map(give, range(3))
            assert a.tolist() == A.tolist() and a.strides == (4, 1)
            assert at.tolist() == AT.tolist() and at.strides == (1, 4)
            assert b.dtype == "float8_e4m3fn" and b.tolist() == B.tolist()
            print("OK")
    """)


@requires("torch")
def test_torch_dataloader_forkserver(tmp_path):
    _run_script(tmp_path, """
        import godlpack as gd
        import torch
        from torch.utils.data import DataLoader, Dataset

        class DS(Dataset):
            def __len__(self):
                return 6

            def __getitem__(self, i):
                return gd.arange(float(i), float(i + 4), dtype="float32")

        if __name__ == "__main__":
            dl = DataLoader(DS(), batch_size=None, num_workers=2, multiprocessing_context="forkserver")
            got = list(dl)
            assert len(got) == 6
            for i, a in enumerate(got):
                assert type(a) is gd.Array, type(a)
                assert a.dtype == "float32" and a.tolist() == [float(i + k) for k in range(4)]
                assert torch.from_dlpack(a).tolist() == a.tolist()
            print("OK")
    """, timeout=300)


# ---------------------------------------------------------------- out-of-band buffers stay exported


def _array_of(raw):
    import array

    a = array.array("d")
    a.frombytes(raw)
    return a


def _mmap_of(raw):
    import mmap

    m = mmap.mmap(-1, len(raw))
    m[:] = raw
    return m


def _pickle_buffer(raw):
    owner = bytearray(raw)
    return pickle.PickleBuffer(owner), owner


_HOLDERS = {
    # (the buffer handed to pickle.loads, the object owning the memory), and
    # what would free or move that memory
    "memoryview": (lambda raw: (memoryview(bytearray(raw)),) * 2, lambda b: b.release()),
    "bytearray": (lambda raw: (bytearray(raw),) * 2, lambda b: b.extend(b"x")),
    "PickleBuffer of a bytearray": (_pickle_buffer, lambda b: b.extend(b"x")),
    "array.array": (lambda raw: (_array_of(raw),) * 2, lambda b: b.append(1.0)),
    "mmap": (lambda raw: (_mmap_of(raw),) * 2, lambda b: b.close()),
}


@pytest.mark.parametrize("kind", sorted(_HOLDERS))
def test_an_out_of_band_buffer_stays_exported_while_the_array_lives(kind):
    """As numpy's: the Array holds an export on the object owning the memory,
    so that memory cannot be released, resized or unmapped under it."""
    make, free = _HOLDERS[kind]
    bufs = []
    data = pickle.dumps(gd.arange(3.0), protocol=5, buffer_callback=bufs.append)
    handed, owner = make(bytes(bufs[0].raw()))
    a = pickle.loads(data, buffers=[handed])
    assert a.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(BufferError):
        free(owner)
    assert a.tolist() == [0.0, 1.0, 2.0]
    del a, handed
    import gc

    gc.collect()
    free(owner)  # the export ends with the array
