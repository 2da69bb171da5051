"""Which Go kits are installed: their marker files, ``godlpack_kits/<module>.json``
beside their Python packages (see _kits.py). This is all of the kit machinery
that ``import godlpack`` loads when no kit is installed."""

from __future__ import annotations

import os
import sys

MARKERS = "godlpack_kits"


def markers() -> dict[str, str]:
    """module -> marker file, the first on sys.path for each module."""
    found: dict[str, str] = {}
    for entry in sys.path:
        d = os.path.join(entry or ".", MARKERS)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(".json"):
                found.setdefault(name[:-5], os.path.join(d, name))
    return found


def load_native() -> None:
    """The native module composed with the installed kits, when some kit needs
    one (_kits.load_native); nothing when no kit is installed, or a native
    module is loaded already (a kit module built by build-ext, or godlpack
    imported before)."""
    if "godlpack._native" in sys.modules:
        return
    found = markers()
    if found:
        from . import _kits

        _kits.load_native(found)
