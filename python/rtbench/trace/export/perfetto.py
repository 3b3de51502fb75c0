# SPDX-License-Identifier: Apache-2.0
"""The Chrome trace-event JSON export, which Perfetto's UI (ui.perfetto.dev) opens.

One process per CPU with one track of what ran on it (tasks, hard interrupts,
softirqs, as back-to-back slices; idle left empty) and wake-ups as instant events;
one `rtbench` process with a track of the scenarios (each unit, from its first to its
last sync marker) and a track of the kept samples (worst and median), each slice
carrying the sample's value and its explanation. Times are microseconds from the first
traced unit's first event, so every unit lies on one timeline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rtbench.trace.export.stored import TracedRun, write_json
from rtbench.trace.kernel.explain import timelines

RTBENCH_PID = 100_000
SCENARIO_TID = 100_001
SAMPLES_TID = 100_002


def _cpu_pid(cpu: int) -> int:
    return cpu + 1


def build(run: TracedRun) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    origin: int | None = None
    cpus: set[int] = set()
    for unit in run.units:
        events = list(run.events(unit))
        if not events:
            continue
        if origin is None:
            origin = events[0].ts
        per_us = unit.units_per_ns * 1000.0

        def us(ts: float, per_us: float = per_us, origin: int = origin) -> float:
            return round((ts - origin) / per_us, 3)

        for cpu, line in timelines(events).items():
            cpus.add(cpu)
            for seg in line.segments:
                if seg.kind == "idle":
                    continue
                out.append(
                    {"name": seg.label, "cat": seg.kind, "ph": "X", "ts": us(seg.start),
                     "dur": round((seg.end - seg.start) / per_us, 3), "pid": _cpu_pid(cpu),
                     "tid": _cpu_pid(cpu)}
                )  # fmt: skip
        for e in events:
            if e.name == "sched_waking":
                out.append(
                    {"name": f"wake {e.args.get('comm', '?')}:{e.args.get('pid', '?')}",
                     "cat": "wakeup", "ph": "i", "s": "t", "ts": us(e.ts),
                     "pid": _cpu_pid(e.cpu), "tid": _cpu_pid(e.cpu),
                     "args": {"target_cpu": e.args.get("target_cpu"), "by": f"{e.comm}:{e.pid}"}}
                )  # fmt: skip
        start = unit.first_sync if unit.first_sync is not None else events[0].ts
        end = unit.last_sync if unit.last_sync is not None else events[-1].ts
        out.append(
            {"name": unit.name, "cat": "rtbench_scenario", "ph": "X", "ts": us(start),
             "dur": round((end - start) / per_us, 3), "pid": RTBENCH_PID, "tid": SCENARIO_TID}
        )  # fmt: skip
        for s in unit.samples:
            if not s.get("covered"):
                continue
            which = "max" if s["kind"] == "worst" and s["rank"] == 0 else s["kind"]
            out.append(
                {"name": f"{s['scenario']} {s['metric']} {which}", "cat": "rtbench_sample",
                 "ph": "X", "ts": us(float(s["start"])),
                 "dur": round((float(s["end"]) - float(s["start"])) / per_us, 3),
                 "pid": RTBENCH_PID, "tid": SAMPLES_TID,
                 "args": {"value_ns": s["value_ns"], "index": s["index"], "rank": s["rank"],
                          "explanation": s["line"]}}
            )  # fmt: skip
    meta: list[dict[str, Any]] = [
        {"name": "process_name", "ph": "M", "pid": RTBENCH_PID, "args": {"name": "rtbench"}},
        {"name": "thread_name", "ph": "M", "pid": RTBENCH_PID, "tid": SCENARIO_TID,
         "args": {"name": "scenarios"}},
        {"name": "thread_name", "ph": "M", "pid": RTBENCH_PID, "tid": SAMPLES_TID,
         "args": {"name": "kept samples"}},
    ]  # fmt: skip
    for cpu in sorted(cpus):
        label = f"CPU {cpu}" + (" (measurement)" if cpu == run.cpu else "")
        meta.append(
            {"name": "process_name", "ph": "M", "pid": _cpu_pid(cpu), "args": {"name": label}}
        )
        meta.append(
            {"name": "thread_name", "ph": "M", "pid": _cpu_pid(cpu), "tid": _cpu_pid(cpu),
             "args": {"name": "running"}}
        )  # fmt: skip
    return {
        "traceEvents": meta + out,
        "displayTimeUnit": "ns",
        "otherData": {"tool": "rtbench", "run": run.doc.run.id, "trace_clock": run.clock},
    }


def export(run: TracedRun, dest: Path) -> Path:
    write_json(dest, build(run))
    return dest
