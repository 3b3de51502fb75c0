# SPDX-License-Identifier: Apache-2.0
"""Reading a tracefs text trace into events.

A line of the `trace` file looks like

    <idle>-0       [001] d.h2. 27170859398930: irq_handler_entry: irq=24 name=virtio0-input

(the task that was current, its pid, the CPU, flags, the timestamp, the event and its
fields). Timestamps of counter clocks (`x86-tsc`, `counter`) are integers; those of
nanosecond clocks are printed as seconds with six decimals and are read here as
integer nanoseconds. Either way `Event.ts` is an integer in the trace clock's unit.
Only the fields rtbench uses are parsed; an event it does not know keeps its text.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

_LINE = re.compile(
    r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+(?:\(\s*[-\d]+\)\s+)?\[(?P<cpu>\d+)\]\s+"
    r"(?:(?P<flags>\S{4,6})\s+)?(?P<ts>\d+(?:\.\d+)?):\s+(?P<name>\w+):\s?(?P<rest>.*)$"
)

_FIELDS: dict[str, re.Pattern[str]] = {
    "sched_switch": re.compile(
        r"prev_comm=(?P<prev_comm>.*) prev_pid=(?P<prev_pid>-?\d+) prev_prio=(?P<prev_prio>-?\d+) "
        r"prev_state=(?P<prev_state>\S+) ==> next_comm=(?P<next_comm>.*) "
        r"next_pid=(?P<next_pid>-?\d+) next_prio=(?P<next_prio>-?\d+)"
    ),
    "sched_waking": re.compile(
        r"comm=(?P<comm>.*) pid=(?P<pid>\d+) prio=(?P<prio>-?\d+) target_cpu=(?P<target_cpu>\d+)"
    ),
    "sched_migrate_task": re.compile(
        r"comm=(?P<comm>.*) pid=(?P<pid>\d+) prio=(?P<prio>-?\d+) "
        r"orig_cpu=(?P<orig_cpu>\d+) dest_cpu=(?P<dest_cpu>\d+)"
    ),
    "irq_handler_entry": re.compile(r"irq=(?P<irq>\d+) name=(?P<irq_name>.*)"),
    "irq_handler_exit": re.compile(r"irq=(?P<irq>\d+) ret=(?P<ret>\w+)"),
    "softirq_entry": re.compile(r"vec=(?P<vec>\d+) \[action=(?P<action>\w+)\]"),
    "hrtimer_expire_entry": re.compile(r".*function=(?P<function>\S+)"),
    "workqueue_execute_start": re.compile(r".*function (?P<function>\S+)"),
}
_FIELDS["sched_wakeup"] = _FIELDS["sched_waking"]
_FIELDS["sched_wakeup_new"] = _FIELDS["sched_waking"]
_FIELDS["softirq_exit"] = _FIELDS["softirq_entry"]
_VECTOR = re.compile(r"vector=(?P<vector>\d+)")
_ALT_WORK = re.compile(r".*function=(?P<function>\S+)")

MARKER = "tracing_mark_write"


@dataclass(slots=True)
class Event:
    """One trace event: when, where, in which task, what."""

    ts: int
    cpu: int
    comm: str
    pid: int
    name: str
    args: dict[str, str] = field(default_factory=dict)
    text: str = ""


def parse_ts(text: str) -> int:
    """An integer timestamp: counter clocks as printed, 's.uuuuuu' as nanoseconds."""
    if "." not in text:
        return int(text)
    sec, frac = text.split(".", 1)
    return int(sec) * 1_000_000_000 + int((frac + "000000000")[:9])


def parse_line(line: str) -> Event | None:
    """One line of a text trace, or None for a comment or a line it cannot read."""
    if not line or line.startswith("#"):
        return None
    m = _LINE.match(line)
    if m is None:
        return None
    name = m["name"]
    rest = m["rest"]
    args: dict[str, str] = {}
    pattern = _FIELDS.get(name)
    if pattern is not None:
        fm = pattern.match(rest)
        if fm is None and name == "workqueue_execute_start":
            fm = _ALT_WORK.match(rest)
        if fm is not None:
            args = {k: v for k, v in fm.groupdict().items() if v is not None}
    elif name.endswith(("_entry", "_exit")):
        vm = _VECTOR.match(rest)
        if vm is not None:
            args = {"vector": vm["vector"]}
    return Event(
        ts=parse_ts(m["ts"]),
        cpu=int(m["cpu"]),
        comm=m["comm"].strip(),
        pid=int(m["pid"]),
        name=name,
        args=args,
        text=rest if name == MARKER or not args else "",
    )


def read_events(path: Path) -> Iterator[Event]:
    """The events of a text trace file (gzip-compressed when it ends in .gz)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        for line in f:
            event = parse_line(line.rstrip("\n"))
            if event is not None:
                yield event
