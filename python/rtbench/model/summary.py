# SPDX-License-Identifier: Apache-2.0
"""Statistics of one metric, as reports use them.

The core computes the statistics (exact min/max/sum, histogram percentiles);
this module converts them to their base unit (nanoseconds for counter ticks),
checks that they are consistent, and offers the few computations the reports
need on top (histogram totals, the core's percentile rule, summaries of raw
series).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rtbench.model import units

PERCENTILES: tuple[tuple[str, float], ...] = (
    ("p50", 0.50),
    ("p90", 0.90),
    ("p99", 0.99),
    ("p99_9", 0.999),
    ("p99_99", 0.9999),
)


@dataclass(frozen=True)
class Bucket:
    """One histogram bucket: inclusive bounds and the number of samples in it."""

    lower: float
    upper: float
    count: int


@dataclass(frozen=True)
class MetricSummary:
    """One metric's statistics in its base unit (`unit`: ns for times)."""

    scenario: str
    metric: str
    label: str | None
    title: str | None
    params: Mapping[str, Any]
    unit: str
    source_unit: str
    count: int
    min: float | None
    mean: float | None
    p50: float | None
    p90: float | None
    p99: float | None
    p99_9: float | None
    p99_99: float | None
    max: float | None
    stddev: float | None
    max_index: int | None
    warmup: int
    invalid: int
    clamped: int
    raw_count: int
    histogram: tuple[Bucket, ...]

    @property
    def name(self) -> str:
        """`scenario metric` with the params, e.g. `thr.switch.yield switch [threads=10]`."""
        text = f"{self.scenario} {self.metric}"
        if self.params:
            inner = ", ".join(f"{k}={v}" for k, v in self.params.items())
            text += f" [{inner}]"
        return text


def histogram_total(buckets: Sequence[Sequence[int]] | Sequence[Bucket]) -> int:
    """The number of samples in a histogram."""
    total = 0
    for b in buckets:
        total += b.count if isinstance(b, Bucket) else int(b[2])
    return total


def percentile_bucket(
    buckets: Sequence[Sequence[int]], count: int, q: float
) -> tuple[int, int] | None:
    """The bounds of the bucket holding the sample of rank ceil(q * count) (at least
    1); None when the buckets hold fewer samples."""
    if count <= 0:
        raise ValueError("no samples")
    want = q * float(count)
    rank = int(want)
    if rank < want:
        rank += 1
    rank = min(max(rank, 1), count)
    seen = 0
    for lower, upper, n in buckets:
        seen += n
        if seen >= rank:
            return int(lower), int(upper)
    return None


def percentile_from_histogram(
    buckets: Sequence[Sequence[int]], count: int, q: float, vmin: int, vmax: int
) -> int:
    """The core's percentile rule: the middle of the bucket holding the sample of
    rank ceil(q * count) (at least 1), clamped to [vmin, vmax]."""
    bounds = percentile_bucket(buckets, count, q)
    if bounds is None:
        return vmax
    lower, upper = bounds
    mid = lower + (upper - lower) // 2
    return min(max(mid, vmin), vmax)


def summarize(record: Mapping[str, Any], counter_hz: float | None) -> MetricSummary:
    """A `result` record's statistics converted to the base unit of its unit."""
    unit = str(record["unit"])
    stats = record["stats"]

    def conv(key: str) -> float | None:
        value = stats.get(key)
        if value is None:
            return None
        return units.to_base(float(value), unit, counter_hz)

    stddev = stats.get("stddev")
    buckets = tuple(
        Bucket(
            units.to_base(float(lo), unit, counter_hz),
            units.to_base(float(hi), unit, counter_hz),
            int(n),
        )
        for lo, hi, n in record["histogram"]["buckets"]
    )
    return MetricSummary(
        scenario=str(record["scenario"]),
        metric=str(record["metric"]),
        label=record.get("label"),
        title=record.get("title"),
        params=dict(record.get("params", {})),
        unit=units.base_unit(unit),
        source_unit=unit,
        count=int(stats["count"]),
        min=conv("min"),
        mean=conv("mean"),
        p50=conv("p50"),
        p90=conv("p90"),
        p99=conv("p99"),
        p99_9=conv("p99_9"),
        p99_99=conv("p99_99"),
        max=conv("max"),
        # A standard deviation scales like the values (no offset in any unit).
        stddev=None if stddev is None else units.to_base(float(stddev), unit, counter_hz),
        max_index=stats.get("max_index"),
        warmup=int(record["discarded"]["warmup"]),
        invalid=int(record["discarded"]["invalid"]),
        clamped=int(stats.get("clamped", 0)),
        raw_count=int(record["raw"]["count"]),
        histogram=buckets,
    )


def consistency_problems(record: Mapping[str, Any]) -> list[str]:
    """What is wrong with a schema-valid `result` record (empty when it is sound):
    histogram counts that do not add up to the sample count, percentiles out of
    order or disagreeing with the histogram, a mean outside [min, max]."""
    problems: list[str] = []
    stats = record["stats"]
    count = int(stats["count"])
    buckets = record["histogram"]["buckets"]
    name = f"{record['scenario']} {record['metric']}"
    total = histogram_total(buckets)
    if total != count:
        problems.append(f"{name}: histogram holds {total} samples but count is {count}")
    if int(record["raw"]["count"]) > count:
        problems.append(f"{name}: more raw samples ({record['raw']['count']}) than samples")
    if count == 0:
        return problems
    vmin, vmax = int(stats["min"]), int(stats["max"])
    ordered: list[tuple[str, float]] = [("min", vmin)]
    for key, _q in PERCENTILES:
        if stats.get(key) is not None:
            ordered.append((key, float(stats[key])))
    ordered.append(("max", vmax))
    for (ka, va), (kb, vb) in itertools.pairwise(ordered):
        if va > vb:
            problems.append(f"{name}: {ka} ({va:g}) is above {kb} ({vb:g})")
    mean = stats.get("mean")
    if mean is not None and not (vmin - 0.001 <= float(mean) <= vmax + 0.001):
        problems.append(f"{name}: mean {mean} outside [min, max]")
    if total == count and buckets:
        if int(buckets[0][0]) > vmin or int(buckets[-1][1]) < vmax:
            problems.append(f"{name}: min or max outside the histogram's range")
        # The core computes percentiles on its full histogram; buckets it merged
        # to the counter's step (min_width > 1) only bound them.
        merged = int(record["histogram"].get("min_width", 1)) > 1
        for key, q in PERCENTILES:
            reported = stats.get(key)
            if reported is None:
                continue
            if merged:
                bounds = percentile_bucket(buckets, count, q)
                lo, hi = bounds if bounds is not None else (vmin, vmax)
                if not max(lo, vmin) <= int(reported) <= min(hi, vmax):
                    problems.append(
                        f"{name}: {key} is {reported} but the histogram puts it in {lo}..{hi}"
                    )
                continue
            expected = percentile_from_histogram(buckets, count, q, vmin, vmax)
            if int(reported) != expected:
                problems.append(f"{name}: {key} is {reported} but the histogram gives {expected}")
    return problems


@dataclass(frozen=True)
class SeriesSummary:
    """Exact statistics of a raw series (for cross-checks and diagrams)."""

    count: int
    min: float
    max: float
    mean: float
    stddev: float


def summarize_series(values: Sequence[float]) -> SeriesSummary | None:
    """Count, min, max, mean and sample standard deviation of a series."""
    n = len(values)
    if n == 0:
        return None
    mean = math.fsum(values) / n
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return SeriesSummary(n, min(values), max(values), mean, math.sqrt(var))
