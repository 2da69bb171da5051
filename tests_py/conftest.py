"""pytest configuration for godlpack.

``@requires("numpy")`` / ``@requires("torch")`` (from _helpers) and the ``np`` /
``torch`` fixtures skip a test when the library is missing, except under CI
(environment variable CI == "true"), where a missing interop library is a
failure, never a skip.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from _helpers import IN_CI, need  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "requires(*libs): needs these importable libraries (skip locally, fail in CI)")


def pytest_runtest_setup(item):
    for mark in item.iter_markers(name="requires"):
        for lib in mark.args:
            need(lib)


def pytest_report_header(config):
    lines = [f"CI={os.environ.get('CI')!r} (missing numpy/torch {'FAIL' if IN_CI else 'skip'})"]
    for lib in ("godlpack", "numpy", "torch"):
        try:
            mod = __import__(lib)
            lines.append(f"{lib} {getattr(mod, '__version__', '?')} from {os.path.dirname(mod.__file__)}")
        except ImportError as e:
            lines.append(f"{lib}: not importable ({e})")
    return lines


@pytest.fixture
def np():
    return need("numpy")


@pytest.fixture
def torch():
    return need("torch")


@pytest.fixture
def gd():
    import godlpack

    return godlpack
