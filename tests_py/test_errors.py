"""Bad inputs: each raises the right exception class (DESIGN.md rule 8,
docs/rules.md) with a message that names the entry point and the way out."""

import pytest

import godlpack as gd
from _helpers import CapsuleInfo, craft_capsule, float64_buffer, optional, requires

np_mod = optional("numpy")


def _ro():
    return gd.asarray(b"\x00\x01\x02\x03")


def _used_capsule():
    a = gd.zeros((2,))
    cap = a.__dlpack__(max_version=(1, 0))
    gd.from_dlpack(cap)
    return cap


def _used_legacy_capsule():
    cap = gd.zeros((2,)).__dlpack__()
    gd.from_dlpack(cap)
    return cap


_BUF = float64_buffer([0.0] * 4)


# Crafted capsules have a Python (ctypes) destructor, which must not run while the
# refusal's exception is pending: keep them referenced until the test is over.
_KEEP = []


@pytest.fixture(autouse=True)
def _drop_kept_capsules():
    yield
    _KEEP.clear()


def _lanes_capsule():
    _KEEP.append(craft_capsule(_BUF, shape=(2,), dtype=(2, 32, 2))[0])
    return _KEEP[-1]


def _major2_capsule():
    _KEEP.append(craft_capsule(_BUF, shape=(2,), version=(2, 0))[0])
    return _KEEP[-1]


# (id, call, exception classes, substrings that must all appear in the message)
CASES = [
    # producer: __dlpack__
    ("max_version-int", lambda: gd.zeros((2,)).__dlpack__(max_version=1), TypeError, ["__dlpack__", "max_version", "pass"]),
    ("max_version-1tuple", lambda: gd.zeros((2,)).__dlpack__(max_version=(1,)), TypeError, ["__dlpack__", "max_version"]),
    ("stream-cpu", lambda: gd.zeros((2,)).__dlpack__(stream=1), (BufferError, ValueError), ["__dlpack__", "stream", "pass"]),
    ("stream-type", lambda: gd.zeros((2,)).__dlpack__(stream="s"), TypeError, ["__dlpack__", "stream"]),
    ("copy-value", lambda: gd.zeros((2,)).__dlpack__(copy="yes"), (ValueError, TypeError), ["__dlpack__", "copy", "None"]),
    ("dl_device-unreachable", lambda: gd.zeros((2,)).__dlpack__(max_version=(1, 0), dl_device=(10, 0)), BufferError, ["__dlpack__", "dl_device", "pass"]),
    ("dl_device-cuda-copy-false", lambda: gd.zeros((2,)).__dlpack__(max_version=(1, 0), dl_device=(2, 0), copy=False), BufferError, ["__dlpack__", "dl_device", "pass"]),
    ("dl_device-1tuple", lambda: gd.zeros((2,)).__dlpack__(dl_device=(1,)), TypeError, ["__dlpack__", "dl_device"]),
    ("dl_device-method", lambda: gd.zeros((2,)).__dlpack__(dl_device=gd.zeros((2,)).__dlpack_device__), TypeError, ["dl_device"]),
    ("readonly-legacy", lambda: _ro().__dlpack__(), BufferError, ["__dlpack__", "max_version", "pass"]),
    # consumer: from_dlpack
    ("not-dlpack-list", lambda: gd.from_dlpack([1, 2]), (TypeError, AttributeError), ["from_dlpack", "__dlpack__"]),
    ("not-dlpack-int", lambda: gd.from_dlpack(5), (TypeError, AttributeError), ["from_dlpack", "__dlpack__"]),
    ("consumed-versioned", lambda: gd.from_dlpack(_used_capsule()), (BufferError, ValueError), ["from_dlpack", "consumed"]),
    ("consumed-legacy", lambda: gd.from_dlpack(_used_legacy_capsule()), (BufferError, ValueError), ["from_dlpack", "consumed"]),
    ("lanes", lambda: gd.from_dlpack(_lanes_capsule()), BufferError, ["from_dlpack", "lanes"]),
    ("major-version", lambda: gd.from_dlpack(_major2_capsule()), BufferError, ["from_dlpack", "version"]),
    ("device-value", lambda: gd.from_dlpack(gd.zeros((2,)), device="gpu"), ValueError, ["from_dlpack", "device"]),
    ("device-unreachable", lambda: gd.from_dlpack(gd.zeros((2,)), device=(10, 0)), BufferError, ["from_dlpack():", "device=rocm:0", "pass"]),
    ("copy-value-consumer", lambda: gd.from_dlpack(gd.zeros((2,)), copy="yes"), (ValueError, TypeError), ["from_dlpack", "copy"]),
    # arrays
    ("readonly-setitem", lambda: _ro().__setitem__(0, 1), ValueError, ["read-only", "copy"]),
    ("readonly-fill", lambda: _ro().fill(1), ValueError, ["read-only"]),
    ("index-range", lambda: gd.zeros((2,))[5], IndexError, ["5"]),
    ("dtype-name", lambda: gd.zeros((2,), dtype="float128"), (TypeError, ValueError), ["float128"]),
    ("device-constructor", lambda: gd.zeros((2,), device="cuda:0"), (BufferError, ValueError), ["cpu"]),
]


@pytest.mark.parametrize("call,exc,words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_error_class_and_message(call, exc, words):
    with pytest.raises(exc) as ei:
        call()
    msg = str(ei.value)
    missing = [w for w in words if w not in msg]
    assert not missing, f"message {msg!r} lacks {missing}"


@requires("numpy")
@pytest.mark.parametrize("device", ["gpu", "cuda:x"])
def test_numpy_device_value_message(np, device):
    with pytest.raises(ValueError) as ei:
        gd.from_dlpack(np.zeros(2), device=device)
    assert "device" in str(ei.value)


@requires("numpy")
def test_numpy_copy_false_needed_copy(np):
    # numpy cannot reach dl_device=(2, 0); with copy=False the refusal is a BufferError.
    with pytest.raises(BufferError):
        gd.from_dlpack(np.zeros(2), device="cuda:0", copy=False)


# Each odd request has one answer: a capsule of the named kind, or the
# exception class the rules give (P1, P3, P5), and the array is untouched.
@pytest.mark.parametrize("kw,want", [
    (dict(max_version=()), TypeError),
    (dict(max_version=(1, 2, 3)), TypeError),
    (dict(max_version=(-1, 0)), "dltensor"),
    (dict(max_version=(2**70, 0)), "dltensor_versioned"),
    (dict(dl_device=(1, 2**40)), BufferError),
    (dict(dl_device=(2**40, 0)), BufferError),
    (dict(stream=2**70), BufferError),
    (dict(stream=-2), BufferError),
    (dict(copy=None, max_version=None, dl_device=None), "dltensor"),
])
def test_odd_requests_have_one_answer(kw, want):
    a = gd.zeros((3,))
    if isinstance(want, str):
        assert CapsuleInfo(a.__dlpack__(**kw)).name == want
    else:
        with pytest.raises(want, match=r"^__dlpack__\(\): "):
            a.__dlpack__(**kw)
    assert a.tolist() == [0.0, 0.0, 0.0]
