# SPDX-License-Identifier: Apache-2.0
"""What every report needs from a results document, independent of the format."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rtbench import units
from rtbench.results import ResultsDocument, ScenarioOutcome
from rtbench.stats import MetricSummary

STATUS_WORDS = {
    "ok": "ok",
    "stopped": "stopped early",
    "unsupported": "unsupported",
    "error": "error",
    "timeout": "timeout",
    "crashed": "crashed",
    "interrupted": "interrupted",
    "not_implemented": "not implemented",
}


@dataclass(frozen=True)
class VerdictView:
    """A `verdict` record as reports show it."""

    scenario: str
    label: str | None
    check: str
    outcome: str  # pass / fail / unsupported / inconclusive
    reason: str
    evidence: tuple[str, ...]
    control_outcome: str  # caught / missed / not_run
    control_description: str
    control_evidence: tuple[str, ...]

    @property
    def control_sentence(self) -> str:
        what = self.control_description or "no description"
        if self.control_outcome == "caught":
            return f"negative control caught ({what})"
        if self.control_outcome == "missed":
            return f"negative control MISSED: the check did not see the planted failure ({what})"
        return f"negative control not run ({what})"


def verdicts(outcome: ScenarioOutcome) -> list[VerdictView]:
    out: list[VerdictView] = []
    for r in outcome.of_type("verdict"):
        control = r["control"]
        out.append(
            VerdictView(
                scenario=str(r["scenario"]),
                label=r.get("label"),
                check=str(r["check"]),
                outcome=str(r["outcome"]),
                reason=str(r["reason"]),
                evidence=tuple(str(e) for e in r["evidence"]),
                control_outcome=str(control["outcome"]),
                control_description=str(control.get("description") or ""),
                control_evidence=tuple(str(e) for e in control["evidence"]),
            )
        )
    return out


@dataclass(frozen=True)
class TableView:
    """A `table` record with its cells formatted; tick columns converted to time."""

    scenario: str
    name: str
    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[bool, ...]


def table_view(record: Mapping[str, Any], counter_hz: float | None) -> TableView:
    columns = record["columns"]
    rows: list[list[Any]] = [list(r) for r in record["rows"]]
    headers: list[str] = []
    numeric: list[bool] = []
    formatted_columns: list[list[str]] = []
    for index, column in enumerate(columns):
        unit = str(column.get("unit") or "")
        cells = [row[index] if index < len(row) else None for row in rows]
        numbers = [c for c in cells if isinstance(c, int | float) and not isinstance(c, bool)]
        is_numeric = bool(numbers) and len(numbers) == sum(1 for c in cells if c is not None)
        header = str(column["name"])
        if units.is_time(unit) and (unit != "ticks" or counter_hz):
            base = [units.to_base(float(n), unit, counter_hz) for n in numbers]
            name, size = units.time_unit_for(units.median(base))
            header += f" ({name})"
            text = [
                "-"
                if c is None
                else units.format_number(units.to_base(float(c), unit, counter_hz) / size)
                if isinstance(c, int | float)
                else str(c)
                for c in cells
            ]
        else:
            if unit and unit not in ("count",):
                header += f" ({unit})"
            text = [_plain_cell(c) for c in cells]
        headers.append(header)
        numeric.append(is_numeric)
        formatted_columns.append(text)
    formatted_rows = tuple(tuple(col[i] for col in formatted_columns) for i in range(len(rows)))
    return TableView(
        scenario=str(record["scenario"]),
        name=str(record["name"]),
        title=str(record.get("title") or record["name"]),
        headers=tuple(headers),
        rows=formatted_rows,
        numeric=tuple(numeric),
    )


def _plain_cell(cell: Any) -> str:
    if cell is None:
        return "-"
    if isinstance(cell, bool):
        return "yes" if cell else "no"
    if isinstance(cell, int):
        return f"{cell:,}"
    if isinstance(cell, float):
        if cell == math.floor(cell) and abs(cell) < 1e15:
            return _plain_cell(int(cell))
        return units.format_number(cell)
    return str(cell)


def tables(outcome: ScenarioOutcome) -> list[TableView]:
    return [table_view(r, outcome.counter_hz) for r in outcome.of_type("table")]


def metric_display_names(outcome: ScenarioOutcome, metrics: Sequence[MetricSummary]) -> list[str]:
    """Short names for a unit's metrics: params only where needed to tell them apart."""
    seen = Counter((m.scenario, m.metric) for m in metrics)
    names: list[str] = []
    for m in metrics:
        name = f"{m.scenario} {m.metric}"
        if seen[(m.scenario, m.metric)] > 1 and m.params:
            name += " [" + ", ".join(f"{k}={v}" for k, v in m.params.items()) + "]"
        names.append(name)
    return names


def notes(metric: MetricSummary) -> str:
    parts = []
    if metric.invalid:
        parts.append(f"{metric.invalid:,} invalid")
    if metric.clamped:
        parts.append(f"{metric.clamped:,} clamped")
    return ", ".join(parts)


def problem_logs(outcome: ScenarioOutcome) -> list[str]:
    """Warnings and errors the core logged for a unit."""
    return [
        f"{r['level']}: {r['message']}"
        for r in outcome.of_type("log")
        if r["level"] in ("warning", "error")
    ]


def first_meta(doc: ResultsDocument) -> Mapping[str, Any] | None:
    for outcome in doc.scenarios:
        if outcome.meta is not None:
            return outcome.meta
    return None


def status_counts(doc: ResultsDocument) -> Counter[str]:
    return Counter(s.status for s in doc.scenarios)


def verdict_counts(doc: ResultsDocument) -> Counter[str]:
    return Counter(v.outcome for s in doc.scenarios for v in verdicts(s))


def row_unit(metric: MetricSummary) -> tuple[str, float]:
    """The display unit and divisor of a metric's row (chosen from its median)."""
    reference = metric.p50 if metric.p50 is not None else metric.mean
    return units.row_scale(metric.unit, reference)
