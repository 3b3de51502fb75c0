# SPDX-License-Identifier: Apache-2.0
"""The counter's reads when the counter is a CPU register, not a device.

A board whose counter is a coprocessor register (an ARMv7-A generic timer or
PMU counter) reads it with an instruction QEMU does not log, unlike a device
register read, which is a trace event with the value read. The reads are
found instead where they are in the image: `CounterInstructions` names the
instructions that read the counter by their encoding, and `sites` lists every
such instruction of the image (the toolchain's objdump), with the register
that receives the value's low bits. A block of the execution log that holds
one of these addresses ran a read (trace.codepath.exec_log), and QEMU's
register dump before the next block (`-d cpu`) gives the value read: the
board's read sequence leaves that register untouched until its block ends
(ports/arch/cortex-a/ca.h).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from rtbench.errors import RtbenchError

# `40110b1c:	ec501f1e 	mrrc	15, 1, r1, r0, cr14`: an address and one 32-bit
# word (an A32 instruction; Thumb's are shown as halfwords and are not read here)
_LINE = re.compile(r"\s*([0-9a-f]+):\s+([0-9a-f]{8})\s+([^\s]+)")


class ReadSiteError(RtbenchError):
    """The image's counter reads could not be listed."""


@dataclass(frozen=True)
class ReadInstruction:
    """An A32 instruction that reads the counter: `word & mask == match`, and the
    bit position of the register that receives the low 32 bits (Rt)."""

    name: str  # as the docs say it: "mrrc p15, 1, Rt, Rt2, c14 (CNTVCT)"
    mask: int
    match: int
    register_shift: int = 12

    def register(self, word: int) -> int | None:
        """The register number the value's low bits go to, or None when `word` is not this read."""
        return (word >> self.register_shift) & 0xF if word & self.mask == self.match else None


@dataclass(frozen=True)
class CounterInstructions:
    """How a counter that is a CPU register shows in QEMU's log: the instructions
    reading it, found in the image with the toolchain's `objdump`, and the width
    of the value kept (its low `bits`). QEMU's log then needs its register dumps
    (`log_items`), and no trace event; the dumps make the log about `log_scale`
    times as large per block, and its cap grows as much (trace.codepath.hook)."""

    instructions: tuple[ReadInstruction, ...]
    objdump: str
    bits: int = 32
    log_items: str = "cpu"
    log_scale: int = 3

    def sites(self, elf: Path) -> ReadSites:
        """The image's counter reads; ReadSiteError when objdump fails or finds none."""
        tool = shutil.which(self.objdump)
        if tool is None:
            raise ReadSiteError(
                f"{self.objdump} is not installed, so the counter's reads cannot be found "
                "in the image."
            )
        try:
            done = subprocess.run(
                [tool, "-d", str(elf)], capture_output=True, text=True, timeout=120, check=False
            )
        except (OSError, subprocess.SubprocessError) as e:
            raise ReadSiteError(f"{self.objdump} could not read {elf}: {e}.") from None
        if done.returncode != 0:
            raise ReadSiteError(
                f"{self.objdump} could not read {elf}: {done.stderr.strip()[:200]}."
            )
        found = self.parse(done.stdout)
        if not found.registers:
            names = "; ".join(i.name for i in self.instructions)
            raise ReadSiteError(f"{elf.name} holds no read of the counter ({names}).")
        return found

    def parse(self, listing: str) -> ReadSites:
        """The reads among the lines of `objdump -d`."""
        registers: dict[int, int] = {}
        for line in listing.splitlines():
            m = _LINE.match(line)
            if m is None or m.group(3).startswith("."):  # data (.word) is not executed
                continue
            word = int(m.group(2), 16)
            for insn in self.instructions:
                reg = insn.register(word)
                if reg is not None:
                    registers[int(m.group(1), 16)] = reg
                    break
        return ReadSites(registers, self.bits)


@dataclass(frozen=True)
class ReadSites:
    """Every counter read of an image: its address and the register the value's
    low bits go to (0-15), and the width kept."""

    registers: dict[int, int]
    bits: int

    def describe(self) -> dict[str, int]:
        return {"read_sites": len(self.registers)}
