"""pytest's hook for godlpack.testing (entry point pytest11 "godlpack"): the
options of ``pytest --pyargs godlpack.testing.conformance``. Imports nothing
of godlpack, so that other projects' pytest runs do not start its Go runtime."""

from __future__ import annotations

import os
from typing import Any


def pytest_addoption(parser: Any) -> None:
    g = parser.getgroup("godlpack", "DLPack conformance (godlpack.testing.conformance)")
    g.addoption("--dlpack-target", default=os.environ.get("GODLPACK_CHECK_TARGET"),
                help="the module whose DLPack godlpack.testing.conformance checks (or $GODLPACK_CHECK_TARGET)")
    g.addoption("--dlpack-role", default="both", choices=("producer", "consumer", "both"),
                help="check the target's __dlpack__, its from_dlpack, or both (default)")
    g.addoption("--dlpack-level", default="godlpack", choices=("must", "should", "godlpack"),
                help="the checks that count: must (the standard's MUSTs), should (and its recommendations) or "
                "godlpack (every check, the default); the others are skipped")
    g.addoption("--dlpack-device", default=None,
                help="where the target's arrays are made, e.g. cpu or oneapi:0 (default: where the library makes them)")


def pytest_collection_modifyitems(session: Any, config: Any, items: list[Any]) -> None:
    """A run of godlpack.testing.conformance without a target is one usage
    error (pytest's exit status 4), not an error per check."""
    if config.getoption("--dlpack-target") or not any(
            getattr(item.module, "__name__", "") == "godlpack.testing.conformance" for item in items
            if hasattr(item, "module")):
        return
    import pytest

    raise pytest.UsageError("godlpack.testing.conformance: no library to check; name it with "
                            "--dlpack-target=MODULE (or GODLPACK_CHECK_TARGET=MODULE), e.g. "
                            "pytest --pyargs godlpack.testing.conformance --dlpack-target=numpy")
