# SPDX-License-Identifier: Apache-2.0
"""What every report needs from a results document, independent of the format."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from rtbench.model import catalog, units
from rtbench.model.results import ResultsDocument, ScenarioOutcome
from rtbench.model.summary import MetricSummary
from rtbench.model.target import TargetView
from rtbench.model.views import VerdictView, modified_text, os_settings, verdicts

STATUS_WORDS = {
    "ok": "ok",
    "stopped": "stopped early",
    "unsupported": "unsupported",
    "error": "error",
    "timeout": "timeout",
    "lost": "target lost",
    "crashed": "crashed",
    "interrupted": "interrupted",
    "not_implemented": "not implemented",
}


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
            same = [o for o in metrics if (o.scenario, o.metric) == (m.scenario, m.metric)]
            # only the params that differ between them (the CPU of a per-CPU run)
            shown = {
                k: v for k, v in m.params.items() if len({str(o.params.get(k)) for o in same}) > 1
            } or dict(m.params)
            name += " [" + ", ".join(f"{k}={v}" for k, v in shown.items()) + "]"
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


EMULATED_BANNER = (
    "EMULATED: timing is not representative of hardware (the target is an emulator); "
    "behaviour verdicts keep their meaning."
)


def emulated(doc: ResultsDocument) -> bool:
    """Whether the run measured an emulated machine (a QEMU guest under TCG)."""
    return TargetView.of(doc).emulated


def checkout_text(kernel: Mapping[str, Any]) -> str | None:
    """ "kernel checkout V11.1.0 dbf70559b27d, sources edbbb421e69f unmodified" for
    a kernel built from a source checkout (FreeRTOS), None otherwise."""
    checkout = kernel.get("checkout")
    if not isinstance(checkout, Mapping):
        return None
    tag, commit = checkout.get("tag"), checkout.get("commit")
    text = " ".join(str(p) for p in (tag, str(commit)[:12] if commit else None) if p)
    sources = sources_text(checkout)
    if sources is not None:
        text = f"{text}, {sources}" if text else sources
    return f"kernel checkout {text}" if text else None


def sources_text(checkout: Mapping[str, Any]) -> str | None:
    """ "sources edbbb421e69f modified": the digest of a kernel checkout's files
    built and whether they differ from its release; None for a result that
    recorded no digest."""
    digest = checkout.get("digest")
    if not digest:
        return None
    return f"sources {str(digest)[:12]} {modified_text(checkout.get('modified'))}"


def deterministic(doc: ResultsDocument) -> str | None:
    """One sentence when the run was in deterministic mode (QEMU -icount), else None."""
    shift = TargetView.of(doc).icount_shift
    if shift is None:
        return None
    return (
        f"DETERMINISTIC (-icount shift={shift}): the clock follows executed instructions, "
        f"{2**shift} ns each; figures count instructions on the path, not hardware time."
    )


def os_config_text(meta: Mapping[str, Any] | None, *, sources: bool = False) -> str | None:
    """ "production configuration: tick 1000 Hz, preemption on, ..., asserts off,
    stack check off" (with sources: each setting's macro in brackets); None when
    the meta record has no os_config (an OS not configured at build time, or
    an older core)."""
    config = (meta or {}).get("os_config")
    if not isinstance(config, Mapping):
        return None
    name = config.get("name")
    items = [
        f"{n} {v}" + (f" ({where})" if sources and where else "")
        for n, v, where in os_settings(meta)
    ]
    head = f"{name} configuration" if name else "configuration"
    return f"{head}: {', '.join(items)}" if items else head


def core_build(meta: Mapping[str, Any] | None) -> str | None:
    """How the core was built, in one line ("static aarch64, gcc 12.2.0,
    glibc 2.36"); None when its meta record says nothing about it."""
    build = (meta or {}).get("build")
    if not isinstance(build, Mapping):
        return None
    static = build.get("static")
    linking = "static " if static is True else "dynamic " if static is False else ""
    arch = build.get("arch")
    parts = [f"{linking}{arch}" if arch else linking.strip()]
    parts += [str(build[k]) for k in ("compiler", "libc") if build.get(k)]
    parts = [p for p in parts if p]
    return ", ".join(parts) or None


def status_counts(doc: ResultsDocument) -> Counter[str]:
    return Counter(s.status for s in doc.scenarios)


def verdict_counts(doc: ResultsDocument) -> Counter[str]:
    return Counter(v.outcome for s in doc.scenarios for v in verdicts(s))


def row_unit(metric: MetricSummary) -> tuple[str, float]:
    """The display unit and divisor of a metric's row (chosen from its median)."""
    reference = metric.p50 if metric.p50 is not None else metric.mean
    return units.row_scale(metric.unit, reference)


# ---- what the first screen of a report shows ---------------------------------

OTHER_FAMILY = ("", "Other")


def family_title(code: str) -> str:
    """`THR` -> `Threads and the scheduler`."""
    return dict(catalog.FAMILIES).get(code, code or OTHER_FAMILY[1])


def family_of(outcome: ScenarioOutcome) -> str:
    """The family code of a run unit (from its first catalog id)."""
    first = outcome.ids[0].id if outcome.ids else outcome.name
    return catalog.family_of(first)


def by_family(doc: ResultsDocument) -> list[tuple[str, list[ScenarioOutcome]]]:
    """The run units that ran, grouped by family in catalog order."""
    groups: dict[str, list[ScenarioOutcome]] = {}
    for outcome in doc.scenarios:
        if outcome.status == "not_implemented":
            continue
        groups.setdefault(family_of(outcome), []).append(outcome)
    order = [code for code, _ in catalog.FAMILIES]
    return sorted(groups.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else 99)


def unit_labels(outcome: ScenarioOutcome) -> str:
    """The distinct labels of a unit, in the order it reports them."""
    seen: list[str] = []
    for i in outcome.ids:
        if i.label and i.label not in seen:
            seen.append(i.label)
    return ", ".join(seen)


def anchor(name: str) -> str:
    """An HTML id for a unit or a metric (letters, digits, `.`, `-`, `_`)."""
    return "s-" + re.sub(r"[^A-Za-z0-9._-]+", "_", name)


@dataclass(frozen=True)
class SummaryRow:
    """One line of the summary: a metric of a unit."""

    family: str
    unit: str
    name: str  # `scenario metric [params]` where params tell rows apart
    metric: MetricSummary

    @property
    def label(self) -> str:
        return self.metric.label or ""

    @property
    def anchor(self) -> str:
        return anchor(f"{self.unit}--{self.name}")


def summary_rows(doc: ResultsDocument) -> list[SummaryRow]:
    """Every metric of the run, by family in catalog order."""
    out: list[SummaryRow] = []
    for family, outcomes in by_family(doc):
        for outcome in outcomes:
            metrics = outcome.metrics()
            names = metric_display_names(outcome, metrics)
            out.extend(
                SummaryRow(family, outcome.name, name, m)
                for m, name in zip(metrics, names, strict=True)
            )
    return out


# The paths a deadline depends on: an event (interrupt, timer, release) until the
# thread that waits for it runs.
RESPONSES = (
    ("irq.latency", "interrupt latency"),
    ("irq.to_thread", "interrupt to thread"),
    ("timer.periodic.latency", "periodic timer wake-up"),
    ("sem.signal.unblock", "semaphore release to waiter"),
)


def measured_source(title: str | None) -> str | None:
    """What a port measures for a classic path, when the title names it before its
    colon: 'Interrupt latency (POSIX timer signal): ...' gives 'POSIX timer signal'."""
    found = re.match(r"[^:(]*\(([^)]+)\)\s*:", title or "")
    return found.group(1) if found else None


def response_rows(doc: ResultsDocument) -> list[tuple[str, SummaryRow]]:
    """(what, summary row) of each response-time path the run measured; `what` names
    the port's source when the metric's title does, e.g. 'interrupt latency (POSIX
    timer signal)'."""
    rows = summary_rows(doc)
    found = []
    for scenario, what in RESPONSES:
        r = next((r for r in rows if r.metric.scenario == scenario and r.metric.count), None)
        if r is not None:
            source = measured_source(r.metric.title)
            found.append((f"{what} ({source})" if source else what, r))
    return found


def responses(doc: ResultsDocument) -> list[tuple[str, MetricSummary]]:
    return [(what, r.metric) for what, r in response_rows(doc)]


def format_value(metric: MetricSummary, value: float | None) -> str:
    """One statistic with its unit, e.g. `1.52 µs`, `4,096 bytes`, `2.05`."""
    if value is None:
        return "-"
    if units.is_time(metric.unit):
        return units.format_duration(value)
    text = units.format_in(value, metric.unit, 1.0)
    unit = metric.unit
    if unit in ("count", "ratio", ""):
        return text
    return f"{text} {unit}"


def max_ratio(metric: MetricSummary) -> float | None:
    """max / median of a time, when both are positive and there are several samples
    (how far the worst sample is from the typical)."""
    if not _tail_makes_sense(metric) or metric.p50 is None or metric.max is None:
        return None
    return metric.max / metric.p50


def p99_ratio(metric: MetricSummary) -> float | None:
    if not _tail_makes_sense(metric) or metric.p50 is None or metric.p99 is None:
        return None
    return metric.p99 / metric.p50


def _tail_makes_sense(metric: MetricSummary) -> bool:
    # A latency's tail: not a throughput's best period, not a single sample.
    return units.is_time(metric.unit) and metric.count > 1 and (metric.p50 or 0) > 0


def format_ratio(ratio: float | None) -> str:
    """`x3.2`, `x2,024`."""
    if ratio is None:
        return "-"
    if ratio < 10:
        return f"x{ratio:.1f}"
    return f"x{ratio:,.0f}"


def warning_caveats(doc: ResultsDocument) -> list[Mapping[str, str]]:
    """The caveats that matter (severity `warning`), in the order the host check gave."""
    return [c for c in doc.caveats if c.get("severity") == "warning"]


def short_caveat(caveat: Mapping[str, str], width: int = 96) -> str:
    """A caveat's message cut to its first clause and to `width` characters."""
    text = str(caveat.get("message", "")).strip()
    sentence = re.match(r"(.+?[.!?])(\s|$)", text)
    if sentence:
        text = sentence.group(1)
    depth = 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        elif ch == ":" and depth == 0 and text[i + 1 : i + 2] == " ":
            text = text[:i]
            break
    text = text.rstrip(" .")
    if len(text) > width:
        cut = text[: width - 1].rsplit(" ", 1)[0].rstrip(",;: ")
        text = cut + "…"
    return text


def one_line(text: str, width: int) -> str:
    """`text` on one line of at most `width` characters (cut at a word, with `…`)."""
    flat = re.sub(r"\s*\n\s*", " ", text).strip()
    if len(flat) <= width:
        return flat
    return flat[: max(width - 1, 1)].rsplit(" ", 1)[0].rstrip(",;: ") + "…"


def all_verdicts(doc: ResultsDocument) -> list[tuple[ScenarioOutcome, VerdictView]]:
    """Every verdict of the run, by family in catalog order."""
    return [(o, v) for _family, outcomes in by_family(doc) for o in outcomes for v in verdicts(o)]


def problem_units(doc: ResultsDocument) -> list[ScenarioOutcome]:
    """Units that did not end `ok` (and were implemented)."""
    return [o for o in doc.scenarios if o.status not in ("ok", "not_implemented")]


@dataclass(frozen=True)
class Sweep:
    """Metrics of one unit that differ only by one numeric parameter."""

    scenario: str
    metric: str
    param: str
    points: tuple[tuple[float, MetricSummary], ...]


PER_CPU_PARAM = "cpu"  # the metric parameter of per-CPU scenarios (--cpus)


def sweeps(metrics: Sequence[MetricSummary], minimum: int = 3) -> list[Sweep]:
    """Groups of at least `minimum` metrics with the same scenario and metric name
    whose parameters differ in exactly one numeric key."""
    groups: dict[tuple[str, str], list[MetricSummary]] = {}
    for m in metrics:
        groups.setdefault((m.scenario, m.metric), []).append(m)
    out: list[Sweep] = []
    for (scenario, metric), group in groups.items():
        if len(group) < minimum:
            continue
        keys = set(group[0].params)
        if any(set(m.params) != keys for m in group):
            continue
        varying = [k for k in sorted(keys) if len({str(m.params[k]) for m in group}) > 1]
        if len(varying) != 1:
            continue
        key = varying[0]
        # CPUs are not a sweep: each measured CPU keeps a row of its own
        if key == PER_CPU_PARAM or not all(is_number(m.params[key]) for m in group):
            continue
        points = tuple(sorted(((float(m.params[key]), m) for m in group), key=lambda p: p[0]))
        out.append(Sweep(scenario, metric, key, points))
    return out


def is_number(value: Any) -> TypeGuard[int | float]:
    """A JSON number (not a boolean)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def run_seconds(doc: ResultsDocument) -> float | None:
    """How long the run took, when both its times are known."""
    try:
        started = dt.datetime.fromisoformat(doc.run.started)
        finished = dt.datetime.fromisoformat(doc.run.finished or "")
    except ValueError:
        return None
    return max((finished - started).total_seconds(), 0.0)
