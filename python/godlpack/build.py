"""setuptools support for Go extension modules built with godlpack's kit.

Kit packages that compose with godlpack and each other (any number in one
process, any import order) use :func:`go_kit`::

    setup(**go_kit("statkit", ["."]))

The single-module route below builds a module that holds godlpack's whole
runtime itself, one per process.

In a downstream project's setup.py::

    from setuptools import setup
    from godlpack.build import GoExtension, build_go_ext

    setup(
        ext_modules=[GoExtension("imgkit", ["./imgkit"])],
        cmdclass={"build_ext": build_go_ext},
        options={"bdist_wheel": {"py_limited_api": "cp311"}},
    )

with ``godlpack`` in ``[build-system] requires`` of its pyproject.toml:
``pip install .`` then builds the abi3 module ``imgkit`` (godlpack's whole
API plus the functions the Go packages register) with Go and a C compiler.
"""

from ._gobuild import GoExtension, build_go_ext, build_module, go_source_root
from ._kitbuild import go_kit

__all__ = ["GoExtension", "build_go_ext", "build_module", "go_kit", "go_source_root"]
