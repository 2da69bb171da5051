"""docs/rules.md defines every rule ID the code cites, and the rule tables of
docs/architecture.md name files and symbols that exist and own their rule."""

import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = os.path.join(ROOT, "docs", "rules.md")
ARCH = os.path.join(ROOT, "docs", "architecture.md")
CODE_DIRS = ["core", "pyext", "python/godlpack", "gofunc", "backends", "docs", "tests_go", "tests_py"]
CODE_EXT = (".go", ".c", ".h", ".py", ".pyi", ".md")
RULE_ID = re.compile(r"\b([SPC][0-9]{1,2})\b")


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def defined_ids():
    return set(re.findall(r"^- \*\*([SPC][0-9]{1,2})\*\*", _read(RULES), re.M))


def cited_ids():
    cited = {}
    for d in CODE_DIRS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, d)):
            for name in files:
                if not name.endswith(CODE_EXT):
                    continue
                path = os.path.join(dirpath, name)
                for rid in RULE_ID.findall(_read(path)):
                    cited.setdefault(rid, os.path.relpath(path, ROOT))
    return cited


def test_rules_page_defines_the_protocol_rules_once():
    text = _read(RULES)
    ids = re.findall(r"^- \*\*([SPC][0-9]{1,2})\*\*", text, re.M)
    assert len(ids) == len(set(ids)), "a rule ID is defined twice"
    for prefix, n in (("S", 8), ("P", 8), ("C", 9)):
        assert {f"{prefix}{i}" for i in range(1, n + 1)} <= set(ids)


def test_every_cited_rule_id_is_defined():
    missing = {rid: where for rid, where in cited_ids().items() if rid not in defined_ids()}
    assert not missing, f"rule IDs cited but not defined in docs/rules.md: {missing}"


def rule_rows():
    """(rule, cell) for each row of the tables under "Where each rule is decided"
    and the array-rule table after it."""
    text = _read(ARCH)
    section = text.split("## Where each rule is decided", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("rule", "") or set(cells[0]) <= {"-"}:
            continue
        rows.append((cells[0], cells[2]))
    return rows


PATH = re.compile(r"`([\w./-]+\.(?:go|c|h|py))`")
SYMBOL = re.compile(r"`([A-Za-z_][\w.]*)`")


def test_architecture_names_the_rule_tables():
    rules = {r for r, _ in rule_rows()}
    assert defined_ids() <= rules, f"rules without a row: {defined_ids() - rules}"


@pytest.mark.parametrize("rule,cell", rule_rows(), ids=[r for r, _ in rule_rows()])
def test_architecture_row_names_files_and_symbols_that_exist(rule, cell):
    paths = PATH.findall(cell)
    assert paths, f"row {rule} names no file"
    texts = {}
    for p in paths:
        full = os.path.join(ROOT, p)
        assert os.path.isfile(full), f"row {rule}: {p} does not exist"
        texts[p] = _read(full)
    for sym in SYMBOL.findall(cell):
        if sym in paths or "/" in sym:
            continue
        if sym.startswith("GD_"):  # the flags and codes C and Go share
            assert re.search(rf"\b{sym}\b", _read(os.path.join(ROOT, "core", "godlpack.h"))), sym
            continue
        name = sym.split(".")[-1]
        pkg = sym.split(".")[0] if "." in sym else None
        found = any(re.search(rf"\b{re.escape(name)}\b", t) for t in texts.values())
        if not found and pkg is not None and os.path.isdir(os.path.join(ROOT, pkg)):
            found = any(re.search(rf"\b{re.escape(name)}\b", _read(os.path.join(ROOT, pkg, f)))
                        for f in os.listdir(os.path.join(ROOT, pkg)) if f.endswith(CODE_EXT))
        assert found, f"row {rule}: `{sym}` is in none of {paths}"
    if RULE_ID.fullmatch(rule):
        # The file that decides a protocol rule says so where it does.
        assert any(re.search(rf"\b{rule}\b", t) for t in texts.values()), \
            f"row {rule}: none of {paths} cites {rule}"


def test_readme_stays_the_front_door():
    """README.md is at most 12 KiB: what it is, install, the two commands, the
    examples, the API and the limits; the details live in docs/."""
    size = os.path.getsize(os.path.join(ROOT, "README.md"))
    assert size <= 12 * 1024, f"README.md is {size} bytes; move details to docs/"
