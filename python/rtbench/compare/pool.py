# SPDX-License-Identifier: Apache-2.0
"""The statistics of a system given as several runs: its runs' samples pooled.

A comparison shows one line per system. When a system is several runs of one
configuration, that line describes all their samples together: counts and
sums add up, minimum and maximum are the extremes, the histograms are merged
bucket by bucket, and the percentiles come from the merged histogram by the
core's rule (the middle of the bucket holding the sample of that rank), as a
single run's do; from the pooled raw samples only when the histograms do not
hold every sample. The runs' own statistics stay in the comparison for the
between-run check.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from rtbench.model.summary import PERCENTILES, Bucket, MetricSummary

# Each percentile needs this many samples (the core reports it from then on).
_NEEDS = {"p50": 1, "p90": 10, "p99": 100, "p99_9": 1000, "p99_99": 10000}


def merge_histograms(runs: Sequence[MetricSummary]) -> tuple[Bucket, ...]:
    """The buckets of every run, those with the same bounds added up, in order."""
    counts: dict[tuple[float, float], int] = {}
    for m in runs:
        for b in m.histogram:
            counts[(b.lower, b.upper)] = counts.get((b.lower, b.upper), 0) + b.count
    return tuple(Bucket(lo, hi, n) for (lo, hi), n in sorted(counts.items()))


def _rank(count: int, q: float) -> int:
    return min(max(math.ceil(q * count), 1), count)


def _from_samples(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[_rank(len(ordered), q) - 1]


def _from_buckets(buckets: Sequence[Bucket], count: int, q: float, lo: float, hi: float) -> float:
    rank, seen = _rank(count, q), 0
    for b in buckets:
        seen += b.count
        if seen >= rank:
            return min(max(b.lower + (b.upper - b.lower) / 2.0, lo), hi)
    return hi


def _pooled_stddev(runs: Sequence[MetricSummary], mean: float, count: int) -> float | None:
    """The standard deviation of the pooled samples from each run's mean and deviation."""
    if count < 2 or any(m.mean is None or m.stddev is None for m in runs):
        return None
    total = 0.0
    for m in runs:
        assert m.mean is not None and m.stddev is not None
        total += (m.count - 1) * m.stddev**2 + m.count * (m.mean - mean) ** 2
    return math.sqrt(total / (count - 1))


def pool(runs: Sequence[MetricSummary], samples: Sequence[float] | None) -> MetricSummary:
    """One summary of several runs' metric. `samples`: every raw sample of every
    run (None when some run did not store all of them)."""
    first = runs[0]
    if len(runs) == 1:
        return first
    count = sum(m.count for m in runs)
    mins = [m.min for m in runs if m.min is not None]
    maxs = [m.max for m in runs if m.max is not None]
    lo, hi = (min(mins) if mins else None), (max(maxs) if maxs else None)
    mean = None
    if count and all(m.mean is not None for m in runs):
        mean = sum(m.count * (m.mean or 0.0) for m in runs) / count
    buckets = merge_histograms(runs)
    whole = bool(samples) and samples is not None and len(samples) == count
    complete = sum(b.count for b in buckets) == count
    quantiles: dict[str, float | None] = {}
    for key, q in PERCENTILES:
        value: float | None = None
        if count >= _NEEDS[key]:
            if complete and lo is not None and hi is not None:
                value = _from_buckets(buckets, count, q, lo, hi)
            elif whole and samples is not None:
                value = _from_samples(samples, q)
        own = [getattr(m, key) for m in runs if getattr(m, key) is not None]
        if value is not None and len(own) == len(runs):
            # A quantile of the pooled samples lies between the runs' own; a bucket's
            # middle can fall outside them where the buckets are coarser than the samples.
            value = min(max(value, min(own)), max(own))
        quantiles[key] = value
    return replace(
        first,
        count=count,
        min=lo,
        max=hi,
        mean=mean,
        p50=quantiles["p50"],
        p90=quantiles["p90"],
        p99=quantiles["p99"],
        p99_9=quantiles["p99_9"],
        p99_99=quantiles["p99_99"],
        stddev=None if mean is None else _pooled_stddev(runs, mean, count),
        max_index=None,
        warmup=sum(m.warmup for m in runs),
        invalid=sum(m.invalid for m in runs),
        clamped=sum(m.clamped for m in runs),
        raw_count=sum(m.raw_count for m in runs),
        histogram=buckets,
    )
