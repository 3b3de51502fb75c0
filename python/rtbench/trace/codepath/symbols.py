# SPDX-License-Identifier: Apache-2.0
"""The functions of a firmware image, for naming the code an emulator executed.

`Symbols.load` reads the image's function symbols with the toolchain's `nm`
(`-n -S`: sorted, with sizes; a function an assembler file gives no size runs
to the next symbol) and the exception handlers from its vector table
(the words at the symbol the board names, read from the ELF's loadable
segments), so a path trace can say which function each executed block belongs
to, which blocks entered a function, and which entries were interrupts or
exceptions rather than calls.
"""

from __future__ import annotations

import bisect
import shutil
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

from rtbench.errors import RtbenchError

_FUNCTION_TYPES = frozenset("tTwW")
_PT_LOAD = 1


class SymbolError(RtbenchError):
    """The image's symbols could not be read."""


@dataclass(frozen=True)
class Symbols:
    """Function start addresses, sizes and names, sorted by address."""

    starts: tuple[int, ...]
    sizes: tuple[int, ...]
    names: tuple[str, ...]
    handlers: frozenset[str]  # functions installed in the vector table

    @classmethod
    def load(cls, elf: Path, nm: str, vector_table: str | None = None) -> Symbols:
        """The function symbols of `elf` read with the `nm` program; SymbolError."""
        tool = shutil.which(nm)
        if tool is None:
            raise SymbolError(f"{nm} is not installed, so the image's functions cannot be named.")
        try:
            done = subprocess.run(
                [tool, "-n", "-S", "--defined-only", str(elf)],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as e:
            raise SymbolError(f"{nm} could not read {elf}: {e}.") from None
        if done.returncode != 0:
            raise SymbolError(f"{nm} could not read {elf}: {done.stderr.strip()[:200]}.")
        return cls.parse(done.stdout, elf if vector_table else None, vector_table)

    @classmethod
    def parse(
        cls, nm_output: str, elf: Path | None = None, vector_table: str | None = None
    ) -> Symbols:
        """From `nm -n -S` output (functions only; the vector table read from `elf`)."""
        found: dict[int, tuple[int, str]] = {}
        table: tuple[int, int] | None = None
        sizeless: list[tuple[int, str]] = []  # functions written in assembly
        addresses: set[int] = set()  # where any symbol starts
        for line in nm_output.splitlines():
            fields = line.split()
            if len(fields) == 3:
                try:
                    addr = int(fields[0], 16)
                except ValueError:
                    continue
                addresses.add(addr & ~1)
                if fields[1] in _FUNCTION_TYPES:
                    sizeless.append((addr & ~1, fields[2]))
                continue
            if len(fields) != 4:
                continue
            addr_text, size_text, kind, name = fields
            try:
                addr, size = int(addr_text, 16), int(size_text, 16)
            except ValueError:
                continue
            addresses.add(addr & ~1)
            if name == vector_table:
                table = (addr, size)
            if kind in _FUNCTION_TYPES and size > 0 and name != vector_table:
                addr &= ~1  # Thumb functions may carry the interworking bit
                # a global name wins over a local alias at the same address
                if addr not in found or kind.isupper():
                    found[addr] = (size, name)
        _add_sizeless(found, sizeless, addresses)
        starts = tuple(sorted(found))
        handlers: set[str] = set()
        if table is not None and elf is not None:
            by_start = {a: found[a][1] for a in starts}
            for word in vector_words(elf, *table)[1:]:  # word 0 is the initial stack
                handler = by_start.get(word & ~1)
                if handler is not None:
                    handlers.add(handler)
        return cls(
            starts,
            tuple(found[a][0] for a in starts),
            tuple(found[a][1] for a in starts),
            frozenset(handlers),
        )

    def function_at(self, pc: int) -> int | None:
        """Index of the function containing `pc`, or None."""
        i = bisect.bisect_right(self.starts, pc) - 1
        if i >= 0 and pc < self.starts[i] + self.sizes[i]:
            return i
        return None

    def name_at(self, pc: int) -> str:
        i = self.function_at(pc)
        return self.names[i] if i is not None else f"0x{pc:08x}"

    def entered(self, pc: int) -> str | None:
        """The function whose first instruction is at `pc`, or None."""
        i = bisect.bisect_left(self.starts, pc)
        if i < len(self.starts) and self.starts[i] == pc:
            return self.names[i]
        return None


def _add_sizeless(
    found: dict[int, tuple[int, str]], sizeless: list[tuple[int, str]], addresses: set[int]
) -> None:
    """Functions an assembler file defines without `.size` (uC/CPU's CPU_SR_Save, a
    PendSV handler): each runs to the next symbol, unless it lies inside a sized
    function (a literal pool's label) or another function starts there."""
    sized = sorted((a, a + size) for a, (size, _name) in found.items())
    ordered = sorted(addresses)
    for addr, name in sorted(sizeless):
        i = bisect.bisect_right(sized, (addr, float("inf"))) - 1
        if addr in found or (i >= 0 and sized[i][0] <= addr < sized[i][1]):
            continue
        j = bisect.bisect_right(ordered, addr)
        if j < len(ordered):
            found[addr] = (ordered[j] - addr, name)


def vector_words(elf: Path, addr: int, size: int) -> list[int]:
    """The 32-bit little-endian words at [addr, addr+size) of a 32-bit ELF's
    loadable segments ([] when they are not in the file)."""
    try:
        data = elf.read_bytes()
    except OSError:
        return []
    if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
        return []  # only 32-bit little-endian images have a Cortex-M vector table
    (phoff,) = struct.unpack_from("<I", data, 28)
    phentsize, phnum = struct.unpack_from("<HH", data, 42)
    for i in range(phnum):
        p_type, p_offset, p_vaddr, _paddr, p_filesz = struct.unpack_from(
            "<IIIII", data, phoff + i * phentsize
        )
        if p_type == _PT_LOAD and p_vaddr <= addr and addr + size <= p_vaddr + p_filesz:
            start = p_offset + addr - p_vaddr
            return list(struct.unpack_from(f"<{size // 4}I", data, start))
    return []
