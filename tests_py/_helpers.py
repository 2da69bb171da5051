"""Shared helpers for the godlpack pytest suites.

* ``requires(lib)``: a marker; a missing library skips locally and FAILS when the
  environment variable CI is "true" (see conftest.py). ``need(lib)`` imports
  lib the same way inside a test, ``missing(what)`` skips/fails for anything
  else a test lacks (a feature of an older library).
* ctypes mirrors of the DLPack 1.3 structs (core/dlpack.h) to read capsules
  (name, version, flags, data pointer, shape, strides) without trusting the
  library under test.
* ``craft_capsule``: builds DLManagedTensor(Versioned) structs in ctypes memory
  with a counting deleter, wrapped in a PyCapsule whose destructor behaves like a
  well-written producer (calls the deleter only while the capsule has its unused
  name). Used to feed hostile or unusual tensors to ``gd.from_dlpack``.
* data-pointer helpers for numpy, torch and godlpack arrays.
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import os
import sys
import threading

import pytest

IN_CI = os.environ.get("CI") == "true"
# GODLPACK_NOFAST=1: the extension sends what core/fastpath.c answers through
# Go instead (pyext/gocall.h reads it the same way at import).
NOFAST = os.environ.get("GODLPACK_NOFAST", "") not in ("", "0")

# GODLPACK_TEST_LIBS="numpy,ml_dtypes": the libraries an environment promises
# (make test-wheel's 3.13 venv, which does not install torch, dpnp or jax).
# Under CI=true a library outside the list skips, naming the list; one inside
# it, or any library when the variable is unset, fails when missing.
_DECLARED = os.environ.get("GODLPACK_TEST_LIBS") or None
DECLARED_LIBS = None if _DECLARED is None else frozenset(x.strip() for x in _DECLARED.split(",") if x.strip())


def declared_absent(lib: str) -> bool:
    """True when GODLPACK_TEST_LIBS is set and does not list lib's top-level package."""
    return DECLARED_LIBS is not None and lib.split(".")[0] not in DECLARED_LIBS

# ---------------------------------------------------------------- test probes

# The test probes (_gofunc_* of internal/probes, _test_panic, _test_go_gc) are
# in a module built with GODLPACK_PROBES=1 (make build), never in a release
# wheel. GODLPACK_TEST_PROBES=0 declares an environment without them (make
# test-wheel's pass over the installed wheel): tests marked @probes skip
# there, naming it; anywhere else a module without them fails those tests
# under CI=true.
PROBES_DECLARED_ABSENT = os.environ.get("GODLPACK_TEST_PROBES") == "0"


def has_probes() -> bool:
    import godlpack

    return hasattr(godlpack._native, "_test_panic")


probes = pytest.mark.probes


def need_probes():
    """Skip (declared absent) or fail (CI) when the module has no test probes."""
    if has_probes():
        return
    if PROBES_DECLARED_ABSENT:
        pytest.skip("a release module: no test probes (GODLPACK_TEST_PROBES=0)")
    what = "the module was built without the test probes; build it with `make build` (GODLPACK_PROBES=1)"
    if IN_CI:
        pytest.fail(what + " or declare GODLPACK_TEST_PROBES=0", pytrace=False)
    pytest.skip(what)


# ---------------------------------------------------------------- requires


def requires(*libs: str):
    """Marker: the test needs these importable libraries (e.g. "numpy", "torch")."""
    return pytest.mark.requires(*libs)


def missing(what: str, module: bool = False):
    """The test cannot run here because a library, or a feature of one, is
    absent: skip locally, fail when CI=true. Every skip for a missing library
    goes through here (never pytest.importorskip; conftest.py fails those too
    under CI)."""
    if IN_CI:
        pytest.fail(f"{what}; CI=true makes a missing library a failure: install it", pytrace=False)
    pytest.skip(what, allow_module_level=module)


def need(lib: str, module: bool = False):
    """Import lib or skip (locally) / fail (CI=true); module=True at a test
    module's top level, where the skip covers the whole module."""
    try:
        return importlib.import_module(lib)
    except ImportError as e:  # pragma: no cover - depends on the environment
        if declared_absent(lib):
            pytest.skip(f"{lib} is not in GODLPACK_TEST_LIBS={_DECLARED!r}, the libraries this environment promises",
                        allow_module_level=module)
        missing(f"{lib} cannot be imported: {e}", module)


def optional(lib: str):
    """Import lib at collection time, or return None (the marker then skips/fails)."""
    try:
        return importlib.import_module(lib)
    except ImportError:
        return None


# ---------------------------------------------------------------- DLPack ABI (mirror of core/dlpack.h)

FLAG_READ_ONLY = 1 << 0
FLAG_IS_COPIED = 1 << 1
FLAG_IS_SUBBYTE_TYPE_PADDED = 1 << 2

kDLCPU = 1
kDLCUDA = 2
kDLInt, kDLUInt, kDLFloat, kDLOpaqueHandle, kDLBfloat, kDLComplex, kDLBool = 0, 1, 2, 3, 4, 5, 6


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
    ]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


# DLPackExchangeAPI (DLPack 1.2 struct); function pointers kept as addresses.
class Header(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("prev_api", ctypes.c_void_p)]


class ExchangeAPI(ctypes.Structure):
    _fields_ = [
        ("header", Header),
        ("managed_tensor_allocator", ctypes.c_void_p),
        ("managed_tensor_from_py_object_no_sync", ctypes.c_void_p),
        ("managed_tensor_to_py_object_no_sync", ctypes.c_void_p),
        ("dltensor_from_py_object_no_sync", ctypes.c_void_p),
        ("current_work_stream", ctypes.c_void_p),
    ]


assert ctypes.sizeof(DLTensor) == 48
assert ctypes.sizeof(DLManagedTensor) == 64
assert ctypes.sizeof(DLManagedTensorVersioned) == 80

_api = ctypes.pythonapi
_GetName = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", _api))
_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_GetPointer", _api))
_IsValid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_IsValid", _api))
_New = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(("PyCapsule_New", _api))

# Static capsule names (module-level bytes objects live as long as the process).
NAME_LEGACY = b"dltensor"
NAME_VERSIONED = b"dltensor_versioned"
NAME_LEGACY_USED = b"used_dltensor"
NAME_VERSIONED_USED = b"used_dltensor_versioned"


def is_capsule(obj) -> bool:
    return type(obj).__name__ == "PyCapsule"


def capsule_name(cap) -> str:
    assert is_capsule(cap), f"expected a PyCapsule, got {type(cap)!r}"
    name = _GetName(cap)
    return None if name is None else name.decode()


class CapsuleInfo:
    """A snapshot of what a DLPack capsule holds (read through ctypes)."""

    def __init__(self, cap):
        self.name = capsule_name(cap)
        self.versioned = self.name in ("dltensor_versioned", "used_dltensor_versioned")
        ptr = _GetPointer(cap, self.name.encode())
        assert ptr, "PyCapsule_GetPointer returned NULL"
        self.address = ptr
        if self.versioned:
            m = DLManagedTensorVersioned.from_address(ptr)
            self.version = (m.version.major, m.version.minor)
            self.flags = m.flags
        else:
            m = DLManagedTensor.from_address(ptr)
            self.version = None
            self.flags = None
        t = m.dl_tensor
        self.data = t.data or 0
        self.byte_offset = t.byte_offset
        self.device = (t.device.device_type, t.device.device_id)
        self.ndim = t.ndim
        self.dtype = (t.dtype.code, t.dtype.bits, t.dtype.lanes)
        self.shape = tuple(t.shape[i] for i in range(t.ndim)) if t.ndim else ()
        if t.ndim and t.strides:
            self.strides = tuple(t.strides[i] for i in range(t.ndim))
        elif t.ndim:
            self.strides = None
        else:
            self.strides = ()
        self.has_deleter = bool(m.deleter)

    @property
    def read_only(self) -> bool:
        return bool(self.flags & FLAG_READ_ONLY)

    @property
    def is_copied(self) -> bool:
        return bool(self.flags & FLAG_IS_COPIED)

    @property
    def first_element(self) -> int:
        return self.data + self.byte_offset


# ---------------------------------------------------------------- crafted capsules

_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class Crafted:
    """Bookkeeping for one crafted managed tensor. ``deleted`` counts deleter calls."""

    def __init__(self):
        self.deleted = 0
        self.thread = None  # the thread the deleter last ran on
        self.struct = None  # kept forever so addresses are never reused
        self.keep = None  # buffer / shape / strides; dropped on the first deleter call


_records: dict[int, Crafted] = {}


_get_ident = threading.get_ident


def _on_delete(addr, _records=_records, _ident=_get_ident):
    rec = _records.get(addr)
    if rec is None:  # pragma: no cover - would mean a wild pointer
        _stray.append(addr)
        return
    rec.deleted += 1
    rec.thread = _ident()  # where the deleter ran
    rec.keep = None


_stray: list = []
_deleter_cb = _DELETER(_on_delete)
_DELETER_ADDR = ctypes.cast(_deleter_cb, ctypes.c_void_p).value


def _capsule_destructor(
    capsule_ptr,
    _c=ctypes,
    _head=object.__basicsize__,  # 16 on a 64-bit, non-debug build
    _names=(NAME_VERSIONED, NAME_LEGACY),
    _records=_records,
    _on_delete=_on_delete,
):
    # A producer's destructor: delete only while the capsule has its unused name.
    # It reads the PyCapsule fields directly (PyObject_HEAD, pointer, name) so that
    # no C-API call is made during deallocation, and it uses no module globals so
    # that it still works while the interpreter shuts down.
    pointer = _c.c_void_p.from_address(capsule_ptr + _head).value
    name_ptr = _c.c_void_p.from_address(capsule_ptr + _head + 8).value
    name = _c.string_at(name_ptr) if name_ptr else b""
    if name in _names:
        rec = _records.get(pointer)
        if rec is not None and rec.struct.deleter:
            _on_delete(pointer)


_destructor_cb = _DESTRUCTOR(_capsule_destructor)
_DESTRUCTOR_ADDR = ctypes.cast(_destructor_cb, ctypes.c_void_p).value

# The C thunks of the two callbacks must outlive every crafted capsule, even one
# still alive while the interpreter finalizes: leak one reference to each.
_Py_IncRef = ctypes.PYFUNCTYPE(None, ctypes.py_object)(("Py_IncRef", _api))
_Py_IncRef(_deleter_cb)
_Py_IncRef(_destructor_cb)


# NOTE: the capsule destructor is Python code (a ctypes callback). CPython does not
# save a pending exception around a capsule destructor, so a crafted capsule must
# not die while an exception propagates (e.g. as a temporary argument of a call
# that raises): keep it in a variable or list until the exception is handled.
def craft_managed(
    buf=None,
    *,
    shape=(),
    strides=None,
    dtype=(kDLFloat, 64, 1),
    versioned=True,
    version=(1, 3),
    flags=0,
    byte_offset=0,
    data=None,
    device=(kDLCPU, 0),
    deleter=True,
    null_shape=False,
):
    """Build a DLManagedTensor(Versioned) in ctypes memory with a counting
    deleter; return (address, record). buf: a ctypes array giving the data
    (data = its address unless ``data`` is given; data=0 makes NULL)."""
    rec = Crafted()
    ndim = len(shape)
    shape_arr = (ctypes.c_int64 * max(ndim, 1))(*shape)
    strides_arr = None
    if strides is not None:
        strides_arr = (ctypes.c_int64 * max(ndim, 1))(*strides)
    if data is None:
        data = ctypes.addressof(buf) if buf is not None else 0
    m = DLManagedTensorVersioned() if versioned else DLManagedTensor()
    t = m.dl_tensor
    t.data = data or None
    t.device = DLDevice(*device)
    t.ndim = ndim
    t.dtype = DLDataType(*dtype)
    t.shape = ctypes.cast(None if null_shape else shape_arr, ctypes.POINTER(ctypes.c_int64))
    t.strides = ctypes.cast(strides_arr, ctypes.POINTER(ctypes.c_int64))
    t.byte_offset = byte_offset
    m.manager_ctx = None
    m.deleter = _DELETER_ADDR if deleter else None
    if versioned:
        m.version = DLPackVersion(*version)
        m.flags = flags
    rec.struct = m
    rec.keep = (buf, shape_arr, strides_arr)
    addr = ctypes.addressof(m)
    _records[addr] = rec
    return addr, rec


def craft_capsule(buf=None, *, versioned=True, **kwargs):
    """craft_managed() wrapped in a PyCapsule whose destructor behaves like a
    producer's; return (capsule, record)."""
    addr, rec = craft_managed(buf, versioned=versioned, **kwargs)
    cap = _New(addr, NAME_VERSIONED if versioned else NAME_LEGACY, _DESTRUCTOR_ADDR)
    return cap, rec


def forget(rec: Crafted) -> None:
    """Drop a finished record (deleter already called) so long loops do not grow."""
    assert rec.deleted == 1, "forget() only finished records"
    _records.pop(ctypes.addressof(rec.struct), None)
    rec.struct = None


def float64_buffer(values):
    arr = (ctypes.c_double * len(values))(*values)
    return arr


# ---------------------------------------------------------------- data pointers


def gd_ptr(a) -> int:
    """Address of a godlpack array's first element, read from a versioned export."""
    cap = a.__dlpack__(max_version=(1, 0))
    info = CapsuleInfo(cap)
    return info.first_element


def np_ptr(x) -> int:
    return x.__array_interface__["data"][0]


def torch_ptr(t) -> int:
    return t.data_ptr()


# ---------------------------------------------------------------- process memory


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        resident = int(f.read().split()[1])
    return resident * os.sysconf("SC_PAGE_SIZE")


def collect():
    gc.collect()
    gc.collect()


def refcount(obj) -> int:
    return sys.getrefcount(obj)
