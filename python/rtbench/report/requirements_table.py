# SPDX-License-Identifier: Apache-2.0
"""The requirements table and the "under load" line: the first lines of the
terminal summary and of the HTML report."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rtbench.model import units
from rtbench.model.conditions import load_summary
from rtbench.report.page import esc

_MARK = {"met": "met", "missed": "MISSED", "not measured": "not measured"}


def _value(entry: Mapping[str, Any], value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if entry.get("unit") == "ns":
        return units.format_duration(float(value))
    return units.format_count(float(value))


def _params(params: Mapping[str, Any]) -> str:
    if not params:
        return ""
    if "cpu" in params:  # per-CPU rows: the CPU says which
        return f" on CPU {params['cpu']}"
    return " [" + ", ".join(f"{k}={v}" for k, v in params.items()) + "]"


def row_text(entry: Mapping[str, Any], row: Mapping[str, Any]) -> tuple[str, str, str]:
    """(what, value, status with by how much and the worst sample)."""
    what = f"{row.get('what', '')}{_params(row.get('params') or {})}"
    if entry.get("stat"):
        what += f" {entry['stat']}"
    status = _MARK.get(str(row.get("status")), str(row.get("status")))
    margin = row.get("margin")
    if row.get("status") == "missed" and isinstance(margin, (int, float)):
        status += f" by {_value(entry, margin)}"
    elif row.get("status") == "met" and isinstance(margin, (int, float)) and margin < 0:
        status += f" ({_value(entry, -margin)} to spare)"
    worst = row.get("worst")
    if isinstance(worst, Mapping) and worst.get("index") is not None:
        status += f"; worst: sample {worst['index']:,}"
        if worst.get("at_s") is not None:
            status += f" at {units.format_seconds(float(worst['at_s']))}"
    if row.get("note") and row.get("status") != "met":
        status += f" ({row['note']})"
    return what, _value(entry, row.get("value")), status


def headline(evaluated: Sequence[Mapping[str, Any]]) -> str:
    n = len(evaluated)
    missed = sum(1 for e in evaluated if e.get("status") == "missed")
    unknown = sum(1 for e in evaluated if e.get("status") == "not measured")
    met = n - missed - unknown
    text = f"Requirements: {met} of {n} met"
    if missed:
        text += f", {missed} MISSED"
    if unknown:
        text += f", {unknown} not measured"
    return text


def terminal_lines(evaluated: Sequence[Mapping[str, Any]]) -> list[str]:
    """The requirements table for the terminal summary ([] without requirements)."""
    if not evaluated:
        return []
    lines = [headline(evaluated)]
    for e in evaluated:
        lines.append(f"  {e.get('expr')}: {_MARK.get(str(e.get('status')), e.get('status'))}")
        for row in e.get("rows", []):
            what, value, status = row_text(e, row)
            lines.append(f"    {what}: {value}, {status}")
        if e.get("note"):
            lines.append(f"    {e['note']}")
    return lines


def html_section(evaluated: Sequence[Mapping[str, Any]]) -> str:
    if not evaluated:
        return ""
    cells = []
    for e in evaluated:
        rows = e.get("rows") or [{"what": e.get("subject"), "status": e.get("status"),
                                  "note": e.get("note")}]  # fmt: skip
        for row in rows:
            what, value, status = row_text(e, row)
            cls = "bad" if row.get("status") == "missed" else ""
            cells.append(
                f"<tr><td><code>{esc(str(e.get('expr')))}</code></td><td>{esc(what)}</td>"
                f'<td class="num">{esc(value)}</td><td class="{cls}">{esc(status)}</td></tr>'
            )
    return (
        f'<section id="requirements"><h2>{esc(headline(evaluated))}</h2>'
        "<table><thead><tr><th>requirement</th><th>measured</th><th>value</th>"
        "<th>status</th></tr></thead><tbody>" + "".join(cells) + "</tbody></table></section>"
    )


def conditions_line(doc: Any) -> str | None:
    """`under load: ...; per-CPU threads on CPUs 0,1; 60 s per timer/noise scenario`,
    or None for a run with none of these."""
    bits = []
    under = load_summary(dict(doc.run.conditions or {}))
    if under:
        bits.append(under)
    options = doc.run.options
    if options.get("cpus"):
        cpus = ",".join(str(c) for c in options["cpus"])
        bits.append(
            f"timer/noise threads on CPUs {cpus}, every other scenario on CPU {doc.run.cpu}"
        )
    if options.get("duration_ms"):
        bits.append(
            f"timer/noise measured {units.format_seconds(options['duration_ms'] / 1000)} each"
        )
    length = options.get("length")
    if isinstance(length, dict) and isinstance(length.get("ppm"), int):
        requested = units.format_seconds(float(length.get("requested_ms") or 0) / 1000)
        bits.append(
            f"{doc.run.profile} scaled to about {requested} "
            f"(lengths x{length['ppm'] / 1e6:.4g} of the profile's)"
        )
    if options.get("break"):
        bits.append("--break: stops at the first violation")
    return "; ".join(bits) if bits else None


def top_lines(doc: Any) -> list[str]:
    """The lines every terminal report starts with after its header."""
    lines: list[str] = []
    line = conditions_line(doc)
    if line:
        lines.append(line)
    table = terminal_lines(doc.requirements)
    if table:
        lines += ["", *table]
    return lines


def html_top(doc: Any) -> str:
    line = conditions_line(doc)
    head = f'<p class="conditions"><strong>{esc(line)}</strong></p>' if line else ""
    return head + html_section(doc.requirements)
