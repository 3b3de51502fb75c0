# SPDX-License-Identifier: Apache-2.0
"""Which trace `rtbench run --trace` takes on a target.

On Linux, on this machine, on a machine reached over SSH or in a QEMU Debian
guest, a kernel trace (trace.hook, through tracefs's files here, or shell scripts
run over the connection or by the guest's agent there: trace.access,
trace.shell_tracefs); on an emulated RTOS board, the code path of the kept
samples (trace.path_hook, QEMU's execution log). Other targets cannot be traced
yet, which is said before anything is booted.
"""

from __future__ import annotations

import os

from rtbench.errors import UsageError
from rtbench.hooks import RunHook
from rtbench.targets.base import ExecLogged, Target
from rtbench.targets.qemu_base import QemuBase
from rtbench.targets.ssh import SshTarget
from rtbench.trace.access import LocalTracefs
from rtbench.trace.guest_tracefs import GUEST_BUFFER_KB, guest_tracefs
from rtbench.trace.hook import TraceHook
from rtbench.trace.path_hook import PathTraceHook
from rtbench.trace.ssh_tracefs import SshTracefs


def prepare(target: Target) -> None:
    """Before `open`: refuse a target that cannot be traced, or ask it for what tracing needs."""
    if isinstance(target, ExecLogged):
        target.use_exec_log()
    elif target.kind not in ("local", "ssh", "qemu"):
        raise UsageError(
            f"--trace works on this machine, on Linux machines over SSH and in QEMU Debian "
            f"guests (a kernel trace) and on emulated RTOS boards (qemu:freertos-..., the "
            f"code path), not on {target.spec} yet."
        )


# How much longer a unit may take while QEMU logs every block it executes: on
# the FreeRTOS board, units of the quick profile took 6 to 68 times as long
# (median 28; the short ones most, since reading the log takes seconds), so a
# hung unit is still ended, later (docs/tracing.md).
EXEC_LOG_SLOWDOWN = 30.0


def deadline_factor(target: Target) -> float:
    """What --trace multiplies the units' deadlines by on `target`."""
    return EXEC_LOG_SLOWDOWN if isinstance(target, ExecLogged) else 1.0


def hooks(target: Target, cpus: tuple[int, ...]) -> list[RunHook]:
    """The trace hook of an opened target (`cpus`: the CPUs the run measures on)."""
    if isinstance(target, ExecLogged):
        return [PathTraceHook()]
    if isinstance(target, SshTarget):
        uid = target.link.must("id -u", "read the user id")
        if uid.strip() != "0":
            raise UsageError(
                f"--trace needs root on {target.spec}: it sets up a tracefs instance "
                "there (connect as root@...)."
            )
        return [TraceHook(SshTracefs(target.link, target.spec), cpus=cpus)]
    if isinstance(target, QemuBase):
        # a Debian guest: its agent runs as root, and tracefs is mounted at boot
        return [TraceHook(guest_tracefs(target), buffer_kb=GUEST_BUFFER_KB, cpus=cpus)]
    if os.geteuid() != 0:
        raise UsageError("--trace needs root: it sets up a tracefs instance of its own.")
    return [TraceHook(LocalTracefs(), cpus=cpus)]
