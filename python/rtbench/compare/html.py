# SPDX-License-Identifier: Apache-2.0
"""The comparison page: one self-contained HTML file (no script, no network).

Every metric has its table and two bar charts side by side, the average and
the maximum of each system, drawn as inline SVG.
"""

from __future__ import annotations

from html import escape

from rtbench import reference, units
from rtbench.compare import wording
from rtbench.compare.model import Comparison, MetricRow

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:72rem;
padding:1rem;color:#1d2330;line-height:1.4}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ccd}
h3{font-size:1rem;margin:1.5rem 0 .3rem}
table{border-collapse:collapse;margin:.4rem 0;font-size:.9rem}
th,td{padding:.2rem .5rem;border-bottom:1px solid #e3e6ee;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.worse,.fail,.mixed{color:#b00020;font-weight:600}.better,.pass{color:#0a7a32}
.same{color:#555}.warn{background:#fff6e0;border-left:4px solid #e0a000;padding:.5rem 1rem}
.charts{display:flex;flex-wrap:wrap;gap:1rem}.charts svg{max-width:100%;height:auto}
.ref{color:#445;font-size:.85rem}.small{font-size:.85rem;color:#445}
.wrap{overflow-x:auto}
"""

_COLORS = ("#3b6fb6", "#d9822b", "#3a9b5c", "#b6403b", "#7c5bb6", "#5b9bb6", "#8a8a3a")


def _bars(title: str, names: list[str], values: list[float | None], unit: str) -> str:
    """A horizontal bar chart, one bar per system, labelled with its value."""
    width, bar_h, gap, left, top = 360, 18, 6, 110, 24
    height = top + len(names) * (bar_h + gap) + 4
    known = [v for v in values if v is not None]
    top_value = max(known) if known else 0.0
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">',
        f'<text x="0" y="15" font-size="13" font-weight="600">{escape(title)}</text>',
    ]
    span = width - left - 70
    for i, (name, value) in enumerate(zip(names, values, strict=True)):
        y = top + i * (bar_h + gap)
        parts.append(f'<text x="0" y="{y + 13}" font-size="12">{escape(name[:16])}</text>')
        if value is None:
            parts.append(f'<text x="{left}" y="{y + 13}" font-size="12">-</text>')
            continue
        length = 0.0 if top_value <= 0 else span * value / top_value
        color = _COLORS[i % len(_COLORS)]
        parts.append(
            f'<rect x="{left}" y="{y}" width="{max(length, 1.0):.1f}" height="{bar_h}" '
            f'fill="{color}"/>'
        )
        parts.append(
            f'<text x="{left + length + 4:.1f}" y="{y + 13}" font-size="12">'
            f"{escape(units.format_number(value))} {escape(unit)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _metric(comparison: Comparison, row: MetricRow, with_reference: bool) -> str:
    unit_name, div = wording.row_scale(row)
    head = (
        f'<h3 id="{escape(row.name)}">{escape(row.label or "-")} '
        f"<code>{escape(row.name)}</code> ({escape(unit_name)})</h3>"
    )
    if row.title:
        head += f'<p class="small">{escape(row.title)}</p>'
    cols = ["system", "samples", "min", "median", "avg", "p99", "max", "×median", "×p99"]
    html = ['<div class="wrap"><table><tr>']
    html += [f"<th>{escape(c)}</th>" for c in [*cols, "difference"]]
    html.append("</tr>")
    for index, system in enumerate(comparison.systems):
        cell = row.cells[index]
        diff = row.differences[index]
        nums = [
            "-" if cell is None else f"{cell.count:,}",
            wording.value(cell, "min", row, div),
            wording.value(cell, "p50", row, div),
            wording.value(cell, "mean", row, div),
            wording.value(cell, "p99", row, div),
            wording.value(cell, "max", row, div),
            "" if index == 0 else wording.ratio(row.ratio(index, "p50")),
            "" if index == 0 else wording.ratio(row.ratio(index, "p99")),
        ]
        css = "" if diff is None else diff.outcome
        text = "baseline" if index == 0 else wording.difference_text(diff, system.letter)
        html.append(f"<tr><td>{escape(system.name)}</td>")
        html += [f'<td class="n">{escape(n)}</td>' for n in nums]
        html.append(f'<td class="{css}">{escape(text)}</td></tr>')
    html.append("</table></div>")
    names = [s.name for s in comparison.systems]

    def scaled(attribute: str) -> list[float | None]:
        out: list[float | None] = []
        for cell in row.cells:
            value = None if cell is None else getattr(cell, attribute)
            out.append(None if value is None else float(value) / div)
        return out

    html.append('<div class="charts">')
    html.append(_bars("average", names, scaled("mean"), unit_name))
    html.append(_bars("maximum (one sample)", names, scaled("max"), unit_name))
    html.append("</div>")
    published = wording.reference_rows(row, div) if with_reference else []
    if published:
        html.append(
            f'<p class="ref">Published figures in {escape(unit_name)}: other hardware, '
            "other years, measured with hardware tracing; not this machine.</p>"
        )
        html.append('<table class="ref"><tr><th>published system</th><th>min</th>')
        html.append("<th>avg</th><th>max</th><th>measurement</th></tr>")
        for system_name, mn, avg, mx, what in published:
            html.append(
                f"<tr><td>{escape(system_name)}</td><td class='n'>{escape(mn)}</td>"
                f"<td class='n'>{escape(avg)}</td><td class='n'>{escape(mx)}</td>"
                f"<td>{escape(what)}</td></tr>"
            )
        html.append("</table>")
    return head + "".join(html)


def render(comparison: Comparison, *, with_reference: bool = False) -> str:
    systems = comparison.systems
    title = f"rtbench comparison: {len(systems)} results"
    body = [f"<h1>{escape(title)}</h1>", "<ul>"]
    body += [f"<li><b>{escape(s.letter)}</b> {escape(s.describe())}</li>" for s in systems]
    body.append("</ul><p>A is the baseline; every other result is tested against it.</p>")
    if comparison.warnings:
        body.append('<div class="warn"><b>Configuration differences</b><ul>')
        body += [f"<li>{escape(w)}</li>" for w in comparison.warnings]
        body.append("</ul></div>")
    body.append("<h2>Rating</h2><table><tr><th>family</th><th>result</th></tr>")
    for r in comparison.ratings:
        body.append(f"<tr><td>{escape(r.family)}</td><td>{escape(r.sentence)}</td></tr>")
    body.append("</table><h2>Summary</h2><ul>")
    body += [f"<li>{escape(line)}</li>" for line in wording.summary_counts(comparison)]
    body.append("</ul>")
    if comparison.verdicts:
        body.append("<h2>Behaviour verdicts</h2><div class='wrap'><table><tr><th>label</th>")
        body.append("<th>check</th>")
        body += [f"<th>{escape(s.name)}</th>" for s in systems]
        body.append("</tr>")
        for v in comparison.verdicts:
            body.append(
                f"<tr><td>{escape(v.label or '-')}</td><td>{escape(v.scenario)} "
                f"{escape(v.check)}</td>"
            )
            for i in range(len(systems)):
                outcome = v.outcome(i)
                body.append(
                    f'<td class="{escape(outcome or "")}">'
                    f"{escape(wording.verdict_word(outcome))}</td>"
                )
            body.append("</tr>")
        body.append("</table></div>")
    if comparison.metrics:
        body.append("<h2>Results</h2>")
        body += [_metric(comparison, row, with_reference) for row in comparison.metrics]
    if comparison.statuses:
        body.append("<h2>Scenarios that did not end ok everywhere</h2><ul>")
        body += [f"<li>{escape(line)}</li>" for line in comparison.statuses]
        body.append("</ul>")
    body.append("<h2>Rules</h2><ul>")
    body += [f"<li>{escape(rule)}</li>" for rule in wording.rules(comparison.min_change)]
    body.append("</ul>")
    if with_reference:
        others = wording.other_published(comparison)
        if others:
            body.append("<h2>Other published figures for these labels</h2><ul class='ref'>")
            body += [f"<li>{escape(line)}</li>" for line in others]
            body.append("</ul>")
        body.append(f"<h2>Reference</h2><p class='ref'>{escape(reference.citation())}</p>")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>"
        + "\n".join(body)
        + "</body></html>\n"
    )
