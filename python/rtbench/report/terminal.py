# SPDX-License-Identifier: Apache-2.0
"""The terminal report: the summary `rtbench run` ends with and `rtbench show`
prints (`summary`), and everything `rtbench show --details` prints: every
metric on one line, every statistic, each verdict with its evidence and
negative control, every table."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence

from rtbench.model import units
from rtbench.model.resolution import Resolution, at_resolution
from rtbench.model.results import ResultsDocument, ScenarioOutcome
from rtbench.model.summary import MetricSummary
from rtbench.model.views import first_meta, verdicts
from rtbench.report import requirements_table as req_report
from rtbench.report import summary
from rtbench.report.common import (
    EMULATED_BANNER,
    STATUS_WORDS,
    TableView,
    by_family,
    core_build,
    deterministic,
    emulated,
    format_ratio,
    format_value,
    max_ratio,
    metric_display_names,
    notes,
    one_line,
    os_config_text,
    problem_logs,
    row_unit,
    sweeps,
    tables,
)
from rtbench.trace.codepath import render as path_render
from rtbench.trace.kernel import render as trace_render

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
    "lost": "red",
    "crashed": "red",
    "interrupted": "yellow",
}


_TABLE_ROWS_MAX = 30
_TABLE_HEAD_ROWS = 15
_TABLE_TAIL_ROWS = 5
_TEXT_CELL_MAX = 60
_WRAP_WIDTH = 100
_DETAILS_WIDTH = 120


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


def render(
    doc: ResultsDocument,
    *,
    color: bool = False,
    location: str | None = None,
    details: bool = False,
    width: int = _WRAP_WIDTH,
) -> str:
    """The terminal report of a results document: a summary that fits one screen
    (`summary`), or with `details` every statistic, verdict's evidence and table.
    `location` is the results directory."""
    s = _Style(color)
    if details:
        return _details(doc, s, location)
    return summary.render(doc, s, location, max(width, 60))


def _details(doc: ResultsDocument, s: _Style, location: str | None) -> str:
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
    lines += req_report.top_lines(doc)
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
    if emulated(doc):
        lines.append("")
        lines.append(s(EMULATED_BANNER, "bold", "yellow"))
    fixed = deterministic(doc)
    if fixed is not None:
        lines.append(s(fixed, "bold"))
    meta = first_meta(doc)
    if meta is not None:
        lines.append(
            f"system: {meta['os']} {meta['os_release']}, {meta['arch']}, "
            f"{meta.get('libc') or 'unknown C library'}, port {meta['port']}, "
            f"core {meta['core_version']}"
        )
        config = os_config_text(meta, sources=True)
        if config is not None:
            lines.append(f"{meta['os']} {config}")
        built = core_build(meta)
        if built is not None:
            lines.append(f"core: {built}")
    if doc.calibration is not None:
        cal = doc.calibration
        hz = float(cal.counter["hz"])
        overhead = f"{cal.overhead_ticks} ticks = {units.format_duration(cal.overhead_ns)}"
        if cal.overhead_inline_ticks is not None and cal.overhead_inline_ns is not None:
            overhead = (
                f"{overhead} for timed calls, {cal.overhead_inline_ticks} ticks = "
                f"{units.format_duration(cal.overhead_inline_ns)} for inline reads, each "
                "subtracted from the samples taken that way"
            )
        else:
            overhead += ", subtracted from every sample"
        lines.append(
            f"calibration: counter {cal.counter['name']} at {hz / 1e6:,.3f} MHz "
            f"({Resolution.of_counter(cal.counter).describe()}); timestamp overhead "
            f"{overhead}"
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

    lines.extend(_summary_results(doc, s, _DETAILS_WIDTH))
    lines.extend(_metrics_section(doc, s))
    lines.extend(trace_render.detail_lines(doc, lambda t: s(t, "bold")))
    lines.extend(path_render.detail_lines(doc, lambda t: s(t, "bold")))
    lines.extend(_verdicts_section(doc, s))
    lines.extend(_tables_section(doc, s))
    lines.extend(_status_section(doc, s))
    lines.append("")
    lines.append(summary.final_line(doc))
    if location:
        lines.append(f"results: {location}")
    return "\n".join(lines) + "\n"


def _metrics_section(doc: ResultsDocument, s: _Style) -> list[str]:
    header = ["metric", "samples", "min", "median", "avg", "p99", "p99.9", "max", "", "notes"]
    rows: list[list[str]] = [header]
    numeric = [False, True, True, True, True, True, True, True, False, False]
    group_rows: list[int] = []
    titles: dict[int, str] = {}  # row -> the metric's title, printed under it
    for outcome in doc.scenarios:
        metrics = outcome.metrics()
        if not metrics:
            continue
        group_rows.append(len(rows))
        rows.append([_unit_title(outcome), *([""] * (len(header) - 1))])
        for m, name in zip(metrics, metric_display_names(outcome, metrics), strict=True):
            unit_name, div = row_unit(m)
            if m.title:
                titles[len(rows)] = m.title
            rows.append(
                [
                    "  " + name,
                    units.format_count(m.count),
                    *(units.format_in(v, m.unit, div) for v in (m.min, m.p50, m.mean)),
                    *(units.format_in(v, m.unit, div) for v in (m.p99, m.p99_9, m.max)),
                    unit_name if unit_name != "count" else "",
                    notes(m),
                ]
            )
    if len(rows) == 1:
        return []
    out = ["", s("Results", "bold") + s("  (each metric's title under it)", "dim")]
    aligned = _align(rows, numeric)
    for i, line in enumerate(aligned):
        if i == 0:
            out.append(s(line, "dim"))
        elif i in group_rows:
            out.append(s(line.rstrip(), "cyan"))
        else:
            out.append(line)
        if i in titles:
            out.append(s("      " + one_line(titles[i], _DETAILS_WIDTH - 6), "dim"))
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


# ---- every metric on one line (in --details) -------------------------------


def _summary_results(doc: ResultsDocument, s: _Style, width: int) -> list[str]:
    rows: list[list[str]] = [["", "metric", "median", "p99", "p99.9", "max", "max/med"]]
    resolution = (
        Resolution.of_counter(doc.calibration.counter) if doc.calibration is not None else None
    )
    for _family, outcomes in by_family(doc):
        for outcome in outcomes:
            rows.extend(_result_lines(outcome, resolution))
    if len(rows) == 1:
        return []
    numeric = [False, False, True, True, True, True, True]
    widths = [max(len(r[i]) for r in rows) for i in range(len(numeric))]
    # The metric column gets what the others leave of the width.
    fixed = sum(w for i, w in enumerate(widths) if i != 1) + 2 * (len(widths) - 1) + 2
    widths[1] = max(min(widths[1], width - fixed), 16)
    out = ["", s("Every metric", "bold") + s("  (one line each; a sweep of one parameter on one "
                                            "line, as ranges)", "dim")]  # fmt: skip
    for n, row in enumerate(rows):
        cells = []
        for i, text in enumerate(row):
            cell = text[: widths[1] - 1] + "…" if i == 1 and len(text) > widths[1] else text
            cells.append(cell.rjust(widths[i]) if numeric[i] else cell.ljust(widths[i]))
        line = ("  " + "  ".join(cells)).rstrip()
        out.append(s(line, "dim") if n == 0 else line)
    if resolution is not None and any("≈" in c for r in rows for c in r):
        out.append(
            s(
                f"  ≈ at the counter's resolution: within two steps ({2 * resolution.step_ns:.1f}"
                " ns) of zero or of another figure of the row",
                "dim",
            )
        )
    return out


def _result_lines(
    outcome: ScenarioOutcome, resolution: Resolution | None = None
) -> list[list[str]]:
    metrics = outcome.metrics()
    names = metric_display_names(outcome, metrics)
    grouped = {id(m): sw for sw in sweeps(metrics, minimum=2) for _x, m in sw.points}
    lines: list[list[str]] = []
    done: set[int] = set()
    for m, name in zip(metrics, names, strict=True):
        sw = grouped.get(id(m))
        if sw is None:
            marked = at_resolution(m, resolution) if resolution is not None else frozenset()

            def cell(key: str, metric: MetricSummary = m, marked: frozenset[str] = marked) -> str:
                text = format_value(metric, getattr(metric, key))
                return f"≈{text}" if key in marked and text != "-" else text

            lines.append(
                [
                    m.label or "",
                    name,
                    cell("p50"),
                    cell("p99"),
                    cell("p99_9"),
                    cell("max"),
                    format_ratio(max_ratio(m)),
                ]
            )
            continue
        if id(sw) in done:
            continue
        done.add(id(sw))
        group = [p[1] for p in sw.points]
        xs = [p[0] for p in sw.points]
        lines.append(
            [
                m.label or "",
                f"{sw.scenario} {sw.metric} [{sw.param} {_num(xs[0])}..{_num(xs[-1])}]",
                _span(group, lambda g: g.p50),
                _span(group, lambda g: g.p99),
                _span(group, lambda g: g.p99_9),
                _span(group, lambda g: g.max),
                format_ratio(_largest([max_ratio(g) for g in group])),
            ]
        )
    return lines


def _num(value: float) -> str:
    return f"{int(value):,}" if value == int(value) else f"{value:g}"


def _largest(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def _span(group: Sequence[MetricSummary], pick: Callable[[MetricSummary], float | None]) -> str:
    """`1.17-1.53 µs` over a sweep (each end in its own unit when they differ)."""
    values = [(pick(m), m) for m in group]
    present = [(v, m) for v, m in values if v is not None]
    if not present:
        return "-"
    low = min(present, key=lambda p: p[0])
    high = max(present, key=lambda p: p[0])
    a, b = format_value(low[1], low[0]), format_value(high[1], high[0])
    if a == b:
        return a
    unit_a, unit_b = a.rpartition(" ")[2], b.rpartition(" ")[2]
    if unit_a == unit_b and " " in a:
        return f"{a.rpartition(' ')[0]}-{b}"
    return f"{a}-{b}"
