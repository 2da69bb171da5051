"""Go kits that compose (issue 25): kit packages made by `init-kit` and
installed with pip, each shipping Go sources and a marker; godlpack composes
them with its own runtime into one native module at import
(python/godlpack/_kits.py), so that any number of kits work together in any
import order, with or without `import godlpack` first.

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

from _helpers import missing
from _subproc import run_group

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYDIR = os.path.join(ROOT, "python")

pytestmark = pytest.mark.slow


def _go() -> str:
    go = shutil.which(os.environ.get("GO", "go"))
    if go is None:
        missing("the Go toolchain is needed to compose kits")
    return go


def _pythonpath(*dirs) -> str:
    import godlpack

    here = os.path.dirname(os.path.dirname(os.path.abspath(godlpack.__file__)))
    return os.pathsep.join([str(d) for d in dirs] + [here])


def _make_kit(tmp, name, body="s += r.At(i)"):
    env = dict(os.environ, PYTHONPATH=_pythonpath())
    d = tmp / "src" / name
    p = subprocess.run([sys.executable, "-m", "godlpack", "init-kit", str(d)], env=env, capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    go = d / f"{name}.go"
    go.write_text(go.read_text().replace("s += r.At(i)", body))
    return d


def _install(kit, target):
    """pip install of the kit into its own target folder (a folder on
    sys.path, as site-packages is)."""
    wheels = os.environ.get("GODLPACK_WHEEL_DIR")
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target)]
    env = dict(os.environ, PYTHONPATH=_pythonpath())
    if wheels:  # build isolation on: pip installs setuptools and godlpack (from the wheel) where it builds
        cmd += ["--find-links", wheels]
        env.pop("PYTHONPATH")
    else:
        cmd += ["--no-build-isolation"]
    p = subprocess.run(cmd + [str(kit)], env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (target / "godlpack_kits" / f"{kit.name}.json").exists()


@pytest.fixture(scope="module")
def kits(tmp_path_factory):
    _go()
    tmp = tmp_path_factory.mktemp("kits")
    sites = {}
    for name, body in (("kita", "s += r.At(i)"), ("kitb", "s += 2 * r.At(i)")):  # both register "total"
        sites[name] = tmp / f"site-{name}"
        _install(_make_kit(tmp, name, body), sites[name])
    env = dict(os.environ, PYTHONPATH=_pythonpath(*sites.values()), GODLPACK_KITS_CACHE=str(tmp / "cache"))
    return tmp, sites, env


def _run(code, env, cwd):
    p = run_group([sys.executable, "-c", code], 300, env, cwd=str(cwd))
    assert p is not None and p.returncode == 0, p and (p.stdout + p.stderr)
    return p


_ORDERS = [("kita", "kitb"), ("kitb", "kita"), ("godlpack", "kita", "kitb"), ("kitb", "godlpack", "kita"),
           ("kita", "kitb", "godlpack")]


def test_two_kits_compose_in_every_import_order(kits):
    tmp, _, env = kits
    first = True
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
        # composed once, at the first import; later processes load it from the cache
        assert ("composing its native module with the Go kits kita, kitb" in p.stderr) == first, (order, p.stderr)
        first = False


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


def test_a_changed_kit_is_composed_anew(kits, tmp_path):
    tmp, sites, env = kits
    site = tmp_path / "site-kita2"
    shutil.copytree(sites["kita"], site)
    go = next((site / "kita" / "_go").rglob("kita.go"))
    go.write_text(go.read_text().replace("s += r.At(i)", "s += 3 * r.At(i)"))
    env = dict(env, PYTHONPATH=_pythonpath(site, sites["kitb"]))
    p = _run("import kita, numpy as np; print(kita.total(np.ones(2)))", env, tmp)
    assert p.stdout.strip() == "6.0" and "composing its native module" in p.stderr, p.stdout + p.stderr


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


def test_an_installed_kit_that_cannot_compose_is_an_import_error(kits, tmp_path):
    """A kit that no longer composes (here its installed Go sources were
    changed to a registration mistake): godlpack imports without the kits,
    saying why once, and importing a kit raises ImportError with the reason;
    never a signal."""
    tmp, sites, env = kits
    site = tmp_path / "site-kitbad"
    shutil.copytree(sites["kitb"], site)
    go = next((site / "kitb" / "_go").rglob("kitb.go"))
    go.write_text(go.read_text().replace("func init() {\n", _BAD))
    env = dict(env, PYTHONPATH=_pythonpath(sites["kita"], site))
    code = ("import godlpack as gd\n"
            "print(gd.zeros(2).tolist())\n"
            "for m in ('kita', 'kitb'):\n"
            "    try:\n"
            "        __import__(m)\n"
            "    except ImportError as e:\n"
            "        print(m, e)\n")
    p = _run(code, env, tmp)
    lines = p.stdout.splitlines()
    assert lines[0] == "[0.0, 0.0]"
    for m, line in zip(("kita", "kitb"), lines[1:]):
        assert line.startswith(f"{m} import {m}: its Go functions are not in godlpack's native module: composing "
                               "godlpack with the installed Go kits (kita, kitb) failed"), p.stdout
        assert 'registering "half": type float32 is not a supported parameter' in line, line
    assert "godlpack works without them" in p.stderr


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
    go = next((site / "kita" / "_go").rglob("kita.go"))
    go.write_text(go.read_text().replace("s += r.At(i)", "s += 4 * r.At(i)"))  # a new set: a build
    env = dict(env, PYTHONPATH=_pythonpath(site, sites["kitb"]))
    p = _run("import kita, numpy as np; print(kita.total(np.ones(2)))", env, tmp)
    assert p.stdout.strip() == "8.0" and "composing" in p.stderr
    assert not old.exists() and recent.exists()
