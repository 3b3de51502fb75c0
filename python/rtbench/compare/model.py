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

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from rtbench.compare import (
    capabilities,
    codesize,
    configuration,
    exact,
    params,
    pathdiff,
    pool,
    sidebyside,
)
from rtbench.compare import groups as cgroups
from rtbench.compare import significance as cstats
from rtbench.compare.rating import FamilyRating, combine, rate
from rtbench.errors import UsageError
from rtbench.model import units
from rtbench.model.families import family_of
from rtbench.model.records import params_key
from rtbench.model.resolution import Resolution
from rtbench.model.results import ResultsDocument, load, read_samples
from rtbench.model.summary import MetricSummary
from rtbench.model.views import VerdictView, first_meta, verdicts

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
    config = configuration.configuration(systems, groups)
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
