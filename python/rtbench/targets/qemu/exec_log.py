# SPDX-License-Identifier: Apache-2.0
"""Switching QEMU's execution log on and off around one unit (`--trace` on an
emulated board).

The machine runs with a monitor socket in its private folder. `start` points
QEMU's log at a file and turns on what a path trace needs: one line per
executed block without chaining (`exec,nochain`, so no block escapes the log),
the instructions of each new translation (`in_asm`), and what shows the
counter's reads with their values, which tie the log to the samples' readings:
the trace event of the board's counter register read (`CounterReads`), or,
when the counter is a CPU register, the register dump before every block
(`CounterInstructions`, `-d cpu`). `stop` turns all of it off. Turning
`nochain` on changes QEMU's translation flags, so every block is translated,
and listed, afresh.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rtbench.targets.qemu.monitor import Monitor, MonitorError
from rtbench.trace.codepath.critical import CriticalSections
from rtbench.trace.codepath.exec_log import CounterReads
from rtbench.trace.codepath.read_sites import CounterInstructions

MONITOR_SOCKET = "monitor.sock"
LOG_ITEMS = "exec,nochain,in_asm"


@dataclass(frozen=True)
class Firmware:
    """What names the code of the image: its ELF, the toolchain's nm, the symbol
    of its vector table, and the functions its RTOS masks interrupts with; and
    what places its functions (trace.codepath.origin): the port folder's name
    (ports/<rtos>/), the RTOS's sources and rtbench's folder it was built from."""

    elf: Path
    nm: str
    vector_table: str | None
    critical_sections: CriticalSections | None = None
    rtos: str = ""
    rtos_sources: Path | None = None
    project: Path | None = None


class ExecLog:
    """The execution log of the target's current machine."""

    def __init__(
        self,
        folder: Callable[[], Path | None],
        reads: CounterReads | CounterInstructions,
        firmware: Firmware,
        icount: int | None,
    ) -> None:
        self._folder = folder  # the running machine's private folder (changes on reboot)
        self.reads = reads
        self.firmware = firmware
        self.icount = icount

    def _monitor(self) -> Monitor:
        folder = self._folder()
        if folder is None:
            raise MonitorError("the emulator is not running")
        return Monitor(folder / MONITOR_SOCKET)

    def start(self, dest: Path) -> Path:
        """Log from now on to `dest` (to the machine's folder when the monitor
        could not take that name: it ends at a space); the file; MonitorError."""
        monitor = self._monitor()
        if any(c.isspace() for c in str(dest)):
            dest = monitor.path.parent / dest.name
        monitor.require(f"logfile {dest}")
        reads = self.reads
        extra = f"trace:{reads.event}" if isinstance(reads, CounterReads) else reads.log_items
        monitor.require(f"log {LOG_ITEMS},{extra}")
        return dest

    def stop(self) -> None:
        """Log nothing more; MonitorError."""
        monitor = self._monitor()
        monitor.require("log none")
        if isinstance(self.reads, CounterReads):
            monitor.require(f"trace-event {self.reads.event} off")
