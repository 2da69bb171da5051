"""What godlpack reads of its own ELF shared objects, with the standard
library only: the sections (stripped or not), the exported dynamic symbols
(make bench row 7) and Go's build id (the identity a kit's plugin is built
against, godlpack/_kits.py)."""

from __future__ import annotations

import struct


def _sections(data: bytes) -> list[tuple[str, tuple[int, ...]]] | None:
    """(name, header) of every section of an ELF64 little-endian object, or
    None for another file."""
    if data[:4] != b"\x7fELF" or len(data) < 64 or data[4] != 2 or data[5] != 1:
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    stro = secs[shstrndx][4]

    def name(off: int) -> str:
        end = data.index(b"\0", stro + off)
        return data[stro + off:end].decode()

    return [(name(s[0]), s) for s in secs]


def info(path: str) -> tuple[bool, list[str]] | None:
    """(stripped, defined global dynamic symbols) of an ELF64 little-endian
    shared object, read from its section headers; None for other files."""
    with open(path, "rb") as f:
        data = f.read()
    named = _sections(data)
    if named is None:
        return None
    secs = [s for _, s in named]
    names = [n for n, _ in named]
    stripped = ".symtab" not in names and not any(n.startswith(".debug") for n in names)
    exports: list[str] = []
    for s in secs:
        if s[1] != 11:  # SHT_DYNSYM
            continue
        strtab = secs[s[6]]
        off, size, entsize = s[4], s[5], s[9] or 24
        for k in range(size // entsize):
            st_name, st_info, _other, st_shndx, _v, _sz = struct.unpack_from("<IBBHQQ", data, off + k * entsize)
            bind = st_info >> 4
            if st_shndx == 0 or bind not in (1, 2):  # undefined, or local
                continue
            end = data.index(b"\0", strtab[4] + st_name)
            exports.append(data[strtab[4] + st_name:end].decode())
    return stripped, sorted(exports)


def go_build_id(path: str) -> str | None:
    """The Go build id of an ELF object (its .note.go.buildid, which Go's
    linker writes near the file's start), or None."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if head[:4] != b"\x7fELF" or len(head) < 64 or head[4] != 2 or head[5] != 1:
                return None
            shoff, = struct.unpack_from("<Q", head, 0x28)
            shentsize, shnum, shstrndx = struct.unpack_from("<HHH", head, 0x3A)
            f.seek(shoff)
            table = f.read(shentsize * shnum)
            secs = [struct.unpack_from("<IIQQQQIIQQ", table, i * shentsize) for i in range(shnum)]
            f.seek(secs[shstrndx][4])
            strs = f.read(secs[shstrndx][5])
            for s in secs:
                if s[1] != 7:  # SHT_NOTE
                    continue
                if strs[s[0]:strs.index(b"\0", s[0])] != b".note.go.buildid":
                    continue
                f.seek(s[4])
                note = f.read(s[5])
                namesz, descsz, _type = struct.unpack_from("<III", note, 0)
                start = 12 + ((namesz + 3) & ~3)
                return note[start:start + descsz].decode()
    except (OSError, struct.error, ValueError, UnicodeDecodeError):
        return None
    return None
