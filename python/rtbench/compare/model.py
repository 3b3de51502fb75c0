# SPDX-License-Identifier: Apache-2.0
"""The comparison of several stored results: what matches what, and what differs.

`build` loads nothing: it takes the loaded systems (a results document, the
directory it came from and the raw series of its metrics) and returns a
`Comparison`, a plain data structure every renderer (terminal, Markdown,
CSV, HTML) reads. The first system is the baseline; every other one is
tested against it. A system can be several runs of one configuration: its
figures are those of the pooled samples of its runs, and its runs' own
statistics give the between-run spread (`pool`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rtbench.compare import (
    capabilities,
    codesize,
    exact,
    params,
    pathdiff,
    pool,
    sidebyside,
)
from rtbench.compare import groups as cgroups
from rtbench.compare import significance as cstats
from rtbench.compare.rating import FamilyRating, combine, family_of, rate
from rtbench.errors import UsageError
from rtbench.model import units
from rtbench.model.records import params_key
from rtbench.model.resolution import Resolution
from rtbench.model.results import ResultsDocument, load, read_samples
from rtbench.model.summary import MetricSummary
from rtbench.report.common import VerdictView, first_meta, modified_text, os_settings, verdicts
from rtbench.run.load import KEY as LOAD_KEY
from rtbench.run.load import summary as load_summary

MetricKey = tuple[str, str, str]


# Units in which a larger value is better (throughput); time units are lower-is-better.
@dataclass(frozen=True)
class System:
    """One compared system: a short name, where its result came from, and its
    document; `more` holds the further runs of the same configuration, when the
    system was given as several runs (the first run's document describes it)."""

    letter: str
    path: Path
    doc: ResultsDocument
    more: tuple[tuple[Path, ResultsDocument], ...] = ()

    @property
    def name(self) -> str:
        extra = f" +{len(self.more)} run{'s' if len(self.more) > 1 else ''}" if self.more else ""
        return f"{self.letter} {self.doc.run.id}{extra}"

    @property
    def n_runs(self) -> int:
        return 1 + len(self.more)

    def runs(self) -> tuple[System, ...]:
        """Each run as a one-run system (the first is this system without the others)."""
        first = System(self.letter, self.path, self.doc)
        return (first, *(System(self.letter, p, d) for p, d in self.more))

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
            config = meta.get("os_config")
            if isinstance(config, Mapping) and config.get("name"):
                parts.append(f"{config['name']} configuration")
        else:
            kernel = self.doc.host.get("kernel")
            if isinstance(kernel, Mapping) and kernel.get("release"):
                parts.append(f"{kernel.get('system', '')} {kernel['release']}".strip())
        parts.append(f"started {run.started}")
        text = ", ".join(p.strip() for p in parts if p.strip())
        if self.more:
            text += f"; and {len(self.more)} more run{'s' if len(self.more) > 1 else ''} "
            text += "of it: " + ", ".join(str(p) for p, _d in self.more)
        return text


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
    cells: tuple[MetricSummary | None, ...]  # pooled over the runs of a system
    differences: tuple[cstats.Difference | None, ...]  # None for the baseline and gaps
    run_cells: tuple[tuple[MetricSummary | None, ...], ...] = ()  # per system, per run
    # per system: its code path's difference against the baseline's (traced runs)
    paths: tuple[tuple[pathdiff.PathDiff, ...], ...] = ()
    # per system: its typical path, when a system of another OS than the baseline's
    # and the baseline were both traced (compare.sidebyside); else all None
    sides: tuple[sidebyside.SidePath | None, ...] = ()
    # per system: "" or the sentence naming the parameters it measured this
    # metric with, where they differ from the baseline's (compare.params)
    param_notes: tuple[str, ...] = ()

    def path_changes(self, index: int) -> tuple[pathdiff.PathDiff, ...]:
        """System `index`'s path differences worth showing: an unchanged path is
        said only where the figures differ."""
        found = self.paths[index] if index < len(self.paths) else ()
        diff = self.differences[index]
        if diff is not None and diff.outcome not in ("same", "identical"):
            return found
        return tuple(d for d in found if d.changes or any(d.handlers) or d.delta)

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
    # per system: how it is compared with the baseline (None for the baseline)
    pairings: tuple[exact.Pairing | None, ...] = ()
    # the services each system has, when they run different operating systems
    services: tuple[capabilities.Service, ...] = ()
    # the comparable groups: systems whose times are tested against each other
    groups: tuple[cgroups.Group, ...] = ()
    # the differences the user chose (OS, target, board, configuration), named once
    compared: tuple[str, ...] = ()
    # the facts that differ because the systems differ (host of another machine...)
    details: tuple[str, ...] = ()

    def timed_with_base(self, index: int) -> bool:
        """Whether system `index`'s times are tested against the baseline's."""
        return not self.groups or cgroups.comparable(self.groups, 0, index)

    def exact_with(self, index: int) -> bool:
        """Whether system `index` is compared exactly with the baseline (deterministic)."""
        found = self.pairings[index] if index < len(self.pairings) else None
        return found is not None and found.exact

    @property
    def any_exact(self) -> bool:
        """Whether some system is compared exactly with the baseline."""
        return any(self.exact_with(i) for i in range(1, len(self.systems)))

    def regressions(self) -> list[tuple[System, MetricRow]]:
        """Significantly worse metrics of every system against the baseline; of two
        deterministic runs, those with any statistic slower (worse or mixed)."""
        out = []
        for row in self.metrics:
            for i, diff in enumerate(row.differences):
                if diff is not None and diff.outcome in ("worse", "mixed"):
                    out.append((self.systems[i], row))
        return out


def load_systems(paths: Sequence[Path]) -> list[System]:
    """Load every result, one system each; bad input is one sentence (UsageError)."""
    return load_groups([[p] for p in paths])


def load_groups(groups: Sequence[Sequence[Path]], *, alone: bool = False) -> list[System]:
    """Load systems given as several runs each (a group of results directories of
    one configuration); bad input is one sentence (UsageError). `alone`: one system
    is enough (it is set beside the published figures, not against another)."""
    if not groups:
        raise UsageError("At least one results directory is needed.")
    if len(groups) < 2 and not alone:
        raise UsageError(
            "At least two results directories are needed (the first is the baseline), "
            "or one with --reference to set it beside the published figures."
        )
    if len(groups) > 26:
        raise UsageError("At most 26 results directories can be compared.")
    systems = []
    for index, group in enumerate(groups):
        letter = chr(ord("A") + index)
        loaded: list[tuple[Path, ResultsDocument]] = []
        seen: set[Path] = set()
        for path in group:
            folder = path if path.is_dir() else path.parent
            if folder.resolve() in seen:
                raise UsageError(f"{folder} is given twice among the runs of {letter}.")
            seen.add(folder.resolve())
            loaded.append((folder, load(path)))
        (first, doc), *more = loaded
        systems.append(System(letter, first, doc, tuple(more)))
    return systems


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


def _pooled_samples(
    system: System, runs: Sequence[MetricSummary | None], reader: SamplesReader
) -> list[float] | None:
    """Every raw sample of every run of a system, or None when one run lacks them."""
    values: list[float] = []
    for run, metric in zip(system.runs(), runs, strict=True):
        if metric is None:
            return None
        found = reader(run, metric)
        if not found:
            return None
        values.extend(found)
    return values


def _pooled(
    system: System, runs: Sequence[MetricSummary | None], reader: SamplesReader
) -> MetricSummary | None:
    """A system's cell: its only run's statistics, or those of its runs' pooled samples.
    A metric some run of the system lacks is not pooled (the runs differ)."""
    if len(runs) == 1:
        return runs[0]
    if any(m is None for m in runs):
        return None
    present = [m for m in runs if m is not None]
    return pool.pool(present, _pooled_samples(system, runs, reader))


def _distribution(
    system: System,
    runs: Sequence[MetricSummary | None],
    metric: MetricSummary,
    reader: SamplesReader,
) -> tuple[cstats.Distribution | None, str]:
    values = _pooled_samples(system, runs, reader)
    if values:
        return cstats.from_samples(values), ""
    total = sum(b.count for b in metric.histogram)
    if metric.histogram and total == metric.count:
        return cstats.from_histogram(metric.histogram), ""
    return None, f"{system.letter} has neither raw samples nor a histogram of every sample"


def _run_levels(runs: Sequence[MetricSummary | None]) -> cstats.RunLevels:
    present = [m for m in runs if m is not None]
    return cstats.RunLevels(
        tuple(m.p50 for m in present),
        tuple(m.p99 for m in present),
        tuple(m.p99_9 for m in present),
    )


def _difference(
    systems: Sequence[System],
    run_cells: Sequence[Sequence[MetricSummary | None]],
    cells: Sequence[MetricSummary | None],
    index: int,
    lib: bool | None,
    min_change: float,
    reader: SamplesReader,
    pairing: exact.Pairing | None = None,
) -> cstats.Difference | None:
    base, cell = cells[0], cells[index]
    if base is None or cell is None:
        return None
    note = ""
    if pairing is not None and pairing.exact:
        found = exact.difference(
            (systems[0], systems[index]), (run_cells[0], run_cells[index]), lib, pairing, reader
        )
        if isinstance(found, cstats.Difference):
            return found
        note = found
    tested = _tested(systems, run_cells, cells, index, lib, min_change, reader)
    return replace(tested, note=note) if note else tested


def _tested(
    systems: Sequence[System],
    run_cells: Sequence[Sequence[MetricSummary | None]],
    cells: Sequence[MetricSummary | None],
    index: int,
    lib: bool | None,
    min_change: float,
    reader: SamplesReader,
) -> cstats.Difference:
    """The statistical tests of one metric of system `index` against the baseline."""
    base, cell = cells[0], cells[index]
    assert base is not None and cell is not None
    da, why_a = _distribution(systems[0], run_cells[0], base, reader)
    db, why_b = _distribution(systems[index], run_cells[index], cell, reader)
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
        runs=(_run_levels(run_cells[0]), _run_levels(run_cells[index])),
    )


def _resolution_ns(*systems: System) -> float:
    """The coarser of the systems' effective counter steps, in ns (0: not known)."""
    steps = [
        Resolution.of_counter(run.doc.calibration.counter).step_ns
        for s in systems
        for run in s.runs()
        if run.doc.calibration is not None
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
    per_run: dict[MetricKey, list[list[MetricSummary | None]]] = {}
    for index, system in enumerate(systems):
        for run_index, run in enumerate(system.runs()):
            for m in _all_metrics(run):
                key = _key(m)
                if key not in per_run:
                    order.append(key)
                    per_run[key] = [[None] * s.n_runs for s in systems]
                if per_run[key][index][run_index] is None:
                    per_run[key][index][run_index] = m
    differ = sidebyside.other_os(systems)
    param_notes = params.merge(order, per_run, differ)
    groups = cgroups.of(systems)
    pairings = [
        None,
        *(
            exact.pairing(systems[0], other) if cgroups.comparable(groups, 0, i) else None
            for i, other in enumerate(systems[1:], start=1)
        ),
    ]
    rows: list[MetricRow] = []
    for key in order:
        run_cells = tuple(tuple(runs) for runs in per_run[key])
        row_cells = [_pooled(systems[i], runs, reader) for i, runs in enumerate(run_cells)]
        first = next(c for c in row_cells if c is not None)
        label = next((c.label for c in row_cells if c is not None and c.label), None)
        lib = units.lower_is_better(first.unit)
        diffs = tuple(
            None
            if i == 0 or not cgroups.comparable(groups, 0, i)
            else _difference(systems, run_cells, row_cells, i, lib, min_change, reader, pairings[i])
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
                run_cells=run_cells,
                # two kernels share no functions: their paths are set side by side
                paths=tuple(
                    () if d else p
                    for d, p in zip(differ, pathdiff.for_metric(systems, row_cells), strict=True)
                ),
                sides=sidebyside.for_metric(systems, row_cells, differ),
                param_notes=tuple(param_notes.get(key, {}).get(i, "") for i in range(len(systems))),
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
    ratings = _ratings(systems, rows, verdict_rows, failing, min_change, groups, reader)
    why = cgroups.sentence(groups, [s.letter for s in systems])
    config = configuration(systems, groups)
    return Comparison(
        systems=tuple(systems),
        metrics=tuple(rows),
        verdicts=tuple(verdict_rows),
        warnings=(
            *config.warnings,
            *(p.sentence for p in pairings if p is not None and p.warn),
        ),
        failing=failing,
        ratings=tuple(ratings),
        statuses=tuple(_status_lines(systems)),
        min_change=min_change,
        notes=(
            *((why,) if why else ()),
            *(p.sentence for p in pairings if p is not None and p.sentence and not p.warn),
            *codesize.lines(systems),
        ),
        pairings=tuple(pairings),
        services=capabilities.table(systems),
        groups=groups,
        compared=config.compared,
        details=config.details,
    )


def _ratings(
    systems: Sequence[System],
    rows: Sequence[MetricRow],
    verdict_rows: Sequence[VerdictRow],
    failing: Sequence[Sequence[str]],
    min_change: float,
    groups: Sequence[cgroups.Group],
    reader: SamplesReader,
) -> list[FamilyRating]:
    """Behaviour over every system; each time family within each comparable group
    (the baseline's against it; another group against its own first system)."""
    if len(groups) == 1 and groups[0].rated:
        return rate(systems, rows, verdict_rows, failing, min_change)
    parts: list[tuple[list[str], list[FamilyRating]]] = []
    for group in groups:
        if not group.rated:
            continue
        who = [systems[i].letter for i in group.members]
        if group.members[0] == 0:
            found = rate(systems, rows, verdict_rows, failing, min_change, group.members)
        else:
            sub = build([systems[i] for i in group.members], min_change=min_change, reader=reader)
            found = list(sub.ratings)
        parts.append((who, found))
    behaviour = rate(systems, rows, verdict_rows, failing, min_change, ())[0]
    return [behaviour, *combine([s.letter for s in systems], parts)]


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
# Host facts compared as a run fact instead ("kernel sources"), so a difference
# is said once.
_AS_RUN_FACTS = (
    "kernel.checkout.digest",
    "kernel.checkout.modified",
    "kernel.checkout.modified_reason",
    "kernel.checkout.files",
)
_HOST_LINES_MAX = 12
_FILES_SHOWN = 8


def _flatten(value: Any, prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    if isinstance(value, Mapping):
        for k, v in value.items():
            path = f"{prefix}.{k}" if prefix else str(k)
            if any(path == p or path.startswith(p + ".") for p in _VOLATILE + _AS_RUN_FACTS):
                continue
            out.update(_flatten(v, path))
    else:
        out[prefix] = json.dumps(value, sort_keys=True, default=str)
    return out


_PER_RUN_CONDITION_KEYS = ("units", "functions", "critical_sections")


def _settings_text(doc: ResultsDocument) -> str:
    changes = sorted(
        f"{c.get('setting')}={c.get('applied')}" for c in doc.settings.get("changes", [])
    )
    return ", ".join(changes) or "none"


def _run_facts(system: System) -> dict[str, str]:
    doc, run = system.doc, system.doc.run
    meta = first_meta(doc)
    counter = doc.calibration.counter if doc.calibration is not None else None
    conditions = dict(run.conditions or {})
    # The load by its summary (first: a run under --load against one without is the
    # point of such a comparison); any other condition of the run as it was stored.
    # A condition's per-unit account (a trace's log sizes, reads, lost events) differs
    # from run to run of one setup, and what the image holds (how many functions) with
    # the code measured, which the kernel lines already name: the setup is the rest.
    # A path trace's table of critical-section functions belongs to the RTOS, which
    # "OS" already compares.
    other_conditions = {
        k: {n: x for n, x in v.items() if n not in _PER_RUN_CONDITION_KEYS}
        if isinstance(v, Mapping)
        else v
        for k, v in conditions.items()
        if k != LOAD_KEY
    }
    return {
        "load": load_summary(conditions) or "none",
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
        "run conditions": json.dumps(other_conditions, sort_keys=True, default=str)
        if other_conditions
        else "none",
        "OS": _os_text(doc),
        "kernel sources": _kernel_sources(doc),
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


def _kernel_sources(doc: ResultsDocument) -> str:
    """A kernel built from a checkout (FreeRTOS): its release, the digest of its
    files built and whether they are modified; "-" for any other kernel."""
    kernel = doc.host.get("kernel")
    checkout = kernel.get("checkout") if isinstance(kernel, Mapping) else None
    if not isinstance(checkout, Mapping):
        return "-"
    release = checkout.get("tag") or "unknown release"
    digest = checkout.get("digest")
    if not digest:
        return f"{release}, digest not recorded"
    return f"{release} digest {str(digest)[:12]}, {modified_text(checkout.get('modified'))}"


def _kernel_files(doc: ResultsDocument) -> Mapping[str, Any] | None:
    kernel = doc.host.get("kernel")
    checkout = kernel.get("checkout") if isinstance(kernel, Mapping) else None
    files = checkout.get("files") if isinstance(checkout, Mapping) else None
    return files if isinstance(files, Mapping) and files else None


def _kernel_files_differ(
    a: ResultsDocument, b: ResultsDocument, letters: tuple[str, str] = ("A", "B")
) -> str:
    """The kernel source files whose content differs between two firmware results
    (changed, or built by one side only), "" when none or not recorded."""
    fa, fb = _kernel_files(a), _kernel_files(b)
    if fa is None or fb is None:
        return ""
    names = sorted(n for n in set(fa) | set(fb) if fa.get(n) != fb.get(n))

    def label(name: str) -> str:
        only = letters[0] if name in fa else letters[1]
        return name if name in fa and name in fb else f"{name} (only {only})"

    shown = [label(n) for n in names[:_FILES_SHOWN]]
    if len(names) > _FILES_SHOWN:
        shown.append(f"{len(names) - _FILES_SHOWN} more")
    return ", ".join(shown)


def os_config_differences(base: System, system: System) -> list[str]:
    """The OS build-time configuration each image reported (meta os_config) where
    it differs from the baseline's: its kind and each setting. Unknown (a run
    whose meta has none) is not a difference."""
    a_meta, b_meta = first_meta(base.doc), first_meta(system.doc)
    a_config, b_config = (m.get("os_config") if m else None for m in (a_meta, b_meta))
    if not isinstance(a_config, Mapping) or not isinstance(b_config, Mapping):
        return []
    out = []
    letter = system.letter
    if a_config.get("name") != b_config.get("name"):
        out.append(
            f"OS configuration differs: {base.letter} {a_config.get('name') or '?'}, "
            f"{letter} {b_config.get('name') or '?'}."
        )
    a_items = {n: (v, where) for n, v, where in os_settings(a_meta)}
    b_items = {n: (v, where) for n, v, where in os_settings(b_meta)}
    for name in [*a_items, *(n for n in b_items if n not in a_items)]:
        a_value = a_items.get(name, ("not reported", ""))[0]
        b_value, where = b_items.get(name, ("not reported", a_items.get(name, ("", ""))[1]))
        if a_value != b_value:
            source = f" ({where})" if where else ""
            out.append(
                f"OS setting {name}{source} differs: {base.letter} {a_value}, {letter} {b_value}."
            )
    return out


def _shared_sections(
    one: Mapping[str, Any], other: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The flattened host facts of two systems running different operating
    systems, without the kernel's build facts and without the sections only one
    of them has (an RTOS port's own configuration and notes)."""

    def section(key: str) -> str:
        return key.split(".", 1)[0]

    shared = {section(k) for k in one} & {section(k) for k in other} - {"kernel"}
    return (
        {k: v for k, v in one.items() if section(k) in shared},
        {k: v for k, v in other.items() if section(k) in shared},
    )


# Run facts the user chooses between when comparing systems: named once in the
# header ("what is compared") when systems differ in target or OS, not warned of.
_CHOSEN = ("origin", "OS", "kernel sources", "port", "C library", "counter")


@dataclass(frozen=True)
class Configuration:
    """The differences between the systems, sorted by what they mean: `compared`,
    the differences chosen (target, OS, board, configuration), named once;
    `warnings`, differences nobody chose between systems timed by one clock;
    `details`, facts that differ because the systems or their machines differ."""

    compared: tuple[str, ...]
    warnings: tuple[str, ...]
    details: tuple[str, ...]


def _target_text(system: System) -> str:
    run = system.doc.run
    info = run.target_info or {}
    parts = [str(run.target)]
    shift = cgroups._shift(info)
    if info.get("emulated"):
        parts.append(f"-icount shift={shift}" if shift is not None else "no -icount")
    return ", ".join(parts)


def _os_config_name(system: System) -> str:
    meta = first_meta(system.doc)
    config = meta.get("os_config") if meta else None
    return str(config.get("name") or "-") if isinstance(config, Mapping) else "-"


def _chosen(system: System, other: System) -> bool:
    """Whether two systems differ in what a user chooses: target or OS."""
    a, b = system.doc.run, other.doc.run
    return a.target != b.target or _os_text(system.doc) != _os_text(other.doc)


def _compared_lines(systems: Sequence[System]) -> list[str]:
    """One line per chosen fact in which some systems differ: every system's value."""
    facts = [_run_facts(s) for s in systems]
    named = {
        "target": [_target_text(s) for s in systems],
        **{n: [f[n] for f in facts] for n in ("OS", "kernel sources", "port", "C library")},
        "OS configuration": [_os_config_name(s) for s in systems],
        "counter": [f["counter"] for f in facts],
    }
    out = []
    for name, values in named.items():
        if len({v for v in values if v != "-"}) > 1:
            shown = ", ".join(f"{s.letter} {v}" for s, v in zip(systems, values, strict=True))
            out.append(f"{name}: {shown}.")
    return out


def configuration(
    systems: Sequence[System], groups: Sequence[cgroups.Group] | None = None
) -> Configuration:
    """The differences between the systems. Each system is set against the first
    system of its comparable group (the baseline for its group, and the baseline
    for another group's first system). Of two systems timed by one clock, every
    difference they did not choose is a warning; of two timed by different
    clocks, the facts of their setups and hosts are details."""
    groups = cgroups.of(systems) if groups is None else groups
    warnings: list[str] = []
    details: list[str] = []
    for system in systems:
        warnings.extend(_runs_differ(system))
        if not system.doc.run.realtime:
            warnings.append(
                f"{system.letter} ran NOT REAL-TIME: its figures do not show the system."
            )
        if system.doc.run.source is not None:
            warnings.append(
                f"{system.letter} is imported from {system.doc.run.source.get('tool')}: "
                "its figures were measured by another tool, with its own method and resolution."
            )
    chose = False
    for index, system in enumerate(systems[1:], start=1):
        group = cgroups.group_of(groups, index)
        ref = group.members[0] if group.members[0] != index else 0
        base = systems[ref]
        same_clock = cgroups.comparable(groups, ref, index) or len(groups) == 1
        chosen = _chosen(base, system)
        other_os = _os_text(base.doc).split(" ")[0] != _os_text(system.doc).split(" ")[0]
        chose = chose or chosen
        for kind, line in _pair_lines(base, system):
            if (kind == "chosen" and chosen) or (kind == "config" and other_os):
                continue
            (warnings if same_clock else details).append(line)
    compared = _compared_lines(systems) if chose else []
    return Configuration(tuple(compared), tuple(warnings), tuple(details))


def configuration_warnings(systems: Sequence[System]) -> list[str]:
    """The differences between the systems that call for a warning (`configuration`)."""
    return list(configuration(systems).warnings)


def _pair_lines(base: System, system: System) -> list[tuple[str, str]]:
    """Every difference of version, setup and host between a system and the one it
    is set against, each as ("chosen" | "config" | "setup" | "host", sentence)."""
    out: list[tuple[str, str]] = []
    a, b = base.letter, system.letter
    base_facts = _run_facts(base)
    base_host = _flatten(base.doc.host)
    base_caveats = {c.get("code") for c in base.doc.caveats if c.get("severity") == "warning"}
    base_hz = base.doc.calibration.counter.get("hz") if base.doc.calibration else None
    facts = _run_facts(system)
    for name, value in facts.items():
        # "-" is unknown (an imported result has no core, counter or port): not a difference.
        if value != base_facts[name] and "-" not in (value, base_facts[name]):
            kind = "chosen" if name in _CHOSEN else "setup"
            out.append((kind, f"{name} differs: {a} {base_facts[name]}, {b} {value}."))
    # Two ports are two operating systems: "OS", "kernel sources" and "port"
    # already say so, and the kernels' files and build facts have nothing in
    # common to compare line by line.
    other_os = (
        "-" not in (facts["port"], base_facts["port"]) and (facts["port"] != base_facts["port"])
    ) or facts["OS"].split(" ")[0] != base_facts["OS"].split(" ")[0]
    files = None if other_os else _kernel_files_differ(base.doc, system.doc, (a, b))
    if files:
        out.append(("chosen", f"kernel files that differ between {a} and {b}: {files}."))
    # a checked image against a production one of the same RTOS changes the figures
    # however deliberately it was chosen: warned of unless the OSes differ anyway
    out.extend(("config", line) for line in os_config_differences(base, system))
    hz = system.doc.calibration.counter.get("hz") if system.doc.calibration else None
    if base_hz and hz and abs(float(hz) / float(base_hz) - 1.0) > 0.01:
        out.append(
            (
                "chosen",
                f"counter frequency differs: {a} {float(base_hz) / 1e6:,.1f} MHz, "
                f"{b} {float(hz) / 1e6:,.1f} MHz.",
            )
        )
    host = _flatten(system.doc.host)
    compared = base_host
    if other_os:  # each OS's own facts (its kernel, its port's notes) stay its own
        host, compared = _shared_sections(host, base_host)
    differing = sorted(k for k in set(compared) & set(host) if compared[k] != host[k])
    unknown = len(set(compared) ^ set(host))
    for k in differing[:_HOST_LINES_MAX]:
        out.append(
            (
                "host",
                f"host {k} differs: {a} {_short(base_host.get(k))}, {b} {_short(host.get(k))}.",
            )
        )
    if len(differing) > _HOST_LINES_MAX:
        out.append(
            (
                "host",
                f"... and {len(differing) - _HOST_LINES_MAX} more host facts differ "
                f"between {a} and {b} (see results.json).",
            )
        )
    if unknown:
        out.append(
            (
                "host",
                f"{unknown} host facts are recorded in only one of {a} and {b}, "
                "so they cannot be compared.",
            )
        )
    caveats = {c.get("code") for c in system.doc.caveats if c.get("severity") == "warning"}
    if caveats != base_caveats:
        only_a = sorted(str(c) for c in base_caveats - caveats)
        only_b = sorted(str(c) for c in caveats - base_caveats)
        parts = []
        if only_a:
            parts.append(f"only {a}: " + ", ".join(only_a))
        if only_b:
            parts.append(f"only {b}: " + ", ".join(only_b))
        out.append(("host", f"caveats differ ({'; '.join(parts)})."))
    return out


# Facts that may differ between runs of one configuration without making them
# different configurations.
_PER_RUN_FACTS = ("complete",)


def _runs_differ(system: System) -> list[str]:
    """The setup facts in which the runs given as one system differ: such runs are
    not one configuration, and their spread is not run-to-run variance."""
    if not system.more:
        return []
    runs = system.runs()
    facts = [_run_facts(r) for r in runs]
    out = []
    for name, first in facts[0].items():
        values = [f[name] for f in facts]
        if name in _PER_RUN_FACTS or all(v == first for v in values):
            continue
        shown = ", ".join(
            f"{_short(v, 24)} ({r.path.name})" for v, r in zip(values, runs, strict=True)
        )
        out.append(f"{system.letter}'s runs differ in {name}: {shown}.")
    return out


def _short(value: str | None, width: int = 40) -> str:
    if value is None:
        return "(absent)"
    text = value.strip('"')
    return text if len(text) <= width else text[: width - 1] + "…"
