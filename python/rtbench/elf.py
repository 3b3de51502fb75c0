# SPDX-License-Identifier: Apache-2.0
"""What an ELF executable's header says: its architecture and whether it is
linked statically (no program interpreter), read without running it.

Used to check a core given with RTBENCH_CORE or produced by a target build
before it is copied to a target it may not run on.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

_MAGIC = b"\x7fELF"
_PT_INTERP = 3
# e_machine -> architecture as rtbench.build.target_arch() names it. 32-bit
# ARM is named after the only 32-bit ARM build rtbench makes (ARMv7-A,
# hard-float).
_MACHINES = {62: "x86_64", 183: "aarch64", 40: "armv7l", 3: "i686", 243: "riscv"}


@dataclass(frozen=True)
class ElfFacts:
    arch: str  # "x86_64", "aarch64", "armv7l", ... or "elf-machine-<n>"
    bits: int  # 32 or 64
    static: bool  # no PT_INTERP program header: needs no dynamic loader


def read_facts(path: Path) -> ElfFacts | None:
    """The facts of an ELF file; None when it is not a readable ELF file."""
    try:
        with path.open("rb") as f:
            head = f.read(64)
            if len(head) < 52 or head[:4] != _MAGIC:
                return None
            bits = {1: 32, 2: 64}.get(head[4])
            order = {1: "<", 2: ">"}.get(head[5])
            if bits is None or order is None or (bits == 64 and len(head) < 64):
                return None
            (machine,) = struct.unpack_from(order + "H", head, 18)
            if bits == 64:
                (phoff,) = struct.unpack_from(order + "Q", head, 32)
                phentsize, phnum = struct.unpack_from(order + "HH", head, 54)
            else:
                (phoff,) = struct.unpack_from(order + "I", head, 28)
                phentsize, phnum = struct.unpack_from(order + "HH", head, 42)
            if phentsize < 4 or phnum > 4096:
                return None
            f.seek(phoff)
            table = f.read(phentsize * phnum)
            if len(table) < phentsize * phnum:
                return None
    except OSError:
        return None
    interp = any(
        struct.unpack_from(order + "I", table, i * phentsize)[0] == _PT_INTERP for i in range(phnum)
    )
    return ElfFacts(_MACHINES.get(machine, f"elf-machine-{machine}"), bits, not interp)
