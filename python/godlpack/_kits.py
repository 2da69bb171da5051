"""Go kits in godlpack's one Go runtime: any number of kit packages and
godlpack in one process, in any import order.

A process can hold one Go runtime, so every kit's Go code runs in the one
godlpack loads. A kit package (made with ``godlpack.build.go_kit``, e.g. by
``python -m godlpack init-kit``) ships a marker, ``godlpack_kits/<module>.json``
beside its Python package, its Go sources, and, as a platform wheel, its Go
packages prebuilt as a Go plugin for the godlpack it pins. Two ways in:

- **The plugin** (no Go, no C compiler needed): the kit's ``__init__`` calls
  :func:`bind`, which checks the plugin's fingerprint (Go version, platform,
  the build id of the godlpack module it was built against, the versions of
  the Go modules it shares with kits already loaded) against this process
  and then opens it in godlpack's runtime (``_native._load_kit``). A
  mismatch is an ImportError naming both sides: opening a plugin of another
  Go runtime aborts the process.
- **Composition from sources**, when an installed kit has no plugin that fits
  and Go is on PATH: ``import godlpack`` loads godlpack's module composed
  with every installed kit, built once per set of kit files and cached.

The cache (``$GODLPACK_KITS_CACHE``, else ``$XDG_CACHE_HOME/godlpack/kits``
when that is absolute, else ``~/.cache/godlpack/kits``) is created private
(0700); an entry is loaded only if this user owns it, nobody else may write
it, and the module's content hash is the one recorded when it was built.
Keys come from the content of godlpack's module and of every kit file, so a
cache can be seeded. A composition that failed is remembered for that set of
files: the kit's import says why, a plain ``import godlpack`` says nothing.
``python -m godlpack`` (its commands call no kit function) never composes.
"""

from __future__ import annotations

import os
import sys

from ._markers import markers

TYPE_CHECKING = False  # typing costs milliseconds at every `import godlpack`, which imports this module
if TYPE_CHECKING:
    from typing import Any

# module -> why its Go functions are not there (ImportError of bind)
_problems: dict[str, str] = {}
# module -> the fingerprint of its plugin, for the kits loaded as plugins
_loaded: dict[str, dict[str, Any]] = {}


def _read(path: str) -> dict[str, Any]:
    import json

    with open(path, encoding="utf-8") as f:
        spec = json.load(f)
    go = spec.get("go") if isinstance(spec, dict) else None
    if not isinstance(go, list) or not all(isinstance(d, str) for d in go):
        raise ValueError(f"{path} is not a kit marker (a JSON object whose \"go\" is a list of directories); "
                         "remove it or reinstall the kit")
    return spec


def _kits(found: dict[str, str]) -> list[tuple[str, list[str]]]:
    """(module, Go package directories) of each marker."""
    out = []
    for module, path in sorted(found.items()):
        spec = _read(path)
        site = os.path.dirname(os.path.dirname(path))
        out.append((module, [os.path.join(site, p) for p in spec["go"]]))
    return out


# ---- the plugin ------------------------------------------------------------


def host_info(native_file: str) -> dict[str, Any] | None:
    """The build record of the godlpack module at native_file
    (``_native.buildinfo.json``, written by its build), or None when there is
    none or it does not describe that file (its Go build id differs)."""
    import json

    from . import _elf

    d, name = os.path.split(native_file)
    path = os.path.join(d, name.split(".", 1)[0] + ".buildinfo.json")
    try:
        with open(path, encoding="utf-8") as f:
            info = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(info, dict) or info.get("build_id") != _elf.go_build_id(native_file):
        return None
    return info


def _platform() -> tuple[str, str]:
    m = os.uname().machine
    return "linux", {"x86_64": "amd64", "aarch64": "arm64"}.get(m, m)


def plugin_of(module: str, marker: str) -> tuple[str, dict[str, Any]] | None:
    """(plugin path, fingerprint) of the kit's plugin for this platform, or
    None when its package has none (a source-only kit, an editable install)."""
    spec = _read(marker)
    plug = spec.get("plugin")
    if not isinstance(plug, dict):
        return None
    fp = plug.get("fingerprint") or {}
    if (fp.get("goos"), fp.get("goarch")) != _platform():
        return None
    return os.path.join(os.path.dirname(os.path.dirname(marker)), plug["path"]), fp


def _short(build_id: str) -> str:
    return build_id.rsplit("/", 1)[-1][:12] if build_id else "unknown"


def mismatch(module: str, fp: dict[str, Any], host: dict[str, Any] | None, native_file: str) -> str | None:
    """Why the plugin with fingerprint fp cannot load into the module
    described by host, naming both sides and the way out; None if it can."""
    if host is None:
        return (f"godlpack's module ({native_file}) has no build record (_native.buildinfo.json) that matches it, "
                f"so {module}'s Go plugin cannot be checked against it; reinstall godlpack from its wheel")
    if "cgocheck2" in str(dict(host.get("env") or {}).get("GOEXPERIMENT", "")):
        return ("godlpack's module was built with GOEXPERIMENT=cgocheck2, whose pointer checker ends the process "
                "when Go's plugin loader opens a plugin; with Go 1.26+ on PATH, godlpack composes the kit from its "
                "sources instead")
    mine = (fp.get("go"), fp.get("build_id"))
    theirs = (host.get("go"), host.get("build_id"))
    if mine == theirs:
        return None
    import importlib.metadata as md

    try:
        pinned = md.version(module)
    except md.PackageNotFoundError:
        pinned = "?"
    if fp.get("godlpack") == host.get("godlpack"):
        return (f"its Go plugin was built for another build of godlpack {host.get('godlpack')} ({fp.get('go')}, "
                f"build {_short(str(fp.get('build_id', '')))}) than the one this process runs ({host.get('go')}, "
                f"build {_short(str(host.get('build_id', '')))}), whose Go runtime cannot load it. Rebuild the "
                f"{module} wheel ({module} {pinned}) against this godlpack (pip wheel in its source folder), or "
                f"install the godlpack wheel it was built against; with Go 1.26+ on PATH, godlpack composes the "
                f"kit from its sources instead")
    return (f"its Go plugin was built for godlpack {fp.get('godlpack')} ({fp.get('go')}, build "
            f"{_short(str(fp.get('build_id', '')))}), and this process runs godlpack {host.get('godlpack')} "
            f"({host.get('go')}, build {_short(str(host.get('build_id', '')))}), whose Go runtime cannot load it. "
            f"Install the godlpack the kit was built for (pip install godlpack=={fp.get('godlpack')}), or a "
            f"{module} wheel built for godlpack {host.get('godlpack')} (this one is {module} {pinned}); with Go "
            f"1.26+ on PATH, godlpack composes the kit from its sources instead")


def conflict(module: str, fp: dict[str, Any]) -> str | None:
    """Why the plugin cannot join the kits loaded already: a Go module that
    both contain, at different versions (one Go runtime holds one version
    of a package)."""
    mods = dict(fp.get("modules") or {})
    for other, ofp in _loaded.items():
        for path, ver in dict(ofp.get("modules") or {}).items():
            if path in mods and mods[path] != ver:
                return (f"it contains the Go module {path} {mods[path]}, and the kit {other}, loaded already, "
                        f"contains {path} {ver}; one Go runtime holds one version of a package. Rebuild the "
                        f"kits against the same version of {path}, or use them in different processes")
    return None


def _open(module: str, native: Any) -> dict[str, Any] | None:
    """Opens the kit's plugin in godlpack's runtime and returns its
    functions; None when it has none for this platform. A refusal is
    remembered (_problems): Go cannot unload a plugin, nor open one twice."""
    found = markers()
    if module not in found:
        return None
    got = plugin_of(module, found[module])
    if got is None:
        return None
    path, fp = got
    why = mismatch(module, fp, host_info(native.__file__), native.__file__) or conflict(module, fp)
    if why is None:
        try:
            fns = native._load_kit(os.fsencode(path)).get(module)
        except RuntimeError as e:
            why = f"its Go plugin ({path}) did not load: {e}"
        else:
            _loaded[module] = fp
            return fns if fns is not None else {}
    _problems[module] = why
    return None


# ---- composition from sources ----------------------------------------------


def cache_dir() -> str:
    base = os.environ.get("GODLPACK_KITS_CACHE")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME")
        if not xdg or not os.path.isabs(xdg):  # as Go does: a relative one would follow the working directory
            xdg = os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "godlpack", "kits")
    return base


def _key(kits: list[tuple[str, list[str]]], stock: str) -> str:
    """The cache key of a set of kits: godlpack's module (its Go build id)
    and the name and content of every kit file."""
    import hashlib

    from . import _elf
    from ._gofiles import module_files

    h = hashlib.sha256()
    h.update(f"{_elf.go_build_id(stock) or _digest(stock)}\0".encode())
    for module, dirs in kits:
        h.update(f"kit\0{module}\0".encode())
        for d in dirs:
            root = _go_root(d)
            for rel in module_files(root):
                h.update(f"{rel}\0{_digest(os.path.join(root, rel))}\0".encode())
            h.update(f"pkg\0{os.path.relpath(d, root)}\0".encode())
    return h.hexdigest()[:20]


def _digest(path: str) -> str:
    import hashlib

    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _go_root(d: str) -> str:
    cur = os.path.abspath(d)
    while not os.path.exists(os.path.join(cur, "go.mod")):
        parent = os.path.dirname(cur)
        if parent == cur:
            return os.path.abspath(d)
        cur = parent
    return cur


def _private(path: str, what: str) -> None:
    """Refuses (OSError) what another user owns or may write, or a link."""
    import stat

    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise OSError(f"{what} {path} is a symbolic link; remove it")
    if st.st_uid != os.getuid():
        raise OSError(f"{what} {path} belongs to another user (uid {st.st_uid}); it is not loaded: remove it, or "
                      "set GODLPACK_KITS_CACHE to a folder of your own")
    if st.st_mode & 0o022:
        raise OSError(f"{what} {path} may be written by others (mode {stat.S_IMODE(st.st_mode):o}); it is not "
                      f"loaded: chmod go-w it, or remove it")


def _entry(where: str) -> str:
    """The cache entry folder, made private (0700) with the cache itself."""
    base = os.path.dirname(where)
    os.makedirs(base, mode=0o700, exist_ok=True)
    _private(base, "the kit cache")
    try:
        os.mkdir(where, 0o700)
    except FileExistsError:
        pass
    _private(where, "the kit cache entry")
    return where


def _cached(where: str, out: str) -> bool:
    """Whether the entry holds a module this user built: owned, private,
    and of the content hash recorded at its build (else it is rebuilt)."""
    try:
        _private(out, "the cached module")
        with open(out + ".sha256", encoding="ascii") as f:
            recorded = f.read().strip()
    except FileNotFoundError:
        return False
    return recorded == _digest(out)


def _touch(out: str) -> None:
    """Marks a cached module as in use (_prune keeps it); a cache on a
    read-only filesystem still serves."""
    try:
        os.utime(out)
    except OSError:
        pass


class _locked:
    """The entry's lock, held while one process builds into it: opened with
    O_NOFOLLOW in the private entry folder; a process that must wait says
    for what. Holding it, the temporary files of a builder that was killed
    are removed."""

    def __init__(self, where: str, what: str) -> None:
        self.where, self.what = where, what

    def __enter__(self) -> None:
        import fcntl

        fd = self.fd = os.open(os.path.join(self.where, ".lock"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                print(f"godlpack: waiting for another process {self.what} (it holds {self.where}/.lock) ...",
                      file=sys.stderr, flush=True)
                fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(fd)
            raise
        for name in os.listdir(self.where):
            if ".tmp" in name:
                try:
                    os.remove(os.path.join(self.where, name))
                except OSError:
                    pass

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)


def composite(kits: list[tuple[str, list[str]]], stock: str) -> str:
    """The native module composed for kits: from the cache, else built with
    Go (once: a lock keeps concurrent imports from building it twice). A
    failure is remembered in the entry (SystemExit with the reason)."""
    where = _entry(os.path.join(cache_dir(), _key(kits, stock)))
    out = os.path.join(where, "_native.abi3.so")
    failed = os.path.join(where, "failed.txt")
    if _cached(where, out):
        _touch(out)
        return out
    names = ", ".join(m for m, _ in kits)
    with _locked(where, f"composing godlpack with the Go kits {names}"):
        if _cached(where, out):
            return out
        if os.path.exists(failed):
            _private(failed, "the record of a failed composition")
            with open(failed, encoding="utf-8") as f:
                raise SystemExit(f.read().strip())
        from . import _gobuild

        print(f"godlpack: composing its native module with the Go kits {names}, once for this set of kits "
              f"(in {where}) ...", file=sys.stderr, flush=True)
        homes = {d: m for m, dirs in kits for d in dirs}
        tmp = os.path.join(where, f"_native.{os.getpid()}.tmp.abi3.so")  # an extension suffix: _verify loads it
        try:
            import contextlib
            import io

            said = io.StringIO()
            try:
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(said):
                    _gobuild.build_module("godlpack._native", list(homes), tmp, os.path.join(where, "gomain"),
                                          what=f"godlpack with the kits {names}", homes=homes)
                _verify(tmp)
            except SystemExit as e:
                detail = "".join(said.getvalue().strip().splitlines(True)[-12:])
                with open(failed, "w", encoding="utf-8") as f:
                    f.write(f"{e}" + (f"\n{detail}" if detail else "") + "\n")
                raise
            with open(out + ".sha256", "w", encoding="ascii") as f:
                f.write(_digest(tmp) + "\n")
            os.replace(tmp, out)
            _prune(where)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
        print("godlpack: done.", file=sys.stderr, flush=True)
    return out


# A composed module not loaded for this long is removed when another is built
# (each is a few MB, and every change of a kit makes a new one).
PRUNE_AFTER_S = 30 * 24 * 3600


def _prune(keep: str) -> None:
    import shutil
    import time

    base = os.path.dirname(keep)
    for name in os.listdir(base):
        d = os.path.join(base, name)
        try:
            old = time.time() - os.stat(os.path.join(d, "_native.abi3.so")).st_mtime > PRUNE_AFTER_S
        except OSError:
            continue  # being built, or not ours
        if d != keep and old:
            shutil.rmtree(d, ignore_errors=True)


_VERIFY = """import importlib.util, sys
spec = importlib.util.spec_from_file_location("godlpack._native", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
sys.modules["godlpack._native"] = mod
spec.loader.exec_module(mod)
mod._install_gofuncs()
print("godlpack-verified")
"""

# How long the child that loads a new composed module may take.
VERIFY_TIMEOUT_S = 120


def _verify(path: str) -> None:
    """Loads the module in a child interpreter first: a kit whose
    registrations fail, whose init ends the process or never returns, must
    not leave this process holding a Go runtime it cannot use (a second one,
    the stock module's, cannot start). The child must print the sentinel
    after its last step: exiting early, even with status 0, is a failure."""
    import subprocess

    timeout = VERIFY_TIMEOUT_S
    try:
        p = subprocess.run([sys.executable, "-c", _VERIFY, path], capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise SystemExit(f"loading the composed module did not finish in {timeout} s: a kit's Go init "
                         "function blocks (or calls runtime.Goexit); make it return") from None
    out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    if p.returncode == 0 and "godlpack-verified" in out.splitlines():
        return
    raise SystemExit(_child_failure(err, p.returncode))


def _child_failure(err: str, status: int) -> str:
    """Why the verification child failed: a Go panic's message (the lines
    from "panic:" to the first goroutine's stack), else the last line it
    wrote (a Python exception), else how it ended."""
    lines = [x for x in err.splitlines() if x.strip()]
    for i, line in enumerate(lines):
        if line.startswith(("panic: ", "fatal error: ")):
            said = [line]
            for more in lines[i + 1:]:
                if more.startswith("goroutine ") or more.startswith("[signal"):
                    break
                said.append(more)
            return "a kit's Go init function failed: " + "\n".join(said[:8])
    if lines:
        return lines[-1]
    how = f"with status {status}" if status >= 0 else f"on signal {-status}"
    return (f"the process that loads the composed module ended ({how}) before it finished loading, with "
            "nothing on stderr: a kit's Go init function ends the process (os.Exit); make it return")


def _composing() -> bool:
    """False in `python -m godlpack ...`: its commands call no kit function."""
    argv = getattr(sys, "orig_argv", [])
    for i, a in enumerate(argv[1:], 1):
        if a == "-m":
            return not (i + 1 < len(argv) and argv[i + 1] == "godlpack")
        if a.startswith("-m"):
            return a != "-mgodlpack"
        if not a.startswith("-"):
            break
    return True


def load_native(found: dict[str, str]) -> None:
    """Puts the native module composed for the installed kits (found: module
    -> marker) in sys.modules as godlpack._native when some of them has no
    plugin that fits this godlpack and Go is on PATH; does nothing otherwise
    (the kits' plugins load at their import)."""
    if not _composing():
        return
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.find_spec("godlpack._native")
    stock = spec.origin if spec is not None and spec.origin else os.path.join(here, "_native.abi3.so")
    host = None
    unfit = []
    try:
        for module, marker in sorted(found.items()):
            got = plugin_of(module, marker)
            if got is not None:
                host = host if host is not None else host_info(stock)
                if mismatch(module, got[1], host, stock) is None:
                    continue
            unfit.append(module)
    except (OSError, ValueError, KeyError):
        unfit = sorted(found)
    if not unfit:
        return
    import shutil

    if shutil.which(os.environ.get("GO", "go")) is None:
        return  # the plugins that fit load at their kit's import; the others say why there
    try:
        path = composite(_kits(found), stock)
    except (SystemExit, OSError, ValueError, KeyError) as e:
        why = f"composing godlpack with the installed Go kits ({', '.join(sorted(found))}) failed: {e}"
        for module in unfit:  # those whose plugins fit load them at their import
            _problems.setdefault(module, why)
        return
    spec = importlib.util.spec_from_file_location("godlpack._native", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["godlpack._native"] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules["godlpack._native"]
        raise


# ---- editable kits ------------------------------------------------------------


def _editable(module: str, namespace: dict[str, Any], native: Any) -> dict[str, Any] | None:
    """The functions of an editable kit (pip install -e: _godlpack_kit.json
    beside its __init__), from its Go plugin built for this godlpack from its
    sources (with Go) when they changed since the last build; None when the
    kit is not an editable one. The plugin lives in the cache, under the
    content of its sources; building one removes the kit's older ones."""
    here = os.path.dirname(str(namespace.get("__file__") or ""))
    spec_path = os.path.join(here, "_godlpack_kit.json")
    if not here or not os.path.exists(spec_path):
        return None
    import shutil

    spec = _read(spec_path)
    host = host_info(native.__file__)
    if host is None:
        _problems[module] = mismatch(module, {}, None, native.__file__) or ""
        return None
    if not _go_on_path():
        _problems[module] = (f"it is an editable install ({here}), whose Go plugin is built from its sources at "
                             "import: that needs Go 1.26+ on PATH")
        return None
    dirs = [str(d) for d in spec["go"]]
    key = _key([(module, dirs)], native.__file__)
    base = os.path.join(cache_dir(), "editable")
    where = os.path.join(base, f"{module}-{key}")
    try:
        os.makedirs(base, mode=0o700, exist_ok=True)
        _entry(where)
        out = os.path.join(where, "_gokit.so")
        with _locked(where, f"building the Go plugin of the editable kit {module}"):
            if not _cached(where, out):
                _build_editable(module, dirs, out, os.path.join(base, f"{module}.work"), host)
                for name in os.listdir(base):  # superseded builds of this kit
                    if name.startswith(f"{module}-") and name != os.path.basename(where):
                        shutil.rmtree(os.path.join(base, name), ignore_errors=True)
    except (OSError, SystemExit) as e:
        _problems[module] = f"building the Go plugin of the editable kit failed: {e}"
        return None
    try:
        fns = native._load_kit(os.fsencode(out)).get(module)
    except RuntimeError as e:
        _problems[module] = f"its Go plugin ({out}) did not load: {e}"
        return None
    return fns if fns is not None else {}


def _build_editable(module: str, dirs: list[str], out: str, workdir: str, host: dict[str, Any]) -> None:
    import contextlib
    import io

    from . import _gobuild

    print(f"godlpack: building the Go plugin of the editable kit {module} ...", file=sys.stderr, flush=True)
    tmp = out + f".{os.getpid()}.tmp"
    said = io.StringIO()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(said):
            _gobuild.build_plugin(module, dirs, tmp, workdir, host, strict=False)
    except SystemExit as e:
        detail = "".join(said.getvalue().strip().splitlines(True)[-12:])
        raise SystemExit(f"{e}" + (f"\n{detail}" if detail else "")) from None
    with open(out + ".sha256", "w", encoding="ascii") as f:
        f.write(_digest(tmp) + "\n")
    os.replace(tmp, out)


def bind(module: str, namespace: dict[str, Any]) -> None:
    """Binds the Go functions of the kit module into its namespace: a kit
    package's ``__init__`` calls ``bind(__name__, globals())``."""
    import godlpack

    native = godlpack._native
    fns = getattr(native, "_kit_functions", {}).get(module)
    if fns is None and module not in _problems and native.__name__ == "godlpack._native":
        fns = _open(module, native)
    if fns is None and module not in _problems and native.__name__ == "godlpack._native":
        fns = _editable(module, namespace, native)
    if fns is None:
        if module in _problems:
            why = _problems[module]
        elif native.__name__ != "godlpack._native":
            why = (f"godlpack runs in the extension module {native.__name__} (built by build-ext), which does "
                   f"not hold the kit {module}; import {module} in a process that does not load that module")
        elif module not in markers():
            why = f"no godlpack_kits/{module}.json is on sys.path; reinstall the package {module}"
        elif plugin_of(module, markers()[module]) is None and not _go_on_path():
            why = (f"it has no Go plugin for this platform ({'/'.join(_platform())}), and composing it from its "
                   f"Go sources needs Go 1.26+ on PATH; install a {module} wheel for this platform, or Go")
        else:
            why = (f"godlpack was loaded in this process before {module} was installed; restart Python to "
                   f"compose the kits anew")
        raise ImportError(f"import {module}: its Go functions are not in godlpack's native module: {why}")
    namespace.update(fns)
    namespace.setdefault("__all__", sorted(fns))


def _go_on_path() -> bool:
    import shutil

    return shutil.which(os.environ.get("GO", "go")) is not None
