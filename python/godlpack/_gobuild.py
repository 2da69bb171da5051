"""Build extension modules with the Go toolchain: godlpack's own
``godlpack._native`` and the modules of the extension kit.

One mechanism for all: a generated main package (``main.go``) defines
``PyInit_<name>`` as a call of the shared module init of the C skin
(``pyext``) and imports, blank, every Go package whose ``init`` registers
functions with ``gofunc``; a ``go.work`` puts godlpack's Go sources and the
developer's modules side by side, and one ``go build -buildmode=c-shared``
makes the abi3 ``.so``. setup.py, ``python -m godlpack build-ext`` and
``godlpack.build.build_go_ext`` all call :func:`build_module`.

This file imports only the standard library: godlpack's own setup.py loads it
by path, before any godlpack exists.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import types
from collections.abc import Mapping, Sequence

GODLPACK_MODULE = "github.com/godlpack/godlpack"
HERE = os.path.dirname(os.path.abspath(__file__))


def go_source_root() -> str:
    """godlpack's Go sources: the wheel's ``godlpack/_gosrc``, else the checkout
    that holds this package (``python/godlpack`` under the repository root)."""
    for cand in (os.path.join(HERE, "_gosrc"), os.path.dirname(os.path.dirname(HERE))):
        if _module_path(cand) == GODLPACK_MODULE:
            return cand
    raise SystemExit(
        "error: godlpack's Go sources were not found (neither godlpack/_gosrc in the installed package nor a "
        "checkout around it); reinstall godlpack from its wheel or sdist"
    )


def _module_path(root: str) -> str | None:
    try:
        with open(os.path.join(root, "go.mod"), encoding="utf-8") as f:
            for line in f:
                m = re.match(r"\s*module\s+(\S+)", line)
                if m:
                    return m.group(1).strip('"')
    except OSError:
        return None
    return None


def _go_version(root: str) -> str:
    with open(os.path.join(root, "go.mod"), encoding="utf-8") as f:
        m = re.search(r"^go\s+(\S+)", f.read(), re.M)
    return m.group(1) if m else "1.26"


def _version_key(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def _module_root(d: str) -> tuple[str, str]:
    """(module root, module path) of the Go module holding directory d."""
    cur = os.path.abspath(d)
    while True:
        mp = _module_path(cur)
        if mp:
            return cur, mp
        parent = os.path.dirname(cur)
        if parent == cur:
            raise SystemExit(f"error: {d} is not inside a Go module (no go.mod above it); run `go mod init` there")
        cur = parent


def _enclosing_module() -> tuple[str, str] | None:
    """(root, module path) of the Go module around the working directory."""
    try:
        return _module_root(os.getcwd())
    except SystemExit:
        return None


def resolve_packages(pkgs: Sequence[str], gosrc: str) -> tuple[list[str], list[str], dict[str, str]]:
    """(import paths, module roots for go.work, import path -> source dir).

    A package is a directory (./imgkit) or an import path; godlpack's own
    import paths map into its sources."""
    imports: list[str] = []
    roots: list[str] = [os.path.abspath(gosrc)]
    dirs: dict[str, str] = {}
    for p in pkgs:
        if os.path.isdir(p):
            root, mp = _module_root(p)
            rel = os.path.relpath(os.path.abspath(p), root).replace(os.sep, "/")
            ip = mp if rel == "." else f"{mp}/{rel}"
            if mp == GODLPACK_MODULE:  # a package inside a godlpack checkout: that checkout is godlpack's sources
                roots[0] = root        # (one copy of a module in a workspace)
            elif root not in roots:
                roots.append(root)
            dirs[ip] = os.path.abspath(p)
        else:
            ip = p
            if ip == GODLPACK_MODULE or ip.startswith(GODLPACK_MODULE + "/"):
                dirs[ip] = os.path.join(gosrc, ip[len(GODLPACK_MODULE) + 1 :])
            elif (here := _enclosing_module()) is not None and (ip == here[1] or ip.startswith(here[1] + "/")):
                # an import path of the module around the working directory
                dirs[ip] = os.path.join(here[0], ip[len(here[1]) + 1 :]) if ip != here[1] else here[0]
                if here[0] not in roots:
                    roots.append(here[0])
        if ip not in imports:
            imports.append(ip)
    return imports, roots, dirs


_FUNC = re.compile(r"^func\s+([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*\(([^)]*)\)", re.M)


def scan_functions(pkgdir: str) -> dict[str, tuple[str, list[str]]]:
    """Top-level functions of a Go package directory: name -> (doc comment,
    parameter names). The doc comment is the block of // lines right above."""
    out: dict[str, tuple[str, list[str]]] = {}
    try:
        names = sorted(os.listdir(pkgdir))
    except OSError:
        return out
    for fn in names:
        if not fn.endswith(".go") or fn.endswith("_test.go"):
            continue
        with open(os.path.join(pkgdir, fn), encoding="utf-8", errors="replace") as f:
            src = f.read()
        lines = src.splitlines()
        for m in _FUNC.finditer(src):
            lineno = src.count("\n", 0, m.start())
            doc: list[str] = []
            i = lineno - 1
            while i >= 0 and lines[i].startswith("//"):
                if not lines[i].startswith("//go:"):
                    doc.insert(0, lines[i][2:][1:] if lines[i][2:].startswith(" ") else lines[i][2:])
                i -= 1
            params: list[str] = []
            pending: list[str] = []
            for part in (x.strip() for x in m.group(2).split(",")):
                if not part:
                    continue
                words = part.split()
                if len(words) == 1:  # a name whose type follows (a, b int), or an unnamed type
                    pending.append(words[0])
                    continue
                params += pending + [words[0]]
                pending = []
            if pending and not params:  # unnamed parameters: (int, float64)
                pending = []
            params += pending
            out[m.group(1)] = ("\n".join(doc).strip(), params)
    return out


# the package of the functions in every module (pyext imports it)
BUILTINS = GODLPACK_MODULE + "/internal/builtins"


def _own_functions(imports: Sequence[str], plugin: bool) -> list[str]:
    """The package of godlpack's own functions, when the module (not a
    kit's plugin, which the module hosts) does not name it already."""
    return [] if plugin or BUILTINS in imports else [BUILTINS]


def _go_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def write_main(workdir: str, fullname: str, pkgs: Sequence[str], gosrc: str | None = None,
               homes: Mapping[str, str] | None = None, plugin: bool = False,
               not_kept: Mapping[str, Sequence[str]] | None = None) -> str:
    """Writes the main package of module fullname into workdir (main.go,
    go.mod, go.work, module.map) and returns workdir. homes maps packages
    (as in pkgs) to the Python module of a kit whose functions they are
    (gofunc.Home: a module composed for several kits, godlpack/_kits.py).
    plugin: the main package of a kit's Go plugin instead (build_plugin),
    which holds the kit's packages only and no module init. not_kept: what
    the compiler proved of the functions (_escapes.not_kept), handed to
    gofunc.SetNotKept."""
    gosrc = gosrc or go_source_root()
    short = fullname.rsplit(".", 1)[-1]
    if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", fullname):
        raise SystemExit(f"error: {fullname!r} is not a Python module name")
    imports, roots, dirs = resolve_packages(pkgs, gosrc)
    if plugin and roots[0] != os.path.abspath(gosrc):
        raise SystemExit(f"error: the kit {fullname}'s Go packages are inside godlpack's own Go module ({roots[0]}); a "
                         "kit's plugin is built against the installed godlpack: give its packages a go.mod of their "
                         "own (python -m godlpack init-kit DIR writes one)")
    os.makedirs(workdir, exist_ok=True)
    sources: list[str] = []
    own = _own_functions(imports, plugin)
    dirs.update(resolve_packages(own, gosrc)[2])
    for ip in imports + own:
        for name, (doc, params) in sorted(scan_functions(dirs.get(ip, "")).items()):
            args = "".join(", " + _go_string(p) for p in params)
            sources.append(f"\tgofunc.SetSource({_go_string(ip + '.' + name)}, {_go_string(doc)}{args})")
    for go_name, proved in sorted((not_kept or {}).items()):
        args = "".join(", " + _go_string(p) for p in proved)
        sources.append(f"\tgofunc.SetNotKept({_go_string(go_name)}{args})")
    for spec, module in (homes or {}).items():
        ip = resolve_packages([spec], gosrc)[0][0]
        sources.append(f"\tgofunc.Home({_go_string(ip)}, {_go_string(module)})")
    blank = "".join(f'\t_ "{ip}"\n' for ip in imports)
    body = chr(10).join(sources) if sources else chr(9) + "_ = gofunc.SetSource"
    if plugin:
        main = f"""// Code generated by godlpack (python/godlpack/_gobuild.py); DO NOT EDIT.

// The Go plugin of the kit {fullname}: its Go packages, loaded into the Go
// runtime of godlpack's module (godlpack/_kits.py), where the functions they
// register with gofunc become functions of the Python module {fullname}.
package main

import (
\t"github.com/godlpack/godlpack/gofunc"
{blank})

func init() {{
{body}
}}

func main() {{}}
"""
    else:
        main = f"""// Code generated by godlpack (python/godlpack/_gobuild.py); DO NOT EDIT.

// The extension module {fullname}: godlpack's C skin (pyext) with the Go
// functions the imported packages register with gofunc.
package main

/*
extern void *gd_module_init(const char *fullname);
__attribute__((visibility("default"))) void *PyInit_{short}(void) {{ return gd_module_init({_go_string(fullname)}); }}
*/
import "C"

import (
\t"github.com/godlpack/godlpack/gofunc"
\t_ "github.com/godlpack/godlpack/pyext"
{blank})

func init() {{
{body}
}}

func main() {{}}
"""
    # go.work must not say less than any module it uses (`go mod init` writes
    # the toolchain's full version, e.g. 1.26.8): the highest go line wins.
    ver = max([_go_version(gosrc)] + [_go_version(r) for r in roots], key=_version_key)
    files = {
        "main.go": main,
        "go.mod": f"module godlpack{'kit' if plugin else 'ext'}/{short}\n\ngo {ver}\n",
        # the replace: a kit that requires a third-party module makes Go read every required
        # module's go.mod, godlpack's v0.0.0 too, which no proxy has (an installed kit's go.mod
        # has no replace of its own)
        "go.work": f"go {ver}\n\nuse (\n\t.\n" + "".join(f"\t{_go_string(r)}\n" for r in roots) + ")\n\n"
                   f"replace {GODLPACK_MODULE} v0.0.0 => {_go_string(roots[0])}\n",
        MODULE_MAP: _MODULE_MAP_TEXT,
    }
    for name, text in files.items():
        path = os.path.join(workdir, name)
        try:
            with open(path, encoding="utf-8") as f:
                if f.read() == text:
                    continue  # unchanged: keep the Go build cache's view of it
        except OSError:
            pass
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return workdir


# The linker version script of a module: the C skin's own symbols stay inside
# it; Go's are exported, for the kits' Go plugins to bind to
# (pyext/kithost.go). Its name carries its content: Go's build cache knows
# the link by its flags, not by the files they name.
_MODULE_MAP_TEXT = ("/* Linker version script: the C skin's symbols stay local. */\n"
                    "{\n  global: *;\n  local: gd_*;\n};\n")
MODULE_MAP = "module." + __import__("hashlib").sha256(_MODULE_MAP_TEXT.encode()).hexdigest()[:8] + ".map"


# gcc passes the branch padding to GNU as; clang (zig cc) takes it itself
_ALIGN = (("-falign-functions=64", "-Wa,-mbranches-within-32B-boundaries"),
          ("-falign-functions=64", "-mbranches-within-32B-boundaries"))
_align_known: dict[str, str] = {}


def _layout_flags(environ: Mapping[str, str]) -> str:
    """The flags that place the C code the same way whatever surrounds it
    (with a leading space), for an x86-64 build whose C compiler takes them,
    else "": functions start on 64-byte lines, and branches stay off 32-byte
    boundaries, as Go pads its own jumps on amd64. Without them the speed of
    the C hot paths (the skin's calls, core/fastpath.c) turns on where the
    linker happens to put them: a Go function's call differed by a third
    between two builds of one source."""
    arch = environ.get("GOARCH") or ("amd64" if os.uname().machine in ("x86_64", "AMD64") else "")
    if arch != "amd64":
        return ""
    cc = environ.get("CC") or "gcc"
    if cc not in _align_known:
        import tempfile

        _align_known[cc] = ""
        # in a folder of its own: a compiler may write an object where it
        # likes (zig cc ignores `-o /dev/null` for stdin and writes "-.o"
        # into the working directory)
        with tempfile.TemporaryDirectory(prefix="godlpack-cc-probe-") as d:
            src = os.path.join(d, "probe.c")
            with open(src, "w", encoding="ascii") as f:
                f.write("int f(int x) { return x ? 3 * x : 1; }\n")
            for flags in _ALIGN:
                try:
                    argv = shlex.split(cc)
                    if os.sep in argv[0]:  # a path from here, run from there
                        argv[0] = os.path.abspath(argv[0])
                    p = subprocess.run([*argv, *flags, "-c", "-o", os.path.join(d, "probe.o"), src],
                                       capture_output=True, text=True, timeout=120, cwd=d)
                except (OSError, subprocess.SubprocessError, ValueError):
                    break
                if p.returncode == 0:
                    _align_known[cc] = " " + " ".join(flags)
                    break
    return _align_known[cc]


def go_build_command(
    go: str, out: str, workdir: str = ".", debug: bool = False, environ: Mapping[str, str] = os.environ,
    plugin: str | None = None,
) -> tuple[list[str], dict[str, str]]:
    """The `go build` of an extension module: (argv, environment), run in workdir.

    debug=False strips symbols and DWARF and trims source paths (release
    builds); debug=True keeps all three. CGO_CFLAGS gets the CPython include
    directory in front of the caller's flags (default -O2, and -g when
    debug). A release build links with -s through the external linker as
    well, and its default CGO_LDFLAGS has no -g: a C linker that reads the
    later -g as undoing Go's early -s (zig cc) would keep DWARF and build
    paths. plugin: the build of the Go plugin of this kit instead, which
    must be built as the module that hosts it was (build_plugin passes that
    build's environment)."""
    env = dict(environ)
    env["CGO_ENABLED"] = "1"
    cflags = environ.get("CGO_CFLAGS")
    if cflags is None:
        cflags = ("-O2 -g" if debug else "-O2") + _layout_flags(environ)
    env["CGO_CFLAGS"] = f"-I{sysconfig.get_paths()['include']} " + cflags
    if not debug:
        env.setdefault("CGO_LDFLAGS", "-O2")
    env["GOWORK"] = os.path.join(os.path.abspath(workdir), "go.work")
    script = os.path.join(os.path.abspath(workdir), MODULE_MAP)
    ext = ("" if plugin else f"-Wl,--version-script={script}") + ("" if debug else " -s")
    ext = ext.strip()
    # quoted when it has a space: one flag for Go's linker, which splits it for the C linker (a
    # value may not start with a quote: the release build's -s -w come first)
    ldflags = f"'-extldflags={ext}'" if " " in ext else f"-extldflags={ext}"
    # -buildvcs=false: the build must not depend on git (a checkout owned by
    # another user, an sdist, a source tree without .git)
    # GODLPACK_PROBES=1 (make build, for godlpack's own tests) adds the test
    # probes (pyext/probes.go); release builds never set it
    tags = build_tags(environ)
    argv = [go, "build", "-buildvcs=false", "-tags", tags, f"-buildmode={'plugin' if plugin else 'c-shared'}"]
    if not debug:
        argv.append("-trimpath")
        # Go's own build id hashes the absolute paths of CC and go.work: a
        # release build names what it is made of instead (content_build_id),
        # so that it is the same file from any checkout
        ldflags = f"-s -w -buildid={content_build_id(go, argv, env, workdir)} " + ldflags
    argv += [f"-ldflags={ldflags}", "-o", out, "."]
    return argv, env


def _sibling(name: str) -> types.ModuleType:
    """The module name.py beside this file, loaded by path: setup.py loads
    this file before any godlpack package exists."""
    spec = importlib.util.spec_from_file_location(f"godlpack_{name.lstrip('_')}", os.path.join(HERE, f"{name}.py"))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _work_dirs(workdir: str) -> list[str]:
    """The module directories go.work in workdir uses, absolute."""
    try:
        with open(os.path.join(workdir, "go.work"), encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return [workdir]
    block = re.search(r"^use\s*\((.*?)^\)", text, re.M | re.S)
    lines = block.group(1).splitlines() if block else re.findall(r"^use\s+(.+)$", text, re.M)
    dirs = [ln.split("//", 1)[0].strip().strip('"`') for ln in lines]
    return [os.path.normpath(os.path.join(workdir, d)) for d in dirs if d]


def content_build_id(go: str, argv: Sequence[str], env: Mapping[str, str], workdir: str) -> str:
    """The build id of a release build: a hash of what the build is made of,
    with no path in it. The Go version; the command and the environment
    that change the code (CC by its name and version, CGO_CFLAGS without
    the Python include directory); and, by path relative to its module, the
    content of every file the build reads in each module go.work uses
    (_gofiles.module_files). Two builds share it only when they are built
    from the same files the same way, which is what a kit's plugin
    fingerprint (write_buildinfo) and the kit cache (godlpack/_kits.py) rely
    on it to say."""
    import hashlib

    gofiles = _sibling("_gofiles")
    h = hashlib.sha256()

    def add(*parts: str) -> None:
        for part in parts:
            h.update(part.encode("utf-8", "surrogateescape") + b"\0")

    add("godlpack build id 1", _go_version_of(go), *argv[1:])
    cc = env.get("CC", "")
    add("CC", " ".join(os.path.basename(w) for w in shlex.split(cc)), _cc_version(cc or "gcc"))
    include = sysconfig.get_paths()["include"]
    add("CGO_CFLAGS", env.get("CGO_CFLAGS", "").replace(f"-I{include} ", "", 1))
    for name in ("CGO_LDFLAGS", "GOOS", "GOARCH", "GOAMD64", "GOARM64", "GOEXPERIMENT", "GOFLAGS"):
        add(name, env.get(name, ""))
    roots = [d for d in _work_dirs(workdir) if os.path.isdir(d) and d != os.path.normpath(workdir)]
    for root in sorted(roots, key=lambda d: _module_path(d) or ""):  # the modules the main package imports
        add("module", _module_path(root) or "")
        for rel in gofiles.module_files(root):
            with open(os.path.join(root, rel), "rb") as f:
                add(rel.replace(os.sep, "/"), hashlib.sha256(f.read()).hexdigest())
    for name in sorted(os.listdir(workdir) if os.path.isdir(workdir) else []):  # the main package and its map
        path = os.path.join(workdir, name)
        if name != "go.work" and os.path.isfile(path):
            with open(path, "rb") as f:
                add(name, hashlib.sha256(f.read()).hexdigest())
    digest = h.hexdigest()
    return f"{digest[:32]}/{digest[32:64]}"


def build_tags(environ: Mapping[str, str] = os.environ) -> str:
    """The build tags of godlpack's module (and of the kits' plugins, which
    must match them)."""
    return "pyext,godlpack_probes" if environ.get("GODLPACK_PROBES") == "1" else "pyext"


def _go_version_of(go: str) -> str:
    """`go env GOVERSION` (e.g. go1.26.2), or "" when go cannot say."""
    try:
        p = subprocess.run([go, "env", "GOVERSION"], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, GOTOOLCHAIN="local"))
    except (OSError, subprocess.SubprocessError):
        return ""
    return p.stdout.strip() if p.returncode == 0 else ""


def build_problem(environ: Mapping[str, str] = os.environ, config_var=sysconfig.get_config_var, which=shutil.which,
                  platform: tuple[str, str] | None = None, go_version=_go_version_of):
    """Why an extension cannot be built here, as one message, or None."""
    if platform is None:
        import platform as _platform

        platform = (sys.platform, _platform.machine())
    system, machine = platform
    if system != "linux" or machine not in ("x86_64", "aarch64"):
        name = {"darwin": "macOS", "win32": "Windows", "cygwin": "Cygwin"}.get(system, system)
        return (
            f"error: godlpack's extension builds on Linux x86-64 and aarch64 only so far, not on {name} "
            f"{machine or '(an unknown machine)'}: its C skin and oneAPI backend use Linux interfaces, and "
            "Go kits need Go's plugin package, which exists on Linux only. Use godlpack on Linux x86-64 or "
            "aarch64 (on macOS and Windows: in a Linux container, or WSL 2 on Windows), where pip installs "
            "its wheel with no Go or C compiler needed."
        )
    if config_var("Py_GIL_DISABLED"):
        return (
            "error: godlpack cannot be built for a free-threaded CPython (python3.13t and later): its "
            "extension uses the limited C API (abi3), which free-threaded builds do not offer yet. "
            "Install it with a regular CPython 3.11 or newer."
        )
    go = environ.get("GO", "go")
    if which(go) is None:
        return (
            f"error: the Go toolchain ({go!r}) was not found on PATH. godlpack's extension is written in "
            "Go: install Go 1.26 or newer from https://go.dev/dl/ (and a C compiler for cgo), or set "
            "GO=/path/to/go, then run the install again."
        )
    have = go_version(which(go) or go)
    if have and _version_key(have) < (1, 26) and not environ.get("GOTOOLCHAIN"):
        return (
            f"error: {go} is {have}; godlpack's extension needs Go 1.26 or newer. Install it from "
            "https://go.dev/dl/, or set GOTOOLCHAIN=go1.26.0 to let go fetch that toolchain (network "
            "needed), then run the install again."
        )
    cc = shlex.split(environ.get("CC", "") or "gcc")[0]
    if which(cc) is None and which("cc") is None:
        return (
            f"error: no C compiler ({cc!r}) was found on PATH. godlpack's Go code is built with cgo, "
            "which needs one: install gcc (Debian/Ubuntu: apt-get install gcc; RHEL: dnf install gcc) "
            "or set CC, then run the install again."
        )
    return None


def build_module(
    fullname: str,
    pkgs: Sequence[str],
    out: str,
    workdir: str,
    debug: bool = False,
    gosrc: str | None = None,
    what: str | None = None,
    homes: Mapping[str, str] | None = None,
) -> None:
    """Generates the main package of fullname in workdir and builds it into
    out (the .so). Echoes the command; a failure ends in one line
    (SystemExit), after the Go toolchain's own messages."""
    problem = build_problem()
    if problem is not None:
        raise SystemExit(problem)
    gosrc = gosrc or go_source_root()
    print(f"building {fullname} from {', '.join(pkgs) or 'godlpack alone'} with godlpack's Go sources in {gosrc}",
          flush=True)
    go = shutil.which(os.environ.get("GO", "go")) or "go"
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    cmd, env = _prepare(go, os.path.abspath(out), workdir, fullname, pkgs, gosrc, debug, os.environ, homes)
    _run_build(cmd, env, workdir, what or fullname, "Go 1.26+ and a C compiler work (`go version`, `go env CC`)")
    header = os.path.splitext(os.path.abspath(out))[0] + ".h"  # c-shared also writes a C header
    if os.path.exists(header):
        os.remove(header)
    write_buildinfo(out, go, env, debug, gosrc)


def _prepare(go: str, out: str, workdir: str, fullname: str, pkgs: Sequence[str], gosrc: str, debug: bool,
             environ: Mapping[str, str], homes: Mapping[str, str] | None, plugin: bool = False,
             ) -> tuple[list[str], dict[str, str]]:
    """Writes the main package of fullname in workdir with what the
    compiler proves of its functions (_escapes: the packages compiled once
    with the escape analysis printed, nothing linked) and returns the
    `go build` of it (go_build_command)."""
    write_main(workdir, fullname, pkgs, gosrc, homes, plugin=plugin)
    cmd, env = go_build_command(go, out, workdir, debug=debug, environ=environ, plugin=fullname if plugin else None)
    imports, _, dirs = resolve_packages(list(pkgs) + _own_functions(pkgs, plugin), gosrc)
    facts = _sibling("_escapes").analyse(cmd, env, workdir, imports, dirs)
    if facts:
        write_main(workdir, fullname, pkgs, gosrc, homes, plugin=plugin, not_kept=facts)
        cmd, env = go_build_command(go, out, workdir, debug=debug, environ=environ,
                                    plugin=fullname if plugin else None)
    return cmd, env


# What of a module's build a kit's Go plugin must repeat to load into it
# (build_plugin): the environment variables that change the Go code built.
_RECORDED_ENV = ("GOEXPERIMENT", "GOARCH", "GOAMD64", "GOARM64", "CGO_LDFLAGS", "GODLPACK_PROBES")


def buildinfo_path(so: str) -> str:
    """Where the build record of the module so lies: _native.abi3.so ->
    _native.buildinfo.json beside it."""
    d, name = os.path.split(os.path.abspath(so))
    return os.path.join(d, name.split(".", 1)[0] + ".buildinfo.json")


def write_buildinfo(out: str, go: str, env: Mapping[str, str], debug: bool,
                    gosrc: str | None = None) -> dict[str, object]:
    """Records how the module out was built, beside it (buildinfo_path): the
    Go version and build id, tags, flags and C compiler. A kit's plugin is
    built from this record (build_plugin), and its fingerprint names the
    build id, which godlpack/_kits.py compares with the module loaded."""
    import json

    _elf = _sibling("_elf")
    py = shlex.quote(sys.executable)
    cc = env.get("CC", "")
    cflags = env.get("CGO_CFLAGS", "").split(" ", 1)
    info: dict[str, object] = {
        "go": _go_version_of(go) or "",
        "goos": "linux",
        "goarch": env.get("GOARCH") or _go_env(go, "GOARCH"),
        "tags": build_tags(env),
        "debug": debug,
        "cgo_cflags": cflags[1] if len(cflags) > 1 and cflags[0].startswith("-I") else env.get("CGO_CFLAGS", ""),
        "env": {k: env[k] for k in _RECORDED_ENV if env.get(k)},
        # the release build's `zig cc` runs from the build tools' Python: {python} stands for it
        "cc": cc.replace(py + " -m ziglang", "{python} -m ziglang").replace(sys.executable + " -m ziglang",
                                                                            "{python} -m ziglang"),
        "cc_version": _cc_version(cc or "gcc"),
        # what a kit's build environment installs to have that compiler (godlpack.kit_backend)
        "cc_requires": [f"ziglang=={_dist_version('ziglang')}"] if " -m ziglang " in f" {cc} " else [],
        "build_id": _elf.go_build_id(out) or "",
        "godlpack": _godlpack_version(),
    }
    if debug and gosrc:  # untrimmed: the source paths are part of what a plugin must match
        info["gosrc"] = os.path.abspath(gosrc)
    with open(buildinfo_path(out), "w", encoding="utf-8") as f:
        json.dump(info, f, indent=1, sort_keys=True)
        f.write("\n")
    return info


def _go_env(go: str, name: str) -> str:
    p = subprocess.run([go, "env", name], capture_output=True, text=True)
    return p.stdout.strip()


def _cc_version(cc: str) -> str:
    """The first line of `cc --version`, asked in a folder of its own (a
    compiler may leave files where it runs, as _layout_flags says)."""
    import tempfile

    try:
        argv = shlex.split(cc)
        if argv and os.sep in argv[0]:
            argv[0] = os.path.abspath(argv[0])
        with tempfile.TemporaryDirectory(prefix="godlpack-cc-version-") as d:
            p = subprocess.run([*argv, "--version"], capture_output=True, text=True, timeout=120, cwd=d)
    except (OSError, subprocess.SubprocessError, ValueError):
        return ""
    return (p.stdout.strip().splitlines() or [""])[0]


def _dist_version(name: str) -> str:
    import importlib.metadata

    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return ""


def _godlpack_version() -> str:
    with open(os.path.join(HERE, "__init__.py"), encoding="utf-8") as f:
        m = re.search(r'^__version__ = "([^"]+)"', f.read(), re.M)
    return m.group(1) if m else ""


def plugin_environment(info: Mapping[str, object], environ: Mapping[str, str] = os.environ,
                       strict: bool = True) -> dict[str, str]:
    """The environment that builds a kit's Go plugin as the module whose
    build record is info was built: its Go version (GOTOOLCHAIN fetches it
    when the local go is another), tags, flags and C compiler. strict=False
    (an editable kit, built where it is imported) takes this machine's C
    compiler when the recorded one (zig cc, from PyPI) is not installed: the
    C compiler does not change what Go's plugin loader compares."""
    env = {k: v for k, v in environ.items() if k not in _RECORDED_ENV and k not in ("CC", "CGO_CFLAGS")}
    env.update({str(k): str(v) for k, v in dict(info.get("env") or {}).items()})  # type: ignore[call-overload]
    env["GOARCH"] = str(info["goarch"])
    env["CGO_CFLAGS"] = str(info.get("cgo_cflags", ""))
    cc = str(info.get("cc") or "")
    needs = " ".join(str(r) for r in info.get("cc_requires") or ["ziglang"])  # type: ignore[attr-defined]
    if "{python} -m ziglang" in cc and importlib.util.find_spec("ziglang") is None:
        if strict:
            raise SystemExit(f"error: godlpack's module was built with `zig cc` ({needs}), and a kit's Go plugin "
                             "is built with the same compiler: build the kit with pip (its build backend, "
                             f"godlpack.kit_backend, installs it), or pip install {needs} where you build")
        cc = ""
        env["CGO_CFLAGS"] = "-O2" + _layout_flags(env)
    if cc:
        env["CC"] = cc.replace("{python}", shlex.quote(sys.executable))
    go = str(info.get("go") or "")
    if go and _go_version_of(shutil.which(environ.get("GO", "go")) or "go") != go:
        env["GOTOOLCHAIN"] = go
    return env


def build_plugin(module: str, pkgs: Sequence[str], out: str, workdir: str, info: Mapping[str, object],
                 gosrc: str | None = None, strict: bool = True) -> None:
    """Builds the Go packages pkgs of the kit module into its Go plugin out,
    the way the module whose build record is info was built (so that it
    loads into that module's Go runtime). Echoes the command; a failure ends
    in one line (SystemExit), after the Go toolchain's own messages."""
    env = plugin_environment(info, strict=strict)
    problem = build_problem(env)
    if problem is not None:
        raise SystemExit(problem)
    recorded = str(info.get("gosrc") or "")
    gosrc = gosrc or (recorded if recorded and _module_path(recorded) == GODLPACK_MODULE else go_source_root())
    go = shutil.which(env.get("GO", "go")) or "go"
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    cmd, env = _prepare(go, os.path.abspath(out), workdir, module, pkgs, gosrc, bool(info.get("debug")), env,
                        {p: module for p in pkgs}, plugin=True)
    print(f"building the Go plugin of the kit {module} from {', '.join(pkgs)} for godlpack "
          f"{info.get('godlpack')} ({info.get('go')}, {info.get('goarch')})", flush=True)
    _run_build(cmd, env, workdir, f"the Go plugin of the kit {module}",
               f"{info.get('go')} (GOTOOLCHAIN fetches it) and the C compiler {env.get('CC') or 'gcc'} work")


def _run_build(cmd: list[str], env: Mapping[str, str], workdir: str, what: str, check: str) -> None:
    """Echoes and runs a `go build` in workdir; its messages go to stderr
    with the user's paths, and a failure ends in one line (SystemExit) that
    says whose fault it reads as: the Go code's, the module set-up's, or the
    toolchain's (check: what to check then)."""
    shown = [f"{k}={shlex.quote(env[k])}" for k in ("GOTOOLCHAIN", "GOARCH", "GOEXPERIMENT", "CGO_CFLAGS", "CC",
                                                     "GOWORK") if env.get(k)]
    print(f"(cd {shlex.quote(workdir)} && " + " ".join(shown + [shlex.join(cmd)]) + ")", flush=True)
    p = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True)
    said = user_paths(p.stdout + p.stderr, workdir)
    print(said, end="", file=sys.stderr, flush=True)
    if p.returncode == 0:
        return
    if re.search(r"\.go:\d+(:\d+)?: ", said):
        raise SystemExit(f"error: building {what} failed: the Go compiler's messages are above; fix the code they "
                         "point at and build again.")
    if re.search(r"(?m)^go: ", said):
        raise SystemExit(f"error: building {what} failed: the go command's message above names the module set-up it "
                         f"refused (the generated go.work is {os.path.join(workdir, 'go.work')}); fix that, then "
                         "build again.")
    raise SystemExit(f"error: building {what} with `go build` failed (exit status {p.returncode}); the Go "
                     f"toolchain's messages are above. Check that {check}, then run the build again.")


def user_paths(text: str, workdir: str) -> str:
    """The Go toolchain's messages with the paths of files, which it prints
    relative to the generated main package's temporary folder, made the
    user's: relative to the working directory when under it, else absolute."""
    cwd = os.getcwd()

    def fix(m: re.Match[str]) -> str:
        path = m.group(1)
        full = os.path.normpath(path if os.path.isabs(path) else os.path.join(workdir, path))
        if not os.path.exists(full):
            return m.group(0)
        rel = os.path.relpath(full, cwd)
        return (full if rel.startswith("..") else rel) + m.group(2)

    return re.sub(r"((?:[\w.~/-]+/)?[\w.-]+\.go)(:\d+)", fix, text)


# ---- setuptools -----------------------------------------------------------

try:  # setuptools is there whenever a build runs; `build-ext` does not need it
    from setuptools import Extension as _Extension
    from setuptools.command.build_ext import build_ext as _build_ext
except ImportError:  # pragma: no cover
    _Extension = object  # type: ignore[assignment,misc]
    _build_ext = object  # type: ignore[assignment,misc]


class GoExtension(_Extension):  # type: ignore[misc,valid-type]
    """An extension module built from Go packages with godlpack's kit.

    ``GoExtension("mypkg._imgkit", ["./imgkit"])`` builds the module
    ``mypkg._imgkit``: godlpack's whole API plus the functions the Go
    packages register with gofunc (packages are directories or import paths).
    """

    def __init__(self, name: str, packages: Sequence[str] = (), gosrc: str | None = None) -> None:
        super().__init__(name, sources=[], py_limited_api=True)
        if isinstance(packages, str):
            packages = [packages]
        self.go_packages = list(packages)
        self.gosrc = gosrc


class build_go_ext(_build_ext):  # type: ignore[misc,valid-type]
    """build_ext that runs the Go toolchain for GoExtension modules."""

    def build_extension(self, ext):  # type: ignore[no-untyped-def]
        if not isinstance(ext, GoExtension):
            return super().build_extension(ext)
        out = os.path.abspath(self.get_ext_fullpath(ext.name))
        workdir = os.path.join(os.path.abspath(self.build_temp), "gomain", ext.name)
        what = "godlpack's extension" if ext.name == "godlpack._native" else f"the extension {ext.name}"
        build_module(ext.name, ext.go_packages, out, workdir, debug=bool(self.debug), gosrc=ext.gosrc, what=what)
        return None

    def copy_extensions_to_source(self):  # type: ignore[no-untyped-def]
        """--inplace: each module's build record goes with it."""
        super().copy_extensions_to_source()
        for ext in self.extensions:
            if not isinstance(ext, GoExtension):
                continue
            inplace, regular = self._get_inplace_equivalent(self.get_finalized_command("build_py"), ext)
            built, dest = buildinfo_path(regular), buildinfo_path(inplace)
            if os.path.exists(built):
                shutil.copyfile(built, dest)
