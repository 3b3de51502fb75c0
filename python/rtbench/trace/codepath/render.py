# SPDX-License-Identifier: Apache-2.0
"""The code paths of a run traced on an emulated board, as text and HTML.

The terminal summary gives each metric's typical and worst path in a line
each; `rtbench show --details` adds the typical sample's whole call sequence;
the HTML report puts, under each metric, the functions of the typical and the
worst sample side by side (entries and instructions) and the sequence.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator, Mapping
from html import escape
from typing import Any

from rtbench.model.results import ResultsDocument
from rtbench.report.page import table
from rtbench.trace.kernel.render import metric_name

KEY = "path_trace"
SEQUENCE_LIMIT = 200  # functions of a sequence shown before "..."
TERMINAL_METRICS = 12  # metrics whose paths the terminal summary shows


def traced(doc: ResultsDocument) -> Mapping[str, Any] | None:
    found = (doc.run.conditions or {}).get(KEY)
    return found if isinstance(found, Mapping) and found.get("traced") else None


def paths(doc: ResultsDocument) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(metric name, its `path` object) for every result record that has one."""
    for outcome in doc.scenarios:
        for record in outcome.of_type("result"):
            found = record.get("path")
            if isinstance(found, Mapping):
                yield metric_name(record), found


def _how(condition: Mapping[str, Any]) -> str:
    if condition.get("exact_bounds"):
        return f"exact instruction counts, -icount shift={condition.get('icount_shift')}"
    return "instruction counts to a block at each end; --deterministic makes them exact"


def terminal_lines(
    doc: ResultsDocument, width: int, bold: Callable[[str], str] = lambda t: t
) -> list[str]:
    """A titled block, or nothing for a run without code paths."""
    condition = traced(doc)
    if condition is None:
        return []
    lines = ["", bold(f"Code path of the kept samples (QEMU execution log; {_how(condition)})")]
    # two lines at most each for the typical and the worst path of the first
    # TERMINAL_METRICS metrics: the rest is in --details
    found_all = list(paths(doc))
    for name, found in found_all[:TERMINAL_METRICS]:
        for text in (found.get("line"), found.get("worst_line")):
            if text:
                lines += textwrap.wrap(
                    f"{name}: {text}",
                    width=max(width, 40),
                    initial_indent="  ",
                    subsequent_indent="      ",
                    break_on_hyphens=False,
                    max_lines=2,
                    placeholder=" …",
                )
    if len(lines) == 2:
        lines.append("  no metric kept samples with counter readings to find in the log")
    more = len(found_all) - TERMINAL_METRICS
    if more > 0:
        lines.append(f"  and {more} more metrics (rtbench show --details)")
    return lines


def _sequence(sample: Mapping[str, Any]) -> str:
    seq = list(sample.get("sequence") or [])
    shown = " > ".join(seq[:SEQUENCE_LIMIT])
    more = len(seq) - SEQUENCE_LIMIT
    return shown + (f" > ... ({more} more)" if more > 0 else "")


def detail_lines(doc: ResultsDocument, bold: Callable[[str], str] = lambda t: t) -> list[str]:
    """`rtbench show --details`: each metric's lines and its typical call sequence."""
    condition = traced(doc)
    if condition is None:
        return []
    lines = ["", bold(f"Code path of the kept samples ({_how(condition)})")]
    for name, found in paths(doc):
        lines.append(f"  {name} ({found.get('found')} of {found.get('kept')} kept samples found)")
        lines += [f"    {t}" for t in (found.get("line"), found.get("worst_line")) if t]
        typical = found.get("typical")
        if isinstance(typical, Mapping) and typical.get("sequence"):
            lines += textwrap.wrap(
                "sequence: " + _sequence(typical),
                width=100,
                initial_indent="    ",
                subsequent_indent="      ",
                break_on_hyphens=False,
            )
    return lines


def condition_rows(doc: ResultsDocument) -> list[tuple[str, str]]:
    """Key/value rows saying how the code paths were traced (the report's run details)."""
    condition = traced(doc)
    if condition is None:
        return []
    units = [u for u in (condition.get("units") or {}).values() if isinstance(u, Mapping)]
    kept = sum(int(u.get("kept_samples") or 0) for u in units)
    found = sum(int(u.get("found") or 0) for u in units)
    capped = [name for name, u in (condition.get("units") or {}).items() if u.get("capped")]
    return [
        ("code path trace", f"QEMU execution log, {_how(condition)}"),
        ("image symbols", f"{condition.get('functions')} functions of {condition.get('image')}"),
        ("kept samples found", f"{found} of {kept}"
         + (f"; log switched off early in {', '.join(capped)}" if capped else "")),
    ]  # fmt: skip


def metric_html(record: Mapping[str, Any]) -> str:
    """The report's block under one metric: typical and worst path side by side."""
    found = record.get("path")
    if not isinstance(found, Mapping):
        return ""
    typical, worst = found.get("typical"), found.get("worst")
    if not isinstance(typical, Mapping):
        return f'<p class="small muted">Code path: {escape(str(found.get("line")))}</p>'
    worst = worst if isinstance(worst, Mapping) else None
    names = list(typical.get("instructions_by_function") or {})
    for name in (worst or {}).get("instructions_by_function") or {}:
        if name not in names:
            names.append(name)
    shown = [s for s in (typical, worst) if s is not None]

    def cells(s: Mapping[str, Any], name: str) -> list[str]:
        calls = (s.get("calls") or {}).get(name, 0)
        insns = (s.get("instructions_by_function") or {}).get(name, 0)
        return [f"{calls:,}" if calls else "", f"{insns:,}" if insns else ""]

    headers = ["function", "entries", "instructions"]
    if worst is not None:
        headers += ["entries (worst)", "instructions (worst)"]
    rows = [[n, *[c for s in shown for c in cells(s, n)]] for n in names]
    rows.append(
        [
            "total",
            *[
                c
                for s in shown
                for c in (f"{sum((s.get('calls') or {}).values()):,}", f"{s['instructions']:,}")
            ],
        ]
    )
    lines = "".join(
        f"<li>{escape(str(t))}</li>" for t in (found.get("line"), found.get("worst_line")) if t
    )
    sequence = _sequence(typical)
    return (
        "<details><summary>Code path of the typical and the worst sample</summary>"
        f"<ul>{lines}</ul>"
        + table(headers, rows, numeric=[False] + [True] * (len(headers) - 1))
        + (
            f'<p class="small">Functions entered by the typical sample, in order: '
            f"{escape(sequence)}</p>"
            if sequence
            else ""
        )
        + "</details>"
    )
