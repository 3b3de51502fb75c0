# SPDX-License-Identifier: Apache-2.0
"""The history trend page in headless Chromium, with the checks of the evaluation
report (test_browser): charts drawn, the change marked, no console error, no
sideways scrolling on a phone; screenshots in build/test-artifacts/."""

from __future__ import annotations

from pathlib import Path

from browser import Browser
from test_browser import DESKTOP, PHONE, _artifact, _load
from test_browser import browser as browser  # noqa: PLC0414 (the shared fixture)
from test_history import _history, _noisy, _series


def test_history_page_in_chromium(browser: Browser, tmp_path: Path) -> None:
    outcomes = ["pass"] * 13 + ["fail"]
    store = _series(tmp_path, _noisy(8, 1000, 2) + _noisy(6, 1500, 3), outcomes=outcomes)
    page = tmp_path / "history.html"
    status, _out, err = _history(tmp_path, store, "--html", str(page))
    assert status == 0, err
    _load(browser, page, DESKTOP, mobile=False)
    marks = browser.run("return document.querySelectorAll('svg.trend line.change').length")
    assert marks == 1
    lines = browser.run(
        "return [...document.querySelectorAll('svg.trend polyline')]"
        ".map(p => p.getBBox().width > 100)"
    )
    assert lines == [True, True, True]  # median, p99, max drawn across the runs
    text = browser.run("return document.body.innerText")
    assert "verdict pass -> fail" in text and "between kernel 6.1.0-8 and kernel 6.1.0-9" in text
    browser.screenshot(_artifact("history-desktop.png"))
    phone = _load(browser, page, PHONE, mobile=True)
    assert phone["scrollWidth"] <= phone["clientWidth"]
    browser.screenshot(_artifact("history-phone.png"))
