# SPDX-License-Identifier: Apache-2.0
"""Which trace `rtbench run --trace` takes on a target: the one the target
offers (targets.base.Target.tracing): a kernel trace on Linux, here, over SSH or
in a QEMU Debian guest; the code path of the kept samples on an emulated RTOS
board. A target that offers none is refused before anything is booted.
"""

from __future__ import annotations

from rtbench.errors import UsageError
from rtbench.run.hooks import RunHook
from rtbench.targets.base import Target, Tracing


def _tracing(target: Target) -> Tracing:
    offered = target.tracing()
    if offered is None:
        raise UsageError(
            f"--trace works on this machine, on Linux machines over SSH and in QEMU Debian "
            f"guests (a kernel trace) and on emulated RTOS boards (qemu:freertos-..., the "
            f"code path), not on {target.spec} yet."
        )
    return offered


def prepare(target: Target) -> None:
    """Before `open`: refuse a target that cannot be traced, or ask it for what tracing needs."""
    _tracing(target).prepare()


def deadline_factor(target: Target) -> float:
    """What --trace multiplies the units' deadlines by on `target`."""
    return _tracing(target).deadline_factor


def hooks(target: Target, cpus: tuple[int, ...]) -> list[RunHook]:
    """The trace hook of an opened target (`cpus`: the CPUs the run measures on)."""
    return _tracing(target).hooks(cpus)
