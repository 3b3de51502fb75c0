# SPDX-License-Identifier: Apache-2.0
"""Units: counter ticks to nanoseconds, and readable numbers for reports.

Reports show times in one unit per row (ns, µs, ms or s), chosen from a
reference value of that row so the numbers of a row compare at a glance.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

TIME_UNITS: tuple[tuple[str, float], ...] = (("ns", 1.0), ("µs", 1e3), ("ms", 1e6), ("s", 1e9))

# Units of the protocol whose values are times, with their size in nanoseconds.
# `ticks` is converted with the counter frequency instead.
_TIME_IN_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


# Every unit a value can be in (the core's protocol units, the base units
# `base_unit` converts them to, and the units of traced figures) and which
# way is better: "lower" (times, sizes, instruction counts), "higher"
# (rates), or None (counts, ratios, percentages: a number with no better
# side). One table for compare, history and the reports alike; a unit the
# core emits that is missing here is a defect (a test reads the core's
# sources for them).
DIRECTION: dict[str, str | None] = {
    "ticks": "lower",
    "ns": "lower",
    "us": "lower",
    "ms": "lower",
    "s": "lower",
    "instructions": "lower",
    "cycles": "lower",
    "bytes": "lower",
    "ops_per_s": "higher",
    "ops/s": "higher",
    "1/s": "higher",
    "count": None,
    "ratio": None,
    "ratio_milli": None,
    "%": None,
    "": None,
}


def lower_is_better(unit: str) -> bool | None:
    """True when a lower value in `unit` is better (times, sizes), False when a
    higher one is (rates), None when neither is, or the unit is not known."""
    direction = DIRECTION.get(unit)
    return None if direction is None else direction == "lower"


def ticks_to_ns(ticks: float, counter_hz: float) -> float:
    """Convert counter ticks to nanoseconds."""
    if counter_hz <= 0:
        raise ValueError(f"counter frequency must be positive, not {counter_hz}")
    return ticks * 1e9 / counter_hz


def is_time(unit: str) -> bool:
    """True when values in `unit` are durations (and reports show them in ns/µs/ms/s)."""
    return unit == "ticks" or unit in _TIME_IN_NS


def base_unit(unit: str) -> str:
    """The unit values are reported in after `to_base`: `ns` for times, `ratio` for
    `ratio_milli`, `ops/s` for `ops_per_s`, the unit itself otherwise."""
    if is_time(unit):
        return "ns"
    if unit == "ratio_milli":
        return "ratio"
    if unit == "ops_per_s":
        return "ops/s"
    return unit


def to_base(value: float, unit: str, counter_hz: float | None) -> float:
    """Convert one value of a protocol unit to its base unit (see `base_unit`)."""
    if unit == "ticks":
        if counter_hz is None:
            raise ValueError("a value in ticks needs the counter frequency")
        return ticks_to_ns(value, counter_hz)
    if unit in _TIME_IN_NS:
        return value * _TIME_IN_NS[unit]
    if unit == "ratio_milli":
        return value / 1000.0
    return float(value)


def time_unit_for(reference_ns: float | None) -> tuple[str, float]:
    """The time unit (name, size in ns) for a row whose typical value is `reference_ns`."""
    if reference_ns is None or not math.isfinite(reference_ns):
        return TIME_UNITS[0]
    chosen = TIME_UNITS[0]
    for name, size in TIME_UNITS:
        if abs(reference_ns) >= size:
            chosen = (name, size)
    return chosen


def format_number(value: float | None) -> str:
    """A number with about three significant digits (more for large values), or `-`."""
    if value is None or not math.isfinite(value):
        return "-"
    magnitude = abs(value)
    if magnitude == 0:
        return "0"
    if magnitude < 10:
        return f"{value:.2f}"
    if magnitude < 100:
        return f"{value:.1f}"
    return f"{value:,.0f}"


def format_count(value: float | None) -> str:
    """An integer count with thousands separators, or `-`."""
    if value is None or not math.isfinite(value):
        return "-"
    return f"{round(value):,}"


def format_duration(ns: float | None) -> str:
    """One duration in the unit that suits it, e.g. `1.50 µs`."""
    if ns is None or not math.isfinite(ns):
        return "-"
    name, size = time_unit_for(ns)
    return f"{format_number(ns / size)} {name}"


def format_seconds(seconds: float | None) -> str:
    """An elapsed time for humans: `0.4 s`, `12.3 s`, `4m05s`, `2h03m`."""
    if seconds is None or not math.isfinite(seconds):
        return "-"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def format_bytes(value: float | None) -> str:
    """A size in B, KiB, MiB or GiB."""
    if value is None or not math.isfinite(value):
        return "-"
    size = float(value)
    for name in ("B", "KiB", "MiB"):
        if abs(size) < 1024:
            return f"{format_number(size)} {name}"
        size /= 1024
    return f"{format_number(size)} GiB"


def row_scale(unit: str, reference: float | None) -> tuple[str, float]:
    """The display unit and divisor for a row of values already in `base_unit(unit)`."""
    if is_time(unit):
        return time_unit_for(reference)
    return base_unit(unit), 1.0


def format_in(value: float | None, unit: str, divisor: float) -> str:
    """A value already in its base unit, divided for display; counts stay integers."""
    if value is None:
        return "-"
    if base_unit(unit) in ("count", "bytes") and divisor == 1.0:
        return format_count(value) if value == round(value) else format_number(value)
    return format_number(value / divisor)


def median(values: Iterable[float]) -> float | None:
    """The median of the finite values, or None when there are none."""
    finite = sorted(v for v in values if math.isfinite(v))
    if not finite:
        return None
    mid = len(finite) // 2
    if len(finite) % 2:
        return finite[mid]
    return (finite[mid - 1] + finite[mid]) / 2
