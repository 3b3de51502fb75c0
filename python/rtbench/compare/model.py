# SPDX-License-Identifier: Apache-2.0
"""The comparison of several stored results: what matches what, and what differs.

`build` loads nothing: it takes the loaded systems (a results document, the
directory it came from and the raw series of its metrics) and returns a
`Comparison`, a plain data structure every renderer (terminal, Markdown,
CSV, HTML) reads. The first system is the baseline; every other one is
tested against it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtbench import units
from rtbench.compare import stats as cstats
from rtbench.compare.rating import FamilyRating, family_of, rate
from rtbench.errors import UsageError
from rtbench.load import summary as load_summary
from rtbench.records import params_key
from rtbench.report.common import VerdictView, first_meta, verdicts
from rtbench.resolution import Resolution
from rtbench.results import ResultsDocument, load, read_samples
from rtbench.stats import MetricSummary

MetricKey = tuple[str, str, str]

# Units in which a larger value is better (throughput); time units are lower-is-better.
_HIGHER_IS_BETTER = ("ops_per_s", "per_s", "ops", "hz", "rhealstones")


@dataclass(frozen=True)
class System:
    """One compared result: a short name, where it came from, and its document."""

    letter: str
    path: Path
    doc: ResultsDocument

    @property
    def name(self) -> str:
        return f"{self.letter} {self.doc.run.id}"

    def short(self, width: int = 16) -> str:
        text = self.name
        return text if len(text) <= width else text[: width - 1] + "…"

    def describe(self) -> str:
        run = self.doc.run
        meta = first_meta(self.doc)
        parts = [str(self.path)]
        if run.source is not None:
            parts.append(
                f"imported from {run.source.get('tool')} {run.source.get('version') or ''}"
            )
        else:
            parts.append(
                f"rtbench {self.doc.rtbench_version}, profile {run.profile}, CPU {run.cpu}"
            )
        if meta is not None:
            parts.append(f"{meta['os']} {meta['os_release']} {meta['arch']}")
        else:
            kernel = self.doc.host.get("kernel")
            if isinstance(kernel, Mapping) and kernel.get("release"):
                parts.append(f"{kernel.get('system', '')} {kernel['release']}".strip())
        parts.append(f"started {run.started}")
        return ", ".join(p.strip() for p in parts if p.strip())


@dataclass(frozen=True)
class MetricRow:
    """One metric across the systems; `cells[i]` is system i's statistics."""

    key: MetricKey
    label: str | None
    family: str | None
    name: str
    title: str | None
    unit: str
    lower_is_better: bool | None
    cells: tuple[MetricSummary | None, ...]
    differences: tuple[cstats.Difference | None, ...]  # None for the baseline and gaps

    def ratio(self, index: int, attribute: str) -> float | None:
        base, cell = self.cells[0], self.cells[index]
        if base is None or cell is None:
            return None
        a, b = getattr(base, attribute), getattr(cell, attribute)
        if a is None or b is None or a <= 0:
            return None
        return float(b) / float(a)


@dataclass(frozen=True)
class VerdictRow:
    scenario: str
    label: str | None
    check: str
    cells: tuple[VerdictView | None, ...]

    def outcome(self, index: int) -> str | None:
        cell = self.cells[index]
        return None if cell is None else cell.outcome


@dataclass(frozen=True)
class Comparison:
    systems: tuple[System, ...]
    metrics: tuple[MetricRow, ...]
    verdicts: tuple[VerdictRow, ...]
    warnings: tuple[str, ...]
    failing: tuple[tuple[str, ...], ...]  # per system: labels of failed behaviour tests
    ratings: tuple[FamilyRating, ...]
    statuses: tuple[str, ...]  # scenarios that did not end `ok` somewhere
    min_change: float = cstats.DEFAULT_MIN_CHANGE
    notes: tuple[str, ...] = field(default=())

    def regressions(self) -> list[tuple[System, MetricRow]]:
        """Significantly worse metrics of every system against the baseline."""
        out = []
        for row in self.metrics:
            for i, diff in enumerate(row.differences):
                if diff is not None and diff.outcome in ("worse", "mixed"):
                    out.append((self.systems[i], row))
        return out


def load_systems(paths: Sequence[Path]) -> list[System]:
    """Load every result; bad input is one sentence (UsageError)."""
    if len(paths) < 2:
        raise UsageError("At least two results directories are needed (the first is the baseline).")
    if len(paths) > 26:
        raise UsageError("At most 26 results directories can be compared.")
    systems = []
    for index, path in enumerate(paths):
        doc = load(path)
        folder = path if path.is_dir() else path.parent
        systems.append(System(chr(ord("A") + index), folder, doc))
    return systems


def lower_is_better(unit: str) -> bool | None:
    if units.is_time(unit):
        return True
    if any(unit.endswith(u) or unit == u for u in _HIGHER_IS_BETTER):
        return False
    return None


def _metric_name(m: MetricSummary) -> str:
    return m.name


def _key(m: MetricSummary) -> MetricKey:
    return (m.scenario, m.metric, params_key(dict(m.params)))


SamplesReader = Callable[[System, MetricSummary], list[float] | None]


def stored_samples(system: System, metric: MetricSummary) -> list[float] | None:
    """The raw series of a metric when it holds every sample of the run, else None."""
    for outcome in system.doc.scenarios:
        sf = outcome.samples_for(metric)
        if sf is None:
            continue
        if sf.count < metric.count or sf.count == 0:
            return None
        values = read_samples(system.path, sf)
        if sf.unit == metric.unit and len(values) == metric.count:
            return values
        return None
    return None


def _distribution(
    system: System, metric: MetricSummary, reader: SamplesReader
) -> tuple[cstats.Distribution | None, str]:
    values = reader(system, metric)
    if values:
        return cstats.from_samples(values), ""
    total = sum(b.count for b in metric.histogram)
    if metric.histogram and total == metric.count:
        return cstats.from_histogram(metric.histogram), ""
    return None, f"{system.letter} has neither raw samples nor a histogram of every sample"


def _difference(
    systems: Sequence[System],
    cells: Sequence[MetricSummary | None],
    index: int,
    lib: bool | None,
    min_change: float,
    reader: SamplesReader,
) -> cstats.Difference | None:
    base, cell = cells[0], cells[index]
    if base is None or cell is None:
        return None
    da, why_a = _distribution(systems[0], base, reader)
    db, why_b = _distribution(systems[index], cell, reader)
    if da is not None and db is not None and da.source != db.source:
        # Test like with like: the histograms hold every sample of both runs.
        da, db = cstats.from_histogram(base.histogram), cstats.from_histogram(cell.histogram)
    hist_a = base.histogram if sum(b.count for b in base.histogram) == base.count else ()
    hist_b = cell.histogram if sum(b.count for b in cell.histogram) == cell.count else ()
    return cstats.judge(
        da,
        db,
        hist_a,
        hist_b,
        lower_is_better=lib,
        min_change=min_change,
        why_untested=why_a or why_b,
        resolution=_resolution_ns(systems[0], systems[index]) if base.unit == "ns" else 0.0,
    )


def _resolution_ns(*systems: System) -> float:
    """The coarser of the systems' effective counter steps, in ns (0: not known)."""
    steps = [
        Resolution.of_counter(s.doc.calibration.counter).step_ns
        for s in systems
        if s.doc.calibration is not None
    ]
    return max(steps, default=0.0)


def _all_metrics(system: System) -> Iterator[MetricSummary]:
    for outcome in system.doc.scenarios:
        yield from outcome.metrics()


def _verdict_rows(systems: Sequence[System]) -> list[VerdictRow]:
    order: list[tuple[str, str]] = []
    found: dict[tuple[str, str], list[VerdictView | None]] = {}
    labels: dict[tuple[str, str], str | None] = {}
    for index, system in enumerate(systems):
        for outcome in system.doc.scenarios:
            for v in verdicts(outcome):
                key = (v.scenario, v.check)
                if key not in found:
                    order.append(key)
                    found[key] = [None] * len(systems)
                    labels[key] = v.label
                found[key][index] = v
    return [VerdictRow(k[0], labels[k], k[1], tuple(found[k])) for k in order]


def build(
    systems: Sequence[System],
    *,
    min_change: float = cstats.DEFAULT_MIN_CHANGE,
    reader: SamplesReader = stored_samples,
) -> Comparison:
    """Match every metric and verdict across the systems and test each difference."""
    order: list[MetricKey] = []
    cells: dict[MetricKey, list[MetricSummary | None]] = {}
    for index, system in enumerate(systems):
        for m in _all_metrics(system):
            key = _key(m)
            if key not in cells:
                order.append(key)
                cells[key] = [None] * len(systems)
            if cells[key][index] is None:
                cells[key][index] = m
    rows: list[MetricRow] = []
    for key in order:
        row_cells = cells[key]
        first = next(c for c in row_cells if c is not None)
        label = next((c.label for c in row_cells if c is not None and c.label), None)
        lib = lower_is_better(first.unit)
        diffs = tuple(
            None if i == 0 else _difference(systems, row_cells, i, lib, min_change, reader)
            for i in range(len(systems))
        )
        rows.append(
            MetricRow(
                key=key,
                label=label,
                family=family_of(first.scenario),
                name=_metric_name(first),
                title=first.title,
                unit=first.unit,
                lower_is_better=lib,
                cells=tuple(row_cells),
                differences=diffs,
            )
        )
    verdict_rows = _verdict_rows(systems)
    failing = tuple(
        tuple(
            sorted(
                {(row.label or row.scenario) for row in verdict_rows if row.outcome(i) == "fail"}
            )
        )
        for i in range(len(systems))
    )
    ratings = rate(systems, rows, verdict_rows, failing, min_change)
    return Comparison(
        systems=tuple(systems),
        metrics=tuple(rows),
        verdicts=tuple(verdict_rows),
        warnings=tuple(configuration_warnings(systems)),
        failing=failing,
        ratings=tuple(ratings),
        statuses=tuple(_status_lines(systems)),
        min_change=min_change,
    )


def _status_lines(systems: Sequence[System]) -> list[str]:
    out = []
    names: list[str] = []
    status: dict[str, list[str]] = {}
    for index, system in enumerate(systems):
        for outcome in system.doc.scenarios:
            if outcome.name not in status:
                names.append(outcome.name)
                status[outcome.name] = ["-"] * len(systems)
            status[outcome.name][index] = outcome.status
    for name in names:
        values = status[name]
        ran = [v for v in values if v not in ("-", "not_implemented")]
        if ran and any(v != "ok" for v in values if v != "-"):
            cells = ", ".join(f"{s.letter} {v}" for s, v in zip(systems, values, strict=True))
            if all(v in ("ok", "-", "not_implemented") for v in values) and len(set(ran)) == 1:
                continue
            out.append(f"{name}: {cells}")
    return out


# ---- configuration differences ----------------------------------------------------

# Host facts that change from one moment to the next and say nothing of the setup.
_VOLATILE = (
    "taken_at",
    "elapsed_s",
    "load",
    "measurement_cpu.freq_khz",
    "measurement_cpu.cpu",
    "measurement_cpu.source",
    "cpu_dma_latency.value_us",
    "python",
)
_HOST_LINES_MAX = 12


def _flatten(value: Any, prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    if isinstance(value, Mapping):
        for k, v in value.items():
            path = f"{prefix}.{k}" if prefix else str(k)
            if any(path == p or path.startswith(p + ".") for p in _VOLATILE):
                continue
            out.update(_flatten(v, path))
    else:
        out[prefix] = json.dumps(value, sort_keys=True, default=str)
    return out


def _settings_text(doc: ResultsDocument) -> str:
    changes = sorted(
        f"{c.get('setting')}={c.get('applied')}" for c in doc.settings.get("changes", [])
    )
    return ", ".join(changes) or "none"


def _run_facts(system: System) -> dict[str, str]:
    doc, run = system.doc, system.doc.run
    meta = first_meta(doc)
    counter = doc.calibration.counter if doc.calibration is not None else None
    return {
        "rtbench version": doc.rtbench_version,
        "results schema": "1",
        "origin": (
            f"imported from {run.source.get('tool')} {run.source.get('version') or ''}".strip()
            if run.source is not None
            else f"rtbench run on target {run.target}"
        ),
        "profile": run.profile,
        "measurement CPU": str(run.cpu),
        "real-time": "yes" if run.realtime else "NO",
        "complete": "yes" if run.complete else "NO (interrupted or partial)",
        "core": str(run.core.get("version")),
        "counter": "-" if counter is None else str(counter.get("name")),
        "scenario options (--set)": json.dumps(dict(run.options.get("set", {})), sort_keys=True),
        "host settings changed": _settings_text(doc),
        "OS": _os_text(doc),
        "port": "-" if meta is None else str(meta.get("port")),
        "C library": "-" if meta is None else str(meta.get("libc")),
    }


def _os_text(doc: ResultsDocument) -> str:
    meta = first_meta(doc)
    if meta is not None:
        return f"{meta['os']} {meta['os_release']}"
    kernel = doc.host.get("kernel")
    if isinstance(kernel, Mapping) and kernel.get("release"):
        parts = (kernel.get("system"), kernel.get("release"), kernel.get("version"))
        return " ".join(str(p) for p in parts if p)
    return "-"


def configuration_warnings(systems: Sequence[System]) -> list[str]:
    """Every difference of version, setup and host between each system and the baseline."""
    out: list[str] = []
    base = systems[0]
    base_facts = _run_facts(base)
    base_host = _flatten(base.doc.host)
    base_caveats = {c.get("code") for c in base.doc.caveats if c.get("severity") == "warning"}
    base_hz = base.doc.calibration.counter.get("hz") if base.doc.calibration else None
    for system in systems:
        if not system.doc.run.realtime:
            out.append(f"{system.letter} ran NOT REAL-TIME: its figures do not show the system.")
        if system.doc.run.source is not None:
            out.append(
                f"{system.letter} is imported from {system.doc.run.source.get('tool')}: "
                "its figures were measured by another tool, with its own method and resolution."
            )
    base_load = load_summary(dict(base.doc.run.conditions or {})) or "none"
    for system in systems[1:]:
        # a run under --load against one without: the point of such a comparison
        other_load = load_summary(dict(system.doc.run.conditions or {})) or "none"
        if other_load != base_load:
            out.append(f"load differs: A {base_load}, {system.letter} {other_load}.")
        facts = _run_facts(system)
        for name, value in facts.items():
            # "-" is unknown (an imported result has no core, counter or port): not a difference.
            if value != base_facts[name] and "-" not in (value, base_facts[name]):
                out.append(f"{name} differs: A {base_facts[name]}, {system.letter} {value}.")
        hz = system.doc.calibration.counter.get("hz") if system.doc.calibration else None
        if base_hz and hz and abs(float(hz) / float(base_hz) - 1.0) > 0.01:
            out.append(
                f"counter frequency differs: A {float(base_hz) / 1e6:,.1f} MHz, "
                f"{system.letter} {float(hz) / 1e6:,.1f} MHz."
            )
        host = _flatten(system.doc.host)
        differing = sorted(k for k in set(base_host) & set(host) if base_host[k] != host[k])
        unknown = len(set(base_host) ^ set(host))
        for k in differing[:_HOST_LINES_MAX]:
            out.append(
                f"host {k} differs: A {_short(base_host.get(k))}, "
                f"{system.letter} {_short(host.get(k))}."
            )
        if len(differing) > _HOST_LINES_MAX:
            out.append(
                f"... and {len(differing) - _HOST_LINES_MAX} more host facts differ "
                f"between A and {system.letter} (see results.json)."
            )
        if unknown:
            out.append(
                f"{unknown} host facts are recorded in only one of A and {system.letter}, "
                "so they cannot be compared."
            )
        caveats = {c.get("code") for c in system.doc.caveats if c.get("severity") == "warning"}
        if caveats != base_caveats:
            only_a = sorted(str(c) for c in base_caveats - caveats)
            only_b = sorted(str(c) for c in caveats - base_caveats)
            parts = []
            if only_a:
                parts.append("only A: " + ", ".join(only_a))
            if only_b:
                parts.append(f"only {system.letter}: " + ", ".join(only_b))
            out.append(f"caveats differ ({'; '.join(parts)}).")
    return out


def _short(value: str | None, width: int = 40) -> str:
    if value is None:
        return "(absent)"
    text = value.strip('"')
    return text if len(text) <= width else text[: width - 1] + "…"
