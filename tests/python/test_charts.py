# SPDX-License-Identifier: Apache-2.0
"""Chart building blocks: scales, reduced series, histograms, the special diagrams."""

import re
from xml.etree import ElementTree

import pytest

from conftest import FIXTURES
from rtbench.model import results
from rtbench.report import charts, svg
from rtbench.report.common import sweeps


def test_linear_ticks_are_round_and_cover_the_range() -> None:
    assert svg.linear_ticks(0, 10, 6) == [0, 2, 4, 6, 8, 10]
    assert svg.linear_ticks(3.2, 97, 5) == [25, 50, 75]
    assert svg.linear_ticks(0, 0.9, 4) == pytest.approx([0, 0.5])


def test_log_ticks_are_decades() -> None:
    assert svg.log_ticks(5, 20000, 6) == [10, 100, 1000, 10000]
    assert svg.log_ticks(3, 40, 6) == [5, 10, 20]
    assert svg.log_ticks(1.5, 9, 6) == [2, 5]


def test_column_runs_keep_a_single_spike_and_two_lines() -> None:
    rows = 100

    def row_of(v: float) -> int:
        return int((1 - v / 100) * rows)

    flat = [10.0] * 10_000
    flat[5_000] = 95.0
    runs = svg.column_runs(flat, 50, row_of, rows)
    assert len(runs) == 50
    spike_col = 5_000 * 50 // 10_000
    assert runs[spike_col] == [(5, 5), (90, 90)]
    assert all(r == [(90, 90)] for c, r in enumerate(runs) if c != spike_col)
    # Two lines and a spike, at most `most` runs per column (closest joined first).
    mixed = [10.0, 20.0] * 100 + [90.0]
    top, low, lower = row_of(90.0), row_of(20.0), row_of(10.0)
    three = svg.column_runs(mixed, 1, row_of, rows, most=3)
    assert three == [[(top, top), (low, low), (lower, lower)]]
    two = svg.column_runs(mixed, 1, row_of, rows, most=2)
    assert two == [[(top, top), (low, lower)]]


def test_series_chart_size_does_not_depend_on_the_samples() -> None:
    def chart(n: int) -> str:
        values = [1000.0 + (i * 7919) % 97 for i in range(n)]
        return svg.series_chart(values, svg.Scale(0, 1200), str, title="t", y_title="y")

    small, large = chart(2_000), chart(200_000)
    assert len(large) < 1.2 * len(small) < 6_000
    ElementTree.fromstring(large)


def test_series_chart_marks_samples_above_the_scale() -> None:
    values = [10.0] * 100 + [500.0] + [10.0] * 100
    text = svg.series_chart(values, svg.Scale(0, 50), str, title="t", y_title="y")
    assert text.count('class="mark') == 1
    assert text.count("z") >= 1


def test_step_outline_shares_edges() -> None:
    assert svg.step_outline([(10, 12, 50), (12, 14, 40), (20, 22, 30)], 100) == (
        "M10 100V50H12V40H14V100H20V30H22V100z"
    )
    assert svg.step_outline([], 100) == ""


def test_histogram_chart_uses_a_log_count_axis() -> None:
    bins = [svg.Bin(float(i), float(i + 1), 10 ** (i % 5)) for i in range(50)]
    text = svg.histogram_chart(
        bins, svg.Scale(0, 50), str, title="h", x_title="x", marks=[(25, "median")]
    )
    root = ElementTree.fromstring(text)
    labels = [t.text for t in root.iter("text")]
    assert {"1", "10", "100", "1,000", "10,000"} <= set(labels)
    assert "median" in labels


def test_spark_bar_positions_on_a_log_scale() -> None:
    bar = svg.spark_bar(10.0, 1000.0, 4, "scale")
    # 100 wide with 4 of padding: 10x sits a quarter in, 1000x three quarters.
    assert 'd="M4 5H27"' in bar
    assert 'cx="73"' in bar
    assert '<use href="#scale"/>' in bar
    assert svg.spark_bar(None, None, 3, "scale").count("<circle") == 0
    shared = svg.spark_scale(4, "scale")
    assert 'id="scale"' in shared and 'd="M27 2V8M50 2V8M73 2V8"' in shared
    assert 'stroke="' in shared  # colours travel with the shared copy


def test_ratio_decades() -> None:
    assert charts.ratio_decades([None, 1.0]) == 1
    assert charts.ratio_decades([3.0, 150.0]) == 3
    assert charts.ratio_decades([1e9]) == 6


@pytest.fixture(scope="module")
def charts_doc() -> results.ResultsDocument:
    return results.load(FIXTURES / "results-charts")


def _unit(doc: results.ResultsDocument, name: str) -> results.ScenarioOutcome:
    return next(o for o in doc.scenarios if o.name == name)


def test_switch_time_against_threads(charts_doc: results.ResultsDocument) -> None:
    found = sweeps(_unit(charts_doc, "thr.switch.yield").metrics())
    assert len(found) == 1 and found[0].param == "threads"
    assert [x for x, _m in found[0].points] == [2, 10, 128, 1000]
    drawn = charts.sweep(found[0])
    assert drawn is not None
    chart, title = drawn
    assert title == "Switch time against the number of threads"
    labels = [t.text for t in ElementTree.fromstring(chart).iter("text")]
    assert {"2", "10", "128", "1,000"} <= set(labels)


def test_release_time_against_waiters(charts_doc: results.ResultsDocument) -> None:
    outcome = _unit(charts_doc, "sem.wait.block")
    record = next(t for t in outcome.of_type("table") if t["name"] == "release_vs_waiters")
    chart = charts.versus_table(record, outcome.counter_hz)
    assert chart is not None
    root = ElementTree.fromstring(chart)
    lines = [p for p in root.iter("path") if "ln" in (p.get("class") or "")]
    assert len(lines) == 3  # min, mean, max
    assert "waiters blocked" in [t.text for t in root.iter("text")]


def test_interrupt_phases_chart(charts_doc: results.ResultsDocument) -> None:
    record = next(t for t in _unit(charts_doc, "irq.sustained").of_type("table"))
    chart = charts.interrupt_phases(record)
    assert chart is not None
    texts = [t.text for t in ElementTree.fromstring(chart).iter("text")]
    assert "100 µs" in texts and "#8" in texts
    assert {"6", "3", "2"} <= set(texts)  # lost interrupts written above their bars


def test_tick_diagram_shows_two_lines(charts_doc: results.ResultsDocument) -> None:
    outcome = _unit(charts_doc, "clk.tick.duration")
    loop = next(m for m in outcome.metrics() if m.metric == "loop")
    sf = outcome.samples_for(loop)
    assert sf is not None
    values = results.read_samples(FIXTURES / "results-charts", sf)
    lines = charts.tick_lines(outcome)
    assert lines is not None
    assert lines.normal_typical < lines.tick_typical
    assert lines.period == pytest.approx(4.0e6, rel=0.01)
    drawn = charts.tick_diagram(outcome, loop, values)
    assert drawn is not None
    chart, first, _above, _lines = drawn
    # The first thousands of loops of this run were slow; the window skips them.
    assert first > 3000
    runs = re.search(r'class="col k0 dots" d="([^"]+)"', chart)
    assert runs is not None
    ys = [int(y) for y in re.findall(r"^M\d+ (\d+)|m\d+-?\d+", runs.group(1)) if y]
    assert ys  # drawn at all


def test_quiet_window() -> None:
    values = [20.0] * 1000 + [10.0] * 1000 + [20.0] * 1000
    assert charts.quiet_window(values, 1000, 15.0) == 1000
    assert charts.quiet_window(values, 5000, 15.0) == 0
