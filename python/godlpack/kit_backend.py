"""The PEP 517 build backend of kit packages: setuptools' own, plus the C
compiler that godlpack's module was built with, when it came from PyPI (the
release wheels' ``zig cc``, package ziglang): a kit's Go plugin is built the
way that module was (godlpack.build.go_kit), so pip installs that compiler
where it builds the kit. A kit's pyproject.toml::

    [build-system]
    requires = ["setuptools>=64", "godlpack==X.Y.Z"]
    build-backend = "godlpack.kit_backend"
"""

from __future__ import annotations

from typing import Any

from setuptools import build_meta as _meta
from setuptools.build_meta import *  # noqa: F403  (build_wheel, build_sdist, prepare_metadata_..., ...)


def _compiler() -> list[str]:
    import godlpack

    from . import _kits

    info = _kits.host_info(godlpack._native.__file__) or {}
    return [str(r) for r in info.get("cc_requires") or []]


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    return [*_meta.get_requires_for_build_wheel(config_settings), *_compiler()]


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    return [*_meta.get_requires_for_build_editable(config_settings), *_compiler()]
