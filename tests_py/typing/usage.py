"""Type-checked, never run: every README example and the public API as users
write them. `make typecheck` runs mypy --strict and pyright over this file;
code that is correct here must check clean (issue 16)."""

from __future__ import annotations

import copy
import operator
import pickle
import weakref

import numpy as np
import torch

import godlpack as gd

# ---- README: numpy -> godlpack -> torch without a copy
x = np.arange(6, dtype=np.float32).reshape(2, 3)
a = gd.from_dlpack(x)
t = torch.from_dlpack(a.T)
t[2, 1] = 42.0
print(x[1, 2], a[1, 2])
print(t.stride(), a.T.strides)
print(a.sum())
y = np.from_dlpack(a[:, ::-1])
r = np.arange(3.0)
r.flags.writeable = False
b = gd.from_dlpack(r)
print(b.readonly)


# ---- the value types: one definition each
def want_dtype(d: gd.DType) -> str:
    return d.name


def want_device(d: gd.Device) -> int:
    return d.id


k: gd.DLDeviceType = a.device.type
assert k == gd.DLDeviceType.kDLCPU
name: str = want_dtype(a.dtype)
dev_id: int = want_device(a.device)
c = gd.from_dlpack(a, device=gd.Device("cpu"))
c2 = gd.from_dlpack(a, device="cpu", copy=True)
c3 = gd.from_dlpack(a, device=(1, 0))
dt: gd.DType = gd.float32
same: bool = gd.float32 == "float32"
ver: tuple[int, int] = gd.DLPACK_VERSION

# ---- constructors and dtype= forms
z = gd.zeros((2, 3), dtype="float32")
o = gd.ones(4, dtype=gd.int8)
e = gd.empty([2, 2], dtype=np.float64)
f = gd.full((2,), 1.5, dtype=torch.float32)
ar = gd.arange(0, 10, 2, dtype="int32")
l1 = gd.asarray([[1, 2], [3, 4]], dtype="float64")
l2 = gd.asarray(b"abc")
l3 = gd.asarray(x, copy=True)

# ---- scalar indexing checks as a number
v: float = float(a[1, 2])
i: int = int(o[0])
s = a[0]
row = a[0, :]
sub = a[..., 1:]
a[0, 0] = 3.0
n: int = len(a)
shape: tuple[int, ...] = a.shape
strides: tuple[int, ...] = a.strides
ptr: int = a.data_ptr
nbytes: int = a.nbytes

# ---- views, conversions, reductions, comparisons
tv = a.T
rs = a.reshape(3, 2)
rs2 = a.reshape((3, 2))
tr = a.transpose(1, 0)
cp = a.copy()
h = a.astype("float16")
h2 = a.astype(np.float32, copy=False)
total = a.sum()
col = a.sum(axis=0, keepdims=True)
mx = a.max(axis=(0, 1))
mean = a.mean(dtype="float64")
anyv = (a > 1).any()
eq: gd.Array = a == a.copy()
lt: gd.Array = a < 2.5
npsum = np.sum(a)
lst = a.tolist()
a.fill(0.0)
text: str = repr(a) + str(a) + format(gd.asarray(3.14159), ".2f")

# ---- the Python protocols
flag: bool = bool(gd.asarray([0]))
cx: complex = complex(gd.asarray(1j))
idx: int = operator.index(gd.asarray(3))
pk = pickle.loads(pickle.dumps(a, protocol=5))
dc = copy.deepcopy(a)
wr = weakref.ref(a)
mv = memoryview(a)
rows = [row for row in a]
has: bool = 2.0 in a
size: int = a.__sizeof__()
eql: gd.Array = a == [0.0, 1.0, 2.0]

# ---- numpy's array protocols
na = np.asarray(a)
npmean = np.mean(a)
ndt = np.dtype(gd.float32)

# ---- DLPack, both directions
cap = a.__dlpack__(max_version=(1, 3), dl_device=(1, 0), copy=False)
devt, devid = a.__dlpack_device__()
back = gd.from_dlpack(cap)
nt = np.from_dlpack(a)

# ---- devices and the extension kit's Python side
on_host: gd.Array = a.to_device("cpu")
shared: bool = gd.may_share_memory(a, a.T)
zd = gd.zeros(3, device=gd.Device("cpu"))
