"""The CycloneDX SBOM of godlpack's wheel (PEP 770, issue 40).

The wheel's extension (godlpack/_native.abi3.so) links, besides godlpack's
own Go and C code, the Go runtime and standard library, and, built with
``zig cc`` (``make wheel``), the pieces zig links into every shared object:
its compiler-rt and, for a glibc target, glibc's libc_nonshared.a and the
stub libraries of the glibc version targeted. The SBOM names each, with
its licence, as ``<name>-<version>.dist-info/sboms/godlpack.cdx.json``.

setup.py writes it while the wheel is built (its bdist_wheel calls
``write_sbom`` with the .dist-info folder, so RECORD lists it like any other
file); ``python tools/sbom.py --check WHEEL`` (Makefile, check_wheel)
fails a wheel whose SBOM is missing, not in RECORD with its hash, invalid
under CycloneDX's JSON schema (cyclonedx-python-lib, requirements-build.txt)
or not naming the Go version and every Go module ``go version -m`` reads
from the wheel's .so, or the Go toolchain of go.mod's ``toolchain`` line.

Deterministic: the same inputs give the same bytes (no time but
SOURCE_DATE_EPOCH's, a serial number derived from the content, keys sorted).
Standard library only but for the validation of ``--check``.
"""

from __future__ import annotations

import argparse
import base64
import csv
import datetime
import hashlib
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import uuid
import zipfile
from collections.abc import Sequence
from typing import Any

SBOM_NAME = "godlpack.cdx.json"
SPEC_VERSION = "1.6"
SO_NAME = "godlpack/_native.abi3.so"
GODLPACK_MODULE = "github.com/godlpack/godlpack"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The component names --check (and tests_py/test_packaging.py) look for.
GO_STDLIB = "stdlib"
ZIG_COMPILER_RT = "compiler-rt"
GLIBC_NONSHARED = "libc_nonshared"
GLIBC = "glibc"

Json = dict[str, Any]


class SbomError(Exception):
    """What makes an SBOM impossible to write or a wheel's SBOM wrong."""


# ---- reading the build ---------------------------------------------------------


def go_version_m(go: str, so: str) -> tuple[str, list[tuple[str, str, str]]]:
    """(Go version, [(kind, module path, version)]) of the Go binary so, from
    ``go version -m``: kind is "mod" (the main module) or "dep"; a replaced
    module counts with its replacement's version."""
    p = subprocess.run([go, "version", "-m", so], capture_output=True, text=True,
                       env=dict(os.environ, GOTOOLCHAIN="local"))
    if p.returncode != 0:
        raise SbomError(f"`{go} version -m {so}` failed: {(p.stderr or p.stdout).strip()}")
    lines = p.stdout.splitlines()
    m = re.match(r".*?: (go\S+)$", lines[0]) if lines else None
    if m is None:
        raise SbomError(f"`{go} version -m {so}` printed no Go version: {p.stdout!r}")
    modules: list[tuple[str, str, str]] = []
    for line in lines[1:]:
        f = line.strip().split("\t")
        if f[0] in ("mod", "dep") and len(f) >= 3:
            modules.append((f[0], f[1], f[2]))
        elif f[0] == "=>" and len(f) >= 3 and modules:
            kind, path, _ = modules[-1]
            modules[-1] = (kind, path, f[2])
    return m.group(1), modules


def zig_target(cc: str) -> tuple[list[str], str] | None:
    """(the zig command, its -target) when CC is ``zig cc -target T`` (or
    ``python -m ziglang cc ...``), else None."""
    argv = shlex.split(cc)
    if "cc" not in argv:
        return None
    i = argv.index("cc")
    zig = argv[:i]
    if not zig or not (os.path.basename(zig[-1]).startswith("zig") or zig[-1] == "ziglang"):
        return None
    rest = argv[i + 1:]
    target = next((rest[k + 1] for k, a in enumerate(rest[:-1]) if a == "-target"), "")
    target = target or next((a.split("=", 1)[1] for a in rest if a.startswith("--target=")), "")
    return zig, target


def zig_version(zig: Sequence[str]) -> str:
    p = subprocess.run([*zig, "version"], capture_output=True, text=True)
    if p.returncode != 0 or not p.stdout.strip():
        raise SbomError(f"`{shlex.join([*zig, 'version'])}` failed: {p.stderr.strip()}")
    return p.stdout.strip()


def toolchain_of_go_mod(root: str = ROOT) -> str | None:
    """go.mod's ``toolchain`` line (e.g. go1.26.8), or None."""
    try:
        with open(os.path.join(root, "go.mod"), encoding="utf-8") as f:
            m = re.search(r"^toolchain\s+(\S+)", f.read(), re.M)
    except OSError:
        return None
    return m.group(1) if m else None


# ---- the document --------------------------------------------------------------


def _licence(expr: str) -> list[Json]:
    if re.fullmatch(r"[A-Za-z0-9.+-]+", expr):
        return [{"license": {"id": expr}}]
    return [{"expression": expr}]


def _component(ref: str, name: str, version: str, licence: str | None, description: str, *, purl: str | None = None,
               kind: str = "library", group: str | None = None, properties: dict[str, str] | None = None) -> Json:
    c: Json = {"type": kind, "bom-ref": ref, "name": name, "version": version, "description": description}
    if licence:  # else not known here: no assertion
        c["licenses"] = _licence(licence)
    if group:
        c["group"] = group
    if purl:
        c["purl"] = purl
    if properties:
        c["properties"] = [{"name": k, "value": v} for k, v in sorted(properties.items())]
    return c


def _go_purl(path: str, version: str) -> str:
    return f"pkg:golang/{path}@{version}"


def sbom(version: str, go: str, modules: Sequence[tuple[str, str, str]], zig: tuple[str, str] | None,
         source_date_epoch: str | None = None) -> Json:
    """The SBOM (a dict): godlpack ``version``, built by Go ``go`` (go1.x.y)
    from ``modules`` (go_version_m's), its C linked by zig (version, target)
    or by another compiler (None)."""
    root_ref = f"pkg:pypi/godlpack@{version}"
    components: list[Json] = []
    gover = go.removeprefix("go")
    components.append(_component(
        _go_purl(GO_STDLIB, gover), GO_STDLIB, go, "BSD-3-Clause",
        f"The Go runtime and standard library of the Go toolchain {go}, statically linked into {SO_NAME}",
        purl=_go_purl(GO_STDLIB, gover), properties={"godlpack:linkage": "static", "godlpack:go-toolchain": go}))
    for kind, path, modver in sorted(modules, key=lambda m: m[1]):
        own = path == GODLPACK_MODULE or kind == "mod"  # godlpack's module and the main package its build writes
        shown = f"v{version}" if own and modver == "(devel)" else modver
        what = ("godlpack's own Go module (built from this package's sources)" if path == GODLPACK_MODULE else
                "the main package godlpack's build generates over pyext" if kind == "mod" else "a Go module")
        components.append(_component(
            _go_purl(path, shown), path, shown, "Apache-2.0" if own else None,
            f"{what}, statically linked into {SO_NAME}", purl=_go_purl(path, shown),
            properties={"godlpack:linkage": "static", "godlpack:go-version-m": f"{kind} {modver}"}))
    if zig is not None:
        zver, target = zig
        arch = target.split("-", 1)[0] or "native"
        components.append(_component(
            f"zig-compiler-rt@{zver}", ZIG_COMPILER_RT, zver, "MIT AND Apache-2.0 WITH LLVM-exception",
            f"zig {zver}'s compiler-rt (lib/compiler_rt: zig's port of LLVM's compiler-rt builtins), built for "
            f"{target or 'the host'} and statically linked into {SO_NAME}: the objects the extension references "
            "(such as memcpy, memset and the half-precision conversions)",
            group="zig", purl=f"pkg:generic/zig/compiler-rt@{zver}",
            properties={"godlpack:linkage": "static", "godlpack:zig-target": target, "godlpack:arch": arch}))
        m = re.search(r"-gnu[a-z]*\.(\d+\.\d+)", target)
        if m:
            glibc = m.group(1)
            components.append(_component(
                f"glibc-libc_nonshared@{glibc}", GLIBC_NONSHARED, glibc, "LGPL-2.1-or-later",
                f"glibc's libc_nonshared.a for glibc {glibc}, built by zig {zver} from the glibc sources it ships "
                f"(lib/libc/glibc) and on the link line of {SO_NAME}: statically linked are only the objects the "
                "extension references (atexit, pthread_atfork, stat and the like); glibc's licence grants "
                "unlimited permission to link these files", group="zig",
                purl=f"pkg:generic/gnu/glibc-libc_nonshared@{glibc}",
                properties={"godlpack:linkage": "static-if-referenced", "godlpack:zig-target": target}))
            components.append(_component(
                f"glibc@{glibc}", GLIBC, glibc, "LGPL-2.1-or-later",
                f"The system's C library, linked dynamically (libc.so.6, libm.so.6, libpthread.so.0, libdl.so.2) "
                f"through the stub libraries zig {zver} generates for glibc {glibc}; no glibc code is copied into "
                f"{SO_NAME} from them", purl=f"pkg:generic/gnu/glibc@{glibc}",
                properties={"godlpack:linkage": "dynamic", "godlpack:zig-target": target}))
    refs = [c["bom-ref"] for c in components]
    tools: list[Json] = [{"type": "application", "name": "go", "version": go, "group": "golang.org",
                          "licenses": _licence("BSD-3-Clause")}]
    if zig is not None:
        tools.append({"type": "application", "name": "zig", "version": zig[0], "purl": f"pkg:pypi/ziglang@{zig[0]}",
                      "licenses": _licence("MIT")})
    metadata: Json = {
        "component": {"type": "library", "bom-ref": root_ref, "name": "godlpack", "version": version,
                      "purl": root_ref, "licenses": _licence("Apache-2.0 AND BSD-3-Clause"),
                      "description": "N-dimensional arrays in Go, exchanged zero-copy through DLPack 1.3"},
        "tools": {"components": tools},
    }
    if source_date_epoch:
        t = datetime.datetime.fromtimestamp(int(source_date_epoch), tz=datetime.UTC)
        metadata["timestamp"] = t.strftime("%Y-%m-%dT%H:%M:%SZ")
    doc: Json = {
        "$schema": f"http://cyclonedx.org/schema/bom-{SPEC_VERSION}.schema.json",
        "bomFormat": "CycloneDX",
        "specVersion": SPEC_VERSION,
        "version": 1,
        "metadata": metadata,
        "components": components,
        "dependencies": [{"ref": root_ref, "dependsOn": sorted(refs)}] + [{"ref": r, "dependsOn": []} for r in refs],
    }
    digest = hashlib.sha256(dumps(doc).encode()).digest()
    return {"serialNumber": f"urn:uuid:{uuid.UUID(bytes=digest[:16], version=5)}", **doc}


def dumps(doc: Json) -> str:
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def write_sbom(distinfo: str, so: str, version: str, go: str | None = None, cc: str | None = None) -> str:
    """Writes DISTINFO/sboms/godlpack.cdx.json for the extension so (built by
    the Go toolchain ``go`` with the C compiler ``cc``); returns its path."""
    go = go or os.environ.get("GO") or "go"
    cc = os.environ.get("CC", "") if cc is None else cc
    gover, modules = go_version_m(go, so)
    zt = zig_target(cc)
    zig = (zig_version(zt[0]), zt[1]) if zt else None
    doc = sbom(version, gover, modules, zig, os.environ.get("SOURCE_DATE_EPOCH"))
    path = os.path.join(distinfo, "sboms", SBOM_NAME)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(dumps(doc))
    return path


# ---- checking a wheel ------------------------------------------------------------


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def read_wheel_sbom(wheel: str) -> tuple[str, bytes, dict[str, tuple[str, str]]]:
    """(SBOM's name in the wheel, its bytes, RECORD as {name: (hash, size)})."""
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        record = next((n for n in names if re.fullmatch(r"[^/]+\.dist-info/RECORD", n)), None)
        if record is None:
            raise SbomError("no .dist-info/RECORD")
        want = record.rsplit("/", 1)[0] + "/sboms/" + SBOM_NAME
        if want not in names:
            there = [n for n in names if "/sboms/" in n]
            raise SbomError(f"no SBOM {want} (the wheel's sboms/: {there or 'none'})")
        rows = csv.reader(io.StringIO(z.read(record).decode()))
        return want, z.read(want), {r[0]: (r[1], r[2]) for r in rows if r}


def check_wheel(wheel: str, go: str | None = None, root: str = ROOT) -> list[str]:
    """What is wrong with the wheel's SBOM (empty: nothing)."""
    go = go or os.environ.get("GO") or "go"
    try:
        name, data, record = read_wheel_sbom(wheel)
    except SbomError as e:
        return [str(e)]
    problems: list[str] = []
    if record.get(name) != (_record_hash(data), str(len(data))):
        problems.append(f"{name}: RECORD says {record.get(name)}, the file is {(_record_hash(data), str(len(data)))}")
    problems += validate(data.decode())
    doc = json.loads(data)
    comps = {c["name"]: c for c in doc.get("components", [])}
    with tempfile.TemporaryDirectory() as d, zipfile.ZipFile(wheel) as z:
        so = os.path.join(d, "_native.abi3.so")
        with open(so, "wb") as f:
            f.write(z.read(SO_NAME))
        gover, modules = go_version_m(go, so)
    if comps.get(GO_STDLIB, {}).get("version") != gover:
        problems.append(f"the SBOM names Go {comps.get(GO_STDLIB, {}).get('version')}, the .so was built by {gover}")
    toolchain = toolchain_of_go_mod(root)
    if toolchain and toolchain != gover:
        problems.append(f"go.mod's toolchain line says {toolchain}, the .so was built by {gover}")
    for _, path, _ in modules:
        if path not in comps:
            problems.append(f"the Go module {path} (go version -m) is not in the SBOM")
    plat = os.path.basename(wheel)
    if "linux" in plat:
        need = [ZIG_COMPILER_RT] + ([GLIBC_NONSHARED, GLIBC] if "manylinux" in plat else [])
        problems += [f"the SBOM does not name zig's {n}" for n in need if n not in comps]
    return problems


def validate(text: str) -> list[str]:
    """CycloneDX's own JSON schema check (cyclonedx-python-lib[json-validation])."""
    try:
        from cyclonedx.schema import SchemaVersion
        from cyclonedx.validation.json import JsonStrictValidator
    except ImportError as e:
        return [f"cannot validate the SBOM: {e} (pip install -r requirements-build.txt)"]
    err = JsonStrictValidator(SchemaVersion.from_version(SPEC_VERSION)).validate_str(text)
    if not err:
        return []
    first = str(getattr(err, "data", None) or err).strip().splitlines()[0]
    return [f"the SBOM is not valid CycloneDX {SPEC_VERSION}: {first[:400]}"]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tools/sbom.py", description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--check", metavar="WHEEL", nargs="+", help="check the SBOM of each wheel")
    ap.add_argument("--print", metavar="WHEEL", help="print the SBOM of a wheel")
    a = ap.parse_args(argv)
    if a.print:
        sys.stdout.write(read_wheel_sbom(a.print)[1].decode())
        return 0
    if not a.check:
        ap.error("give --check WHEEL or --print WHEEL")
    bad = 0
    for wheel in a.check:
        try:
            problems = check_wheel(wheel)
        except SbomError as e:
            problems = [str(e)]
        for p in problems:
            print(f"sbom: {wheel}: {p}", file=sys.stderr)
        if problems:
            bad = 1
        else:
            print(f"sbom: {wheel}: {SBOM_NAME} is valid CycloneDX {SPEC_VERSION}, in RECORD, and names the Go "
                  "version and modules of the .so and zig's pieces")
    return bad


if __name__ == "__main__":
    sys.exit(main())
