# SPDX-License-Identifier: Apache-2.0
"""The emulated boards firmware images run on, shared by every RTOS: how QEMU
models each, and how it is started for an image (`BoardLaunch`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rtbench.targets.guest.machine import icount_option
from rtbench.targets.qemu.exec_log import MONITOR_SOCKET
from rtbench.trace.codepath.exec_log import CounterReads
from rtbench.trace.codepath.read_sites import CounterInstructions, ReadInstruction


@dataclass(frozen=True)
class Board:
    """One emulated board firmware images are built for."""

    name: str
    summary: str  # "Cortex-M3 board (QEMU's mps2-an385)"
    qemu: str
    machine_args: tuple[str, ...]
    cpu: str
    arch: str
    # how the image's counter shows in QEMU's log (a path trace's anchor): a
    # device register's read event, or the instructions that read a CPU
    # register; None when it does not, and `no_trace` says why --trace is not
    # available
    counter_reads: CounterReads | CounterInstructions | None
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
        # the counter is a coprocessor register (ports/arch/cortex-a/ca.h): the
        # generic timer's CNTVCT, or under -icount the PMU's event counter 0
        # (PMSELR 0, so PMXEVCNTR); both A32, unconditional, Rt in bits 12-15
        counter_reads=CounterInstructions(
            (
                ReadInstruction("mrrc p15, 1, Rt, Rt2, c14 (CNTVCT)", 0xFFF00FFF, 0xEC500F1E),
                ReadInstruction("mrc p15, 0, Rt, c9, c13, 2 (PMXEVCNTR)", 0xFFFF0FFF, 0xEE190F5D),
            ),
            objdump="arm-none-eabi-objdump",
        ),
        nm="arm-none-eabi-nm",
        vector_table="vectors",
        toolchain="arm-none-eabi-cortex-a7.cmake",
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
