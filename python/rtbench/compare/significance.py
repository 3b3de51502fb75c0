# SPDX-License-Identifier: Apache-2.0
"""Is a difference between two systems real? The tests `rtbench compare` uses.

Latencies are skewed and heavy-tailed, so every test is nonparametric and
each answers one question:

- Location (is the bulk of the distribution shifted?): the Mann-Whitney U
  test, with a 95 % confidence interval of the ratio of the medians from the
  percentile bootstrap. The bootstrap is computed exactly instead of by random
  resampling: the median of n values drawn with replacement is at most v
  exactly when at least ceil(n/2) of them are at most v, a binomial event, so
  the bootstrap distribution of each median is known in closed form and the
  ratio's follows from the two (independent) medians. The result is
  deterministic and costs no time.
- Tail (are large values more frequent, whatever the median does?): the
  fraction of each side's samples above a threshold set by the other system,
  its p99 (and p99.9 when both have at least 10,000 samples) raised by the
  noise band, with Fisher's exact test. A tail counts as heavier when more
  than 1 % (0.1 %) of that side's samples lie above the threshold, which is to
  say its own p99 (p99.9) is beyond the other's raised by the band, and the
  test says the difference in shares is not chance. Mann-Whitney is a
  location test and barely moves when a few per cent of the samples get five
  times slower; this test sees exactly that.
- Maxima are single samples and are never tested.
- Between runs (when a system is given as several runs): the tests above
  treat the pooled samples as independent draws, but a whole run moves from
  one run to the next (placement, caches, the host's other guests). So a
  shift or a heavier tail counts only when it also exceeds the between-run
  spread: every run of one system lies beyond every run of the other, by
  more than the noise band, in the statistic that moved (median, p99 or
  p99.9 of each run). Between identical configurations, whose runs are
  exchangeable, such a separation happens by chance with probability at most
  2 / C(k + j, k) for k and j runs.

A difference counts when it is statistically significant (p < ALPHA) and
large enough to matter: a median ratio beyond the noise band, or a quantile
beyond the other's by more than the band.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from rtbench.compare import ALPHA, CONFIDENCE, DEFAULT_MIN_CHANGE
from rtbench.model.summary import Bucket

if TYPE_CHECKING:
    from rtbench.compare.exact import Exact

__all__ = ["ALPHA", "CONFIDENCE", "DEFAULT_MIN_CHANGE"]

TAIL_QUANTILES: tuple[tuple[str, float, int], ...] = (
    # (name, quantile, samples each side needs)
    ("p99", 0.99, 100),
    ("p99.9", 0.999, 10_000),
)
_PMF_FLOOR = 1e-12
_SUPPORT_MAX = 3000

FloatArray = npt.NDArray[np.float64]


def _stats() -> ModuleType:
    """scipy.stats, imported when a test first needs it: it takes longer to
    import than the rest of rtbench, and most commands never test."""
    from scipy import stats  # noqa: PLC0415

    return stats


@dataclass(frozen=True)
class Distribution:
    """The samples of one metric as sorted distinct values and their counts
    (base unit). `source` says where they come from: `raw` (the stored raw
    series) or `histogram` (bucket midpoints, every sample of the run)."""

    values: FloatArray
    counts: FloatArray
    source: str

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    def expanded(self) -> FloatArray:
        return np.repeat(self.values, self.counts.astype(np.int64))


def from_samples(samples: Sequence[float]) -> Distribution:
    values, counts = np.unique(np.asarray(samples, dtype=np.float64), return_counts=True)
    return Distribution(values, counts.astype(np.float64), "raw")


def from_histogram(buckets: Sequence[Bucket]) -> Distribution:
    """Every sample of a histogram, at the middle of its bucket."""
    mids: dict[float, float] = {}
    for b in buckets:
        mid = (b.lower + b.upper) / 2.0
        mids[mid] = mids.get(mid, 0.0) + b.count
    keys = sorted(mids)
    return Distribution(
        np.asarray(keys, dtype=np.float64),
        np.asarray([mids[k] for k in keys], dtype=np.float64),
        "histogram",
    )


# ---- location ------------------------------------------------------------------


@dataclass(frozen=True)
class LocationTest:
    """Mann-Whitney U of `other` against `base`, and the median ratio other/base."""

    source: str  # raw or histogram
    n_base: int
    n_other: int
    p_value: float
    prob_greater: float  # P(other > base) + P(tie) / 2, the common-language effect size
    ratio: float | None  # median(other) / median(base) of the tested samples
    ci_low: float | None
    ci_high: float | None


def _lower_median(d: Distribution) -> float:
    rank = max(1, math.ceil(0.5 * d.n))
    index = int(np.searchsorted(np.cumsum(d.counts), rank))
    return float(d.values[min(index, len(d.values) - 1)])


def mann_whitney(base: Distribution, other: Distribution) -> tuple[float, float]:
    """(two-sided p-value, P(other > base)) of the Mann-Whitney U test.

    Raw samples go to scipy as they are; histograms (up to hundreds of
    millions of samples) use the same normal approximation with the tie
    correction, computed on the counts of each distinct value."""
    n_a, n_b = base.n, other.n
    if base.source == "raw" and other.source == "raw":
        result = _stats().mannwhitneyu(other.expanded(), base.expanded(), alternative="two-sided")
        return float(result.pvalue), float(result.statistic) / (n_a * n_b)
    values = np.union1d(base.values, other.values)
    ca = np.zeros(len(values))
    cb = np.zeros(len(values))
    ca[np.searchsorted(values, base.values)] = base.counts
    cb[np.searchsorted(values, other.values)] = other.counts
    ties = ca + cb
    total = float(n_a + n_b)
    midranks = np.cumsum(ties) - (ties - 1.0) / 2.0
    u_other = float(np.sum(cb * midranks)) - n_b * (n_b + 1) / 2.0
    mean = n_a * n_b / 2.0
    tie_term = float(np.sum(ties**3 - ties)) / (total * (total - 1.0))
    variance = n_a * n_b / 12.0 * ((total + 1.0) - tie_term)
    if variance <= 0:
        return 1.0, 0.5
    z = (abs(u_other - mean) - 0.5) / math.sqrt(variance)
    p = 2.0 * float(_stats().norm.sf(max(z, 0.0)))
    return min(p, 1.0), u_other / (n_a * n_b)


def _median_bootstrap(d: Distribution) -> tuple[FloatArray, FloatArray]:
    """The exact bootstrap distribution of the (lower) median: values and weights."""
    n = d.n
    rank = max(1, math.ceil(0.5 * n))
    below = np.cumsum(d.counts) / n
    cdf = np.asarray(_stats().binom.sf(rank - 1, n, below), dtype=np.float64)
    cdf[-1] = 1.0
    pmf = np.diff(np.concatenate(([0.0], cdf)))
    keep = pmf > _PMF_FLOOR
    values, weights = d.values[keep], pmf[keep]
    if len(values) > _SUPPORT_MAX:
        top = np.sort(np.argsort(weights)[-_SUPPORT_MAX:])
        values, weights = values[top], weights[top]
    return values, weights / weights.sum()


def median_ratio_ci(
    base: Distribution, other: Distribution, confidence: float = CONFIDENCE
) -> tuple[float, float] | None:
    """The percentile-bootstrap interval of median(other) / median(base), or None
    when the base median can be zero."""
    va, wa = _median_bootstrap(base)
    vb, wb = _median_bootstrap(other)
    if va[0] <= 0:
        return None
    ratios = (vb[:, None] / va[None, :]).ravel()
    weights = (wb[:, None] * wa[None, :]).ravel()
    order = np.argsort(ratios, kind="stable")
    ratios, cumulative = ratios[order], np.cumsum(weights[order])
    tail = (1.0 - confidence) / 2.0
    low = ratios[min(int(np.searchsorted(cumulative, tail)), len(ratios) - 1)]
    high = ratios[min(int(np.searchsorted(cumulative, 1.0 - tail)), len(ratios) - 1)]
    return float(low), float(high)


def location_test(base: Distribution, other: Distribution) -> LocationTest:
    p, prob = mann_whitney(base, other)
    m_base, m_other = _lower_median(base), _lower_median(other)
    ratio = m_other / m_base if m_base > 0 else None
    ci = median_ratio_ci(base, other)
    return LocationTest(
        source=base.source if base.source == other.source else "histogram",
        n_base=base.n,
        n_other=other.n,
        p_value=p,
        prob_greater=prob,
        ratio=ratio,
        ci_low=None if ci is None else ci[0],
        ci_high=None if ci is None else ci[1],
    )


# ---- tail ----------------------------------------------------------------------


@dataclass(frozen=True)
class TailTest:
    """How many samples of each side lie above `threshold`: the upper edge of the
    bucket holding the `quantile` of the `reference` side (base or other), raised
    by the noise band."""

    quantile: str
    nominal: float  # the share beyond the quantile by definition: 0.01 for p99
    reference: str  # "base": is other's tail heavier?  "other": is base's heavier?
    threshold: float
    above_base: float
    n_base: int
    above_other: float
    n_other: int
    p_value: float  # one-sided: the non-reference side has more samples above

    @property
    def frac_base(self) -> float:
        return self.above_base / self.n_base if self.n_base else 0.0

    @property
    def frac_other(self) -> float:
        return self.above_other / self.n_other if self.n_other else 0.0

    def heavier(self, alpha: float = ALPHA) -> bool:
        """Whether the non-reference side's quantile lies beyond the threshold (more than
        the nominal share of its samples above it), significantly more than the other's."""
        if self.reference == "base":
            mine, theirs = self.frac_other, self.frac_base
        else:
            mine, theirs = self.frac_base, self.frac_other
        return self.p_value < alpha and mine > self.nominal and mine > theirs


def quantile_edge(buckets: Sequence[Bucket], q: float) -> float | None:
    """The upper edge of the bucket holding the sample of rank ceil(q * n)."""
    total = sum(b.count for b in buckets)
    if total == 0:
        return None
    rank = max(1, math.ceil(q * total))
    seen = 0
    for b in buckets:
        seen += b.count
        if seen >= rank:
            return b.upper
    return buckets[-1].upper


def count_above(buckets: Sequence[Bucket], threshold: float) -> float:
    """Samples above `threshold`; a bucket that straddles it counts in proportion."""
    above = 0.0
    for b in buckets:
        if b.lower > threshold:
            above += b.count
        elif b.upper > threshold:
            above += b.count * (b.upper - threshold) / (b.upper - b.lower)
    return above


def _fisher_greater(hits: float, n: int, ref_hits: float, ref_n: int) -> float:
    """One-sided Fisher exact p: the first group's fraction of hits is larger."""
    h, r = round(hits), round(ref_hits)
    table = np.array([[h, n - h], [r, ref_n - r]], dtype=np.int64)
    return float(_stats().fisher_exact(table, alternative="greater").pvalue)


def tail_tests(
    base: Sequence[Bucket],
    other: Sequence[Bucket],
    margin: float = DEFAULT_MIN_CHANGE,
    resolution: float = 0.0,
) -> list[TailTest]:
    """Exceedance tests in both directions at each quantile both sides can support.
    The threshold is the quantile raised by the band, and by at least two counter
    steps (`resolution`): a quantile one step up is not a heavier tail."""
    n_base = sum(b.count for b in base)
    n_other = sum(b.count for b in other)
    out: list[TailTest] = []
    for name, q, need in TAIL_QUANTILES:
        if n_base < need or n_other < need:
            continue
        for reference, ref_buckets in (("base", base), ("other", other)):
            edge = quantile_edge(ref_buckets, q)
            if edge is None:
                continue
            edge = max(edge * (1.0 + margin), edge + 2.0 * resolution)
            a, b = count_above(base, edge), count_above(other, edge)
            if reference == "base":
                p = _fisher_greater(b, n_other, a, n_base)
            else:
                p = _fisher_greater(a, n_base, b, n_other)
            out.append(TailTest(name, 1.0 - q, reference, edge, a, n_base, b, n_other, p))
    return out


# ---- the verdict on one metric ---------------------------------------------------


# ---- between runs --------------------------------------------------------------


@dataclass(frozen=True)
class RunLevels:
    """One system's per-run statistics of a metric: the median, p99 and p99.9 of
    each of its runs (None where a run has too few samples for it)."""

    p50: tuple[float | None, ...]
    p99: tuple[float | None, ...]
    p99_9: tuple[float | None, ...]

    @property
    def runs(self) -> int:
        return len(self.p50)

    def of(self, statistic: str) -> tuple[float, ...] | None:
        """The statistic ('median', 'p99', 'p99.9') of every run, or None when a run lacks it."""
        values = {"median": self.p50, "p99": self.p99, "p99.9": self.p99_9}[statistic]
        if any(v is None for v in values):
            return None
        return tuple(float(v) for v in values if v is not None)


@dataclass(frozen=True)
class RunSpread:
    """Whether every run of `other` lies beyond every run of the baseline in one
    statistic, by more than the noise band (and two counter steps)."""

    statistic: str  # median, p99, p99.9
    base: tuple[float, ...]
    other: tuple[float, ...]
    separated: str  # "higher" (other beyond base), "lower", or "none"
    chance: float  # the largest chance of such a separation between identical setups


def separation_chance(k: int, j: int) -> float:
    """The chance that j exchangeable runs all fall above, or all below, k others: 2 / C(k+j, k)."""
    return min(1.0, 2.0 / math.comb(k + j, k))


def run_spread(
    statistic: str,
    base: Sequence[float],
    other: Sequence[float],
    margin: float = DEFAULT_MIN_CHANGE,
    resolution: float = 0.0,
) -> RunSpread:
    def beyond(high: float, low: float) -> bool:
        return high > low * (1.0 + margin) and high - low > 2.0 * resolution

    if beyond(min(other), max(base)):
        separated = "higher"
    elif beyond(min(base), max(other)):
        separated = "lower"
    else:
        separated = "none"
    return RunSpread(
        statistic,
        tuple(base),
        tuple(other),
        separated,
        separation_chance(len(base), len(other)),
    )


def _spread_of(
    statistic: str,
    base: RunLevels,
    other: RunLevels,
    margin: float,
    resolution: float,
) -> RunSpread | None:
    a, b = base.of(statistic), other.of(statistic)
    if a is None or b is None:
        return None
    return run_spread(statistic, a, b, margin, resolution)


# ---- the verdict on one metric ---------------------------------------------------


@dataclass(frozen=True)
class Difference:
    """What the tests say about `other` against `base` for one metric.

    `location` is `higher`, `lower`, `noise` (detectable but inside the noise
    band), `spread` (detectable but inside the between-run spread), `none` or
    `untested`; `tail` is `higher`, `lower`, `mixed` (each side has the
    heavier tail at some threshold), `spread`, `none` or `untested`. `outcome`
    follows the tail when it moved, else the median, and reads `worse`,
    `better`, `mixed`, `same` or `untested` when lower values are better
    (`higher`/`lower` instead of worse/better when the metric has no better
    direction). A comparison of two deterministic runs is exact instead
    (`exact`, location and tail `exact`; see `rtbench.compare.exact`); `note`
    says why a metric of such runs was tested by statistics after all."""

    outcome: str
    location: str
    tail: str
    loc_test: LocationTest | None
    tails: tuple[TailTest, ...]
    reason: str  # why it could not be tested, or ""
    spreads: tuple[RunSpread, ...] = ()  # between-run checks (several runs per system)
    runs: tuple[int, int] = (1, 1)  # runs of the baseline and of the other system
    exact: Exact | None = None
    note: str = ""


def judge(
    base: Distribution | None,
    other: Distribution | None,
    base_hist: Sequence[Bucket],
    other_hist: Sequence[Bucket],
    *,
    lower_is_better: bool | None,
    min_change: float = DEFAULT_MIN_CHANGE,
    why_untested: str = "",
    resolution: float = 0.0,
    runs: tuple[RunLevels, RunLevels] | None = None,
) -> Difference:
    """Apply the rules of the module docstring to one metric. `resolution`: the
    counter's effective step in the metric's unit (0: not known); a median shift of
    at most two steps is at the counter's resolution, never a difference. `runs`:
    the per-run statistics of both systems; when either has several runs, a shift
    or a heavier tail must also exceed the between-run spread."""
    between = runs is not None and runs[0].runs + runs[1].runs > 2
    spreads: list[RunSpread] = []

    def spread(statistic: str) -> RunSpread | None:
        if runs is None or not between:
            return None
        found = next((r for r in spreads if r.statistic == statistic), None)
        if found is None:
            found = _spread_of(statistic, runs[0], runs[1], min_change, resolution)
            if found is not None:
                spreads.append(found)
        return found

    loc: LocationTest | None = None
    location = "untested"
    if base is not None and other is not None and base.n >= 2 and other.n >= 2:
        loc = location_test(base, other)
        location = "none"
        if loc.p_value < ALPHA and loc.ratio is not None:
            ci_excludes_one = (
                loc.ci_low is not None
                and loc.ci_high is not None
                and (loc.ci_low > 1.0 or loc.ci_high < 1.0)
            )
            shift = abs(_lower_median(other) - _lower_median(base))
            if ci_excludes_one:
                if abs(loc.ratio - 1.0) < min_change or shift <= 2.0 * resolution:
                    location = "noise"
                else:
                    location = "higher" if loc.ratio > 1.0 else "lower"
    if between and location in ("higher", "lower"):
        check = spread("median")
        if check is None or check.separated != location:
            location = "spread"
    tails: list[TailTest] = []
    tail = "untested"
    if base_hist and other_hist:
        tails = tail_tests(base_hist, other_hist, min_change, resolution)
        if tails:

            def counts(t: TailTest, direction: str) -> bool:
                if not t.heavier():
                    return False
                if not between:
                    return True
                check = spread(t.quantile)
                return check is not None and check.separated == direction

            up = any(t.reference == "base" and counts(t, "higher") for t in tails)
            down = any(t.reference == "other" and counts(t, "lower") for t in tails)
            tail = "mixed" if up and down else "higher" if up else "lower" if down else "none"
            if tail == "none" and between and any(t.heavier() for t in tails):
                tail = "spread"
    reason = ""
    n_runs = (1, 1) if runs is None else (runs[0].runs, runs[1].runs)
    if location == "untested" and tail == "untested":
        reason = why_untested or "too few samples"
        return Difference(
            "untested", location, tail, loc, tuple(tails), reason, tuple(spreads), n_runs
        )
    # For real-time work the tail comes first: when it moved, it gives the direction even
    # against the median; the median decides only when the tails do not differ.
    if tail == "mixed":
        outcome = "mixed"
    elif tail in ("higher", "lower"):
        outcome = tail
    elif location in ("higher", "lower"):
        outcome = location
    else:
        outcome = "same"
    if lower_is_better is not None and outcome in ("higher", "lower"):
        worse = (outcome == "higher") == lower_is_better
        outcome = "worse" if worse else "better"
    return Difference(outcome, location, tail, loc, tuple(tails), reason, tuple(spreads), n_runs)


def format_p(p: float) -> str:
    if p < 0.001:
        return "p<0.001"
    return f"p={p:.3f}"
