"""``python -m godlpack init-kit DIR``: a Go package for Python that builds,
vets and tests as it is.

It writes a kit package in DIR: a Go module (``go.mod`` requiring godlpack
and replacing it with the Go sources of the godlpack installed here, so that
``go build``, ``go vet``, ``go test`` and gopls resolve it without the
network) with one function registered with gofunc and a Go test that checks
the registrations; the Python package NAME whose ``__init__`` binds the Go
functions; and a ``pyproject.toml`` / ``setup.py`` (``godlpack.build.go_kit``)
that ``pip install`` turns into a wheel composed with godlpack and any other
kit at import (godlpack/_kits.py). Existing files are never overwritten.
"""

from __future__ import annotations

import os
import re
import sys

from ._gobuild import GODLPACK_MODULE, _go_version, go_source_root

GO = '''// Package {name} holds the Go functions of the Python module {name}.
package {name}

import (
	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/gofunc"
)

func init() {{
	gofunc.Func1("total", Total, gofunc.Params(gofunc.Array("a").DType(core.Float64)))
}}

// Total returns the sum of a float64 array of any layout (a numpy array,
// a torch tensor, a transposed or sliced view): ReadBlocks hands its
// elements over in contiguous blocks, in the order they lie in memory, and
// SumOf adds a block at slice speed (docs/go.md: any view at slice speed).
func Total(a *core.Array) (float64, error) {{
	blocks, err := core.ReadBlocks[float64](a)
	if err != nil {{
		return 0, err
	}}
	var s float64
	for b := range blocks {{
		s += core.SumOf(b)
	}}
	return s, nil
}}
'''

GO_TEST = '''package {name}

import (
	"os"
	"testing"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/gofunc"
)

// The tests check blocks (core.CheckBlocks): a block of ReadBlocks kept past
// its step then faults at its next use instead of reading memory that may
// be gone. (Python tests: GODLPACK_CHECK_BLOCKS=1.)
func TestMain(m *testing.M) {{
	core.CheckBlocks(true)
	os.Exit(m.Run())
}}

// Every gofunc registration of the package worked (a failed one is an
// ImportError of the Python module).
func TestRegistrations(t *testing.T) {{
	if err := gofunc.Err(); err != nil {{
		t.Fatal(err)
	}}
}}

func TestTotal(t *testing.T) {{
	a, err := core.Empty(core.Float64, 2, 3)
	if err != nil {{
		t.Fatal(err)
	}}
	defer a.Release()
	s, _ := a.Float64s()
	for i := range s {{
		s[i] = float64(i)
	}}
	if got, err := Total(a.T()); err != nil || got != 15 {{
		t.Fatalf("Total(a.T()) = %v, %v; want 15", got, err)
	}}
}}
'''

PYPROJECT = '''[build-system]
# godlpack must be installable where pip builds: from an index, or
# `pip install --find-links DIR .` with DIR holding godlpack's wheel.
# godlpack.kit_backend is setuptools' backend that also installs the C
# compiler godlpack's module was built with (its wheels: zig cc, from PyPI).
requires = ["setuptools>=70.1", "godlpack"]
build-backend = "godlpack.kit_backend"

[project]
name = "{name}"
version = "0.1.0"
requires-python = ">=3.11"
# the wheel requires the godlpack it is built against, exactly (go_kit): its
# Go plugin loads into that godlpack's Go runtime only
dynamic = ["dependencies"]
'''

SETUP = '''from setuptools import setup

from godlpack.build import go_kit

# The Python package {name} binds the functions the Go package in this
# directory registers; godlpack composes them with every installed kit.
setup(**go_kit("{name}", ["."]))
'''

INIT = '''"""{name}: functions written in Go (the Go package beside this folder)."""

from godlpack.kits import bind

bind(__name__, globals())
'''


def init_kit(directory: str, name: str | None = None, module: str | None = None) -> int:
    name = name or os.path.basename(os.path.abspath(directory))
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name in ("godlpack", "main"):
        print(f"init-kit: {name!r} is not a name for a Python module and Go package; pass --name NAME "
              "(a Python identifier)", file=sys.stderr)
        return 2
    gosrc = go_source_root()
    module = module or f"example.com/{name}"
    files = {
        "go.mod": (f"module {module}\n\ngo {_go_version(gosrc)}\n\nrequire {GODLPACK_MODULE} v0.0.0\n\n"
                   f"// godlpack's Go sources, as the installed godlpack ships them\n"
                   f"replace {GODLPACK_MODULE} => {gosrc}\n"),
        f"{name}.go": GO.format(name=name),
        f"{name}_test.go": GO_TEST.format(name=name),
        "pyproject.toml": PYPROJECT.format(name=name),
        "setup.py": SETUP.format(name=name),
        os.path.join(name, "__init__.py"): INIT.format(name=name),
    }
    os.makedirs(os.path.join(directory, name), exist_ok=True)
    there = [f for f in files if os.path.exists(os.path.join(directory, f))]
    if there:
        print(f"init-kit: {directory} already has {', '.join(there)}; nothing was written (pick an empty "
              "directory)", file=sys.stderr)
        return 1
    for f, text in files.items():
        with open(os.path.join(directory, f), "w", encoding="utf-8") as out:
            out.write(text)
    print(f"wrote the Go package {module} (Python module {name}) in {directory}:\n"
          f"  cd {directory} && go vet ./... && go test ./...   # Go's own tools work as they are\n"
          f"  pip install .                                      # or: pip install --find-links DIR .\n"
          f"  python -c 'import {name}, numpy as np; print({name}.total(np.ones(3)))'")
    return 0
