# SPDX-License-Identifier: Apache-2.0
"""The terminal summary `rtbench run` ends with and `rtbench show` prints: the
first screen, which answers the question and points to the rest.

In order: the run and the system; the requirement checks (a place kept at the
top for them); the conditions the run had (real-time or not, the measurement
CPU and its isolation, settings changed) and its caveats in a line or two; the
verdicts in one block (a line of their own only for those that did not pass
cleanly); the scenarios that did not end ok; the worst case of each latency
family; and a last line that says how the run went, whether it was real-time
and whether its CPU was isolated. Every metric, verdict, caveat and table is
in `rtbench show DIR --details` and in the HTML report.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rtbench.model import units
from rtbench.model.conditions import LOAD_KEY
from rtbench.model.families import FAMILIES, family_of
from rtbench.model.resolution import Resolution, at_resolution
from rtbench.model.results import REPORT_FILE, ResultsDocument
from rtbench.model.summary import MetricSummary
from rtbench.model.views import VerdictView, first_meta
from rtbench.report import requirements_table as req_report
from rtbench.report.common import (
    EMULATED_BANNER,
    STATUS_WORDS,
    all_verdicts,
    checkout_text,
    core_build,
    deterministic,
    emulated,
    format_value,
    metric_display_names,
    one_line,
    os_config_text,
    problem_units,
    responses,
    run_seconds,
    short_caveat,
    status_counts,
    verdict_counts,
    warning_caveats,
)
from rtbench.trace.codepath import render as path_render
from rtbench.trace.kernel import render as trace_render

Style = Callable[..., str]

_OUTCOME_COLORS = {
    "PASS": "green",
    "FAIL": "red",
    "INCONCLUSIVE": "yellow",
    "UNSUPPORTED": "yellow",
}
STATUS_COLORS = {
    "stopped": "yellow",
    "unsupported": "yellow",
    "error": "red",
    "timeout": "red",
    "crashed": "red",
    "interrupted": "yellow",
    "lost": "red",
}

# Caveats by their code, in the few words the conditions line has room for; any
# other caveat is cut to its first clause.
_CAVEAT_WORDS = {
    "not_preempt_rt": "not PREEMPT_RT",
    "rt_throttling": "RT throttling on",
    "fair_server": "fair server on",
    "virtual_machine": "virtual machine",
    "no_realtime_privileges": "no real-time privileges",
    "smt_sibling_online": "SMT sibling online",
    "tracing_on": "kernel tracing on",
    "irqbalance": "irqbalance running",
    "thp_always": "transparent huge pages always",
    "memlock_low": "memory lock limit low",
    "cpu_steal": "CPU steal time",
    "single_cpu": "single CPU",
    "cpu_busy": "measurement CPU busy during the check",
}

# Quantities measured in time that are not a delay to bound: a requested sleep, the
# period between ticks, the smallest loss-free interrupt period.
_NOT_A_DELAY = ("sleep", "tick_period", "min_period")


def render(doc: ResultsDocument, s: Style, location: str | None, width: int) -> str:
    lines = header(doc, s, width)
    lines += _requirements(doc, s, width)
    lines += _conditions(doc, s, width)
    lines += _verdicts(doc, s, width)
    lines += _problems(doc, s, width)
    lines += _responses(doc, s, width)
    lines += _families(doc, s, width)
    lines += trace_render.terminal_lines(doc, width, lambda t: s(t, "bold"))
    lines += path_render.terminal_lines(doc, width, lambda t: s(t, "bold"))
    lines += ["", *_wrap(final_line(doc), width)]
    if location:
        lines.append(f"report: {location.rstrip('/')}/{REPORT_FILE}")
        lines.append(f"every metric, verdict and table: rtbench show {location} --details")
    return "\n".join(lines) + "\n"


def _wrap(text: str, width: int, indent: str = "", more: str = "  ") -> list[str]:
    return textwrap.wrap(
        text,
        width,
        initial_indent=indent,
        subsequent_indent=indent + more,
        break_on_hyphens=False,
        break_long_words=False,
    )


# ---- the run and the system ---------------------------------------------------


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def header(doc: ResultsDocument, s: Style, width: int) -> list[str]:
    """The run, the system, the core's build (when its meta record says) and the
    counter: three or four lines."""
    run = doc.run
    state = "complete" if run.complete else "INCOMPLETE"
    if run.interrupted:
        state += " (interrupted)"
    took = run_seconds(doc)
    if took is not None:
        state += f" in {units.format_seconds(took)}"
    head = (
        s(f"rtbench {doc.rtbench_version}", "bold")
        + f"  run {run.id}, profile {run.profile}, CPU {run.cpu}, {run.target}: {state}"
    )
    meta = first_meta(doc)
    host: Mapping[str, Any] = doc.host
    kernel = _mapping(host.get("kernel"))
    cpus = _mapping(host.get("cpus"))
    bits = []
    if host.get("hostname"):
        bits.append(str(host["hostname"]))
    if meta is not None:
        bits.append(f"{meta['os']} {kernel.get('release') or meta['os_release']}")
    checkout = checkout_text(kernel)
    if checkout is not None:
        bits.append(checkout)
    if kernel.get("preempt_rt") is not None:
        bits.append("PREEMPT_RT" if kernel["preempt_rt"] else "not PREEMPT_RT")
    if cpus.get("model"):
        bits.append(str(cpus["model"]))
    if meta is not None:
        bits.append(str(meta.get("libc") or meta["port"]))
    out = [head, one_line("system: " + ", ".join(bits), width)]
    out += _os_config(meta, kernel, width)
    built = core_build(meta)
    if built is not None:
        out.append(one_line(f"core: {built}", width))
    if doc.calibration is not None:
        cal = doc.calibration
        hz = float(cal.counter["hz"])
        out.append(
            one_line(
                f"counter: {cal.counter['name']} at {hz / 1e6:,.0f} MHz, "
                f"{Resolution.of_counter(cal.counter).describe()}; "
                f"timestamp overhead {units.format_duration(cal.overhead_ns)}",
                width,
            )
        )
    return out


def _os_config(meta: Mapping[str, Any] | None, kernel: Mapping[str, Any], width: int) -> list[str]:
    """The OS's build-time configuration the image reported ("FreeRTOS V11.1.0,
    production configuration: tick 1000 Hz, ..."), wrapped, not cut: its last
    items (asserts, stack check) change the figures as much as the first."""
    text = os_config_text(meta)
    if meta is None or text is None:
        return []
    return _wrap(f"{meta['os']} {kernel.get('release') or meta['os_release']}, {text}", width)


def _requirements(doc: ResultsDocument, s: Style, width: int) -> list[str]:
    """The requirement checks of the run (`--require`), first after the header."""
    table = req_report.terminal_lines(doc.requirements)
    if not table:
        return []
    missed = any(e.get("status") == "missed" for e in doc.requirements)
    head = s(table[0], "bold", "red" if missed else "green")
    rows = []
    for line in table[1:]:
        indent = line[: len(line) - len(line.lstrip())]
        rows.append(indent + one_line(line.lstrip(), width - len(indent)))
    return ["", head, *rows]


# ---- conditions and caveats -----------------------------------------------------


def _isolated(doc: ResultsDocument) -> bool | None:
    value = _mapping(doc.host.get("measurement_cpu")).get("isolated")
    return value if isinstance(value, bool) else None


def where_measured(doc: ResultsDocument) -> str:
    """`real-time, CPU 1 not isolated` or `NOT REAL-TIME, CPU 1 isolated`."""
    rt = "real-time" if doc.run.realtime else "NOT REAL-TIME"
    isolated = _isolated(doc)
    cpu = f"CPU {doc.run.cpu}"
    if isolated is not None:
        cpu += " isolated" if isolated else " not isolated"
    else:
        cpu += " (isolation not known)"
    return f"{rt}, {cpu}"


def _condition(key: str, value: Any) -> str:
    """A condition of the run in a few words: its key, and its own summary or first
    few plain facts (`load (cpu_percent=50)`); the whole is in results.json."""
    if isinstance(value, Mapping):
        summary = value.get("summary")
        if isinstance(summary, str) and summary:
            return f"{key} ({summary})"
        facts = [f"{k}={v}" for k, v in value.items() if isinstance(v, (str, int, float, bool))]
        if facts:
            return f"{key} ({', '.join(facts[:3])}{', …' if len(facts) > 3 else ''})"
    return key


def caveat_words(caveat: Mapping[str, str]) -> str:
    code = str(caveat.get("code", ""))
    words = _CAVEAT_WORDS.get(code)
    if words is None:
        return short_caveat(caveat, 48)
    if code == "virtual_machine":
        # The hypervisor's name, when the message gives it: "This is a virtual machine (kvm)".
        message = str(caveat.get("message", ""))
        start, end = message.find("("), message.find(")")
        if 0 <= start < end and end - start < 20:
            words += " " + message[start : end + 1]
    return words


def _conditions(doc: ResultsDocument, s: Style, width: int) -> list[str]:
    run = doc.run
    out = [""]
    if not run.realtime:
        out.append(
            s(
                one_line(
                    "NOT REAL-TIME: the core ran without a real-time scheduling policy; "
                    "these numbers do not show what the system can do.",
                    width,
                ),
                "bold",
                "red",
            )
        )
    if emulated(doc):
        out.append(s(one_line(EMULATED_BANNER, width), "bold", "yellow"))
    fixed = deterministic(doc)
    if fixed is not None:
        out.append(s(one_line(fixed, width), "bold"))
    parts = [f"measured {where_measured(doc)}"]
    # The load, per-CPU threads, durations and --break as the requirements module says
    # them; any other condition of the run by its key.
    shared = req_report.conditions_line(doc)
    if shared:
        parts.append(shared)
    others = {k: v for k, v in (run.conditions or {}).items() if k != LOAD_KEY}
    if others:
        parts.append("with " + ", ".join(_condition(k, v) for k, v in others.items()))
    changes = doc.settings.get("changes", [])
    if changes:
        held = ", ".join(f"{c.get('setting')} {c.get('applied')}" for c in changes)
        parts.append(f"held for the run: {held}")
    out += _wrap("conditions: " + "; ".join(parts), width)
    warnings = warning_caveats(doc)
    if warnings:
        text = f"caveats ({len(warnings)}): " + ", ".join(caveat_words(c) for c in warnings)
        wrapped = _wrap(text, width)
        if len(wrapped) > 2:
            wrapped = [wrapped[0], one_line(" ".join(w.strip() for w in wrapped[1:]), width)]
        out += [s(line, "yellow") for line in wrapped]
    return out


# ---- verdicts ---------------------------------------------------------------------


def _clean(v: VerdictView) -> bool:
    return v.outcome == "pass" and v.control_outcome == "caught"


def _verdicts(doc: ResultsDocument, s: Style, width: int) -> list[str]:
    found = all_verdicts(doc)
    if not found:
        return []
    vc = verdict_counts(doc)
    order = ("pass", "fail", "inconclusive", "unsupported")
    tally = ", ".join(f"{vc[o]} {o}" for o in order if vc.get(o))
    # Each test (label or scenario) once, with the number of its checks.
    tests: dict[str, list[VerdictView]] = {}
    for _outcome, v in found:
        tests.setdefault(v.label or v.scenario, []).append(v)
    clean = [name for name, vs in tests.items() if all(_clean(v) for v in vs)]
    others = [v for _o, v in found if not _clean(v)]
    head = f"Verdicts: {tally} ({len(tests)} test{'s' if len(tests) != 1 else ''}"
    head += ", every negative control caught)" if not others else ")"
    out = ["", s(head, "bold")]
    if clean:
        names = ", ".join(
            name + (f" ({len(tests[name])})" if len(tests[name]) > 1 else "") for name in clean
        )
        word = s("PASS", "bold", "green")
        wrapped = _wrap(names, width - 8)
        out.append(f"  {word}  {wrapped[0]}")
        out += [f"        {line.strip()}" for line in wrapped[1:]]
    word_w = max((len(v.outcome) for v in others), default=4)
    for v in others:
        word = v.outcome.upper()
        control = "" if v.control_outcome == "caught" else f" [control {v.control_outcome}]"
        text = f"{v.label or v.scenario}  {v.check}{control}: {v.reason}"
        styled = s(word.ljust(word_w), "bold", _OUTCOME_COLORS.get(word, "bold"))
        out.append(f"  {styled}  {one_line(text, width - word_w - 4)}")
    return out


def _problems(doc: ResultsDocument, s: Style, width: int) -> list[str]:
    out = []
    for outcome in problem_units(doc):
        word = STATUS_WORDS.get(outcome.status, outcome.status).upper()
        styled = s(word, "bold", STATUS_COLORS.get(outcome.status, "bold"))
        text = f"{outcome.name}: {outcome.reason or 'no reason given'}"
        out.append(f"  {styled} {one_line(text, width - len(word) - 3)}")
    if out:
        out = ["", s("Scenarios that did not end ok", "bold"), *out]
    return out


# ---- response times and the worst case of each latency family ---------------------


def _table(rows: list[list[str]], numeric: list[bool], name_col: int, width: int) -> list[str]:
    """Aligned rows; column `name_col` gets what the others leave of the width."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(numeric))]
    fixed = sum(w for i, w in enumerate(widths) if i != name_col) + 2 * (len(widths) - 1) + 2
    widths[name_col] = max(min(widths[name_col], width - fixed), 16)
    out = []
    for row in rows:
        cells = []
        for i, cell_text in enumerate(row):
            shown = cell_text
            if i == name_col and len(shown) > widths[i]:
                shown = shown[: widths[i] - 1] + "…"
            cells.append(shown.rjust(widths[i]) if numeric[i] else shown.ljust(widths[i]))
        out.append(("  " + "  ".join(cells)).rstrip())
    return out


def _responses(doc: ResultsDocument, s: Style, width: int) -> list[str]:
    rows = [["", "path", "median", "p99", "p99.9", "max"]]
    stats = ("p50", "p99", "p99_9", "max")
    for what, m in responses(doc):
        rows.append([m.label or "", what, *(format_value(m, getattr(m, k)) for k in stats)])
    if len(rows) == 1:
        return []
    lines = _table(rows, [False, False, True, True, True, True], 1, width)
    return [
        "",
        s("Response times", "bold") + s("  (from an event to the thread waiting for it)", "dim"),
        s(lines[0], "dim"),
        *lines[1:],
    ]


@dataclass(frozen=True)
class FamilyWorst:
    """A latency family of the run and the metric with its largest maximum."""

    family: str
    metrics: int  # the family's delay metrics
    name: str  # the worst metric's name, as the reports show it
    worst: MetricSummary


def _is_delay(metric: MetricSummary) -> bool:
    return (
        units.is_time(metric.unit)
        and metric.count > 0
        and metric.max is not None
        and metric.metric not in _NOT_A_DELAY
    )


def family_worst(doc: ResultsDocument) -> list[FamilyWorst]:
    """Per latency family (in the comparison's families' order), its worst case."""
    found: dict[str, list[tuple[str, MetricSummary]]] = {}
    for outcome in doc.scenarios:
        metrics = outcome.metrics()
        for m, name in zip(metrics, metric_display_names(outcome, metrics), strict=True):
            family = family_of(m.scenario)
            if family is not None and _is_delay(m):
                found.setdefault(family, []).append((name, m))
    out = []
    for family, _what, _prefixes in FAMILIES:
        members = found.get(family)
        if not members:
            continue
        name, worst = max(members, key=lambda nm: nm[1].max or 0.0)
        out.append(FamilyWorst(family, len(members), name, worst))
    return out


def _in_family(m: MetricSummary) -> bool:
    return family_of(m.scenario) is not None and _is_delay(m)


def _families(doc: ResultsDocument, s: Style, width: int) -> list[str]:
    worst = family_worst(doc)
    if not worst:
        return []
    resolution = (
        Resolution.of_counter(doc.calibration.counter) if doc.calibration is not None else None
    )
    rows = [["family", "worst case (largest max)", "median", "p99", "p99.9", "max"]]
    marks = False
    for fw in worst:
        m = fw.worst
        marked = at_resolution(m, resolution) if resolution is not None else frozenset()

        def cell(key: str, m: MetricSummary = m, marked: frozenset[str] = marked) -> str:
            text = format_value(m, getattr(m, key))
            return f"≈{text}" if key in marked and text != "-" else text

        cells = [cell(k) for k in ("p50", "p99", "p99_9", "max")]
        marks = marks or any(c.startswith("≈") for c in cells)
        name = f"{m.label} {fw.name}" if m.label else fw.name
        rows.append([f"{fw.family} ({fw.metrics})", name, *cells])
    others = sum(1 for o in doc.scenarios for m in o.metrics() if not _in_family(m))
    more = "metric" if others == 1 else "metrics"
    out = [
        "",
        s("Worst case of each latency family", "bold")
        + s(
            f"  (the family's metrics; {others} more {more} in --details)",
            "dim",
        ),
    ]
    lines = _table(rows, [False, False, True, True, True, True], 1, width)
    out += [s(lines[0], "dim"), *lines[1:]]
    if marks and resolution is not None:
        steps = f"{2 * resolution.step_ns:.1f} ns"
        out.append(s(f"  ≈ at the counter's resolution (within two steps, {steps})", "dim"))
    return out


# ---- the last line ----------------------------------------------------------------


def final_line(doc: ResultsDocument) -> str:
    """How the run went, in one line that never reads as just 'all ok': the
    scenarios, the verdicts, the requirements, whether it was real-time and on an
    isolated CPU, and the largest maximum of every latency family."""
    counts = status_counts(doc)
    ran = sum(n for st, n in counts.items() if st != "not_implemented")
    parts = [f"{counts[st]} {STATUS_WORDS[st]}" for st in STATUS_WORDS if counts.get(st)]
    text = f"{ran} scenarios run: " + ", ".join(p for p in parts if "not implemented" not in p)
    vc = verdict_counts(doc)
    if vc:
        text += "; verdicts: " + ", ".join(f"{n} {o}" for o, n in sorted(vc.items()))
    if doc.requirements:
        head = req_report.headline(doc.requirements)
        text += "; " + head[0].lower() + head[1:]
    if not doc.run.complete:
        text += "; run INCOMPLETE"
    if emulated(doc):
        text += "; EMULATED (timing is not representative of hardware)"
    if deterministic(doc) is not None:
        text += "; DETERMINISTIC (figures count instructions)"
    text += f"; {where_measured(doc)}"
    if not doc.run.realtime:
        text += " (no real-time policy: figures do not show what the system can do)"
    worst = family_worst(doc)
    if worst:
        text += "; worst case " + ", ".join(
            f"{fw.family} {format_value(fw.worst, fw.worst.max)}" for fw in worst
        )
    return text
