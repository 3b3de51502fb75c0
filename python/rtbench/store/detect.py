# SPDX-License-Identifier: Apache-2.0
"""Series of stored runs, and where each changed.

A series is one testbed and one metric (or one behaviour check), its runs in
the order of the version under test. Where it changed:

- measured series: `ruptures` (PELT) proposes change points on the log of
  each run's median and p99, scaled by the run-to-run noise; a candidate
  counts only when `rtbench compare --vs` would call the runs after it
  different from the runs before it (rtbench.compare.significance.judge:
  significant on the pooled histograms, beyond the noise band and beyond the
  spread between runs), with at least MIN_BEFORE runs before it and after the
  change before it, and when a t test on the runs' own medians or p99s (log
  scale, the spread within each side pooled, at least the counter's
  resolution) puts the runs after beyond the runs before at p < ALPHA: with a
  short baseline on a noisy host, one run lies beyond three others by chance
  one time in two, and the t test asks how far beyond, against how spread the
  runs are. Maxima are shown but never tested.
- deterministic series (an emulated board with -icount): any change of min,
  median, p99 or p99.9 from one run to the next is a change, at once; a
  change of the maximum alone is shown, not called worse.
- verdicts: an outcome that differs from the run before is a change, at once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType

import numpy as np

from rtbench.compare import significance as cstats
from rtbench.compare.pool import merge_histograms
from rtbench.model import units
from rtbench.model.summary import Bucket, MetricSummary

WINDOW = 10  # runs on each side of a candidate given to the tests
# Runs a measured series needs before a change: with fewer, the spread between runs
# is not known, and a run that merely differs from one or two others is no change.
MIN_BEFORE = 3
_PENALTY = 3.0  # times log(n), for the scaled signal (noise variance about 1)
_NOISE_FLOOR = 0.005  # relative: below half a per cent, run-to-run noise is not resolved
# The runs after a change must lie beyond the runs before at this level in a t test on
# the runs' statistics. Every series is screened at every run (about 140 statistics
# in one quick run of the catalog), so it is strict: under a steady testbed about one
# statistic in a thousand passes it by chance.
ALPHA = 0.001
# The newest run, beyond every run before but not at ALPHA, is shown as a possible
# change when the same test gives p below this (never failing --fail-on-change).
POSSIBLE_ALPHA = 0.05
_VERDICT_RANK = {"pass": 0, "unsupported": 1, "inconclusive": 1, "fail": 2}


def _ruptures() -> ModuleType:
    """ruptures, imported when a history is first searched for changes (it
    brings scipy, which takes longer to import than the rest of rtbench)."""
    import ruptures  # type: ignore[import-untyped]  # noqa: PLC0415

    module: ModuleType = ruptures
    return module


def _stats() -> ModuleType:
    from scipy import stats  # noqa: PLC0415

    return stats


@dataclass(frozen=True)
class Point:
    run: int  # StoredRun.id
    label: str  # the run as the table names it
    version: str
    started: str
    count: int = 0
    min: float | None = None
    median: float | None = None
    p99: float | None = None
    p99_9: float | None = None
    max: float | None = None
    histogram: tuple[Bucket, ...] = ()
    outcome: str | None = None  # verdict series


@dataclass(frozen=True)
class Change:
    index: int  # the first run after the change
    direction: str  # worse, better, higher, lower, changed
    how: str  # by how much, in words
    exact: bool = False
    # False: the newest run lies beyond every run before it, outside the noise band,
    # but not beyond what their spread allows (the t test on the runs): shown, marked
    # as possible, never failing --fail-on-change; the runs after it will tell
    confirmed: bool = True
    p: float = 0.0  # the t test on the runs (0 where none is made)


@dataclass
class Series:
    testbed: str
    testbed_text: str
    target: str
    name: str
    unit: str  # "" for a verdict series
    kind: str  # metric or verdict
    exact: bool
    points: list[Point] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.testbed[:8]} {self.name}"


def _number(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "ns" and value >= 10_000:
        return f"{value / 1000:.1f}us"
    return f"{value:.0f}{unit}" if abs(value) >= 100 else f"{value:.3g}{unit}"


def _relative(before: float, after: float) -> str:
    if before == 0:
        return ""
    return f" ({(after / before - 1) * 100:+.0f} %)"


def _summary(p: Point, unit: str) -> MetricSummary:
    return MetricSummary(
        "", "", None, None, {}, unit, unit, p.count, p.min, None, p.median, None, p.p99,
        p.p99_9, None, p.max, None, None, 0, 0, 0, 0, p.histogram,
    )  # fmt: skip


def _candidates(points: Sequence[Point]) -> list[int]:
    """Change points ruptures finds on the scaled log median and p99 (indices of the
    first run after each change)."""
    if len(points) < 3:
        return []
    columns = []
    for stat in ("median", "p99"):
        values = [getattr(p, stat) for p in points]
        if any(v is None or v <= 0 for v in values):
            continue
        logs = np.log(np.asarray(values, dtype=np.float64))
        diffs = np.diff(logs)
        # the run-to-run noise from successive differences (robust to the steps)
        noise = float(np.median(np.abs(diffs - np.median(diffs)))) * 1.4826 / math.sqrt(2)
        columns.append((logs - logs.mean()) / max(noise, _NOISE_FLOOR))
    if not columns:
        return []
    signal = np.column_stack(columns)
    algo = _ruptures().Pelt(model="l2", min_size=1, jump=1).fit(signal)
    ends = algo.predict(pen=_PENALTY * math.log(len(points)) * signal.shape[1])
    return [int(b) for b in ends if 0 < b < len(points)]


def _resolution(p: Point) -> float:
    """What one run resolves: its narrowest histogram bucket (the counter's step, or
    the finest bucket the stored histogram kept), an upper bound on the step of its
    medians and p99s."""
    return min((b.upper - b.lower for b in p.histogram), default=0.0)


@dataclass(frozen=True)
class RunTest:
    statistic: str  # median or p99
    shift: float  # mean log ratio, after against before
    p: float  # two-sided


def run_t_test(before: Sequence[Point], after: Sequence[Point], stat: str) -> RunTest | None:
    """Student's t on the log of one statistic of each run: the runs after against
    the runs before, with the spread within each side pooled and never taken below
    the relative resolution of the values (a step of the counter over the square
    root of 12: the spread of rounding) or _NOISE_FLOOR.
    With k runs before and j after it has k + j - 2 degrees of freedom, so a run
    must lie far beyond a short, quiet-looking baseline to count."""
    values = [[getattr(p, stat) for p in side] for side in (before, after)]
    if any(v is None or v <= 0 for side in values for v in side):
        return None
    k, j = len(before), len(after)
    if k + j < 3:
        return None
    logs = [np.log(np.asarray(side, dtype=np.float64)) for side in values]
    sq = sum(float(((x - x.mean()) ** 2).sum()) for x in logs)
    rounding = [
        _resolution(p) / (v * math.sqrt(12.0))
        for side, pts in zip(values, (before, after), strict=True)
        for p, v in zip(pts, side, strict=True)
    ]
    sd = max(math.sqrt(sq / (k + j - 2)), _NOISE_FLOOR, *rounding)
    shift = float(logs[1].mean() - logs[0].mean())
    t = shift / (sd * math.sqrt(1.0 / k + 1.0 / j))
    return RunTest(stat, shift, float(2.0 * _stats().t.sf(abs(t), k + j - 2)))


def _confirm(series: Series, cut: int, lo: int, hi: int) -> Change | None:
    """The tests of `rtbench compare --vs`: runs [cut, hi) against runs [lo, cut)."""
    before = series.points[max(lo, cut - WINDOW) : cut]
    after = series.points[cut : min(hi, cut + WINDOW)]
    if not before or not after or any(not p.histogram for p in (*before, *after)):
        return None
    a = [_summary(p, series.unit) for p in before]
    b = [_summary(p, series.unit) for p in after]
    ha, hb = merge_histograms(a), merge_histograms(b)
    levels = [
        cstats.RunLevels(
            tuple(m.p50 for m in side), tuple(m.p99 for m in side), tuple(m.p99_9 for m in side)
        )
        for side in (a, b)
    ]
    diff = cstats.judge(
        cstats.from_histogram(ha),
        cstats.from_histogram(hb),
        ha,
        hb,
        lower_is_better=units.lower_is_better(series.unit),
        runs=(levels[0], levels[1]),
    )
    if diff.outcome not in ("worse", "better", "higher", "lower", "mixed"):
        return None
    tests = [t for t in (run_t_test(before, after, s) for s in ("median", "p99")) if t]
    # ... in the direction the comparison found (either for a mixed change)
    worse = -1 if units.lower_is_better(series.unit) is False else 1
    sign = {"higher": 1, "lower": -1, "worse": worse}
    sign["better"] = -sign["worse"]
    want = sign.get(diff.outcome, 0)
    agree = [t for t in tests if (want * t.shift > 0 if want else t.shift != 0)]
    passed = [t for t in agree if t.p < ALPHA]
    if not agree:
        return None
    # the statistic that moved first, then the other: a change called better on the
    # median can come with a higher p99, and the line shows both
    moved = "p99" if diff.tail in ("higher", "lower", "mixed") else "median"
    if passed and moved not in {t.statistic for t in passed}:
        moved = passed[0].statistic
    parts = []
    for stat in (moved, "median" if moved == "p99" else "p99"):
        values = [getattr(p, stat) for p in before], [getattr(p, stat) for p in after]
        if any(v is None for side in values for v in side):
            continue
        x, y = float(np.median(values[0])), float(np.median(values[1]))
        parts.append(
            f"{stat} {_number(x, series.unit)} -> {_number(y, series.unit)}{_relative(x, y)}"
        )
    p = min(t.p for t in agree)
    how = ", ".join(parts) + (
        f", {len(after)} run(s) after against {len(before)} before"
        f" (t test on the runs: p = {p:.2g}"
        + ("" if passed else f", not below {ALPHA:g}: within what their spread allows")
        + ")"
    )
    return Change(cut, diff.outcome, how, confirmed=bool(passed), p=p)


def _exact_changes(series: Series) -> list[Change]:
    out = []
    for i in range(1, len(series.points)):
        p, q = series.points[i - 1], series.points[i]
        moved = [s for s in ("min", "median", "p99", "p99_9") if getattr(p, s) != getattr(q, s)]
        if moved:
            s = "median" if "median" in moved else moved[0]
            x, y = getattr(p, s), getattr(q, s)
            up = x is not None and y is not None and y > x
            lower_better = units.lower_is_better(series.unit)
            if lower_better is None:
                direction = "higher" if up else "lower"
            else:
                direction = "worse" if up == lower_better else "better"
            delta = "" if x is None or y is None else f" ({y - x:+g}{series.unit})"
            out.append(Change(i, direction, f"{s} {x:g} -> {y:g}{delta}, exact", exact=True))
        elif p.max != q.max:
            out.append(Change(i, "changed", f"max {p.max} -> {q.max} (shown, not judged)", True))
    return out


def _verdict_changes(series: Series) -> list[Change]:
    out = []
    for i in range(1, len(series.points)):
        a, b = series.points[i - 1].outcome or "", series.points[i].outcome or ""
        if a != b:
            ra, rb = _VERDICT_RANK.get(a, 1), _VERDICT_RANK.get(b, 1)
            direction = "worse" if rb > ra else "better" if rb < ra else "changed"
            out.append(Change(i, direction, f"verdict {a} -> {b}", exact=True))
    return out


def detect(series: Series) -> list[Change]:
    """The changes of one series, in order."""
    if series.kind == "verdict":
        return _verdict_changes(series)
    if series.exact:
        return _exact_changes(series)
    cuts: list[int] = []
    for cut in _candidates(series.points):
        if cut - (cuts[-1] if cuts else 0) >= MIN_BEFORE:
            cuts.append(cut)
    bounds = [0, *cuts, len(series.points)]
    found = []
    for k, cut in enumerate(cuts, start=1):
        change = _confirm(series, cut, bounds[k - 1], bounds[k + 1])
        if change is not None and change.confirmed:
            found.append(change)
    # the newest run, when it starts no confirmed change: is it a possible one?
    last = len(series.points) - 1
    lo = max((c for c in cuts if c < last), default=0)
    if last - lo >= MIN_BEFORE and not any(c.index == last for c in found):
        change = _confirm(series, last, lo, last + 1)
        if change is not None and not change.confirmed and change.p < POSSIBLE_ALPHA:
            found.append(change)
    return found
