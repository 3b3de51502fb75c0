# SPDX-License-Identifier: Apache-2.0
"""The diagrams of the evaluation report, from rtbench's records.

Each function returns SVG text (see `rtbench.report.svg`) or None when the
records do not hold what the diagram needs:

- `histogram`: every sample of a metric (the core's full histogram), with a
  logarithmic count axis, and median, p99 and max marked;
- `series`: the raw samples in order (the first N the core kept), reduced to
  what each pixel column holds so every spike stays visible;
- `tick_diagram`: CLK-P-DUR's busy-loop times in order, zoomed on the normal
  loop (lower line) and the loops hit by the tick (upper line);
- `sweep`: one metric measured at several values of one parameter (THR-P-SLS
  switch time against the number of threads, sleep time against the requested
  time), median and p99;
- `versus_table`: a `*_vs_*` table (SEM-P-ARC release time against the number
  of waiters still blocked): min, mean and max against the first column;
- `interrupt_phases`: IRQ-S-SUS's phases, interrupts generated, serviced and
  lost per period.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rtbench.model import units
from rtbench.model.results import ScenarioOutcome
from rtbench.model.summary import MetricSummary
from rtbench.report import svg
from rtbench.report.common import Sweep, is_number


@dataclass(frozen=True)
class Axis:
    """A value axis: its scale, how ticks read, and the unit for the title."""

    scale: svg.Scale
    fmt: svg.Format
    unit: str


def value_axis(lo: float, hi: float, unit: str, *, log: bool, zero: bool = False) -> Axis:
    """An axis for values in a metric's base unit (`ns` for times)."""
    if log:
        lo = max(lo, hi * 1e-9, 1e-9) if lo <= 0 else lo
        a, b = svg.padded_log_range(lo, hi)
        scale = svg.Scale(a, b, log=True)
        if units.is_time(unit):
            return Axis(scale, units.format_duration, "log scale")
        return Axis(scale, lambda v: units.format_in(v, unit, 1.0), f"{unit}, log scale")
    top = hi * 1.05 if hi > 0 else 1.0
    bottom = 0.0 if zero else lo - (hi - lo) * 0.05
    scale = svg.Scale(bottom, top if top > bottom else bottom + 1.0)
    if units.is_time(unit):
        name, div = units.time_unit_for(max(abs(top), abs(bottom)))
        return Axis(scale, lambda v: _plain(v / div), name)
    return Axis(scale, _plain, unit if unit not in ("count", "") else "")


def _plain(value: float) -> str:
    if value == int(value):
        return f"{int(value):,}"
    return units.format_number(value)


def _titled(what: str, axis: Axis) -> str:
    return f"{what} ({axis.unit})" if axis.unit else what


def _wide(lo: float, hi: float) -> bool:
    return lo > 0 and hi / lo > 20


MIN_COLUMNS = 40


def detail(metric_count: int) -> int:
    """Pixel columns per chart for a report of `metric_count` metrics: fewer when
    there are many, so the page stays small (the CSV files keep every sample)."""
    return min(max(6000 // max(metric_count, 1), 60), 130)


def histogram(m: MetricSummary, columns: int = 130) -> str | None:
    """All samples of `m` by value, logarithmic counts."""
    buckets = [b for b in m.histogram if b.count > 0]
    if not buckets or m.count == 0:
        return None
    lo = min(b.lower for b in buckets)
    hi = max(b.upper for b in buckets)
    positive = [b.lower for b in buckets if b.lower > 0]
    log = bool(positive) and hi / min(positive) > 20
    axis = value_axis(min(positive) if log else lo, hi, m.unit, log=log, zero=not log and lo >= 0)
    marks = [(v, name) for v, name in ((m.p50, "median"), (m.p99, "p99"), (m.max, "max")) if v]
    return svg.histogram_chart(
        [svg.Bin(b.lower, b.upper, b.count) for b in buckets],
        axis.scale,
        axis.fmt,
        title=f"Histogram of {m.count:,} samples, logarithmic counts",
        x_title=_titled(m.title or m.metric, axis),
        marks=marks,
        columns=columns,
    )


def series(m: MetricSummary, values: Sequence[float], columns: int = 130) -> str | None:
    """The stored raw samples in order (log values when the spread is wide)."""
    if len(values) < 2:
        return None
    lo, hi = min(values), max(values)
    positive = [v for v in values if v > 0]
    log = bool(positive) and _wide(min(positive), hi)
    axis = value_axis(min(positive) if log else lo, hi, m.unit, log=log, zero=not log and lo >= 0)
    return svg.series_chart(
        values,
        axis.scale,
        axis.fmt,
        title="Value of each sample in order",
        y_title=_titled("value", axis),
        columns=columns,
    )


def _table(outcome: ScenarioOutcome, name: str) -> Mapping[str, Any] | None:
    return next((t for t in outcome.of_type("table") if t.get("name") == name), None)


def _column(table: Mapping[str, Any], name: str) -> int | None:
    for i, col in enumerate(table["columns"]):
        if col["name"] == name:
            return i
    return None


def _cell_base(
    table: Mapping[str, Any], row: Sequence[Any], col: int, hz: float | None
) -> float | None:
    value = row[col] if col < len(row) else None
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    unit = str(table["columns"][col].get("unit") or "")
    if unit == "ticks" and not hz:
        return None
    return units.to_base(float(value), unit, hz) if units.is_time(unit) else float(value)


@dataclass(frozen=True)
class TickLines:
    """CLK-P-DUR's classification: where the two lines are, and the tick period
    when the scenario found one (ns)."""

    normal_min: float
    normal_typical: float
    tick_typical: float
    period: float | None = None


def tick_lines(outcome: ScenarioOutcome) -> TickLines | None:
    table = _table(outcome, "classification")
    hz = outcome.counter_hz
    if table is None:
        return None
    c_class, c_min, c_typ = (_column(table, n) for n in ("class", "min", "typical"))
    if c_class is None or c_min is None or c_typ is None:
        return None
    rows = {str(r[c_class]): r for r in table["rows"] if c_class < len(r)}
    normal, tick = rows.get("normal"), rows.get("tick")
    if normal is None or tick is None:
        return None
    values = (
        _cell_base(table, normal, c_min, hz),
        _cell_base(table, normal, c_typ, hz),
        _cell_base(table, tick, c_typ, hz),
    )
    if any(v is None or v <= 0 for v in values):
        return None
    nmin, ntyp, ttyp = (float(v or 0) for v in values)
    return TickLines(nmin, ntyp, ttyp, _tick_period(outcome)) if ttyp > ntyp else None


def _tick_period(outcome: ScenarioOutcome) -> float | None:
    table = _table(outcome, "summary")
    if table is None or len(table["columns"]) < 2:
        return None
    for row in table["rows"]:
        if row and str(row[0]).startswith("period between"):
            value = _cell_base(table, row, 1, outcome.counter_hz)
            return value if value and value > 0 else None
    return None


TICK_PERIODS_SHOWN = 8


def quiet_window(values: Sequence[float], size: int, threshold: float) -> int:
    """The start of the window of `size` values (steps of half a window) with the
    most values below `threshold`: the stretch where the lower line is clearest."""
    if size >= len(values):
        return 0
    step = max(size // 2, 1)
    best, best_start = -1, 0
    for start in range(0, len(values) - size + 1, step):
        below = sum(1 for v in values[start : start + size] if v < threshold)
        if below > best:
            best, best_start = below, start
    return best_start


def tick_diagram(
    outcome: ScenarioOutcome, m: MetricSummary, values: Sequence[float]
) -> tuple[str, int, int, TickLines] | None:
    """CLK-P-DUR's two-line diagram of about TICK_PERIODS_SHOWN tick periods of
    loops (so single loops stay apart; the stretch where the lower line is
    clearest), the index of the first loop drawn, the number above the window,
    and where the two lines are."""
    lines = tick_lines(outcome)
    if lines is None or len(values) < 2:
        return None
    shown = 4000
    if lines.period is not None:
        shown = round(TICK_PERIODS_SHOWN * lines.period / lines.normal_typical)
    shown = min(max(shown, 500), len(values))
    first = quiet_window(values, shown, (lines.normal_typical + lines.tick_typical) / 2)
    values = values[first : first + shown]
    gap = lines.tick_typical - lines.normal_typical
    # Room for the tick loops of this stretch, within reason (the rest is marked).
    hi = max(lines.tick_typical + 1.5 * gap, min(max(values) * 1.05, 4 * lines.tick_typical))
    lo = max(lines.normal_min - 0.5 * gap, 0.0)
    above = sum(1 for v in values if v > hi)
    name, div = units.time_unit_for(hi)
    chart = svg.series_chart(
        values,
        svg.Scale(lo, hi),
        lambda v: _plain(round(v / div, 3)),
        dots=True,
        title="Busy-loop time of each loop: the clock tick shows as an upper line",
        y_title=f"loop time ({name})",
        x_title="loop",
        most=6,
        first_index=first,
        refs=[(lines.normal_typical, "k2"), (lines.tick_typical, "k1")],
    )
    return chart, first, above, lines


_SWEEP_TITLES = {
    ("thr.switch.yield", "threads"): ("Switch time against the number of threads", "threads"),
    ("clk.tick.config", "requested_ns"): ("Sleep time against the requested time", "requested"),
}


def sweep(s: Sweep) -> tuple[str, str] | None:
    """A sweep's chart and its title: median and p99 against the parameter."""
    meds = [(x, m.p50) for x, m in s.points if m.p50 is not None]
    p99s = [(x, m.p99) for x, m in s.points if m.p99 is not None]
    if len(meds) < 2:
        return None
    title, x_name = _SWEEP_TITLES.get(
        (s.scenario, s.param), (f"{s.metric} against {s.param}", s.param)
    )
    unit = s.points[0][1].unit
    xs = [x for x, _ in s.points]
    x_log = min(xs) > 0 and max(xs) / min(xs) > 20
    if min(xs) == 0 and max(xs) > 0:
        # A zero beside values decades apart: draw it at the left edge of a log scale.
        positive = [x for x in xs if x > 0]
        x_log = max(positive) / min(positive) > 20
    if x_log:
        low = min(x for x in xs if x > 0)
        x_scale = svg.Scale(low / 1.5, max(xs) * 1.5, log=True)
        ticks: list[float] | None = [x for x in xs if x > 0]
    else:
        x_scale = svg.Scale(min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1)
        ticks = None
    x_is_time = s.param.endswith("_ns")
    top = max(v for _, v in p99s + meds if v is not None)
    axis = value_axis(0.0, top, unit, log=False, zero=True)
    lines = [
        svg.Line("median", tuple((x, float(v)) for x, v in meds if v is not None), "k0"),
        svg.Line("p99", tuple((x, float(v)) for x, v in p99s if v is not None), "k1"),
    ]
    chart = svg.xy_chart(
        lines,
        x_scale,
        axis.scale,
        units.format_duration if x_is_time else (lambda v: f"{v:,.0f}"),
        axis.fmt,
        title=title,
        x_title=x_name + (" (log scale)" if x_log else ""),
        y_title=_titled(s.metric, axis),
        x_ticks=ticks,
    )
    return chart, title


def versus_table(record: Mapping[str, Any], hz: float | None) -> str | None:
    """A `<y>_vs_<x>` table: its min, mean and max columns against its first column."""
    columns = record["columns"]
    if len(columns) < 2 or not record["rows"]:
        return None
    wanted = [(name, k) for name, k in (("min", "k2"), ("mean", "k0"), ("max", "k3"))]
    cols = [(name, k, _column(record, name)) for name, k in wanted]
    present = [(name, k, c) for name, k, c in cols if c is not None]
    if not present:
        return None
    unit = str(columns[present[0][2]].get("unit") or "")
    lines = []
    top = 0.0
    for name, k, c in present:
        pts = []
        for row in record["rows"]:
            x = row[0] if row else None
            y = _cell_base(record, row, c, hz)
            if is_number(x) and y is not None:
                pts.append((float(x), y))
        pts.sort()
        if pts:
            lines.append(svg.Line(name, tuple(pts), k))
            top = max(top, *(p[1] for p in pts))
    if not lines:
        return None
    xs = [p[0] for line in lines for p in line.points]
    mean_line = next((line for line in lines if line.name == "mean"), lines[0])
    typical = sorted(p[1] for p in mean_line.points)[len(mean_line.points) // 2]
    # A few large maxima must not flatten the mean: clip at 3x the typical mean.
    y_top = min(top, typical * 3) if typical > 0 else top
    axis = value_axis(0.0, y_top, units.base_unit(unit), log=False, zero=True)
    x_name = str(columns[0]["name"]).replace("_", " ")
    return svg.xy_chart(
        lines,
        svg.Scale(min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1),
        axis.scale,
        lambda v: f"{v:,.0f}",
        axis.fmt,
        title=str(record.get("title") or record["name"]),
        x_title=x_name,
        y_title=_titled("time", axis),
    )


def interrupt_phases(record: Mapping[str, Any]) -> str | None:
    """IRQ-S-SUS: generated, serviced and lost interrupts of each phase, in run order."""
    cols = {name: _column(record, name) for name in ("period", "generated", "serviced", "lost")}
    if any(c is None for c in cols.values()) or not record["rows"]:
        return None
    groups = []
    top = 1.0
    unit = str(record["columns"][cols["period"] or 0].get("unit") or "ns")
    for n, row in enumerate(record["rows"], start=1):
        values = []
        for name in ("generated", "serviced", "lost"):
            c = cols[name]
            v = row[c] if c is not None and c < len(row) else None
            values.append(float(v) if is_number(v) else 0.0)
        top = max(top, *values)
        period = row[cols["period"] or 0]
        label = (
            units.format_duration(units.to_base(float(period), unit, None))
            if is_number(period) and units.is_time(unit) and unit != "ticks"
            else str(period)
        )
        groups.append(svg.BarGroup(f"{label}\n#{n}", tuple(values)))
    y = svg.Scale(0.7, top * 2.5, log=True)
    return svg.grouped_bars_chart(
        groups,
        [("generated", "k0"), ("serviced", "k2"), ("lost", "k3")],
        y,
        lambda v: f"{v:,.0f}",
        title="Interrupts generated, serviced and lost per phase",
        x_title="period of each phase, in the order run",
        y_title="interrupts (log)",
        annotate=2,
    )


def ratio_decades(ratios: Sequence[float | None]) -> int:
    """Decades of the summary bars' common scale: enough for the largest ratio (1 to 6)."""
    finite = [r for r in ratios if r is not None and r > 0 and math.isfinite(r)]
    if not finite:
        return 1
    return min(max(math.ceil(math.log10(max(finite)) + 1e-9), 1), 6)
