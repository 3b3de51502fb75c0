# SPDX-License-Identifier: Apache-2.0
"""Load facts: how busy the measurement CPU is, which interrupts arrive there and which
processes take the most CPU time, sampled over a short window on the target."""

from __future__ import annotations

from rtbench.system import parse
from rtbench.system.model import BusyProcess, InterruptSource, Load
from rtbench.system.source import Sample, Source

# Sampling window for the load, interrupt and steal figures of the measurement CPU.
LOAD_WINDOW_S = 0.1
# Processes scanned for the "busiest" list; above this the scan is skipped (cost).
MAX_PROCESS_SCAN = 4096
# Linux reports process times in USER_HZ ticks, 100 per second on x86 and ARM; a
# source that can ask the target (getconf CLK_TCK) does.
USER_HZ = 100

PROC_STAT = "/proc/stat"
INTERRUPTS = "/proc/interrupts"
PROCESS_STAT = "/proc/[0-9]*/stat"
PROCESS_COMM = "/proc/[0-9]*/comm"


def prefetch() -> list[str]:
    """The files these probes read, for one batch (the sampled ones are read apart)."""
    return ["/proc/loadavg", PROCESS_COMM]


def _process_times(files: dict[str, str | None]) -> dict[int, parse.ProcessTimes]:
    times: dict[int, parse.ProcessTimes] = {}
    for path, text in files.items():
        pid = path.split("/")[2]
        if text is None or not path.endswith("/stat") or not pid.isdigit():
            continue
        found = parse.parse_process_stat(text)
        if found is not None:
            times[int(pid)] = found
    return times


def _busiest(sample: Sample, ticks_per_s: int) -> list[BusyProcess]:
    before, after = _process_times(sample.before), _process_times(sample.after)
    rows = []
    for pid, now in after.items():
        if pid in sample.own_pids or pid not in before:
            continue
        pct = 100.0 * (now.ticks - before[pid].ticks) / ticks_per_s / sample.window_s
        if pct >= 1.0:
            rows.append((pct, pid, now.comm, now.last_cpu))
    rows.sort(reverse=True)
    return [
        {"pid": pid, "comm": comm, "cpu_pct": round(pct, 1), "last_cpu": last_cpu}
        for pct, pid, comm, last_cpu in rows[:3]
    ]


def load(source: Source, cpu: int, window_s: float = LOAD_WINDOW_S) -> Load:
    loadavg, runnable, tasks = parse.parse_loadavg(source.read("/proc/loadavg"))
    processes = source.read_many([PROCESS_COMM])
    scan = processes is not None and 0 < len(processes) <= MAX_PROCESS_SCAN
    patterns = [PROC_STAT, INTERRUPTS] + ([PROCESS_STAT] if scan else [])
    sample = source.sample(patterns, window_s)

    busy_pct = steal_pct = None
    irq_rate = None
    irq_sources: list[InterruptSource] | None = None
    busiest: list[BusyProcess] | None = None
    if sample is not None and sample.window_s > 0:
        times0 = parse.parse_cpu_times(sample.before.get(PROC_STAT), cpu)
        times1 = parse.parse_cpu_times(sample.after.get(PROC_STAT), cpu)
        if times0 is not None and times1 is not None:
            delta = [b - a for a, b in zip(times0, times1, strict=False)]
            total = sum(delta)
            if total > 0 and len(delta) >= 8:
                user, nice, system, _idle, _iowait, irq, softirq, steal = delta[:8]
                busy_pct = round(100.0 * (user + nice + system + irq + softirq) / total, 1)
                steal_pct = round(100.0 * steal / total, 1)
        irqs0 = parse.parse_interrupts(sample.before.get(INTERRUPTS), cpu)
        irqs1 = parse.parse_interrupts(sample.after.get(INTERRUPTS), cpu)
        if irqs0 is not None and irqs1 is not None:
            deltas = {k: irqs1[k] - irqs0.get(k, 0) for k in irqs1}
            irq_rate = round(sum(deltas.values()) / sample.window_s)
            top = sorted(((v, k) for k, v in deltas.items() if v > 0), reverse=True)[:4]
            irq_sources = [{"name": k, "per_s": round(v / sample.window_s)} for v, k in top]
        if scan:
            busiest = _busiest(sample, sample.ticks_per_s or USER_HZ)

    return {
        "loadavg": loadavg,
        "runnable": runnable,
        "tasks": tasks,
        "window_s": round(sample.window_s, 3) if sample is not None else None,
        "cpu_busy_pct": busy_pct,
        "cpu_steal_pct": steal_pct,
        "cpu_interrupts_per_s": irq_rate,
        "cpu_interrupt_sources": irq_sources,
        "busiest": busiest,
    }
