# SPDX-License-Identifier: Apache-2.0
"""The HTML report: one self-contained file (inline CSS and SVG, no script, no
external resource) that opens offline.

`render` is a pure function of the results document and the raw series of its
metrics (keyed by the CSV path recorded in the document).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from rtbench import units
from rtbench.report.common import (
    STATUS_WORDS,
    first_meta,
    metric_display_names,
    problem_logs,
    row_unit,
    status_counts,
    tables,
    verdicts,
)
from rtbench.results import ResultsDocument, ScenarioOutcome
from rtbench.stats import Bucket, MetricSummary

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;
max-width:72rem;padding:0 1rem;color:#1b1f24;line-height:1.4}
h1{font-size:1.6rem}h2{font-size:1.3rem;margin-top:2.2rem;border-bottom:1px solid #ccd}
h3{font-size:1.05rem;margin-bottom:.3rem}
table{border-collapse:collapse;margin:.4rem 0 1rem}
th,td{border:1px solid #d0d4da;padding:.2rem .5rem;vertical-align:top}
th{background:#f1f3f6;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}
.banner{background:#fde2e1;border:2px solid #c62828;padding:.6rem 1rem;font-weight:bold}
.st-ok,.v-pass{color:#1b7f37}.st-error,.st-timeout,.st-crashed,.v-fail{color:#c62828}
.st-stopped,.st-unsupported,.st-interrupted,.v-inconclusive,.v-unsupported{color:#a15c00}
.st-not_implemented{color:#777}.muted{color:#667}.badge{font-weight:bold}
.charts{display:flex;flex-wrap:wrap;gap:1rem}figure{margin:0}
figcaption{font-size:.85rem;max-width:460px}svg{background:#fafbfc;border:1px solid #e3e6ea}
details{margin:.5rem 0}code{font-size:.9em}
"""

_HIST_W, _HIST_H = 460, 200
_SERIES_W, _SERIES_H = 460, 200
_PAD_L, _PAD_B, _PAD_T, _PAD_R = 56, 30, 12, 12
_MAX_COLUMNS = 400


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def _kv_table(rows: Sequence[tuple[str, Any]]) -> str:
    body = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows)
    return f"<table>{body}</table>"


def _flatten(prefix: str, value: Any, out: list[tuple[str, Any]]) -> None:
    if isinstance(value, Mapping):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
        for i, v in enumerate(value):
            _flatten(f"{prefix}[{i}]", v, out)
    elif isinstance(value, list):
        out.append((prefix, ", ".join(str(v) for v in value)))
    else:
        out.append((prefix, "" if value is None else value))


def render(doc: ResultsDocument, series: Mapping[str, Sequence[float]]) -> str:
    """The report as HTML text; `series` maps a samples CSV path to its values."""
    run = doc.run
    parts: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>rtbench report {_e(run.id)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>rtbench evaluation report: {_e(run.id)}</h1>",
    ]
    if not run.realtime:
        parts.append(
            '<p class="banner">NOT REAL-TIME: the core ran without a real-time scheduling '
            "policy. These numbers do not show what the system can do.</p>"
        )
    if not run.complete:
        why = "interrupted" if run.interrupted else "did not finish"
        parts.append(f'<p class="banner">Incomplete run ({why}).</p>')
    parts.append(_run_section(doc))
    parts.append(_host_section(doc))
    parts.append(_overview_section(doc))
    for outcome in doc.scenarios:
        if outcome.status == "not_implemented":
            continue
        parts.append(_scenario_section(outcome, series))
    missing = [o for o in doc.scenarios if o.status == "not_implemented"]
    if missing:
        items = "".join(
            f"<li><code>{_e(o.name)}</code> {_e(_labels(o))} {_e(o.summary or '')}</li>"
            for o in missing
        )
        parts.append(f"<h2>Not implemented in this build</h2><ul>{items}</ul>")
    parts.append(
        f'<p class="muted">Written by rtbench {_e(doc.rtbench_version)}; '
        "results schema version 1.</p></body></html>"
    )
    return "\n".join(parts) + "\n"


def _labels(outcome: ScenarioOutcome) -> str:
    return ", ".join(sorted({i.label for i in outcome.ids if i.label}))


def _run_section(doc: ResultsDocument) -> str:
    run = doc.run
    rows: list[tuple[str, Any]] = [
        ("profile", run.profile),
        ("measurement CPU", run.cpu),
        ("target", run.target),
        ("started", run.started),
        ("finished", run.finished or "-"),
        ("complete", "yes" if run.complete else "no"),
        ("real-time", "yes" if run.realtime else "NO"),
        ("patterns", " ".join(run.patterns) or "(all)"),
        ("command", " ".join(run.command_line)),
    ]
    if run.options.get("set"):
        rows.append(("options", json.dumps(run.options["set"])))
    html = "<h2>Run</h2>" + _kv_table(rows)
    if doc.calibration is not None:
        cal = doc.calibration
        hz = float(cal.counter["hz"])
        html += "<h3>Calibration</h3>" + _kv_table(
            [
                ("counter", cal.counter.get("name")),
                ("frequency", f"{hz:,.0f} Hz ({1e9 / hz:.3f} ns per tick)"),
                ("how measured", cal.counter.get("note") or "-"),
                (
                    "timestamp overhead",
                    f"{cal.overhead_ticks} ticks = {units.format_duration(cal.overhead_ns)} "
                    "(subtracted from every sample)",
                ),
            ]
        )
    changes = doc.settings.get("changes", [])
    skipped = doc.settings.get("skipped", [])
    if changes or skipped:
        body = "".join(
            f"<tr><td>{_e(c.get('setting'))}</td><td>{_e(c.get('original'))}</td>"
            f"<td>{_e(c.get('applied'))}</td><td>{_e(c.get('restored'))}</td>"
            f"<td>{_e(c.get('note') or '')}</td></tr>"
            for c in changes
        )
        body += "".join(
            f"<tr><td>{_e(k.get('setting'))}</td><td colspan=3>not changed</td>"
            f"<td>{_e(k.get('reason'))}</td></tr>"
            for k in skipped
        )
        html += (
            "<h3>Host settings changed for the run</h3><table><tr><th>setting</th>"
            "<th>original</th><th>during the run</th><th>restored</th><th>note</th></tr>"
            f"{body}</table>"
        )
    return html


def _host_section(doc: ResultsDocument) -> str:
    html = "<h2>System</h2>"
    meta = first_meta(doc)
    if meta is not None:
        build = meta.get("build") or {}
        counter = meta["counter"]
        html += _kv_table(
            [
                ("operating system", f"{meta['os']} {meta['os_release']}"),
                ("architecture", meta["arch"]),
                ("C library", meta.get("libc") or "-"),
                ("port", meta["port"]),
                ("rtbench-core", meta["core_version"]),
                ("compiler / build", f"{build.get('compiler', '-')} {build.get('type', '')}"),
                ("counter", f"{counter['name']} at {float(counter['hz']):,.0f} Hz"),
                ("interrupt source", meta.get("irq_source") or "-"),
                ("capabilities", ", ".join(meta["caps"])),
                ("degraded", meta["degraded"] or "no"),
            ]
        )
    if doc.caveats:
        items = "".join(
            f"<li><b>{_e(c.get('severity', ''))}</b>: {_e(c.get('message', ''))} "
            f"<i>{_e(c.get('advice', ''))}</i></li>"
            for c in doc.caveats
        )
        html += f"<h3>Caveats</h3><ul>{items}</ul>"
    flat: list[tuple[str, Any]] = []
    _flatten("", doc.host, flat)
    if flat:
        html += "<details><summary>Host snapshot</summary>" + _kv_table(flat) + "</details>"
    return html


def _overview_section(doc: ResultsDocument) -> str:
    counts = status_counts(doc)
    summary = ", ".join(f"{n} {STATUS_WORDS.get(s, s)}" for s, n in counts.items())
    rows = "".join(
        f"<tr><td><a href='#{_e(o.name)}'><code>{_e(o.name)}</code></a></td>"
        f"<td>{_e(_labels(o))}</td>"
        f"<td class='st-{_e(o.status)}'>{_e(STATUS_WORDS.get(o.status, o.status))}</td>"
        f"<td class='n'>{_e(units.format_seconds(o.elapsed_s))}</td>"
        f"<td>{_e(o.reason or '')}</td></tr>"
        for o in doc.scenarios
        if o.status != "not_implemented"
    )
    return (
        f"<h2>Overview</h2><p>{_e(summary)}</p><table><tr><th>scenario</th><th>labels</th>"
        f"<th>status</th><th>time</th><th>reason</th></tr>{rows}</table>"
    )


def _scenario_section(outcome: ScenarioOutcome, series: Mapping[str, Sequence[float]]) -> str:
    labels = _labels(outcome)
    parts = [
        f"<h2 id='{_e(outcome.name)}'>{_e(outcome.name)}"
        + (f" <span class='muted'>{_e(labels)}</span>" if labels else "")
        + "</h2>",
        f"<p>{_e(outcome.summary or '')} Status: "
        f"<span class='badge st-{_e(outcome.status)}'>"
        f"{_e(STATUS_WORDS.get(outcome.status, outcome.status))}</span>"
        + (f" ({_e(outcome.reason)})" if outcome.reason else "")
        + f", {_e(units.format_seconds(outcome.elapsed_s))}.</p>",
    ]
    logs = problem_logs(outcome) + list(outcome.errors)
    if logs:
        parts.append("<ul>" + "".join(f"<li>{_e(line)}</li>" for line in logs) + "</ul>")
    if outcome.status == "crashed" and outcome.stderr_tail.strip():
        parts.append(
            "<details><summary>error output</summary><pre>"
            f"{_e(outcome.stderr_tail)}</pre></details>"
        )
    metrics = outcome.metrics()
    for m, name in zip(metrics, metric_display_names(outcome, metrics), strict=True):
        parts.append(_metric_block(outcome, m, name, series))
    for v in verdicts(outcome):
        evidence = "".join(f"<li>{_e(e)}</li>" for e in v.evidence)
        control = "".join(f"<li>{_e(e)}</li>" for e in v.control_evidence)
        parts.append(
            f"<h3>Verdict {_e(v.scenario)} {_e(v.label or '')}: {_e(v.check)}</h3>"
            f"<p><span class='badge v-{_e(v.outcome)}'>{_e(v.outcome.upper())}</span> "
            f"{_e(v.reason)}</p><ul>{evidence}</ul>"
            f"<p>{_e(v.control_sentence)}</p><ul>{control}</ul>"
        )
    for t in tables(outcome):
        head = "".join(f"<th>{_e(h)}</th>" for h in t.headers)
        body = "".join(
            "<tr>"
            + "".join(
                f"<td class='n'>{_e(c)}</td>" if t.numeric[i] else f"<td>{_e(c)}</td>"
                for i, c in enumerate(row)
            )
            + "</tr>"
            for row in t.rows
        )
        parts.append(f"<h3>{_e(t.title)}</h3><table><tr>{head}</tr>{body}</table>")
    return "\n".join(parts)


def _metric_block(
    outcome: ScenarioOutcome,
    m: MetricSummary,
    name: str,
    series: Mapping[str, Sequence[float]],
) -> str:
    unit_name, div = row_unit(m)

    def cell(value: float | None) -> str:
        return f"<td class='n'>{_e(units.format_in(value, m.unit, div))}</td>"

    headers = ["samples", "min", "mean", "p50", "p90", "p99", "p99.9", "max", "stddev"]
    headers += ["warm-up", "invalid", "clamped"]
    row = (
        f"<td class='n'>{m.count:,}</td>"
        + "".join(cell(v) for v in (m.min, m.mean, m.p50, m.p90, m.p99, m.p99_9, m.max))
        + cell(m.stddev)
        + f"<td class='n'>{m.warmup:,}</td><td class='n'>{m.invalid:,}</td>"
        f"<td class='n'>{m.clamped:,}</td>"
    )
    title = m.title or m.metric
    params = ", ".join(f"{k}={v}" for k, v in m.params.items())
    html = (
        f"<h3>{_e(name)}: {_e(title)}</h3>"
        + (f"<p class='muted'>parameters: {_e(params)}</p>" if params else "")
        + f"<p class='muted'>values in {_e(unit_name)}</p>"
        + "<table><tr>"
        + "".join(f"<th>{_e(h)}</th>" for h in headers)
        + f"</tr><tr>{row}</tr></table>"
    )
    charts = []
    if m.histogram:
        charts.append(
            _figure(
                histogram_svg(m.histogram, m.unit, div, unit_name),
                f"Histogram of all {m.count:,} samples (logarithmic counts).",
            )
        )
    sf = outcome.samples_for(m)
    values = series.get(sf.path, ()) if sf is not None else ()
    if values:
        which = "every sample" if len(values) == m.count else f"the first {len(values):,} samples"
        charts.append(
            _figure(
                series_svg(values, m.unit, div, unit_name),
                f"Value of {which} in order (raw data: {sf.path if sf else ''}).",
            )
        )
    if charts:
        html += "<div class='charts'>" + "".join(charts) + "</div>"
    return html


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption class='muted'>{_e(caption)}</figcaption></figure>"


def _nice_label(value: float, unit: str, div: float) -> str:
    return units.format_in(value, unit, div)


def histogram_svg(buckets: Sequence[Bucket], unit: str, div: float, unit_name: str) -> str:
    """Histogram with logarithmic counts (and a logarithmic value axis for wide ranges)."""
    lo = min(b.lower for b in buckets)
    hi = max(b.upper for b in buckets)
    log_x = lo > 0 and hi / lo > 20
    nbins = 60

    def pos(v: float) -> float:
        if hi <= lo:
            return 0.5
        if log_x:
            return (math.log(max(v, lo)) - math.log(lo)) / (math.log(hi) - math.log(lo))
        return (v - lo) / (hi - lo)

    bins = [0] * nbins
    for b in buckets:
        mid = (b.lower + b.upper) / 2
        bins[min(int(pos(mid) * nbins), nbins - 1)] += b.count
    top = max(bins)
    plot_w = _HIST_W - _PAD_L - _PAD_R
    plot_h = _HIST_H - _PAD_T - _PAD_B
    bar_w = plot_w / nbins
    rects = []
    for i, count in enumerate(bins):
        if count == 0:
            continue
        h = plot_h * math.log10(count + 1) / math.log10(top + 1)
        x = _PAD_L + i * bar_w
        y = _PAD_T + plot_h - h
        rects.append(
            f"<rect x='{x:.1f}' y='{y:.1f}' width='{max(bar_w - 0.5, 0.5):.1f}' "
            f"height='{h:.1f}' fill='#3b6fb6'><title>{count:,} samples</title></rect>"
        )
    axis = _axes(
        _HIST_W,
        _HIST_H,
        f"{_nice_label(lo, unit, div)}",
        f"{_nice_label(hi, unit, div)} {unit_name}" + (" (log scale)" if log_x else ""),
        f"{top:,}",
        "1",
    )
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{_HIST_W}' height='{_HIST_H}' "
        f"role='img'><title>Histogram, logarithmic counts</title>{axis}{''.join(rects)}"
        f"<text x='{_PAD_L}' y='{_PAD_T - 2}' font-size='10' fill='#555'>"
        "samples (log)</text></svg>"
    )


def series_svg(values: Sequence[float], unit: str, div: float, unit_name: str) -> str:
    """Per-sample values in order; long series are drawn as min-max columns so every
    spike stays visible."""
    n = len(values)
    vmin, vmax = min(values), max(values)
    span = vmax - vmin or 1.0
    plot_w = _SERIES_W - _PAD_L - _PAD_R
    plot_h = _SERIES_H - _PAD_T - _PAD_B

    def y(v: float) -> float:
        return _PAD_T + plot_h - (v - vmin) / span * plot_h

    marks = []
    if n <= _MAX_COLUMNS:
        for i, v in enumerate(values):
            x = _PAD_L + (i + 0.5) / n * plot_w
            marks.append(f"<circle cx='{x:.1f}' cy='{y(v):.1f}' r='1.3' fill='#3b6fb6'/>")
    else:
        per = n / _MAX_COLUMNS
        for c in range(_MAX_COLUMNS):
            chunk = values[int(c * per) : max(int((c + 1) * per), int(c * per) + 1)]
            x = _PAD_L + (c + 0.5) / _MAX_COLUMNS * plot_w
            top, bottom = y(max(chunk)), y(min(chunk))
            marks.append(
                f"<line x1='{x:.1f}' y1='{top:.1f}' x2='{x:.1f}' "
                f"y2='{max(bottom, top + 1):.1f}' stroke='#3b6fb6' stroke-width='1'/>"
            )
    axis = _axes(
        _SERIES_W,
        _SERIES_H,
        "0",
        f"sample {n - 1:,}",
        f"{_nice_label(vmax, unit, div)} {unit_name}",
        f"{_nice_label(vmin, unit, div)}",
    )
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{_SERIES_W}' height='{_SERIES_H}' "
        f"role='img'><title>Value of each sample in order</title>{axis}{''.join(marks)}</svg>"
    )


def _axes(width: int, height: int, x_lo: str, x_hi: str, y_hi: str, y_lo: str) -> str:
    x0, y0 = _PAD_L, height - _PAD_B
    x1, y1 = width - _PAD_R, _PAD_T
    return (
        f"<line x1='{x0}' y1='{y0}' x2='{x1}' y2='{y0}' stroke='#888'/>"
        f"<line x1='{x0}' y1='{y0}' x2='{x0}' y2='{y1}' stroke='#888'/>"
        f"<text x='{x0}' y='{y0 + 14}' font-size='10' fill='#333'>{_e(x_lo)}</text>"
        f"<text x='{x1}' y='{y0 + 14}' font-size='10' fill='#333' "
        f"text-anchor='end'>{_e(x_hi)}</text>"
        f"<text x='{x0 - 4}' y='{y1 + 8}' font-size='10' fill='#333' "
        f"text-anchor='end'>{_e(y_hi)}</text>"
        f"<text x='{x0 - 4}' y='{y0}' font-size='10' fill='#333' "
        f"text-anchor='end'>{_e(y_lo)}</text>"
    )
