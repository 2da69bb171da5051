"""Go kits in godlpack's one Go runtime (issues 25 and 34): kit packages made
by `init-kit` and installed with pip, each a platform wheel holding its Go
plugin (built for the godlpack installed where it was built), its Go sources
and a marker. A kit's import opens its plugin in godlpack's runtime, with no
Go or C compiler on PATH; a kit without a plugin that fits is composed with
godlpack from its sources when Go is there (python/godlpack/_kits.py). Any
number of kits work together in any import order, with or without `import
godlpack` first.

Installed with `pip install --no-build-isolation` here; in the installed-wheel
run (`make test-wheel`, GODLPACK_WHEEL_DIR set) with build isolation on and
godlpack taken from the wheel by --find-links, as a user without an index
that has godlpack would."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from _helpers import missing, need
from _subproc import run_group

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYDIR = os.path.join(ROOT, "python")

# plugins: Go's plugin loader stores Go pointers where GOEXPERIMENT=cgocheck2's checker refuses
# them (the process ends in plugin.lastmoduleinit); make test-cgocheck2 deselects these tests
pytestmark = [pytest.mark.slow, pytest.mark.plugins]


def _go() -> str:
    go = shutil.which(os.environ.get("GO", "go"))
    if go is None:
        missing("the Go toolchain is needed to compose kits")
    return go


def _pythonpath(*dirs) -> str:
    import godlpack

    here = os.path.dirname(os.path.dirname(os.path.abspath(godlpack.__file__)))
    return os.pathsep.join([str(d) for d in dirs] + [here])


def _make_kit(tmp, name, body="s += core.SumOf(b)"):
    env = dict(os.environ, PYTHONPATH=_pythonpath())
    d = tmp / "src" / name
    p = subprocess.run([sys.executable, "-m", "godlpack", "init-kit", str(d)], env=env, capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    go = d / f"{name}.go"
    go.write_text(go.read_text().replace("s += core.SumOf(b)", body))
    return d


def _pip(verb, kit, *args):
    """pip VERB of a kit (install or wheel), as its users would: in the
    installed-wheel run with build isolation, godlpack (and the compiler its
    module was built with, godlpack.kit_backend) installed where pip builds,
    from the wheel; else with this checkout's godlpack."""
    wheels = os.environ.get("GODLPACK_WHEEL_DIR")
    cmd = [sys.executable, "-m", "pip", verb, "-q", "--no-deps", *args]
    env = dict(os.environ, PYTHONPATH=_pythonpath())
    if wheels:
        cmd += ["--find-links", wheels]
        env.pop("PYTHONPATH")
    else:
        cmd += ["--no-build-isolation"]
    p = subprocess.run(cmd + [str(kit)], env=env, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr


def _install(kit, target):
    """pip install of the kit into its own target folder (a folder on
    sys.path, as site-packages is)."""
    _pip("install", kit, "--target", str(target))
    assert (target / "godlpack_kits" / f"{kit.name}.json").exists()


def _no_compilers(tmp) -> str:
    """A PATH with no go, cc, gcc or zig: a user's machine without them."""
    d = tmp / "bin-without-compilers"
    d.mkdir(exist_ok=True)
    return str(d)


@pytest.fixture(scope="module")
def kits(tmp_path_factory):
    _go()
    tmp = tmp_path_factory.mktemp("kits")
    sites = {}
    for name, body in (("kita", "s += core.SumOf(b)"), ("kitb", "s += 2 * core.SumOf(b)")):  # both register "total"
        sites[name] = tmp / f"site-{name}"
        _install(_make_kit(tmp, name, body), sites[name])
    env = dict(os.environ, PYTHONPATH=_pythonpath(*sites.values()), GODLPACK_KITS_CACHE=str(tmp / "cache"),
               PATH=_no_compilers(tmp))
    return tmp, sites, env


def _source_only(site, name):
    """The installed kit without its plugin: what a kit wheel for another
    platform, or a source-only kit, leaves godlpack to compose with Go."""
    import json

    marker = site / "godlpack_kits" / f"{name}.json"
    spec = json.loads(marker.read_text())
    spec.pop("plugin", None)
    marker.write_text(json.dumps(spec))
    (site / name / "_gokit.so").unlink()


def _with_go(env, *sites):
    return dict(env, PYTHONPATH=_pythonpath(*sites), PATH=os.environ["PATH"])


def _run(code, env, cwd):
    p = run_group([sys.executable, "-c", code], 300, env, cwd=str(cwd))
    assert p is not None and p.returncode == 0, p and (p.stdout + p.stderr)
    return p


_ORDERS = [("kita", "kitb"), ("kitb", "kita"), ("godlpack", "kita", "kitb"), ("kitb", "godlpack", "kita"),
           ("kita", "kitb", "godlpack")]


def test_two_kit_wheels_load_their_plugins_in_every_import_order_without_compilers(kits):
    tmp, _, env = kits
    for order in _ORDERS:
        code = ("import importlib, numpy as np\n"
                f"for m in {order!r}: importlib.import_module(m)\n"
                "import kita, kitb, godlpack as gd\n"
                "x = np.arange(6.0).reshape(2, 3)[:, ::2]\n"
                "print(kita.total(x), kitb.total(x), kita.total.__module__, kitb.total.__module__, repr(kita.total),\n"
                "      gd._native is kita.total.__self__, 'total' in dir(gd), sorted(kitb.__all__))\n")
        p = _run(code, env, tmp)
        assert p.stdout.split() == ["10.0", "20.0", "kita", "kitb", "<built-in", "function", "total>", "True",
                                    "False", "['total']"], (order, p.stdout)
        assert p.stderr == "", (order, p.stderr)  # nothing composed, nothing said
    assert not (tmp / "cache").exists()


def test_kits_run_on_numpy_torch_and_godlpack_arrays(kits):
    need("torch")
    tmp, _, env = kits
    code = ("import kita, kitb, numpy as np, torch, godlpack as gd\n"
            "x = np.arange(6.0).reshape(2, 3)\n"
            "print(kita.total(x.T), kitb.total(torch.from_numpy(x)[:, 1:]), kita.total(gd.asarray(x)[::-1]))\n")
    p = _run(code, env, tmp)
    assert p.stdout.split() == ["15.0", "24.0", "15.0"], p.stdout + p.stderr


def test_a_kit_installed_after_godlpack_was_imported_loads(kits):
    """Plugins open at the kit's import: a kit put on sys.path while godlpack
    runs loads then."""
    tmp, sites, env = kits
    code = ("import sys, godlpack as gd, numpy as np\n"
            f"sys.path.insert(0, {str(sites['kitb'])!r})\n"
            "import kitb\n"
            "print(kitb.total(np.ones(3)))\n")
    p = _run(code, dict(env, PYTHONPATH=_pythonpath(sites["kita"])), tmp)
    assert p.stdout.strip() == "6.0", p.stdout + p.stderr


def test_a_plugin_built_for_another_godlpack_is_an_import_error_naming_both(kits, tmp_path):
    """The fingerprint is checked before Go's plugin loader runs: a plugin
    of another godlpack build or Go version would abort the process there."""
    import json

    tmp, sites, env = kits
    site = tmp_path / "site-kitold"
    shutil.copytree(sites["kita"], site)
    marker = site / "godlpack_kits" / "kita.json"
    spec = json.loads(marker.read_text())
    fp = spec["plugin"]["fingerprint"]
    fp.update(godlpack="0.0.9", go="go1.26.1", build_id="an/old/build/idold")
    marker.write_text(json.dumps(spec))
    code = ("import godlpack as gd\n"
            "try:\n"
            "    import kita\n"
            "except ImportError as e:\n"
            "    print(e)\n"
            "import kitb, numpy as np\n"
            "print(kitb.total(np.ones(2)))\n")
    p = _run(code, dict(env, PYTHONPATH=_pythonpath(site, sites["kitb"])), tmp)
    first, second = p.stdout.splitlines()
    assert first.startswith("import kita: its Go functions are not in godlpack's native module: its Go plugin was "
                            "built for godlpack 0.0.9 (go1.26.1, build idold)"), first
    assert f"this process runs godlpack {_version()}" in first and "pip install godlpack==0.0.9" in first, first
    assert second == "4.0"  # the other kit keeps working


def _version():
    import godlpack

    return godlpack.__version__


def test_two_kits_with_different_versions_of_one_go_module_the_second_is_refused(kits, tmp_path):
    import json

    tmp, sites, env = kits

    def needing(name, version):  # the installed kit, its plugin recorded as containing example.com/shared
        site = tmp_path / f"site-{name}-other"
        shutil.copytree(sites[name], site)
        marker = site / "godlpack_kits" / f"{name}.json"
        spec = json.loads(marker.read_text())
        spec["plugin"]["fingerprint"]["modules"]["example.com/shared"] = version
        marker.write_text(json.dumps(spec))
        return site

    site_a, site = needing("kita", "v1.1.0 h1:one"), needing("kitb", "v1.2.0 h1:other")
    code = ("import kita, numpy as np\n"
            "try:\n"
            "    import kitb\n"
            "except ImportError as e:\n"
            "    print(e)\n"
            "print(kita.total(np.ones(2)))\n")
    p = _run(code, dict(env, PYTHONPATH=_pythonpath(site_a, site)), tmp)
    first, second = p.stdout.splitlines()
    assert ("it contains the Go module example.com/shared v1.2.0 h1:other, and the kit kita, loaded already, "
            "contains example.com/shared v1.1.0 h1:one") in first, first
    assert second == "2.0"


def test_kit_functions_pickle_and_map_over_a_spawn_pool(kits):
    tmp, _, env = kits
    code = ("import multiprocessing as mp, pickle, numpy as np\n"
            "import kitb\n"
            "if __name__ == '__main__':\n"
            "    assert pickle.loads(pickle.dumps(kitb.total)) is kitb.total\n"
            "    with mp.get_context('spawn').Pool(2) as pool:\n"
            "        print(pool.map(kitb.total, [np.ones(i) for i in range(4)]))\n")
    script = tmp / "pool.py"
    script.write_text(code)
    p = run_group([sys.executable, str(script)], 300, env, cwd=str(tmp))
    assert p is not None and p.returncode == 0, p and (p.stdout + p.stderr)
    assert p.stdout.strip() == "[0.0, 2.0, 4.0, 6.0]"


def test_a_kit_without_a_plugin_that_fits_is_composed_from_sources_with_go(kits, tmp_path):
    """Composed once for the set of kit files, every kit in it; later
    processes load the composed module from the cache; a changed kit file
    composes anew."""
    tmp, sites, env = kits
    site = tmp_path / "site-kita2"
    shutil.copytree(sites["kita"], site)
    _source_only(site, "kita")
    env = _with_go(env, site, sites["kitb"])
    code = "import kita, kitb, numpy as np; print(kita.total(np.ones(2)), kitb.total(np.ones(2)))"
    for first in (True, False):
        p = _run(code, env, tmp)
        assert p.stdout.split() == ["2.0", "4.0"], p.stdout + p.stderr
        assert ("composing its native module with the Go kits kita, kitb" in p.stderr) == first, p.stderr
    go = next((site / "kita" / "_go").rglob("kita.go"))
    go.write_text(go.read_text().replace("s += core.SumOf(b)", "s += 3 * core.SumOf(b)"))
    p = _run("import kita, numpy as np; print(kita.total(np.ones(2)))", env, tmp)
    assert p.stdout.strip() == "6.0" and "composing its native module" in p.stderr, p.stdout + p.stderr
    # python -m godlpack composes nothing: its commands call no kit function
    site3 = tmp_path / "site-kita3"
    shutil.copytree(site, site3)
    go = next((site3 / "kita" / "_go").rglob("kita.go"))
    go.write_text(go.read_text().replace("s += core.SumOf(b)", "s += 5 * core.SumOf(b)"))
    p = run_group([sys.executable, "-m", "godlpack", "--version"], 300, _with_go(env, site3), cwd=str(tmp))
    assert p is not None and p.returncode == 0 and "composing" not in p.stderr, p and (p.stdout + p.stderr)


def test_without_go_a_kit_without_a_plugin_says_what_to_install(kits, tmp_path):
    tmp, sites, env = kits
    site = tmp_path / "site-kita-src"
    shutil.copytree(sites["kita"], site)
    _source_only(site, "kita")
    code = ("import godlpack\n"
            "try:\n"
            "    import kita\n"
            "except ImportError as e:\n"
            "    print(e)\n")
    p = _run(code, dict(env, PYTHONPATH=_pythonpath(site)), tmp)
    assert "it has no Go plugin for this platform" in p.stdout and "Go 1.26+ on PATH" in p.stdout, p.stdout
    assert p.stderr == ""


_BAD = "func init() {\n\tgofunc.Func1(\"half\", func(x float32) (float32, error) { return x / 2, nil })\n"


def test_a_registration_mistake_stops_pip_install(tmp_path):
    """The build compiles the kit once to write its stub: a registration that
    cannot work stops `pip install` with the reason, nothing installed."""
    kit = _make_kit(tmp_path, "kitbad")
    go = kit / "kitbad.go"
    go.write_text(go.read_text().replace("func init() {\n", _BAD))
    wheels = os.environ.get("GODLPACK_WHEEL_DIR")
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--target", str(tmp_path / "site")]
    cmd += ["--find-links", wheels] if wheels else ["--no-build-isolation"]
    env = dict(os.environ, PYTHONPATH=_pythonpath())
    if wheels:
        env.pop("PYTHONPATH")
    p = subprocess.run(cmd + [str(kit)], env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode != 0
    assert 'registering "half": type float32 is not a supported parameter' in p.stdout + p.stderr
    assert not (tmp_path / "site" / "godlpack_kits").exists()


_EXITS = ("import (\n", "import (\n\t\"os\"\n"), ("func init() {\n", "func init() {\n\tos.Exit(0)\n")


@pytest.mark.parametrize("mistake,reason", [
    ([("func init() {\n", _BAD)], 'registering "half": type float32 is not a supported parameter'),
    (_EXITS, "before it finished loading, with nothing on stderr: a kit's Go init function ends the process "
             "(os.Exit)"),
], ids=["registration", "os.Exit(0) in init"])
def test_an_installed_kit_that_cannot_compose_is_an_import_error(kits, tmp_path, mistake, reason):
    """A kit that does not compose (here its installed Go sources were
    changed to a registration mistake, or to an init that ends the process
    with status 0, and its plugin removed): godlpack imports without the
    kits, saying nothing, and importing a kit raises ImportError with the
    reason; never a signal, never the end of the interpreter. The failure
    is remembered for that set of kit files: the next process neither
    rebuilds nor prints."""
    tmp, sites, env = kits
    site = tmp_path / "site-kitbad"
    shutil.copytree(sites["kitb"], site)
    _source_only(site, "kitb")
    go = next((site / "kitb" / "_go").rglob("kitb.go"))
    text = go.read_text()
    for old, new in mistake:
        text = text.replace(old, new, 1)
    go.write_text(text)
    env = _with_go(env, sites["kita"], site)
    code = ("import godlpack as gd\n"
            "print(gd.zeros(2).tolist())\n"
            "for m in ('kita', 'kitb'):\n"
            "    try:\n"
            "        __import__(m)\n"
            "    except ImportError as e:\n"
            "        print(m, e)\n")
    for first in (True, False):
        p = _run(code, env, tmp)
        lines = p.stdout.splitlines()
        assert lines[0] == "[0.0, 0.0]"
        # kita's plugin fits; it loads, kitb's failure is kitb's
        assert len(lines) == 2, p.stdout
        assert lines[1].startswith("kitb import kitb: its Go functions are not in godlpack's native module: "
                                   "composing godlpack with the installed Go kits (kita, kitb) failed"), p.stdout
        assert reason in lines[1], lines[1]
        said = [x for x in p.stderr.splitlines() if x.strip()]
        assert said == (["godlpack: composing its native module with the Go kits kita, kitb, once for this set "
                         f"of kits (in {x.split('(in ', 1)[1]}" for x in said[:1]] if first else []), p.stderr


def test_a_kit_package_ships_its_stub(kits):
    _, sites, _ = kits
    pyi = (sites["kitb"] / "kitb" / "__init__.pyi").read_text()
    assert "def total(a: _ArrayLike) -> float:" in pyi and "a: an array (dtype float64)" in pyi
    assert (sites["kitb"] / "kitb" / "py.typed").exists()
    compile(pyi, "__init__.pyi", "exec")


def test_without_kits_godlpack_loads_its_own_module(tmp_path):
    code = ("import godlpack, godlpack._kits as k, os\n"
            "print(k.markers(), os.path.dirname(godlpack._native.__file__) == os.path.dirname(godlpack.__file__))\n")
    env = dict(os.environ, PYTHONPATH=_pythonpath(), GODLPACK_KITS_CACHE=str(tmp_path / "cache"))
    p = _run(code, env, tmp_path)
    assert p.stdout.split() == ["{}", "True"] and not (tmp_path / "cache").exists()


def test_a_module_planted_in_the_cache_by_another_user_is_not_loaded(kits, tmp_path):
    """A shared cache (GODLPACK_KITS_CACHE on a folder anyone may write, as
    /tmp): what another uid put there is refused, with the reason."""
    if os.getuid() != 0 or shutil.which("setpriv") is None:
        missing("acting as another user needs root and setpriv (util-linux)")
    tmp, sites, env = kits
    site = tmp_path / "site-kita-shared"
    shutil.copytree(sites["kita"], site)
    _source_only(site, "kita")
    import tempfile

    shared = tempfile.mkdtemp(prefix="godlpack-shared-cache-", dir="/tmp")  # the other user can reach it
    os.chmod(shared, 0o1777)
    env = dict(_with_go(env, site), GODLPACK_KITS_CACHE=os.path.join(shared, "kits"))
    key = _run("import godlpack._kits as k, os\n"
               "found = k.markers()\n"
               "import importlib.util\n"
               "print(k._key(k._kits(found), importlib.util.find_spec('godlpack._native').origin))",
               dict(env, GODLPACK_KITS_CACHE=str(tmp_path / "unused")), tmp).stdout.strip()
    plant = ("import os, hashlib, sys\n"
             "d = os.path.join(sys.argv[1], 'kits', sys.argv[2])\n"
             "os.makedirs(d)\n"
             "so = os.path.join(d, '_native.abi3.so')\n"
             "open(so, 'wb').write(b'planted')\n"
             "open(so + '.sha256', 'w').write(hashlib.sha256(b'planted').hexdigest())\n")
    try:
        # the system's Python: the other user may not reach this one
        p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
                            plant, shared, key], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        p = _run("import godlpack\ntry:\n    import kita\nexcept ImportError as e:\n    print(e)\n", env, tmp)
        assert "belongs to another user (uid 65534); it is not loaded" in p.stdout, p.stdout + p.stderr
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_composed_modules_unused_for_a_month_are_pruned(kits, tmp_path):
    """Building a composed module removes those not loaded for 30 days; the
    one in use is touched at every load, so it stays."""
    tmp, sites, env = kits
    cache = tmp / "cache"
    old = cache / "oldoldoldoldoldoldol"
    old.mkdir()
    (old / "_native.abi3.so").write_bytes(b"")
    recent = cache / "recentrecentrecentre"
    recent.mkdir()
    (recent / "_native.abi3.so").write_bytes(b"")
    month = 31 * 24 * 3600
    os.utime(old / "_native.abi3.so", (os.path.getmtime(old / "_native.abi3.so") - month,) * 2)
    site = tmp_path / "site-kita3"
    shutil.copytree(sites["kita"], site)
    _source_only(site, "kita")
    go = next((site / "kita" / "_go").rglob("kita.go"))
    go.write_text(go.read_text().replace("s += core.SumOf(b)", "s += 4 * core.SumOf(b)"))  # a new set: a build
    env = _with_go(env, site, sites["kitb"])
    cache.mkdir(mode=0o700, exist_ok=True)
    p = _run("import kita, numpy as np; print(kita.total(np.ones(2)))", env, tmp)
    assert p.stdout.strip() == "8.0" and "composing" in p.stderr
    assert not old.exists() and recent.exists()


# ---- kit wheels, installed as a user without Go or a C compiler would ------

_GONUM_KIT = '''// Package {name} holds the Go functions of the Python module {name}.
package {name}

import (
	"gonum.org/v1/gonum/floats"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/gofunc"
)

func init() {{
	gofunc.Func1("norm", Norm, gofunc.Params(gofunc.Array("a").DType(core.Float64)))
}}

// Norm returns the Euclidean norm of a float64 array of any layout (gonum's
// floats.Norm of a contiguous copy).
func Norm(a *core.Array) (float64, error) {{
	c, err := a.Copy()
	if err != nil {{
		return 0, err
	}}
	defer c.Release()
	xs, err := c.Float64s()
	if err != nil {{
		return 0, err
	}}
	return floats.Norm(xs, 2), nil
}}
'''

# a real third-party Go module, pinned, from the Go module proxy
GONUM = "gonum.org/v1/gonum@v0.17.0"


def _pip_wheel(kit, out):
    """`pip wheel` of a kit: this machine's wheel, as docs/go.md says."""
    _pip("wheel", kit, "-w", str(out))


@pytest.fixture(scope="module")
def kit_wheels(tmp_path_factory):
    go = _go()
    tmp = tmp_path_factory.mktemp("kitwheels")
    kitw = _make_kit(tmp, "kitw")
    kitg = _make_kit(tmp, "kitg")
    (kitg / "kitg.go").write_text(_GONUM_KIT.format(name="kitg"))
    (kitg / "kitg_test.go").unlink()
    p = subprocess.run([go, "get", GONUM], cwd=kitg, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        missing(f"go get {GONUM} (the Go module proxy) failed: {p.stderr.strip()}")
    out = tmp / "wheels"
    for kit in (kitw, kitg):
        _pip_wheel(kit, out)
    return tmp, out


def test_kit_wheels_are_platform_wheels_pinning_godlpack(kit_wheels):
    import zipfile

    import godlpack

    _, out = kit_wheels
    names = sorted(p.name for p in out.glob("*.whl"))
    machine = os.uname().machine
    assert names == [f"kitg-0.1.0-py3-none-linux_{machine}.whl", f"kitw-0.1.0-py3-none-linux_{machine}.whl"]
    with zipfile.ZipFile(out / names[0]) as z:
        meta = z.read("kitg-0.1.0.dist-info/METADATA").decode()
        marker = z.read("godlpack_kits/kitg.json").decode()
        assert "kitg/_gokit.so" in z.namelist()
    assert f"Requires-Dist: godlpack=={godlpack.__version__}" in meta
    assert '"gonum.org/v1/gonum": "v0.17.0 h1:' in marker


_OFFLINE = """
import multiprocessing as mp, shutil, sys
import numpy as np
if __name__ == "__main__":
    assert [shutil.which(t) for t in ("go", "cc", "gcc", "zig")] == [None] * 4
    for m in sys.argv[1:]:
        __import__(m)
    import kitg, kitw, godlpack as gd
    x = np.arange(12.0).reshape(3, 4)
    out = [kitw.total(x.T), kitg.norm(x[:, ::2]), kitw.total(gd.asarray(x)[1:]), kitg.norm(gd.ones(4))]
    try:
        import torch
    except ImportError:
        out += ["no-torch", "no-torch"]
    else:
        out += [kitw.total(torch.ones(5, dtype=torch.float64)), kitg.norm(torch.full((9,), 2.0, dtype=torch.float64))]
    with mp.get_context("spawn").Pool(2) as pool:
        out += pool.map(kitg.norm, [np.ones(4), np.full(9, 2.0)])
    print(out)
"""


def test_kit_wheels_install_offline_and_run_where_there_is_no_compiler(kit_wheels, tmp_path):
    """pip install --no-index --find-links of two kit wheels (one with a
    third-party Go module) into a fresh venv; run where PATH has no go, cc,
    gcc or zig, in both import orders and in spawn children."""
    _, out = kit_wheels
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    borrowed = [p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)]
    wheels = os.environ.get("GODLPACK_WHEEL_DIR")
    cmd = [str(py), "-m", "pip", "install", "-q", "--no-index", "--find-links", str(out)]
    if wheels:  # godlpack==X.Y.Z, the kits' requirement, from its wheel
        cmd += ["--find-links", wheels]
    else:  # this checkout's godlpack, which the kits were built against
        cmd += ["--no-deps"]
        borrowed.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(_godlpack_file()))))
    p = subprocess.run(cmd + ["kitw", "kitg"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    # numpy and torch from this interpreter (after the venv's own packages)
    with open(os.path.join(site, "borrowed-libs.pth"), "w") as f:
        f.write("\n".join(borrowed) + "\n")
    script = tmp_path / "offline.py"
    script.write_text(_OFFLINE)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GODLPACK_KITS_CACHE")}
    env.update(PATH=_no_compilers(tmp_path), HOME=str(tmp_path / "home"))
    for order in (("kitw", "kitg"), ("kitg", "kitw"), ("godlpack", "kitg")):
        p = run_group([str(py), str(script), *order], 300, env, cwd=str(tmp_path))
        assert p is not None and p.returncode == 0, p and (p.stdout + p.stderr)
        got = eval(p.stdout.strip())  # a list of floats and strings
        torch_part = got[4:6] if got[4] != "no-torch" else [5.0, 6.0]
        assert got[:4] + torch_part + got[6:] == [66.0, pytest.approx(14.832397, rel=1e-6), 60.0, 2.0, 5.0, 6.0,
                                                    2.0, 6.0], (order, got)
        assert p.stderr == "" and not (tmp_path / "home").exists(), (order, p.stderr)  # nothing composed, cached


def _godlpack_file():
    import godlpack

    return godlpack.__file__


def test_an_editable_kit_rebuilds_its_plugin_when_a_go_file_changes(tmp_path):
    """pip install -e KIT: the kit's import builds its Go plugin from the
    sources for the running godlpack (Go needed, as for any edit), again
    after an edit, and removes the superseded build."""
    _go()
    kit = _make_kit(tmp_path, "kite")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = str(venv / "bin" / "python")
    p = subprocess.run([py, "-m", "pip", "install", "-q", "setuptools>=70.1"], capture_output=True, text=True,
                       timeout=600)
    if p.returncode != 0:
        missing(f"pip install setuptools>=70.1 into a fresh venv failed: {p.stderr.strip()}")
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    with open(os.path.join(site, "borrowed-libs.pth"), "w") as f:  # numpy, after the venv's own packages
        f.write("\n".join(p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)) + "\n")
    env = dict(os.environ, PYTHONPATH=_pythonpath(), GODLPACK_KITS_CACHE=str(tmp_path / "cache"))
    p = subprocess.run([py, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", "-e", str(kit)],
                       env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    code = "import kite, numpy as np; print(kite.total(np.ones(3)))"
    elsewhere = tmp_path / "elsewhere"  # not the kit's parent: its folder would shadow the package
    elsewhere.mkdir()
    go = kit / "kite.go"
    for factor, want, built in (("1", "3.0", True), ("1", "3.0", False), ("2", "6.0", True)):
        if factor != "1":
            go.write_text(go.read_text().replace("s += core.SumOf(b)", f"s += {factor} * core.SumOf(b)"))
        p = run_group([py, "-c", code], 300, env, cwd=str(elsewhere))
        assert p is not None and p.returncode == 0, p and (p.stdout + p.stderr)
        assert p.stdout.strip() == want, p.stdout + p.stderr
        assert ("building the Go plugin of the editable kit kite" in p.stderr) == built, p.stderr
    entries = sorted(x.name for x in (tmp_path / "cache" / "editable").iterdir() if not x.name.endswith(".work"))
    assert len(entries) == 1 and entries[0].startswith("kite-"), entries  # the superseded build is gone


def test_a_kit_with_a_go_dependency_composes_from_sources_with_the_others(kits, kit_wheels, tmp_path):
    """Composition learns Go dependencies: the kit's installed go.mod
    requires gonum and godlpack v0.0.0, which the generated go.work replaces
    with godlpack's sources."""
    tmp, sites, env = kits
    _, out = kit_wheels
    site = tmp_path / "site-kitg"
    p = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site),
                        *map(str, out.glob("kitg-*.whl"))], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    _source_only(site, "kitg")
    code = "import kitg, kita, numpy as np; print(kitg.norm(np.array([3.0, 4.0])), kita.total(np.ones(2)))"
    p = _run(code, _with_go(env, site, sites["kita"]), tmp)
    assert p.stdout.split() == ["5.0", "2.0"], p.stdout + p.stderr
    assert "composing its native module with the Go kits kita, kitg" in p.stderr
