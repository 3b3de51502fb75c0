# SPDX-License-Identifier: Apache-2.0
"""Terminal and HTML reports from fixtures."""

import re
from pathlib import Path

import pytest

from conftest import FIXTURES, read_jsonl
from rtbench import results
from rtbench.catalog import CatalogId
from rtbench.report import html, terminal
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


def test_terminal_report_shows_metrics_in_readable_units() -> None:
    text = terminal.render(results.load(FIXTURES / "results-quick"))
    row = next(line for line in text.splitlines() if "sem.signal.unblock release" in line)
    assert row.rstrip().endswith("µs") or " µs" in row
    cal = next(line for line in text.splitlines() if "cal.timestamp timestamp" in line)
    assert " ns" in cal
    assert "\x1b[" not in text


def test_terminal_report_verdicts_tables_and_statuses() -> None:
    text = terminal.render(synthetic_doc())
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
    text = terminal.render(doc)
    assert "... 80 more rows" in text
    assert re.search(r"^\s+99\s+word$", text, re.M)
    assert not re.search(r"^\s+50\s+word$", text, re.M)
    assert max(len(line) for line in text.splitlines() if "word" in line) < 90
    page = html.render(doc, {})
    assert page.count("<td>word") == 100
