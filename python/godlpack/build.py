"""setuptools support for Go extension modules built with godlpack's kit.

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

__all__ = ["GoExtension", "build_go_ext", "build_module", "go_source_root"]
