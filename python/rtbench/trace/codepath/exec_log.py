# SPDX-License-Identifier: Apache-2.0
"""QEMU's execution log, read back into the code path of each kept sample.

With `-d exec,nochain,in_asm` QEMU writes one `Trace` line before every
translated block (TB) it executes and, once per translation, the block's
instructions (`IN:`). With the trace event of the board's counter register
enabled, every read of the counter is a line too, carrying the value read.
The core keeps the counter readings of each metric's worst and median samples
(`spans`), so a sample's two readings can be found in the log, and every block
executed between them is the sample's path.

What is counted, and how exactly:
- a block's instructions come from its translation (`IN:`), or from its
  cflags when QEMU limited the block to a count (icount budget, I/O);
- `Stopped execution of TB chain before ...` means the block just logged did
  not run: it is taken back;
- `cpu_io_recompile: rewound execution of TB to X` means the block ran only up
  to X before being translated again: only its instructions before X count;
- a block's `cpsid i` (or `cpsid if`) instructions (interrupts masked) are
  noted from its translation too, so a path can say how often a function
  masked inline;
- the window starts after the block holding the start reading and ends with
  the block holding the stop reading. Under -icount QEMU ends a block at
  every device access, so both readings end their blocks and the count is
  exact; without it, each end can be off by the rest of one block
  (`exact_bounds` says which).

When the counter is a CPU register (trace.codepath.read_sites), no line
carries a read: a block holding one of the image's read instructions ran a
read, and the register dump QEMU writes after the next block's `Trace` line
(`-d cpu`, the state before that block) gives the value read. The window
bounds are the same: after the block holding the start read, up to and
including the block holding the stop read. Under -icount a counter read ends
its block (QEMU treats it as I/O), so the counts are exact there too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtbench.trace.codepath.read_sites import ReadSites
from rtbench.trace.codepath.symbols import Symbols

CF_COUNT_MASK = 0x1FF  # QEMU's TB cflags: instruction count when limited
_TRACE = re.compile(r"Trace \d+: 0x([0-9a-f]+) \[[0-9a-f]+/([0-9a-f]+)/[0-9a-f]+/([0-9a-f]+)\]")
_STOPPED = re.compile(r"Stopped execution of TB chain before 0x[0-9a-f]+ \[([0-9a-f]+)\]")
_REWOUND = re.compile(r"cpu_io_recompile: rewound execution of TB to ([0-9a-f]+)")
_READ = re.compile(r"offset 0x([0-9a-f]+) data 0x([0-9a-f]+)")
_INSN = re.compile(r"0x([0-9a-f]+):")
_MASK = re.compile(r"\scpsid\s+if?\b")  # masks interrupts (PRIMASK; CPSR.I, and .F with `if`)


@dataclass(frozen=True)
class CounterReads:
    """How the board's counter shows in QEMU's log: the trace event of the
    register read, the register's offset, its width, and whether it counts
    down (the counter is then the complement of the register)."""

    event: str
    offset: int
    bits: int
    inverted: bool

    def value(self, data: int) -> int:
        mask = (1 << self.bits) - 1
        return (~data if self.inverted else data) & mask


@dataclass
class Translations:
    """Instruction addresses of every block translated so far, by start address
    (kept across units: a block translated once is not listed again)."""

    blocks: dict[int, tuple[int, ...]] = field(default_factory=dict)
    masks: dict[int, tuple[int, ...]] = field(default_factory=dict)  # cpsid i, by block

    def add(self, addresses: list[int], masks: list[int] | None = None) -> None:
        if addresses:
            known = self.blocks.get(addresses[0])
            if known is None or len(addresses) > len(known):
                self.blocks[addresses[0]] = tuple(addresses)
                if masks:
                    self.masks[addresses[0]] = tuple(masks)

    def masked(self, pc: int, n: int) -> int:
        """The `cpsid i` among the first `n` instructions of the block at `pc`."""
        found = self.masks.get(pc)
        if not found or n <= 0:
            return 0
        known = self.blocks.get(pc, ())
        end = known[n] if n < len(known) else None
        return sum(1 for a in found if end is None or a < end)

    def size(self, pc: int, cflags: int) -> int | None:
        limit = cflags & CF_COUNT_MASK
        if limit:
            return limit
        known = self.blocks.get(pc)
        return len(known) if known is not None else None

    def before(self, pc: int, stop: int) -> int | None:
        known = self.blocks.get(pc)
        return None if known is None else sum(1 for a in known if a < stop)


class _Listing:
    """The block QEMU is listing (the instructions after an `IN:` line), added to
    the translations when its listing ends."""

    def __init__(self, translations: Translations) -> None:
        self.translations = translations
        self.active = False
        self.addresses: list[int] = []
        self.masks: list[int] = []  # its cpsid i

    def start(self) -> None:
        self.active, self.addresses, self.masks = True, [], []

    def take(self, line: str) -> bool:
        """Whether `line` is one of the block's instructions (then it is noted)."""
        m = _INSN.match(line)
        if m:
            self.addresses.append(int(m.group(1), 16))
            if _MASK.search(line):
                self.masks.append(self.addresses[-1])
            return True
        self.end()
        return False

    def end(self) -> None:
        if self.active:
            self.active = False
            self.translations.add(self.addresses, self.masks)


@dataclass
class Window:
    """One kept sample's readings, and the blocks executed between them."""

    key: Any  # what the caller uses to find it again
    start: int  # counter values, reduced to the register's width
    stop: int
    blocks: list[list[int]] = field(default_factory=list)  # [pc, instructions or -1]
    opened: bool = False
    closed: bool = False


def _reading(open_: list[Window], by_start: dict[int, list[Window]], value: int) -> list[Window]:
    """The windows open after a counter reading of `value`: the ones it ends are
    closed, the ones it starts are opened."""
    if open_:
        for w in open_:
            if w.stop == value:
                w.closed = True
        open_ = [w for w in open_ if not w.closed]
    for w in by_start.pop(value, ()):
        w.opened = True
        open_.append(w)
    return open_


def scan(
    lines: Iterable[str],
    reads: CounterReads | ReadSites,
    windows: list[Window],
    translations: Translations,
) -> int:
    """Fill `windows` from one unit's log; returns the number of counter reads seen."""
    if isinstance(reads, ReadSites):
        return scan_sites(lines, reads, windows, translations)
    by_start: dict[int, list[Window]] = {}
    for w in windows:
        by_start.setdefault(w.start, []).append(w)
    open_: list[Window] = []
    listing = _Listing(translations)
    seen = 0
    marker = reads.event
    for line in lines:
        if listing.active and listing.take(line):
            continue
        if line.startswith("Trace "):
            if not open_:
                continue
            m = _TRACE.match(line)
            if m:
                pc, cflags = int(m.group(2), 16), int(m.group(3), 16)
                size = translations.size(pc, cflags)
                entry = [pc, size if size is not None else -1]
                for w in open_:
                    w.blocks.append(entry)
        elif line.startswith("IN:"):
            listing.start()
        elif line.startswith(marker):
            m = _READ.search(line)
            if m is None or int(m.group(1), 16) != reads.offset:
                continue
            seen += 1
            value = reads.value(int(m.group(2), 16))
            open_ = _reading(open_, by_start, value)
        elif open_ and line.startswith("Stopped execution"):
            m = _STOPPED.match(line)
            if m:
                _take_back(open_, int(m.group(1), 16))
        elif open_ and line.startswith("cpu_io_recompile"):
            m = _REWOUND.match(line)
            if m:
                _rewind(open_, int(m.group(1), 16), translations)
    listing.end()
    return seen


def scan_sites(
    lines: Iterable[str],
    sites: ReadSites,
    windows: list[Window],
    translations: Translations,
) -> int:
    """`scan` when the reads are the image's instructions (`sites`) and their values
    are in the register dumps of QEMU's log."""
    mask = (1 << sites.bits) - 1
    by_start: dict[int, list[Window]] = {}
    for w in windows:
        by_start.setdefault(w.start, []).append(w)
    open_: list[Window] = []
    listing = _Listing(translations)
    seen = 0
    read: tuple[int, int, int] | None = None  # the last block's read: block, address, register
    held: list[int] | None = None  # the block after a read, placed once its value is known
    dump = ""  # the dump line holding the read's register ("R04=")
    column, name = 0, ""  # its place on that line, and its name there ("R06=")
    for line in lines:
        if listing.active and listing.take(line):
            continue
        if line.startswith("Trace "):
            m = _TRACE.match(line)
            if m is None:
                continue
            if held is not None:  # the value never came: the read is not seen
                _extend(open_, held)
                held = None
            pc, cflags = int(m.group(2), 16), int(m.group(3), 16)
            size = translations.size(pc, cflags)
            entry = [pc, size if size is not None else -1]
            if read is not None:
                held = entry
                reg = read[2]
                dump, column, name = f"R{reg // 4 * 4:02d}=", reg % 4, f"R{reg:02d}="
            else:
                _extend(open_, entry)
            read = _read_in(sites, translations, pc, size)
        elif held is not None and line.startswith(dump):
            fields = line.split()
            if len(fields) <= column or not fields[column].startswith(name):
                continue
            value = int(fields[column][len(name) :], 16) & mask
            seen += 1
            open_ = _reading(open_, by_start, value)
            _extend(open_, held)
            held = None
        elif line.startswith("IN:"):
            listing.start()
        elif line.startswith("Stopped execution"):
            m = _STOPPED.match(line)
            if m:
                pc = int(m.group(1), 16)
                if read is not None and read[0] == pc:
                    read = None  # the block did not run
                if open_:
                    _take_back(open_, pc)
        elif line.startswith("cpu_io_recompile"):
            m = _REWOUND.match(line)
            if m:
                stop = int(m.group(1), 16)
                if read is not None and read[1] >= stop:
                    read = None  # the block stopped before its read
                if open_:
                    _rewind(open_, stop, translations)
    listing.end()
    return seen


def _read_in(
    sites: ReadSites, translations: Translations, pc: int, size: int | None
) -> tuple[int, int, int] | None:
    """The last counter read among the `size` instructions the block at `pc` ran."""
    known = translations.blocks.get(pc)
    if known is None or size is None:
        return None
    found = None
    registers = sites.registers
    for address in known[:size]:
        reg = registers.get(address)
        if reg is not None:
            found = (pc, address, reg)
    return found


def _extend(open_: list[Window], entry: list[int]) -> None:
    for w in open_:
        w.blocks.append(entry)


def _take_back(open_: list[Window], pc: int) -> None:
    for w in open_:
        if w.blocks and w.blocks[-1][0] == pc:
            w.blocks.pop()


def _rewind(open_: list[Window], stop: int, translations: Translations) -> None:
    for w in open_:
        if w.blocks:
            last = w.blocks[-1]
            ran = translations.before(last[0], stop)
            # a new list: the entry may be shared with other windows
            w.blocks[-1] = [last[0], ran if ran is not None else -1]


def read_lines(path: Path) -> Iterable[str]:
    with path.open(encoding="utf-8", errors="replace") as f:
        yield from f


@dataclass(frozen=True)
class CodePath:
    """What one window executed, by function."""

    instructions: int
    blocks: int
    unknown_blocks: int  # blocks whose translation was not in the log
    sequence: tuple[str, ...]  # functions entered, in order
    calls: dict[str, int]  # entries per function, in order of first entry
    by_function: dict[str, int]  # instructions per function
    handlers: tuple[str, ...]  # exception handlers entered, in order
    runs: tuple[tuple[str, int], ...]  # (function, instructions) in order, merged
    # `cpsid i` executed per function (only when the translations were given)
    masks: dict[str, int] = field(default_factory=dict)


def analyse(window: Window, symbols: Symbols, translations: Translations | None = None) -> CodePath:
    sequence: list[str] = []
    calls: dict[str, int] = {}
    by_function: dict[str, int] = {}
    runs: list[list[Any]] = []  # [function, instructions], consecutive blocks merged
    masks: dict[str, int] = {}
    instructions = unknown = 0
    for pc, n in window.blocks:
        if n == 0:
            continue
        name = symbols.entered(pc)
        if name is not None:
            sequence.append(name)
            calls[name] = calls.get(name, 0) + 1
        if n < 0:
            unknown += 1
            continue
        instructions += n
        owner = symbols.name_at(pc)
        by_function[owner] = by_function.get(owner, 0) + n
        masked = translations.masked(pc, n) if translations is not None else 0
        if masked:
            masks[owner] = masks.get(owner, 0) + masked
        if runs and runs[-1][0] == owner and name is None:
            runs[-1][1] += n
        else:
            runs.append([owner, n])
    handlers = tuple(s for s in sequence if s in symbols.handlers)
    return CodePath(
        instructions,
        len(window.blocks),
        unknown,
        tuple(sequence),
        calls,
        by_function,
        handlers,
        tuple((str(f), int(n)) for f, n in runs),
        masks,
    )
