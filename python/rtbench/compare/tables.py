# SPDX-License-Identifier: Apache-2.0
"""A comparison as Markdown and as CSV: pure functions of the comparison."""

from __future__ import annotations

import csv
import io
import json

from rtbench import reference
from rtbench.compare import answer, capabilities, pathdiff, publish, sidebyside, wording
from rtbench.compare.model import Comparison, MetricRow


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_table(header: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    align = ["---:" if i in right else "---" for i in range(len(header))]
    out = ["| " + " | ".join(_md_cell(h) for h in header) + " |", "|" + "|".join(align) + "|"]
    out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
    return out


def _md_metric(comparison: Comparison, row: MetricRow, with_reference: bool) -> list[str]:
    unit_name, div = wording.row_scale(row)
    out = [f"### {row.label or '-'} `{row.name}` ({unit_name})", ""]
    if row.title:
        out += [row.title, ""]
    rows = []
    for index, system in enumerate(comparison.systems):
        diff = row.differences[index]
        rows.append(
            [
                system.name,
                *wording.stat_cells(row, index, div, comparison),
                wording.base_word(comparison)
                if index == 0
                else wording.NOT_COMPARED
                if not comparison.timed_with_base(index)
                else wording.difference_text(diff, system.letter, row),
            ]
        )
    header = ["system", *wording.STAT_HEADERS]
    out += _md_table([*header, "difference"], rows, set(range(1, 9)))
    out += ["", *(f"- {note}" for note in row.param_notes if note)] if any(row.param_notes) else []
    out += _md_sides(row)
    for index, system in enumerate(comparison.systems):
        for path in row.path_changes(index):
            out += ["", f"Path difference of {system.letter}, {path.head()}:", ""]
            headers = [h.format(system.letter) for h in pathdiff.ROW_HEADERS]
            changed = pathdiff.rows(path)
            if changed:
                out += _md_table(headers, changed, {1, 2, 3, 4, 5})
            out += [f"- {item}" for item in path.items(system.letter) if "interrupted" in item]
    published = wording.reference_rows(row, div) if with_reference else []
    if published:
        out += ["", f"Published figures ({unit_name}; other hardware and years, not this machine):"]
        out += [
            "",
            *_md_table(
                ["published system", "min", "avg", "max", "measurement"],
                [list(r) for r in published],
                {1, 2, 3},
            ),
        ]
    return [*out, ""]


def _md_sides(row: MetricRow) -> list[str]:
    """Each traced system's typical path beside the others': a summary table, the
    functions ranked by instructions, and each call sequence."""
    sides = [side for side in row.sides if side is not None]
    if not sides:
        return []
    out = ["", sidebyside.title(sides), ""]
    out += _md_table(
        ["", *(f"{x.letter} {x.system}" for x in sides)], sidebyside.summary_rows(sides), set()
    )
    numeric = {i for i in range(3 * len(sides)) if i % 3}
    out += [
        "",
        *_md_table(sidebyside.function_headers(sides), sidebyside.function_rows(sides), numeric),
    ]
    out += [""] + [f"- {x.letter} entered, in order: {x.sequence_text() or '-'}" for x in sides]
    return out


def _md_services(comparison: Comparison) -> list[str]:
    rows = [[sv.label, *(c.full() for c in sv.cells)] for sv in comparison.services]
    return [
        "## Services of each system",
        "",
        capabilities.source_note(),
        "",
        *_md_table(capabilities.headers(comparison.systems), rows, set()),
        "",
    ]


def markdown(comparison: Comparison, *, with_reference: bool = False) -> str:
    out = [f"# rtbench comparison: {wording.heading(comparison)}", ""]
    if not wording.alone(comparison):
        head = ["", *(s.letter for s in comparison.systems)]
        out += _md_table(head, [[n, *c] for n, c in answer.table(comparison)], set())
        out += ["", *(f"- {line}" for line in answer.sentences(comparison)), ""]
    out += [f"- **{s.letter}**: {s.describe()}" for s in comparison.systems]
    out.append("")
    if comparison.compared:
        out += ["## What is compared", "", *(f"- {line}" for line in comparison.compared), ""]
    if comparison.notes:
        out += [*comparison.notes, ""]
    if comparison.warnings:
        out += ["## Configuration differences", ""]
        out += [f"- ⚠ {w}" for w in comparison.warnings]
        out.append("")
    if not wording.alone(comparison):
        out += ["## Rating", ""]
        out += _md_table(
            ["family", "result"], [[r.family, r.sentence] for r in comparison.ratings], set()
        )
        out.append("")
    summary = [f"- {line}" for line in wording.summary_counts(comparison)]
    summary += [f"- ⚠ {line}" for line in wording.run_notes(comparison)]
    if summary:
        out += ["## Summary", "", *summary, ""]
    if comparison.verdicts:
        out += ["## Behaviour verdicts", ""]
        rows = [
            [
                v.label or "-",
                f"{v.scenario} {v.check}",
                *(wording.verdict_word(v.outcome(i)) for i in range(len(comparison.systems))),
            ]
            for v in comparison.verdicts
        ]
        out += _md_table(["label", "check", *(s.name for s in comparison.systems)], rows, set())
        out.append("")
    if comparison.services:
        out += _md_services(comparison)
    if publish.shown(comparison):
        out += [f"## {publish.TITLE}", "", publish.NOTE, ""]
        out += _md_table(publish.headers(comparison), publish.figure_rows(comparison), set())
        out.append("")
        spreads = publish.differ_most(comparison)
        if spreads:
            out += [f"## {publish.DIFFER_TITLE}", "", *(f"- {s.sentence()}" for s in spreads), ""]
    if comparison.metrics:
        out += ["## Results", ""]
        for row in comparison.metrics:
            out += _md_metric(comparison, row, with_reference)
    if comparison.statuses:
        out += ["## Scenarios that did not end ok everywhere", ""]
        out += [f"- {line}" for line in comparison.statuses]
        out.append("")
    if comparison.details:
        out += [f"## {wording.DETAILS_TITLE}", "", *(f"- {d}" for d in comparison.details), ""]
    if not wording.alone(comparison):
        out += ["## Rules", ""]
        out += [f"- {rule}" for rule in wording.rules(comparison.min_change, comparison.any_exact)]
    if with_reference:
        others = wording.other_published(comparison)
        if others:
            out += ["", "## Other published figures for these labels (not this machine)", ""]
            out += [f"- {line}" for line in others]
        out += ["", "## Reference", "", reference.citation()]
    return "\n".join(out) + "\n"


CSV_COLUMNS = (
    "label",
    "scenario",
    "metric",
    "params",
    "unit",
    "system",
    "run",
    "path",
    "samples",
    "min",
    "median",
    "mean",
    "p99",
    "max",
    "ratio_median",
    "ratio_p99",
    "ratio_max",
    "outcome",
    "location",
    "tail",
    "test_samples",
    "mann_whitney_p",
    "median_ratio",
    "median_ratio_ci_low",
    "median_ratio_ci_high",
    "tail_quantile",
    "tail_reference",
    "tail_share_base",
    "tail_share_other",
    "tail_fisher_p",
    "exact_shift",
    "median_change",
    "max_change",
    "path_difference",
    "code_path",
)


def _num(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:.6g}"


def _exact_columns(comparison: Comparison, row: MetricRow, index: int) -> list[str]:
    """The -icount shift of an exact comparison, the exact change of the median and
    the maximum (in `unit`), the path difference against A, and the system's own
    path when paths are set side by side (systems of other OSes)."""
    diff = row.differences[index]
    exact = None if diff is None else diff.exact
    pairing = comparison.pairings[index] if index < len(comparison.pairings) else None
    changes = {} if exact is None else {c.statistic: c.delta for c in exact.changes}
    side = row.sides[index] if index < len(row.sides) else None
    paths = " | ".join(
        d.line(comparison.systems[index].letter, None) for d in row.path_changes(index)
    )
    return [
        "" if exact is None or pairing is None else str(pairing.shift),
        "" if exact is None else _num(changes.get("median", 0.0)),
        "" if exact is None else _num(changes.get("max", 0.0)),
        paths,
        "" if side is None else side.line(None),
    ]


def csv_text(comparison: Comparison) -> str:
    """One line per metric and system; times in nanoseconds (the `unit` column). A
    system given as several runs lists their ids (joined by +) and paths (by ;)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in comparison.metrics:
        for index, system in enumerate(comparison.systems):
            cell = row.cells[index]
            diff = row.differences[index]
            loc = diff.loc_test if diff is not None else None
            tail = None
            if diff is not None and diff.tails:
                tail = next((t for t in diff.tails if t.heavier()), diff.tails[0])
            writer.writerow(
                [
                    row.label or "",
                    row.key[0],
                    row.key[1],
                    json.dumps(json.loads(row.key[2]), sort_keys=True),
                    row.unit,
                    system.letter,
                    "+".join(r.doc.run.id for r in system.runs()),
                    ";".join(str(r.path) for r in system.runs()),
                    "" if cell is None else cell.count,
                    _num(None if cell is None else cell.min),
                    _num(None if cell is None else cell.p50),
                    _num(None if cell is None else cell.mean),
                    _num(None if cell is None else cell.p99),
                    _num(None if cell is None else cell.max),
                    _num(row.ratio(index, "p50")),
                    _num(row.ratio(index, "p99")),
                    _num(row.ratio(index, "max")),
                    "baseline"
                    if index == 0
                    else wording.NOT_COMPARED
                    if not comparison.timed_with_base(index)
                    else ("" if diff is None else diff.outcome),
                    "" if diff is None else diff.location,
                    "" if diff is None else diff.tail,
                    "" if loc is None else loc.source,
                    "" if loc is None else _num(loc.p_value),
                    "" if loc is None else _num(loc.ratio),
                    "" if loc is None else _num(loc.ci_low),
                    "" if loc is None else _num(loc.ci_high),
                    "" if tail is None else tail.quantile,
                    "" if tail is None else tail.reference,
                    "" if tail is None else _num(tail.frac_base),
                    "" if tail is None else _num(tail.frac_other),
                    "" if tail is None else _num(tail.p_value),
                    *_exact_columns(comparison, row, index),
                ]
            )
    return buffer.getvalue()
