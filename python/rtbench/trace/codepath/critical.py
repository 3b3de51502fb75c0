# SPDX-License-Identifier: Apache-2.0
"""Critical sections on a traced code path: which entries mask interrupts.

A kernel protects its lists by masking interrupts, either by calling a
function of its port (FreeRTOS's `vPortEnterCritical`/`vPortExitCritical`,
uC/CPU's `CPU_SR_Save`/`CPU_SR_Restore`) or with the mask written inline in a
function's own code (FreeRTOS's `...FromISR` functions and tick handler, a
PendSV handler written in assembly that masks while it picks the next task).
Each RTOS entry of rtbench names its functions of both kinds
(`CriticalSections`, targets.firmware.rtoses); a traced path records how often
the sample entered each of them, so the number of critical sections a service
takes is read from its path, not guessed: one per entry of an `enter` or an
`inline` function. The names are matched exactly against the image's symbols.

A kernel that masks inline everywhere (ThreadX's TX_DISABLE, in every
service, sometimes several times in one function) names instead the prefixes
of its functions (`masking`): each `cpsid i` (or `cpsid if`) a path executed
in one of them is one critical section begun, read from the executed blocks'
instructions (trace.codepath.exec_log). The instruction is counted, not the functions:
a service that masks twice counts two.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CriticalSections:
    """The functions by which an RTOS's kernel masks interrupts: `enter` and `exit`
    are called to begin and end a critical section; each entry of an `inline`
    function begins (and ends) one critical section in the function's own code."""

    enter: tuple[str, ...]
    exit: tuple[str, ...]
    inline: tuple[str, ...] = ()
    masking: tuple[str, ...] = ()  # name prefixes: their executed `cpsid i` are counted

    def describe(self) -> dict[str, Any]:
        """The table as results record it (`run.conditions.path_trace.critical_sections`)."""
        out: dict[str, Any] = {
            "enter": list(self.enter),
            "exit": list(self.exit),
            "inline": list(self.inline),
        }
        if self.masking:
            out["masking"] = list(self.masking)
        return out

    def count(
        self, calls: Mapping[str, int], masks: Mapping[str, int] | None = None
    ) -> dict[str, Any]:
        """What a sample's entries per function (`calls`) and `cpsid i` executed per
        function (`masks`) say: `entries` (critical sections begun), `calls`
        (entries of the enter and exit functions, the function calls that manage
        them) and, per function, its entries (enter, exit, inline) or its masks
        (masking), in the table's order then the path's."""
        by_function = {
            name: int(calls[name])
            for name in (*self.enter, *self.exit, *self.inline)
            if calls.get(name)
        }
        masked = {
            name: int(n)
            for name, n in (masks or {}).items()
            if n and name not in by_function and name.startswith(self.masking or ("\0",))
        }
        return {
            "entries": sum(by_function.get(n, 0) for n in (*self.enter, *self.inline))
            + sum(masked.values()),
            "calls": sum(by_function.get(n, 0) for n in (*self.enter, *self.exit)),
            "by_function": {**by_function, **masked},
        }


def text(found: Mapping[str, Any] | None) -> str:
    """`7 critical sections (vPortEnterCritical x7, vPortExitCritical x7)`, from a
    sample's recorded `critical_sections`; "" when the path does not record them."""
    if not isinstance(found, Mapping) or not isinstance(found.get("entries"), int):
        return ""
    n = int(found["entries"])
    by_function = found.get("by_function") or {}
    listed = ", ".join(f"{name} x{k}" for name, k in by_function.items())
    head = f"{n} critical section{'' if n == 1 else 's'}"
    return f"{head} ({listed})" if listed else head
