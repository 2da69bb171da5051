"""dpctl's SYCL runtime for oneAPI devices, made ready on first use.

godlpack's oneAPI backend (backends/oneapi) dlopen()s dpctl's C library,
libDPCTLSyclInterface.so, the first time a oneAPI device is needed, and finds
it already loaded when dpctl was imported. A oneAPI device named in Python
(device="oneapi:0", (14, 0), to_device) therefore imports dpctl first, once.
Without dpctl nothing happens here: the backend's error names what to
install (pip install dpctl or dpnp) and, when dpctl finds no device, the
OCL_ICD_FILENAMES setting that points the OpenCL loader at a runtime.
"""

from __future__ import annotations

_tried = False

KDL_ONEAPI = 14


def ensure() -> None:
    global _tried
    if _tried:
        return
    _tried = True
    try:
        import dpctl  # noqa: F401  (loads libDPCTLSyclInterface.so)
    except Exception:  # ImportError, or a broken SYCL install: the backend says why
        pass
