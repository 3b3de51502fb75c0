# SPDX-License-Identifier: Apache-2.0
"""The published reference figures: the data loads, every figure names its
platform and year, and it lands next to the metric that measures the same."""

from __future__ import annotations

import csv
import io
from importlib import resources
from pathlib import Path

from conftest import RunCli
from rtbench import reference
from rtbench.compare import model, text
from rtbench.model import catalog
from rtbench.model.summary import MetricSummary
from synth import lognormal, write_result
from test_cli_errors import assert_one_line_error

SPEC_IDS = {e.id for e in catalog.SPEC}
SPEC_LABELS = {e.label_base for e in catalog.SPEC if e.label}


def _metric(scenario: str, metric: str, **params: object) -> MetricSummary:
    return MetricSummary(
        scenario, metric, None, None, dict(params), "ns", "ns", 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
        None, 0, 0, 0, 0, (),
    )  # fmt: skip


def test_data_file_is_shipped_with_its_sources() -> None:
    data = resources.files("rtbench.data")
    rows = list(csv.DictReader(io.StringIO(data.joinpath(reference.RESULTS_FILE).read_text())))
    assert len(rows) > 300
    assert {r["source_report"] for r in rows} == set(reference.sources())
    assert "Perneel" in data.joinpath("published-results.md").read_text()


def test_every_figure_has_a_known_label_platform_and_year() -> None:
    for f in reference.figures():
        assert f.label in SPEC_LABELS, f.label
        assert 2011 <= f.year <= 2012
        assert f.platform and str(f.year) in f.system


def test_every_mapped_figure_names_a_catalog_scenario() -> None:
    mapped = [f for f in reference.figures() if f.target() is not None]
    assert len(mapped) > 120
    for f in mapped:
        target = f.target()
        assert target is not None and target[0] in SPEC_IDS, f


def test_contended_semaphore_has_every_published_system() -> None:
    found = reference.for_metric(_metric("sem.wait.block", "acquire", waiters=128))
    systems = {f.system for f in found}
    assert {
        "QNX 6.5.0 · Cortex-A8 1 GHz · 2012",
        "Windows CE7 · Cortex-A8 1 GHz · 2012",
        "Linux 2.6.33-rt30 · Cortex-A8 1 GHz · 2012",
        "Android 3.0.4 · Cortex-A8 1 GHz · 2012",
        "QNX 6.5.0 · Atom Z530 1.6 GHz · 2011",
    } <= systems
    # The comparison report and the CE7 report print the same line: kept once.
    ce7 = [f for f in found if f.os.startswith("Windows")]
    assert len(ce7) == 1 and len(ce7[0].sources) == 2 and ce7[0].min_us == "6.2"


def test_thread_switch_figures_match_the_ring_size() -> None:
    ten = reference.for_metric(_metric("thr.switch.yield", "switch", threads=10))
    assert ten and all(f.measurement.endswith("10 threads") for f in ten)
    assert reference.for_metric(_metric("thr.switch.yield", "switch", threads=3)) == []


def test_compare_reference_columns_are_labelled(tmp_path: Path) -> None:
    key = ("sem.wait.block", "acquire", "SEM-P-ARC")
    a = write_result(tmp_path / "a", {key: lognormal(1, 500, 3000)})
    b = write_result(tmp_path / "b", {key: lognormal(2, 500, 3000)})
    rendered = text.render(model.build(model.load_systems([a, b])), with_reference=True)
    assert "published (not this machine)" in rendered
    assert "Android 3.0.4 · Cortex-A8 1 GHz · 2012" in rendered
    assert "Perneel" in rendered


def test_show_reference(run_cli: RunCli, tmp_path: Path) -> None:
    key = ("sem.signal.unblock", "release", "SEM-P-ARC")
    a = write_result(tmp_path / "a", {key: lognormal(1, 500, 3000)})
    done = run_cli("show", str(a), "--reference")
    assert done.returncode == 0, done.stderr
    assert "Published figures" in done.stdout
    assert "QNX 6.5.0 · Atom Z530 1.6 GHz · 2011" in done.stdout


def test_compare_one_result_with_the_published_figures(run_cli: RunCli, tmp_path: Path) -> None:
    key = ("sem.signal.unblock", "release", "SEM-P-ARC")
    a = write_result(tmp_path / "a", {key: lognormal(1, 500, 3000)})
    out = tmp_path / "cmp"
    done = run_cli("compare", str(a), "--reference", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "rtbench compare: 1 result and the published figures" in done.stdout
    assert "published (not this machine)" in done.stdout
    assert "QNX 6.5.0 · Atom Z530 1.6 GHz · 2011" in done.stdout
    # no other system: nothing is tested or rated, and A is no one's baseline
    assert "Rating" not in done.stdout and "baseline" not in done.stdout
    markdown = (out / "comparison.md").read_text()
    assert markdown.startswith("# rtbench comparison: 1 result and the published figures")
    assert "| QNX 6.5.0 · Atom Z530 1.6 GHz · 2011 |" in markdown and "Perneel" in markdown
    page = (out / "comparison.html").read_text()
    assert "Published figures in µs" in page and "QNX 6.5.0 · Atom Z530 1.6 GHz · 2011" in page
    rows = list(csv.DictReader(io.StringIO((out / "comparison.csv").read_text())))
    assert [(r["scenario"], r["system"]) for r in rows] == [("sem.signal.unblock", "A")]
    # without the published figures one result has nothing to be compared with
    alone = run_cli("compare", str(a))
    assert_one_line_error(alone)
    assert "or one with --reference" in alone.stderr
    # several runs of a system, and the figures beside them
    a2 = write_result(tmp_path / "a2", {key: lognormal(2, 500, 3000)})
    b = write_result(tmp_path / "b", {key: lognormal(3, 500, 3000)})
    runs = run_cli("compare", str(a), str(a2), "--vs", str(b), "--reference")
    assert runs.returncode == 0, runs.stderr
    assert "rtbench compare: 2 results, baseline A" in runs.stdout
    assert "A a +1 run" in runs.stdout and "B against A" in runs.stdout
    assert "QNX 6.5.0 · Atom Z530 1.6 GHz · 2011" in runs.stdout
