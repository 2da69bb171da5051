"""Gate of `make wheel` (issue 26): the wheel's extension is stripped and
carries no path of the machine that built it.

    python tools/check_release_so.py WHEEL [PATH...]

fails (exit 1, one line per finding) when the .so has a .symtab or .debug_*
section, or contains any PATH given (the checkout, the home folder, the
Python include folder, the zig cache) or a zig cache directory name.
"""

from __future__ import annotations

import io
import sys
import zipfile

from elftools.elf.elffile import ELFFile


def findings(wheel: str, paths: list[str]) -> list[str]:
    out = []
    with zipfile.ZipFile(wheel) as z:
        for name in (n for n in z.namelist() if n.endswith(".so")):
            data = z.read(name)
            elf = ELFFile(io.BytesIO(data))
            for s in elf.iter_sections():
                if s.name == ".symtab" or s.name.startswith(".debug"):
                    out.append(f"{name}: section {s.name} (not stripped)")
            for p in [p for p in paths if p and p != "/"] + ["zig-cache", "zig/cache"]:
                if p.encode() in data:
                    out.append(f"{name}: contains the build path {p!r}")
    return out


if __name__ == "__main__":
    got = findings(sys.argv[1], sys.argv[2:])
    for f in got:
        print(f"check_release_so: {f}", file=sys.stderr)
    print(f"check_release_so: {sys.argv[1]}: {'FAILED' if got else 'stripped, no build paths'}")
    sys.exit(1 if got else 0)
