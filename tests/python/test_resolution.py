# SPDX-License-Identifier: Apache-2.0
"""The counter's effective resolution and the figures at it (a counter at 2 GHz that
moves in steps of 20 ticks: 10 ns)."""

import dataclasses
from typing import Any

from rtbench.model.resolution import Resolution, at_resolution
from rtbench.model.summary import MetricSummary

STEPPING = {"name": "tsc", "hz": 2_000_000_000, "step_ticks": 20}


def summary(**values: Any) -> MetricSummary:
    base = MetricSummary(
        scenario="s", metric="m", label=None, title=None, params={}, unit="ns",
        source_unit="ticks", count=100, min=None, mean=None, p50=None, p90=None, p99=None,
        p99_9=None, p99_99=None, max=None, stddev=None, max_index=None, warmup=0, invalid=0,
        clamped=0, raw_count=0, histogram=(),
    )  # fmt: skip
    return dataclasses.replace(base, **values)


def test_nominal_and_effective_side_by_side() -> None:
    r = Resolution.of_counter(STEPPING)
    assert r.nominal_ns == 0.5 and r.step_ns == 10.0 and r.measured
    assert "0.500 ns nominal, 10.0 ns effective" in r.describe()
    assert "steps of 20 ticks" in r.describe()
    fine = Resolution.of_counter({"hz": 2_000_000_000, "step_ticks": 1})
    assert fine.step_ns == 0.5 and "every tick" in fine.describe()
    old = Resolution.of_counter({"hz": 2_000_000_000})
    assert not old.measured and "not measured" in old.describe()


def test_figures_within_two_steps_are_marked() -> None:
    r = Resolution.of_counter(STEPPING)
    s = summary(min=10.0, p50=40.0, p99=55.0, p99_9=200.0, max=5000.0, mean=48.0)
    marked = at_resolution(s, r)
    assert "min" in marked  # within 20 ns of zero
    assert {"p50", "p99"} <= marked  # within 20 ns of each other
    assert "mean" not in marked  # an average: only its distance to zero counts
    assert "p99_9" not in marked and "max" not in marked
    # equal readings: at the resolution of a stepping counter, exact on a fine one
    same = summary(min=100.0, p50=300.0, p99=300.0, max=900.0)
    assert {"p50", "p99"} <= at_resolution(same, r)
    fine1 = Resolution.of_counter({"hz": 2_000_000_000, "step_ticks": 1})
    assert at_resolution(same, fine1) == frozenset()
    # on a fine counter (0.5 ns steps) the same figures are all resolved
    fine = Resolution.of_counter({"hz": 2_000_000_000, "step_ticks": 1})
    assert at_resolution(s, fine) == frozenset()


def test_only_times_are_marked() -> None:
    r = Resolution.of_counter(STEPPING)
    counts = dataclasses.replace(summary(min=1.0, max=2.0), unit="count")
    assert at_resolution(counts, r) == frozenset()
