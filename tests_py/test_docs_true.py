"""The docs say what the code does (issue 39): every alignment they give
godlpack's memory is core.Alignment, and every exception class the C skin
raises by name is a row of docs/exceptions.md's table."""

import glob
import os
import re

import godlpack as gd
from _helpers import gd_ptr

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))) + [os.path.join(ROOT, "README.md")]
# lines about other libraries' or the checker's own memory, not godlpack's
OTHERS = re.compile(r"\bjax\b|\bJAX\b|\bjnp\b|producer's memory|_aligned")


def _alignment():
    with open(os.path.join(ROOT, "core", "constants.go"), encoding="utf-8") as f:
        return int(re.search(r"^\s*Alignment\s*=\s*(\d+)", f.read(), re.M).group(1))


def test_every_alignment_the_docs_give_is_core_s():
    want = _alignment()
    assert all(gd_ptr(gd.zeros(n)) % want == 0 for n in (1, 3, 1000))
    found, wrong = 0, []
    for path in DOCS:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                for m in re.finditer(r"(\d+)-byte[ -]align", line):
                    if OTHERS.search(line):
                        continue
                    found += 1
                    if int(m.group(1)) != want:
                        wrong.append(f"{os.path.relpath(path, ROOT)}:{n}: {m.group(0)}")
    assert found >= 3, "the docs no longer state the alignment where this test looks"
    assert wrong == [], f"core.Alignment is {want}"


# classes of the sentinel table that a call cannot meet: import's own
NOT_FROM_CALLS = {"ImportError"}


def test_every_class_of_the_sentinel_table_is_a_row_of_the_table():
    """Every class a sentinel maps to (the generated table below the first,
    which is all the skin raises: test_exception_table's
    test_pyext_raises_no_class_of_its_own) is a row of the table users read."""
    with open(os.path.join(ROOT, "docs", "exceptions.md"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("# Exceptions", 1)[1].split("\n## ", 1)[0]
    rows = set(re.findall(r"^\| `(\w+)` \|", section, re.M))
    sentinels = text.split("<!-- sentinels:", 1)[1]
    classes = set(re.findall(r"^\| `Err\w+` \| `(\w+)` \|", sentinels, re.M))
    assert {"TypeError", "OverflowError", "MemoryError", "RuntimeError", "BufferError"} <= classes, \
        "the sentinel table was not read"
    assert classes - NOT_FROM_CALLS <= rows, "classes of core's sentinels missing from docs/exceptions.md's table"


def test_the_readme_names_every_step_ci_adds():
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
        steps = re.search(r"^CI_STEPS := ((?:.*\\\n)*.*)$", f.read(), re.M).group(1).replace("\\\n", " ").split()
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    assert len(steps) >= 8, steps
    steps = [t for s in steps for t in s.split("+")]  # "a+b": two steps made at once
    assert [s for s in steps if f"`{s}`" not in readme] == [], "CI steps README.md's test section does not name"
