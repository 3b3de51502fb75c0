# SPDX-License-Identifier: Apache-2.0
"""What rtbench can say about an image it did not build: the ELF the user
flashed on a board (`serial:DEVICE,image=PATH`, docs/porting.md).

`describe(rtos, elf, release)` gives the image's path, SHA-256 and modification
time, its code size (targets.firmware.size: sections, and the kernel's code when
the linker map is beside the ELF, as `rtb_add_firmware` writes it), and the RTOS
sources it was built from: the build folder's CMakeCache.txt names them (the
RTOS's source variable), and they are read and fingerprinted as for an image
rtbench builds (targets.firmware.sources). Sources read now may not be the
sources built then: a file newer than the ELF is named, and a release that
differs from the one the board reports is said.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path
from typing import Any

from rtbench.build import file_sha256
from rtbench.errors import RtbenchError
from rtbench.targets.firmware import size
from rtbench.targets.firmware.boards import BOARDS
from rtbench.targets.firmware.rtos import Rtos


def cached_value(build_dir: Path, variable: str) -> str | None:
    """The value of `variable` in a CMake build folder's cache."""
    try:
        text = (build_dir / "CMakeCache.txt").read_text(errors="replace")
    except OSError:
        return None
    found = re.search(rf"^{re.escape(variable)}(?::[A-Z]+)?=(.+)$", text, re.M)
    return None if found is None else found.group(1).strip()


def cached_source(build_dir: Path, variable: str) -> Path | None:
    """The value of `variable` in a CMake build folder's cache, when it names a folder."""
    found = cached_value(build_dir, variable)
    if found is None:
        return None
    path = Path(found)
    return path if path.is_dir() else None


def _arch(build_dir: Path) -> str | None:
    """The architecture of the board the image was built for (RTB_BOARD in the
    build folder's cache), None when the cache does not name a board rtbench knows."""
    found = cached_value(build_dir, "RTB_BOARD")
    board = BOARDS.get(found or "")
    return None if board is None else board.arch


def _sources(rtos: Rtos, elf: Path, release: str | None) -> tuple[dict[str, Any] | None, list[str]]:
    from rtbench.targets.firmware.image import read_sources  # noqa: PLC0415 (a cycle)

    notes: list[str] = []
    path = cached_source(elf.parent, rtos.cmake_source_var)
    if path is None:
        notes.append(
            f"the {rtos.display} sources are not known: no CMakeCache.txt beside the image "
            f"names {rtos.cmake_source_var}"
        )
        return None, notes
    try:
        checkout = read_sources(rtos, path, _arch(elf.parent))
    except RtbenchError as e:
        notes.append(f"the {rtos.display} sources at {path} could not be read: {e}")
        return None, notes
    built = elf.stat().st_mtime
    newer = [name for name, _digest in checkout.files if (path / name).stat().st_mtime > built]
    if newer:
        more = f" and {len(newer) - 1} more" if len(newer) > 1 else ""
        notes.append(
            f"{newer[0]}{more} changed after the image was built: the digest is of the "
            "sources as they are now"
        )
    if release and checkout.tag and checkout.tag not in release:
        notes.append(
            f"the board reports {release} but the sources beside the image are "
            f"{checkout.tag}: is this the image flashed?"
        )
    return checkout.describe(), notes


def describe(rtos: Rtos, elf: Path, release: str | None) -> dict[str, Any]:
    """The flashed image's record for target_info: path, sha256, built_at, code_size,
    sources (or None) and notes (what could not be said, one phrase each)."""
    sources, notes = _sources(rtos, elf, release)
    code_size = size.measure(elf, rtos.kernel_libraries)
    if code_size.get("note"):
        notes.append(str(code_size["note"]))
    built = datetime.datetime.fromtimestamp(elf.stat().st_mtime, datetime.UTC)
    return {
        "path": str(elf.resolve()),
        "sha256": file_sha256(elf),
        "built_at": built.isoformat(timespec="seconds"),
        "code_size": code_size,
        "sources": sources,
        "notes": notes,
    }
