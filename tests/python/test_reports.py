# SPDX-License-Identifier: Apache-2.0
"""Terminal and HTML reports from fixtures."""

import dataclasses
import random
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest

from conftest import FIXTURES, read_jsonl
from rtbench import results
from rtbench.catalog import CatalogId
from rtbench.report import common, html, terminal
from rtbench.report.common import table_view


def synthetic_doc() -> results.ResultsDocument:
    base = results.load(FIXTURES / "results-quick")
    recs = read_jsonl("synthetic-verdicts-tables.jsonl")
    extra = results.ScenarioOutcome(
        name="irq.sustained",
        ids=(CatalogId("irq.sustained", "IRQ-S-SUS"),),
        summary="synthetic",
        status="ok",
        reason=None,
        elapsed_s=1.0,
        meta=recs[0],
        records=tuple(recs[1:]),
    )
    timeout = results.ScenarioOutcome(
        name="thr.switch.yield",
        ids=(CatalogId("thr.switch.yield", "THR-P-SLS"),),
        summary=None,
        status="timeout",
        reason="still running after 65.0 s; killed by the watchdog",
    )
    return results.ResultsDocument(
        run=base.run, host=base.host, caveats=base.caveats, settings=base.settings,
        calibration=base.calibration, scenarios=(*base.scenarios, extra, timeout),
    )  # fmt: skip


@pytest.mark.parametrize("details", [False, True])
def test_terminal_report_shows_metrics_in_readable_units(details: bool) -> None:
    text = terminal.render(results.load(FIXTURES / "results-quick"), details=details)
    row = next(line for line in text.splitlines() if "sem.signal.unblock release" in line)
    assert row.rstrip().endswith("µs") or " µs" in row
    cal = next(line for line in text.splitlines() if "cal.timestamp timestamp" in line)
    assert " ns" in cal
    assert "\x1b[" not in text


def test_terminal_details_verdicts_tables_and_statuses() -> None:
    text = terminal.render(synthetic_doc(), details=True)
    assert re.search(r"PASS\s+sem.behavior.release_order \(SEM-B-REL\)", text)
    assert re.search(r"FAIL\s+mut.behavior.pi", text)
    assert re.search(r"INCONCLUSIVE\s+thr.create.behavior", text)
    assert "negative control caught (FIFO semaphore built from mutex + condvar)" in text
    assert "negative control MISSED" in text
    assert "TIMEOUT thr.switch.yield: still running" in text
    lines = text.splitlines()
    header = next(line for line in lines if line.strip().startswith("period"))
    assert "period (µs)" in header
    rows = [line for line in lines if re.match(r"\s+\d", line) and "1,000" in line]
    # Aligned: every number column ends at the same place in each row.
    assert len({len(r.rstrip()) for r in rows}) == 1


def test_terminal_summary_one_line_per_verdict_metric_and_caveat() -> None:
    doc = synthetic_doc()
    text = terminal.render(doc, location="results/x", width=100)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 100
    # Verdicts that did not pass each have their line, with the reason.
    fail = [line for line in lines if re.match(r"\s+FAIL\s", line)]
    assert len(fail) == 1 and "MUT-B-ARC" in fail[0] and "medium thread ran before" in fail[0]
    inconclusive = next(line for line in lines if re.match(r"\s+INCONCLUSIVE\s", line))
    assert "[control missed]" in inconclusive
    assert re.search(r"^\s+PASS\s+SEM-B-REL\s+release_order: every signal released", text, re.M)
    assert "TIMEOUT thr.switch.yield: still running" in text
    # One line per metric, none of the detail tables.
    for m in doc.scenarios[1].metrics():
        assert sum(1 for line in lines if f"{m.scenario} {m.metric}" in line) == 1
    assert "period (µs)" not in text and "negative control caught (" not in text
    assert "report: results/x/report.html" in text
    assert "rtbench show results/x --details" in text


def test_terminal_summary_fits_a_screen_for_a_real_run() -> None:
    doc = results.load(FIXTURES / "results-charts")
    text = terminal.render(doc, width=120)
    lines = text.splitlines()
    caveats = [c for c in doc.caveats if c.get("severity") == "warning"]
    assert len(caveats) >= 5
    # Each caveat on one short line, not its whole text.
    shown = [line for line in lines if line.startswith("  ! ")]
    assert len(shown) == len(caveats)
    assert all(len(line) <= 120 for line in lines)
    # The thread-switch sweep (four thread counts) is one line of ranges.
    sweep = [line for line in lines if "thr.switch.yield switch" in line]
    assert len(sweep) == 1 and "[threads 2..1,000]" in sweep[0]
    assert re.search(r"\d-\d", sweep[0])
    details = terminal.render(doc, details=True)
    assert len(lines) < len(details.splitlines()) / 2


def test_short_caveat() -> None:
    def short(message: str, width: int = 96) -> str:
        return common.short_caveat({"message": message}, width)

    assert short("RT throttling is on: threads are stopped.") == "RT throttling is on"
    assert (
        short("The kernel is not PREEMPT_RT (preemption model: none): handlers delay.")
        == "The kernel is not PREEMPT_RT (preemption model: none)"
    )
    assert short("CPU 1 is not isolated. Add isolcpus.") == "CPU 1 is not isolated"
    cut = short("word " * 40, 30)
    assert len(cut) <= 30 and cut.endswith("…")


def test_terminal_colour_only_when_asked() -> None:
    assert "\x1b[" in terminal.render(synthetic_doc(), color=True)


def test_table_view_converts_ticks_per_column() -> None:
    recs = read_jsonl("synthetic-verdicts-tables.jsonl")
    hz = recs[0]["counter"]["hz"]
    costs = next(r for r in recs if r["type"] == "table" and r["name"] == "costs")
    view = table_view(costs, hz)
    assert view.headers == ("case", "min (µs)", "max (µs)")
    assert view.rows[0][0] == "first"
    assert float(view.rows[0][1]) == pytest.approx(2500 / hz * 1e6, rel=0.01)
    assert view.numeric == (False, True, True)


def test_html_report_is_self_contained() -> None:
    doc = synthetic_doc()
    base = FIXTURES / "results-quick"
    series = {sf.path: results.read_samples(base, sf) for s in doc.scenarios for sf in s.samples}
    assert all(series.values())
    text = html.render(doc, series)
    assert text.startswith("<!DOCTYPE html>")
    assert "<script" not in text
    assert re.findall(r"(?:src|href)=['\"](?!#)", text) == []
    assert "@import" not in text and "url(" not in text
    assert text.count("<svg") >= 2 * 5
    assert "FIFO semaphore built from mutex + condvar" in text
    assert "Interrupts generated, serviced and lost per period" in text
    assert "<th>p99.9</th>" in text


def test_samples_csv_is_in_ns_with_the_unit_in_the_header(tmp_path: Path) -> None:
    sf = results.write_samples(tmp_path, "a.b", "m", {"n": 2}, [0, 25, 2500], "ticks", 2.5e9, set())
    lines = (tmp_path / sf.path).read_text().splitlines()
    assert lines == ["index,value_ns", "0,0.0", "1,10.0", "2,1000.0"]
    assert sf.unit == "ns" and sf.count == 3
    assert results.read_samples(tmp_path, sf) == [0.0, 10.0, 1000.0]


def test_long_tables_are_shortened_in_the_terminal_only() -> None:
    base = synthetic_doc()
    meta = read_jsonl("synthetic-verdicts-tables.jsonl")[0]
    table = {
        "v": 1, "type": "table", "scenario": "x.y", "name": "long", "title": "Long table",
        "columns": [{"name": "n", "unit": "count"}, {"name": "note", "unit": ""}],
        "rows": [[i, "word " * (30 if i == 0 else 1)] for i in range(100)],
    }  # fmt: skip
    outcome = results.ScenarioOutcome(
        name="x.y", ids=(), summary=None, status="ok", reason=None, meta=meta, records=(table,)
    )
    doc = results.ResultsDocument(
        run=base.run, host=base.host, caveats=(), settings=base.settings,
        calibration=None, scenarios=(outcome,),
    )  # fmt: skip
    text = terminal.render(doc, details=True)
    assert "... 80 more rows" in text
    assert re.search(r"^\s+99\s+word$", text, re.M)
    assert not re.search(r"^\s+50\s+word$", text, re.M)
    assert max(len(line) for line in text.splitlines() if "word" in line) < 90
    page = html.render(doc, {})
    assert page.count("<td>word") == 100


def _charts_page() -> tuple[results.ResultsDocument, str]:
    base = FIXTURES / "results-charts"
    doc = results.load(base)
    series = {sf.path: results.read_samples(base, sf) for s in doc.scenarios for sf in s.samples}
    return doc, html.render(doc, series)


def test_html_leads_with_system_caveats_verdicts_and_summary() -> None:
    doc, page = _charts_page()
    first_family = page.index('<section class="block" id="fam-')
    for marker in ('id="system"', 'id="responses"', 'id="caveats"', 'id="verdicts"',
                   'id="summary"'):  # fmt: skip
        assert page.index(marker) < first_family, marker
    assert "<h1>" in page and 'name="viewport"' in page
    # The system: host, kernel, CPU, counter with its resolution.
    system = page[page.index('id="system"') : page.index('id="verdicts"')]
    for fact in ("vm", "6.18.44", "AMD EPYC", "tsc, 2,596 MHz: 0.385 ns per tick"):
        assert fact in system
    verdict_table = page[page.index('id="verdicts"') : page.index('id="summary"')]
    found = [v for s in doc.scenarios for v in common.verdicts(s)]
    assert found
    for v in found:
        assert f"<code>{v.check}</code>" in verdict_table
    summary = page[page.index('id="summary"') : first_family]
    rows = common.summary_rows(doc)
    # A bar for every metric with a median and more than one sample.
    barred = [r for r in rows if common.max_ratio(r.metric) is not None]
    assert len(barred) >= len(rows) - 1
    assert summary.count('<svg class="spark"') == len(barred)
    for row in rows:
        assert f">{row.name}</a>" in summary
        assert f'id="{row.anchor}"' in page  # the line links to its section
    assert "interrupt to thread" not in page  # not measured in this fixture
    assert "semaphore release to waiter" in page


def test_html_charts_render_as_well_formed_svg() -> None:
    _doc, page = _charts_page()
    svgs = re.findall(r"<svg .*?</svg>", page, re.S)
    assert len(svgs) > 20
    for svg in svgs:
        root = ElementTree.fromstring(svg)
        if root.get("class") == "chart":
            assert root.get("viewBox")
            assert root.find("title") is not None
        elif root.get("class") == "spark":
            assert root.get("viewBox")
            assert root.find("use") is not None
        else:  # the summary bars' shared track, drawn once
            assert root.get("width") == "0"
    for title in (
        "Switch time against the number of threads",
        "Release time against the number of waiters still blocked",
        "Interrupts generated, serviced and lost per phase",
        "Busy-loop time of each loop: the clock tick shows as an upper line",
        "Histogram of",
    ):
        assert f"<title>{title}" in page, title
    assert "Smallest loss-free interrupt period: 225 µs (phase 10000, bound found)." in page


def test_html_page_does_not_grow_with_the_samples() -> None:
    doc = results.load(FIXTURES / "results-charts")

    def page_bytes(n: int) -> int:
        rng = random.Random(7)
        series = {
            sf.path: [rng.gauss(1000, 30) if rng.random() > 0.001 else 9e4 for _ in range(n)]
            for s in doc.scenarios
            for sf in s.samples
        }
        return len(html.render(doc, series).encode())

    small, large = page_bytes(2_000), page_bytes(40_000)
    # Series are drawn per pixel column: twenty times the samples, about the same page.
    assert large < small * 1.1
    assert large < 200_000


def test_html_page_keeps_to_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    base = FIXTURES / "results-charts"
    doc = results.load(base)
    series = {sf.path: results.read_samples(base, sf) for s in doc.scenarios for sf in s.samples}
    many = tuple(
        dataclasses.replace(o, name=f"{o.name}.copy{i}") for i in range(4) for o in doc.scenarios
    )
    big = dataclasses.replace(doc, scenarios=many)
    monkeypatch.setattr(html, "PAGE_BUDGET_BYTES", 10**9)
    unbounded = html.render(big, series)
    monkeypatch.setattr(html, "PAGE_BUDGET_BYTES", len(unbounded) - 20_000)
    page = html.render(big, series)
    # Fewer pixel columns per diagram bring the page under its budget, and every
    # diagram is still there.
    assert len(page.encode()) <= len(unbounded) - 20_000
    assert page.count('<svg class="chart"') == unbounded.count('<svg class="chart"') > 80


def test_an_emulated_target_is_said_in_every_report() -> None:
    base = results.load(FIXTURES / "results-quick")
    emulated = dataclasses.replace(
        base, run=dataclasses.replace(base.run, target_info={"kind": "qemu", "emulated": True})
    )
    banner = "EMULATED: timing is not representative of hardware"
    for doc, expected in ((emulated, True), (base, False)):
        for text in (
            terminal.render(doc, color=False),
            terminal.render(doc, color=False, details=True),
            html.render(doc, {}),
        ):
            assert (banner in text) is expected
