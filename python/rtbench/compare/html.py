# SPDX-License-Identifier: Apache-2.0
"""The comparison page: one self-contained HTML file with the look of every
rtbench page (`rtbench.report.page`: no script, nothing fetched, readable at a
phone's width).

Every metric has its table and two bar charts side by side, the average and
the maximum of each system, drawn as inline SVG.
"""

from __future__ import annotations

from rtbench import reference
from rtbench.compare import answer, capabilities, pathdiff, publish, sidebyside, wording
from rtbench.compare import significance as cstats
from rtbench.compare.model import Comparison, MetricRow
from rtbench.model import units
from rtbench.report import page
from rtbench.report.page import esc

# Outcome -> badge class of the page style sheet.
_BADGES = {
    "worse": "fail",
    "better": "pass",
    "mixed": "inconclusive",
    "untested": "unsupported",
    "higher": "unsupported",
    "lower": "unsupported",
    "differs": "unsupported",
}
_SERIES = 5  # colour classes k0..k4 of the style sheet


def _bars(title: str, names: list[str], values: list[float | None], unit: str) -> str:
    """A horizontal bar chart, one labelled bar per system."""
    width, bar_h, gap, left, top = 420, 18, 6, 130, 8
    height = top + len(names) * (bar_h + gap) + 4
    known = [v for v in values if v is not None]
    top_value = max(known) if known else 0.0
    span = width - left - 90
    parts = [
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'role="img"><title>{esc(title)}</title>'
    ]
    for i, (name, value) in enumerate(zip(names, values, strict=True)):
        y = top + i * (bar_h + gap)
        parts.append(f'<text x="4" y="{y + 13}">{esc(name[:20])}</text>')
        if value is None:
            parts.append(f'<text x="{left}" y="{y + 13}">-</text>')
            continue
        length = 0.0 if top_value <= 0 else span * value / top_value
        parts.append(
            f'<path class="pt k{i % _SERIES}" '
            f'd="M{left} {y}h{max(length, 1.0):.1f}v{bar_h}h{-max(length, 1.0):.1f}z"/>'
        )
        parts.append(
            f'<text x="{left + length + 4:.1f}" y="{y + 13}">'
            f"{esc(units.format_number(value))} {esc(unit)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _outcome(diff: cstats.Difference | None, text: str) -> str:
    if diff is None or diff.outcome in ("same", "identical"):
        return esc(text)
    word = wording.outcome_word(diff)
    rest = text.split(": ", 1)[1] if ": " in text and diff.exact is None else text
    return f"{page.badge(word, _BADGES.get(diff.outcome))} {esc(rest)}"


def _paths(comparison: Comparison, row: MetricRow) -> str:
    """Each system's path difference against A: a line and a table of the functions."""
    out = []
    for index, system in enumerate(comparison.systems):
        for diff in row.path_changes(index):
            items = [i for i in diff.items(system.letter) if "interrupted" in i]
            out.append(
                f'<p class="small">Path difference of {esc(system.letter)}, '
                f"{esc(diff.head())}{': ' + esc('; '.join(items)) if items else ''}</p>"
            )
            if diff.changes:
                headers = [h.format(system.letter) for h in pathdiff.ROW_HEADERS]
                out.append(page.table(headers, pathdiff.rows(diff), numeric=[False, *([True] * 5)]))
    return "".join(out)


def _sides(row: MetricRow) -> str:
    """Each traced system's typical path beside the others': a summary table, the
    functions ranked by instructions, and each call sequence."""
    sides = [side for side in row.sides if side is not None]
    if not sides:
        return ""
    headers = ["", *(f"{x.letter} {x.system}" for x in sides)]
    sequences = "".join(f"<li>{esc(x.letter)}: {esc(x.sequence_text() or '-')}</li>" for x in sides)
    return (
        f'<p class="small">{esc(sidebyside.title(sides))}</p>'
        + page.table(headers, sidebyside.summary_rows(sides))
        + page.table(
            sidebyside.function_headers(sides),
            sidebyside.function_rows(sides),
            numeric=[bool(i % 3) for i in range(3 * len(sides))],
        )
        + "<details><summary>Functions entered by each typical sample, in order</summary>"
        + f'<ul class="small">{sequences}</ul></details>'
    )


def _services(comparison: Comparison) -> str:
    rows = [[esc(sv.label), *(_service_cell(c) for c in sv.cells)] for sv in comparison.services]
    return (
        '<section class="block"><h2>Services of each system</h2>'
        f'<p class="small muted">{esc(capabilities.source_note())}</p>'
        + page.table(capabilities.headers(comparison.systems), rows, raw=True)
        + "</section>"
    )


_SERVICE_BADGES = {
    capabilities.NATIVE: "pass",
    capabilities.EMULATED: "inconclusive",
    capabilities.NOT_PORTED: "unsupported",
    capabilities.NONE: "fail",
}


def _service_cell(cell: capabilities.Cell) -> str:
    badge = _SERVICE_BADGES.get(cell.status)
    word = page.badge(cell.status, badge) if badge else esc(cell.status)
    return f"{word} {esc(cell.text)}" if cell.text else word


def _publish(comparison: Comparison) -> str:
    """Every metric's figures side by side with the kernels' shares, then the paths
    of the operations whose kernels differ most (compare.publish)."""
    out = [
        f'<section class="block"><h2>{esc(publish.TITLE)}</h2>',
        f'<p class="small muted">{esc(publish.NOTE)}</p>',
        page.table(publish.headers(comparison), publish.figure_rows(comparison)),
        "</section>",
    ]
    spreads = publish.differ_most(comparison)
    if spreads:
        out.append(f'<section class="block"><h2>{esc(publish.DIFFER_TITLE)}</h2>')
        for spread in spreads:
            out.append(f"<h3>{esc(spread.sentence())}</h3>")
            out.append(_sides(spread.row))
        out.append("</section>")
    return "".join(out)


def _metric(comparison: Comparison, row: MetricRow, with_reference: bool) -> str:
    unit_name, div = wording.row_scale(row)
    out = [f"<h3>{esc(row.label or '-')} <code>{esc(row.name)}</code> ({esc(unit_name)})</h3>"]
    if row.title:
        out.append(f'<p class="small muted">{esc(row.title)}</p>')
    rows = []
    for index, system in enumerate(comparison.systems):
        diff = row.differences[index]
        text = (
            wording.base_word(comparison)
            if index == 0
            else wording.NOT_COMPARED
            if not comparison.timed_with_base(index)
            else wording.difference_text(diff, system.letter, row)
        )
        rows.append(
            [
                esc(system.name),
                *(esc(c) for c in wording.stat_cells(row, index, div, comparison)),
                _outcome(diff, text),
            ]
        )
    headers = ["system", *wording.STAT_HEADERS]
    out.append(
        page.table(
            [*headers, "difference"],
            rows,
            numeric=[False, *([True] * 8), False],
            hide_narrow=[False, True, True, False, False, False, False, True, True, False],
            raw=True,
        )
    )
    out += [f'<p class="small">{esc(note)}</p>' for note in row.param_notes if note]
    out.append(_sides(row))
    out.append(_paths(comparison, row))
    names = [s.name for s in comparison.systems]

    def scaled(attribute: str) -> list[float | None]:
        values: list[float | None] = []
        for cell in row.cells:
            value = None if cell is None else getattr(cell, attribute)
            values.append(None if value is None else float(value) / div)
        return values

    out.append(
        page.charts(
            [
                page.figure(
                    _bars(f"{row.name}: average", names, scaled("mean"), unit_name), "average"
                ),
                page.figure(
                    _bars(f"{row.name}: maximum", names, scaled("max"), unit_name),
                    "maximum (a single sample: never tested)",
                ),
            ]
        )
    )
    published = wording.reference_rows(row, div) if with_reference else []
    if published:
        out.append(
            f'<p class="small muted">Published figures in {esc(unit_name)}: other hardware, '
            "other years, measured with hardware tracing; not this machine.</p>"
        )
        out.append(
            page.table(
                ["published system", "min", "avg", "max", "measurement"],
                [list(r) for r in published],
                numeric=[False, True, True, True, False],
            )
        )
    return "".join(out)


def render(comparison: Comparison, *, with_reference: bool = False) -> str:
    systems = comparison.systems
    alone = wording.alone(comparison)
    title = "rtbench comparison: " + (
        wording.heading(comparison) if alone else f"{len(systems)} results"
    )
    body = [
        f'<header class="top"><h1>{esc(title)}</h1>',
        f"<p>{esc(wording.intro(comparison))}</p>",
        *(
            []
            if alone
            else [
                page.table(
                    ["", *(s.letter for s in systems)],
                    [[n, *c] for n, c in answer.table(comparison)],
                ),
                *(f"<p><b>{esc(line)}</b></p>" for line in answer.sentences(comparison)),
            ]
        ),
        page.kv_table([(s.letter, s.describe()) for s in systems]),
        *(
            ["<h2>What is compared</h2><ul>"]
            + [f"<li>{esc(line)}</li>" for line in comparison.compared]
            + ["</ul>"]
            if comparison.compared
            else []
        ),
        *(f"<p>{esc(note)}</p>" for note in comparison.notes),
        "</header>",
    ]
    if comparison.warnings:
        body.append('<div class="banner">Configuration differences: read these first<ul>')
        body += [f"<li>{esc(w)}</li>" for w in comparison.warnings]
        body.append("</ul></div>")
    summary = [f"<li>{esc(line)}</li>" for line in wording.summary_counts(comparison)]
    summary += [f"<li>⚠ {esc(line)}</li>" for line in wording.run_notes(comparison)]
    if not alone:
        body.append('<section class="block"><h2>Rating</h2>')
        body.append(
            page.table(["family", "result"], [[r.family, r.sentence] for r in comparison.ratings])
        )
        body += ["<h3>Summary</h3><ul>", *summary, "</ul></section>"]
    elif summary:
        body += ['<section class="block"><h2>Summary</h2><ul>', *summary, "</ul></section>"]
    if comparison.verdicts:
        rows = []
        for v in comparison.verdicts:
            cells = []
            for i in range(len(systems)):
                outcome = v.outcome(i)
                cells.append("-" if outcome is None else page.badge(outcome.upper(), outcome))
            rows.append([esc(v.label or "-"), esc(f"{v.scenario} {v.check}"), *cells])
        body.append('<section class="block"><h2>Behaviour verdicts</h2>')
        body.append(page.table(["label", "check", *(s.name for s in systems)], rows, raw=True))
        body.append("</section>")
    if comparison.services:
        body.append(_services(comparison))
    if publish.shown(comparison):
        body.append(_publish(comparison))
    if comparison.metrics:
        body.append('<section class="block"><h2>Results</h2>')
        body += [_metric(comparison, row, with_reference) for row in comparison.metrics]
        body.append("</section>")
    if comparison.statuses:
        body.append('<section class="block"><h2>Scenarios that did not end ok everywhere</h2><ul>')
        body += [f"<li>{esc(line)}</li>" for line in comparison.statuses]
        body.append("</ul></section>")
    if comparison.details:
        body.append(f'<section class="block"><h2>{esc(wording.DETAILS_TITLE)}</h2><ul>')
        body += [f"<li>{esc(line)}</li>" for line in comparison.details]
        body.append("</ul></section>")
    if not alone:
        body.append('<section class="block"><h2>Rules</h2><ul>')
        body += [
            f"<li>{esc(rule)}</li>"
            for rule in wording.rules(comparison.min_change, comparison.any_exact)
        ]
        body.append("</ul></section>")
    if with_reference:
        others = wording.other_published(comparison)
        if others:
            body.append('<section class="block"><h2>Other published figures for these labels</h2>')
            body.append('<ul class="small">')
            body += [f"<li>{esc(line)}</li>" for line in others]
            body.append("</ul></section>")
        body.append(f"<footer>{esc(reference.citation())}</footer>")
    return page.shell(title, "\n".join(body))
