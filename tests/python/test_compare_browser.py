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


def test_six_systems_open_on_the_answer_without_a_red_box(browser: Browser, tmp_path: Path) -> None:
    """Three Linux guests timed by TCG and three RTOSes on one board under -icount:
    the whole answer table is on the first screen, the differences the user chose
    are no warning, and no timing is rated across the two kinds of clock."""
    from test_compare_groups import _board, _guest  # noqa: PLC0415

    systems = [
        ("debian-rt-amd64", _guest("debian-rt-amd64"), ("Linux", "6.1.0-rt"), 90000),
        ("debian-arm64", _guest("debian-arm64"), ("Linux", "6.1.0"), 120000),
        ("debian-armhf", _guest("debian-armhf"), ("Linux", "6.1.0"), 150000),
        ("freertos", _board("FreeRTOS", 5), ("FreeRTOS", "V11.1.0"), 3000),
        ("ucos3", _board("uCOS3", 5), ("uC/OS-III", "V3.08.02"), 2800),
        ("threadx", _board("ThreadX", 5), ("ThreadX", "6.4.2"), 1900),
    ]
    paths = []
    for seed, (name, info, os, median) in enumerate(systems, start=1):
        outcome = "fail" if name == "threadx" else "pass"
        kernel = {"system": os[0], "release": os[1], "cmdline": f"console={name}"}
        # as the targets report them: a guest's own host name and emulated CPU, a
        # firmware image's board
        host, cpu = ("mps2-an385", "cortex-m3") if "board" in info else ("debian", info["arch"])
        paths.append(
            write_result(
                tmp_path / name,
                {WAKE: lognormal(seed, 2000, median), SWITCH: lognormal(seed + 9, 2000, median)},
                verdicts=[verdict_record("sem.behavior.fifo", "SEM-B-REL", outcome)],
                run={"target": info["spec"], "target_info": info},
                host={"hostname": host, "kernel": kernel, "cpus": {"model": cpu}},
            )
        )
    page = tmp_path / "comparison.html"
    page.write_text(html.render(model.build(model.load_systems(paths))))
    _load(browser, page, DESKTOP, mobile=False)
    first = browser.run(
        "const t = document.querySelector('header.top table');"
        "const b = t.getBoundingClientRect();"
        "return {bottom: b.bottom + scrollY, banner: document.querySelector('.banner') !== null,"
        " rows: [...t.querySelectorAll('tr')].map(r => r.cells[0].textContent)};"
    )
    assert first["banner"] is False
    assert first["bottom"] <= DESKTOP[1], "the answer table runs past the first screen"
    assert first["rows"][:3] == ["", "system", "timed by"] and "behaviour" in first["rows"]
    text = browser.run("return document.body.innerText")
    assert "Configuration differences" not in text
    assert "Times are tested and rated only" in text
    assert "FAILS SEM-B-REL: synthetic fail" in text
    browser.screenshot(_artifact("comparison-six-desktop.png"))
    phone = _load(browser, page, PHONE, mobile=True)
    assert phone["scrollWidth"] <= phone["clientWidth"]
    browser.screenshot(_artifact("comparison-six-phone.png"))
