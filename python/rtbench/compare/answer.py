# SPDX-License-Identifier: Apache-2.0
"""The first screen of a comparison: one table with the systems as columns, then
one sentence per family where a measured, comparable difference names the better
system. Every format (terminal, Markdown, HTML) leads with it; details follow.

Rows: the clock that timed each system (its comparable group), behaviour (each
failed or unsupported verdict with its reason), services, the headline figure
of each family (the median and p99 of its first time metric; instructions too
for an -icount clock) and, for firmware images, code size and RAM.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rtbench.compare import capabilities, groups, wording
from rtbench.model.families import FAMILIES
from rtbench.model.target import TargetView
from rtbench.model.views import first_meta

if TYPE_CHECKING:
    from rtbench.compare.model import Comparison, MetricRow

Table = list[tuple[str, list[str]]]  # (row name, one cell per system)


def _os(comparison: Comparison, index: int) -> str:
    doc = comparison.systems[index].doc
    meta = first_meta(doc)
    if meta is not None:
        return f"{meta.get('os')} {meta.get('os_release')}"
    kernel = doc.host.get("kernel")
    if isinstance(kernel, Mapping):
        return " ".join(str(kernel[k]) for k in ("system", "release") if kernel.get(k)) or "-"
    return "-"


def _clock(comparison: Comparison, index: int) -> str:
    """The clock in a few words, with the letters of the systems it is shared with."""
    if not comparison.groups:
        return "-"
    group = groups.group_of(comparison.groups, index)
    letters = "".join(comparison.systems[i].letter for i in group.members)
    shared = f" [{letters}]" if len(group.members) > 1 else ""
    if group.kind == groups.WALL_CLOCK:
        chosen = TargetView.of(comparison.systems[index].doc).wall_clock_chosen
        return "TCG wall clock" + (" (icount=off)" if chosen else "")
    if group.kind == groups.INSTRUCTIONS:
        return f"icount {_shift(comparison, index)}{shared}"
    host = comparison.systems[index].doc.host.get("hostname")
    return f"{host or 'machine'}{shared}"


def _behaviour(comparison: Comparison, index: int) -> str:
    bad = []
    passes = 0
    for row in comparison.verdicts:
        cell = row.cells[index]
        if cell is None:
            continue
        if cell.outcome == "pass":
            passes += 1
        elif cell.outcome in ("fail", "unsupported"):
            word = "FAILS" if cell.outcome == "fail" else "unsupported"
            bad.append(f"{word} {row.label or row.scenario}: {cell.reason}")
    if not bad and not passes:
        return "-"
    # a label with several checks that fail or are unsupported for one reason is
    # said once, with how many
    counted = {line: bad.count(line) for line in bad}
    said = [line if n == 1 else f"{line} (x{n})" for line, n in counted.items()]
    return "; ".join([f"{passes} pass", *said])


def _services(comparison: Comparison, index: int) -> str:
    counts: dict[str, int] = {}
    for service in comparison.services:
        status = service.cells[index].status
        counts[status] = counts.get(status, 0) + 1
    order = (capabilities.NATIVE, capabilities.EMULATED, capabilities.NONE, capabilities.NOT_PORTED)
    names = {capabilities.NONE: "missing"}
    return ", ".join(f"{counts[s]} {names.get(s, s)}" for s in order if counts.get(s)) or "-"


def _headline(comparison: Comparison, family: str) -> MetricRow | None:
    """The family's time metric measured by most systems (the first of those)."""
    rows = [r for r in comparison.metrics if r.family == family and r.lower_is_better]
    if not rows:
        return None
    return max(rows, key=lambda r: sum(c is not None for c in r.cells))


def _shift(comparison: Comparison, index: int) -> int | None:
    if not comparison.groups:
        return None
    group = groups.group_of(comparison.groups, index)
    if group.kind != groups.INSTRUCTIONS:
        return None
    return TargetView.of(comparison.systems[index].doc).icount_shift


def _figure(comparison: Comparison, row: MetricRow, index: int) -> str:
    cell = row.cells[index]
    if cell is None:
        return "not measured"
    unit, div = wording.row_scale(row)
    p50 = wording.value(cell, "p50", row, div)
    high = wording.value(cell, "p99" if cell.p99 is not None else "max", row, div)
    return f"{p50} / {high} {unit}"


def _instructions(comparison: Comparison, row: MetricRow, index: int) -> str:
    cell = row.cells[index]
    shift = _shift(comparison, index)
    if cell is None or shift is None or row.unit != "ns" or cell.p50 is None:
        return "-"
    return f"{cell.p50 / 2**shift:,.0f}"


def _size(comparison: Comparison, index: int, what: str) -> str:
    size = TargetView.of(comparison.systems[index].doc).image_size
    if size is None:
        return "-"
    image = size["image"]
    if what == "code":
        return f"{int(image.get('text', 0)):,} B"
    return f"{int(image.get('data', 0)) + int(image.get('bss', 0)):,} B"


def table(comparison: Comparison) -> Table:
    """The answer table: (row name, a cell per system)."""
    n = range(len(comparison.systems))
    out: Table = [
        ("system", [_os(comparison, i) for i in n]),
        ("timed by", [_clock(comparison, i) for i in n]),
    ]
    if comparison.verdicts:
        out.append(("behaviour", [_behaviour(comparison, i) for i in n]))
    if comparison.services:
        out.append(("services", [_services(comparison, i) for i in n]))
    for family, _what, _prefixes in FAMILIES[1:]:
        row = _headline(comparison, family)
        if row is not None:
            name = row.label or f"{family}: {row.name}"
            tail = "p99" if any(c is not None and c.p99 is not None for c in row.cells) else "max"
            out.append((f"{name} median/{tail}", [_figure(comparison, row, i) for i in n]))
            counted = [_instructions(comparison, row, i) for i in n]
            if any(c != "-" for c in counted):
                out.append((f"{name} instructions", counted))
    if any(_size(comparison, i, "code") != "-" for i in n):
        out.append(("code size (text)", [_size(comparison, i, "code") for i in n]))
        out.append(("RAM (data + bss)", [_size(comparison, i, "ram") for i in n]))
    return out


def sentences(comparison: Comparison) -> list[str]:
    """One sentence per family with a measured, comparable difference naming the
    better system; behaviour when verdicts differ."""
    found = [f"{r.family}: {r.sentence}" for r in comparison.ratings if r.best]
    return found or ["No measured difference between systems timed by one clock names a winner."]
