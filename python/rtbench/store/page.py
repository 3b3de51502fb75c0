# SPDX-License-Identifier: Apache-2.0
"""The trend page of `rtbench history --html`: one chart per series, median, p99 and
max per run on a log scale, confirmed changes and verdict changes marked. One
self-contained HTML file, no script, readable at a phone's width."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from rtbench.store.changes import change_kind, change_line, shown_changes
from rtbench.store.detect import Series, _number

_W, _H, _PAD_L, _PAD_R, _PAD_T, _PAD_B = 640, 220, 56, 12, 12, 28
_LINES = (("median", "#1f77b4"), ("p99", "#ff7f0e"), ("max", "#7f7f7f"))

_CSS = """
body{font-family:system-ui,sans-serif;margin:0 auto;padding:12px;max-width:960px;color:#222}
h1{font-size:1.4em}h2{font-size:1.05em;margin:1.6em 0 .3em;overflow-wrap:anywhere}
p.tb{color:#555;font-size:.9em;overflow-wrap:anywhere}
svg{width:100%;height:auto;display:block;background:#fafafa}
ul.changes{font-size:.9em;padding-left:1.2em}li.worse{color:#b00020}li.better{color:#0a6b0a}li.possible{color:#666}
.legend span{margin-right:1em;font-size:.85em}
"""


def _chart(s: Series, since: str | None) -> str:
    shown = [
        (i, p) for i, p in enumerate(s.points) if not since or p.started[: len(since)] >= since
    ]
    values = [v for _i, p in shown for v in (p.median, p.p99, p.max) if v is not None and v > 0]
    if not values:
        return ""
    lo, hi = math.log10(min(values)), math.log10(max(values))
    if hi - lo < 0.05:
        lo, hi = lo - 0.05, hi + 0.05
    plot_w, plot_h = _W - _PAD_L - _PAD_R, _H - _PAD_T - _PAD_B
    n = len(shown)

    def x(k: int) -> float:
        return _PAD_L + (plot_w * (k + 0.5) / n)

    def y(v: float) -> float:
        return _PAD_T + plot_h * (1 - (math.log10(v) - lo) / (hi - lo))

    parts = [
        f'<svg viewBox="0 0 {_W} {_H}" role="img" class="trend" '
        f'aria-label="{html.escape(s.name)} over {n} runs">',
        f'<line x1="{_PAD_L}" y1="{_H - _PAD_B}" x2="{_W - _PAD_R}" y2="{_H - _PAD_B}" '
        'stroke="#999"/>',
    ]
    for v in (10**lo, 10**hi):
        parts.append(
            f'<text x="{_PAD_L - 4}" y="{y(v) + 4:.1f}" font-size="11" text-anchor="end">'
            f"{html.escape(_number(v, s.unit))}</text>"
        )
    where = {i: k for k, (i, _p) in enumerate(shown)}
    for c in s.changes:
        if c.index in where:
            cx = x(where[c.index]) - plot_w / n / 2
            colour = "#b00020" if c.direction in ("worse", "mixed") else "#0a6b0a"
            if not c.confirmed:
                colour = "#888"
            parts.append(
                f'<line class="{change_kind(c).replace(" ", "-")}" x1="{cx:.1f}" '
                f'y1="{_PAD_T}" x2="{cx:.1f}" y2="{_H - _PAD_B}" stroke="{colour}" '
                f'stroke-dasharray="{"4 3" if c.confirmed else "1 3"}">'
                f"<title>{html.escape(change_line(s, c))}</title></line>"
            )
    for stat, colour in _LINES:
        pts = [
            (x(k), y(v))
            for k, (_i, p) in enumerate(shown)
            if (v := getattr(p, stat)) is not None and v > 0
        ]
        if pts:
            path = " ".join(f"{a:.1f},{b:.1f}" for a, b in pts)
            parts.append(
                f'<polyline class="{stat}" points="{path}" fill="none" stroke="{colour}" '
                'stroke-width="1.5"/>'
            )
            for a, b in pts:
                parts.append(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="2" fill="{colour}"/>')
    step = max(1, n // 6)
    for k in range(0, n, step):
        label = shown[k][1].version
        parts.append(
            f'<text x="{x(k):.1f}" y="{_H - 8}" font-size="10" text-anchor="middle">'
            f"{html.escape(label[-16:])}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _verdict_strip(s: Series, since: str | None) -> str:
    cells = []
    for p in s.points:
        if since and p.started[: len(since)] < since:
            continue
        colour = {"pass": "#0a6b0a", "fail": "#b00020"}.get(p.outcome or "", "#999")
        cells.append(
            f'<span title="{html.escape(p.label)}: {html.escape(p.outcome or "")}" '
            f'style="display:inline-block;width:10px;height:14px;margin:1px;'
            f'background:{colour}"></span>'
        )
    return f'<div class="verdicts">{"".join(cells)}</div>'


def render(series: Sequence[Series], since: str | None) -> str:
    body = ["<h1>rtbench history</h1>"]
    if not series:
        body.append("<p>No stored run matches.</p>")
    testbed = None
    for s in series:
        if not any(not since or p.started[: len(since)] >= since for p in s.points):
            continue
        if s.testbed != testbed:
            testbed = s.testbed
            body.append(f'<p class="tb">testbed {s.testbed[:8]}: {html.escape(s.testbed_text)}</p>')
        unit = f" ({s.unit})" if s.unit else ""
        body.append(f'<section class="series"><h2>{html.escape(s.name + unit)}</h2>')
        if s.kind == "verdict":
            body.append(_verdict_strip(s, since))
        else:
            body.append(
                '<div class="legend">'
                + "".join(f'<span style="color:{c}">&#9632; {n}</span>' for n, c in _LINES)
                + "</div>"
            )
            body.append(_chart(s, since))
        changes = shown_changes(s, since)
        if changes:
            body.append('<ul class="changes">')
            for c in changes:
                cls = c.direction if c.confirmed else "possible"
                text = f"{change_kind(c)}: {change_line(s, c)}"
                body.append(f'<li class="{cls}">{html.escape(text)}</li>')
            body.append("</ul>")
        body.append("</section>")
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>rtbench history</title><style>{_CSS}</style></head><body>"
        + "\n".join(body)
        + "</body></html>\n"
    )
