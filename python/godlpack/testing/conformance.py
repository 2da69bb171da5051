"""One pytest test per DLPack conformance check of the module named by
``--dlpack-target`` (see godlpack.testing)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .. import _native
from .._check import PROCESS_CHECKS, ROLES, Report, check, failure_text

CHECK_IDS = [c["id"] for c in json.loads(_native._judge_export("", None)) + json.loads(_native._judge_import(""))]
CHECK_IDS += [c["id"] for c in PROCESS_CHECKS]


@pytest.fixture(scope="module")
def dlpack_report(request: Any) -> Report:
    target = request.config.getoption("--dlpack-target", default=None)
    if not target:
        pytest.fail("godlpack.testing.conformance: name the library with --dlpack-target=MODULE "
                    "(or GODLPACK_CHECK_TARGET=MODULE)")
    role = request.config.getoption("--dlpack-role", default="both")
    device = request.config.getoption("--dlpack-device", default=None)
    level = request.config.getoption("--dlpack-level", default="godlpack")
    return check(target, roles=ROLES if role == "both" else (role,), device=device, level=level)


@pytest.mark.parametrize("check_id", CHECK_IDS)
def test_dlpack(dlpack_report: Report, check_id: str) -> None:
    c = next((c for c in dlpack_report.checks if c["id"] == check_id), None)
    if c is None or c["result"] == "N/A":
        pytest.skip(f"{check_id}: no case of {dlpack_report.target} could be judged")
    if not dlpack_report.gated(c):
        pytest.skip(f"{check_id} is at level {c['level']}, not counted at --dlpack-level={dlpack_report.level}")
    assert c["result"] == "PASS", failure_text(c)
