# SPDX-License-Identifier: Apache-2.0
"""The HTML report in a real browser: headless Chromium opens the report of a
quick run of this host at a desktop's and at a phone's width, checks that every
section and chart is laid out and drawn with no console error and no resource
loaded, and saves screenshots to build/test-artifacts/."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser import Browser, find_chromium
from conftest import QuickRun
from rtbench.paths import ROOT
from rtbench.report import html
from test_reports import synthetic_doc

ARTIFACTS = ROOT / "build" / "test-artifacts"
DESKTOP = (1280, 900)
PHONE = (390, 844)

# What the page looks like to a reader, measured by the browser.
LAYOUT = """
const box = e => e.getBoundingClientRect();
const top = id => {
  const e = document.getElementById(id); return e ? box(e).top + scrollY : null; };
const charts = [...document.querySelectorAll('svg.chart')].map(svg => {
  const drawn = [...svg.querySelectorAll('path')].filter(p => {
    const b = p.getBBox(); return b.width > 0 && b.height > 0; }).length;
  return {title: svg.querySelector('title').textContent, width: box(svg).width,
          height: box(svg).height, drawn: drawn};
});
const families = [...document.querySelectorAll('section[id^="fam-"]')].map(s => s.id);
return {
  sections: [...document.querySelectorAll('section')].map(s => [s.id, box(s).height]),
  charts: charts,
  sparks: [...document.querySelectorAll('svg.spark')].map(s => box(s).width),
  families: families,
  verdicts: top('verdicts'), summary: top('summary'),
  firstFamily: families.length ? top(families[0]) : null,
  scrollWidth: document.documentElement.scrollWidth,
  clientWidth: document.documentElement.clientWidth,
  resources: performance.getEntriesByType('resource').length,
};
"""

SPECIAL_CHARTS = {
    "thr.switch.yield": "Switch time against the number of threads",
    "sem.wait.block": "Release time against the number of waiters still blocked",
    "irq.sustained": "Interrupts generated, serviced and lost per phase",
    "clk.tick.duration": "Busy-loop time of each loop: the clock tick shows as an upper line",
}


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    found = find_chromium()
    if found is None:
        reason = (
            "Chromium is not installed: these tests need Debian's chromium and chromium-driver "
            "(tests/run installs them when run as root; or apt-get install chromium "
            "chromium-driver)"
        )
        if os.environ.get("CI"):
            pytest.fail(reason + "; in CI the bootstrap must have installed them")
        pytest.skip(reason)
    with Browser(*found, tmp_path_factory.mktemp("chromium-profile")) as b:
        yield b


def _load(browser: Browser, page: Path, size: tuple[int, int], *, mobile: bool) -> dict[str, Any]:
    browser.emulate(*size, mobile=mobile)
    browser.console()  # forget messages of earlier pages
    browser.open(page.resolve().as_uri())
    layout: dict[str, Any] = browser.run(LAYOUT)
    errors = [m for m in browser.console() if m.get("level") in ("SEVERE", "WARNING")]
    assert errors == [], f"console messages on {page.name}: {errors}"
    assert layout["resources"] == 0, "the page loaded a resource: it must work offline"
    for section, height in layout["sections"]:
        assert height > 0, f"section {section!r} is not laid out"
    for chart in layout["charts"]:
        assert chart["drawn"] >= 2, f"chart {chart['title']!r} draws nothing"
    assert all(w > 20 for w in layout["sparks"])
    return layout


def _tick_found(data: dict[str, Any]) -> bool:
    """Whether clk.tick.duration told tick loops apart (a busy or tickless CPU may not)."""
    for scenario in data["scenarios"]:
        for r in scenario["records"]:
            if r["type"] == "table" and r["name"] == "classification":
                return any(row[0] == "tick" and row[1] for row in r["rows"])
    return False


def _artifact(name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / name


def test_report_of_a_quick_run_in_chromium(quick_run: QuickRun, browser: Browser) -> None:
    assert quick_run.done.returncode == 0, quick_run.done.stderr
    page = quick_run.out / "report.html"
    data = json.loads((quick_run.out / "results.json").read_text())
    ok = {s["name"] for s in data["scenarios"] if s["status"] == "ok"}
    if not _tick_found(data):
        ok.discard("clk.tick.duration")  # no upper line: no two-line diagram
    metrics = sum(1 for s in data["scenarios"] for r in s["records"] if r["type"] == "result")

    layout = _load(browser, page, DESKTOP, mobile=False)
    ids = [s for s, _h in layout["sections"]]
    for wanted in ("system", "verdicts", "summary", "run"):
        assert wanted in ids
    assert layout["families"]
    # The answer comes first: the verdicts start on the first screen, and the
    # verdicts and the summary come before the per-family sections.
    assert layout["verdicts"] < DESKTOP[1]
    assert layout["verdicts"] < layout["summary"] < layout["firstFamily"]
    titles = [c["title"] for c in layout["charts"]]
    assert sum(t.startswith("Histogram of") for t in titles) >= metrics - 2
    for scenario, title in SPECIAL_CHARTS.items():
        if scenario in ok:
            assert title in titles, title
    for chart in layout["charts"]:
        assert chart["width"] > 300 and chart["height"] > 100
    barred = sum(
        1
        for s in data["scenarios"]
        for r in s["records"]
        if r["type"] == "result"
        and r["unit"] in ("ticks", "ns", "us", "ms", "s")
        and r["stats"]["count"] > 1
        and (r["stats"]["p50"] or 0) > 0
    )
    assert len(layout["sparks"]) == barred
    browser.screenshot(_artifact("report-desktop.png"))
    browser.full_screenshot(_artifact("report-desktop-full.png"), DESKTOP[0], 16000)

    phone = _load(browser, page, PHONE, mobile=True)
    # Readable at a phone's width: nothing wider than the screen but the
    # tables that scroll sideways in their own box.
    assert phone["clientWidth"] == PHONE[0]
    assert phone["scrollWidth"] <= phone["clientWidth"]
    for chart in phone["charts"]:
        assert 300 < chart["width"] <= PHONE[0]
    browser.screenshot(_artifact("report-phone.png"))
    regions = browser.run(
        "return [...document.querySelectorAll('figure')].filter(f => arguments[0].includes("
        "f.querySelector('svg title').textContent)).map(f => { const r = "
        "f.getBoundingClientRect(); return [r.left, r.top + scrollY, r.width, r.height]; })",
        list(SPECIAL_CHARTS.values()),
    )
    for n, (x, y, w, h) in enumerate(regions):
        browser.region_screenshot(_artifact(f"report-phone-chart-{n + 1}.png"), x, y, w, h)


def test_report_with_failures_in_chromium(browser: Browser, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(html.render(synthetic_doc(), {}))
    layout = _load(browser, page, DESKTOP, mobile=False)
    assert "problems" in [s for s, _h in layout["sections"]]
    shown = browser.run(
        "return [...document.querySelectorAll('#verdicts .badge')].map(b => b.textContent)"
    )
    assert "FAIL" in shown and "INCONCLUSIVE" in shown and "MISSED" in shown
    browser.screenshot(_artifact("report-failures-desktop.png"))
    phone = _load(browser, page, PHONE, mobile=True)
    assert phone["scrollWidth"] <= phone["clientWidth"]
