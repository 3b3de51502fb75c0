# SPDX-License-Identifier: Apache-2.0
"""The look of rtbench's HTML pages: one style sheet and a page shell.

Every HTML report (the evaluation report of a run, a comparison of runs) is one
self-contained file: inline CSS, inline SVG, no script, no external resource,
readable offline and at a phone's width. `shell` wraps a page body; the helpers
below write the pieces every page uses (tables that scroll sideways on a narrow
screen, outcome badges, key-value lists) so pages look alike.

Class names used by the style sheet:

- layout: `header.top` (title block), `nav.toc` (links to sections),
  `section.block` (a top-level section), `.facts` (a grid of `dl` items),
  `.scroll` (a table wrapper that scrolls sideways), `.muted`, `.small`;
- outcomes: `.o-pass`, `.o-fail`, `.o-inconclusive`, `.o-unsupported`,
  `.o-caught`, `.o-missed`, `.o-not_run` (badges), `.st-<status>` (statuses),
  `.banner` (a red warning block);
- tables: `table.tbl` (compact), `td.n` (numbers), `tr.grp` (a group heading
  row), `.narrow-hide` (columns hidden on a phone);
- charts (see `rtbench.report.svg`): `svg.chart`, `svg.spark`, `.k0` to `.k4`
  (series colours, also for legend keys `span.key`), `.ax`, `.gr`, `.tk`,
  `.ttl`, `.mark`, `.ref`, `.xl` and `.yl` (groups of tick labels), `.xt` and
  `.yt` (axis titles).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

CSS = """
:root{--fg:#1b1f24;--muted:#5b6470;--line:#d5d9df;--bg2:#f3f5f8;--k0:#2f6db5;--k1:#d9822b;
--k2:#2a9d5c;--k3:#c0392b;--k4:#7d5ba6;--pass:#1b7f37;--fail:#c62828;--warn:#a15c00}
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;
max-width:78rem;padding:.8rem 1.2rem 3rem;color:var(--fg);line-height:1.4;font-size:15px}
h1{font-size:1.45rem;margin:.3rem 0}h2{font-size:1.25rem;margin:2rem 0 .6rem;
border-bottom:2px solid var(--line);padding-bottom:.2rem}
h3{font-size:1.08rem;margin:1.6rem 0 .3rem}h4{font-size:.98rem;margin:1.1rem 0 .25rem}
p{margin:.35rem 0}code{font-size:.92em}a{color:#1f5fa8}
header.top{border-bottom:2px solid var(--line);padding-bottom:.4rem}
header.top p{margin:.15rem 0}
.muted{color:var(--muted)}.small{font-size:.85rem}
nav.toc{font-size:.9rem;margin:.4rem 0;display:flex;flex-wrap:wrap;gap:.1rem .9rem}
nav.toc a{white-space:nowrap}
.facts{display:grid;grid-template-columns:repeat(auto-fit,minmax(13rem,1fr));gap:.25rem 1rem;
margin:.3rem 0;font-size:.9rem}
.facts div{border-left:3px solid var(--line);padding:.1rem .5rem}
.facts dt{font-size:.78rem;color:var(--muted);text-transform:uppercase;letter-spacing:.03em}
.facts dd{margin:0;font-weight:600;overflow-wrap:anywhere}
.lead{display:grid;grid-template-columns:minmax(0,1.15fr) minmax(0,1fr);gap:0 1.6rem;
align-items:start}
.lead h3{margin:.6rem 0 .2rem}.nw{white-space:nowrap}
.answer{background:var(--bg2);border-left:4px solid var(--k0);padding:.5rem .8rem;margin:.7rem 0}
.answer p{margin:.2rem 0}
.banner{background:#fde2e1;border:2px solid var(--fail);padding:.6rem 1rem;font-weight:bold}
ul.caveats{margin:.3rem 0;padding-left:1.2rem}ul.caveats li{margin:.15rem 0}
ul.caveats details summary{cursor:pointer}
.scroll{overflow-x:auto;max-width:100%;-webkit-overflow-scrolling:touch}
table.tbl{border-collapse:collapse;margin:.3rem 0 .8rem;font-size:.88rem}
table.tbl th,table.tbl td{border-bottom:1px solid var(--line);padding:.18rem .5rem;
vertical-align:top;text-align:left}
table.tbl th{background:var(--bg2);font-weight:600;white-space:nowrap}
table.tbl td.n,table.num td{text-align:right;font-variant-numeric:tabular-nums;
white-space:nowrap}table.num td.t{text-align:left;white-space:normal}
table.sum th:nth-child(n+3):nth-child(-n+7){text-align:right}
table.tbl tr.grp td{background:#fafbfc;font-weight:600;padding-top:.45rem}
table.kv th{text-align:left;width:1%}
.badge{display:inline-block;font-weight:700;font-size:.78rem;padding:.05rem .4rem;
border-radius:.25rem;color:#fff;white-space:nowrap}
.o-pass,.o-caught{background:var(--pass)}.o-fail,.o-missed{background:var(--fail)}
.o-inconclusive{background:var(--warn)}.o-unsupported,.o-not_run{background:#6b7280}
.st-ok{color:var(--pass)}.st-error,.st-timeout,.st-crashed,.st-lost{color:var(--fail);font-weight:600}
.st-stopped,.st-unsupported,.st-interrupted{color:var(--warn)}.st-not_implemented{color:#777}
.charts{display:flex;flex-wrap:wrap;gap:.8rem 1.2rem;margin:.3rem 0 .6rem}
figure{margin:0;flex:1 1 28rem;max-width:40rem;min-width:0}
figcaption{font-size:.82rem;color:var(--muted)}
svg.chart{width:100%;height:auto;display:block;background:#fcfcfd;border:1px solid #e6e9ed}
svg.chart text{font-size:11px;fill:#333;font-family:inherit}svg .xl,svg .xt,svg .yt{
text-anchor:middle}svg .yl{text-anchor:end}
svg.chart .ttl{font-size:11px;fill:var(--muted)}
svg.chart .ax{stroke:#8a929c;fill:none}svg.chart .gr{stroke:#eceff3;fill:none}
svg.chart .tk{stroke:#8a929c}svg.chart .ref{stroke:#8a929c;stroke-dasharray:4 3;fill:none}
.k0{fill:var(--k0);stroke:var(--k0)}.k1{fill:var(--k1);stroke:var(--k1)}
.k2{fill:var(--k2);stroke:var(--k2)}.k3{fill:var(--k3);stroke:var(--k3)}
.k4{fill:var(--k4);stroke:var(--k4)}
svg .ln{fill:none;stroke-width:1.6}svg .col{fill:none;stroke-width:1}
svg .dots{stroke-width:2.6;stroke-linecap:round}
svg.chart .ref.k1,svg.chart .ref.k2{stroke-dasharray:2 5;opacity:.8}
svg.chart .ref.k1{stroke:var(--k1)}svg.chart .ref.k2{stroke:var(--k2)}
svg .pt{stroke:none}svg .mark{stroke:none}
svg.spark{width:7.5rem;height:.9rem;vertical-align:middle;display:inline-block}
svg.spark .p99{stroke:var(--k0);stroke-width:5}svg.spark .max{fill:var(--k3)}
span.key{display:inline-block;width:.8rem;height:.55rem;margin:0 .25rem 0 .6rem;
border-radius:.1rem}
span.key.k0{background:var(--k0)}span.key.k1{background:var(--k1)}
span.key.k2{background:var(--k2)}span.key.k3{background:var(--k3)}
span.key.k4{background:var(--k4)}
details{margin:.3rem 0}details>summary{cursor:pointer;color:#1f5fa8}
pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.82rem}
footer{margin-top:2.5rem;font-size:.82rem;color:var(--muted)}
@media (max-width:56rem){.lead{grid-template-columns:1fr}}
@media (max-width:40rem){
body{padding:.5rem .6rem 2rem;font-size:14px}h1{font-size:1.2rem}h2{font-size:1.1rem}
table.tbl{font-size:.8rem}table.tbl th,table.tbl td{padding:.15rem .3rem}
.narrow-hide{display:none}figure{flex-basis:100%}svg.chart text,svg.chart .ttl{font-size:13.5px}
table.stack,table.stack tbody{display:block}table.stack tr:first-child{display:none}
table.stack tr{display:flex;flex-wrap:wrap;align-items:baseline;column-gap:.6rem;
border-bottom:1px solid var(--line);padding:.15rem 0}
table.stack td{border:0;padding:.05rem 0}table.stack td.n{text-align:left}
table.stack td.full{flex-basis:100%}table.stack td.grow{flex:1 1 70%}
table.stack tr.grp td{background:none;padding-top:.4rem}
table.stack td[data-k]::before,table.sum td:nth-child(n+4):nth-child(-n+7)::before{
color:var(--muted);font-size:.75rem}table.stack td[data-k]::before{content:attr(data-k) " "}
table.sum td:nth-child(4)::before{content:"med "}table.sum td:nth-child(5)::before{
content:"p99 "}table.sum td:nth-child(6)::before{content:"p99.9 "}
table.sum td:nth-child(7)::before{content:"max "}
.facts{grid-template-columns:1fr 1fr;gap:.2rem .6rem}}
@media print{nav.toc{display:none}body{max-width:none;padding:0;font-size:11pt}
h2,h3{break-after:avoid}tr,figure,svg.chart{break-inside:avoid}
.scroll{overflow:visible}table.tbl{font-size:8.5pt}table.tbl th{white-space:normal}
details>summary{color:inherit}.badge{border:1px solid #000;color:#000;background:none}
.noprint{display:none}}
"""


def esc(value: Any) -> str:
    """Text for HTML content or an attribute value."""
    return escape(str(value), quote=True)


def shell(title: str, body: str, *, extra_css: str = "") -> str:
    """A complete page: doctype, viewport for phones, the style sheet, `body`."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{CSS}{extra_css}</style></head>\n"
        f"<body>\n{body}\n</body></html>\n"
    )


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    numeric: Sequence[bool] = (),
    hide_narrow: Sequence[bool] = (),
    raw: bool = False,
    cls: str = "tbl",
) -> str:
    """A table in a sideways-scrolling wrapper. Cells are escaped unless `raw`
    (then they are HTML already). `numeric[i]` right-aligns column i;
    `hide_narrow[i]` hides it on a phone."""

    # Mostly numbers: right-aligned by default, text columns marked (smaller pages).
    mostly = sum(1 for n in numeric if n) * 2 > max(len(headers), 1)
    if mostly:
        cls += " num"

    def attrs(i: int, head: bool) -> str:
        classes = []
        is_number = i < len(numeric) and numeric[i]
        if not head and is_number and not mostly:
            classes.append("n")
        if not head and mostly and not is_number:
            classes.append("t")
        if i < len(hide_narrow) and hide_narrow[i]:
            classes.append("narrow-hide")
        return f' class="{" ".join(classes)}"' if classes else ""

    head = "".join(f"<th{attrs(i, True)}>{esc(h)}</th>" for i, h in enumerate(headers))
    body = "".join(
        "<tr>"
        + "".join(f"<td{attrs(i, False)}>{c if raw else esc(c)}</td>" for i, c in enumerate(row))
        + "</tr>"
        for row in rows
    )
    return f'<div class="scroll"><table class="{cls}"><tr>{head}</tr>{body}</table></div>'


def kv_table(rows: Sequence[tuple[str, Any]]) -> str:
    """A two-column table of names and values."""
    body = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in rows)
    return f'<div class="scroll"><table class="tbl kv">{body}</table></div>'


def facts(items: Sequence[tuple[str, str]]) -> str:
    """Short facts in a responsive grid (name above, value below)."""
    cells = "".join(f"<div><dt>{esc(k)}</dt><dd>{esc(v)}</dd></div>" for k, v in items)
    return f'<dl class="facts">{cells}</dl>'


def badge(word: str, css: str | None = None) -> str:
    """An outcome badge: PASS, FAIL, INCONCLUSIVE, caught, MISSED..."""
    kind = css or word.lower().replace(" ", "_")
    return f'<span class="badge o-{esc(kind)}">{esc(word)}</span>'


def figure(svg: str, caption: str, *, legend: Sequence[tuple[str, str]] = ()) -> str:
    """A chart with its caption; `legend` is (series class, name) pairs."""
    keys = "".join(f'<span class="key {esc(k)}"></span>{esc(name)}' for k, name in legend)
    text = esc(caption) + (f"<br>{keys}" if keys else "")
    return f"<figure>{svg}<figcaption>{text}</figcaption></figure>"


def charts(figures: Sequence[str]) -> str:
    """Figures side by side on a wide screen, one below the other on a phone."""
    return '<div class="charts">' + "".join(figures) + "</div>" if figures else ""
