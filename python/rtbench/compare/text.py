# SPDX-License-Identifier: Apache-2.0
"""The terminal form of a comparison: fits 100 columns, colours only on a terminal."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from rtbench import reference
from rtbench.compare import answer, capabilities, pathdiff, sidebyside, wording
from rtbench.compare.model import Comparison, MetricRow

WIDTH = 100
_CODES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}
_OUTCOME_COLORS = {
    "worse": "red",
    "better": "green",
    "mixed": "yellow",
    "untested": "yellow",
    "higher": "cyan",
    "lower": "cyan",
    "differs": "cyan",
}
_VERDICT_COLORS = {
    "PASS": "green",
    "FAIL": "red",
    "INCONCLUSIVE": "yellow",
    "UNSUPPORTED": "yellow",
}


class _Style:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, *styles: str) -> str:
        if not self.color or not styles:
            return text
        return f"\x1b[{';'.join(_CODES[s] for s in styles)}m{text}\x1b[0m"


def _align(rows: Sequence[Sequence[str]], numeric: Sequence[bool], indent: str) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [
            c.rjust(widths[i]) if numeric[i] else c.ljust(widths[i]) for i, c in enumerate(row)
        ]
        out.append((indent + "  ".join(cells)).rstrip())
    return out


def _wrap(text: str, indent: str, width: int = WIDTH) -> list[str]:
    return textwrap.wrap(
        text, width, initial_indent=indent, subsequent_indent=indent + "  ", break_on_hyphens=False
    )


def _metric_block(
    comparison: Comparison, row: MetricRow, s: _Style, with_reference: bool
) -> list[str]:
    unit_name, div = wording.row_scale(row)
    head = f"{row.label or '-':<10} {row.name}"
    shown_unit = unit_name if unit_name != "count" else row.unit
    lines = [s(f"{head}  ({shown_unit})", "bold")]
    table: list[list[str]] = [["system", *wording.STAT_HEADERS, ""]]
    details: list[str] = []
    for index, system in enumerate(comparison.systems):
        cell = row.cells[index]
        diff = row.differences[index]
        word = wording.base_word(comparison) if index == 0 else "-"
        if diff is not None:
            word = wording.outcome_word(diff)
            told = diff.outcome not in ("same", "identical") or diff.note
            if told or "spread" in (diff.location, diff.tail):
                details.append(
                    f"{system.letter}: " + wording.difference_text(diff, system.letter, row)
                )
        elif index > 0 and cell is None:
            word = "not measured"
        elif index > 0 and not comparison.timed_with_base(index):
            word = wording.NOT_COMPARED
        table.append([system.short(), *wording.stat_cells(row, index, div, comparison), word])
    aligned = _align(table, [False, True, True, True, True, True, True, True, True, False], "  ")
    lines.append(s(aligned[0], "dim"))
    for index, line in enumerate(aligned[1:]):
        diff = row.differences[index]
        color = _OUTCOME_COLORS.get(diff.outcome, "") if diff is not None else ""
        lines.append(s(line, color) if color else line)
    details += [note for note in row.param_notes if note]
    for index, system in enumerate(comparison.systems):
        details += wording.path_lines(row, index, system.letter, pathdiff.TERMINAL_CHANGES)
    for text in details:
        lines.extend(_wrap(text, "    "))
    sides = [side for side in row.sides if side is not None]
    if sides:
        lines.append("    " + sidebyside.title(sides))
        for side in sides:
            lines.extend(_wrap(side.line(), "      "))
    published = wording.reference_rows(row, div) if with_reference else []
    if published:
        ref_table = [["published (not this machine)", "min", "avg", "max", ""]]
        ref_table += [list(r) for r in published]
        aligned = _align(ref_table, [False, True, True, True, False], "    ")
        lines.append(s(aligned[0], "dim"))
        lines.extend(aligned[1:])
    return lines


def _services(comparison: Comparison) -> list[str]:
    """The capability table: a word per system, then what each port says of the
    services it does not have natively."""
    table = [
        [
            "service",
            *(f"{sy.letter} {sidebyside.os_of(sy) or '?'}" for sy in comparison.systems),
        ]
    ]
    table += [[sv.label, *(c.status for c in sv.cells)] for sv in comparison.services]
    out = _align(table, [False] * len(table[0]), "  ")
    for service in comparison.services:
        for system, cell in zip(comparison.systems, service.cells, strict=True):
            if cell.text and cell.status != capabilities.NATIVE:
                out.extend(_wrap(f"{system.letter} {service.label}: {cell.full()}", "  "))
    out.extend(_wrap(capabilities.source_note(), "  "))
    return out


def _answer(comparison: Comparison, s: _Style) -> list[str]:
    """The answer table (systems as columns; a cell too long for its column is
    cut and given whole below) and the families' sentences."""
    found = answer.table(comparison)
    systems = comparison.systems
    name_width = max(len(name) for name, _cells in found)
    width = max(14, (WIDTH - 2 - name_width - 2 * len(systems)) // len(systems))
    rows = [["", *(sy.letter for sy in systems)]]
    cut: list[str] = []
    for name, cells in found:
        shown = []
        for system, cell in zip(systems, cells, strict=True):
            if len(cell) > width:
                cut.append(f"{system.letter} {name}: {cell}")
            shown.append(cell if len(cell) <= width else cell[: width - 1] + "…")
        rows.append([name, *shown])
    aligned = _align(rows, [False] * len(rows[0]), "  ")
    out = [s(aligned[0], "dim"), *aligned[1:]]
    for line in cut:
        out.extend(_wrap(line, "  "))
    for line in answer.sentences(comparison) or [
        "no measured, comparable difference names a better system"
    ]:
        out.extend(_wrap(line, "  "))
    return out


def render(comparison: Comparison, *, color: bool = False, with_reference: bool = False) -> str:
    s = _Style(color)
    systems = comparison.systems
    out: list[str] = [s(f"rtbench compare: {wording.heading(comparison)}", "bold")]
    if not wording.alone(comparison):
        out += _answer(comparison, s)
        out += ["", s("Systems", "bold")]
    for system in systems:
        out.extend(_wrap(f"{system.letter}  {system.describe()}", "  "))
    if comparison.compared:
        out += ["", s("What is compared", "bold")]
        for line in comparison.compared:
            out.extend(_wrap(line, "  "))
    for note in comparison.notes:
        out.extend(_wrap(note, "  "))
    if comparison.warnings:
        out += ["", s("Configuration differences (read these before the figures)", "bold")]
        for w in comparison.warnings:
            out.extend(_wrap("! " + w, "  "))
    if comparison.services:
        out += ["", s("Services of each system", "bold")]
        out.extend(_services(comparison))
    if comparison.metrics:
        title = (
            "Results, with the published figures of other systems (not this machine)"
            if wording.alone(comparison)
            else "Results (× = ratio to A; the rules are at the end)"
        )
        out += ["", s(title, "bold")]
        for row in comparison.metrics:
            out.append("")
            out.extend(_metric_block(comparison, row, s, with_reference))
    if comparison.verdicts:
        out += ["", s("Behaviour verdicts", "bold")]
        header = ["label", "check", *(sy.short(12) for sy in systems)]
        rows: list[list[str]] = [header]
        for v in comparison.verdicts:
            rows.append(
                [
                    v.label or "-",
                    f"{v.scenario} {v.check}",
                    *(wording.verdict_word(None if c is None else c.outcome) for c in v.cells),
                ]
            )
        aligned = _align(rows, [False] * len(header), "  ")
        out.append(s(aligned[0], "dim"))
        for line, v in zip(aligned[1:], comparison.verdicts, strict=True):
            words = {None if c is None else c.outcome for c in v.cells}
            out.append(s(line, "red") if "fail" in words else line)
    if comparison.statuses:
        out += ["", s("Scenarios that did not end ok everywhere", "bold")]
        for line in comparison.statuses:
            out.extend(_wrap(line, "  "))
    if not wording.alone(comparison):
        out += ["", s("Rating", "bold")]
        for r in comparison.ratings:
            out.extend(_wrap(f"{r.family:<16} {r.sentence}", "  "))
    summary = wording.summary_counts(comparison)
    notes = wording.run_notes(comparison)
    if summary or notes:
        out += ["", s("Summary", "bold")]
        for line in summary:
            out.extend(_wrap(line, "  "))
        for line in notes:
            out.extend(_wrap("! " + line, "  "))
    if comparison.details:
        out += ["", s(wording.DETAILS_TITLE, "bold")]
        for line in comparison.details:
            out.extend(_wrap(line, "  "))
    if not wording.alone(comparison):
        out += ["", s("Rules", "bold")]
        for rule in wording.rules(comparison.min_change, comparison.any_exact):
            out.extend(_wrap("- " + rule, "  "))
    if with_reference:
        others = wording.other_published(comparison)
        if others:
            out += ["", s("Other published figures for these labels (not this machine)", "bold")]
            for line in others:
                out.extend(_wrap(line, "  "))
        out += ["", s("Reference", "bold")]
        out.extend(_wrap(reference.citation(), "  "))
    return "\n".join(out) + "\n"
