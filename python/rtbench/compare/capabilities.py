# SPDX-License-Identifier: Apache-2.0
"""Which services each compared operating system has: natively, emulated by its
port, not used by the port, or not at all.

Everything comes from what the results carry, nothing from a table of RTOSes:

- the core's `meta` record lists the port's capabilities (`caps`: mutex_inherit,
  policy_rr, mq, evt, evt_emulated, ...), so a service is there or not;
- a firmware image's facts (its `/rtbench/<port>.json`, stored in results.json
  `host.<port>`) say how (docs/porting.md): `notes` (how the RTOS provides a
  service), `emulated` (what the port builds from other services, and how),
  `not_ported` (what the RTOS has and the port does not use) and `unsupported`
  (why a service is missing), each keyed by the capability's name, with
  `memory` for the allocator (and the facts' `heap.scheme`) and `ipc` for the
  POSIX channels.

The table is shown when the compared systems run different operating systems.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rtbench.compare.sidebyside import os_of, os_release
from rtbench.model.views import first_meta

if TYPE_CHECKING:
    from rtbench.compare.model import System

NATIVE, EMULATED, NOT_PORTED, NONE, UNKNOWN = "native", "emulated", "not ported", "none", "-"

# (key, what the row says, the core capabilities that provide it: any of them).
# `memory` has no capability: a port always allocates; its facts say how.
SERVICES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("mutex_inherit", "priority inheritance", ("mutex_inherit",)),
    ("mutex_ceiling", "priority ceiling", ("mutex_ceiling",)),
    ("policy_rr", "round-robin among equal priorities", ("policy_rr",)),
    ("suspend_other", "suspend another thread", ("suspend_other",)),
    ("thread_delete_live", "delete a blocked thread", ("thread_delete_live",)),
    ("evt", "event flags", ("evt",)),
    ("mq", "message queues (messages copied)", ("mq",)),
    ("memory", "memory allocation", ()),
    ("ipc", "POSIX IPC channels", ("ipc_signal", "ipc_sigwait", "ipc_sysv_sem", "ipc_posix_mq")),
    ("cache_flush", "cache flush", ("cache_flush",)),
)


@dataclass(frozen=True)
class Cell:
    status: str  # NATIVE, EMULATED, NOT_PORTED, NONE or UNKNOWN
    text: str  # how, or why not (the port's words), "" when it says nothing

    def full(self) -> str:
        return f"{self.status}: {self.text}" if self.text else self.status


@dataclass(frozen=True)
class Service:
    key: str
    label: str
    cells: tuple[Cell, ...]  # one per system


def facts_of(system: System) -> Mapping[str, Any]:
    """The image's own facts: results.json `host.<port>` (empty for other systems)."""
    port = (first_meta(system.doc) or {}).get("port")
    found = system.doc.host.get(str(port)) if port else None
    return found if isinstance(found, Mapping) else {}


def _said(facts: Mapping[str, Any], part: str, key: str) -> str | None:
    found = facts.get(part)
    if isinstance(found, Mapping) and isinstance(found.get(key), str):
        return str(found[key])
    return None


def cell(system: System, key: str, caps_needed: tuple[str, ...]) -> Cell:
    """One system's cell of a service (see the module's docstring): the capabilities
    say whether it is there, the facts how or why not."""
    facts = facts_of(system)
    note = _said(facts, "notes", key) or ""
    emulated = _said(facts, "emulated", key)
    caps = (first_meta(system.doc) or {}).get("caps")
    if key == "memory" or not isinstance(caps, list):
        # no capability says it (the allocator; an imported result): the facts alone
        for part, status in ((EMULATED, EMULATED), ("not_ported", NOT_PORTED),
                             ("unsupported", NONE)):  # fmt: skip
            said = _said(facts, part, key)
            if said is not None:
                return Cell(status, said)
        heap = facts.get("heap")
        scheme = heap.get("scheme") if isinstance(heap, Mapping) else None
        if key == "memory" and (note or scheme):
            return Cell(NATIVE, note or str(scheme))
        return Cell(UNKNOWN, "")
    if not any(c in caps for c in caps_needed):
        not_ported = _said(facts, "not_ported", key)
        if not_ported is not None:
            return Cell(NOT_PORTED, not_ported)
        return Cell(NONE, _said(facts, "unsupported", key) or "")
    if emulated is not None:
        return Cell(EMULATED, emulated)
    if key == "evt" and "evt_emulated" in caps:
        return Cell(EMULATED, note or "built from a mutex and a condition variable")
    return Cell(NATIVE, note)


def table(systems: Sequence[System]) -> tuple[Service, ...]:
    """The services of every system, when they run more than one operating system."""
    if len({os_of(s) for s in systems if os_of(s) is not None}) < 2:
        return ()
    return tuple(
        Service(key, label, tuple(cell(s, key, caps) for s in systems))
        for key, label, caps in SERVICES
    )


def headers(systems: Sequence[System]) -> list[str]:
    return ["service", *(f"{s.letter} {os_release(s)}" for s in systems)]


def source_note() -> str:
    return (
        "As each image reports them: the port's capabilities (the core's meta record) and "
        "its facts file (notes, emulated, not_ported, unsupported); 'not ported': the OS has "
        "it and rtbench's port does not use it."
    )
