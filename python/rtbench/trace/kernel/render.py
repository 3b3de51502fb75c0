# SPDX-License-Identifier: Apache-2.0
"""The trace's explanations as text: one line per metric's worst sample.

Used by the terminal summary and `rtbench show`; the HTML report draws them
(rtbench.trace.kernel.timeline).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from rtbench.model.results import ResultsDocument


def traced(doc: ResultsDocument) -> Mapping[str, Any] | None:
    """The run's trace condition (run.conditions.trace) when the run was traced."""
    conditions = doc.run.conditions or {}
    found = conditions.get("trace")
    return found if isinstance(found, Mapping) and found.get("traced") else None


def metric_name(record: Mapping[str, Any]) -> str:
    """`scenario metric [k=v ...]` of a result record (or of anything with those keys)."""
    params = record.get("params") or {}
    where = " ".join(f"{k}={v}" for k, v in params.items())
    name = f"{record['scenario']} {record['metric']}"
    return f"{name} [{where}]" if where else name


def explained_metrics(doc: ResultsDocument) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(metric name, its `trace` object) for every result record that has one."""
    for outcome in doc.scenarios:
        for record in outcome.of_type("result"):
            trace = record.get("trace")
            if isinstance(trace, Mapping) and trace.get("line"):
                yield metric_name(record), trace


def lost_events(condition: Mapping[str, Any]) -> int:
    units = condition.get("units") or {}
    return sum(int(u.get("lost_events") or 0) for u in units.values() if isinstance(u, Mapping))


def terminal_lines(
    doc: ResultsDocument,
    width: int,
    bold: Callable[[str], str] = lambda t: t,
) -> list[str]:
    """A titled block, or nothing for an untraced run."""
    condition = traced(doc)
    if condition is None:
        return []
    lost = lost_events(condition)
    lost_text = f"{lost:,} events lost (ring buffer full)" if lost else "no event lost"
    lines = [
        "",
        bold(
            f"Kernel trace of the worst samples (clock {condition.get('clock')}, {lost_text}; "
            "traced figures are disturbed by the tracing)"
        ),
    ]
    for name, trace in explained_metrics(doc):
        lines += textwrap.wrap(
            f"{name}: {trace['line']}",
            width=max(width, 40),
            initial_indent="  ",
            subsequent_indent="      ",
            break_on_hyphens=False,
        )
    if len(lines) == 2:
        lines.append("  no metric kept samples with readings the trace could be searched with")
    return lines


def condition_rows(doc: ResultsDocument) -> list[tuple[str, str]]:
    """Key/value rows saying how the run was traced (the HTML report's run details)."""
    condition = traced(doc)
    if condition is None:
        return []
    units = condition.get("units") or {}
    maps = [u.get("clock_map") or {} for u in units.values() if isinstance(u, Mapping)]
    methods = sorted({str(m.get("counter_method")) for m in maps if m})
    residuals = [float(m["counter_residual_ns"]) for m in maps if m.get("counter_residual_ns")]
    lost = lost_events(condition)
    return [
        ("kernel trace", f"tracefs instance {condition.get('instance')}, clock "
                         f"{condition.get('clock')}, {len(condition.get('events') or [])} events"),
        ("ring buffer", f"{condition.get('buffer_kb_per_cpu')} KiB per CPU; "
                        + (f"{lost:,} events lost" if lost else "no event lost")),
        ("samples on the trace clock", ", ".join(methods)
         + (f" (largest residual {max(residuals) / 1000:.1f} µs)" if residuals else "")),
        ("traced figures", "disturbed by the tracing: compare them with traced figures only"),
    ]  # fmt: skip


def sample_lines(trace: Mapping[str, Any]) -> list[str]:
    """Every kept sample's line (worst first, then those near the median)."""
    return [str(s["line"]) for s in trace.get("samples", []) if s.get("line")]


def detail_lines(doc: ResultsDocument, bold: Callable[[str], str] = lambda t: t) -> list[str]:
    """`rtbench show --details`: every kept sample's line, per metric."""
    condition = traced(doc)
    if condition is None:
        return []
    lines = ["", bold(f"Kernel trace of the kept samples (clock {condition.get('clock')})")]
    for name, trace in explained_metrics(doc):
        lines.append(f"  {name}")
        lines += [f"    {line}" for line in sample_lines(trace)]
    return lines
