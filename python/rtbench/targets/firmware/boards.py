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
    # how the image's counter shows in QEMU's log (a path trace's anchor); None
    # when it does not, and `no_trace` says why --trace is not available
    counter_reads: CounterReads | None
    nm: str  # the toolchain's nm, for the image's symbols
    vector_table: str  # the symbol of the image's vector table
    toolchain: str  # the CMake toolchain file (cmake/toolchains/) images are built with
    no_trace: str = ""


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
        toolchain="arm-none-eabi-cortex-m3.cmake",
    ),
    "virt-a7": Board(
        name="virt-a7",
        summary="Cortex-A7 board (QEMU's virt)",
        qemu="qemu-system-arm",
        # secure and virtualization off (virt's default): the image starts in
        # non-secure SVC mode and powers off through PSCI over HVC
        machine_args=("-M", "virt", "-cpu", "cortex-a7"),
        cpu="cortex-a7",
        arch="armv7l",
        counter_reads=None,
        nm="arm-none-eabi-nm",
        vector_table="vectors",
        toolchain="arm-none-eabi-cortex-a7.cmake",
        no_trace=(
            "the code path trace anchors on the counter's reads in QEMU's log, which are "
            "device register reads on mps2-an385; on this board the counter is a "
            "coprocessor register (CNTVCT or the PMU) whose reads QEMU does not log"
        ),
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
