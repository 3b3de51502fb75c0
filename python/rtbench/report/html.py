# SPDX-License-Identifier: Apache-2.0
"""The HTML evaluation report: one self-contained file (inline CSS and SVG, no
script, no external resource) that opens offline and reads on a phone.

The page leads with the answer: the system, the caveats that matter, every
verdict in one table and one line per measured metric (median, p99, max and
where the max sits relative to the median). Per-family sections follow with
each metric's statistics and diagrams, then the run's details. Raw samples
stay in the CSV files beside the page; long series are drawn reduced to what
a pixel can show.

`render` is a pure function of the results document and the raw series of its
metrics (keyed by the CSV path recorded in the document).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from rtbench.model import units
from rtbench.model.resolution import Resolution, at_resolution
from rtbench.model.results import ResultsDocument, ScenarioOutcome
from rtbench.model.summary import MetricSummary
from rtbench.model.views import first_meta, verdicts
from rtbench.report import charts
from rtbench.report import requirements_table as req_report
from rtbench.report import svg as svgs
from rtbench.report.common import (
    EMULATED_BANNER,
    STATUS_WORDS,
    SummaryRow,
    all_verdicts,
    anchor,
    by_family,
    checkout_text,
    core_build,
    deterministic,
    emulated,
    family_title,
    format_ratio,
    format_value,
    max_ratio,
    metric_display_names,
    one_line,
    os_config_text,
    p99_ratio,
    problem_logs,
    problem_units,
    response_rows,
    row_unit,
    run_seconds,
    short_caveat,
    status_counts,
    summary_rows,
    sweeps,
    tables,
    unit_labels,
    verdict_counts,
    warning_caveats,
)
from rtbench.report.page import badge, esc, facts, figure, kv_table, shell, table
from rtbench.report.page import charts as chart_row
from rtbench.trace.codepath import render as path_render
from rtbench.trace.kernel import render as trace_render
from rtbench.trace.kernel import timeline as trace_timeline

_LONG_TABLE_ROWS = 16
# A report stays well under half a megabyte, so it opens at once and can be mailed.
PAGE_BUDGET_BYTES = 420_000
_SPARK_SCALE = "spark-scale"
_REASON_WIDTH = 150


def render(doc: ResultsDocument, series: Mapping[str, Sequence[float]]) -> str:
    """The report as HTML text; `series` maps a samples CSV path to its values."""
    run = doc.run
    families = by_family(doc)
    parts: list[str] = [_header(doc), req_report.html_top(doc), _toc(families)]
    if not run.realtime:
        parts.append(
            '<p class="banner">NOT REAL-TIME: the core ran without a real-time scheduling '
            "policy. These numbers do not show what the system can do.</p>"
        )
    if emulated(doc):
        parts.append(f'<p class="banner">{EMULATED_BANNER}</p>')
    fixed = deterministic(doc)
    if fixed is not None:
        parts.append(f'<p class="banner">{esc(fixed)}</p>')
    if not run.complete:
        why = "interrupted" if run.interrupted else "did not finish"
        parts.append(f'<p class="banner">Incomplete run ({why}): only what was measured '
                     "before it stopped is here.</p>")  # fmt: skip
    parts.append(_first_screen(doc))
    tail = [
        _not_implemented(doc),
        _run_section(doc),
        f"<footer>Written by rtbench {esc(doc.rtbench_version)} (results schema version 1). "
        "Raw samples: the CSV files in samples/ beside this page; every record: "
        "results.json.</footer>",
    ]
    # The diagrams take what the page budget leaves: fewer pixel columns per chart
    # when a run has many metrics (the CSV files keep every sample).
    columns = charts.detail(len(summary_rows(doc)))
    while True:
        sections = [_family_section(code, group, series, columns) for code, group in families]
        page = shell(f"rtbench report {run.id}", "\n".join(p for p in parts + sections + tail if p))
        size = len(page.encode())
        if size <= PAGE_BUDGET_BYTES or columns <= charts.MIN_COLUMNS:
            return page
        columns = max(int(columns * PAGE_BUDGET_BYTES / size * 0.9), charts.MIN_COLUMNS)


# ---- the first screen ------------------------------------------------------


def _header(doc: ResultsDocument) -> str:
    run = doc.run
    state = "complete" if run.complete else "INCOMPLETE"
    took = run_seconds(doc)
    bits = [f"run {run.id}", f"profile {run.profile}", f"started {run.started}"]
    if took is not None:
        bits.append(f"took {units.format_seconds(took)}")
    bits.append(state)
    return (
        '<header class="top"><h1>rtbench evaluation report</h1>'
        f'<p class="muted">{esc(" · ".join(bits))}</p></header>'
    )


def _toc(families: Sequence[tuple[str, list[ScenarioOutcome]]]) -> str:
    links = [("verdicts", "Verdicts"), ("summary", "Summary")]
    links += [(f"fam-{code or 'other'}", family_title(code)) for code, _ in families]
    links.append(("run", "Run details"))
    return (
        '<nav class="toc">' + "".join(f'<a href="#{a}">{esc(t)}</a>' for a, t in links) + "</nav>"
    )


def _first_screen(doc: ResultsDocument) -> str:
    lead = (
        f'<div class="lead"><div>{_answer(doc)}{_system_facts(doc)}</div>'
        f"<div>{_responses(doc)}{_caveats(doc)}</div></div>"
    )
    return "\n".join([lead, _problems(doc), _verdict_table(doc), _summary_table(doc)])


def _answer(doc: ResultsDocument) -> str:
    vc = verdict_counts(doc)
    total = sum(vc.values())
    lines = []
    if total:
        order = ("pass", "fail", "inconclusive", "unsupported")
        tally = ", ".join(f"{vc[o]} {o}" for o in order if vc.get(o))
        if vc.get("pass") == total:
            head = "every check passes"
        else:
            head = "not passed: " + ", ".join(
                f"{v.label or v.scenario} {v.check} ({v.outcome})"
                for _o, v in all_verdicts(doc)
                if v.outcome != "pass"
            )
        lines.append(f"<p><b>Behaviour:</b> {total} verdicts, {esc(tally)}; {esc(head)}.</p>")
    rows = summary_rows(doc)
    counts = status_counts(doc)
    ran = sum(n for st, n in counts.items() if st != "not_implemented")
    ok = counts.get("ok", 0)
    text = f"{ok} of {ran} scenarios ended ok"
    if ok < ran:
        text += " (the others are listed below)"
    if rows:
        text += f"; {len(rows)} metrics measured"
    lines.append(f"<p><b>Run:</b> {esc(text)}.</p>")
    warnings = warning_caveats(doc)
    if warnings:
        lines.append(
            f"<p><b>Read with:</b> {len(warnings)} caveats of the host check; they apply to "
            "every figure.</p>"
        )
    return '<div class="answer">' + "".join(lines) + "</div>"


def _responses(doc: ResultsDocument) -> str:
    found = []
    for what, r in response_rows(doc):
        m = r.metric
        found.append(
            [esc(r.label), f'<a href="#{r.anchor}">{esc(what)}</a>']
            + [esc(format_value(m, v)) for v in (m.p50, m.p99, m.p99_9, m.max)]
        )
    if not found:
        return ""
    return (
        '<section id="responses"><h3>Response times</h3>'
        '<p class="small muted">From an event to the thread that waits for it: what a '
        "deadline depends on.</p>"
        + table(["test", "path", "median", "p99", "p99.9", "max"], found,
                numeric=[False, False, True, True, True, True], raw=True)
        + "</section>"
    )  # fmt: skip


def _host(doc: ResultsDocument, *path: str) -> Any:
    value: Any = doc.host
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _system_facts(doc: ResultsDocument) -> str:
    meta = first_meta(doc)
    items: list[tuple[str, str]] = []
    hostname = _host(doc, "hostname")
    if hostname:
        items.append(("host", str(hostname)))
    release = _host(doc, "kernel", "release")
    os_name = _host(doc, "kernel", "system") or (meta or {}).get("os")
    kernel = f"{os_name or ''} {release or (meta or {}).get('os_release', '')}".strip()
    model = _host(doc, "kernel", "preempt_model")
    rt = _host(doc, "kernel", "preempt_rt")
    if model or rt is not None:
        kernel += f" (preemption {model or '?'}{', PREEMPT_RT' if rt else ', not PREEMPT_RT'})"
    checkout = checkout_text(_host(doc, "kernel") or {})
    if checkout is not None:
        kernel += f", {checkout}"
    if kernel:
        items.append(("kernel", kernel))
    config = os_config_text(meta)
    if config is not None:
        items.append(("configuration", config))
    cpu = _host(doc, "cpus", "model")
    online = _host(doc, "cpus", "count_online")
    arch = (meta or {}).get("arch") or _host(doc, "kernel", "machine")
    cpu_text = ", ".join(str(p) for p in (cpu, arch) if p)
    if online:
        cpu_text += f", {online} CPUs"
    if cpu_text:
        items.append(("CPU", cpu_text))
    isolated = _host(doc, "measurement_cpu", "isolated")
    where = f"CPU {doc.run.cpu}" + {True: ", isolated", False: ", not isolated"}.get(isolated, "")
    items.append(("measured on", where))
    counter = doc.calibration.counter if doc.calibration else (meta or {}).get("counter")
    if counter:
        hz = float(counter.get("hz") or 0)
        text = str(counter.get("name", "?"))
        if hz:
            text += f", {hz / 1e6:,.0f} MHz: {Resolution.of_counter(counter).describe()}"
        items.append(("counter", text))
    if doc.calibration is not None:
        items.append(("timestamp overhead", units.format_duration(doc.calibration.overhead_ns)))
    vm = _host(doc, "virtualization", "vm")
    if vm is not None:
        kind = _host(doc, "virtualization", "type")
        items.append(("virtual machine", f"yes ({kind})" if vm and kind else "yes" if vm else "no"))
    if meta is not None:
        items.append(
            ("software", f"{meta.get('libc') or '?'}, port {meta['port']}, "
                         f"core {meta['core_version']}")
        )  # fmt: skip
        built = core_build(meta)
        if built is not None:
            items.append(("core", built))
    items.append(("real-time", "yes" if doc.run.realtime else "NO"))
    return '<section id="system"><h3>System</h3>' + facts(items) + "</section>"


def _caveats(doc: ResultsDocument) -> str:
    warnings = warning_caveats(doc)
    if not warnings:
        return ""
    items = "".join(
        "<li><details><summary>"
        f"{esc(short_caveat(c))}</summary><p>{esc(c.get('message', ''))}</p>"
        f"<p><i>{esc(c.get('advice', ''))}</i></p></details></li>"
        for c in warnings
    )
    return (
        f'<section id="caveats"><h3>Caveats that matter ({len(warnings)})</h3>'
        f'<ul class="caveats">{items}</ul></section>'
    )


def _problems(doc: ResultsDocument) -> str:
    bad = problem_units(doc)
    if not bad:
        return ""
    rows = [
        [
            f'<a href="#{anchor(o.name)}"><code>{esc(o.name)}</code></a>',
            f'<span class="st-{esc(o.status)}">{esc(STATUS_WORDS.get(o.status, o.status))}</span>',
            esc(one_line(o.reason or "no reason given", _REASON_WIDTH)),
        ]
        for o in bad
    ]
    return (
        '<section id="problems"><h3>Scenarios that did not end ok</h3>'
        + table(["scenario", "status", "reason"], rows, raw=True)
        + "</section>"
    )


def _verdict_table(doc: ResultsDocument) -> str:
    found = all_verdicts(doc)
    if not found:
        return ""
    rows = []
    for outcome, v in found:
        control = {"caught": "caught", "missed": "MISSED", "not_run": "not run"}.get(
            v.control_outcome, v.control_outcome
        )
        rows.append(
            "<tr>"
            f"<td>{badge(v.outcome.upper(), v.outcome)}</td>"
            f'<td class="nw"><a href="#{anchor(outcome.name)}">{esc(v.label or v.scenario)}</a>'
            f"</td><td><code>{esc(v.check)}</code></td>"
            f'<td data-k="control">{badge(control, v.control_outcome)}</td>'
            f'<td class="full">{esc(one_line(v.reason, _REASON_WIDTH))}</td></tr>'
        )
    head = "<tr><th>outcome</th><th>test</th><th>check</th><th>control</th><th>reason</th></tr>"
    return (
        '<section id="verdicts"><h2>Verdicts</h2>'
        '<p class="small muted">A pass counts only when the negative control (the same check '
        "on a planted failure) was caught; otherwise the verdict is inconclusive.</p>"
        f'<div class="scroll"><table class="tbl stack">{head}{"".join(rows)}</table></div>'
        "</section>"
    )


def _summary_table(doc: ResultsDocument) -> str:
    rows = summary_rows(doc)
    if not rows:
        return ""
    decades = charts.ratio_decades([max_ratio(r.metric) for r in rows])
    resolution = (
        Resolution.of_counter(doc.calibration.counter) if doc.calibration is not None else None
    )
    out: list[str] = []
    family = None
    for r in rows:
        if r.family != family:
            family = r.family
            out.append(
                f'<tr class="grp"><td colspan="8"><a href="#fam-{esc(family or "other")}">'
                f"{esc(family_title(family))}</a></td></tr>"
            )
        out.append(_summary_line(r, decades, resolution))
    head = (
        '<tr><th>test</th><th>metric</th><th class="narrow-hide">samples</th>'
        "<th>median</th><th>p99</th><th>p99.9</th><th>max</th>"
        f"<th>max ÷ median (log, 1× to {10**decades:,}×)</th></tr>"
    )
    return (
        '<section id="summary"><h2>Summary</h2>'
        '<p class="small muted">One line per metric. A maximum is the worst single sample '
        "of this run, not a bound. Bar: median at the left end, thick to p99, dot at the "
        "max; ticks every factor of ten. ≈: at the counter's resolution (within two of its "
        "steps of zero or of another figure of the row).</p>"
        + svgs.spark_scale(decades, _SPARK_SCALE)
        + f'<div class="scroll"><table class="tbl stack sum">{head}{"".join(out)}</table></div>'
        "</section>"
    )


def _summary_line(r: SummaryRow, decades: int, resolution: Resolution | None = None) -> str:
    m = r.metric
    marked = at_resolution(m, resolution) if resolution is not None else frozenset()

    def cell(key: str) -> str:
        text = format_value(m, getattr(m, key))
        mark = "≈" if key in marked and text != "-" else ""
        return f'<td class="n">{mark}{esc(text)}</td>'

    rp, rm = p99_ratio(m), max_ratio(m)
    bar = ""
    if rm is not None:
        bar = svgs.spark_bar(rp, rm, decades, _SPARK_SCALE) + f" {esc(format_ratio(rm))}"
    # Columns 4 to 7 are numbers and are named on a phone (class `sum`, page.CSS).
    return (
        f'<tr><td class="nw">{esc(r.label)}</td>'
        f'<td class="grow"><a href="#{r.anchor}">{esc(r.name)}</a></td>'
        f'<td class="n narrow-hide">{m.count:,}</td>'
        f"{cell('p50')}{cell('p99')}{cell('p99_9')}{cell('max')}"
        f'<td class="nw">{bar}</td></tr>'
    )


# ---- per-family sections -----------------------------------------------------


def _family_section(
    code: str,
    outcomes: Sequence[ScenarioOutcome],
    series: Mapping[str, Sequence[float]],
    columns: int,
) -> str:
    body = "".join(_unit_block(o, series, columns) for o in outcomes)
    return (
        f'<section class="block" id="fam-{esc(code or "other")}">'
        f"<h2>{esc(family_title(code))}</h2>{body}</section>"
    )


def _unit_block(
    outcome: ScenarioOutcome, series: Mapping[str, Sequence[float]], columns: int
) -> str:
    labels = unit_labels(outcome)
    parts = [
        f'<h3 id="{anchor(outcome.name)}">'
        + (f"{esc(labels)} " if labels else "")
        + f"<code>{esc(outcome.name)}</code></h3>",
        f"<p>{esc(outcome.summary or '')} "
        f'<span class="st-{esc(outcome.status)}">'
        f"{esc(STATUS_WORDS.get(outcome.status, outcome.status))}</span>"
        + (f" ({esc(outcome.reason)})" if outcome.reason else "")
        + f", {esc(units.format_seconds(outcome.elapsed_s))}.</p>",
    ]
    logs = problem_logs(outcome) + list(outcome.errors)
    if logs:
        parts.append("<ul>" + "".join(f"<li>{esc(line)}</li>" for line in logs) + "</ul>")
    notes = [str(r["message"]) for r in outcome.of_type("log") if r["level"] == "info"]
    if notes:
        parts.append(
            '<ul class="small muted">' + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>"
        )
    if outcome.status == "crashed" and outcome.stderr_tail.strip():
        parts.append(
            f"<details><summary>error output</summary><pre>{esc(outcome.stderr_tail)}</pre>"
            "</details>"
        )
    metrics = outcome.metrics()
    sweep_figures = []
    for s in sweeps(metrics):
        drawn = charts.sweep(s)
        if drawn is not None:
            chart, title = drawn
            sweep_figures.append(
                figure(
                    chart,
                    f"{title}: median and p99 of each {s.metric} metric below.",
                    legend=[("k0", "median"), ("k1", "p99")],
                )
            )
    parts.append(chart_row(sweep_figures))
    names = metric_display_names(outcome, metrics)
    for m, name in zip(metrics, names, strict=True):
        parts.append(_metric_block(outcome, m, name, series, columns))
    for v in verdicts(outcome):
        evidence = "".join(f"<li>{esc(e)}</li>" for e in v.evidence)
        control = "".join(f"<li>{esc(e)}</li>" for e in v.control_evidence)
        parts.append(
            f"<h4>{badge(v.outcome.upper(), v.outcome)} {esc(v.label or '')} {esc(v.check)}</h4>"
            f"<p>{esc(v.reason)}</p><ul>{evidence}</ul>"
            f"<p>{badge(v.control_outcome.replace('_', ' '), v.control_outcome)} "
            f"{esc(v.control_sentence)}</p>" + (f"<ul>{control}</ul>" if control else "")
        )
    for record in outcome.of_type("table"):
        parts.append(_table_block(outcome, record))
    return "\n".join(p for p in parts if p)


def _metric_block(
    outcome: ScenarioOutcome,
    m: MetricSummary,
    name: str,
    series: Mapping[str, Sequence[float]],
    columns: int,
) -> str:
    unit_name, div = row_unit(m)

    def cell(value: float | None) -> str:
        return esc(units.format_in(value, m.unit, div))

    headers = ["samples", "min", "mean", "p50", "p90", "p99", "p99.9", "max", "stddev"]
    headers += ["warm-up", "invalid", "clamped"]
    row = [f"{m.count:,}"] + [
        cell(v) for v in (m.min, m.mean, m.p50, m.p90, m.p99, m.p99_9, m.max, m.stddev)
    ]
    row += [f"{m.warmup:,}", f"{m.invalid:,}", f"{m.clamped:,}"]
    params = ", ".join(f"{k}={v}" for k, v in m.params.items())
    row_id = SummaryRow("", outcome.name, name, m).anchor
    html = (
        f'<h4 id="{row_id}">{esc(name)}: {esc(m.title or m.metric)}</h4>'
        f'<p class="small muted">values in {esc(unit_name)}'
        + (f"; parameters: {esc(params)}" if params else "")
        + "</p>"
        + table(headers, [row], numeric=[True] * len(headers),
                hide_narrow=[False] * 9 + [True] * 3)
    )  # fmt: skip
    figures = []
    hist = charts.histogram(m, columns)
    if hist is not None:
        figures.append(figure(hist, f"All {m.count:,} samples by value; dashed: median, p99, max."))
    sf = outcome.samples_for(m)
    values = series.get(sf.path, ()) if sf is not None else ()
    which = "every sample" if len(values) == m.count else f"the first {len(values):,} samples"
    where = f" Raw data: {sf.path}." if sf is not None else ""
    tick = (
        charts.tick_diagram(outcome, m, values)
        if m.scenario == "clk.tick.duration" and m.metric == "loop"
        else None
    )
    drawn = charts.series(m, values, columns)
    if drawn is not None:
        figures.append(
            figure(drawn, f"Value of {which} in order; red marks: beyond the scale." + where)
        )
    traced = trace_timeline.trace_of(outcome, m)
    timeline = trace_timeline.worst_sample_svg(traced) if traced is not None else None
    if timeline is not None:
        figures.append(figure(*timeline))
    if traced is not None:
        html += (
            "<details><summary>Kernel trace of the kept samples</summary><ul>"
            + "".join(f"<li>{esc(line)}</li>" for line in trace_render.sample_lines(traced))
            + "</ul></details>"
        )
    record = trace_timeline.record_of(outcome, m)
    if record is not None:
        html += path_render.metric_html(record)
    if tick is not None:
        chart, first, above, lines = tick
        figures.append(
            figure(
                chart,
                f"Loops from number {first:,} on (where the lower line is clearest), zoomed "
                f"on the two lines: the lower line is the "
                "undisturbed loop, the upper line the loops the clock tick interrupted. "
                + (f"{above:,} of them lie above the window (red marks)." if above else ""),
                legend=[
                    ("k2", f"normal loop, typical {units.format_duration(lines.normal_typical)}"),
                    ("k1", f"hit by the tick, typical {units.format_duration(lines.tick_typical)}"),
                ],
            )
        )
    return html + chart_row(figures)


def _table_block(outcome: ScenarioOutcome, record: Mapping[str, Any]) -> str:
    t = next(t for t in tables(outcome) if t.name == record["name"])
    figures = []
    name = str(record["name"])
    if "_vs_" in name:
        chart = charts.versus_table(record, outcome.counter_hz)
        if chart is not None:
            figures.append(
                figure(
                    chart,
                    f"{t.title}: mean (line), min and max of each row of the table.",
                    legend=[("k2", "min"), ("k0", "mean"), ("k3", "max")],
                )
            )
    phases = charts.interrupt_phases(record)
    if phases is not None:
        found = next((m for m in outcome.metrics() if m.metric == "min_period"), None)
        result = ""
        if found is not None and found.count:
            params = ", ".join(f"{k} {v}" for k, v in found.params.items())
            what = found.title or "smallest loss-free period"
            result = f" {what}: {format_value(found, found.max)}" + (
                f" ({params})." if params else "."
            )
        figures.append(
            figure(
                phases,
                f"{t.title}: each phase of the search, in the order run (log scale).{result}",
                legend=[("k0", "generated"), ("k2", "serviced"), ("k3", "lost")],
            )
        )
    html = f"<h4>{esc(t.title)}</h4>" + chart_row(figures)
    if not t.rows:
        return html + '<p class="muted">(no rows)</p>'
    body = table(t.headers, t.rows, numeric=t.numeric)
    if len(t.rows) > _LONG_TABLE_ROWS:
        body = f"<details><summary>the table ({len(t.rows)} rows)</summary>{body}</details>"
    return html + body


# ---- the rest -------------------------------------------------------------


def _not_implemented(doc: ResultsDocument) -> str:
    missing = [o for o in doc.scenarios if o.status == "not_implemented"]
    if not missing:
        return ""
    items = "".join(
        f"<li><code>{esc(o.name)}</code> {esc(unit_labels(o))} {esc(o.summary or '')}</li>"
        for o in missing
    )
    return (
        f'<section class="block" id="missing"><h2>Not implemented in this build</h2>'
        f"<details><summary>{len(missing)} catalog ids (`rtbench list` shows the catalog)"
        f"</summary><ul>{items}</ul></details></section>"
    )


def _run_section(doc: ResultsDocument) -> str:
    run = doc.run
    rows: list[tuple[str, Any]] = [
        ("run", run.id),
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
    rows += trace_render.condition_rows(doc)
    rows += path_render.condition_rows(doc)
    html = '<section class="block" id="run"><h2>Run details</h2>' + kv_table(rows)
    if doc.calibration is not None:
        cal = doc.calibration
        hz = float(cal.counter["hz"])
        html += "<h3>Calibration</h3>" + kv_table(
            [
                ("counter", cal.counter.get("name")),
                ("frequency", f"{hz:,.0f} Hz"),
                ("resolution", Resolution.of_counter(cal.counter).describe()),
                ("how measured", cal.counter.get("note") or "-"),
                (
                    "timestamp overhead",
                    f"{cal.overhead_ticks} ticks = {units.format_duration(cal.overhead_ns)} "
                    + (
                        "(subtracted from every sample)"
                        if cal.overhead_inline_ticks is None or cal.overhead_inline_ns is None
                        else f"(timed calls); {cal.overhead_inline_ticks} ticks = "
                        f"{units.format_duration(cal.overhead_inline_ns)} (inline reads); "
                        "each subtracted from the samples taken that way"
                    ),
                ),
            ]
        )
    meta = first_meta(doc)
    if meta is not None:
        build = meta.get("build") or {}
        html += "<h3>Core</h3>" + kv_table(
            [
                ("operating system", f"{meta['os']} {meta['os_release']}"),
                ("OS configuration", os_config_text(meta, sources=True) or "-"),
                ("architecture", meta["arch"]),
                ("C library", meta.get("libc") or "-"),
                ("port", meta["port"]),
                ("rtbench-core", meta["core_version"]),
                ("compiler / build", f"{build.get('compiler', '-')} {build.get('type', '')}"),
                ("interrupt source", meta.get("irq_source") or "-"),
                ("capabilities", ", ".join(meta["caps"])),
                ("degraded", meta["degraded"] or "no"),
            ]
        )
    changes = doc.settings.get("changes", [])
    skipped = doc.settings.get("skipped", [])
    if changes or skipped:
        rows_s = [
            [str(c.get(k)) for k in ("setting", "original", "applied", "restored")]
            + [str(c.get("note") or "")]
            for c in changes
        ]
        rows_s += [
            [str(k.get("setting")), "", "not changed", "", str(k.get("reason") or "")]
            for k in skipped
        ]
        html += "<h3>Host settings changed for the run</h3>" + table(
            ["setting", "original", "during the run", "restored", "note"], rows_s
        )
    if doc.caveats:
        html += "<h3>Every caveat of the host check</h3>" + table(
            ["severity", "what", "advice"],
            [
                [str(c.get("severity", "")), str(c.get("message", "")), str(c.get("advice", ""))]
                for c in doc.caveats
            ],
        )
    flat: list[tuple[str, Any]] = []
    _flatten("", doc.host, flat)
    if flat:
        html += "<details><summary>Host snapshot</summary>" + kv_table(flat) + "</details>"
    return html + "</section>"


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
