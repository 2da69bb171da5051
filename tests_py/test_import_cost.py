"""What `import godlpack` loads (issue 35, item 8): what a first exchange
needs, and none of the modules that cost milliseconds at every import.
`python -m godlpack bench startup` prints the time it takes."""

import subprocess
import sys

# typing and re cost milliseconds each; numpy and torch are never imported by
# godlpack itself; repr, Dask's and joblib's hooks and the kit machinery
# load when used
NOT_AT_IMPORT = ["typing", "re", "numpy", "torch", "ml_dtypes", "importlib.metadata", "json", "subprocess",
                 "shutil", "godlpack._repr", "godlpack._check", "godlpack._bench", "godlpack._kitbuild",
                 "godlpack._gobuild", "godlpack._matrix"]


def test_import_godlpack_loads_only_what_an_exchange_needs():
    code = ("import sys; before = set(sys.modules); import godlpack; "
            "print(' '.join(sorted(set(sys.modules) - before)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True).stdout
    loaded = set(out.split())
    assert "godlpack._native" in loaded, out  # the test can see what an import loads
    assert not loaded & set(NOT_AT_IMPORT), sorted(loaded & set(NOT_AT_IMPORT))


def test_repr_loads_on_first_use_and_prints_as_numpy():
    code = ("import sys, godlpack as gd; a = gd.asarray([1.5, 2.0]); assert 'godlpack._repr' not in sys.modules; "
            "print(repr(a), str(a), format(gd.asarray(2.5), '.1f')); assert 'godlpack._repr' in sys.modules")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True).stdout
    assert out.strip() == "Array([1.5, 2. ]) [1.5 2. ] 2.5"
