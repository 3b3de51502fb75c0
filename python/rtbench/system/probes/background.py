# SPDX-License-Identifier: Apache-2.0
"""Background work facts: memory management (THP, KSM, NUMA balancing), periodic kernel
knobs, an active kernel tracer, irqbalance."""

from __future__ import annotations

from rtbench.system import parse
from rtbench.system.model import Irqbalance, KernelKnobs, Memory, Tracing
from rtbench.system.source import Source

THP = "/sys/kernel/mm/transparent_hugepage"
TRACEFS = ("/sys/kernel/tracing", "/sys/kernel/debug/tracing")
PROCESS_COMM = "/proc/[0-9]*/comm"

MEMORY_FILES = {
    "ksm_run": "/sys/kernel/mm/ksm/run",
    "numa_balancing": "/proc/sys/kernel/numa_balancing",
    "swappiness": "/proc/sys/vm/swappiness",
}
KNOB_FILES = {
    "timer_migration": "/proc/sys/kernel/timer_migration",
    "nmi_watchdog": "/proc/sys/kernel/nmi_watchdog",
    "watchdog": "/proc/sys/kernel/watchdog",
    "vm_stat_interval_s": "/proc/sys/vm/stat_interval",
    "timer_slack_ns": "/proc/self/timerslack_ns",
}


def prefetch() -> list[str]:
    """The files these probes read, for one batch."""
    paths = [f"{THP}/enabled", f"{THP}/defrag", *MEMORY_FILES.values(), *KNOB_FILES.values()]
    paths += [f"{base}/{name}" for base in TRACEFS for name in ("current_tracer", "tracing_on")]
    return [*paths, PROCESS_COMM]


def memory(source: Source) -> Memory:
    def number(key: str) -> int | None:
        return parse.first_int(source.read(MEMORY_FILES[key]))

    return {
        "thp_enabled": parse.bracketed(source.read(f"{THP}/enabled")),
        "thp_defrag": parse.bracketed(source.read(f"{THP}/defrag")),
        "ksm_run": number("ksm_run"),
        "numa_balancing": number("numa_balancing"),
        "swappiness": number("swappiness"),
    }


def kernel_knobs(source: Source) -> KernelKnobs:
    def number(key: str) -> int | None:
        return parse.first_int(source.read(KNOB_FILES[key]))

    return {
        "timer_migration": number("timer_migration"),
        "nmi_watchdog": number("nmi_watchdog"),
        "watchdog": number("watchdog"),
        "vm_stat_interval_s": number("vm_stat_interval_s"),
        "timer_slack_ns": number("timer_slack_ns"),
    }


def tracing(source: Source) -> Tracing:
    for base in TRACEFS:
        tracer = source.read(f"{base}/current_tracer")
        if tracer is not None:
            return {
                "current_tracer": tracer,
                "tracing_on": parse.bool01(source.read(f"{base}/tracing_on")),
            }
    return {"current_tracer": None, "tracing_on": None}


def process_running(source: Source, name: str) -> bool | None:
    """Whether a process of that command name runs; None if processes cannot be listed."""
    names = source.read_many([PROCESS_COMM])
    if not names:
        return None
    return name in names.values()


def irqbalance(source: Source) -> Irqbalance:
    return {"running": process_running(source, "irqbalance")}
