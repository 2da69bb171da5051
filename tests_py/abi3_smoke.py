"""abi3 smoke test: run by `make abi3-smoke` under every CPython 3.11+ found.

Uses only the standard library, so that one built godlpack/_native.abi3.so can
be exercised by interpreters that have neither numpy nor torch. Exits non-zero
with a message on the first failure.
"""
import os
import sys

import godlpack as gd

a = gd.arange(12, dtype="float64").reshape((3, 4))
assert a.shape == (3, 4) and a.strides == (4, 1), (a.shape, a.strides)
assert a.T.strides == (1, 4)
assert a[1, ::-1].tolist() == [7.0, 6.0, 5.0, 4.0]
assert a.sum() == 66.0

# Our own round trip through both capsule kinds: zero-copy, seen by a write.
for mv in (None, (1, 3)):
    b = gd.from_dlpack(a.__dlpack__(max_version=mv))
    b[0, 0] = 100.0 + (mv is None)
    assert a[0, 0] == b[0, 0], mv

cap = a.__dlpack__(max_version=(1, 3))
gd.from_dlpack(cap)
try:
    gd.from_dlpack(cap)
except BufferError:
    pass
else:
    raise AssertionError("a consumed capsule was accepted twice")


# A producer without the C exchange API: godlpack calls its __dlpack__ with
# keywords, through PyObject_VectorcallMethod found at load time, or with
# GODLPACK_NO_VECTORCALL_METHOD=1 through getattr + call, the limited API's
# own path (pyext/callmethod.c). make abi3-smoke runs both.
class Producer:
    def __init__(self, x):
        self.x, self.seen = x, []

    def __dlpack__(self, **kw):
        self.seen.append(kw)
        return self.x.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()


from godlpack import _native  # noqa: E402

fallback = os.environ.get("GODLPACK_NO_VECTORCALL_METHOD") is not None
assert _native._vectorcall_method() == (not fallback), _native._vectorcall_method()
p = Producer(a)
for _ in range(3):  # the second and third calls reuse the fallback's keywords dict
    assert gd.from_dlpack(p)[2, 3] == a[2, 3]
assert gd.from_dlpack(p, copy=True)[2, 3] == a[2, 3]
assert p.seen == [{"max_version": (1, 3)}] * 3 + [{"max_version": (1, 3), "copy": True}], p.seen

m = memoryview(a)
assert m.format == "d" and m.shape == (3, 4) and m.strides == (32, 8)
print(f"abi3 smoke ok: Python {sys.version.split()[0]}, {'getattr + call' if fallback else 'vectorcall'}, "
      f"{gd.__file__}")
