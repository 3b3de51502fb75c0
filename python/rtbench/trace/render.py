# SPDX-License-Identifier: Apache-2.0
"""The trace's explanations as text: one line per metric's worst sample.

Used by the terminal summary and `rtbench show`; the HTML report draws them
(rtbench.trace.timeline).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from rtbench.results import ResultsDocument


def traced(doc: ResultsDocument) -> Mapping[str, Any] | None:
    """The run's trace condition (run.conditions.trace) when the run was traced."""
    conditions = doc.run.conditions or {}
    found = conditions.get("trace")
    return found if isinstance(found, Mapping) and found.get("traced") else None


def explained_metrics(doc: ResultsDocument) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(metric name, its `trace` object) for every result record that has one."""
    for outcome in doc.scenarios:
        for record in outcome.of_type("result"):
            trace = record.get("trace")
            if isinstance(trace, Mapping) and trace.get("line"):
                params = record.get("params") or {}
                where = " ".join(f"{k}={v}" for k, v in params.items())
                name = f"{record['scenario']} {record['metric']}"
                yield (f"{name} [{where}]" if where else name), trace


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
