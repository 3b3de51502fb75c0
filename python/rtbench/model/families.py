# SPDX-License-Identifier: Apache-2.0
"""The families the scenarios fall in, for reading results by family: the
comparison rates each family (compare.rating), the report sums them up."""

from __future__ import annotations

# (family, what it holds, scenario id prefixes)
FAMILIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("behaviour", "every behaviour verdict (B tests)", ()),
    (
        "thread switch",
        "thread switch and creation: THR-P-SLS, THR-P-NEW, sched.coop/preempt, rh.task_switch",
        ("thr.", "sched.coop.", "sched.preempt.", "rh.task_switch", "rh.preempt"),
    ),
    (
        "synchronisation",
        "semaphores, mutexes, queues, event flags and their wake-ups: SEM-P-*, MUT-P-*, mq, evt",
        ("sem.", "mut.", "mq.", "evt.", "sched.", "rh.sem", "rh.deadlock", "rh.msg", "ipc."),
    ),
    (
        "interrupts",
        "IRQ-P-LAT, IRQ-P-DLT, IRQ-P-TLT, periodic timer wake-ups, OS noise",
        ("irq.", "timer.", "os.noise", "rh.irq"),
    ),
    ("clock", "the OS clock tick: CLK-P-DUR and sleep granularity", ("clk.",)),
    ("memory", "memory allocation and release", ("mem.",)),
)


def family_of(scenario: str) -> str | None:
    for name, _what, prefixes in FAMILIES:
        if any(scenario.startswith(p) for p in prefixes):
            return name
    return None
