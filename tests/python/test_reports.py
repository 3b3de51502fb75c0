# SPDX-License-Identifier: Apache-2.0
"""Terminal and HTML reports from fixtures."""

import dataclasses
import random
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest

from conftest import FIXTURES, RunCli, read_jsonl
from rtbench.model import results, units, views
from rtbench.model.catalog import CatalogId
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


def test_terminal_report_shows_metrics_in_readable_units() -> None:
    text = terminal.render(results.load(FIXTURES / "results-quick"), details=True)
    row = next(line for line in text.splitlines() if "sem.signal.unblock release" in line)
    assert row.rstrip().endswith("µs") or " µs" in row
    cal = next(line for line in text.splitlines() if "cal.timestamp timestamp" in line)
    assert " ns" in cal
    assert "\x1b[" not in text
    summary = terminal.render(results.load(FIXTURES / "results-quick"))
    release = next(line for line in summary.splitlines() if "semaphore release" in line)
    assert release.count(" µs") == 4  # median, p99, p99.9, max
    assert "\x1b[" not in summary


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


def test_terminal_summary_verdicts_in_one_block_and_the_rest_in_details() -> None:
    doc = synthetic_doc()
    text = terminal.render(doc, location="results/x", width=100)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 100
    # Verdicts that did not pass cleanly each have their line, with the reason.
    fail = [line for line in lines if re.match(r"\s+FAIL\s", line)]
    assert len(fail) == 1 and "MUT-B-ARC" in fail[0] and "medium thread ran before" in fail[0]
    inconclusive = next(line for line in lines if re.match(r"\s+INCONCLUSIVE\s", line))
    assert "[control missed]" in inconclusive
    # Clean passes share one block of names.
    passed = next(line for line in lines if re.match(r"\s+PASS\s", line))
    assert "SEM-B-REL" in passed and "release_order" not in passed
    assert "TIMEOUT thr.switch.yield: still running" in text
    # No metric table, no detail table: those are one command away.
    for m in doc.scenarios[1].metrics():
        assert f"{m.scenario} {m.metric}" not in text
    assert "period (µs)" not in text and "negative control caught (" not in text
    assert "report: results/x/report.html" in text
    assert "rtbench show results/x --details" in text
    details = terminal.render(doc, details=True)
    for m in doc.scenarios[1].metrics():
        assert f"{m.scenario} {m.metric}" in details
    assert re.search(r"PASS\s+sem.behavior.release_order \(SEM-B-REL\)", details)


def _family_worst_by_hand(doc: results.ResultsDocument) -> dict[str, float]:
    """The largest maximum of each latency family's delay metrics, found independently."""
    from rtbench.model.families import family_of  # noqa: PLC0415

    out: dict[str, float] = {}
    for outcome in doc.scenarios:
        for m in outcome.metrics():
            family = family_of(m.scenario)
            if family is None or m.unit != "ns" or m.max is None:
                continue
            if m.metric in ("sleep", "tick_period", "min_period"):
                continue
            out[family] = max(out.get(family, 0.0), m.max)
    return out


def test_terminal_summary_fits_a_screen_for_a_real_run() -> None:
    doc = results.load(FIXTURES / "results-charts")
    text = terminal.render(doc, width=120)
    lines = text.splitlines()
    assert len(lines) <= 40 and all(len(line) <= 120 for line in lines)
    caveats = [c for c in doc.caveats if c.get("severity") == "warning"]
    assert len(caveats) >= 5
    # The caveats in a line or two, each named in a few words.
    shown = [i for i, line in enumerate(lines) if line.startswith("caveats (")]
    assert len(shown) == 1 and f"caveats ({len(caveats)}):" in lines[shown[0]]
    block = " ".join(lines[shown[0] : shown[0] + 2])
    for words in ("not PREEMPT_RT", "RT throttling on", "virtual machine (kvm)"):
        assert words in block
    # One line per latency family, with the metric of its largest maximum.
    worst = _family_worst_by_hand(doc)
    assert set(worst) == {"thread switch", "synchronisation", "clock"}
    for family, value in worst.items():
        row = next(line for line in lines if line.strip().startswith(f"{family} ("))
        assert row.rstrip().endswith(units.format_duration(value)), row
    # The final lines say what kind of run it was, never just "ok".
    tail = text[text.rindex("scenarios run") :]
    assert "real-time, CPU 1 not isolated" in tail
    for family, value in worst.items():
        assert f"{family} {units.format_duration(value)}" in " ".join(tail.split())
    # Every metric, including the thread-switch sweep on one line of ranges, is in --details.
    details = terminal.render(doc, details=True)
    sweep = [line for line in details.splitlines() if "thr.switch.yield switch [threads " in line]
    assert len(sweep) == 1 and "[threads 2..1,000]" in sweep[0]
    assert re.search(r"\d-\d", sweep[0])
    assert len(lines) < len(details.splitlines()) / 2


def test_summary_names_the_run_conditions() -> None:
    doc = results.load(FIXTURES / "results-charts")
    assert "conditions: measured real-time, CPU 1 not isolated;" in terminal.render(doc)
    loaded = dataclasses.replace(
        doc,
        run=dataclasses.replace(
            doc.run, conditions={"trace": {"buffer_kb": 4096, "events": "sched"}, "other": {}}
        ),
    )
    text = terminal.render(loaded, width=120)
    line = next(line for line in text.splitlines() if line.startswith("conditions:"))
    assert "with trace (buffer_kb=4096, events=sched), other;" in line


def test_final_line_of_a_run_without_real_time_says_so() -> None:
    doc = results.load(FIXTURES / "results-charts")
    rt = terminal.render(doc, width=120).rstrip().splitlines()
    assert "NOT REAL-TIME" not in "\n".join(rt)
    slow = dataclasses.replace(doc, run=dataclasses.replace(doc.run, realtime=False))
    text = terminal.render(slow, width=120, location="results/x")
    lines = text.rstrip().splitlines()
    final = text[text.rindex("scenarios run") : text.index("report: results/x")]
    assert "NOT REAL-TIME, CPU 1 not isolated" in " ".join(final.split())
    assert lines[-2].startswith("report: ")  # the last lines: the verdict, then where to look
    assert "NOT REAL-TIME: the core ran without a real-time scheduling policy" in text
    isolated_host = {
        **doc.host,
        "measurement_cpu": {**doc.host["measurement_cpu"], "isolated": True},
    }
    isolated = dataclasses.replace(slow, host=isolated_host)
    final = terminal.render(isolated, width=120)
    assert "NOT REAL-TIME, CPU 1 isolated" in " ".join(
        final[final.rindex("scenarios run") :].split()
    )


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
    found = [v for s in doc.scenarios for v in views.verdicts(s)]
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
    # Median, p99, p99.9 and max, as the terminal shows them, in every line.
    assert "<th>median</th><th>p99</th><th>p99.9</th><th>max</th>" in summary
    for row in rows:
        line = summary[summary.index(f">{row.name}</a>") :]
        line = line[: line.index("</tr>")]
        m = row.metric
        cells = re.findall(r'<td class="n">(?:≈)?([^<]*)</td>', line)
        expected = [common.format_value(m, v) for v in (m.p50, m.p99, m.p99_9, m.max)]
        assert cells == expected, row.name
    with_p999 = [r for r in rows if r.metric.p99_9 is not None and r.metric.p99_9 != r.metric.p99]
    assert with_p999  # the p99.9 column is not a copy of another
    assert "interrupt to thread" not in page  # not measured in this fixture
    assert "semaphore release to waiter" in page
    responses = page[page.index('id="responses"') : page.index('id="caveats"')]
    assert "<th>p99.9</th>" in responses


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


def test_irq_titles_name_what_posix_measures_next_to_the_classic_label(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """On POSIX an 'interrupt' is a timer signal delivered to a handler: the titles
    say so, next to the classic label, in the summary, --details and the page."""
    out = tmp_path / "irq"
    done = run_cli(
        "run", "--only", "irq.latency", "irq.to_thread", "--set", "iterations=200",
        "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for label, path in (("IRQ-P-LAT", "interrupt latency"), ("IRQ-P-TLT", "interrupt to thread")):
        assert re.search(rf"^\s+{label}\s+{path} \(POSIX timer signal\)\s", done.stdout, re.M)
    page = (out / "report.html").read_text()
    for label, title in (
        ("IRQ-P-LAT", "Interrupt latency (POSIX timer signal): "),
        ("IRQ-P-DLT", "Interrupt return (POSIX timer signal): "),
        ("IRQ-P-TLT", "Interrupt to thread (POSIX timer signal): "),
    ):
        # the scenario's heading names the label; its metric's title names the source
        heading = re.search(rf'<h3 id="s-[^"]+">[^<]*\b{label}\b', page)
        assert heading is not None, label
        section = page[heading.start() : page.index("<h3", heading.end())]
        assert title in section, label
    doc = results.load(out)
    titled = {m.metric: m.title for o in doc.scenarios for m in o.metrics()}
    assert common.measured_source(titled["latency"]) == "POSIX timer signal"
    assert common.measured_source("Periodic timer: wake-up time minus the deadline") is None
    details = terminal.render(doc, details=True)
    assert "Interrupt latency (POSIX timer signal)" in details


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


def test_summary_starts_with_the_requirements_and_ends_with_their_count() -> None:
    doc = results.load(FIXTURES / "results-charts")
    assert "equirements" not in terminal.render(doc, width=120)
    missed = {
        "expr": "sem.wait.block:max<=10us",
        "subject": "sem.wait.block",
        "stat": "max",
        "unit": "ns",
        "status": "missed",
        "rows": [{"what": "sem.wait.block acquire", "params": {}, "value": 59400.0,
                  "status": "missed", "margin": 49400.0}],
    }  # fmt: skip
    text = terminal.render(dataclasses.replace(doc, requirements=(missed,)), width=120)
    lines = text.splitlines()
    head = lines.index("Requirements: 0 of 1 met, 1 MISSED")
    assert head < next(i for i, line in enumerate(lines) if line.startswith("conditions:"))
    assert lines[head + 1] == "  sem.wait.block:max<=10us: MISSED"
    assert lines[head + 2].startswith("    sem.wait.block acquire max: 59.4 µs, MISSED by 49.4 µs")
    final = " ".join(text[text.rindex("scenarios run") :].split())
    assert "; requirements: 0 of 1 met, 1 MISSED; real-time, CPU 1 not isolated;" in final
