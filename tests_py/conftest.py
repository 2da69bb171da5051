"""pytest configuration for godlpack.

``@requires("numpy")`` / ``@requires("torch")`` (from _helpers) and the ``np`` /
``torch`` fixtures skip a test when the library is missing, except under CI
(environment variable CI == "true"), where a missing interop library is a
failure, never a skip. The suite uses those (and _helpers.need / missing),
never pytest.importorskip; a stray importorskip that fires under CI, in a test
or at module level, is turned into a failure here all the same.
"""

import os
import re
import signal
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from _helpers import DECLARED_LIBS, IN_CI, declared_absent, need, need_probes


def pytest_configure(config):
    # A shell's background job starts with SIGINT ignored, and a child process
    # inherits that: the tests that send Ctrl-C to a child would hang. A
    # handled signal is reset to the default across exec.
    if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, None):
        signal.signal(signal.SIGINT, signal.default_int_handler)
    config.addinivalue_line("markers", "requires(*libs): needs these importable libraries (skip locally, fail in CI)")
    config.addinivalue_line("markers", "probes: needs the test probes of a GODLPACK_PROBES=1 build (_helpers.need_probes)")


# How pytest.importorskip words its skip.
_IMPORTORSKIP = "could not import "


def _importorskip_reason(longrepr):
    """The message of an importorskip skip, from a skipped report's longrepr
    tuple (path, line, "Skipped: <message>"), or None."""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        msg = str(longrepr[2]).removeprefix("Skipped: ")
        if msg.startswith(_IMPORTORSKIP):
            return msg
    return None


def _fail_importorskip(report):
    msg = _importorskip_reason(report.longrepr) if IN_CI and report.skipped else None
    lib = re.match(r"could not import '([^']+)'", msg) if msg is not None else None
    if lib is not None and declared_absent(lib.group(1)):
        msg = None  # a library this environment does not promise (GODLPACK_TEST_LIBS)
    if msg is not None:
        report.outcome = "failed"
        report.longrepr = (f"{msg}; CI=true makes a missing library a failure: install it "
                           "(and use _helpers.requires or need, not importorskip)")
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    return _fail_importorskip((yield))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    return _fail_importorskip((yield))


def pytest_runtest_setup(item):
    if item.get_closest_marker("probes") is not None:
        need_probes()
    for mark in item.iter_markers(name="requires"):
        for lib in mark.args:
            need(lib)


def pytest_report_header(config):
    lines = [f"CI={os.environ.get('CI')!r} (missing numpy/torch {'FAIL' if IN_CI else 'skip'})"]
    if DECLARED_LIBS is not None:
        lines.append(f"GODLPACK_TEST_LIBS: this environment promises only {', '.join(sorted(DECLARED_LIBS))}; "
                     "tests needing other libraries skip")
    expect = os.environ.get("GODLPACK_EXPECT_INSTALLED")
    if expect:  # make test-wheel: the suite must run against the installed wheel
        import godlpack

        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        if os.path.abspath(godlpack.__file__).startswith(os.path.join(here, "python") + os.sep):
            raise pytest.UsageError(f"GODLPACK_EXPECT_INSTALLED is set but godlpack comes from the checkout "
                                    f"({godlpack.__file__}); unset PYTHONPATH")
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


@pytest.fixture(scope="module")
def dev():
    """The SYCL CPU device of the dpnp/oneAPI tests (_dpenv.sycl_cpu_device)."""
    from _dpenv import sycl_cpu_device

    return sycl_cpu_device()
