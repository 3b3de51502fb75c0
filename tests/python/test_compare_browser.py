# SPDX-License-Identifier: Apache-2.0
"""The comparison page in headless Chromium, with the checks of the evaluation
report (test_browser): laid out, charts drawn, no console error, nothing
loaded, no sideways scrolling on a phone; screenshots in build/test-artifacts/."""

from __future__ import annotations

from pathlib import Path

from browser import Browser
from rtbench.compare import html, model
from synth import lognormal, verdict_record, with_tail, write_result
from test_browser import DESKTOP, PHONE, _artifact, _load
from test_browser import browser as browser  # noqa: PLC0414 (the shared fixture)

WAKE = ("sem.signal.unblock", "release", "SEM-P-ARC")
SWITCH = ("thr.switch.yield", "switch", "THR-P-SLS")


def test_comparison_page_in_chromium(browser: Browser, tmp_path: Path) -> None:
    a = write_result(
        tmp_path / "quiet",
        {WAKE: lognormal(1, 3000, 3000), SWITCH: lognormal(2, 3000, 900)},
        verdicts=[verdict_record("mut.behavior.pi", "MUT-B-ARC", "pass")],
    )
    b = write_result(
        tmp_path / "disturbed",
        {
            WAKE: with_tail(lognormal(3, 3000, 3000), seed=4, share=0.03, low=5, high=10),
            SWITCH: lognormal(5, 3000, 900),
        },
        verdicts=[verdict_record("mut.behavior.pi", "MUT-B-ARC", "fail")],
        run={"profile": "standard"},
    )
    comparison = model.build(model.load_systems([a, b]))
    page = tmp_path / "comparison.html"
    page.write_text(html.render(comparison, with_reference=True))
    layout = _load(browser, page, DESKTOP, mobile=False)
    assert len(layout["charts"]) == 4  # average and maximum per metric
    badges = browser.run("return [...document.querySelectorAll('.badge')].map(b => b.textContent)")
    assert "WORSE" in badges and "FAIL" in badges
    text = browser.run("return document.body.innerText")
    assert "Configuration differences" in text and "profile differs" in text
    assert "QNX 6.5.0 · Cortex-A8 1 GHz · 2012" in text
    browser.screenshot(_artifact("comparison-desktop.png"))
    phone = _load(browser, page, PHONE, mobile=True)
    assert phone["scrollWidth"] <= phone["clientWidth"]
    browser.screenshot(_artifact("comparison-phone.png"))


def test_exact_comparison_with_a_path_difference_in_chromium(
    browser: Browser, tmp_path: Path
) -> None:
    """Two deterministic, traced runs: the SLOWER badge, the exact sentence and the
    table of the functions that changed, readable on a phone."""
    from test_compare_exact import BASE_WAIT, TYPICAL_CALLS, TYPICAL_INSNS, _traced  # noqa: PLC0415

    a = _traced(tmp_path, "a", TYPICAL_CALLS, TYPICAL_INSNS, 60, BASE_WAIT)
    insns = {**TYPICAL_INSNS, "xQueueSemaphoreTake": 130}
    b = _traced(tmp_path, "b", TYPICAL_CALLS, insns, 140, [v + 80 for v in BASE_WAIT])
    page = tmp_path / "comparison.html"
    page.write_text(html.render(model.build(model.load_systems([a, b]))))
    _load(browser, page, DESKTOP, mobile=False)
    badges = browser.run("return [...document.querySelectorAll('.badge')].map(b => b.textContent)")
    assert "SLOWER" in badges
    text = browser.run("return document.body.innerText")
    assert "slower by exactly 80 ticks" in text and "Path difference of B" in text
    assert "xQueueSemaphoreTake" in text
    browser.screenshot(_artifact("comparison-exact-desktop.png"))
    phone = _load(browser, page, PHONE, mobile=True)
    assert phone["scrollWidth"] <= phone["clientWidth"]
    browser.screenshot(_artifact("comparison-exact-phone.png"))
