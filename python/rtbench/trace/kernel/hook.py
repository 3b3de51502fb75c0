# SPDX-License-Identifier: Apache-2.0
"""`rtbench run --trace`: a kernel trace around every unit, and the explanation of the
worst samples of every metric (docs/tracing.md).

The hook creates rtbench's own tracefs instance when the run starts (mounting tracefs
if needed), clears and starts it before each unit, stops it after, copies the trace
into the results directory (`trace/NN-<unit>.txt.gz`), measures the clock map of that
unit (clockmap), and adds to every `result` record with kept samples a `trace` object:
the explanation of each worst and median sample, and the line for the maximum. The
instance is removed, and a tracefs rtbench mounted unmounted, on every exit path:
`stop()` runs from the runner's `finally` and from an atexit hook.

The same hook traces this machine, an SSH target and a QEMU Debian guest: it reaches
tracefs through a trace.kernel.access.TracefsAccess (files here, shell scripts run over the
connection or by the guest's agent there). Each unit's entry says how large its
trace file is and how long reading it took (`file_bytes`, `read_s`): over a guest's
serial line that is seconds.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rtbench.trace.kernel import clockmap, explain
from rtbench.trace.kernel.access import SyncRead, TracefsAccess
from rtbench.trace.kernel.events import MARKER, Event, read_events
from rtbench.trace.kernel.tracefs import BUFFER_KB, TraceError

if TYPE_CHECKING:
    from rtbench.model.catalog import CoreScenario
    from rtbench.model.results import ScenarioOutcome
    from rtbench.run.hooks import HookContext

TRACE_DIR = "trace"
INDEX_FILE = "index.json"
SYNC_MARKERS = 5
PREFERRED_CLOCKS = ("x86-tsc", "mono_raw", "mono")


class TraceHook:
    """The run hook of `--trace` (rtbench.run.hooks.RunHook)."""

    key = "trace"

    def __init__(
        self, access: TracefsAccess, buffer_kb: int | None = None, cpus: tuple[int, ...] = ()
    ) -> None:
        """`access`: how tracefs is reached; `cpus`: every CPU the run measures on (the
        measurement CPU is added)."""
        self._access = access
        self._buffer_kb = buffer_kb
        self._cpus = cpus
        self._ctx: HookContext | None = None
        self._opened = False
        self._sync: list[SyncRead] = []
        self._units: dict[str, dict[str, Any]] = {}
        self._index = 0
        self._stopped = False
        self._warned_map = False
        self._lttng = False

    # ---- RunHook ------------------------------------------------------------

    def start(self, ctx: HookContext) -> None:
        self._ctx = ctx
        access = self._access
        atexit.register(self.stop)
        access.open()
        self._opened = True
        clocks = access.clocks()
        clock = next((c for c in PREFERRED_CLOCKS if c in clocks), "local")
        self._cpus = tuple(sorted({ctx.cpu, *self._cpus}))
        access.configure(clock, self._buffer_kb or BUFFER_KB.get(ctx.profile, 16384), self._cpus)
        self._lttng = access.lttng_loaded()
        (ctx.out_dir / TRACE_DIR).mkdir(exist_ok=True)
        if access.missing_events:
            ctx.warn(
                "--trace: this kernel lacks "
                + ", ".join(access.missing_events)
                + "; explanations cannot name those."
            )
        where = "" if access.where == "local" else f" on {ctx.target.spec}"
        ctx.info(
            f"Tracing with tracefs instance {access.name}{where}, clock {clock}, "
            f"{len(access.events)} events "
            "(removed at the end)."
        )

    def before_unit(self, unit: CoreScenario) -> list[str]:
        if not self._opened:
            return []
        self._sync = []
        try:
            note = self._access.ensure()
            if note and self._ctx is not None:
                self._ctx.info(note)
            self._sync = self._access.start(SYNC_MARKERS)
        except OSError as e:
            self._warn(f"--trace: could not start tracing {unit.name}: {e.strerror or e}.")
        except TraceError as e:
            self._warn(f"{str(e).rstrip('.')}; {unit.name} is not traced.")
        return []

    def after_unit(self, unit: CoreScenario, outcome: ScenarioOutcome) -> ScenarioOutcome:
        ctx = self._ctx
        if not self._opened or ctx is None:
            return outcome
        self._index += 1
        try:
            self._sync += self._access.finish(SYNC_MARKERS)
            return self._collect(unit, outcome, ctx)
        except TraceError as e:
            self._warn(f"{str(e).rstrip('.')}; {unit.name} is not explained.")
            return outcome
        except (OSError, ValueError, KeyError, TypeError, EOFError) as e:
            # the run goes on without this unit's explanation
            self._warn(f"--trace: the trace of {unit.name} could not be read: {e}.")
            return outcome

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        left: str | None = None
        with contextlib.suppress(Exception):
            left = self._access.close()
        if left:
            with contextlib.suppress(Exception):
                self._warn(left)
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)

    def describe(self) -> dict[str, Any]:
        access, opened = self._access, self._opened
        return {
            "traced": opened,
            "source": "tracefs events",
            "instance": access.name if opened else None,
            "access": access.describe(),
            "clock": access.clock if opened else None,
            "events": list(access.events),
            "missing_events": list(access.missing_events),
            "filtered_to_cpus": list(self._cpus),
            "unfiltered_events": list(access.unfiltered),
            "buffer_kb_per_cpu": self._buffer_kb
            or (BUFFER_KB.get(self._ctx.profile, 16384) if self._ctx else None),
            "mounted_by_rtbench": access.mounted_here,
            "lttng_modules_loaded": self._lttng,
            "units": self._units,
            "note": "A traced run disturbs what it measures: compare traced figures with "
            "traced figures (docs/tracing.md).",
        }

    # ---- the work -----------------------------------------------------------

    def _warn(self, text: str) -> None:
        if self._ctx is not None:
            self._ctx.warn(text)

    def _collect(
        self, unit: CoreScenario, outcome: ScenarioOutcome, ctx: HookContext
    ) -> ScenarioOutcome:
        access = self._access
        stats = access.cpu_stats()
        lost = {
            cpu: s.get("overrun", 0) + s.get("dropped_events", 0) + s.get("commit_overrun", 0)
            for cpu, s in stats.items()
        }
        name = f"{self._index:02d}-{unit.name}.txt.gz"
        dest = ctx.out_dir / TRACE_DIR / name
        began = time.monotonic()
        access.read_trace(dest)
        read_s = time.monotonic() - began

        measured = set(self._cpus or (ctx.cpu,))
        markers: dict[int, int] = {}
        wakeups: dict[int, list[Event]] = {c: [] for c in measured}
        count = [0]

        def wanted(events: Iterator[Event]) -> Iterator[Event]:
            for e in events:
                count[0] += 1
                if e.name == MARKER and e.text.startswith(clockmap.SYNC_PREFIX):
                    with contextlib.suppress(ValueError, IndexError):
                        markers[int(e.text.split()[1])] = e.ts
                if e.name == "sched_waking":
                    target = int(e.args.get("target_cpu", -1))
                    if target in measured and target != e.cpu:
                        wakeups[target].append(e)
                # other CPUs' wake-ups onto a measured one place the switches the
                # trace may lack there (explain.timelines)
                if e.cpu in measured or e.name in explain.WAKE_EVENTS:
                    yield e

        lines = explain.timelines(wanted(read_events(dest)), cpus=measured)
        meta = outcome.meta
        hz = float(meta["counter"]["hz"]) if meta is not None else None
        nominal = hz / 1e9 if (access.clock == "x86-tsc" and hz) else 1.0
        points = [p for p in (s.point(markers, nominal) for s in self._sync) if p is not None]
        pairs = list((outcome_end(outcome) or {}).get("clock_pairs", []))
        cmap = clockmap.fit(access.clock, points, nominal, pairs, hz)
        info: dict[str, Any] = {
            "file": f"{TRACE_DIR}/{name}",
            "file_bytes": dest.stat().st_size,
            "read_s": round(read_s, 3),
            "events": count[0],
            "lost_events": sum(lost.values()),
            "lost_by_cpu": {str(k): v for k, v in lost.items()},
            "clock_map": cmap.describe() if cmap else None,
            "inferred_switches": {str(c): len(line.inferred) for c, line in lines.items()},
            "first_sync": min(markers.values()) if markers else None,
            "last_sync": max(markers.values()) if markers else None,
        }
        self._units[unit.name] = info
        self._write_index(ctx.out_dir)
        if info["lost_events"]:
            self._warn(
                f"--trace: {info['lost_events']} events of {unit.name} were lost (ring "
                "buffer full); samples before the kept trace are not explained."
            )
        if cmap is None:
            self._warn(f"--trace: no sync marker of {unit.name} in the trace; nothing explained.")
            return outcome
        if cmap.counter_method == "clock_pairs" and not self._warned_map:
            self._warned_map = True
            self._warn(
                f"--trace: the trace clock {access.clock} is not the core's counter "
                f"(off by {cmap.counter_residual_ns or 0:.0f} ns); samples are placed through "
                "the measured clock pairs instead."
            )
        records = []
        for record in outcome.records:
            if record.get("type") == "result" and "spans" in record:
                # a metric measured on one of several CPUs names it (params.cpu)
                cpu = (record.get("params") or {}).get("cpu", ctx.cpu)
                woken = wakeups.get(cpu, [])
                explained = dict(record)
                explained["trace"] = explain_metric(
                    record, lines.get(cpu), cmap, hz, woken, [e.ts for e in woken], info["file"]
                )
                explained["trace"]["cpu"] = cpu
                records.append(explained)
            else:
                records.append(record)
        return replace(outcome, records=tuple(records))

    def _write_index(self, out_dir: Path) -> None:
        path = out_dir / TRACE_DIR / INDEX_FILE
        tmp = path.with_name(f".{INDEX_FILE}.{os.getpid()}")
        tmp.write_text(json.dumps(self.describe(), indent=1), encoding="utf-8")
        tmp.replace(path)


def outcome_end(outcome: ScenarioOutcome) -> dict[str, Any] | None:
    for r in outcome.of_type("end"):
        if r.get("scope") == "scenario":
            return dict(r)
    return None


def value_ns(value: float, unit: str, hz: float | None) -> float | None:
    if unit == "ns":
        return value
    if unit == "ticks" and hz:
        return value * 1e9 / hz
    return None


def explain_metric(
    record: dict[str, Any],
    timeline: explain.CpuTimeline | None,
    cmap: clockmap.ClockMap,
    hz: float | None,
    wakeups: list[Event],
    wake_ts: list[int],
    trace_file: str,
) -> dict[str, Any]:
    """The `trace` object of one result record."""
    unit = str(record["unit"])
    samples: list[dict[str, Any]] = []
    spans = record["spans"]
    for kind in ("worst", "median"):
        for rank, kept in enumerate(spans.get(kind, [])):
            v = value_ns(float(kept["value"]), unit, hz)
            if v is None:
                continue
            clock = kept.get("clock", "none")
            if clock == "counter":
                start = cmap.from_counter(float(kept["start"]))
                end = cmap.from_counter(float(kept["stop"]))
            elif clock == "time_ns":
                start = cmap.from_mono(float(kept["start"]))
                end = cmap.from_mono(float(kept["stop"]))
            else:
                start = end = None
            w = explain.Window(kind, rank, int(kept["index"]), v, start or 0.0, end or 0.0)
            if start is None or end is None:
                samples.append(
                    {
                        "kind": kind,
                        "rank": rank,
                        "index": int(kept["index"]),
                        "value_ns": round(v, 1),
                        "covered": False,
                        "line": f"{explain._head(w)}: the scenario keeps only the duration, "
                        "not when it happened, so the trace cannot be searched",
                    }
                )
                continue
            explained = explain.explain_window(w, timeline, cmap, wakeups, wake_ts)
            if kind == "worst" and rank == 0 and explained.get("covered") and timeline:
                explained["timeline"] = explain.window_segments(timeline, w, cmap)
            samples.append(explained)
    worst = next((s for s in samples if s["kind"] == "worst"), None)
    return {
        "file": trace_file,
        "clock_map": cmap.describe(),
        "line": worst["line"] if worst else None,
        "samples": samples,
    }
