# SPDX-License-Identifier: Apache-2.0
"""Inline SVG charts: scales, axes, and the few kinds of chart the reports draw.

Pure functions from numbers to SVG text, with no knowledge of rtbench's
records. Charts scale with the page (`viewBox`, width 100 %), take their
colours from the page's style sheet (`rtbench.report.page`: classes `k0`..`k4`
for series, `ax`, `gr`, `tk`, `ref`), and stay small: long series are reduced
to what a pixel can show (`column_runs`), paths use whole-pixel coordinates.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

Format = Callable[[float], str]

WIDTH = 600
HEIGHT = 240


def _n(value: float) -> str:
    """A coordinate: whole pixels where that is exact enough, else one decimal."""
    r = round(value, 1)
    return str(int(r)) if r == int(r) else f"{r:.1f}"


def _e(text: str) -> str:
    return escape(text, quote=True)


@dataclass(frozen=True)
class Scale:
    """Maps values in [lo, hi] to [0, 1], linearly or logarithmically (lo > 0)."""

    lo: float
    hi: float
    log: bool = False

    def frac(self, value: float) -> float:
        if self.log:
            value = max(value, self.lo)
            span = math.log10(self.hi) - math.log10(self.lo)
            return (math.log10(value) - math.log10(self.lo)) / span if span > 0 else 0.5
        span = self.hi - self.lo
        return (value - self.lo) / span if span > 0 else 0.5

    def ticks(self, most: int = 6) -> list[float]:
        """Tick values inside [lo, hi]: 1-2-5 steps, or decades on a log scale."""
        if self.log:
            return log_ticks(self.lo, self.hi, most)
        return linear_ticks(self.lo, self.hi, most)


def linear_ticks(lo: float, hi: float, most: int = 6) -> list[float]:
    """Round values (1, 2, 2.5 or 5 times a power of ten apart) from lo to hi."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo]
    raw = (hi - lo) / max(most - 1, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    out: list[float] = []
    v = first
    while v <= hi + step * 1e-9 and len(out) < 50:
        out.append(0.0 if abs(v) < step * 1e-9 else v)
        v += step
    return out


def log_ticks(lo: float, hi: float, most: int = 6) -> list[float]:
    """Powers of ten from lo to hi (every other one when there are many); 2 and 5
    times them when the range is under two decades."""
    if lo <= 0 or hi <= lo:
        return [lo]
    first, last = math.ceil(math.log10(lo) - 1e-9), math.floor(math.log10(hi) + 1e-9)
    decades = list(range(first, last + 1))
    if len(decades) >= 2:
        stride = max(1, math.ceil(len(decades) / most))
        return [10.0**d for d in decades[::stride]]
    out: list[float] = []
    for d in range(first - 1, last + 1):
        for m in (1, 2, 5):
            v = m * 10.0**d
            if lo <= v * (1 + 1e-9) and v <= hi * (1 + 1e-9):
                out.append(v)
    return out or [lo, hi]


def padded_log_range(lo: float, hi: float) -> tuple[float, float]:
    """A log range that shows lo and hi with a little room (lo must be > 0)."""
    if hi <= lo:
        return lo / 1.5, hi * 1.5
    return lo / 1.15, hi * 1.15


@dataclass(frozen=True)
class Frame:
    """A chart's plot area inside a WIDTH x HEIGHT canvas."""

    x: Scale
    y: Scale
    width: int = WIDTH
    height: int = HEIGHT
    left: int = 62
    right: int = 14
    top: int = 14
    bottom: int = 40

    @property
    def plot_w(self) -> float:
        return self.width - self.left - self.right

    @property
    def plot_h(self) -> float:
        return self.height - self.top - self.bottom

    def px(self, value: float) -> float:
        return self.left + self.x.frac(value) * self.plot_w

    def py(self, value: float) -> float:
        return self.top + (1.0 - self.y.frac(value)) * self.plot_h

    @property
    def x_end(self) -> float:
        return self.left + self.plot_w

    @property
    def y_end(self) -> float:
        return self.top + self.plot_h

    def axes(
        self,
        x_fmt: Format,
        y_fmt: Format,
        x_title: str,
        y_title: str,
        *,
        x_ticks: Sequence[float] | None = None,
        y_ticks: Sequence[float] | None = None,
    ) -> str:
        """Grid lines, tick labels, axis lines and titles (whole pixels: small)."""
        y_labels: list[str] = []
        x_labels: list[str] = []
        grid: list[str] = []
        x_end, y_end = round(self.x_end), round(self.y_end)
        for v in self.y.ticks() if y_ticks is None else y_ticks:
            y = round(self.py(v))
            if self.top - 1 <= y <= y_end + 1:
                grid.append(f"M{self.left} {y}H{x_end}")
                y_labels.append(f'<text x="{self.left - 5}" y="{y + 4}">{_e(y_fmt(v))}</text>')
        for v in self.x.ticks() if x_ticks is None else x_ticks:
            x = round(self.px(v))
            if self.left - 1 <= x <= x_end + 1:
                grid.append(f"M{x} {self.top}V{y_end}")
                x_labels.append(f'<text x="{x}" y="{y_end + 15}">{_e(x_fmt(v))}</text>')
        middle = round(self.top + self.plot_h / 2)
        return (
            f'<path class="gr" d="{"".join(grid)}"/>'
            f'<path class="ax" d="M{self.left} {self.top}V{y_end}H{x_end}"/>'
            f'<g class="yl">{"".join(y_labels)}</g><g class="xl">{"".join(x_labels)}</g>'
            f'<text class="ttl xt" x="{round(self.left + self.plot_w / 2)}" '
            f'y="{self.height - 4}">{_e(x_title)}</text>'
            f'<text class="ttl yt" transform="translate(12 {middle})rotate(-90)">'
            f"{_e(y_title)}</text>"
        )

    def svg(self, body: str, title: str) -> str:
        """The chart element (accessible name: `title`)."""
        return (
            f'<svg class="chart" viewBox="0 0 {self.width} {self.height}" role="img">'
            f"<title>{_e(title)}</title>{body}</svg>"
        )


# ---- reducing long series ----------------------------------------------------


def column_runs(
    values: Sequence[float],
    columns: int,
    row_of: Callable[[float], int],
    rows: int,
    most: int = 3,
) -> list[list[tuple[int, int]]]:
    """For each of `columns` pixel columns (samples in order), the runs of pixel
    rows that hold at least one sample, at most `most` per column (the closest
    runs are joined first): every sample stays visible (a spike, a second line)
    and the drawing grows with the pixels, not with the samples. Rows are 0
    (top) to rows-1; values beyond are put on the edge."""
    n = len(values)
    occupied: list[set[int]] = [set() for _ in range(columns)]
    for i, v in enumerate(values):
        c = min(i * columns // n, columns - 1) if n else 0
        occupied[c].add(min(max(row_of(v), 0), rows - 1))
    out: list[list[tuple[int, int]]] = []
    for rows_set in occupied:
        runs: list[tuple[int, int]] = []
        for r in sorted(rows_set):
            if runs and r <= runs[-1][1] + 1:
                runs[-1] = (runs[-1][0], r)
            else:
                runs.append((r, r))
        while len(runs) > most:
            gaps = [runs[i + 1][0] - runs[i][1] for i in range(len(runs) - 1)]
            i = gaps.index(min(gaps))
            runs[i : i + 2] = [(runs[i][0], runs[i + 1][1])]
        out.append(runs)
    return out


def runs_path(
    runs: Sequence[Sequence[tuple[int, int]]], x0: float, col_w: float, y0: float, row_h: float
) -> str:
    """Vertical strokes for `column_runs` output (one path, relative moves: short)."""
    d: list[str] = []
    pen: tuple[int, int] | None = None
    for c, col in enumerate(runs):
        x = round(x0 + (c + 0.5) * col_w)
        for top, bottom in col:
            y1 = round(y0 + top * row_h)
            length = max(round((bottom + 1 - top) * row_h), 1)
            if pen is None:
                d.append(f"M{x} {y1}v{length}")
            else:
                d.append(f"m{x - pen[0]} {y1 - pen[1]}v{length}")
            pen = (x, y1 + length)
    return "".join(d).replace(" -", "-")


# ---- charts ----------------------------------------------------------------


def series_chart(
    values: Sequence[float],
    y: Scale,
    y_fmt: Format,
    *,
    title: str,
    y_title: str,
    x_title: str = "sample",
    columns: int = 130,
    most: int = 2,
    refs: Sequence[tuple[float, str]] = (),
    first_index: int = 0,
    dots: bool = False,
) -> str:
    """Every sample in order (x) against its value (y), at most `most` strokes
    per pixel column. Samples above the scale are drawn on the top edge, with a
    mark; `refs` are (value, colour class) dashed lines behind the samples;
    `first_index` numbers the first sample on the x axis; `dots` draws thick
    strokes (for a few samples per column)."""
    n = len(values)
    last = first_index + max(n - 1, 1)
    frame = Frame(Scale(first_index, last), y)
    rows = int(frame.plot_h)
    above = [False] * columns

    def row_of(v: float) -> int:
        return int((1.0 - y.frac(v)) * rows)

    runs = column_runs(values, columns, row_of, rows, most)
    for i, v in enumerate(values):
        if v > y.hi:
            above[min(i * columns // n, columns - 1)] = True
    col_w = frame.plot_w / columns
    body = frame.axes(
        lambda v: f"{v:,.0f}", y_fmt, x_title, y_title, x_ticks=linear_ticks(first_index, last, 5)
    )
    # Few samples: each is a dot, not a hairline.
    sparse = " dots" if dots or n <= 2 * columns else ""
    for value, k in refs:
        yy = _n(frame.py(value))
        body += f'<path class="ref {k}" d="M{frame.left} {yy}H{_n(frame.x_end)}"/>'
    path = runs_path(runs, frame.left, col_w, frame.top, 1.0)
    body += f'<path class="col k0{sparse}" d="{path}"/>'
    marks = "".join(
        f"M{_n(frame.left + (c + 0.5) * col_w - 3)} {frame.top + 5}l3 -6l3 6z"
        for c, hit in enumerate(above)
        if hit
    )
    if marks:
        body += f'<path class="mark k3" d="{marks}"/>'
    return frame.svg(body, title)


def step_outline(bars: Sequence[tuple[int, int, int]], base: int) -> str:
    """One closed outline for bars (left, right, top) in order along x: adjacent
    bars share edges, so the path is about half the size of separate rectangles."""
    if not bars:
        return ""
    d = [f"M{bars[0][0]} {base}"]
    x = bars[0][0]
    at_base = True
    for left, right, top in bars:
        if left > x:
            if not at_base:
                d.append(f"V{base}")
            d.append(f"H{left}")
        d.append(f"V{top}H{right}")
        x, at_base = right, False
    d.append(f"V{base}z")
    return "".join(d)


@dataclass(frozen=True)
class Bin:
    """A histogram bar: the values it covers and how many samples fell there."""

    lower: float
    upper: float
    count: int


def histogram_chart(
    bins: Sequence[Bin],
    x: Scale,
    x_fmt: Format,
    *,
    title: str,
    x_title: str,
    marks: Sequence[tuple[float, str]] = (),
    columns: int = 160,
) -> str:
    """Bars with a logarithmic count axis (as in OSADL's latency plots). Bins
    whose middles share a pixel column are added together; labelled dashed
    lines mark `marks` (median, p99, max...)."""
    frame0 = Frame(x, Scale(1, 10))
    width = frame0.plot_w
    merged: dict[int, list[float]] = {}
    for b in bins:
        if b.count <= 0:
            continue
        mid = (b.lower + b.upper) / 2
        c = min(max(int(x.frac(mid) * columns), 0), columns - 1)
        x0, x1 = x.frac(b.lower) * width, x.frac(b.upper) * width
        cur = merged.get(c)
        if cur is None:
            merged[c] = [x0, x1, b.count]
        else:
            cur[0], cur[1], cur[2] = min(cur[0], x0), max(cur[1], x1), cur[2] + b.count
    top = max((v[2] for v in merged.values()), default=1)
    y = Scale(0.7, max(top * 1.6, 10), log=True)
    frame = Frame(x, y)
    body = frame.axes(
        x_fmt, lambda v: f"{v:,.0f}", x_title, "samples (log)", y_ticks=log_ticks(1, y.hi, 7)
    )
    base = round(frame.y_end)
    min_w = width / columns
    bars: list[tuple[int, int, int]] = []
    for c in sorted(merged):
        x0, x1, count = merged[c]
        x0, x1 = max(x0, 0.0), min(x1, width)
        if x1 - x0 < min_w:
            mid = (x0 + x1) / 2
            x0, x1 = mid - min_w / 2, mid + min_w / 2
        left = round(frame.left + x0)
        right = max(round(frame.left + x1), left + 1)
        if bars and left < bars[-1][1]:
            left = bars[-1][1]
            right = max(right, left + 1)
        bars.append((left, right, round(frame.py(count))))
    body += f'<path class="pt k0" d="{step_outline(bars, base)}"/>'
    for i, (value, label) in enumerate(marks):
        xx = frame.px(value)
        near_end = xx > frame.x_end - 8 * len(label) - 6
        body += (
            f'<path class="ref" d="M{_n(xx)} {frame.top}V{_n(base)}"/>'
            f'<text x="{_n(xx - 3 if near_end else xx + 3)}" y="{frame.top + 10 + 12 * i}"'
            + (' text-anchor="end"' if near_end else "")
            + f">{_e(label)}</text>"
        )
    return frame.svg(body, title)


@dataclass(frozen=True)
class Line:
    """A series of (x, y) points drawn as a line with dots, in colour class `k`."""

    name: str
    points: tuple[tuple[float, float], ...]
    k: str = "k0"
    line: bool = True


def xy_chart(
    lines: Sequence[Line],
    x: Scale,
    y: Scale,
    x_fmt: Format,
    y_fmt: Format,
    *,
    title: str,
    x_title: str,
    y_title: str,
    x_ticks: Sequence[float] | None = None,
) -> str:
    """Lines through points; a point above the y scale is drawn as a triangle on
    the top edge (its value is in the tables)."""
    frame = Frame(x, y)
    body = frame.axes(x_fmt, y_fmt, x_title, y_title, x_ticks=x_ticks)
    for series in lines:
        coords = []
        dots = []
        # Dots only where they can be told apart; clipped points are always marked.
        dotted = len(series.points) <= 40
        for xv, yv in series.points:
            px = frame.px(xv)
            if yv > y.hi:
                dots.append(f"M{_n(px - 4)} {frame.top + 6}l4 -7l4 7z")
                coords.append((px, float(frame.top)))
            else:
                py = frame.py(yv)
                coords.append((px, py))
                if dotted:
                    dots.append(
                        f"M{_n(px - 2.2)} {_n(py)}a2.2 2.2 0 1 0 4.4 0a2.2 2.2 0 1 0 -4.4 0"
                    )
        if series.line and len(coords) > 1:
            d = "M" + "L".join(f"{_n(a)} {_n(b)}" for a, b in coords)
            body += f'<path class="ln {series.k}" d="{d}"/>'
        if dots:
            body += f'<path class="pt {series.k}" d="{"".join(dots)}"/>'
    return frame.svg(body, title)


@dataclass(frozen=True)
class BarGroup:
    """One category of a grouped bar chart: a label and one value per series."""

    label: str
    values: tuple[float, ...]


def grouped_bars_chart(
    groups: Sequence[BarGroup],
    series: Sequence[tuple[str, str]],
    y: Scale,
    y_fmt: Format,
    *,
    title: str,
    x_title: str,
    y_title: str,
    annotate: int | None = None,
) -> str:
    """Bars side by side per category; `series` are (name, colour class).
    Zero (or below the scale) draws nothing. `annotate` writes the value of that
    series above its bar when it is not zero."""
    frame = Frame(Scale(0, max(len(groups), 1)), y, bottom=52)
    body = frame.axes(lambda _v: "", y_fmt, x_title, y_title, x_ticks=[])
    slot = frame.plot_w / max(len(groups), 1)
    bar_w = slot * 0.8 / max(len(series), 1)
    paths: list[list[str]] = [[] for _ in series]
    labels = []
    base = frame.y_end
    for g, group in enumerate(groups):
        x0 = frame.left + g * slot + slot * 0.1
        for s, value in enumerate(group.values):
            if value <= 0 or (y.log and value < y.lo):
                continue
            h = base - frame.py(min(value, y.hi))
            xs = x0 + s * bar_w
            paths[s].append(f"M{_n(xs)} {_n(base)}v{_n(-h)}h{_n(bar_w - 0.6)}v{_n(h)}z")
            if annotate == s:
                labels.append(
                    f'<text x="{_n(xs + bar_w / 2)}" y="{_n(base - h - 3)}" '
                    f'text-anchor="middle">{_e(y_fmt(value))}</text>'
                )
        cx = frame.left + (g + 0.5) * slot
        label_lines = group.label.split("\n")
        labels.extend(
            f'<text x="{_n(cx)}" y="{_n(base + 14 + 12 * i)}" text-anchor="middle">'
            f"{_e(text)}</text>"
            for i, text in enumerate(label_lines)
        )
    for s, (_name, k) in enumerate(series):
        if paths[s]:
            body += f'<path class="pt {k}" d="{"".join(paths[s])}"/>'
    return frame.svg(body + "".join(labels), title)


SPARK_W, SPARK_H, SPARK_PAD = 100.0, 10.0, 4.0


def _spark_x(ratio: float, decades: int) -> float:
    f = math.log10(max(ratio, 1.0)) / decades if decades > 0 else 0.0
    return SPARK_PAD + min(f, 1.0) * (SPARK_W - 2 * SPARK_PAD)


def spark_scale(decades: int, ident: str) -> str:
    """The track and decade ticks every `spark_bar` of a table shares, drawn once
    (an invisible SVG holding them under the id `ident`; their colours are
    attributes, since a used copy does not match the page's selectors)."""
    ticks = "".join(f"M{_n(_spark_x(10.0**d, decades))} 2V8" for d in range(1, decades))
    return (
        '<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>'
        f'<g id="{_e(ident)}">'
        f'<path stroke="#d5d9df" stroke-width="2" '
        f'd="M{_n(SPARK_PAD)} 5H{_n(SPARK_W - SPARK_PAD)}"/>'
        f'<path stroke="#b9c0c8" d="{ticks}"/></g></defs></svg>'
    )


def spark_bar(ratio_p99: float | None, ratio_max: float | None, decades: int, scale: str) -> str:
    """A small inline bar on a log scale from 1x to 10^decades x: a thick stroke
    to p99 / median and a dot at max / median, over the track and ticks that
    `spark_scale` drew under the id `scale`."""
    body = f'<use href="#{_e(scale)}"/>'
    if ratio_p99 is not None:
        end = max(_spark_x(ratio_p99, decades), SPARK_PAD + 1)
        body += f'<path class="p99" d="M{_n(SPARK_PAD)} 5H{_n(end)}"/>'
    if ratio_max is not None:
        body += f'<circle class="max" cx="{_n(_spark_x(ratio_max, decades))}" cy="5" r="3.2"/>'
    return f'<svg class="spark" viewBox="0 0 {_n(SPARK_W)} {_n(SPARK_H)}">{body}</svg>'
