# SPDX-License-Identifier: Apache-2.0
"""FreeRTOS on an emulated board, as a target
(`qemu:freertos-mps2-an385[,icount=SHIFT][,checks=on|off]`).

`open` builds the FreeRTOS image (targets.freertos_image: rtbench's port built
against the kernel checkout FREERTOS_KERNEL_PATH names), boots it under QEMU
and waits for its `ready` line. The image speaks the serial line protocol on
the board's first UART: each scenario is one `#rtb run` of the core inside the
image, whose records come back on the line, and the same watchdog, `lost`
handling and recovery as for Debian guests apply (a hung or crashed image
ends QEMU, the unit is `lost`, and the next one runs in a fresh boot).

`checks=on` builds the image with rtbench's checked FreeRTOS configuration
(ports/freertos/config-checked: configASSERT and stack overflow checking on)
instead of the production one; the image reports which it was built with in
every run's meta record (os_config).

The board has one CPU (0). System facts come from the image's
`/rtbench/freertos.json` (the kernel's version and configuration, the board,
CPU and counter) and from the kernel checkout (its tag and commit). The image
holds no settings a run would change. Every figure is emulated (TCG); with
`icount=SHIFT` or `rtbench run --deterministic` (shift DETERMINISTIC_SHIFT)
the board's clock follows executed instructions, so figures count
instructions and repeat from run to run.

Test hook: RTBENCH_FREERTOS_QEMU names a command (split like a shell would)
started instead of qemu-system-arm, with the same arguments.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtbench.errors import UsageError
from rtbench.paths import ROOT
from rtbench.system.model import SNAPSHOT_VERSION
from rtbench.targets import freertos_image
from rtbench.targets.base import Say
from rtbench.targets.guest.machine import icount_option
from rtbench.targets.qemu_base import (
    GuestError,
    QemuBase,
    deterministic_info,
    emulation_caveats,
)
from rtbench.targets.qemu_exec_log import MONITOR_SOCKET, ExecLog, Firmware
from rtbench.trace.exec_log import CounterReads
from rtbench.transport import TargetLost

EMULATOR_ENV = "RTBENCH_FREERTOS_QEMU"
FACTS_PATH = "/rtbench/freertos.json"
BOOT_TIMEOUT_S = 60.0
# --deterministic without icount=: 2^5 = 32 ns per instruction, the power of two
# nearest the 40 ns cycle of the board's 25 MHz Cortex-M3 (about one instruction
# a cycle), so the RTOS tick and the scenarios' timers keep their proportions to
# the code; one 40 ns tick of the board's counter is then 1.25 instructions.
DETERMINISTIC_SHIFT = 5
MAX_SHIFT = 10


@dataclass(frozen=True)
class Board:
    """One emulated board the FreeRTOS image is built for."""

    name: str
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
    """QEMU's command line for a FreeRTOS image (the machine's Launch)."""

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


def parse_spec(spec: str) -> tuple[Board, int | None, bool]:
    """The board, icount shift and checks of
    `qemu:freertos-BOARD[,icount=SHIFT][,checks=on|off]`, or UsageError."""
    name, *pairs = spec.removeprefix("qemu:").split(",")
    board = BOARDS.get(name.removeprefix("freertos-"))
    if board is None:
        known = ", ".join(f"qemu:freertos-{b}" for b in BOARDS)
        raise UsageError(f"Unknown FreeRTOS board in '{spec}' (use {known}).")
    values: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if key not in ("icount", "checks") or not sep or key in values:
            raise UsageError(
                f"Unknown or repeated option '{pair}' for {name} "
                "(it takes icount=SHIFT and checks=on|off)."
            )
        values[key] = value
    icount: int | None = None
    if "icount" in values:
        value = values["icount"]
        if not re.fullmatch(r"\d+", value) or int(value) > MAX_SHIFT:
            raise UsageError(
                f"The option icount={value} must be a whole number from 0 to {MAX_SHIFT}."
            )
        icount = int(value)
    return board, icount, _checks(values.get("checks", "off"))


def _checks(value: str) -> bool:
    """checks=on: the checked FreeRTOS configuration (asserts and stack checking on)."""
    if value not in ("on", "off"):
        raise UsageError(
            f"The option checks={value} must be on (the checked FreeRTOS configuration: "
            "configASSERT and stack overflow checking) or off (production, the default)."
        )
    return value == "on"


def _emulator(board: Board) -> tuple[str, ...]:
    hook = os.environ.get(EMULATOR_ENV, "").strip()
    return tuple(shlex.split(hook)) if hook else (board.qemu,)


def ready() -> str | None:
    """None when the FreeRTOS image can be built and booted here, else what is
    missing and how to get it."""
    board = BOARDS["mps2-an385"]
    hooked = bool(os.environ.get(EMULATOR_ENV, "").strip())
    return freertos_image.missing(ROOT, None if hooked else board.qemu)


class NoTuning:
    """The Tuning of a FreeRTOS image: nothing to change (see targets.base.Tuning)."""

    def __init__(self, dma_latency: bool, lift_rt_throttle: bool) -> None:
        self._skipped: list[dict[str, str]] = []
        if dma_latency:
            self._skipped.append(
                {
                    "setting": "cpu_dma_latency",
                    "reason": "nothing to hold on FreeRTOS: the image has no CPU idle "
                    "states or power management a run would have to keep off",
                }
            )
        if lift_rt_throttle:
            self._skipped.append(
                {
                    "setting": "sched_rt_runtime_us",
                    "reason": "FreeRTOS has no real-time throttling: its highest-priority "
                    "ready task always runs",
                }
            )

    @property
    def changes(self) -> list[dict[str, Any]]:
        return []

    @property
    def skipped(self) -> list[dict[str, str]]:
        return self._skipped

    def apply(self) -> None:
        return None

    def restore(self) -> None:
        return None


class FreeRtosTarget(QemuBase):
    """The FreeRTOS image on an emulated board, measured over its UART."""

    noun = "image"

    def __init__(self, spec: str, libc: str = "glibc") -> None:
        if libc != "glibc":
            raise UsageError(
                "--libc chooses the C library of a Linux core; the FreeRTOS image is "
                "built with picolibc."
            )
        board, icount, checks = parse_spec(spec)
        super().__init__(
            spec,
            f"freertos-{board.name}",
            board.qemu,
            board.name,
            f"the FreeRTOS image ({freertos_image.image_name(board.name)})",
        )
        self.board = board
        self.icount = icount
        self.checks = checks
        self.boot_timeout_s = BOOT_TIMEOUT_S
        self.image: freertos_image.Image | None = None
        self._exec_log = False

    def use_exec_log(self) -> None:
        """--trace: boot with a monitor socket, so the execution log can be switched."""
        self._exec_log = True

    def exec_log(self) -> ExecLog:
        """The execution log of the running image (after `open`)."""
        assert self.image is not None
        board = self.board
        return ExecLog(
            lambda: self.machine.folder if self.machine is not None else None,
            board.counter_reads,
            Firmware(self.image.path, board.nm, board.vector_table),
            self.icount,
        )

    def use_deterministic(self) -> None:
        """--deterministic: -icount with DETERMINISTIC_SHIFT unless the spec gave one."""
        if self.icount is None:
            self.icount = DETERMINISTIC_SHIFT

    def open(self, say: Say) -> None:
        emulator = _emulator(self.board)
        hooked = emulator != (self.board.qemu,)
        problem = freertos_image.missing(ROOT, None if hooked else self.board.qemu)
        if problem is not None:
            raise UsageError(f"The {self.spec} target cannot be used here: {problem}.")
        self.image = freertos_image.ensure_image(ROOT, self.board.name, say, checks=self.checks)
        self.launch = BoardLaunch(
            emulator, self.board, self.image.path, self.icount, monitor=self._exec_log
        )
        self._boot(say)

    def boot_message(self) -> str:
        mode = f", deterministic: -icount shift={self.icount}" if self.icount is not None else ""
        return f"Booting FreeRTOS on {self.board.name} (QEMU, TCG{mode})..."

    # ---- what the runner asks ---------------------------------------------------

    def check_cpu(self, cpu: int | None) -> int:
        if cpu not in (None, 0):
            raise UsageError(
                f"CPU {cpu} does not exist on the {self.board.name} board, which has one CPU (0)."
            )
        return 0

    def facts(self) -> dict[str, Any]:
        """The image's own description of itself (FACTS_PATH), or GuestError."""
        try:
            text = self.source().read(FACTS_PATH)
        except TargetLost as e:
            raise GuestError(f"The {self.name} image did not answer ({e}).") from None
        if text is None:
            raise GuestError(f"The {self.name} image could not give {FACTS_PATH}.")
        try:
            data = json.loads(text)
        except ValueError:
            raise GuestError(f"The {self.name} image's {FACTS_PATH} is not JSON.") from None
        if not isinstance(data, dict):
            raise GuestError(f"The {self.name} image's {FACTS_PATH} is not a JSON object.")
        return data

    def _kernel(self) -> dict[str, Any] | None:
        if self.image is None or self.image.kernel is None:
            return None
        return self.image.kernel.describe()

    def snapshot(self, cpu: int, cpu_given: bool) -> dict[str, Any]:
        facts = self.facts()
        release = str(facts.get("kernel") or self.release or "")
        checkout = self._kernel()
        return {
            "snapshot_version": SNAPSHOT_VERSION,
            "taken_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "hostname": str(facts.get("board") or self.board.name),
            "kernel": {
                "system": "FreeRTOS",
                "release": release.removeprefix("FreeRTOS ").strip() or None,
                "machine": self.board.arch,
                "port": facts.get("port"),
                "checkout": checkout,
            },
            "cpus": {
                "model": str(facts.get("cpu") or self.board.cpu),
                "count_online": 1,
                "online": [0],
                "hz": facts.get("cpu_hz"),
            },
            "measurement_cpu": {"cpu": cpu, "chosen_by": "argument" if cpu_given else "default"},
            "counter": facts.get("counter"),
            "freertos": facts,
            "emulation": self._emulation(),
            # the Python that runs rtbench (on the controller, whatever the target)
            "python": {
                "version": platform.python_version(),
                "implementation": platform.python_implementation(),
            },
        }

    def _emulation(self) -> dict[str, Any]:
        return {
            "emulator": self.board.qemu,
            "accel": "tcg",
            "accel_reason": "a Cortex-M board is always emulated",
            "icount_shift": self.icount,
        }

    def caveats(self, snap: dict[str, Any]) -> list[dict[str, str]]:
        return emulation_caveats("tcg", self.icount)

    def tuning(self, dma_latency: bool, lift_rt_throttle: bool, cpu: int) -> NoTuning:
        return NoTuning(dma_latency, lift_rt_throttle)

    def describe(self) -> dict[str, Any]:
        image = self.image
        return {
            "kind": self.kind,
            "spec": self.spec,
            "os": "FreeRTOS",
            "os_release": self.release,
            "board": self.board.name,
            "cpu": self.board.cpu,
            "arch": self.board.arch,
            "freertos_kernel": self._kernel(),
            "freertos_config_dir": str(image.config_dir) if image and image.config_dir else None,
            "image": str(image.path) if image else None,
            "emulator": self.board.qemu,
            "emulator_version": self.version(),
            "accel": "tcg",
            "emulated": True,
            "icount_shift": self.icount,
            "deterministic": deterministic_info(self.icount),
            "cpus": 1,
            "boots": self.boots,
        }


def render(snap: dict[str, Any]) -> str:
    """`rtbench system` of a FreeRTOS image: the kernel, board, counter and configuration."""
    kernel = snap.get("kernel") or {}
    facts = snap.get("freertos") or {}
    checkout = kernel.get("checkout") or {}
    counter = snap.get("counter") or {}
    rows = [
        ("system", f"FreeRTOS {kernel.get('release') or '?'} ({kernel.get('port') or '?'})"),
        (
            "kernel checkout",
            f"{checkout.get('tag') or '?'} {checkout.get('commit') or ''} "
            f"({checkout.get('path') or 'not known'})".replace("  ", " "),
        ),
        ("board", f"{snap.get('hostname')}, {(snap.get('cpus') or {}).get('model')}"),
        (
            "counter",
            f"{counter.get('name', '?')} at {counter.get('hz', '?')} Hz, "
            f"{counter.get('bits', '?')} bits",
        ),
        ("heap", json.dumps(facts.get("heap"), sort_keys=True)),
    ]
    config = facts.get("config") or {}
    rows += [(str(k), str(v)) for k, v in config.items()]
    width = max(len(k) for k, _ in rows) + 1
    return "\n".join(f"  {(k + ':').ljust(width)} {v}" for k, v in rows) + "\n"
