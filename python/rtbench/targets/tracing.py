# SPDX-License-Identifier: Apache-2.0
"""What `rtbench run --trace` takes on each kind of target (targets.base.Tracing).

A Linux target gives a kernel trace through tracefs (rtbench.trace.kernel.hook), reached
on this machine's files, over SSH, or through a guest's agent; an emulated RTOS
board gives the code path of the kept samples from QEMU's execution log
(rtbench.trace.codepath.hook). Each target returns one of these from `tracing()`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from rtbench.errors import UsageError
from rtbench.trace.codepath.hook import PathTraceHook
from rtbench.trace.kernel.access import TracefsAccess
from rtbench.trace.kernel.hook import TraceHook

if TYPE_CHECKING:
    from rtbench.run.hooks import RunHook
    from rtbench.targets.qemu.exec_log import ExecLog


class KernelTracing:
    """A kernel trace through tracefs: `access()` reaches it once the target is
    open, after `check()` (which refuses in one sentence, e.g. without root)."""

    deadline_factor = 1.0

    def __init__(
        self,
        access: Callable[[], TracefsAccess],
        check: Callable[[], None] = lambda: None,
        buffer_kb: int | None = None,
    ) -> None:
        self._access = access
        self._check = check
        self._buffer_kb = buffer_kb

    def prepare(self) -> None:
        return None

    def hooks(self, cpus: tuple[int, ...]) -> list[RunHook]:
        self._check()
        return [TraceHook(self._access(), buffer_kb=self._buffer_kb, cpus=cpus)]


def need_local_root() -> None:
    """This machine's tracefs needs root."""
    if os.geteuid() != 0:
        raise UsageError("--trace needs root: it sets up a tracefs instance of its own.")


# How much longer a unit may take while QEMU logs every block it executes: on
# the FreeRTOS board, units of the quick profile took 6 to 68 times as long
# (median 28; the short ones most, since reading the log takes seconds), so a
# hung unit is still ended, later (docs/tracing.md).
EXEC_LOG_SLOWDOWN = 30.0


class CodePathTracing:
    """The code path of the kept samples, from an emulator's execution log:
    `ask()` before boot asks for a machine whose log can be switched, `log()`
    after boot gives that switch."""

    deadline_factor = EXEC_LOG_SLOWDOWN

    def __init__(self, ask: Callable[[], None], log: Callable[[], ExecLog]) -> None:
        self._ask = ask
        self._log = log

    def prepare(self) -> None:
        self._ask()

    def hooks(self, cpus: tuple[int, ...]) -> list[RunHook]:
        return [PathTraceHook(self._log)]
