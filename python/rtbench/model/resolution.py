# SPDX-License-Identifier: Apache-2.0
"""What the counter can resolve, and which figures are at that limit.

A counter may move in steps coarser than one tick (the core measures the step: the
`counter` object of the meta record, `docs/protocol.md`). A figure within two steps
of zero cannot be told from zero, and two figures within two steps of each other
cannot be told apart; reports mark such figures "at the counter's resolution"
instead of printing them as if they were exact.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rtbench.model.summary import MetricSummary

# the statistics a report shows, in order
SHOWN = ("min", "p50", "p99", "p99_9", "max", "mean")


@dataclass(frozen=True)
class Resolution:
    """The counter's nominal and effective resolution, in nanoseconds."""

    nominal_ns: float  # one tick
    step_ticks: int  # the effective step, in ticks (1: any tick can show)
    step_ns: float  # the effective step, in nanoseconds
    measured: bool  # False: an older result without the measurement

    @classmethod
    def of_counter(cls, counter: Mapping[str, Any]) -> Resolution:
        hz = float(counter.get("hz") or 0)
        nominal = 1e9 / hz if hz > 0 else 0.0
        step = counter.get("step_ticks")
        if isinstance(step, int) and step >= 1:
            return cls(nominal, step, step * nominal, True)
        return cls(nominal, 1, nominal, False)

    def describe(self) -> str:
        """'0.385 ns nominal, 10.0 ns effective (steps of 26 ticks)'."""
        if not self.measured:
            return f"{self.nominal_ns:.3f} ns per tick (effective step not measured)"
        if self.step_ticks == 1:
            return f"{self.nominal_ns:.3f} ns per tick (the counter shows every tick)"
        return (
            f"{self.nominal_ns:.3f} ns nominal, {self.step_ns:.1f} ns effective "
            f"(the counter moves in steps of {self.step_ticks} ticks)"
        )


def at_resolution(summary: MetricSummary, resolution: Resolution) -> frozenset[str]:
    """The statistics of a time metric (ns) that are within two counter steps of zero
    or of another shown statistic: they are at the counter's resolution."""
    if summary.unit != "ns" or resolution.step_ns <= 0:
        return frozenset()
    limit = 2 * resolution.step_ns
    values = {k: getattr(summary, k) for k in SHOWN}
    present = {k: float(v) for k, v in values.items() if v is not None}
    marked: set[str] = set()
    for key, value in present.items():
        if abs(value) <= limit:
            marked.add(key)
            continue
        if key == "mean":  # an average is not a reading: only its distance to zero counts
            continue
        for other, other_value in present.items():
            if other in (key, "mean") or abs(value - other_value) > limit:
                continue
            # equal readings of a counter that shows every tick are exactly equal
            if other_value != value or resolution.step_ticks > 1:
                marked.add(key)
                break
    return frozenset(marked)
