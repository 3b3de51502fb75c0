# SPDX-License-Identifier: Apache-2.0
"""The scenario catalog: every id of the specification, and what this build runs.

`SPEC` lists every scenario id of the specification with its classic label
(where one exists), its kind (B behaviour, P performance, S stress) and a
one-line description. The core's own catalog (`rtbench-core list`) says which
of them the build implements and how they group into run units (one process
runs one unit, which may report several ids). Selection patterns are shell
globs matched against ids and, case-insensitively, against labels.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rtbench.model.options import OptionSpec

PROFILES = ("quick", "standard", "endurance")


@dataclass(frozen=True)
class SpecEntry:
    """One scenario id of the specification."""

    id: str
    family: str
    label: str | None
    kind: str  # "B", "P", "S" or "-"
    description: str
    equivalent: str | None = None  # the tool or suite whose test this mirrors

    @property
    def label_base(self) -> str | None:
        """The label without a variant suffix: `THR-P-NEW (2)` -> `THR-P-NEW`."""
        if self.label is None:
            return None
        return re.sub(r"\s*\(\d+\)$", "", self.label)


@dataclass(frozen=True)
class CatalogId:
    """An id a run unit reports, with the label the core gives it."""

    id: str
    label: str | None


@dataclass(frozen=True)
class CoreScenario:
    """A run unit of the core's catalog."""

    name: str
    ids: tuple[CatalogId, ...]
    summary: str
    estimate_ms: Mapping[str, int]
    deadline_ms: Mapping[str, int]
    needs: tuple[str, ...]
    supported: bool
    options: tuple[OptionSpec, ...] = ()

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> CoreScenario:
        """Build from a validated `catalog` record."""
        return cls(
            name=str(record["scenario"]),
            ids=tuple(CatalogId(str(i["id"]), i.get("label")) for i in record["ids"]),
            summary=str(record["summary"]),
            estimate_ms={p: int(record["estimate_ms"][p]) for p in PROFILES},
            deadline_ms={p: int(record["deadline_ms"][p]) for p in PROFILES},
            needs=tuple(str(n) for n in record["needs"]),
            supported=bool(record["supported"]),
            options=tuple(OptionSpec.from_json(o) for o in record.get("options", ())),
        )


FAMILIES: tuple[tuple[str, str], ...] = (
    ("CAL", "Calibration"),
    ("CLK", "The OS clock tick"),
    ("THR", "Threads and the scheduler"),
    ("SEM", "Counting semaphores"),
    ("MUT", "Mutexes with priority inheritance"),
    ("MQ", "Message queues"),
    ("EVT", "Event flags"),
    ("SCHED", "Scheduling"),
    ("IRQ", "Interrupts and timers"),
    ("MEM", "Memory"),
    ("TM", "Thread-Metric throughput"),
    ("RH", "Rhealstone"),
    ("IPC", "rt-tests equivalents"),
)


def _e(
    family: str,
    id_: str,
    label: str | None,
    kind: str,
    description: str,
    equivalent: str | None = None,
) -> SpecEntry:
    return SpecEntry(id_, family, label, kind, description, equivalent)


# fmt: off
SPEC: tuple[SpecEntry, ...] = (
    _e("CAL", "cal.timestamp", "CAL-P-TRC", "P",
       "Cost of one timestamp; its minimum is the overhead removed from every sample"),
    _e("CAL", "cal.cpu", "CAL-P-CPU", "P",
       "Processor speed and cache effect: cold versus warm code, uncached versus cached data"),
    _e("CLK", "clk.tick.config", "CLK-B-CFG", "B",
       "What the OS tick is: its period (or tickless) and the sleep granularity"),
    _e("CLK", "clk.tick.duration", "CLK-P-DUR", "P",
       "Time the OS spends in its tick, seen as slower iterations of a fixed busy loop"),
    _e("THR", "thr.create.behavior", "THR-B-NEW", "B",
       "Whether a new thread runs at the right moment for its priority relative to its creator"),
    _e("THR", "thr.rr.behavior", "THR-B-RR", "B",
       "Round-robin fairness and time-slice length among equal-priority busy threads"),
    _e("THR", "thr.switch.yield", "THR-P-SLS", "P",
       "Switch time between equal-priority threads that yield in a ring, for several ring sizes"),
    _e("THR", "thr.create.never_run", "THR-P-NEW (1)", "P",
       "Create and delete a lower-priority thread that never gets to run"),
    _e("THR", "thr.create.run_terminate", "THR-P-NEW (2)", "P",
       "Create a higher-priority thread that runs at once and ends itself"),
    _e("THR", "thr.create.run_block", "THR-P-NEW (3)", "P",
       "Create a higher-priority thread that lowers its priority; the creator deletes it"),
    _e("SEM", "sem.behavior.lock", "SEM-B-LCK", "B",
       "Semaphore counting rules and the immediate switch to a higher-priority waiter"),
    _e("SEM", "sem.behavior.release_order", "SEM-B-REL", "B",
       "Each signal releases the highest-priority waiter, whatever order they blocked in"),
    _e("SEM", "sem.create", "SEM-P-NEW", "P", "Time to create a semaphore"),
    _e("SEM", "sem.delete.used", "SEM-P-NEW", "P",
       "Time to delete a semaphore that was waited on and signalled"),
    _e("SEM", "sem.delete.unused", "SEM-P-NEW", "P",
       "Time to delete a semaphore that was never used"),
    _e("SEM", "sem.wait.available", "SEM-P-ARN", "P",
       "Wait on a semaphore whose count is above zero (no switch)"),
    _e("SEM", "sem.signal.no_waiter", "SEM-P-ARN", "P",
       "Signal a semaphore nobody waits on (no switch)"),
    _e("SEM", "sem.wait.block", "SEM-P-ARC", "P",
       "Wait that blocks, until the lower-priority creator runs again"),
    _e("SEM", "sem.signal.unblock", "SEM-P-ARC", "P",
       "Signal until the highest blocked waiter runs, against the number of waiters"),
    _e("MUT", "mut.behavior.pi", "MUT-B-ARC", "B",
       "Priority inheritance stops a medium thread from delaying the high one (inversion check)"),
    _e("MUT", "mut.lock.uncontended", "MUT-P-ARN", "P", "Lock a free mutex"),
    _e("MUT", "mut.unlock.uncontended", "MUT-P-ARN", "P", "Unlock a mutex nobody waits for"),
    _e("MUT", "mut.lock.block", "MUT-P-ARC", "P",
       "Lock request of a high thread until the boosted low owner runs"),
    _e("MUT", "mut.unlock.handoff", "MUT-P-ARC", "P",
       "Unlock by the boosted owner until the waiting high thread runs"),
    _e("MQ", "mq.send.no_waiter", None, "P", "Send to a queue nobody waits on", "RTOSBench"),
    _e("MQ", "mq.receive.available", None, "P",
       "Receive a message that is already queued", "RTOSBench"),
    _e("MQ", "mq.send.unblock", None, "P",
       "Send until the blocked higher-priority receiver runs", "RTOSBench"),
    _e("MQ", "mq.receive.block", None, "P",
       "Receive on an empty queue until the lower-priority sender runs", "RTOSBench"),
    _e("EVT", "evt.set.no_waiter", None, "P", "Set event flags nobody waits for", "RTOSBench"),
    _e("EVT", "evt.wait.available", None, "P",
       "Wait for event flags that are already set", "RTOSBench"),
    _e("EVT", "evt.set.unblock", None, "P",
       "Set flags until the blocked higher-priority waiter runs", "RTOSBench"),
    _e("EVT", "evt.wait.block", None, "P",
       "Wait for unset flags until the lower-priority setter runs", "RTOSBench"),
    _e("SCHED", "sched.coop.switch", None, "P",
       "Five equal-priority threads yielding in turn", "RTOSBench"),
    _e("SCHED", "sched.preempt.switch", None, "P",
       "A low thread makes a higher one ready; time until the higher one runs", "RTOSBench"),
    _e("SCHED", "sched.sem.workload", None, "P",
       "Semaphore wake-up while background threads keep yielding", "RTOSBench"),
    _e("SCHED", "sched.mut.workload", None, "P",
       "Mutex hand-off while background threads keep yielding", "RTOSBench"),
    _e("SCHED", "sched.mq.workload", None, "P",
       "Queue wake-up while background threads keep yielding", "RTOSBench"),
    _e("IRQ", "irq.latency", "IRQ-P-LAT", "P",
       "From the interruption of a running thread to the first instruction of the handler"),
    _e("IRQ", "irq.return", "IRQ-P-DLT", "P",
       "From the end of the handler back to the interrupted thread"),
    _e("IRQ", "irq.to_thread", "IRQ-P-TLT", "P",
       "From a wake-up in the handler until the woken top-priority thread runs"),
    _e("IRQ", "irq.sustained", "IRQ-S-SUS", "S",
       "Shortest interrupt period served without loss; table of generated, serviced and lost"),
    _e("IRQ", "timer.periodic.latency", None, "P",
       "Lateness of periodic absolute-deadline wake-ups; missed periods counted", "cyclictest"),
    _e("IRQ", "os.noise", None, "P",
       "Gaps stolen from a top-priority busy loop, and the time lost per second", "oslat"),
    _e("MEM", "mem.alloc", None, "P", "Allocate a memory block", "Thread-Metric"),
    _e("MEM", "mem.free", None, "P", "Free a memory block", "Thread-Metric"),
    _e("MEM", "mem.behavior.leak", "MEM-B-LEK", "B",
       "Memory and handles return to the same level while objects are created and removed"),
    _e("TM", "tm.basic", None, "P",
       "Baseline single-thread work per second, the reference for the other ratios",
       "Thread-Metric"),
    _e("TM", "tm.coop", None, "P",
       "Operations per second of five equal-priority threads relinquishing in turn",
       "Thread-Metric"),
    _e("TM", "tm.preempt", None, "P",
       "Operations per second of a resume and suspend chain over five priorities",
       "Thread-Metric"),
    _e("TM", "tm.irq", None, "P",
       "Operations per second of a handler posting a semaphore a thread takes",
       "Thread-Metric"),
    _e("TM", "tm.irq_preempt", None, "P",
       "Operations per second of a handler resuming a higher-priority thread",
       "Thread-Metric"),
    _e("TM", "tm.msg", None, "P", "16-byte message send and receive per second",
       "Thread-Metric"),
    _e("TM", "tm.sync", None, "P", "Semaphore get and put per second", "Thread-Metric"),
    _e("TM", "tm.mem", None, "P", "128-byte block allocate and free per second",
       "Thread-Metric"),
    _e("RH", "rh.task_switch", None, "P", "Switch between equal-priority threads",
       "Rhealstone"),
    _e("RH", "rh.preempt", None, "P", "Switch to a higher-priority thread made ready",
       "Rhealstone"),
    _e("RH", "rh.irq_latency", None, "P", "Interrupt latency", "Rhealstone"),
    _e("RH", "rh.sem_shuffle", None, "P",
       "From a semaphore release to its acquisition by the waiting thread", "Rhealstone"),
    _e("RH", "rh.deadlock_break", None, "P",
       "Until a high thread holds a resource a low one held, with inheritance", "Rhealstone"),
    _e("RH", "rh.msg_latency", None, "P", "Message passing between two threads",
       "Rhealstone"),
    _e("IPC", "ipc.signal.roundtrip", None, "P", "A signal bounced between two threads",
       "signaltest"),
    _e("IPC", "ipc.signal.wake", None, "P", "Wake-up of a thread waiting for a signal",
       "sigwaittest"),
    _e("IPC", "ipc.sysv_sem.wake", None, "P", "Wake-up through a System V semaphore",
       "svsematest"),
    _e("IPC", "ipc.mq.wake", None, "P", "Wake-up through a POSIX message queue", "pmqtest"),
    _e("IPC", "ipc.pi.stress", None, "S",
       "Groups of three priorities hammering a PI mutex; a stalled group is a failure",
       "pi_stress"),
)
# fmt: on

SPEC_BY_ID: dict[str, SpecEntry] = {e.id: e for e in SPEC}


@dataclass(frozen=True)
class ListedId:
    """One line of `rtbench list`: a spec entry (or an id only the core knows) and
    the run unit that implements it in this build (None when not implemented)."""

    entry: SpecEntry
    unit: str | None


def kind_of_label(label: str | None) -> str:
    """B, P or S from a classic label (`SEM-P-ARC` -> P), `-` without one."""
    if label:
        parts = label.split("-")
        if len(parts) >= 3 and parts[1][:1] in ("B", "P", "S"):
            return parts[1][:1]
    return "-"


def _family_of(id_: str) -> str:
    head = id_.split(".", 1)[0].upper()
    known = {f for f, _ in FAMILIES}
    if head in known:
        return head
    if head in ("TIMER", "OS"):
        return "IRQ"
    return head


def family_of(id_: str) -> str:
    """The family of a scenario id: the specification's, or guessed from its prefix."""
    entry = SPEC_BY_ID.get(id_)
    return entry.family if entry is not None else _family_of(id_)


def merged(core: Sequence[CoreScenario]) -> list[ListedId]:
    """Every id: the spec's, in spec order, then ids only the core reports."""
    unit_of: dict[str, str] = {}
    extra: list[SpecEntry] = []
    for scenario in core:
        for cid in scenario.ids:
            unit_of.setdefault(cid.id, scenario.name)
            if cid.id not in SPEC_BY_ID and all(e.id != cid.id for e in extra):
                extra.append(
                    SpecEntry(
                        cid.id,
                        _family_of(cid.id),
                        cid.label,
                        kind_of_label(cid.label),
                        scenario.summary,
                    )
                )
    listed = [ListedId(e, unit_of.get(e.id)) for e in SPEC]
    listed.extend(ListedId(e, unit_of.get(e.id)) for e in extra)
    return listed


def _matches(pattern: str, entry: SpecEntry, core_label: str | None) -> bool:
    if fnmatch.fnmatchcase(entry.id, pattern):
        return True
    names = [entry.label, entry.label_base, core_label, entry.equivalent]
    lowered = pattern.lower()
    return any(n is not None and fnmatch.fnmatchcase(n.lower(), lowered) for n in names)


@dataclass(frozen=True)
class Selection:
    """What a run executes: run units in core order, and selected ids the build lacks."""

    units: tuple[CoreScenario, ...]
    missing: tuple[SpecEntry, ...]


def select(core: Sequence[CoreScenario], patterns: Iterable[str]) -> tuple[Selection, list[str]]:
    """Run units whose ids match any pattern (all of them when there is no pattern),
    the matching ids not implemented by this build, and the patterns that match
    nothing at all (the caller reports those as errors)."""
    pattern_list = list(patterns)
    listed = merged(core)
    core_labels = {cid.id: cid.label for s in core for cid in s.ids}
    unmatched: list[str] = []
    chosen_ids: set[str] = set()
    if not pattern_list:
        chosen_ids = {item.entry.id for item in listed}
    for pattern in pattern_list:
        hits = {
            item.entry.id
            for item in listed
            if _matches(pattern, item.entry, core_labels.get(item.entry.id))
        }
        hits |= {s.name for s in core if fnmatch.fnmatchcase(s.name, pattern)}
        if not hits:
            unmatched.append(pattern)
        chosen_ids |= hits
    units = tuple(s for s in core if s.name in chosen_ids or any(c.id in chosen_ids for c in s.ids))
    missing = tuple(
        item.entry for item in listed if item.unit is None and item.entry.id in chosen_ids
    )
    return Selection(units, missing), unmatched


def render(listed: Sequence[ListedId]) -> str:
    """The text of `rtbench list`: one section per family, one line per id."""
    id_width = max(len(item.entry.id) for item in listed)
    label_width = max(len(_label_text(item.entry)) for item in listed)
    titles = dict(FAMILIES)
    lines: list[str] = []
    implemented = sum(1 for item in listed if item.unit is not None)
    family_order = [f for f, _ in FAMILIES]
    families = family_order + sorted({i.entry.family for i in listed} - set(family_order))
    for family in families:
        members = [item for item in listed if item.entry.family == family]
        if not members:
            continue
        if lines:
            lines.append("")
        lines.append(f"{family}: {titles.get(family, family)}")
        for item in members:
            e = item.entry
            built = "yes" if item.unit is not None else "-"
            lines.append(
                f"  {e.id:<{id_width}}  {_label_text(e):<{label_width}}  {e.kind}  "
                f"{built:<3}  {e.description}"
            )
    lines.append("")
    lines.append(
        f"{len(listed)} scenario ids, {implemented} implemented in this build "
        "(column 4). Kind: B behaviour, P performance, S stress."
    )
    return "\n".join(lines) + "\n"


def _label_text(entry: SpecEntry) -> str:
    if entry.label:
        return entry.label
    if entry.equivalent:
        return f"({entry.equivalent})"
    return ""


def to_json(listed: Sequence[ListedId]) -> list[dict[str, Any]]:
    """The data of `rtbench list --json`."""
    return [
        {
            "id": item.entry.id,
            "family": item.entry.family,
            "label": item.entry.label,
            "equivalent": item.entry.equivalent,
            "kind": item.entry.kind,
            "description": item.entry.description,
            "implemented": item.unit is not None,
            "run_unit": item.unit,
        }
        for item in listed
    ]
