# SPDX-License-Identifier: Apache-2.0
"""The terminal report: the run summary `rtbench run` prints and `rtbench show`."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from rtbench import units
from rtbench.report.common import (
    STATUS_WORDS,
    TableView,
    first_meta,
    metric_display_names,
    notes,
    problem_logs,
    row_unit,
    status_counts,
    tables,
    verdict_counts,
    verdicts,
)
from rtbench.results import ResultsDocument, ScenarioOutcome

_COLORS = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "cyan": "36",
}
_OUTCOME_COLORS = {
    "PASS": "green",
    "FAIL": "red",
    "INCONCLUSIVE": "yellow",
    "UNSUPPORTED": "yellow",
}
_STATUS_COLORS = {
    "stopped": "yellow",
    "unsupported": "yellow",
    "error": "red",
    "timeout": "red",
    "crashed": "red",
    "interrupted": "yellow",
}


class _Style:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, *styles: str) -> str:
        if not self.color or not styles:
            return text
        codes = ";".join(_COLORS[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"


def _align(rows: Sequence[Sequence[str]], numeric: Sequence[bool], indent: str = "  ") -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [
            cell.rjust(widths[i]) if numeric[i] else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ]
        out.append((indent + "  ".join(cells)).rstrip())
    return out


def render(doc: ResultsDocument, *, color: bool = False, location: str | None = None) -> str:
    """The terminal report of a results document."""
    s = _Style(color)
    run = doc.run
    lines: list[str] = []
    lines.append(
        s(f"rtbench {doc.rtbench_version} run {run.id}", "bold")
        + f"  (profile {run.profile}, CPU {run.cpu}, target {run.target})"
    )
    state = "complete" if run.complete else "INCOMPLETE"
    if run.interrupted:
        state += " (interrupted)"
    lines.append(f"started {run.started}, finished {run.finished or '-'}, {state}")
    if not run.realtime:
        lines.append("")
        lines.append(
            s(
                "NOT REAL-TIME: the core ran without a real-time scheduling policy; "
                "these numbers do not show what the system can do.",
                "bold",
                "red",
            )
        )
    meta = first_meta(doc)
    if meta is not None:
        lines.append(
            f"system: {meta['os']} {meta['os_release']}, {meta['arch']}, "
            f"{meta.get('libc') or 'unknown C library'}, port {meta['port']}, "
            f"core {meta['core_version']}"
        )
    if doc.calibration is not None:
        cal = doc.calibration
        hz = float(cal.counter["hz"])
        lines.append(
            f"calibration: counter {cal.counter['name']} at {hz / 1e6:,.3f} MHz "
            f"({1e9 / hz:.3f} ns per tick); timestamp overhead {cal.overhead_ticks} ticks = "
            f"{units.format_duration(cal.overhead_ns)}, subtracted from every sample"
        )
    warnings = [c for c in doc.caveats if c.get("severity") == "warning"]
    if warnings:
        lines.append("")
        lines.append(s("Caveats", "bold"))
        for c in warnings:
            text = f"{c.get('message', '')} {c.get('advice', '')}".strip()
            lines.extend(
                textwrap.wrap(
                    text,
                    _WRAP_WIDTH,
                    initial_indent="  ! ",
                    subsequent_indent="    ",
                    break_on_hyphens=False,
                )
            )
    changes = doc.settings.get("changes", [])
    if changes:
        lines.append("")
        lines.append(s("Host settings changed for the run", "bold"))
        for ch in changes:
            restored = ch.get("restored")
            after = "restored" if restored is True else f"restored: {restored}"
            lines.append(
                f"  {ch.get('setting')}: {ch.get('original')} -> {ch.get('applied')} ({after})"
            )

    lines.extend(_metrics_section(doc, s))
    lines.extend(_verdicts_section(doc, s))
    lines.extend(_tables_section(doc, s))
    lines.extend(_status_section(doc, s))
    lines.append("")
    lines.append(_summary_line(doc))
    if location:
        lines.append(f"results: {location}")
    return "\n".join(lines) + "\n"


def _metrics_section(doc: ResultsDocument, s: _Style) -> list[str]:
    header = ["metric", "samples", "min", "avg", "p99", "max", "", "notes"]
    rows: list[list[str]] = [header]
    numeric = [False, True, True, True, True, True, False, False]
    group_rows: list[int] = []
    for outcome in doc.scenarios:
        metrics = outcome.metrics()
        if not metrics:
            continue
        group_rows.append(len(rows))
        rows.append([_unit_title(outcome), "", "", "", "", "", "", ""])
        for m, name in zip(metrics, metric_display_names(outcome, metrics), strict=True):
            unit_name, div = row_unit(m)
            rows.append(
                [
                    "  " + name,
                    units.format_count(m.count),
                    units.format_in(m.min, m.unit, div),
                    units.format_in(m.mean, m.unit, div),
                    units.format_in(m.p99, m.unit, div),
                    units.format_in(m.max, m.unit, div),
                    unit_name if unit_name != "count" else "",
                    notes(m),
                ]
            )
    if len(rows) == 1:
        return []
    out = ["", s("Results", "bold")]
    aligned = _align(rows, numeric)
    for i, line in enumerate(aligned):
        if i == 0:
            out.append(s(line, "dim"))
        elif i in group_rows:
            out.append(s(line.rstrip(), "cyan"))
        else:
            out.append(line)
    return out


def _unit_title(outcome: ScenarioOutcome) -> str:
    labels = sorted({i.label for i in outcome.ids if i.label})
    title = outcome.name
    if labels:
        title += "  " + ", ".join(labels)
    if outcome.status != "ok":
        title += f"  ({STATUS_WORDS.get(outcome.status, outcome.status)})"
    return title


def _verdicts_section(doc: ResultsDocument, s: _Style) -> list[str]:
    out: list[str] = []
    for outcome in doc.scenarios:
        for v in verdicts(outcome):
            word = v.outcome.upper()
            name = v.scenario + (f" ({v.label})" if v.label else "")
            indent = " " * 15
            text = textwrap.wrap(
                f"{name} {v.check}: {v.reason}",
                _WRAP_WIDTH - 15,
                break_on_hyphens=False,
            )
            styled = s(word.ljust(12), "bold", _OUTCOME_COLORS.get(word, "bold"))
            out.append(f"  {styled} {text[0]}")
            out.extend(indent + line for line in text[1:])
            out.extend(
                textwrap.wrap(
                    v.control_sentence,
                    _WRAP_WIDTH,
                    initial_indent=indent,
                    subsequent_indent=indent + "  ",
                    break_on_hyphens=False,
                )
            )
    if out:
        out = ["", s("Behaviour verdicts", "bold"), *out]
    return out


_TABLE_ROWS_MAX = 30
_TABLE_HEAD_ROWS = 15
_TABLE_TAIL_ROWS = 5
_TEXT_CELL_MAX = 60
_WRAP_WIDTH = 100


def _render_table(t: TableView) -> list[str]:
    """Aligned rows; long tables keep their first and last rows (report.html has all)."""
    shown: list[tuple[str, ...] | None] = list(t.rows)
    if len(t.rows) > _TABLE_ROWS_MAX:
        shown = [*t.rows[:_TABLE_HEAD_ROWS], None, *t.rows[-_TABLE_TAIL_ROWS:]]
    physical: list[list[str]] = [list(t.headers)]
    gap_at = -1
    for row in shown:
        if row is None:
            gap_at = len(physical)
            continue
        # Long text cells wrap onto continuation lines.
        wrapped = [textwrap.wrap(c, _TEXT_CELL_MAX, break_on_hyphens=False) or [""] for c in row]
        for k in range(max(len(w) for w in wrapped)):
            physical.append([w[k] if k < len(w) else "" for w in wrapped])
    aligned = _align(physical, t.numeric, indent="    ")
    if gap_at >= 0:
        hidden = len(t.rows) - _TABLE_HEAD_ROWS - _TABLE_TAIL_ROWS
        aligned.insert(gap_at, f"    ... {hidden} more rows (report.html has the whole table)")
    return aligned


def _tables_section(doc: ResultsDocument, s: _Style) -> list[str]:
    out: list[str] = []
    for outcome in doc.scenarios:
        for t in tables(outcome):
            out.append("")
            out.append(s(f"  {t.scenario}: {t.title}", "bold"))
            if not t.rows:
                out.append("    (no rows)")
                continue
            rendered = _render_table(t)
            out.append(s(rendered[0], "dim"))
            out.extend(rendered[1:])
    if out:
        out = ["", s("Tables", "bold"), *out]
    return out


def _status_section(doc: ResultsDocument, s: _Style) -> list[str]:
    out: list[str] = []
    missing = [o for o in doc.scenarios if o.status == "not_implemented"]
    for outcome in doc.scenarios:
        if outcome.status in ("ok", "not_implemented"):
            logs = problem_logs(outcome)
            if outcome.status == "ok" and (logs or outcome.errors):
                out.append(f"  {outcome.name}:")
                out.extend(f"      {line}" for line in logs)
            continue
        word = STATUS_WORDS.get(outcome.status, outcome.status).upper()
        out.append(
            f"  {s(word, 'bold', _STATUS_COLORS.get(outcome.status, 'bold'))} "
            f"{outcome.name}: {outcome.reason or 'no reason given'}"
        )
        out.extend(f"      {line}" for line in problem_logs(outcome))
        for error in outcome.errors[:3]:
            out.append(f"      {error}")
        if len(outcome.errors) > 3:
            out.append(f"      ... and {len(outcome.errors) - 3} more problems")
        if outcome.status == "crashed" and outcome.stderr_tail.strip():
            tail = outcome.stderr_tail.strip().splitlines()[-3:]
            out.extend(f"      stderr: {line}" for line in tail)
    if missing:
        names = ", ".join(o.name for o in missing[:6])
        more = f", ... ({len(missing)} in all)" if len(missing) > 6 else ""
        out.append(
            f"  {s('NOT IMPLEMENTED', 'dim')} in this build: {names}{more}; "
            "`rtbench list` shows the catalog"
        )
    if out:
        out = ["", s("Status", "bold"), *out]
    return out


def _summary_line(doc: ResultsDocument) -> str:
    counts = status_counts(doc)
    ran = sum(n for st, n in counts.items() if st != "not_implemented")
    parts = [f"{counts[st]} {STATUS_WORDS[st]}" for st in STATUS_WORDS if counts.get(st)]
    text = f"{ran} scenarios run: " + ", ".join(p for p in parts if "not implemented" not in p)
    vc = verdict_counts(doc)
    if vc:
        text += "; verdicts: " + ", ".join(f"{n} {o}" for o, n in sorted(vc.items()))
    if not doc.run.complete:
        text += "; run INCOMPLETE"
    return text
