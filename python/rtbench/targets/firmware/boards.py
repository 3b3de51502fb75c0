# SPDX-License-Identifier: Apache-2.0
"""The emulated boards firmware images run on, shared by every RTOS: how QEMU
models each, and how it is started for an image (`BoardLaunch`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rtbench.targets.guest.machine import icount_option
from rtbench.targets.qemu_exec_log import MONITOR_SOCKET
from rtbench.trace.codepath.exec_log import CounterReads


@dataclass(frozen=True)
class Board:
    """One emulated board firmware images are built for."""

    name: str
    summary: str  # "Cortex-M3 board (QEMU's mps2-an385)"
    qemu: str
    machine_args: tuple[str, ...]
    cpu: str
    arch: str
    # how the image's counter shows in QEMU's log (a path trace's anchor)
    counter_reads: CounterReads
    nm: str  # the toolchain's nm, for the image's symbols
    vector_table: str  # the symbol of the image's vector table


BOARDS = {
    "mps2-an385": Board(
        name="mps2-an385",
        summary="Cortex-M3 board (QEMU's mps2-an385)",
        qemu="qemu-system-arm",
        machine_args=("-M", "mps2-an385", "-cpu", "cortex-m3"),
        cpu="cortex-m3",
        arch="armv7m",
        # the CMSDK dual timer's first value register (offset 4), counting
        # down: the port's counter is its complement (board_config.h)
        counter_reads=CounterReads("cmsdk_apb_dualtimer_read", 0x4, 32, inverted=True),
        nm="arm-none-eabi-nm",
        vector_table="vectors",
    ),
}


@dataclass(frozen=True)
class BoardLaunch:
    """QEMU's command line for a firmware image (the machine's Launch)."""

    emulator: tuple[str, ...]  # qemu-system-arm, or the test hook's command
    board: Board
    image: Path
    icount: int | None
    monitor: bool = False  # a monitor socket in the folder (for --trace)

    def argv(self, folder: Path) -> list[str]:
        monitor = f"unix:{folder / MONITOR_SOCKET},server=on,wait=off" if self.monitor else "none"
        args = [
            *self.emulator,
            *self.board.machine_args,
            "-nographic",
            "-no-reboot",
            "-monitor",
            monitor,
            "-pidfile",
            str(folder / "qemu.pid"),
            "-kernel",
            str(self.image),
            # UART0 is QEMU's first serial port: the protocol's line, on QEMU's
            # standard input and output
            "-chardev",
            "stdio,id=rtb,signal=off",
            "-serial",
            "chardev:rtb",
        ]
        if self.icount is not None:
            args += ["-icount", icount_option(self.icount)]
        return args
