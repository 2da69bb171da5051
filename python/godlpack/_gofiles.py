"""The files of a kit's Go module that a build reads: what a kit wheel ships,
what its plugin's fingerprint hashes and what keys a composed module in the
cache. One list, so that a file the build reads is never left out of one of
them (an edited ``.S`` file, or a file a ``//go:embed`` line names, must
rebuild)."""

from __future__ import annotations

import glob
import os
import re

# sources cgo and the Go toolchain compile or link in a package directory
SOURCES = (".go", ".c", ".h", ".s", ".S", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx", ".syso")
SKIP_DIRS = ("build", "dist", "__pycache__", "node_modules")

_EMBED = re.compile(r"^//go:embed\s+(.+)$", re.M)
_PATTERN = re.compile(r'"((?:[^"\\]|\\.)*)"|`([^`]*)`|(\S+)')


def _subdirs(base: str, dirs: list[str]) -> list[str]:
    """The directories a walk enters: not hidden ones (nor ``_`` ones, which
    Go leaves out of ``./...``, but ``_go``, where an installed kit keeps
    its sources), not build outputs, not another Go module."""
    return sorted(d for d in dirs if (not d.startswith((".", "_")) or d == "_go") and d not in SKIP_DIRS
                  and not d.endswith(".egg-info") and not os.path.exists(os.path.join(base, d, "go.mod")))


def _embedded(pkg: str, text: str) -> set[str]:
    """The files under pkg that the //go:embed lines of one Go file name (a
    directory counts with everything in it, as Go embeds it)."""
    out: set[str] = set()
    for line in _EMBED.findall(text):
        for quoted, raw, bare in _PATTERN.findall(line):
            pattern = (quoted.encode().decode("unicode_escape") if quoted else raw or bare).removeprefix("all:")
            for hit in glob.glob(os.path.join(glob.escape(pkg), pattern)):
                if os.path.isdir(hit):
                    for base, _, files in os.walk(hit):
                        out.update(os.path.join(base, f) for f in files)
                elif os.path.isfile(hit):
                    out.add(hit)
    return out


def module_files(root: str, tests: bool = False) -> list[str]:
    """The paths (relative to root, sorted) of the files in the Go module at
    root that a build of its packages reads: go.mod, go.sum, the sources of
    SOURCES (``_test.go`` files only if tests) and the files that
    ``//go:embed`` lines name."""
    found: set[str] = set()
    for base, dirs, files in os.walk(root):
        dirs[:] = _subdirs(base, dirs)
        for name in files:
            path = os.path.join(base, name)
            if name in ("go.mod", "go.sum") and base == root:
                found.add(path)
            elif name.endswith(SOURCES) and (tests or not name.endswith("_test.go")):
                found.add(path)
                if name.endswith(".go"):
                    with open(path, encoding="utf-8", errors="replace") as f:
                        text = f.read()
                    if "//go:embed" in text:
                        found |= _embedded(base, text)
    return sorted(os.path.relpath(p, root) for p in found)
