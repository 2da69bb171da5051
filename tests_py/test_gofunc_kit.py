"""The extension kit end to end (issue 15): `python -m godlpack build-ext`
builds examples/imgkit into a module with its .pyi stub; its own tests
(examples/imgkit/test_imgkit.py) run in a fresh interpreter, where imgkit is
imported first and becomes godlpack's runtime; importing it after godlpack is
refused (one Go runtime per process)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

import _dpenv  # noqa: F401  (OCL_ICD_FILENAMES for dpnp in the imgkit tests)
from _helpers import missing
from _subproc import run_group

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYDIR = os.path.join(ROOT, "python")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    if shutil.which(os.environ.get("GO", "go")) is None:
        missing("the Go toolchain is needed to build the kit's example")
    out = tmp_path_factory.mktemp("imgkit")
    env = dict(os.environ, PYTHONPATH=PYDIR)
    p = subprocess.run([sys.executable, "-m", "godlpack", "build-ext", "imgkit", "./examples/imgkit", "-o", str(out)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "built " in p.stdout and "(3 Go functions: blur, histogram, scale)" in p.stdout, p.stdout
    return out


def _env(out):
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(out), PYDIR]))


def test_build_ext_writes_module_and_stub(built):
    assert (built / "imgkit.abi3.so").exists()
    pyi = (built / "imgkit.pyi").read_text()
    assert "def blur(img: _ArrayLike, sigma: float = 1.0) -> Array:" in pyi
    assert "def histogram(data: _ArrayLike, bins: int = 256) -> Array:" in pyi
    assert "def scale(img: _ArrayLike, factor: float) -> None:" in pyi
    assert "Blur returns img (a 2-d float32 image) blurred by a Gaussian" in pyi
    assert "img: an array (dtype float32, 2-d, C-contiguous)" in pyi
    assert "_gofunc" not in pyi and "may_share_memory" not in pyi  # godlpack's own come from godlpack
    compile(pyi, "imgkit.pyi", "exec")


def test_imgkit_own_tests(built):
    env = _env(built)
    env["IMGKIT_DPNP"] = "1" if _has("dpnp") else "0"
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_imgkit.py"],
                       cwd=os.path.join(ROOT, "examples", "imgkit"), env=env, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert " passed" in p.stdout


def _has(mod):
    import importlib.util

    return importlib.util.find_spec(mod) is not None


def test_import_after_godlpack_is_refused_naming_the_order(built):
    code = "import godlpack\ntry:\n import imgkit\nexcept ImportError as e:\n print(e)\n"
    p = run_group([sys.executable, "-c", code], 60, _env(built))
    assert p is not None and p.returncode == 0, p and p.stderr
    assert "import imgkit: godlpack is already loaded" in p.stdout
    assert "import imgkit before godlpack" in p.stdout


def test_godlpack_after_imgkit_uses_it(built):
    code = ("import imgkit, godlpack as gd, numpy as np\n"
            "print(gd._native is imgkit, gd.from_dlpack(np.zeros(3)).shape, imgkit.zeros(2).tolist())\n")
    p = run_group([sys.executable, "-c", code], 60, _env(built))
    assert p is not None and p.returncode == 0, p and p.stderr
    assert p.stdout.split() == ["True", "(3,)", "[0.0,", "0.0]"]


def test_kit_functions_are_module_functions_and_pickle_to_spawned_workers(built):
    """A kit function is a function of its module (__module__, __qualname__,
    repr), pickles by reference, and so maps over a spawn pool (issue 25)."""
    code = ("import imgkit, pickle, multiprocessing as mp, numpy as np\n"
            "f = imgkit.histogram\n"
            "print(f.__module__, f.__qualname__, repr(f), pickle.loads(pickle.dumps(f)) is f)\n"
            "if __name__ == '__main__':\n"
            "    data = [np.full(10, i, np.uint8) for i in range(3)]\n"
            "    with mp.get_context('spawn').Pool(2) as pool:\n"
            "        out = pool.map(f, data, chunksize=1)\n"
            "    print([int(np.asarray(h)[i]) for i, h in enumerate(out)])\n")
    p = run_group([sys.executable, "-c", code], 120, _env(built))
    assert p is not None and p.returncode == 0, p and (p.stdout + p.stderr)
    first = p.stdout.splitlines()[0]
    assert first == "imgkit histogram <built-in function histogram> True", p.stdout
    assert p.stdout.splitlines()[-1] == "[10, 10, 10]", p.stdout


BADKIT_GO = '''package badkit

import "github.com/godlpack/godlpack/gofunc"

func init() {
	gofunc.Func1("good", func(x float64) (float64, error) { return 2 * x, nil })
	gofunc.Func1("half", func(x float32) (float32, error) { return x / 2, nil })
}
'''


def test_a_registration_mistake_is_an_import_error_not_a_crash(tmp_path):
    """A function registered with a type gofunc does not take builds, but
    build-ext and every import then say which registration failed
    (ImportError), instead of the process dying in a Go init (issue 25)."""
    if shutil.which(os.environ.get("GO", "go")) is None:
        missing("the Go toolchain is needed to build a kit")
    (tmp_path / "badkit").mkdir()
    (tmp_path / "go.mod").write_text("module example.com/badkit\n\ngo 1.26\n")
    (tmp_path / "badkit" / "badkit.go").write_text(BADKIT_GO)
    env = dict(os.environ, PYTHONPATH=PYDIR)
    p = subprocess.run([sys.executable, "-m", "godlpack", "build-ext", "badkit", "./badkit", "-o", str(tmp_path)],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 1, p.stdout + p.stderr
    assert 'registering "half": type float32 is not a supported parameter' in p.stdout + p.stderr
    code = "try:\n import badkit\nexcept ImportError as e:\n print('ImportError:', e)\n"
    q = run_group([sys.executable, "-c", code], 60, dict(env, PYTHONPATH=os.pathsep.join([str(tmp_path), PYDIR])))
    assert q is not None and q.returncode == 0, q and q.stderr
    assert q.stdout.startswith("ImportError: import badkit: a Go function could not be registered: "
                               'registering "half"'), q.stdout


MYKIT_GO = '''package mykit

import (
	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/gofunc"
)

func init() { gofunc.Func1("total", Total) }

// Total returns the sum of a float64 array (any layout).
func Total(a *core.Array) (float64, error) {
	it, err := core.Values[float64](a)
	if err != nil {
		return 0, err
	}
	var s float64
	for v := range it {
		s += v
	}
	return s, nil
}
'''

SETUP_PY = '''from setuptools import setup
from godlpack.build import GoExtension, build_go_ext

setup(name="mykit", ext_modules=[GoExtension("mykit", ["./mykit"])], cmdclass={"build_ext": build_go_ext})
'''


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """godlpack as a wheel installs it: build_py output (godlpack/_gosrc
    included) plus the built extension, away from the checkout."""
    if shutil.which(os.environ.get("GO", "go")) is None:
        missing("the Go toolchain is needed to build godlpack from its sources")
    lib = tmp_path_factory.mktemp("site")
    p = subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(lib)], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    import godlpack

    shutil.copy(godlpack._native.__file__, lib / "godlpack")
    assert (lib / "godlpack" / "_gosrc" / "gofunc" / "registry.go").exists()
    assert not list((lib / "godlpack" / "_gosrc").rglob("*_test.go"))
    proj = tmp_path_factory.mktemp("proj")
    (proj / "mykit").mkdir()
    (proj / "go.mod").write_text("module example.com/mykit\n\ngo 1.26\n")
    (proj / "mykit" / "mykit.go").write_text(MYKIT_GO)
    (proj / "setup.py").write_text(SETUP_PY)
    return lib, proj


def _total(lib, out):
    code = "import mykit, numpy as np; print(mykit.total(np.arange(6.0).reshape(2, 3).T), mykit.total.__doc__)"
    p = run_group([sys.executable, "-c", code], 60, dict(os.environ, PYTHONPATH=os.pathsep.join([str(out), str(lib)])))
    assert p is not None and p.returncode == 0, p and p.stderr
    return p.stdout.strip()


def test_build_ext_from_an_installed_godlpack(installed, tmp_path):
    lib, proj = installed
    env = dict(os.environ, PYTHONPATH=str(lib))
    p = subprocess.run([sys.executable, "-m", "godlpack", "build-ext", "mykit", "./mykit", "-o", str(tmp_path)],
                       cwd=proj, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "_gosrc" in p.stdout  # the installed Go sources, not the checkout
    assert _total(lib, tmp_path) == "15.0 Total returns the sum of a float64 array (any layout)."


def test_setuptools_helper_builds_a_downstream_module(installed):
    lib, proj = installed
    env = dict(os.environ, PYTHONPATH=str(lib))
    p = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=proj, env=env,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert list(proj.glob("mykit*.so"))
    assert _total(lib, proj).startswith("15.0 ")


def test_init_kit_writes_a_package_go_tools_and_pip_accept(tmp_path):
    """python -m godlpack init-kit DIR: a kit package whose Go module go vet
    and go test accept with no edits (go.mod replaces godlpack with these Go
    sources), which pip installs and Python imports, composed with godlpack
    (issue 25; tests_py/test_kits.py composes several)."""
    go = shutil.which(os.environ.get("GO", "go"))
    if go is None:
        missing("the Go toolchain is needed for a kit")
    env = dict(os.environ, PYTHONPATH=PYDIR)
    d = tmp_path / "mytools"
    p = subprocess.run([sys.executable, "-m", "godlpack", "init-kit", str(d)], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert sorted(f.name for f in d.iterdir()) == ["go.mod", "mytools", "mytools.go", "mytools_test.go",
                                                   "pyproject.toml", "setup.py"]
    for cmd in (["vet", "./..."], ["test", "./..."]):
        q = subprocess.run([go, *cmd], cwd=d, capture_output=True, text=True, timeout=300)
        assert q.returncode == 0, (cmd, q.stdout + q.stderr)
    site = tmp_path / "site"
    q = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", "--target",
                        str(site), str(d)], env=env, capture_output=True, text=True, timeout=600)
    assert q.returncode == 0, q.stdout + q.stderr
    code = "import mytools, numpy as np; print(mytools.total(np.arange(6.0).reshape(2, 3)[:, ::2]))"
    r = run_group([sys.executable, "-c", code], 300, dict(env, PYTHONPATH=os.pathsep.join([str(site), PYDIR]),
                                                          GODLPACK_KITS_CACHE=str(tmp_path / "cache")), cwd=tmp_path)
    assert r is not None and r.returncode == 0 and r.stdout.strip() == "10.0", r and (r.stdout + r.stderr)
    # never overwrites; refuses a name that is no identifier
    again = subprocess.run([sys.executable, "-m", "godlpack", "init-kit", str(d)], env=env, capture_output=True,
                           text=True)
    assert again.returncode == 1 and "nothing was written" in again.stderr
    bad = subprocess.run([sys.executable, "-m", "godlpack", "init-kit", str(tmp_path / "my-tools")], env=env,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "pass --name NAME" in bad.stderr


def test_go_compile_errors_point_at_the_users_files(tmp_path):
    """A Go compile error names the user's file as the user knows it, and the
    closing line asks for the fix, not for a toolchain check."""
    if shutil.which(os.environ.get("GO", "go")) is None:
        missing("the Go toolchain is needed for a kit")
    env = dict(os.environ, PYTHONPATH=PYDIR)
    d = tmp_path / "broken"
    assert subprocess.run([sys.executable, "-m", "godlpack", "init-kit", str(d)], env=env).returncode == 0
    src = (d / "broken.go").read_text().replace("var s float64", "var s float64\n\tundefinedThing()")
    (d / "broken.go").write_text(src)
    q = subprocess.run([sys.executable, "-m", "godlpack", "build-ext", "broken", ".", "-o", "."], cwd=d, env=env,
                       capture_output=True, text=True, timeout=600)
    assert q.returncode == 1
    assert "\nbroken.go:" in q.stderr and "undefined: undefinedThing" in q.stderr, q.stderr
    assert "fix the code they point at" in q.stderr and "C compiler" not in q.stderr


def test_a_name_of_godlpacks_api_is_refused_at_build(tmp_path):
    """A kit function named like godlpack's own API (asarray) would shadow it
    in the module: build-ext refuses it, naming the clash, and leaves no
    module behind (issue 25)."""
    if shutil.which(os.environ.get("GO", "go")) is None:
        missing("the Go toolchain is needed to build a kit")
    env = dict(os.environ, PYTHONPATH=PYDIR)
    d = tmp_path / "clash"
    assert subprocess.run([sys.executable, "-m", "godlpack", "init-kit", str(d)], env=env).returncode == 0
    src = (d / "clash.go").read_text().replace('gofunc.Func1("total"', 'gofunc.Func1("asarray"')
    (d / "clash.go").write_text(src)
    p = subprocess.run([sys.executable, "-m", "godlpack", "build-ext", "clash", ".", "-o", "."], cwd=d, env=env,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "registers asarray, which godlpack's own API uses (godlpack.asarray)" in p.stderr, p.stderr
    assert not list(d.glob("clash*.so"))
