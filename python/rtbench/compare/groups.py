# SPDX-License-Identifier: Apache-2.0
"""Comparable groups: which systems' timings can be set against each other.

A time measures the system and the machine it ran on. Two systems' times are
tested and rated against each other only when the machine is the same, in one
of two ways:

- *instructions*: an emulated machine in deterministic mode (QEMU -icount)
  whose clock follows executed instructions: the same emulated core (`cpu` of
  the target, else its board, or architecture for a guest) with the same shift
  counts the same unit, on any host, whatever runs on it: a Linux guest and an
  RTOS image on QEMU's Cortex-A7 are timed in instructions of one core;
- *machine*: real hardware (the host, a board on a serial line, a guest under
  KVM): the same CPU model on the same host name.

An emulated machine without -icount (TCG) keeps the host's wall clock: its
times are those of the emulator translating code on a busy host, not of the
system, so it is never rated, not even against another such run (its figures
move with the host's load, and two runs of it differ by more than two systems).
Real machines that differ are separate groups too: their difference is as much
the hardware as the system. Behaviour verdicts and services do not depend on
the clock and are compared across every system.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rtbench.model.target import TargetView

if TYPE_CHECKING:
    from rtbench.compare.model import System
    from rtbench.model.results import ResultsDocument

INSTRUCTIONS = "instructions"
MACHINE = "machine"
WALL_CLOCK = "emulated wall clock"


@dataclass(frozen=True)
class Group:
    """Systems whose times are comparable; `members` are indexes into the systems."""

    kind: str  # INSTRUCTIONS, MACHINE or WALL_CLOCK
    label: str  # what the members share, for the reports
    members: tuple[int, ...]

    @property
    def rated(self) -> bool:
        """Whether differences of time are tested and rated within the group."""
        return self.kind != WALL_CLOCK and len(self.members) > 1


def _run_key(doc: ResultsDocument) -> tuple[str, tuple[str, ...], str]:
    """(kind, identity, label) of the machine whose clock timed one run."""
    target = TargetView.of(doc)
    shift = target.icount_shift
    if target.emulated:
        # the core the clock counted instructions of; an image's board, or a
        # guest's architecture, where no core was recorded
        machine = target.core or target.board or target.arch or "unknown machine"
        if shift is not None:
            label = f"emulated {machine}, -icount shift={shift} ({2**shift} ns an instruction)"
            return INSTRUCTIONS, (machine, str(shift)), label
        return WALL_CLOCK, (doc.run.id,), f"emulated {machine} without -icount"
    host = doc.host
    cpus = host.get("cpus")
    model = cpus.get("model") if isinstance(cpus, Mapping) else None
    name = host.get("hostname") or target.board
    shown = ", ".join(str(p) for p in (name, model) if p) or "machine not recorded"
    return MACHINE, (str(model), str(name)), shown


def of(systems: Sequence[System]) -> tuple[Group, ...]:
    """The systems' groups, in the order of their first member. A system whose runs
    were timed on different machines is a group of its own, not rated."""
    keys: list[tuple[str, tuple[str, ...], str]] = []
    for index, system in enumerate(systems):
        found = {_run_key(run.doc) for run in system.runs()}
        if len(found) == 1:
            keys.append(found.pop())
        else:
            keys.append((WALL_CLOCK, (f"mixed {index}",), "runs on different machines"))
    out: list[Group] = []
    seen: dict[tuple[str, tuple[str, ...]], int] = {}
    for index, (kind, ident, label) in enumerate(keys):
        key = (kind, ident)
        if kind == WALL_CLOCK or key not in seen:
            seen[key] = len(out)
            out.append(Group(kind, label, (index,)))
        else:
            g = out[seen[key]]
            out[seen[key]] = Group(g.kind, g.label, (*g.members, index))
    return tuple(out)


def group_of(groups: Sequence[Group], index: int) -> Group:
    return next(g for g in groups if index in g.members)


def comparable(groups: Sequence[Group], one: int, other: int) -> bool:
    """Whether two systems' times are tested against each other."""
    group = group_of(groups, one)
    return group.rated and other in group.members


def sentence(groups: Sequence[Group], letters: Sequence[str]) -> str:
    """The one line that says why some times are shown side by side, untested;
    "" when every system is in one rated group."""
    if len(groups) == 1 and groups[0].rated:
        return ""
    parts = []
    for g in groups:
        who = ", ".join(letters[i] for i in g.members)
        if g.kind == WALL_CLOCK:
            why = "times of the emulator on this host, not of the system: never rated"
        elif len(g.members) == 1:
            why = "alone on its machine"
        else:
            why = "compared with each other"
        parts.append(f"{who} ({g.label}: {why})")
    return (
        "Times are tested and rated only between systems timed by the same clock: "
        + "; ".join(parts)
        + ". Across these groups the figures are shown side by side, neither tested nor rated."
    )
