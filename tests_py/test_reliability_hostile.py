"""Reliability (issue 6, item 1): hostile DLPack capsules.

h5's test_consumer.py / test_errors.py cover one hand-picked example per rule.
This file adds:

* a seeded random generator of hostile field combinations (version, ndim, dtype,
  flags, device, shape, strides, byte_offset, data pointer, NULL shape, NULL
  deleter), each checked against an oracle (``expect``) that states the import
  rules of core/validate.go in plain Python with int64 arithmetic. Every case
  checks: the exception class (BufferError) or a correct import (shape, strides,
  dtype, device, read-only flag and -- for CPU data we own -- the bytes), that
  nothing crashed, and that the producer's deleter ran exactly once after the
  capsule/array died (zero times when the deleter is NULL);
* explicit grids for the brief's hostile cases (majors 0/2/255, ndim -1 and
  huge, negative and overflowing shapes and extents, NULL strides on versioned
  1.0-1.3 and legacy (accepted as C-contiguous, see README "Reliability"),
  lanes != 1, unknown codes/bits, sub-byte layouts, unknown devices, NULL
  deleter, wrong/used/NULL capsule names and NULL pointers);
* hostile producers: __dlpack__ returning the "wrong" capsule kind for the
  max_version asked, a used capsule, a capsule with a foreign name, raising
  arbitrary exceptions.

Crafted capsules have a Python (ctypes) destructor, so they are kept referenced
until any exception is handled (see _helpers.craft_managed).
"""

from __future__ import annotations

import ctypes
import gc
import os
import random
from typing import ClassVar

import pytest

import godlpack as gd
from _helpers import (
    need,
    FLAG_IS_SUBBYTE_TYPE_PADDED,
    FLAG_READ_ONLY,
    CapsuleInfo,
    ExchangeAPI,
    capsule_name,
    collect,
    craft_capsule,
    craft_managed,
    forget,
)

I64_MAX = 2**63 - 1
I64_MIN = -(2**63)
U64 = 2**64
MAX_NDIM = 64

# ---------------------------------------------------------------- the oracle

_INT_BITS = {8, 16, 32, 64}


def dtype_ok(code, bits, lanes, flags):
    """ValidateDataType: True when godlpack imports (code, bits, lanes)."""
    if lanes != 1:
        return False
    if code in (0, 1):
        return bits in _INT_BITS
    if code == 2:
        return bits in (16, 32, 64)
    if code == 4:
        return bits == 16
    if code == 5:
        return bits in (64, 128)
    if code == 6:
        return bits == 8
    if 7 <= code <= 14:
        return bits == 8
    if code in (15, 16):
        return bits == 6
    if code == 17:
        return bits == 4
    return False  # opaque handles (3) and unknown codes


_KNOWN_DEVICES = {1, 2, 3, 4, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}
_ZERO_ID = {1, 3, 13}
_CPU_LIKE = {1, 3, 11, 13}


def device_ok(dtype, did):
    return dtype in _KNOWN_DEVICES and did >= 0 and not (did != 0 and dtype in _ZERO_ID)


def _fits(x):
    return I64_MIN <= x <= I64_MAX


class Overflow(Exception):
    pass


def _mul(a, b):
    c = a * b
    if not _fits(c):
        raise Overflow
    return c


def _add(a, b):
    c = a + b
    if not _fits(c):
        raise Overflow
    return c


def expect(case):
    """None when the import must succeed, else a short reason (all BufferError).
    The rules are those documented in core/validate.go (DescribeVersioned)."""
    if case["versioned"] and case["version"][0] != 1:
        return "version"
    ndim = case["ndim"]
    if ndim < 0 or ndim > MAX_NDIM:
        return "ndim"
    code, bits, lanes = case["dtype"]
    flags = case["flags"] if case["versioned"] else 0
    if not dtype_ok(code, bits, lanes, flags):
        return "dtype"
    if not device_ok(*case["device"]):
        return "device"
    if ndim > 0 and case["null_shape"]:
        return "null-shape"
    shape = case["shape"]
    if any(d < 0 for d in shape):
        return "shape"
    size = 0 if 0 in shape else 1
    if size:
        try:
            for d in shape:
                size = _mul(size, d)
        except Overflow:
            return "count"
    strides = case["strides"]
    if strides is None:
        s = 1
        cs = [0] * ndim
        for k in range(ndim - 1, -1, -1):
            cs[k] = s
            if shape[k] > 1:
                s2 = s * shape[k]
                if not _fits(s2) and k > 0:
                    return "cstrides"
                s = s2 if _fits(s2) else s
        strides_eff = cs
        contiguous = True
    else:
        strides_eff = list(strides)
        contiguous = _c_contiguous(shape, strides_eff)
    off = case["byte_offset"]
    if off > I64_MAX:
        return "byte_offset"
    subbyte = bits < 8 and code in (15, 16, 17)
    padded = subbyte and bool(flags & FLAG_IS_SUBBYTE_TYPE_PADDED)
    if subbyte and not padded and not contiguous:
        return "packed-strided"
    data = case["data"]
    if data == 0 and size != 0:
        return "null-data"
    lo = hi = off
    if size:
        try:
            if subbyte and not padded:
                nb = (size * bits + 7) // 8
                if not _fits(size * bits):
                    return "extent"
                hi = _add(off, nb)
            else:
                item = 1 if padded else bits // 8
                elo = ehi = 0
                for d, st in zip(shape, strides_eff):
                    if d <= 1:
                        continue
                    p = _mul(d - 1, st)
                    if p >= 0:
                        ehi = _add(ehi, p)
                    else:
                        elo = _add(elo, p)
                ehi = _add(ehi, 1)
                elo = _mul(elo, item)
                ehi = _mul(ehi, item)
                lo = _add(off, elo)
                hi = _add(off, ehi)
        except Overflow:
            return "extent"
    if data:
        if (lo < 0 and -lo > data) or (hi > 0 and data + hi >= U64):
            return "address-space"
        # Device memory keeps its data pointer (maybe an opaque handle): a
        # non-empty tensor's offset must be a whole number of elements.
        if (off and size and case["device"][0] not in HOST_DEVICE_TYPES
                and ((subbyte and not padded) or off % (1 if padded else bits // 8))):
            return "byte_offset"
        # A oneAPI pointer is asked about (core.HostAccessible) once its
        # runtime can be reached: our buffers are host memory, not USM of a
        # SYCL context (or the id names no device). Without dpctl's runtime
        # the tensor is held as an opaque array.
        if case["device"][0] == KDL_ONEAPI and oneapi_runtime_loaded():
            return "usm"
    return None


KDL_ONEAPI = 14


def oneapi_runtime_loaded():
    """Whether core's oneAPI backend reaches dpctl's C library: loaded in the
    process (dpctl imported), or named by $GODLPACK_DPCTL_LIB (the two ways of
    backends/oneapi/dpctl.c's gd_oneapi_load)."""
    if os.environ.get("GODLPACK_DPCTL_LIB"):
        return True
    try:
        ctypes.CDLL("libDPCTLSyclInterface.so", mode=os.RTLD_NOLOAD)
    except OSError:
        return False
    return True


# DLPack device types whose data pointers are host addresses (byte_offset is
# folded into data on import): kDLCPU, kDLCUDAHost, kDLROCMHost, kDLCUDAManaged.
HOST_DEVICE_TYPES = (1, 3, 11, 13)


def _c_contiguous(shape, strides):
    # numpy's rule: an array with a zero dimension is contiguous, whatever its strides
    if 0 in shape:
        return True
    want = 1
    for k in range(len(shape) - 1, -1, -1):
        d = shape[k]
        if d == 0:
            return True
        if d == 1:
            continue
        if strides[k] != want:
            return False
        want *= d
        if not _fits(want):
            return k == 0
    return True


# ---------------------------------------------------------------- running one case

BUF_BYTES = 1 << 14
_BUF = (ctypes.c_uint8 * BUF_BYTES)()
random.Random(1234).shuffle(_bytes := list(range(256)) * (BUF_BYTES // 256))
ctypes.memmove(_BUF, bytes(_bytes), BUF_BYTES)
BUF_MID = ctypes.addressof(_BUF) + BUF_BYTES // 2
# Bool data must hold 0/1 bytes: a separate buffer.
_BOOLBUF = (ctypes.c_uint8 * BUF_BYTES)(*([0, 1, 1, 0, 1] * (BUF_BYTES // 5) + [0] * (BUF_BYTES % 5)))
BOOL_MID = ctypes.addressof(_BOOLBUF) + BUF_BYTES // 2


def _strided_bytes(base, shape, strides, itemsize):
    """Bytes of the elements in C order (the oracle for copy())."""
    out = bytearray()
    if 0 in shape:
        return bytes(out)
    idx = [0] * len(shape)
    while True:
        off = sum(i * s for i, s in zip(idx, strides)) * itemsize
        out += ctypes.string_at(base + off, itemsize)
        k = len(shape) - 1
        while k >= 0:
            idx[k] += 1
            if idx[k] < shape[k]:
                break
            idx[k] = 0
            k -= 1
        if k < 0:
            return bytes(out)


def run_case(case):
    """Build the capsule, import it, check the outcome against expect(), drop
    everything and check the deleter count. Returns the outcome string."""
    want = expect(case)
    kw = dict(
        shape=case["shape"],
        strides=case["strides"],
        dtype=case["dtype"],
        versioned=case["versioned"],
        flags=case["flags"],
        byte_offset=case["byte_offset"],
        data=case["data"],
        device=case["device"],
        deleter=case["deleter"],
        null_shape=case["null_shape"],
    )
    if case["versioned"]:
        kw["version"] = case["version"]
    cap, rec = craft_capsule(None, **kw)
    if case["ndim"] != len(case["shape"]):
        rec.struct.dl_tensor.ndim = case["ndim"]
    err = None
    arr = None
    try:
        arr = gd.from_dlpack(cap)
    except Exception as e:  # checked below, after the handler
        err = e
    try:
        if want is None:
            assert err is None, f"{case}: expected an import, got {type(err).__name__}: {err}"
            assert capsule_name(cap).startswith("used_"), "C3: consumed capsules are renamed"
            _check_import(case, arr)
        else:
            assert isinstance(err, BufferError), (
                f"{case}: expected BufferError ({want}), got {type(err).__name__}: {err}")
            assert str(err).startswith("from_dlpack()"), str(err)
            assert capsule_name(cap) in ("dltensor", "dltensor_versioned"), "C4: refused capsules keep their name"
            assert rec.deleted == 0, "refusal must not call the deleter"
    finally:
        del arr, err
        del cap
    # Capsules and arrays are freed by refcount; a cycle collection is not needed.
    expected = 1 if case["deleter"] else 0
    assert rec.deleted == expected, f"{case}: deleter ran {rec.deleted} times, want {expected}"
    if expected:
        forget(rec)
    return want or "ok"


def _check_import(case, a):
    ndim = case["ndim"]
    assert a.ndim == ndim and a.shape == tuple(case["shape"])
    code, bits, lanes = case["dtype"]
    assert (a.dtype.code, a.dtype.bits, a.dtype.lanes) == (code, bits, lanes)
    dev = case["device"]
    assert (int(a.device.type), a.device.id) == dev
    ro = case["versioned"] and bool(case["flags"] & FLAG_READ_ONLY)
    assert a.readonly == ro
    if case["strides"] is not None:
        assert a.strides == tuple(case["strides"])
    # Bytes: only CPU data inside our buffers, byte-sized types.
    base = case["data"] + case["byte_offset"]
    ours = case.get("readable", True) and case["data"] in (BUF_MID, BOOL_MID)
    if ours and dev == (1, 0) and bits >= 8 and bits % 8 == 0:
        strides = a.strides
        c = a.copy()
        cap = c.__dlpack__(max_version=(1, 3))
        info = CapsuleInfo(cap)
        got = ctypes.string_at(info.first_element, c.nbytes) if c.nbytes else b""
        del cap, c
        assert got == _strided_bytes(base, a.shape, strides, bits // 8), f"{case}: copy() bytes differ"


# ---------------------------------------------------------------- the generator

_GOOD_DTYPES = [
    (0, 8, 1), (0, 16, 1), (0, 32, 1), (0, 64, 1), (1, 8, 1), (1, 16, 1), (1, 32, 1), (1, 64, 1),
    (2, 16, 1), (2, 32, 1), (2, 64, 1), (4, 16, 1), (5, 64, 1), (5, 128, 1), (6, 8, 1),
    (7, 8, 1), (10, 8, 1), (12, 8, 1), (14, 8, 1), (15, 6, 1), (16, 6, 1), (17, 4, 1),
]
_BAD_DTYPES = [
    (2, 32, 2), (2, 32, 0), (0, 8, 4), (1, 8, 65535), (2, 8, 1), (2, 128, 1), (2, 0, 1), (0, 1, 1),
    (1, 4, 1), (1, 128, 1), (3, 64, 1), (4, 32, 1), (5, 32, 1), (6, 1, 1), (6, 16, 1),
    (8, 16, 1), (15, 8, 1), (16, 4, 1), (17, 8, 1), (17, 6, 1), (18, 8, 1), (99, 32, 1), (255, 255, 1),
]
_GOOD_DEVICES = [(1, 0)] * 6 + [(3, 0), (13, 0), (2, 0), (2, 3), (10, 1), (18, 0), (11, 2)]
_BAD_DEVICES = [(0, 0), (5, 0), (6, 0), (19, 0), (255, 0), (-1, 0), (1, 1), (3, 2), (13, 5), (2, -1), (1, -7)]
_HUGE = [2**62, 2**63 - 1, 2**40, 2**31, 2**32 + 1]


def gen_case(rng):
    versioned = rng.random() < 0.7
    version = (1, rng.randrange(0, 6))
    if rng.random() < 0.08:
        version = (rng.choice([0, 2, 3, 255, 2**32 - 1]), rng.randrange(0, 4))
    dtype = rng.choice(_GOOD_DTYPES) if rng.random() < 0.8 else rng.choice(_BAD_DTYPES)
    device = rng.choice(_GOOD_DEVICES) if rng.random() < 0.85 else rng.choice(_BAD_DEVICES)
    ndim = rng.choice([0, 1, 1, 2, 2, 3, 4])
    shape = [rng.choice([0, 1, 1, 2, 2, 3]) for _ in range(ndim)]
    strides = None if rng.random() < 0.25 else [rng.randrange(-3, 4) for _ in range(ndim)]
    r = rng.random()
    if ndim and r < 0.08:
        shape[rng.randrange(ndim)] = rng.choice([-1, -2, I64_MIN, -(2**40)])
    elif ndim and r < 0.18:
        shape[rng.randrange(ndim)] = rng.choice(_HUGE)
        if rng.random() < 0.5 and ndim > 1:
            shape[rng.randrange(ndim)] = rng.choice(_HUGE)
    if strides is not None and ndim and rng.random() < 0.12:
        strides[rng.randrange(ndim)] = rng.choice([2**62, -(2**62), I64_MAX, I64_MIN, 2**40, -(2**33)])
    byte_offset = 0
    r = rng.random()
    if r < 0.15:
        byte_offset = rng.choice([8, 16, 64, 128])
    elif r < 0.2:
        byte_offset = rng.choice([2**63, U64 - 8, I64_MAX, 2**62])
    bool_data = dtype[0] == 6
    data = BOOL_MID if bool_data else BUF_MID
    r = rng.random()
    if r < 0.07:
        data = 0
    elif r < 0.11:
        data = rng.choice([U64 - 2, U64 - 4096, 16, 8])
    flags = 0
    if versioned and rng.random() < 0.4:
        flags = rng.choice([FLAG_READ_ONLY, FLAG_IS_SUBBYTE_TYPE_PADDED, 2, FLAG_READ_ONLY | FLAG_IS_SUBBYTE_TYPE_PADDED,
                            1 << 63, 0xFFFF])
    nd = ndim
    r = rng.random()
    if r < 0.04:
        nd = rng.choice([-1, -2, -(2**31), 65, 1000, 2**31 - 1])
    null_shape = ndim > 0 and rng.random() < 0.04
    deleter = rng.random() > 0.1
    case = dict(versioned=versioned, version=version, dtype=dtype, device=device, ndim=nd,
                shape=tuple(shape), strides=None if strides is None else tuple(strides),
                byte_offset=byte_offset, data=data, flags=flags, null_shape=null_shape, deleter=deleter)
    # An accepted case is read back (copy()) only when it stays inside our buffer;
    # huge accepted ones (zero strides, size-1 dims, huge packed sub-byte) are
    # imported and dropped without touching their memory.
    case["readable"] = expect(case) is None and data in (BUF_MID, BOOL_MID) and _inside(case)
    return case


def _inside(case):
    # byteRange relative to the middle of a 16 KiB buffer: small by construction.
    shape, strides = case["shape"], case["strides"]
    if 0 in shape:
        return
    _code, bits, _ = case["dtype"]
    item = max(bits // 8, 1)
    if strides is None:
        n = 1
        for d in shape:
            n *= d
        reach_hi, reach_lo = n * item, 0
    elif len(strides) != len(shape):
        return False
    else:
        reach_hi = sum(max((d - 1) * s, 0) for d, s in zip(shape, strides)) * item + item
        reach_lo = sum(min((d - 1) * s, 0) for d, s in zip(shape, strides)) * item
    reach_hi += case["byte_offset"]
    return reach_lo >= -BUF_BYTES // 2 and reach_hi <= BUF_BYTES // 2


N_RANDOM = 1200
SEEDS = range(12)  # 12 pytest cases x 100 random combinations


_TO_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
# Own prototypes: ctypes.pythonapi's function objects are shared, and other
# test modules set their argtypes differently.
_GET_POINTER = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
_DECREF = ctypes.PYFUNCTYPE(None, ctypes.py_object)(("Py_DecRef", ctypes.pythonapi))


def _to_py():
    """Our exchange API's managed_tensor_to_py_object_no_sync."""
    api = ExchangeAPI.from_address(_GET_POINTER(gd.Array.__dlpack_c_exchange_api__, b"dlpack_exchange_api"))
    return _TO_PY(api.managed_tensor_to_py_object_no_sync)


def run_case_api(case):
    """run_case through the C exchange API instead of a capsule: the API
    steals the tensor, so its deleter runs exactly once whether the tensor is
    taken (when the array dies) or refused (at once). Versioned cases only."""
    want = expect(case)
    kw = dict(
        shape=case["shape"], strides=case["strides"], dtype=case["dtype"], versioned=True, flags=case["flags"],
        byte_offset=case["byte_offset"], data=case["data"], device=case["device"], deleter=case["deleter"],
        null_shape=case["null_shape"], version=case["version"],
    )
    addr, rec = craft_managed(None, **kw)
    if case["ndim"] != len(case["shape"]):
        rec.struct.dl_tensor.ndim = case["ndim"]
    out = ctypes.c_void_p()
    err = None
    arr = None
    try:
        rc = _to_py()(addr, ctypes.byref(out))
        assert rc == 0
        arr = ctypes.cast(out, ctypes.py_object).value
        _DECREF(arr)  # the API returned a new reference
    except Exception as e:  # checked below
        err = e
    try:
        if want is None:
            assert err is None, f"{case}: expected an import, got {type(err).__name__}: {err}"
            _check_import(case, arr)
        else:
            assert isinstance(err, BufferError), (
                f"{case}: expected BufferError ({want}), got {type(err).__name__}: {err}")
            expected = 1 if case["deleter"] else 0
            assert rec.deleted == expected, "a refused tensor is released at once: the API owns it"
    finally:
        del arr, err
    expected = 1 if case["deleter"] else 0
    assert rec.deleted == expected, f"{case}: deleter ran {rec.deleted} times, want {expected}"
    if expected:
        forget(rec)
    return want or "ok"


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_random_hostile_combinations_through_the_exchange_api(seed):
    rng = random.Random(0xE7C + seed)
    outcomes = {}
    for _ in range(N_RANDOM // len(SEEDS)):
        case = gen_case(rng)
        if not case["versioned"]:
            continue
        out = run_case_api(case)
        outcomes[out] = outcomes.get(out, 0) + 1
    assert outcomes.get("ok", 0) >= 10, outcomes
    assert sum(v for k, v in outcomes.items() if k != "ok") >= 10, outcomes


@pytest.mark.parametrize("seed", SEEDS)
def test_random_hostile_combinations(seed):
    rng = random.Random(0xD1BAC + seed)
    outcomes = {}
    for _ in range(N_RANDOM // len(SEEDS)):
        case = gen_case(rng)
        out = run_case(case)
        outcomes[out] = outcomes.get(out, 0) + 1
    # The generator must exercise both sides of the oracle.
    assert outcomes.get("ok", 0) >= 20, outcomes
    assert sum(v for k, v in outcomes.items() if k != "ok") >= 20, outcomes


def test_generator_covers_every_refusal_reason():
    rng = random.Random(42)
    seen = set()
    for _ in range(6000):
        seen.add(expect(gen_case(rng)) or "ok")
    want = {"ok", "version", "ndim", "dtype", "device", "null-shape", "shape", "count", "byte_offset",
            "null-data", "extent", "address-space", "packed-strided"}
    assert want <= seen, want - seen


# ---------------------------------------------------------------- explicit grids


def _base(**kw):
    case = dict(versioned=True, version=(1, 3), dtype=(2, 64, 1), device=(1, 0), ndim=None,
                shape=(2, 3), strides=(3, 1), byte_offset=0, data=BUF_MID, flags=0,
                null_shape=False, deleter=True)
    case.update(kw)
    if case["ndim"] is None:
        case["ndim"] = len(case["shape"])
    return case


@pytest.mark.parametrize("major", [0, 2, 3, 255, 2**31, 2**32 - 1])
@pytest.mark.parametrize("minor", [0, 3, 2**32 - 1])
@pytest.mark.parametrize("deleter", [True, False])
def test_major_version_refused_deleter_once(major, minor, deleter):
    # Fields after the version are garbage: they must not be read (S1).
    case = _base(version=(major, minor), deleter=deleter)
    cap, rec = craft_capsule(None, shape=(2,), strides=(1,), data=BUF_MID, version=(major, minor), deleter=deleter)
    rec.struct.dl_tensor.ndim = -12345
    rec.struct.dl_tensor.shape = ctypes.cast(ctypes.c_void_p(8), ctypes.POINTER(ctypes.c_int64))
    rec.struct.dl_tensor.strides = ctypes.cast(ctypes.c_void_p(16), ctypes.POINTER(ctypes.c_int64))
    rec.struct.dl_tensor.dtype.lanes = 7
    with pytest.raises(BufferError, match="version"):
        gd.from_dlpack(cap)
    assert expect(case) == "version"
    del cap
    assert rec.deleted == (1 if deleter else 0)


@pytest.mark.parametrize("ndim", [-1, -2, -(2**31), 65, 66, 1000, 2**31 - 1])
@pytest.mark.parametrize("versioned", [True, False])
def test_ndim_out_of_range(ndim, versioned):
    run_case(_base(versioned=versioned, ndim=ndim, shape=(2,), strides=(1,)))


@pytest.mark.parametrize(
    "shape,strides",
    [
        ((2, -1), (1, 1)), ((I64_MIN,), (1,)), ((-(2**40), 2), (2, 1)),
        ((2**62, 8), (8, 1)), ((2**40, 2**40), None), ((2**31, 2**31, 4), None),
        ((3,), (2**62,)), ((3,), (-(2**62),)), ((2, 2), (I64_MAX, 1)), ((2, 2), (I64_MIN, 1)),
        ((2**61, 2), (1, 2**61)), ((3, 2**62), None), ((0, 2**62, 2**62), None), ((0, 2**62), (1, 1)),
        ((2**62,), (0,)), ((2**63 - 1,), (0,)), ((2**62 + 1, 1), (0, 5)),
    ],
)
@pytest.mark.parametrize("versioned", [True, False])
def test_shapes_and_extents(shape, strides, versioned):
    case = _base(versioned=versioned, shape=shape, strides=strides)
    out = run_case(case) if expect(case) is not None or _small(shape) else _accepted_no_read(case)
    assert out == (expect(case) or "ok")


def _small(shape):
    return 0 in shape


def _accepted_no_read(case):
    # Zero strides over a huge shape are a legal (broadcast-like) import; the oracle
    # accepts them. Import and drop without reading every element.
    cap, rec = craft_capsule(None, shape=case["shape"], strides=case["strides"], data=case["data"],
                             versioned=case["versioned"])
    a = gd.from_dlpack(cap)
    assert a.shape == case["shape"]
    del a, cap
    assert rec.deleted == 1
    return "ok"


@pytest.mark.parametrize("versioned,version", [(False, None), (True, (1, 0)), (True, (1, 1)), (True, (1, 2)), (True, (1, 3)), (True, (1, 99))])
@pytest.mark.parametrize("shape", [(4,), (2, 3), (2, 1, 3), (3, 0, 2), (1,), ()])
def test_null_strides_accepted_as_c_contiguous(versioned, version, shape):
    # Policy (README "Reliability", core/validate.go rule 7): DLPack >= 1.2 says
    # strides MUST NOT be NULL when ndim > 0, but the meaning is unambiguous:
    # we accept NULL strides from every producer as C-contiguous.
    kw = dict(versioned=versioned, shape=shape, strides=None)
    if versioned:
        kw["version"] = version
    case = _base(**kw)
    assert run_case(case) == "ok"


@pytest.mark.parametrize("lanes", [0, 2, 3, 4, 16, 65535])
@pytest.mark.parametrize("code,bits", [(0, 32), (2, 32), (2, 64), (5, 64), (6, 8)])
def test_lanes_refused(code, bits, lanes):
    assert run_case(_base(dtype=(code, bits, lanes))) == "dtype"


@pytest.mark.parametrize("code", [3] + list(range(18, 256, 17)) + [255])
@pytest.mark.parametrize("bits", [8, 32, 64])
def test_unknown_dtype_codes(code, bits):
    assert run_case(_base(dtype=(code, bits, 1))) == "dtype"


@pytest.mark.parametrize("code", range(0, 18))
@pytest.mark.parametrize("bits", [0, 1, 2, 4, 6, 7, 12, 24, 48, 96, 255])
def test_odd_bits(code, bits):
    case = _base(dtype=(code, bits, 1), shape=(4,), strides=None)
    assert run_case(case) == (expect(case) or "ok")


@pytest.mark.parametrize("code,bits", [(15, 6), (16, 6), (17, 4)])
@pytest.mark.parametrize("padded", [False, True])
@pytest.mark.parametrize("strides", [None, (1,), (2,), (-1,), (0,)])
@pytest.mark.parametrize("versioned", [True, False])
def test_subbyte_layouts(code, bits, padded, strides, versioned):
    # Packed (no IS_SUBBYTE_TYPE_PADDED flag, and every legacy tensor) sub-byte
    # data must be C-contiguous; padded data takes one byte per element.
    flags = FLAG_IS_SUBBYTE_TYPE_PADDED if padded else 0
    case = _base(dtype=(code, bits, 1), shape=(6,), strides=strides, flags=flags, versioned=versioned)
    out = run_case(case)
    assert out == (expect(case) or "ok")
    if not padded or not versioned:
        assert (out == "ok") == (strides in (None, (1,)))


@pytest.mark.parametrize("device", [(t, i) for t in range(-2, 22) for i in (0, 1, -1)])
def test_devices(device):
    case = _base(device=device)
    assert run_case(case) == (expect(case) or "ok")


@pytest.mark.parametrize("device", [(14, 0), (14, 1), (14, 99)])
def test_oneapi_host_pointer_refused_once_dpctl_is_loaded(device):
    # test_devices' oracle in the state that refuses: dpctl imported (its
    # runtime loaded), the host buffer is no USM of any SYCL context
    need("_dpenv")
    need("dpctl")
    case = _base(device=device)
    assert expect(case) == "usm"
    assert run_case(case) == "usm"


@pytest.mark.parametrize("versioned", [True, False])
@pytest.mark.parametrize("shape", [(0,), (2,), (2, 0), ()])
def test_null_deleter_never_called(versioned, shape):
    case = _base(versioned=versioned, shape=shape, strides=None, deleter=False)
    assert run_case(case) == "ok"


# ---------------------------------------------------------------- capsule names and pointers

_api = ctypes.pythonapi
_New = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(("PyCapsule_New", _api))
_SetName = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_SetName", _api))
# Names must outlive their capsules: module-level bytes.
_NAMES = [b"used_dltensor", b"used_dltensor_versioned", b"dltensor_", b"DLTENSOR", b"dltensor_versioned2",
          b"", b"dlpack_exchange_api", b"dltensor\x00versioned"]
_DUMMY = (ctypes.c_int64 * 16)(*([-1] * 16))


@pytest.mark.parametrize("name", _NAMES + [None])
def test_foreign_or_used_capsule_names_never_read(name):
    # The capsule points at garbage (-1 everywhere): reading it would be wrong.
    cap = _New(ctypes.addressof(_DUMMY), name, None)
    with pytest.raises((ValueError, BufferError, TypeError)) as ei:
        gd.from_dlpack(cap)
    assert "from_dlpack" in str(ei.value)
    assert list(_DUMMY) == [-1] * 16


@pytest.mark.parametrize("versioned", [True, False])
def test_renamed_to_used_after_craft_not_deleted(versioned):
    # A producer-built capsule renamed to used_* before we see it: refused, and
    # its (producer) destructor does not delete (the name is not the unused one).
    cap, rec = craft_capsule(None, shape=(2,), strides=(1,), data=BUF_MID, versioned=versioned)
    _SetName(cap, _NAMES[1] if versioned else _NAMES[0])
    with pytest.raises((ValueError, BufferError)):
        gd.from_dlpack(cap)
    del cap
    assert rec.deleted == 0
    _SetName  # noqa: B018


def test_capsule_with_null_pointer_is_impossible_but_null_struct_fields_are_not():
    # PyCapsule_New refuses a NULL pointer (ValueError), so "NULL managed tensor"
    # cannot reach us through a capsule; NULL fields inside the struct are covered
    # by the grids above (data, shape, strides, deleter).
    with pytest.raises(ValueError):
        _New(None, b"dltensor_versioned", None)


# ---------------------------------------------------------------- hostile producers


class _Producer:
    """__dlpack__ returns whatever make(kwargs) builds; records the calls."""

    def __init__(self, make, device=(1, 0)):
        self.make = make
        self.calls = []
        self.device = device
        self.keep = []

    def __dlpack__(self, **kw):
        self.calls.append(kw)
        out = self.make(kw)
        self.keep.append(out)  # crafted capsules must not die inside the call
        return out

    def __dlpack_device__(self):
        return self.device


def _crafted(versioned):
    def make(kw):
        cap, rec = craft_capsule(None, shape=(4,), strides=(1,), data=BUF_MID, dtype=(1, 8, 1), versioned=versioned)
        make.recs.append(rec)
        return cap
    make.recs = []
    return make


@pytest.mark.parametrize("versioned", [True, False])
def test_producer_returns_other_capsule_kind_than_asked(versioned):
    # We ask max_version=(1, 3); an old producer may ignore it and hand a legacy
    # capsule, a new one a versioned capsule: both are read by their NAME (C2).
    make = _crafted(versioned)
    p = _Producer(make)
    a = gd.from_dlpack(p)
    assert p.calls[0].get("max_version") == (1, 3)
    assert a.tolist() == list(ctypes.string_at(BUF_MID, 4))
    del a
    p.keep.clear()
    assert make.recs[0].deleted == 1


def test_old_producer_versioned_capsule_after_retry():
    # Old signature __dlpack__(stream=None) (TypeError on max_version): we retry
    # without keywords; a (hostile) versioned reply is still read by its name.
    make = _crafted(True)

    class Old:
        keep: ClassVar[list] = []

        def __dlpack__(self, stream=None):
            self.keep.append(make({}))
            return self.keep[-1]

        def __dlpack_device__(self):
            return (1, 0)

    o = Old()
    a = gd.from_dlpack(o)
    assert a.shape == (4,)
    del a
    o.keep.clear()
    assert make.recs[0].deleted == 1


def _used_cap(kw):
    c = gd.arange(4, dtype="uint8").__dlpack__(max_version=(1, 3))
    gd.from_dlpack(c)
    return c


@pytest.mark.parametrize(
    "make,exc",
    [
        (_used_cap, (ValueError, BufferError)),
        (lambda kw: _New(ctypes.addressof(_DUMMY), b"something", None), (ValueError, BufferError, TypeError)),
        (lambda kw: 1 / 0, ZeroDivisionError),
        (lambda kw: (_ for _ in ()).throw(MemoryError("producer")), MemoryError),
        (lambda kw: (_ for _ in ()).throw(RuntimeError("producer")), BufferError),  # worded as ours (issue 12)
        (lambda kw: (_ for _ in ()).throw(KeyError("x")), KeyError),
        (lambda kw: (_ for _ in ()).throw(BufferError("no")), BufferError),
        (lambda kw: gd.zeros(2), (TypeError, BufferError, ValueError)),
        (lambda kw: [1, 2], (TypeError, BufferError, ValueError)),
        (lambda kw: (1, 2), (TypeError, BufferError, ValueError)),
    ],
    ids=["used", "foreign-name", "zerodiv", "memory", "runtime", "keyerror", "buffer", "array", "list", "tuple"],
)
def test_hostile_producer(make, exc):
    p = _Producer(make)
    with pytest.raises(exc):
        gd.from_dlpack(p)
    assert list(_DUMMY) == [-1] * 16


def test_producer_device_lies():
    # __dlpack_device__ says CPU, the capsule says kDLCUDA: we trust the capsule.
    def make(kw):
        cap, rec = craft_capsule(None, shape=(2,), strides=(1,), data=BUF_MID, device=(2, 0))
        make.recs.append(rec)
        return cap
    make.recs = []
    p = _Producer(make)
    try:
        a = gd.from_dlpack(p)
    except BufferError:
        a = None
    if a is not None:
        assert int(a.device.type) == 2
    del a
    p.keep.clear()
    gc.collect()
    assert make.recs[0].deleted == 1


@pytest.mark.parametrize("bad", ["dlpack_device_raises", "dlpack_device_garbage"])
def test_producer_bad_dlpack_device(bad):
    make = _crafted(True)

    class P(_Producer):
        def __dlpack_device__(self):
            if bad == "dlpack_device_raises":
                raise OSError("nope")
            return ("x", None)

    p = P(make)
    try:
        a = gd.from_dlpack(p)
        del a
    except (OSError, TypeError, ValueError, BufferError):
        pass
    p.keep.clear()
    collect()
    for r in make.recs:
        assert r.deleted == 1
