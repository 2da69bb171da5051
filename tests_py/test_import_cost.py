"""What `import godlpack` loads (issue 35, item 8): what a first exchange
needs, and none of the modules that cost milliseconds at every import.
`python -m godlpack bench startup` prints the time it takes."""

import subprocess
import sys

import pytest

# typing, re and enum (with functools and collections) cost milliseconds each;
# numpy and torch are never imported by godlpack itself; repr, DLDeviceType,
# Dask's and joblib's hooks and the kit machinery load when used
NOT_AT_IMPORT = ["typing", "re", "enum", "functools", "collections", "numpy", "torch", "ml_dtypes",
                 "importlib.metadata", "json", "subprocess", "shutil", "godlpack._repr", "godlpack._check",
                 "godlpack._bench", "godlpack._kits", "godlpack._kitbuild", "godlpack._gobuild", "godlpack._matrix"]


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


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          check=True).stdout.strip()


# How DLDeviceType comes to exist: `gd.DLDeviceType`, Device.type, the first
# __dlpack_device__, or any other module's import of enum. Each leaves the
# package without its module __getattr__ (CPython does not specialise
# attribute lookups on a module that has one) and the same class everywhere.
FIRST_USES = {
    "attribute": "t = gd.DLDeviceType.kDLCUDA",
    "Device.type": "t = gd.Device('cuda:1').type",
    "__dlpack_device__": "t = gd.asarray([1.0]).__dlpack_device__()[0]",
    "a later import of enum": "import enum; t = gd.DLDeviceType.kDLCPU",
    "unpickling a member": "import pickle; t = pickle.loads(pickle.dumps(gd.Device('cuda:0').type))",
}


@pytest.mark.parametrize("use", sorted(FIRST_USES))
def test_dldevicetype_is_built_by_its_first_use(use):
    code = ("import sys, godlpack as gd\n"
            "assert 'enum' not in sys.modules and '__getattr__' in vars(gd)\n"
            f"{FIRST_USES[use]}\n"
            "import enum\n"
            "assert '__getattr__' not in vars(gd) and '__getattr__' not in vars(gd._types)\n"
            "assert vars(gd)['DLDeviceType'] is gd._types.DLDeviceType and issubclass(gd.DLDeviceType, enum.IntEnum)\n"
            "assert type(gd.asarray([1.0]).__dlpack_device__()[0]) is gd.DLDeviceType is type(gd.Device('cpu').type)\n"
            "print(repr(t))")
    assert _run(code) in ("<DLDeviceType.kDLCUDA: 2>", "<DLDeviceType.kDLCPU: 1>")


def test_dldevicetype_is_built_at_import_when_enum_is_there():
    code = ("import enum, godlpack as gd\n"
            "print('__getattr__' in vars(gd), vars(gd).get('DLDeviceType'))")
    assert _run(code) == "False <enum 'DLDeviceType'>"


def test_other_names_are_still_attribute_errors():
    code = ("import godlpack as gd\n"
            "try:\n    gd.no_such_name\nexcept AttributeError as e:\n    print(e)")
    assert _run(code) == "module 'godlpack' has no attribute 'no_such_name'"


def test_threads_that_use_dldevicetype_first_share_one_class():
    code = ("import threading, godlpack as gd\n"
            "got = []\n"
            "go = threading.Barrier(8)\n"
            "def first():\n"
            "    go.wait()\n"
            "    got.append(gd.asarray([1.0]).__dlpack_device__()[0].__class__)\n"
            "    got.append(gd.Device('cpu').type.__class__)\n"
            "ts = [threading.Thread(target=first) for _ in range(8)]\n"
            "[t.start() for t in ts]; [t.join() for t in ts]\n"
            "print(len(got), len({id(c) for c in got}), got[0] is gd.DLDeviceType)")
    assert _run(code) == "16 1 True"
