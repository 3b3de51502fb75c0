# SPDX-License-Identifier: Apache-2.0
"""`rtbench show DIR --format text|markdown|csv|json`: a stored result as bytes.

Every exporter is a pure function of the results document (and, for
`--reference`, of the published figures shipped with rtbench): the same
document gives the same bytes. `text` is the terminal report without colour.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

from rtbench import reference
from rtbench.model import units
from rtbench.model.results import ResultsDocument
from rtbench.model.summary import MetricSummary
from rtbench.model.views import first_meta, verdicts
from rtbench.report import requirements_table as req_report
from rtbench.report import terminal
from rtbench.report.common import STATUS_WORDS, os_config_text, row_unit
from rtbench.trace.codepath import render as path_render

FORMATS = ("text", "markdown", "csv", "json")
SUMMARY_SCHEMA = "rtbench-summary"
SUMMARY_VERSION = 1

_STAT_FIELDS = ("min", "mean", "p50", "p90", "p99", "p99_9", "p99_99", "max", "stddev")


def _metrics(doc: ResultsDocument) -> Iterator[MetricSummary]:
    for outcome in doc.scenarios:
        yield from outcome.metrics()


def _labels(doc: ResultsDocument) -> set[str]:
    return {
        i.label for o in doc.scenarios if o.status != "not_implemented" for i in o.ids if i.label
    }


def _params(m: MetricSummary) -> str:
    return ", ".join(f"{k}={v}" for k, v in m.params.items())


def render(
    doc: ResultsDocument,
    fmt: str,
    *,
    location: str | None = None,
    with_reference: bool = False,
    details: bool = False,
) -> bytes:
    """The bytes of a format; `details` selects the full terminal report for `text`."""
    if fmt == "text":
        text = terminal.render(doc, color=False, location=location, details=details)
        if with_reference:
            text += reference_text(doc)
    elif fmt == "markdown":
        text = markdown(doc, with_reference=with_reference)
    elif fmt == "csv":
        text = csv_text(doc)
    elif fmt == "json":
        text = json.dumps(summary(doc, with_reference=with_reference), indent=1) + "\n"
    else:
        raise ValueError(f"unknown format {fmt!r}")
    return text.encode("utf-8")


# ---- published figures next to a result --------------------------------------------


def _published_rows(m: MetricSummary, divisor: float) -> list[list[str]]:
    rows = []
    for f in reference.for_metric(m):
        cells = []
        for column in ("min_us", "avg_us", "max_us"):
            raw = getattr(f, column)
            ns = f.value_ns(column)
            if ns is not None:
                cells.append(units.format_number(ns / divisor))
            elif raw.startswith("<"):
                cells.append("<" + units.format_number(float(raw[1:]) * 1000.0 / divisor))
            else:
                cells.append(raw or "-")
        rows.append([f.system, *cells, f.measurement])
    return rows


def reference_text(doc: ResultsDocument) -> str:
    """The published figures of every measured metric they describe, as aligned text."""
    out = ["", "Published figures (other hardware and years, hardware tracing; not this machine)"]
    found = False
    for m in _metrics(doc):
        rows = _published_rows(m, row_unit(m)[1])
        if not rows:
            continue
        found = True
        unit_name, div = row_unit(m)
        mine = ", ".join(
            f"{word} {units.format_in(getattr(m, key), m.unit, div)}"
            for word, key in (("median", "p50"), ("avg", "mean"), ("max", "max"))
        )
        out.append("")
        out.append(f"  {m.label or '-'} {m.name}: this run {mine} {unit_name}")
        table = [["published system", "min", "avg", "max", "measurement"], *rows]
        widths = [max(len(r[i]) for r in table) for i in range(5)]
        for r in table:
            out.append(
                "    "
                + "  ".join(
                    c.rjust(widths[i]) if i in (1, 2, 3) else c.ljust(widths[i])
                    for i, c in enumerate(r)
                ).rstrip()
            )
    if not found:
        out.append("  (none of the measured metrics has a published figure)")
    others = [reference.describe(f) for f in reference.unmatched_for_labels(_labels(doc))]
    if others:
        out += ["", "  Other published figures for the labels of this run:"]
        out += [f"  - {line}" for line in others]
    out += ["", "  " + reference.citation()]
    return "\n".join(out) + "\n"


# ---- Markdown ----------------------------------------------------------------------


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_table(header: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    out = ["| " + " | ".join(_md(h) for h in header) + " |"]
    out.append("|" + "|".join("---:" if i in right else "---" for i in range(len(header))) + "|")
    out += ["| " + " | ".join(_md(c) for c in r) + " |" for r in rows]
    return out


def markdown(doc: ResultsDocument, *, with_reference: bool = False) -> str:
    run = doc.run
    out = [f"# rtbench {doc.rtbench_version} run {run.id}", ""]
    out.append(f"- profile {run.profile}, CPU {run.cpu}, target {run.target}")
    out.append(f"- started {run.started}, finished {run.finished or '-'}")
    if run.source is not None:
        out.append(
            f"- imported from {run.source.get('tool')} {run.source.get('version') or ''} "
            f"({run.source.get('file')})"
        )
    conditions = req_report.conditions_line(doc)
    if conditions:
        out.append(f"- {_md(conditions)}")
    out += [f"- {_md(line.strip())}" for line in req_report.terminal_lines(doc.requirements)]
    if not run.complete:
        out.append("- **INCOMPLETE run**")
    if not run.realtime:
        out.append("- **NOT REAL-TIME**: these numbers do not show what the system can do")
    meta = first_meta(doc)
    if meta is not None:
        out.append(f"- system: {meta['os']} {meta['os_release']}, {meta['arch']}")
        config = os_config_text(meta)
        if config is not None:
            out.append(f"- {meta['os']} {_md(config)}")
    warnings = [c for c in doc.caveats if c.get("severity") == "warning"]
    if warnings:
        out += ["", "## Caveats", ""]
        out += [f"- {c.get('message', '')} {c.get('advice', '')}".rstrip() for c in warnings]
    rows = []
    for m in _metrics(doc):
        unit_name, div = row_unit(m)
        rows.append(
            [
                m.label or "-",
                m.name,
                f"{m.count:,}",
                *(units.format_in(getattr(m, k), m.unit, div) for k in ("min", "p50", "mean")),
                *(units.format_in(getattr(m, k), m.unit, div) for k in ("p99", "max")),
                unit_name,
            ]
        )
    if rows:
        out += ["", "## Results", ""]
        header = ["label", "metric", "samples", "min", "median", "avg", "p99", "max", "unit"]
        out += _md_table(header, rows, set(range(2, 8)))
    out += path_render.markdown_lines(doc)
    vrows = [
        [v.label or "-", f"{v.scenario} {v.check}", v.outcome.upper(), v.reason]
        for o in doc.scenarios
        for v in verdicts(o)
    ]
    if vrows:
        out += ["", "## Behaviour verdicts", ""]
        out += _md_table(["label", "check", "verdict", "reason"], vrows, set())
    statuses = [
        [o.name, STATUS_WORDS.get(o.status, o.status), o.reason or ""]
        for o in doc.scenarios
        if o.status not in ("ok", "not_implemented")
    ]
    if statuses:
        out += ["", "## Scenarios that did not end ok", ""]
        out += _md_table(["scenario", "status", "reason"], statuses, set())
    if with_reference:
        out += ["", "## Published figures", ""]
        out.append("Other hardware, other years, hardware tracing: not this machine.")
        for m in _metrics(doc):
            unit_name, div = row_unit(m)
            prows = _published_rows(m, div)
            if prows:
                out += ["", f"### {m.label or '-'} `{m.name}` ({unit_name})", ""]
                out += _md_table(
                    ["published system", "min", "avg", "max", "measurement"], prows, {1, 2, 3}
                )
        others = [reference.describe(f) for f in reference.unmatched_for_labels(_labels(doc))]
        if others:
            out += ["", "### Other published figures for the labels of this run", ""]
            out += [f"- {line}" for line in others]
        out += ["", reference.citation()]
    return "\n".join(out) + "\n"


# ---- CSV and JSON ------------------------------------------------------------------

CSV_COLUMNS = (
    "label",
    "scenario",
    "metric",
    "params",
    "unit",
    "samples",
    *_STAT_FIELDS,
    "warmup",
    "invalid",
    "clamped",
)


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


def csv_text(doc: ResultsDocument) -> str:
    """One line per metric; times in nanoseconds."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for m in _metrics(doc):
        writer.writerow(
            [
                m.label or "",
                m.scenario,
                m.metric,
                json.dumps(dict(m.params), sort_keys=True),
                m.unit,
                m.count,
                *(_num(getattr(m, k)) for k in _STAT_FIELDS),
                m.warmup,
                m.invalid,
                m.clamped,
            ]
        )
    return buffer.getvalue()


def summary(doc: ResultsDocument, *, with_reference: bool = False) -> dict[str, Any]:
    """The figures of a run as plain JSON (times in nanoseconds)."""
    metrics = []
    for m in _metrics(doc):
        item: dict[str, Any] = {
            "label": m.label,
            "scenario": m.scenario,
            "metric": m.metric,
            "params": dict(m.params),
            "unit": m.unit,
            "samples": m.count,
            **{k: getattr(m, k) for k in _STAT_FIELDS},
            "warmup": m.warmup,
            "invalid": m.invalid,
            "clamped": m.clamped,
        }
        if with_reference:
            item["published"] = [
                {
                    "system": f.system,
                    "sources": list(f.sources),
                    "measurement": f.measurement,
                    "min_us": f.min_us or None,
                    "avg_us": f.avg_us or None,
                    "max_us": f.max_us or None,
                }
                for f in reference.for_metric(m)
            ]
        metrics.append(item)
    return {
        "schema": SUMMARY_SCHEMA,
        "version": SUMMARY_VERSION,
        "rtbench_version": doc.rtbench_version,
        "run": doc.run.to_json(),
        "caveats": [dict(c) for c in doc.caveats],
        "metrics": metrics,
        "verdicts": [
            {
                "scenario": v.scenario,
                "label": v.label,
                "check": v.check,
                "outcome": v.outcome,
                "reason": v.reason,
                "control": v.control_outcome,
            }
            for o in doc.scenarios
            for v in verdicts(o)
        ],
        "scenarios": [
            {"name": o.name, "status": o.status, "reason": o.reason} for o in doc.scenarios
        ],
    }
