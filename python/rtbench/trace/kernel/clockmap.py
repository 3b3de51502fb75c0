# SPDX-License-Identifier: Apache-2.0
"""Putting the samples' readings on the trace's clock, measured, never assumed.

Two kinds of evidence, both taken during every traced unit:

- sync markers: rtbench writes `rtbench-sync N` into the instance's trace_marker
  between two CLOCK_MONOTONIC reads, a few times before and after the unit. The
  marker's timestamp in the trace and the middle of the two reads are one point of
  the map monotonic -> trace clock (its error: half the reads' spread). The tightest
  point at the start and the tightest at the end give the map's offset and rate.
  On an SSH target or a QEMU guest the reads are the target's: a monotonic read there between two
  markers (trace.kernel.shell_tracefs); the point is then the read, at the middle of the two
  markers, with half their distance as its error.
- the core's clock pairs (`end.clock_pairs`, docs/protocol.md): a counter reading and
  a monotonic reading taken together, at the scenario's start and end.

A `counter` span maps as the identity when the trace clock *is* the counter (x86-tsc
and the TSC): that is checked by mapping the clock pairs' monotonic reading through
the marker fit and comparing with their counter reading; the residual is stored.
A `time_ns` span (the port's monotonic clock) then maps through the clock pairs onto
the counter (their error is tens of nanoseconds, the markers' a few microseconds).
When the check fails, counter readings go through the clock pairs to monotonic and
then through the marker fit, time_ns readings through the marker fit, and the result
says so.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

SYNC_PREFIX = "rtbench-sync"
# The identity check's allowance on top of the measured reading errors.
IDENTITY_SLACK_NS = 20_000.0


@dataclass(frozen=True)
class SyncPoint:
    mono_ns: float  # middle of the two monotonic reads around the marker write
    error_ns: float  # half their spread (or half the spread of two markers around one read)
    trace_ts: float  # the marker's timestamp in the trace (or the middle of two)


@dataclass(frozen=True)
class ClockMap:
    """monotonic ns -> trace units, and counter ticks -> trace units."""

    trace_clock: str
    units_per_ns: float  # trace units per nanosecond
    mono0: float
    trace0: float
    marker_error_ns: float
    counter_method: str  # "identity" | "clock_pairs" | "unavailable"
    counter_residual_ns: float | None
    counter_units_per_tick: float = 1.0
    counter0: float = 0.0
    counter_trace0: float = 0.0
    points: int = 0
    # monotonic readings go through the clock pairs (tens of ns) when the counter is
    # the trace clock, else through the markers (a few µs)
    mono_method: str = "markers"
    pair_mono0: float = 0.0
    pair_trace0: float = 0.0
    pair_units_per_ns: float = 1.0

    def from_mono(self, t_ns: float) -> float:
        if self.mono_method == "clock_pairs":
            return self.pair_trace0 + (t_ns - self.pair_mono0) * self.pair_units_per_ns
        return self.trace0 + (t_ns - self.mono0) * self.units_per_ns

    def from_counter(self, ticks: float) -> float | None:
        if self.counter_method == "identity":
            return ticks
        if self.counter_method == "clock_pairs":
            return self.counter_trace0 + (ticks - self.counter0) * self.counter_units_per_tick
        return None

    def to_ns(self, units: float) -> float:
        """A trace-clock duration in nanoseconds."""
        return units / self.units_per_ns

    def describe(self) -> dict[str, Any]:
        return {
            "trace_clock": self.trace_clock,
            "trace_units_per_ns": round(self.units_per_ns, 9),
            "sync_points": self.points,
            "marker_error_ns": round(self.marker_error_ns, 1),
            "counter_method": self.counter_method,
            "mono_method": self.mono_method,
            "counter_residual_ns": (
                None if self.counter_residual_ns is None else round(self.counter_residual_ns, 1)
            ),
        }


def best_points(points: list[SyncPoint]) -> tuple[SyncPoint, SyncPoint] | None:
    """The tightest point of the first half and of the second half (by time)."""
    if not points:
        return None
    ordered = sorted(points, key=lambda p: p.mono_ns)
    half = max(1, len(ordered) // 2)
    first = min(ordered[:half], key=lambda p: p.error_ns)
    last = min(ordered[half:] or ordered, key=lambda p: p.error_ns)
    return first, last


def fit(
    trace_clock: str,
    points: list[SyncPoint],
    nominal_units_per_ns: float,
    clock_pairs: list[dict[str, Any]],
    counter_hz: float | None,
) -> ClockMap | None:
    """The map of one unit's trace, or None without a usable sync point."""
    chosen = best_points(points)
    if chosen is None:
        return None
    first, last = chosen
    span = last.mono_ns - first.mono_ns
    # A rate from points less than 100 ms apart is mostly their error: use the
    # clock's nominal rate then.
    rate = (last.trace_ts - first.trace_ts) / span if span > 100e6 else nominal_units_per_ns
    marker_error = max(first.error_ns, last.error_ns)
    base = ClockMap(
        trace_clock=trace_clock,
        units_per_ns=rate,
        mono0=first.mono_ns,
        trace0=float(first.trace_ts),
        marker_error_ns=marker_error,
        counter_method="unavailable",
        counter_residual_ns=None,
        points=len(points),
    )
    if not clock_pairs or not counter_hz:
        return base
    pairs = sorted(clock_pairs, key=lambda p: int(p["time_ns"]))
    tick_ns = 1e9 / counter_hz
    residuals = []
    for p in pairs:
        predicted = base.from_mono(float(p["time_ns"]))
        residuals.append((float(p["counter"]) - predicted) / rate)
    worst = max(abs(r) for r in residuals)
    pair_error = max(float(p["error_ticks"]) for p in pairs) * tick_ns
    allowed = IDENTITY_SLACK_NS + 3.0 * (marker_error + pair_error)
    if worst <= allowed:
        identity = replace(base, counter_method="identity", counter_residual_ns=worst)
        first_pair, last_pair = pairs[0], pairs[-1]
        span_ns = float(last_pair["time_ns"]) - float(first_pair["time_ns"])
        if len(pairs) < 2 or span_ns <= 0:
            return identity
        return replace(
            identity,
            mono_method="clock_pairs",
            pair_mono0=float(first_pair["time_ns"]),
            pair_trace0=float(first_pair["counter"]),
            pair_units_per_ns=(float(last_pair["counter"]) - float(first_pair["counter"]))
            / span_ns,
        )
    # Not the same clock: counter -> monotonic through the pairs, then the fit.
    c0, t0 = float(pairs[0]["counter"]), float(pairs[0]["time_ns"])
    if len(pairs) > 1 and float(pairs[-1]["counter"]) - c0 > 0:
        ns_per_tick = (float(pairs[-1]["time_ns"]) - t0) / (float(pairs[-1]["counter"]) - c0)
    else:
        ns_per_tick = tick_ns
    return replace(
        base,
        counter_method="clock_pairs",
        counter_residual_ns=worst,
        counter_units_per_tick=ns_per_tick * rate,
        counter0=c0,
        counter_trace0=base.from_mono(t0),
    )
