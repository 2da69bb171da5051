"""What the Go compiler proves about the functions a module registers: the
parameters each keeps no pointer to beyond its call.

gofunc lends a function's array arguments from the call's frame, the same
Array objects from call to call, when every array parameter is proved so
(``gofunc.SetNotKept``); any other function borrows a new Array per call,
whose kept pointer reads ErrReleased for good. The proof is the compiler's
escape analysis: ``go list -export -gcflags=-m`` compiles the packages and
prints ``a does not escape`` at the position of each parameter it proved,
``leaking param: a`` at each it did not. This module places those messages
in the signatures of the packages' top-level functions. What it cannot place
(a method, a function literal, a signature with a function-typed parameter,
a parameter without a name) gets no fact, and its function borrows: a
missing fact costs speed, never safety.

Standard library only: the build loads it by path (_gobuild._sibling).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping, Sequence

# a top-level function's name and parameter list, up to the first ')'
_SIGNATURE = re.compile(rb"^func\s+([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*\([^)]*\)", re.M)
_MESSAGE = re.compile(r"^(?P<file>[^\s:][^:\n]*\.go):(?P<line>\d+):(?P<col>\d+): "
                      r"(?:(?P<ok>[A-Za-z_]\w*) does not escape|leaking param(?: content)?: (?P<leak>[A-Za-z_]\w*)\b)",
                      re.M)


def list_command(build_argv: Sequence[str], imports: Sequence[str]) -> list[str]:
    """The ``go list -export`` that compiles the packages imports as the
    ``go build`` build_argv compiles them (its tags, build mode and path
    trimming), with the escape analysis printed for those packages only; it
    links nothing, and the packages they import come from the build cache."""
    argv = [build_argv[0], "list", "-export"]
    it = iter(build_argv[2:])
    for a in it:
        if a == "-tags":
            argv += [a, next(it, "")]
        elif a.startswith("-buildmode=") or a == "-trimpath":
            argv.append(a)
    argv += [f"-gcflags={ip}=-m" for ip in imports]
    return argv + ["-f", "{{.ImportPath}}", *imports]


def _spans(path: str) -> list[tuple[tuple[int, int], tuple[int, int], str]]:
    """(start, end, name) of the signature of each top-level function in the
    Go file path, as (line, byte column) pairs counted from 1."""
    try:
        with open(path, "rb") as f:
            src = f.read()
    except OSError:
        return []

    def at(off: int) -> tuple[int, int]:
        line = src.count(b"\n", 0, off) + 1
        return line, off - (src.rfind(b"\n", 0, off) + 1) + 1

    return [(at(m.start()), at(m.end()), m.group(1).decode()) for m in _SIGNATURE.finditer(src)]


def not_kept(output: str, dirs: Mapping[str, str], workdir: str) -> dict[str, list[str]]:
    """Go function name ("import/path.Func") -> the parameters the escape
    analysis in output proved it keeps no pointer to. dirs maps the
    compiled packages' import paths to their source directories; a file
    named by a path relative to workdir, or by import path/file.go (a
    -trimpath build), is read from there."""
    by_dir = {os.path.realpath(d): ip for ip, d in dirs.items()}
    files: dict[str, tuple[str, list[tuple[tuple[int, int], tuple[int, int], str]]]] = {}
    proved: dict[str, set[str]] = {}
    leaked: dict[str, set[str]] = {}
    for m in _MESSAGE.finditer(output):
        name = m.group("file")
        ip, base = name.rsplit("/", 1) if "/" in name else ("", name)
        path = os.path.join(dirs[ip], base) if ip in dirs else os.path.join(workdir, name)
        path = os.path.realpath(path)
        if path not in files:
            files[path] = (by_dir.get(os.path.dirname(path), ""), _spans(path))
        pkg, spans = files[path]
        if not pkg:
            continue
        pos = (int(m.group("line")), int(m.group("col")))
        for start, end, fn in spans:
            if start <= pos < end:
                facts = proved if m.group("ok") else leaked
                facts.setdefault(f"{pkg}.{fn}", set()).add(m.group("ok") or m.group("leak"))
                break
    out = {fn: sorted(ps - leaked.get(fn, set())) for fn, ps in proved.items()}
    return {fn: ps for fn, ps in sorted(out.items()) if ps}


def analyse(build_argv: Sequence[str], env: Mapping[str, str], workdir: str, imports: Sequence[str],
            dirs: Mapping[str, str]) -> dict[str, list[str]]:
    """not_kept for the packages imports that have sources in dirs, from a
    ``go list -export`` run in workdir. A failed run proves nothing: the
    build that follows reports the compiler's errors itself."""
    local = [ip for ip in imports if ip in dirs]
    if not local:
        return {}
    p = subprocess.run(list_command(build_argv, local), cwd=workdir, env=dict(env), capture_output=True, text=True)
    if p.returncode != 0:
        return {}
    return not_kept(p.stdout + p.stderr, {ip: dirs[ip] for ip in local}, workdir)
