# SPDX-License-Identifier: Apache-2.0
"""The code size of a firmware image: what a configuration or a kernel change
costs in memory, next to what it does to the figures.

`measure(elf, kernel_library)` reads the image with the toolchain's binutils:
`size` gives its text, data and bss (Berkeley format: text includes read-only
data); the linker's map file (written beside the image) says which archive
member each `.text` input section came from, and `nm -S` gives every function's
address and size, so a function whose code lies in the RTOS kernel library's
sections counts as the kernel's. Figures in bytes; None where a tool or the map
is missing (said in `note`).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

SIZE_TOOL = "arm-none-eabi-size"
NM_TOOL = "arm-none-eabi-nm"
# an input section line of a GNU ld map: " .text  0xADDR  0xSIZE  archive.a(member.o)"
_SECTION = re.compile(
    r"^\s*\.text(?:\.\S+)?\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+(\S+?\.a)\((\S+)\)\s*$"
)
_SECTION_NAME_ONLY = re.compile(r"^\s*\.text(?:\.\S+)?\s*$")
_SECTION_REST = re.compile(r"^\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+(\S+?\.a)\((\S+)\)\s*$")


def _run(argv: list[str]) -> str | None:
    if shutil.which(argv[0]) is None:
        return None
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def sections(elf: Path) -> dict[str, int] | None:
    """text, data and bss of `elf` in bytes (`size`, Berkeley format)."""
    out = _run([SIZE_TOOL, str(elf)])
    if out is None:
        return None
    lines = out.strip().splitlines()
    if len(lines) < 2:
        return None
    fields = lines[1].split()
    try:
        return {"text": int(fields[0]), "data": int(fields[1]), "bss": int(fields[2])}
    except (IndexError, ValueError):
        return None


def library_ranges(map_text: str, library: str) -> list[tuple[int, int, str]]:
    """(start, end, member) of every non-empty `.text` input section that came from
    the archive named `library` (its file name, "libucos3_kernel.a")."""
    ranges: list[tuple[int, int, str]] = []
    pending = False
    for line in map_text.splitlines():
        match = _SECTION.match(line)
        if match is None and pending:
            match = _SECTION_REST.match(line)
        pending = _SECTION_NAME_ONLY.match(line) is not None
        if match is None:
            continue
        start, size = int(match.group(1), 16), int(match.group(2), 16)
        if size and Path(match.group(3)).name == library:
            ranges.append((start, start + size, match.group(4)))
    return ranges


def functions(elf: Path) -> list[tuple[int, int, str]]:
    """(address, size, name) of every sized function symbol in `elf`."""
    out = _run([NM_TOOL, "-S", "--defined-only", str(elf)]) or ""
    found = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in ("T", "t", "W"):
            try:
                # Thumb functions' addresses have their low bit clear in nm's listing
                found.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
            except ValueError:
                continue
    return found


def measure(elf: Path, kernel_library: str | Sequence[str]) -> dict[str, Any]:
    """The image's sections and the kernel's code, function by function: the
    code of the kernel's library, or of each of its libraries (a kernel built
    as several archives, as NuttX's is)."""
    libraries = (kernel_library,) if isinstance(kernel_library, str) else tuple(kernel_library)
    result: dict[str, Any] = {"image": sections(elf), "kernel_text": None, "kernel_functions": {}}
    map_file = elf.with_suffix(".map")
    if result["image"] is None:
        result["note"] = f"{SIZE_TOOL} could not read the image"
        return result
    try:
        map_text = map_file.read_text(errors="replace")
    except OSError:
        result["note"] = f"no linker map beside the image ({map_file.name})"
        return result
    ranges = [r for library in libraries for r in library_ranges(map_text, library)]
    if not ranges:
        result["note"] = f"the linker map names no code from {', '.join(libraries)}"
        return result
    result["kernel_text"] = sum(end - start for start, end, _ in ranges)
    kernel: dict[str, int] = {}
    for address, size, name in functions(elf):
        if any(start <= address < end for start, end, _ in ranges):
            kernel[name] = kernel.get(name, 0) + size
    result["kernel_functions"] = dict(sorted(kernel.items(), key=lambda kv: (-kv[1], kv[0])))
    return result
