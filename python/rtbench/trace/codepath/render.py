# SPDX-License-Identifier: Apache-2.0
"""The code paths of a run traced on an emulated board, as text and HTML.

The terminal summary gives each metric's typical and worst path in a line
each; `rtbench show --details` adds the typical sample's split by whose code
ran (kernel, port, measurement), the measurement's instructions beside the
subtracted timestamp overhead, the port's wrappers and the C runtime's
functions, and the whole call sequence; the HTML report puts, under each
metric, the same split and the functions of the typical and the worst sample
side by side (whose code, entries and instructions) and the sequence; the
Markdown report has a code-path section with the split.
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


def shares_line(sample: Mapping[str, Any]) -> str:
    """`kernel 39 (61 %), port 8 (13 %), measurement 17 (27 %) of 64 instructions`, ""
    for a sample recorded without the split (older results)."""
    shares = sample.get("shares")
    total = sample.get("instructions")
    if not isinstance(shares, Mapping) or not isinstance(total, int):
        return ""
    parts = [
        f"{k} {int(n):,} ({100 * int(n) / total:.0f} %)" if total else f"{k} {int(n):,}"
        for k, n in shares.items()
    ]
    return f"{', '.join(parts)} of {total:,} instructions"


def wrappers_text(sample: Mapping[str, Any]) -> str:
    """`rtb_port_sem_wait 8, ...`: the port's own functions on the path."""
    found = sample.get("port_wrappers")
    if not isinstance(found, Mapping):
        return ""
    return ", ".join(f"{name} {int(n):,}" for name, n in found.items()) or "none"


def libc_text(sample: Mapping[str, Any]) -> str:
    """`memcpy 12 (port)`: the C runtime's functions and the share each counted in."""
    found = sample.get("libc")
    if not isinstance(found, Mapping):
        return ""
    return ", ".join(
        f"{name} {int(n):,} ({share})"
        for name, per in found.items()
        for share, n in (per or {}).items()
    )


def split_lines(found: Mapping[str, Any]) -> list[str]:
    """A metric's path split by whose code ran: its typical sample's shares, the
    measurement beside the subtracted overhead, the port's wrappers, the C runtime."""
    typical = found.get("typical")
    if not isinstance(typical, Mapping) or not shares_line(typical):
        return []
    lines = [f"whose code (typical): {shares_line(typical)}"]
    worst = found.get("worst")
    if isinstance(worst, Mapping) and shares_line(worst) and worst is not typical:
        lines.append(f"whose code (worst): {shares_line(worst)}")
    over = found.get("overhead")
    if isinstance(over, Mapping) and over.get("line"):
        lines.append(str(over["line"]))
    lines.append(f"port wrappers: {wrappers_text(typical)}")
    runtime = libc_text(typical)
    if runtime:
        lines.append(f"C runtime, counted in its caller's share: {runtime}")
    return lines


def detail_lines(doc: ResultsDocument, bold: Callable[[str], str] = lambda t: t) -> list[str]:
    """`rtbench show --details`: each metric's lines and its typical call sequence."""
    condition = traced(doc)
    if condition is None:
        return []
    lines = ["", bold(f"Code path of the kept samples ({_how(condition)})")]
    for name, found in paths(doc):
        lines.append(f"  {name} ({found.get('found')} of {found.get('kept')} kept samples found)")
        lines += [f"    {t}" for t in (found.get("line"), found.get("worst_line")) if t]
        lines += [f"    {t}" for t in split_lines(found)]
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

    whose = found.get("whose_code") if isinstance(found.get("whose_code"), Mapping) else {}

    def cells(s: Mapping[str, Any], name: str) -> list[str]:
        calls = (s.get("calls") or {}).get(name, 0)
        insns = (s.get("instructions_by_function") or {}).get(name, 0)
        return [f"{calls:,}" if calls else "", f"{insns:,}" if insns else ""]

    headers = ["function", *(["code"] if whose else []), "entries", "instructions"]
    if worst is not None:
        headers += ["entries (worst)", "instructions (worst)"]
    rows = [
        [n, *([whose.get(n, "")] if whose else []), *[c for s in shown for c in cells(s, n)]]
        for n in names
    ]
    rows.append(
        [
            "total",
            *([""] if whose else []),
            *[
                c
                for s in shown
                for c in (f"{sum((s.get('calls') or {}).values()):,}", f"{s['instructions']:,}")
            ],
        ]
    )
    lines = "".join(
        f"<li>{escape(str(t))}</li>"
        for t in (found.get("line"), found.get("worst_line"), *split_lines(found))
        if t
    )
    sequence = _sequence(typical)
    return (
        "<details><summary>Code path of the typical and the worst sample</summary>"
        f"<ul>{lines}</ul>"
        + table(
            headers,
            rows,
            numeric=[False] * (2 if whose else 1) + [True] * (len(headers) - (2 if whose else 1)),
        )
        + (
            f'<p class="small">Functions entered by the typical sample, in order: '
            f"{escape(sequence)}</p>"
            if sequence
            else ""
        )
        + "</details>"
    )


def markdown_lines(doc: ResultsDocument) -> list[str]:
    """The Markdown report's code-path section: each metric's lines and its split."""
    condition = traced(doc)
    if condition is None:
        return []
    out = ["", "## Code paths", "", f"QEMU execution log, {_how(condition)}.", ""]
    for name, found in paths(doc):
        out.append(f"- `{name}`")
        texts = [found.get("line"), found.get("worst_line"), *split_lines(found)]
        out += [f"  - {t}" for t in texts if t]
    return out
