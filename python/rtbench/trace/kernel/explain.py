# SPDX-License-Identifier: Apache-2.0
"""What the kernel did during a sample: the explanation of the worst samples.

From the trace of one unit, the measurement CPU's time is cut into segments, each
spent in one context: a hard interrupt (named: `irq 24 virtio0-input`, `local timer
interrupt`, `reschedule IPI`, ...), a softirq (`softirq NET_RX`), another task, the
idle task, or rtbench-core itself. Nesting is followed (an interrupt inside a softirq
inside a task counts for the interrupt only). A sample's window [start, stop], put on
the trace clock (clockmap), then sums to: the time of each interrupt, softirq and other
task inside it (the causes), rtbench's own time, idle time, and what is left.
`unexplained` is the part of the window that no interrupt, softirq or other task
accounts for: rtbench-core running its own path, the CPU idle while the sample
waited (a late timer), or time the trace cannot see (a hypervisor that stopped the
virtual CPU). Wake-ups of tasks on the measurement CPU sent from other CPUs during
the window are listed too, with the waker.

A window that starts before the trace's first event on the CPU (the ring buffer
overwrote it) is not explained: the result says the trace does not cover it.

Some kernels record no event of a CPU's idle task outside interrupts (seen on a
KVM guest whose second CPU never shows `sched_switch` from `swapper/1`): a task
that ends an idle stretch then appears with its first own event, and the time
before it would count as idle. When that task was woken onto the CPU during the
idle stretch, the missing switch is put where the events place it: at the later of
the wake-up and the CPU's last event in the idle task (the end of the interrupt
that woke it). The timeline counts these inferred switches; without such a
wake-up nothing is inferred.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rtbench.model.units import format_duration
from rtbench.trace.kernel.clockmap import ClockMap
from rtbench.trace.kernel.events import Event

CORE_COMMS = frozenset({"rtbench-core"})
# Causes shorter than this share of the window are not named in the line.
LINE_MIN_SHARE = 0.02
LINE_MAX_CAUSES = 4
STACK_MAX = 16

_VECTORS = {
    "local_timer": "local timer interrupt",
    "reschedule": "reschedule IPI",
    "call_function": "function-call IPI",
    "call_function_single": "function-call IPI",
    "irq_work": "irq_work interrupt",
    "x86_platform_ipi": "platform IPI",
    "thermal_apic": "thermal interrupt",
    "error_apic": "APIC error interrupt",
    "spurious_apic": "spurious interrupt",
}


@dataclass(frozen=True, slots=True)
class Segment:
    start: int
    end: int
    kind: str  # "irq", "softirq", "task", "idle", "self"
    label: str


@dataclass
class CpuTimeline:
    """One CPU's time, cut into contexts, from its first to its last event."""

    cpu: int
    segments: list[Segment] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    first_ts: int | None = None
    last_ts: int | None = None
    # [start, end] of each stretch given to a task whose switch from idle the
    # trace lacks (put at its wake-up), in time order
    inferred: list[tuple[int, int]] = field(default_factory=list)

    def inferred_within(self, start: float, end: float) -> int:
        """How many inferred stretches overlap [start, end]."""
        i = bisect.bisect_left(self.inferred, (int(start),))
        n = 1 if i > 0 and self.inferred[i - 1][1] > start else 0
        while i < len(self.inferred) and self.inferred[i][0] < end:
            n += 1
            i += 1
        return n

    def overlap(self, start: float, end: float) -> dict[tuple[str, str], tuple[float, int]]:
        """(kind, label) -> (time inside [start, end], separate occurrences)."""
        out: dict[tuple[str, str], tuple[float, int]] = {}
        i = max(0, bisect.bisect_right(self.starts, start) - 1)
        previous: tuple[str, str] | None = None
        while i < len(self.segments):
            seg = self.segments[i]
            if seg.start >= end:
                break
            lo, hi = max(seg.start, start), min(seg.end, end)
            key = (seg.kind, seg.label)
            if hi > lo:
                t, n = out.get(key, (0.0, 0))
                out[key] = (t + (hi - lo), n + (0 if key == previous else 1))
                previous = key
            i += 1
        return out


TIMELINE_MARGIN = 0.15  # of the window, on either side
TIMELINE_MOST = 300  # segments kept for the report's drawing


def window_segments(timeline: CpuTimeline, w: Window, cmap: ClockMap) -> list[list[float | str]]:
    """The measurement CPU's segments around a window, for drawing: [start, end, kind,
    label] in ns from the window's start (idle left out); the longest TIMELINE_MOST."""
    margin = (w.end - w.start) * TIMELINE_MARGIN
    lo, hi = w.start - margin, w.end + margin
    i = max(0, bisect.bisect_right(timeline.starts, lo) - 1)
    out: list[list[float | str]] = []
    while i < len(timeline.segments) and timeline.segments[i].start < hi:
        seg = timeline.segments[i]
        i += 1
        a, b = max(seg.start, lo), min(seg.end, hi)
        if b > a and seg.kind != "idle":
            last = out[-1] if out else None
            if (
                last
                and last[2] == seg.kind
                and last[3] == seg.label
                and last[1] == round(cmap.to_ns(a - w.start), 1)
            ):
                last[1] = round(cmap.to_ns(b - w.start), 1)
                continue
            out.append(
                [round(cmap.to_ns(a - w.start), 1), round(cmap.to_ns(b - w.start), 1),
                 seg.kind, seg.label]
            )  # fmt: skip
    if len(out) > TIMELINE_MOST:
        keep = sorted(out, key=lambda s: float(s[0]) - float(s[1]))[:TIMELINE_MOST]
        out = sorted(keep, key=lambda s: float(s[0]))
    return out


def _task(comm: str, pid: int, core_comms: frozenset[str]) -> tuple[str, str]:
    if pid == 0:
        return "idle", "idle"
    if comm in core_comms:
        return "self", comm
    return "task", f"task {comm}:{pid}"


def _vector(name: str) -> str:
    base = name.rsplit("_", 1)[0]
    return _VECTORS.get(base, f"{base} interrupt")


WAKE_EVENTS = frozenset({"sched_wakeup", "sched_wakeup_new", "sched_waking"})


def timelines(
    events: Iterable[Event],
    core_comms: frozenset[str] = CORE_COMMS,
    cpus: Collection[int] | None = None,
) -> dict[int, CpuTimeline]:
    """Every CPU's timeline from a trace's events (in time order); with `cpus`, those
    CPUs' only, the other CPUs' events serving for their wake-ups of tasks onto them."""
    lines: dict[int, CpuTimeline] = {}
    stacks: dict[int, list[tuple[str, str]]] = {}
    current: dict[int, tuple[str, str]] = {}
    last: dict[int, int] = {}
    idle_since: dict[int, int] = {}  # when each CPU last switched to its idle task
    woken: dict[int, dict[int, int]] = {}  # CPU -> pid -> when it was woken onto it
    for e in events:
        name = e.name
        if name in WAKE_EVENTS and "target_cpu" in e.args:
            woken.setdefault(int(e.args["target_cpu"]), {})[int(e.args["pid"])] = e.ts
        if cpus is not None and e.cpu not in cpus:
            continue
        line = lines.get(e.cpu)
        if line is None:
            line = lines[e.cpu] = CpuTimeline(e.cpu, first_ts=e.ts)
            stacks[e.cpu] = []
        stack = stacks[e.cpu]
        task = current.get(e.cpu) or _task(e.comm, e.pid, core_comms)
        before = last.get(e.cpu)
        if before is not None and e.ts > before:
            if task[0] == "idle" and not stack and e.pid != 0:
                # the idle task's switch to this event's task is not in the trace
                before = _inferred_switch(line, e, before, woken, idle_since, core_comms)
            if e.ts > before:
                kind, label = stack[-1] if stack else task
                line.segments.append(Segment(before, e.ts, kind, label))
        last[e.cpu] = e.ts
        line.last_ts = e.ts
        if name == "irq_handler_entry":
            _push(stack, ("irq", f"irq {e.args.get('irq', '?')} {e.args.get('irq_name', '')}"))
        elif name == "softirq_entry":
            _push(stack, ("softirq", f"softirq {e.args.get('action', e.args.get('vec', '?'))}"))
        elif name in ("irq_handler_exit", "softirq_exit"):
            _pop(stack, "irq" if name == "irq_handler_exit" else "softirq")
        elif "vector" in e.args and name.endswith("_entry"):
            _push(stack, ("irq", _vector(name)))
        elif "vector" in e.args and name.endswith("_exit"):
            _pop(stack, "irq")
        if name == "sched_switch" and "next_pid" in e.args:
            stack.clear()
            nxt = int(e.args["next_pid"])
            current[e.cpu] = _task(e.args["next_comm"], nxt, core_comms)
            if nxt == 0:
                idle_since[e.cpu] = e.ts
        else:
            current[e.cpu] = _task(e.comm, e.pid, core_comms)
    for line in lines.values():
        line.starts = [s.start for s in line.segments]
    return lines


def _inferred_switch(
    line: CpuTimeline,
    e: Event,
    before: int,
    woken: dict[int, dict[int, int]],
    idle_since: dict[int, int],
    core_comms: frozenset[str],
) -> int:
    """Where the idle stretch that `e`'s task ended turns into that task: the later of
    its wake-up onto this CPU and the CPU's last idle event (`before`), when it was
    woken during the idle stretch; else `e`'s time (nothing inferred). The stretch up
    to there is idle; the rest is the task's."""
    at = woken.get(e.cpu, {}).pop(e.pid, None)
    since = idle_since.get(e.cpu)
    if at is None or (since is not None and at < since) or at >= e.ts:
        return before
    switch = max(at, before)
    if switch > before:
        line.segments.append(Segment(before, switch, "idle", "idle"))
    kind, label = _task(e.comm, e.pid, core_comms)
    line.segments.append(Segment(switch, e.ts, kind, label))
    line.inferred.append((switch, e.ts))
    return e.ts


def _push(stack: list[tuple[str, str]], ctx: tuple[str, str]) -> None:
    if len(stack) < STACK_MAX:
        stack.append(ctx)


def _pop(stack: list[tuple[str, str]], kind: str) -> None:
    # an exit whose entry was lost (before the trace began) pops nothing
    for i in range(len(stack) - 1, -1, -1):
        if stack[i][0] == kind:
            del stack[i:]
            return


@dataclass(frozen=True)
class Window:
    """A kept sample, on the trace clock."""

    kind: str  # "worst" or "median"
    rank: int  # 0 = the maximum
    index: int
    value_ns: float
    start: float  # trace units
    end: float


def explain_window(
    w: Window,
    timeline: CpuTimeline | None,
    cmap: ClockMap,
    wakeups: Sequence[Event] = (),
    wake_ts: Sequence[int] = (),
) -> dict[str, Any]:
    """The explanation of one sample (a JSON-able dict with its one-line summary)."""
    window_ns = cmap.to_ns(w.end - w.start)
    out: dict[str, Any] = {
        "kind": w.kind,
        "rank": w.rank,
        "index": w.index,
        "value_ns": round(w.value_ns, 1),
        "window_ns": round(window_ns, 1),
        "start": round(w.start),
        "end": round(w.end),
    }
    if timeline is None or timeline.first_ts is None or w.start < timeline.first_ts:
        out["covered"] = False
        out["line"] = (
            f"{_head(w)}: not covered by the kernel trace "
            "(the ring buffer no longer holds that time)"
        )
        return out
    if timeline.last_ts is not None and w.end > timeline.last_ts:
        out["covered"] = False
        out["line"] = f"{_head(w)}: not covered by the kernel trace (it ends before the sample)"
        return out
    parts = timeline.overlap(w.start, w.end)
    causes: list[dict[str, Any]] = []
    self_ns = idle_ns = 0.0
    for (kind, label), (units, count) in parts.items():
        ns = cmap.to_ns(units)
        if kind == "self":
            self_ns += ns
        elif kind == "idle":
            idle_ns += ns
        else:
            causes.append({"kind": kind, "label": label, "ns": round(ns, 1), "count": count})
    causes.sort(key=lambda c: (-float(c["ns"]), str(c["label"])))
    explained = sum(float(c["ns"]) for c in causes)
    # the window is the sample plus the timestamp cost; the share is of the window
    unexplained = max(0.0, window_ns - explained)
    share = unexplained / window_ns if window_ns > 0 else 0.0
    woken = [
        {
            "from_cpu": e.cpu,
            "by": f"{e.comm}:{e.pid}",
            "task": f"{e.args.get('comm', '?')}:{e.args.get('pid', '?')}",
            "at_ns": round(cmap.to_ns(e.ts - w.start), 1),
        }
        for e in wakeups[bisect.bisect_left(wake_ts, w.start) : bisect.bisect_right(wake_ts, w.end)]
    ]
    inferred = timeline.inferred_within(w.start, w.end)
    if inferred:
        # how many switches from idle inside the window the trace lacked (placed
        # at the woken task's wake-up)
        out["inferred_switches"] = inferred
    out.update(
        covered=True,
        causes=causes,
        self_ns=round(self_ns, 1),
        idle_ns=round(idle_ns, 1),
        explained_ns=round(explained, 1),
        unexplained_share=round(share, 4),
        wakeups_from_other_cpus=woken[:16],
    )
    out["line"] = summary_line(w, causes, window_ns, share, idle_ns)
    return out


def _head(w: Window) -> str:
    if w.kind == "median":
        return f"median-like sample {format_duration(w.value_ns)}"
    which = "max" if w.rank == 0 else f"worst #{w.rank + 1}"
    return f"{which} {format_duration(w.value_ns)}"


def summary_line(
    w: Window,
    causes: Sequence[dict[str, Any]],
    window_ns: float,
    share: float,
    idle_ns: float = 0.0,
) -> str:
    """'max 412 µs: irq 24 virtio0-input 380 µs, softirq NET_RX 21 µs (2 % unexplained)';
    idle time inside the window is named when it is a visible share of it."""
    floor = LINE_MIN_SHARE * window_ns
    named = [c for c in causes if window_ns > 0 and float(c["ns"]) >= floor][:LINE_MAX_CAUSES]
    pct = f"{round(100 * share)} % unexplained"
    if window_ns > 0 and idle_ns >= floor:
        pct += f", CPU idle {format_duration(idle_ns)}"
    if not named:
        return f"{_head(w)}: not explained by the kernel trace ({pct})"
    text = ", ".join(f"{c['label']} {format_duration(float(c['ns']))}" for c in named)
    if share >= 0.5:
        return f"{_head(w)}: {text}; mostly not explained by the kernel trace ({pct})"
    return f"{_head(w)}: {text} ({pct})"
