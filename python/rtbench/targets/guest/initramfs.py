# SPDX-License-Identifier: Apache-2.0
"""A Linux initramfs written in Python: a gzip-compressed `newc` cpio archive.

The `newc` format (the one the kernel unpacks into its root file system) is a
sequence of entries, each a 110-byte ASCII header of `070701` and thirteen
8-digit hexadecimal fields, the NUL-terminated name, padding to a multiple of
4 bytes, the data, padding again; a `TRAILER!!!` entry ends the archive.
Entries are written with fixed owners and times, so the same inputs give the
same bytes.
"""

from __future__ import annotations

import gzip
import io
import stat
from dataclasses import dataclass

MAGIC = b"070701"
TRAILER = "TRAILER!!!"


@dataclass(frozen=True)
class Entry:
    """One file, directory or device of the archive."""

    name: str  # path without a leading slash: "init", "dev/console"
    mode: int  # the full st_mode: file type and permission bits
    data: bytes = b""
    rdev_major: int = 0
    rdev_minor: int = 0


def directory(name: str, perm: int = 0o755) -> Entry:
    return Entry(name, stat.S_IFDIR | perm)


def regular(name: str, data: bytes, perm: int = 0o755) -> Entry:
    return Entry(name, stat.S_IFREG | perm, data)


def symlink(name: str, target: str) -> Entry:
    return Entry(name, stat.S_IFLNK | 0o777, target.encode())


def char_device(name: str, major: int, minor: int, perm: int = 0o600) -> Entry:
    return Entry(name, stat.S_IFCHR | perm, rdev_major=major, rdev_minor=minor)


def _pad(length: int) -> bytes:
    return b"\0" * (-length % 4)


def _header(entry: Entry, ino: int) -> bytes:
    name = entry.name.encode() + b"\0"
    nlink = 2 if stat.S_ISDIR(entry.mode) else 1
    fields = (
        ino,
        entry.mode,
        0,  # uid
        0,  # gid
        nlink,
        0,  # mtime
        len(entry.data),
        0,  # dev major
        0,  # dev minor
        entry.rdev_major,
        entry.rdev_minor,
        len(name),
        0,  # check (unused by newc)
    )
    head = MAGIC + b"".join(f"{v:08X}".encode() for v in fields)
    return head + name + _pad(len(head) + len(name))


def cpio(entries: list[Entry]) -> bytes:
    """The uncompressed newc archive of `entries`, in order, with its trailer."""
    out = io.BytesIO()
    for ino, entry in enumerate(entries, start=1):
        if entry.name.startswith("/") or not entry.name:
            raise ValueError(f"archive names are relative and non-empty: {entry.name!r}")
        if entry.data and not (stat.S_ISREG(entry.mode) or stat.S_ISLNK(entry.mode)):
            raise ValueError(f"only files and symbolic links have data: {entry.name}")
        out.write(_header(entry, ino))
        out.write(entry.data)
        out.write(_pad(len(entry.data)))
    out.write(_header(Entry(TRAILER, 0), 0))
    return out.getvalue()


def initramfs(entries: list[Entry]) -> bytes:
    """The gzip-compressed archive (fixed header time, so builds are reproducible)."""
    return gzip.compress(cpio(entries), compresslevel=6, mtime=0)


def parse(archive: bytes) -> list[Entry]:
    """The entries of an uncompressed newc archive (without the trailer); for tests
    and for checking what a built image holds."""
    entries: list[Entry] = []
    pos = 0
    while True:
        head = archive[pos : pos + 110]
        if len(head) < 110 or head[:6] != MAGIC:
            raise ValueError(f"no newc header at offset {pos}")
        fields = [int(head[6 + 8 * i : 14 + 8 * i], 16) for i in range(13)]
        mode, size, rmaj, rmin, namesize = (
            fields[1],
            fields[6],
            fields[9],
            fields[10],
            fields[11],
        )
        pos += 110
        name = archive[pos : pos + namesize - 1].decode()
        pos += namesize
        pos += -pos % 4
        data = archive[pos : pos + size]
        pos += size
        pos += -pos % 4
        if name == TRAILER:
            return entries
        entries.append(Entry(name, mode, data, rmaj, rmin))
