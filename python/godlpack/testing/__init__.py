"""The DLPack conformance checks of ``python -m godlpack check`` as pytest tests,
for a library's own CI.

Run them against a library::

    pytest --pyargs godlpack.testing.conformance --dlpack-target=mylib

one test per check (PASS, FAIL with the evidence and a reproducer, or a skip
for a check no case could judge). Or use the report in tests of your own::

    from godlpack.testing import dlpack_report

    def test_mylib_conforms():
        report = dlpack_report("mylib", level="must")  # the standard's MUSTs only
        assert report.ok, report.failures()
"""

from __future__ import annotations

from .._check import Report, check

__all__ = ["Report", "dlpack_report"]


def dlpack_report(target: str, roles: tuple[str, ...] = ("producer", "consumer"), device: str | None = None,
                  level: str = "godlpack") -> Report:
    """The conformance report of module target (an importable name) on device
    (None: where the library makes arrays), as ``python -m godlpack check``
    computes it: every call in a child process. level ("must", "should" or
    "godlpack") says which checks ``report.ok`` and ``report.failures()``
    count (``python -m godlpack check --level``)."""
    return check(target, roles=roles, device=device, level=level)

