# SPDX-License-Identifier: Apache-2.0
"""tracefs in a QEMU Debian guest: trace.kernel.shell_tracefs's scripts run by the guest's
agent (`#rtb exec`, busybox sh) on its serial line.

The line carries one request at a time, so no guard session can stay open next to
the steps. What removes the instance instead: rtbench's end (normal, an error,
Ctrl-C: the hook's `stop()` runs from the runner's `finally` and at exit), and
the guest itself: a guest that is lost (a killed core it does not give back, a
hung kernel) is ended by killing QEMU, and a guest's root is an initramfs in its
RAM, so nothing of it persists. After a fresh guest is booted for the next unit,
the instance is set up again there (`generation` is the boot count).

The trace comes back gzip-compressed by busybox in the guest and percent-encoded
on the line, a few hundred KB/s under TCG: the guests' ring buffer is sized for
that (GUEST_BUFFER_KB), and every read's size and time are kept in the results.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import IO

from rtbench.errors import RtbenchError
from rtbench.targets.qemu.process import QemuBase
from rtbench.trace.kernel.shell_tracefs import ShellTracefs
from rtbench.transport import TargetLost

_LOST = 255  # the status of a step whose guest was lost

# Per CPU. One second of timer.periodic.latency (200 us periods) in a TCG amd64
# guest gave 37,568 events, 4.5 MB of text, 339 KB compressed, read back in 3.0 s
# (about 110 KB/s); 4 MiB keeps a few such seconds and reads back in about ten.
# The default buffers (16 MiB and more) would take minutes whenever they fill.
GUEST_BUFFER_KB = 4096


class GuestShell:
    """Runs the scripts through the agent of `target`'s current guest
    (trace.kernel.shell_tracefs.ShellRunner)."""

    where = "guest"
    removal = (
        "no guard (the serial line serves one request at a time): rtbench removes the "
        "instance at its end, on errors and on Ctrl-C; a lost guest is powered off by "
        "killing QEMU, and its root is an initramfs, so nothing of it persists"
    )

    def __init__(self, target: QemuBase) -> None:
        self._target = target

    def _argv(self, script: str, args: Sequence[str]) -> list[str]:
        return ["sh", "-c", script, "rtbench", *args]

    def run(self, script: str, args: Sequence[str], timeout_s: float) -> tuple[int, bytes, bytes]:
        out = io.BytesIO()
        status, err = self.run_to(script, args, out, timeout_s)
        return status, out.getvalue(), err

    def run_to(
        self, script: str, args: Sequence[str], out: IO[bytes], timeout_s: float
    ) -> tuple[int, bytes]:
        try:
            status, said = self._target.source().stream(self._argv(script, args), out, timeout_s)
        except (TargetLost, RtbenchError) as e:
            return _LOST, str(e).encode()
        return status, said.encode()

    def guard(self, script: str, args: Sequence[str]) -> None:
        return None

    def alive(self) -> bool:
        machine = self._target.machine
        return machine is not None and machine.link is not None and machine.link.closed is None

    def why_down(self) -> str:
        machine = self._target.machine
        if machine is None or machine.link is None:
            return f"the {self._target.noun} is not running"
        return machine.link.closed or f"the {self._target.noun}'s serial line is closed"

    def generation(self) -> int:
        return self._target.boots

    def left_behind(self, path: str) -> str | None:
        return None  # the guest is powered off at the end, and nothing in it persists


def guest_tracefs(target: QemuBase) -> ShellTracefs:
    """The tracefs steps of an opened Debian guest."""
    return ShellTracefs(GuestShell(target), target.spec)
