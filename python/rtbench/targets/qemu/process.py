# SPDX-License-Identifier: Apache-2.0
"""What every QEMU target shares: one emulator process speaking the serial line
protocol, booted, recovered and ended the same way whatever runs inside it.

`QemuBase` boots a `Machine` from a launch description (anything with
`argv(folder)`), waits for the `ready` line and checks the machine it names;
`recover` boots a fresh one after a lost unit; `close` powers it off or kills
it. `QemuTransport` starts core runs through the link of the machine running
now. The Debian guests (targets.guest.target) and the FreeRTOS board
(targets.firmware) are subclasses that say what to boot and what the figures
mean.

Deterministic mode (`-icount shift=N,align=off,sleep=off`): the emulated
clock advances 2^N ns per executed instruction and skips idle time, so a time
figure counts the instructions on the measured path and repeats from run to
run. `emulation_caveats` says so in every such run's results.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections.abc import Sequence
from typing import Any

from rtbench.errors import RtbenchError
from rtbench.targets.base import Say
from rtbench.targets.guest.link import KILL_ANSWER_S, LinkSource, LinkStream
from rtbench.targets.guest.machine import Launch, Machine, icount_option
from rtbench.transport import Clock, TargetLost

EMULATED_MESSAGE = "emulated: timing is not representative of hardware"
# How many times its deadline a deterministic machine that stopped executing may
# take, on the host's clock, before the watchdog ends it (see progress_clock).
WALL_CAP = 8.0


class GuestError(RtbenchError):
    """The guest could not be booted or stopped answering at boot."""


class QemuTransport:
    """Starts core commands through the serial link of the target's current machine."""

    def __init__(self, target: QemuBase, path: str) -> None:
        self._target = target
        self._path = path
        self.name = target.spec

    def start(self, args: Sequence[str]) -> LinkStream:
        machine = self._target.machine
        if machine is None or machine.link is None or machine.link.closed is not None:
            raise TargetLost(f"the {self._target.noun} is not running")

        def end() -> None:
            machine.kill(
                f"the {self._target.noun} did not answer a kill within {KILL_ANSWER_S:.0f} s, "
                "so QEMU was killed"
            )

        return LinkStream(machine.link, list(args), end)

    def describe(self) -> dict[str, str | None]:
        return {"path": self._path, "version": None}

    def progress_clock(self) -> Clock | None:
        """A new watchdog clock, counting from now. A deterministic machine (-icount, idle time
        skipped) advances only as fast as QEMU executes it, and a busy host (other
        emulators beside it, --parallel) slows that down without making a scenario
        late: its progress is the CPU time QEMU used, and the host's clock, slowed
        WALL_CAP times, still ends a machine that stopped executing. Others: the
        host's clock."""
        if self._target.shares_host_cpus():
            return None
        target = self._target

        def cpu() -> float | None:
            machine = target.machine
            return machine.cpu_seconds() if machine is not None else None

        wall_start, cpu_start = time.monotonic(), cpu()

        def progress() -> float:
            """Seconds since this clock was made: QEMU's CPU time, or the host's
            time slowed WALL_CAP times when that is more."""
            wall = (time.monotonic() - wall_start) / WALL_CAP
            used = cpu()
            if used is None or cpu_start is None:
                return wall
            return max(used - cpu_start, wall)

        return progress


class QemuBase:
    """One QEMU machine measured through the serial line protocol (subclassed)."""

    kind = "qemu"
    runs_here = False
    noun = "guest"  # what the messages call the machine: "guest", "image"

    def __init__(
        self, spec: str, name: str, qemu: str, expected_machine: str, core_path: str
    ) -> None:
        self.spec = spec
        self.name = name  # "debian-amd64", "freertos-mps2-an385"
        self.qemu = qemu  # the emulator binary
        self.expected_machine = expected_machine  # what its `ready` line must name
        self.machine: Machine | None = None
        self.launch: Launch | None = None
        self.boots = 0
        self.release: str | None = None
        self.boot_timeout_s = 180.0
        self._transport = QemuTransport(self, core_path)
        self._qemu_version: str | None = None

    def version(self) -> str | None:
        """The emulator's version (`qemu-system-arm --version`), read once."""
        if self._qemu_version is None:
            self._qemu_version = qemu_version(self.qemu)
        return self._qemu_version

    def shares_host_cpus(self) -> bool:
        """Whether the figures depend on this machine's CPUs (subclasses say)."""
        return True

    # ---- boot -------------------------------------------------------------------

    def boot_message(self) -> str:
        """What is said when a machine boots (subclasses add what they boot)."""
        return f"Booting {self.name}..."

    def _boot(self, say: Say) -> None:
        assert self.launch is not None
        say(self.boot_message())
        machine = Machine(self.launch)
        self.machine = machine
        try:
            link = machine.start()
        except OSError as e:
            machine.stop()
            self.machine = None
            raise GuestError(f"Cannot start {self.qemu}: {e.strerror or e}.") from None
        announced = link.wait_ready(self.boot_timeout_s)
        if announced is None:
            why = link.closed or f"no answer within {self.boot_timeout_s:.0f} s"
            console = machine.console_tail(8).strip()
            machine.stop()
            self.machine = None
            detail = f"; the console's last lines:\n{console}" if console else ""
            raise GuestError(f"The {self.name} {self.noun} did not boot ({why}){detail}")
        machine_name = announced.data.decode(errors="replace")
        if machine_name != self.expected_machine:
            machine.stop()
            self.machine = None
            raise GuestError(
                f"The {self.name} {self.noun} says it is {machine_name}, "
                f"not {self.expected_machine}."
            )
        self.release = announced.text
        self.boots += 1

    def recover(self, say: Say) -> bool:
        if self.machine is not None:
            self.machine.stop()
            self.machine = None
        if self.launch is None:
            return False
        say(f"Booting a fresh {self.name} {self.noun} after the last one was lost...")
        try:
            self._boot(say)
        except RtbenchError as e:
            say(str(e))
            return False
        return True

    def close(self) -> None:
        if self.machine is not None:
            self.machine.stop()
            self.machine = None

    # ---- what the runner asks ---------------------------------------------------

    def transport(self) -> QemuTransport:
        return self._transport

    def source(self) -> LinkSource:
        if self.machine is None or self.machine.link is None:
            raise GuestError(f"The {self.name} {self.noun} is not running.")
        return LinkSource(self.machine.link)


def emulation_caveats(accel: str, icount: int | None) -> list[dict[str, str]]:
    """What an emulated machine means for the figures (codes `emulated`, `icount`)."""
    found: list[dict[str, str]] = []
    if accel == "tcg":
        found.append(
            {
                "code": "emulated",
                "severity": "warning",
                "message": "Timing is emulated and not representative of hardware. QEMU TCG "
                "translates every guest instruction, so the translator and the host's load "
                "set every time figure (" + EMULATED_MESSAGE + ")",
                "advice": "Read the behaviour verdicts; measure timing on the real board, "
                "or in a KVM guest on a host with hardware virtualisation",
            }
        )
    if icount is not None:
        found.append(
            {
                "code": "icount",
                "severity": "info",
                "message": f"Deterministic mode (-icount shift={icount}): the emulated clock "
                f"advances {2**icount} ns per executed instruction, so a figure of X ns "
                f"is X/{2**icount} instructions on the measured path, not hardware time",
                "advice": "Compare such figures only with others of the same mode and shift",
            }
        )
    return found


def deterministic_info(icount: int | None) -> dict[str, Any] | None:
    """What run.target_info records about deterministic mode (None when off)."""
    if icount is None:
        return None
    return {
        "icount_shift": icount,
        "ns_per_instruction": 2**icount,
        "qemu_option": icount_option(icount),
    }


def qemu_version(binary: str) -> str | None:
    """`QEMU emulator version 7.2.x` -> "7.2.x"; None when it cannot be read."""
    path = shutil.which(binary)
    if path is None:
        return None
    try:
        done = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    first = done.stdout.strip().splitlines()
    match = re.search(r"version\s+(\S+)", first[0]) if first else None
    return match.group(1) if match else None
