"""Environment for the dpnp/dpctl interop tests (issue 4), imported before dpctl.

dpctl/dpnp from PyPI ship the Intel OpenCL CPU runtime (intel-opencl-rt wheel),
but its ICD file holds a conda placeholder path, so dpctl finds no device unless
OCL_ICD_FILENAMES names the library. The Makefile exports it (and
LD_LIBRARY_PATH) for `make test`; this module sets the same default so that
`pytest tests_py` run by hand also finds the SYCL CPU device. It must run before
the first device lookup (importing dpctl first is fine).
"""

from __future__ import annotations

import os
import sys

from _helpers import CapsuleInfo, missing

_LIB = os.path.join(sys.prefix, "lib", "libintelocl.so")
if os.path.exists(_LIB):
    os.environ.setdefault("OCL_ICD_FILENAMES", _LIB)


def values(dtype, n=12):
    """numpy reference values of dtype, not all equal and not all zero."""
    import numpy as np

    x = np.arange(1, n + 1)
    if dtype == "bool":
        return x % 3 == 0
    if dtype.startswith("complex"):
        return (x + 1j * (x % 5)).astype(dtype)
    if dtype.startswith("float"):
        return (x / 4).astype(dtype)
    return x.astype(dtype)


def usm_first(x) -> int:
    """Address of an array's first element on its device: data + byte_offset of its own export."""
    return CapsuleInfo(x.__dlpack__(max_version=(1, 3))).first_element


def sycl_cpu_device():
    """dpctl.SyclDevice("cpu"), or skip (locally) / fail (CI=true) with the exact error."""
    import dpctl

    try:
        return dpctl.SyclDevice("cpu")
    except Exception as e:  # pragma: no cover - depends on the machine
        msg = (f"no SYCL CPU device: {type(e).__name__}: {e} "
               f"(OCL_ICD_FILENAMES={os.environ.get('OCL_ICD_FILENAMES')!r})")
        missing(msg)


class Spy:
    """Forwards __dlpack__ / __dlpack_device__ to obj and records every request
    (its keyword arguments) with the capsule it returned (a CapsuleInfo, read
    before the consumer renames it) or the exception it raised."""

    def __init__(self, obj):
        self.obj = obj
        self.calls = []

    def __dlpack__(self, **kw):
        from _helpers import CapsuleInfo

        try:
            cap = self.obj.__dlpack__(**kw)
        except Exception as e:
            self.calls.append((kw, e))
            raise
        self.calls.append((kw, CapsuleInfo(cap)))
        return cap

    def __dlpack_device__(self):
        return self.obj.__dlpack_device__()

    @property
    def requests(self):
        return [kw for kw, _ in self.calls]

    @property
    def info(self):
        """The CapsuleInfo of the last capsule handed out."""
        from _helpers import CapsuleInfo

        for _, r in reversed(self.calls):
            if isinstance(r, CapsuleInfo):
                return r
        raise AssertionError(f"no capsule was handed out: {self.calls}")


# The dtypes dpnp arrays hold on a SYCL device (the dtype axis of the dpnp tests).
DPNP_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float16", "float32", "float64", "complex64", "complex128"]
