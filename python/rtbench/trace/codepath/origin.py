# SPDX-License-Identifier: Apache-2.0
"""Whose code each function of a firmware image is: the RTOS's kernel, rtbench's
port of it, or rtbench's measurement code.

The linker map written beside the image (`-Wl,-Map`, cmake/rtb_firmware.cmake)
names the object file of every input section it placed: an object of the image
itself (`CMakeFiles/<target>.dir/<source>.obj`), a member of one of the build's
libraries (`lib<target>.a(<file>.obj)`) or of the toolchain's
(`/usr/lib/.../libc.a(memcpy.c.o)`). The build's `compile_commands.json` names
the source file each of the build's objects was compiled from. So every
function symbol maps, through the input section holding its first
instruction, to a source file, and the file's place says whose code it is:

- **kernel**: a file under the RTOS's sources (the folder its variable names,
  e.g. FREERTOS_KERNEL_PATH), the RTOS's own architecture port included;
- **port**: rtbench's port of that RTOS and what every port shares on a board
  (`ports/<rtos>/`, `ports/arch/`, `ports/boards/`, `ports/common/`); the
  functions of `ports/<rtos>/` are the port's *wrappers*, and so are those of
  another port's file the image builds as its own (the NuttX port compiles
  the POSIX port's `ports/posix/sync.c`);
- **measurement**: rtbench's core and scenarios (`core/`);
- the **C runtime** (the toolchain's `libc.a`, picolibc here, `libm.a`, and
  the compiler's `libgcc.a`) is nobody's by itself: `split` counts its
  instructions in the share of the code that called it (a `memcpy` called
  from the port is the port's) and says so per function.

A function that no rule places (an object the map does not name, a source
elsewhere) is `unattributed`, never guessed from its name.
"""

from __future__ import annotations

import bisect
import json
import os
import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtbench.errors import RtbenchError
from rtbench.trace.codepath.symbols import Symbols

KERNEL, PORT, MEASUREMENT = "kernel", "port", "measurement"
SHARES = (KERNEL, PORT, MEASUREMENT)
RUNTIME = "runtime"  # the C runtime: counted in its caller's share
UNATTRIBUTED = "unattributed"
RUNTIME_LIBRARIES = frozenset({"libc.a", "libm.a", "libgcc.a", "libc_nano.a", "libg.a"})
SHARED_PORT_DIRS = ("arch", "boards", "common")  # under ports/: what every port shares
COMPILE_COMMANDS = "compile_commands.json"
RULES = {
    KERNEL: "source under the RTOS's sources (its own architecture port included)",
    PORT: "source under ports/<rtos>/ (or another port's folder whose file the image builds), "
    "ports/arch/, ports/boards/ or ports/common/",
    MEASUREMENT: "source under core/ (rtbench's core and scenarios)",
    "libc": "the toolchain's libc.a, libm.a and libgcc.a: counted in the share of their caller",
    UNATTRIBUTED: "an object the linker map does not name or a source no rule places",
}

_MAP_START = "Linker script and memory map"
# an input section: " .text.name  0xADDR  0xSIZE  object", or its name alone on a
# line when it is long, the rest on the next
_INPUT = re.compile(r"^ (\.\S*)\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+(\S.*?)\s*$")
_INPUT_NAME = re.compile(r"^ (\.\S*)\s*$")
_INPUT_REST = re.compile(r"^\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+(\S.*?)\s*$")
_NOT_CODE = (".debug", ".comment", ".ARM.attributes", ".stab", ".note", ".gnu")
_MEMBER = re.compile(r"^(.*)\(([^()]+)\)$")


class OriginError(RtbenchError):
    """The image's linker map or compile commands could not be read."""


@dataclass(frozen=True)
class Section:
    start: int
    end: int
    obj: str  # as the map names it


def parse_map(text: str) -> list[Section]:
    """The non-empty input sections of a GNU ld map's allocated output sections,
    sorted by address."""
    found: list[Section] = []
    started = False
    output = ""
    pending = False  # an input section's name was alone on the previous line
    for line in text.splitlines():
        if not started:
            started = line.startswith(_MAP_START)
            continue
        if line and not line[0].isspace():
            output = line.split()[0]
            pending = False
            continue
        if output.startswith(_NOT_CODE):
            continue
        m = _INPUT.match(line)
        groups = m.groups()[1:] if m else None
        if groups is None and pending:
            r = _INPUT_REST.match(line)
            groups = r.groups() if r else None
        pending = _INPUT_NAME.match(line) is not None
        if groups is None:
            continue
        start, size = int(groups[0], 16), int(groups[1], 16)
        if size:
            found.append(Section(start, start + size, groups[2]))
    found.sort(key=lambda s: s.start)
    return found


def parse_compile_commands(entries: Iterable[Mapping[str, Any]]) -> dict[str, Path]:
    """Object path (as the build names it, relative to its folder) -> source file."""
    found: dict[str, Path] = {}
    for entry in entries:
        source = entry.get("file")
        if not source:
            continue
        output = entry.get("output") or _output_of(entry)
        if output:
            directory = Path(str(entry.get("directory") or "."))
            found[os.path.normpath(str(output))] = directory / str(source)
    return found


def _output_of(entry: Mapping[str, Any]) -> str | None:
    args = entry.get("arguments")
    if not isinstance(args, list):
        try:
            args = shlex.split(str(entry.get("command") or ""))
        except ValueError:
            return None
    for i, arg in enumerate(args):
        if arg == "-o" and i + 1 < len(args):
            return str(args[i + 1])
        if arg.startswith("-o") and len(arg) > 2:
            return str(arg[2:])
    return None


@dataclass(frozen=True)
class Origin:
    """Whose code a function is, and the source it was compiled from."""

    share: str  # kernel, port, measurement, runtime or unattributed
    source: str  # relative to rtbench's folder for its files, else as built
    wrapper: bool = False  # a function of ports/<rtos>/


@dataclass(frozen=True)
class Roots:
    """The folders the rules place sources by."""

    project: Path  # rtbench's folder (core/, ports/)
    rtos_sources: Path | None  # the RTOS's sources; None: no kernel can be placed
    rtos: str  # the port folder's name: ports/<rtos>/


def classify(source: Path, roots: Roots) -> Origin:
    """The share of a source file of the build, by where it lies."""
    path = Path(os.path.realpath(source))
    best: tuple[int, Origin] | None = None
    if roots.rtos_sources is not None:
        base = Path(os.path.realpath(roots.rtos_sources))
        if path.is_relative_to(base):
            best = (len(base.parts), Origin(KERNEL, str(path)))
    project = Path(os.path.realpath(roots.project))
    if path.is_relative_to(project) and (best is None or len(project.parts) > best[0]):
        rel = path.relative_to(project)
        parts = rel.parts
        if parts[:1] == ("core",):
            best = (len(project.parts), Origin(MEASUREMENT, rel.as_posix()))
        elif len(parts) > 2 and parts[0] == "ports" and parts[1] in SHARED_PORT_DIRS:
            best = (len(project.parts), Origin(PORT, rel.as_posix()))
        elif len(parts) > 2 and parts[0] == "ports":
            # ports/<rtos>/, or another port's file the image builds as its own
            # (the NuttX port compiles the POSIX port's sync.c): the wrappers
            best = (len(project.parts), Origin(PORT, rel.as_posix(), wrapper=True))
        else:
            best = (len(project.parts), Origin(UNATTRIBUTED, rel.as_posix()))
    return best[1] if best is not None else Origin(UNATTRIBUTED, str(path))


@dataclass
class Origins:
    """The origin of every function of an image, by its index in `Symbols`."""

    by_index: tuple[Origin | None, ...]
    names: tuple[str, ...]
    described: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        symbols: Symbols,
        sections: list[Section],
        objects: Mapping[str, Path],
        roots: Roots,
    ) -> Origins:
        """From the map's input sections and the build's objects (parse_compile_commands)."""
        members: dict[tuple[str, str], list[Path]] = {}
        for output, source in objects.items():
            parts = Path(output).parts
            # CMake's objects: CMakeFiles/<target>.dir/<path of the source>.obj
            if len(parts) > 2 and parts[0] == "CMakeFiles" and parts[1].endswith(".dir"):
                members.setdefault((parts[1][: -len(".dir")], parts[-1]), []).append(source)
        starts = [s.start for s in sections]
        cache: dict[str, Origin | None] = {}
        found: list[Origin | None] = []
        for addr in symbols.starts:
            i = bisect.bisect_right(starts, addr) - 1
            if i < 0 or addr >= sections[i].end:
                found.append(None)
                continue
            obj = sections[i].obj
            if obj not in cache:
                cache[obj] = _origin_of(obj, objects, members, roots)
            found.append(cache[obj])
        return cls(tuple(found), symbols.names)

    @classmethod
    def load(cls, elf: Path, symbols: Symbols, roots: Roots) -> Origins:
        """From the map beside `elf` (<image>.map) and its build's compile commands;
        OriginError saying what is missing."""
        map_file = elf.with_suffix(".map")
        commands = elf.parent / COMPILE_COMMANDS
        try:
            sections = parse_map(map_file.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            raise OriginError(
                f"there is no linker map beside the image ({map_file.name})"
            ) from None
        try:
            entries = json.loads(commands.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise OriginError(f"there is no readable {COMPILE_COMMANDS} beside the image") from None
        if not sections or not isinstance(entries, list):
            raise OriginError(f"{map_file.name} names no input section")
        found = cls.build(symbols, sections, parse_compile_commands(entries), roots)
        found.described = {
            "source": f"the linker map ({map_file.name}) and {COMPILE_COMMANDS}",
            "rtos_sources": str(roots.rtos_sources) if roots.rtos_sources else None,
            "port_folder": f"ports/{roots.rtos}/",
            "rules": dict(RULES),
        }
        return found

    def at(self, index: int | None) -> Origin | None:
        return self.by_index[index] if index is not None else None

    def of_name(self, name: str) -> Origin | None:
        """The origin of the (first) function of that name."""
        try:
            return self.by_index[self.names.index(name)]
        except ValueError:
            return None


def _origin_of(
    obj: str,
    objects: Mapping[str, Path],
    members: Mapping[tuple[str, str], list[Path]],
    roots: Roots,
) -> Origin | None:
    # an object the compile commands name as the map does: a file, or a
    # library member written `<library>(<member>)` (the NuttX image's, whose
    # build is NuttX's make)
    source = objects.get(os.path.normpath(obj))
    if source is not None:
        return classify(source, roots)
    m = _MEMBER.match(obj)
    if m is None:
        return Origin(UNATTRIBUTED, obj)
    archive, member = Path(m.group(1)), m.group(2)
    if archive.name in RUNTIME_LIBRARIES and archive.is_absolute():
        return Origin(RUNTIME, f"{archive.name}({member})")
    target = archive.name
    if target.startswith("lib") and target.endswith(".a"):
        target = target[3:-2]
    candidates = members.get((target, member), [])
    origins = {classify(c, roots) for c in candidates}
    if len(origins) == 1:
        return origins.pop()
    shares = {o.share for o in origins}
    if len(shares) == 1:  # same-named members of one library: the share is still known
        return Origin(shares.pop(), f"{archive.name}({member})")
    return Origin(UNATTRIBUTED, f"{archive.name}({member})")


@dataclass(frozen=True)
class Split:
    """A path's instructions by share; the C runtime's by function and the share
    each went to; the port's wrappers (functions of ports/<rtos>/) with theirs."""

    shares: dict[str, int]
    libc: dict[str, dict[str, int]]
    wrappers: dict[str, int]


def split(blocks: Iterable[list[int]], symbols: Symbols, origins: Origins) -> Split:
    """Split the executed blocks ([pc, instructions], as exec_log.Window holds them)
    by share. A C runtime function's instructions count in the share of the code
    that entered it (its last block outside the runtime before the entry); a
    runtime block reached without an entry (the function going on after an
    interrupt) keeps the share of that entry; with no entry seen, unattributed."""
    shares = dict.fromkeys(SHARES, 0)
    libc: dict[str, dict[str, int]] = {}
    wrappers: dict[str, int] = {}
    last: str | None = None  # share of the last block outside the runtime
    caller: str | None = None  # the share the runtime's blocks count in
    in_runtime = False
    for pc, n in blocks:
        if n <= 0:
            continue
        i = symbols.function_at(pc)
        origin = origins.at(i)
        name = symbols.names[i] if i is not None else f"0x{pc:08x}"
        share = origin.share if origin is not None else UNATTRIBUTED
        if share == RUNTIME:
            if symbols.entered(pc) is not None and not in_runtime:
                caller = last
            counted = caller or UNATTRIBUTED
            per = libc.setdefault(name, {})
            per[counted] = per.get(counted, 0) + n
            in_runtime = True
        else:
            counted, last, in_runtime = share, share, False
            if origin is not None and origin.wrapper:
                wrappers[name] = wrappers.get(name, 0) + n
        shares[counted] = shares.get(counted, 0) + n
    return Split(shares, libc, dict(sorted(wrappers.items(), key=lambda kv: -kv[1])))
