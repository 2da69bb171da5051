"""The DLPack C exchange API (docs/rules.md C9; DLPack 1.2 struct, 1.3
discovery): ``type(a).__dlpack_c_exchange_api__`` is a PyCapsule named
"dlpack_exchange_api"; its functions are called here through ctypes. As a
consumer, godlpack may use a producer's API but must check its major version."""

import ctypes
import sys

import pytest

import godlpack as gd
from _helpers import (
    DLManagedTensorVersioned,
    DLTensor,
    capsule_name,
    collect,
    craft_managed,
    float64_buffer,
    gd_ptr,
    is_capsule,
    optional,
    requires,
)

np_mod = optional("numpy")

_SET_ERROR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)
_ALLOCATOR = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.POINTER(DLTensor), ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, _SET_ERROR)
_FROM_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(ctypes.c_void_p))
_TO_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
_DLTENSOR_FROM_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(DLTensor))
_STREAM = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p))


from _helpers import ExchangeAPI  # noqa: E402


_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_GetPointer", ctypes.pythonapi))
_New = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(("PyCapsule_New", ctypes.pythonapi))
_DecRef = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)(("Py_DecRef", ctypes.pythonapi))
API_NAME = b"dlpack_exchange_api"


def our_api():
    cap = type(gd.zeros((1,))).__dlpack_c_exchange_api__
    assert is_capsule(cap) and capsule_name(cap) == "dlpack_exchange_api"
    return ExchangeAPI.from_address(_GetPointer(cap, API_NAME))


def managed(addr):
    return DLManagedTensorVersioned.from_address(addr)


def call_deleter(addr):
    fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(managed(addr).deleter)
    fn(addr)


def test_discovery_on_the_type():
    a = gd.zeros((1,))
    cap = gd.Array.__dlpack_c_exchange_api__
    assert cap is type(a).__dlpack_c_exchange_api__, "one process-wide capsule"
    api = our_api()
    assert (api.header.version.major, api.header.version.minor) == (1, 3)
    for f in ("managed_tensor_allocator", "managed_tensor_from_py_object_no_sync",
              "managed_tensor_to_py_object_no_sync", "current_work_stream"):
        assert getattr(api, f), f"{f} must not be NULL"


def test_from_py_object_is_an_owning_export():
    api = our_api()
    a = gd.arange(12, dtype="int32").reshape((3, 4)).T
    base = sys.getrefcount(a)
    out = ctypes.c_void_p()
    assert _FROM_PY(api.managed_tensor_from_py_object_no_sync)(a, ctypes.byref(out)) == 0
    m = managed(out.value)
    assert (m.version.major, m.version.minor) == (1, 3)
    t = m.dl_tensor
    assert t.ndim == 2 and (t.shape[0], t.shape[1]) == (4, 3) and (t.strides[0], t.strides[1]) == (1, 4)
    assert t.data == gd_ptr(a) and t.byte_offset == 0
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (0, 32, 1)
    assert sys.getrefcount(a) == base, "the export holds the memory, not the Python object"
    del a
    collect()
    # The export keeps the memory alive after the array is gone: a.T[0, 1] == 4.
    assert ctypes.c_int32.from_address(t.data + 1 * 4 * 4).value == 4
    call_deleter(out.value)


def test_from_py_object_rejects_other_types():
    api = our_api()
    out = ctypes.c_void_p()
    with pytest.raises(TypeError):
        _FROM_PY(api.managed_tensor_from_py_object_no_sync)([1, 2], ctypes.byref(out))


def test_from_py_object_readonly_flag():
    api = our_api()
    r = gd.asarray(b"\x01\x02")
    out = ctypes.c_void_p()
    assert _FROM_PY(api.managed_tensor_from_py_object_no_sync)(r, ctypes.byref(out)) == 0
    assert managed(out.value).flags & 1, "READ_ONLY carried"
    call_deleter(out.value)


def test_to_py_object_steals_and_deletes_once():
    api = our_api()
    buf = float64_buffer([1.0, 2.0, 3.0])
    addr, rec = craft_managed(buf, shape=(3,), strides=(1,))
    out = ctypes.c_void_p()
    assert _TO_PY(api.managed_tensor_to_py_object_no_sync)(addr, ctypes.byref(out)) == 0
    a = ctypes.cast(out, ctypes.py_object).value
    _DecRef(out.value)  # the function returned a new reference; .value took another
    assert isinstance(a, gd.Array)
    assert a.tolist() == [1.0, 2.0, 3.0] and gd_ptr(a) == ctypes.addressof(buf)
    assert rec.deleted == 0
    del a
    collect()
    assert rec.deleted == 1


def test_to_py_object_refusal_deletes_once():
    api = our_api()
    buf = float64_buffer([1.0, 2.0])
    addr, rec = craft_managed(buf, shape=(2,), dtype=(2, 32, 2))  # lanes 2
    out = ctypes.c_void_p()
    with pytest.raises(BufferError):
        _TO_PY(api.managed_tensor_to_py_object_no_sync)(addr, ctypes.byref(out))
    assert rec.deleted == 1, "managed_tensor_to_py_object_no_sync steals the tensor, also on failure"


def test_allocator():
    api = our_api()
    shape = (ctypes.c_int64 * 2)(3, 5)
    proto = DLTensor()
    proto.ndim = 2
    proto.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    proto.dtype.code, proto.dtype.bits, proto.dtype.lanes = 2, 32, 1
    proto.device.device_type, proto.device.device_id = 1, 0
    errors = []
    set_error = _SET_ERROR(lambda ctx, kind, msg: errors.append((kind, msg)))
    out = ctypes.c_void_p()
    assert _ALLOCATOR(api.managed_tensor_allocator)(ctypes.byref(proto), ctypes.byref(out), None, set_error) == 0
    assert errors == []
    t = managed(out.value).dl_tensor
    assert (t.shape[0], t.shape[1]) == (3, 5) and (t.strides[0], t.strides[1]) == (5, 1)
    assert t.data and t.data % 64 == 0
    call_deleter(out.value)
    proto.device.device_type = 10  # ROCm: not reachable
    assert _ALLOCATOR(api.managed_tensor_allocator)(ctypes.byref(proto), ctypes.byref(out), None, set_error) == -1
    assert len(errors) == 1 and errors[0][0] == b"BufferError"


def test_dltensor_view_and_stream():
    api = our_api()
    a = gd.arange(6, dtype="float64")[::-2]
    if api.dltensor_from_py_object_no_sync:
        t = DLTensor()
        assert _DLTENSOR_FROM_PY(api.dltensor_from_py_object_no_sync)(a, ctypes.byref(t)) == 0
        assert t.ndim == 1 and t.strides[0] == -2 and t.data == gd_ptr(a)
    s = ctypes.c_void_p(123)
    assert _STREAM(api.current_work_stream)(1, 0, ctypes.byref(s)) == 0
    assert s.value is None


# ---------------------------------------------------------------- as a consumer of a foreign exchange API


def _foreign_type(major, tensor_addr_box, calls):
    """A producer type whose exchange API hands out crafted tensors."""

    def from_py(obj, out):
        calls.append("from_py")
        addr = tensor_addr_box.pop()
        out[0] = addr
        return 0

    def to_py(tensor, out):  # pragma: no cover - never called by a consumer
        calls.append("to_py")
        return -1

    def stream(dev_type, dev_id, out):
        calls.append("stream")
        out[0] = None
        return 0

    cbs = (_FROM_PY(from_py), _TO_PY(to_py), _STREAM(stream))
    api = ExchangeAPI()
    api.header.version.major, api.header.version.minor = major, 3
    api.managed_tensor_from_py_object_no_sync = ctypes.cast(cbs[0], ctypes.c_void_p).value
    api.managed_tensor_to_py_object_no_sync = ctypes.cast(cbs[1], ctypes.c_void_p).value
    api.current_work_stream = ctypes.cast(cbs[2], ctypes.c_void_p).value
    _KEEP.append((cbs, api))
    cap = _New(ctypes.addressof(api), API_NAME, None)

    class Foreign:
        __dlpack_c_exchange_api__ = cap

        def __init__(self, x):
            self.x = x

        def __dlpack__(self, **kw):
            calls.append("__dlpack__")
            return self.x.__dlpack__(**kw)

        def __dlpack_device__(self):
            return (1, 0)

    return Foreign


_KEEP = []


@requires("numpy")
def test_foreign_api_with_unknown_major_is_not_used(np):
    calls = []
    Foreign = _foreign_type(2, [], calls)
    x = np.arange(4.0)
    a = gd.from_dlpack(Foreign(x))
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0] and gd_ptr(a) == x.ctypes.data
    assert "from_py" not in calls and "__dlpack__" in calls


def test_foreign_api_tensor_deleted_once():
    buf = float64_buffer([7.0, 8.0])
    addr, rec = craft_managed(buf, shape=(2,), strides=(1,))
    calls = []
    Foreign = _foreign_type(1, [addr], calls)
    src = gd.asarray([7.0, 8.0])
    a = gd.from_dlpack(Foreign(src))
    assert a.tolist() == [7.0, 8.0]
    if "from_py" in calls:
        assert gd_ptr(a) == ctypes.addressof(buf)
        del a
        collect()
        assert rec.deleted == 1
    else:
        assert "__dlpack__" in calls


def _refusing(base):
    class Refusing(base):
        def __dlpack__(self, *args, **kw):
            raise BufferError("this subclass exports nothing")

    return Refusing


def _delegating(base, calls):
    class Delegating(base):
        def __dlpack__(self, *args, **kw):
            calls.append("subclass")
            return super().__dlpack__(*args, **kw)

    return Delegating


def test_a_subclass_s_own_dlpack_speaks_for_it_not_its_base_s_api():
    """C9: the API of the class that owns it serves only instances whose
    __dlpack__ is that class's; a subclass that overrides __dlpack__ is asked
    through it, as numpy's from_dlpack does (a refusal is the import's)."""
    calls, box = [], []
    Foreign = _foreign_type(1, box, calls)
    with pytest.raises(BufferError, match="this subclass exports nothing"):
        gd.from_dlpack(_refusing(Foreign)(gd.asarray([1.0])))
    assert "from_py" not in calls
    a = gd.from_dlpack(_delegating(Foreign, calls)(gd.asarray([1.0, 2.0])))
    assert a.tolist() == [1.0, 2.0] and calls == ["subclass", "__dlpack__"]
    del calls[:]

    class Plain(Foreign):  # inherits __dlpack__: the API stays in use
        pass

    buf = float64_buffer([3.0])
    addr, rec = craft_managed(buf, shape=(1,), strides=(1,))
    box.append(addr)
    a = gd.from_dlpack(Plain(gd.asarray([3.0])))
    assert calls == ["from_py"] and gd_ptr(a) == ctypes.addressof(buf)
    del a
    collect()
    assert rec.deleted == 1


@requires("torch")
def test_torch_subclasses_are_asked_through_their_own_dlpack(torch):
    t = torch.arange(4.0)
    with pytest.raises(BufferError, match="this subclass exports nothing"):
        gd.from_dlpack(t.as_subclass(_refusing(torch.Tensor)))
    calls = []
    a = gd.from_dlpack(t.as_subclass(_delegating(torch.Tensor, calls)))
    assert calls == ["subclass"] and a.tolist() == [0.0, 1.0, 2.0, 3.0] and gd_ptr(a) == t.data_ptr()

    class Plain(torch.Tensor):
        pass

    assert gd_ptr(gd.from_dlpack(t.as_subclass(Plain))) == t.data_ptr()


@requires("numpy")
def test_numpy_subclasses_are_asked_through_their_own_dlpack(np):
    x = np.arange(4.0)
    with pytest.raises(BufferError, match="this subclass exports nothing"):
        gd.from_dlpack(x.view(_refusing(np.ndarray)))
    calls = []
    a = gd.from_dlpack(x.view(_delegating(np.ndarray, calls)))
    assert calls == ["subclass"] and gd_ptr(a) == x.ctypes.data
