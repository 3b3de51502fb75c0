# SPDX-License-Identifier: Apache-2.0
"""rtbench compare: the statistics, the rules, the rating and the command, on
synthetic results whose distributions are known."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from conftest import RunCli
from rtbench.commands import compare as command
from rtbench.compare import html, model, tables, text, wording
from rtbench.compare import significance as cstats
from rtbench.model.summary import Bucket
from synth import lognormal, verdict_record, with_tail, write_result
from test_cli_errors import assert_one_line_error

N = 5000
WAKE = ("sem.signal.unblock", "release", "SEM-P-ARC")
SWITCH = ("thr.switch.yield", "switch", "THR-P-SLS")


def _compare(tmp_path: Path, a: list[int], b: list[int], **kwargs: object) -> model.Comparison:
    da = write_result(tmp_path / "a", {WAKE: a})
    db = write_result(tmp_path / "b", {WAKE: b}, **kwargs)  # type: ignore[arg-type]
    return model.build(model.load_systems([da, db]))


def _diff(c: model.Comparison) -> cstats.Difference:
    diff = c.metrics[0].differences[1]
    assert diff is not None
    return diff


def test_identical_distributions_are_no_significant_difference(tmp_path: Path) -> None:
    c = _compare(tmp_path, lognormal(1, N, 3000), lognormal(2, N, 3000))
    diff = _diff(c)
    assert diff.outcome == "same"
    assert diff.location == "none" and diff.tail == "none"
    assert diff.loc_test is not None and diff.loc_test.source == "raw"
    assert "no significant difference" in text.render(c)
    sync = next(r for r in c.ratings if r.family == "synchronisation")
    assert sync.best == () and "no significant difference" in sync.sentence


def test_shifted_median_is_significantly_worse(tmp_path: Path) -> None:
    c = _compare(tmp_path, lognormal(1, N, 3000), lognormal(2, N, 3600))
    diff = _diff(c)
    assert diff.outcome == "worse" and diff.location == "higher"
    loc = diff.loc_test
    assert loc is not None and loc.p_value < 1e-6
    assert loc.ci_low is not None and loc.ci_high is not None
    assert loc.ci_low < 1.2 < loc.ci_high
    sync = next(r for r in c.ratings if r.family == "synchronisation")
    assert sync.best == ("A",)


def test_faster_system_is_better(tmp_path: Path) -> None:
    c = _compare(tmp_path, lognormal(1, N, 3000), lognormal(2, N, 2400))
    assert _diff(c).outcome == "better"


def test_small_shift_is_within_the_noise_band(tmp_path: Path) -> None:
    c = _compare(tmp_path, lognormal(1, N, 3000, 0.05), lognormal(2, N, 3090, 0.05))
    diff = _diff(c)
    assert diff.location == "noise"
    assert diff.outcome == "same"


def test_heavier_tail_with_the_same_median_is_worse(tmp_path: Path) -> None:
    """A neighbour that takes the CPU in short bursts: 3% of the wake-ups get 5-10x
    slower. The median barely moves; the tail rule must see it."""
    base = lognormal(1, N, 3000)
    disturbed = with_tail(lognormal(2, N, 3000), seed=3, share=0.03, low=5, high=10)
    c = _compare(tmp_path, base, disturbed)
    diff = _diff(c)
    assert diff.location in ("none", "noise")
    assert diff.tail == "higher"
    assert diff.outcome == "worse"
    assert c.metrics[0].ratio(1, "p50") == pytest.approx(1.0, abs=0.05)
    assert command.regressed(c)


def test_a_single_huge_maximum_is_never_significant(tmp_path: Path) -> None:
    a = lognormal(1, N, 3000)
    b = lognormal(2, N, 3000)
    b[100] = 3000 * 1000
    c = _compare(tmp_path, a, b)
    assert _diff(c).outcome == "same"
    ratio = c.metrics[0].ratio(1, "max")
    assert ratio is not None and ratio > 100


def test_histograms_are_used_when_raw_samples_are_missing(tmp_path: Path) -> None:
    c = _compare(tmp_path, lognormal(1, N, 3000), lognormal(2, N, 3600), raw=False)
    diff = _diff(c)
    assert diff.loc_test is not None and diff.loc_test.source == "histogram"
    assert diff.outcome == "worse"


def test_weighted_mann_whitney_matches_scipy() -> None:
    rng = np.random.default_rng(7)
    a = np.round(rng.normal(50, 8, 300))
    b = np.round(rng.normal(52, 8, 250))

    def hist(x: np.ndarray) -> list[Bucket]:
        v, n = np.unique(x, return_counts=True)
        return [Bucket(float(k), float(k), int(c)) for k, c in zip(v, n, strict=True)]

    p, prob = cstats.mann_whitney(cstats.from_histogram(hist(a)), cstats.from_histogram(hist(b)))
    ref = sps.mannwhitneyu(b, a, alternative="two-sided", method="asymptotic")
    assert p == pytest.approx(float(ref.pvalue), rel=1e-9)
    assert prob == pytest.approx(float(ref.statistic) / (len(a) * len(b)))


def test_bootstrap_interval_is_deterministic_and_covers_the_ratio() -> None:
    a = cstats.from_samples(lognormal(1, 2000, 1000))
    b = cstats.from_samples(lognormal(2, 2000, 1500))
    first = cstats.median_ratio_ci(a, b)
    assert first == cstats.median_ratio_ci(a, b)
    assert first is not None and first[0] < 1.5 < first[1]
    assert first[1] - first[0] < 0.1


def test_failing_verdict_marks_the_system_failing(tmp_path: Path) -> None:
    values = lognormal(1, 500, 3000)
    da = write_result(
        tmp_path / "a",
        {WAKE: values},
        verdicts=[verdict_record("mut.behavior.pi", "MUT-B-ARC", "pass")],
    )
    db = write_result(
        tmp_path / "b",
        {WAKE: values},
        verdicts=[verdict_record("mut.behavior.pi", "MUT-B-ARC", "fail")],
    )
    c = model.build(model.load_systems([da, db]))
    assert c.failing == ((), ("MUT-B-ARC",))
    behaviour = c.ratings[0]
    assert behaviour.best == ("A",) and "B FAILS MUT-B-ARC" in behaviour.sentence
    assert command.regressed(c)
    assert "FAILS MUT-B-ARC" in text.render(c)


def test_different_configurations_are_warned_about(tmp_path: Path) -> None:
    values = lognormal(1, 500, 3000)
    da = write_result(tmp_path / "a", {WAKE: values})
    db = write_result(tmp_path / "b", {WAKE: values}, run={"profile": "standard", "cpu": 0})
    c = model.build(model.load_systems([da, db]))
    assert any("profile differs: A quick, B standard" in w for w in c.warnings)
    assert any("measurement CPU differs" in w for w in c.warnings)
    assert "Configuration differences" in text.render(c)


def _freertos_host(digest: str, modified: bool | None) -> dict[str, object]:
    checkout = {
        "path": "/src/FreeRTOS-Kernel",
        "tag": "V11.1.0",
        "commit": "dbf70559b27d39c1fdb68dfb9a32140b6a6777a0",
        "read_from": "VERSION",
        "digest": digest,
        "modified": modified,
        "modified_reason": "the digest is FreeRTOS V11.1.0's" if modified is False else "edited",
    }
    return {"kernel": {"system": "FreeRTOS", "release": "V11.1.0", "checkout": checkout}}


def test_a_different_kernel_digest_is_a_configuration_difference(tmp_path: Path) -> None:
    values = lognormal(1, 500, 3000)
    release = "edbbb421e69ffe013a261676f837136b005aacd198ef47ee64bae5d87ed6720a"
    edited = "0123456789ab" + "f" * 52
    da = write_result(tmp_path / "a", {WAKE: values}, host=_freertos_host(release, False))
    same = write_result(tmp_path / "same", {WAKE: values}, host=_freertos_host(release, False))
    db = write_result(tmp_path / "b", {WAKE: values}, host=_freertos_host(edited, True))
    unsure = write_result(tmp_path / "u", {WAKE: values}, host=_freertos_host(release, None))
    linux = write_result(tmp_path / "linux", {WAKE: values})

    assert not [w for w in model.build(model.load_systems([da, same])).warnings if "kernel" in w]
    c = model.build(model.load_systems([da, db]))
    line = (
        "kernel sources differs: A V11.1.0 digest edbbb421e69f, unmodified, "
        "B V11.1.0 digest 0123456789ab, modified."
    )
    assert [w for w in c.warnings if "kernel" in w] == [line]  # said once, not as host facts
    for shown in (text.render(c), tables.markdown(c)):
        flat = " ".join(shown.split())  # as wrapped to the terminal's width
        assert flat.index(line) > flat.index("Configuration differences")
    c = model.build(model.load_systems([da, unsure]))
    assert "B V11.1.0 digest edbbb421e69f, unknown whether modified." in " ".join(c.warnings)
    # a kernel that is not built from a checkout has no such fact to differ in
    c = model.build(model.load_systems([linux, db]))
    assert not any(w.startswith("kernel sources") for w in c.warnings)


def test_rating_families_and_metrics_only_in_one_system(tmp_path: Path) -> None:
    da = write_result(tmp_path / "a", {WAKE: lognormal(1, N, 3000), SWITCH: lognormal(3, N, 900)})
    db = write_result(tmp_path / "b", {WAKE: lognormal(2, N, 3000)})
    c = model.build(model.load_systems([da, db]))
    switch_row = next(r for r in c.metrics if r.key[0] == "thr.switch.yield")
    assert switch_row.cells[1] is None and switch_row.differences[1] is None
    families = {r.family: r.sentence for r in c.ratings}
    assert families["thread switch"] == "no time metric measured by every system"
    assert families["memory"] == "not measured"


def test_terminal_table_fits_100_columns(tmp_path: Path) -> None:
    c = _compare(tmp_path, lognormal(1, N, 3000), lognormal(2, N, 3600))
    rendered = text.render(c, with_reference=True)
    assert max(len(line) for line in rendered.splitlines()) <= 100
    assert "\x1b[" not in rendered
    assert "\x1b[" in text.render(c, color=True)


def test_markdown_csv_and_html_hold_every_metric(tmp_path: Path) -> None:
    c = _compare(tmp_path, lognormal(1, N, 3000), lognormal(2, N, 3600))
    md = tables.markdown(c, with_reference=True)
    assert "| system | samples | min | median |" in md
    assert "Windows CE7 · Cortex-A8 1 GHz · 2012" in md
    rows = list(csv.DictReader(io.StringIO(tables.csv_text(c))))
    assert [r["system"] for r in rows] == ["A", "B"]
    assert rows[1]["outcome"] == "worse" and float(rows[1]["mann_whitney_p"]) < 0.01
    assert float(rows[0]["median"]) == pytest.approx(c.metrics[0].cells[0].p50)  # type: ignore[union-attr]
    page = html.render(c, with_reference=True)
    assert page.count("<svg") == 2
    assert "average" in page and "maximum" in page
    # Self-contained: nothing is loaded from anywhere (the SVG namespace is a name).
    assert not re.search(r"(src|href)=\"https?:", page)
    assert "<script" not in page


def test_cli_compare_writes_the_page_and_exits_by_the_rules(
    run_cli: RunCli, tmp_path: Path
) -> None:
    da = write_result(tmp_path / "a", {WAKE: lognormal(1, N, 3000)})
    same = write_result(tmp_path / "same", {WAKE: lognormal(2, N, 3000)})
    slow = write_result(tmp_path / "slow", {WAKE: lognormal(2, N, 3600)})
    done = run_cli("compare", str(da), str(same), "--fail-on-regression")
    assert done.returncode == 0, done.stderr
    assert "no significant difference" in done.stdout
    done = run_cli("compare", str(da), str(slow), "--out", str(tmp_path / "cmp"))
    assert done.returncode == 0, done.stderr
    for name in ("comparison.html", "comparison.md", "comparison.csv"):
        assert (tmp_path / "cmp" / name).stat().st_size > 0
    done = run_cli("compare", str(da), str(slow), "--fail-on-regression")
    assert done.returncode == command.REGRESSION_STATUS
    assert "WORSE" in done.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("compare",),
        ("compare", "ONE"),
        ("compare", "ONE", "missing"),
        ("compare", "ONE", "EMPTY"),
        ("compare", "ONE", "ONE", "--min-change", "abc"),
        ("compare", "ONE", "ONE", "--out", "FILE"),
    ],
)
def test_cli_compare_bad_input(run_cli: RunCli, tmp_path: Path, args: tuple[str, ...]) -> None:
    one = write_result(tmp_path / "one", {WAKE: lognormal(1, 200, 3000)})
    (tmp_path / "empty").mkdir()
    (tmp_path / "file").write_text("x")
    names = {"ONE": str(one), "EMPTY": str(tmp_path / "empty"), "FILE": str(tmp_path / "file")}
    assert_one_line_error(run_cli(*(names.get(a, a) for a in args)))


def test_rating_shares_first_place_within_the_noise_band(tmp_path: Path) -> None:
    a = write_result(tmp_path / "a", {WAKE: lognormal(1, N, 3000)})
    b = write_result(tmp_path / "b", {WAKE: lognormal(2, N, 3000)})
    c = write_result(tmp_path / "c", {WAKE: lognormal(3, N, 3900)})
    comparison = model.build(model.load_systems([a, b, c]))
    sync = next(r for r in comparison.ratings if r.family == "synchronisation")
    assert sync.best == ("A", "B")
    assert "better score than C" in sync.sentence


def test_a_shift_of_a_counter_step_is_not_a_difference() -> None:
    # Values on a 10 ns grid (a counter that moves in 10 ns steps): medians of 10
    # and 20 ns and p99s one step apart are at the counter's resolution.
    rng = np.random.default_rng(7)
    a = (rng.choice([10, 20], size=5000, p=[0.7, 0.3])).astype(float)
    b = (rng.choice([10, 20, 30], size=5000, p=[0.3, 0.6, 0.1])).astype(float)

    def hist(x: np.ndarray) -> list[Bucket]:
        v, n = np.unique(x, return_counts=True)
        return [Bucket(float(k), float(k) + 9.9, int(c)) for k, c in zip(v, n, strict=True)]

    da, db = cstats.from_samples(a.tolist()), cstats.from_samples(b.tolist())
    blind = cstats.judge(da, db, hist(a), hist(b), lower_is_better=True)
    assert blind.outcome == "worse"  # without the resolution: a 'difference'
    aware = cstats.judge(da, db, hist(a), hist(b), lower_is_better=True, resolution=10.0)
    assert aware.outcome == "same"
    assert aware.location in ("noise", "none")
    # a real shift, well beyond two steps, is still seen
    far = cstats.from_samples((a * 10).tolist())
    moved = cstats.judge(da, far, hist(a), hist(a * 10), lower_is_better=True, resolution=10.0)
    assert moved.outcome == "worse"


# ---- several runs per system: the between-run spread ------------------------------

# Run-level shifts of one configuration: whole runs move by up to ±25 %, far more than
# the spread within a run allows for (as on a virtual machine). A's and A''s runs
# interleave, as runs of one configuration do.
SHIFTS_A = (1.0, 1.25, 0.8)
SHIFTS_A2 = (1.2, 1.3, 0.9)


def _runs(tmp_path: Path, name: str, medians: list[float], seed: int) -> list[Path]:
    return [
        write_result(tmp_path / f"{name}{i}", {WAKE: lognormal(seed + i, N, m)})
        for i, m in enumerate(medians)
    ]


def test_run_level_shifts_of_one_configuration_are_not_a_difference(tmp_path: Path) -> None:
    a = _runs(tmp_path, "a", [3000 * s for s in SHIFTS_A], 10)
    b = _runs(tmp_path, "b", [3000 * s for s in SHIFTS_A2], 20)
    # Negative control: one run each, the within-run tests call the shift real.
    single = model.build(model.load_systems([a[0], b[0]]))
    assert _diff(single).outcome == "worse"
    assert "Run-to-run variance was not measured" in text.render(single)
    c = model.build(model.load_groups([a, b]))
    diff = _diff(c)
    assert diff.outcome == "same", wording.difference_text(diff, "B")
    assert diff.location == "spread"
    assert diff.runs == (3, 3)
    median = next(s for s in diff.spreads if s.statistic == "median")
    assert median.separated == "none" and median.chance == pytest.approx(0.1)
    rendered = text.render(c)
    assert "within the run-to-run spread" in rendered and "they overlap" in rendered
    assert "A (3 runs) and B (3 runs)" in rendered and "1 in 10" in rendered
    assert not command.regressed(c)
    sync = next(r for r in c.ratings if r.family == "synchronisation")
    assert sync.best == () and "no significant difference" in sync.sentence


def test_a_different_system_beyond_the_run_spread_is_called_different(tmp_path: Path) -> None:
    a = _runs(tmp_path, "a", [3000 * s for s in SHIFTS_A], 10)
    # 80 % slower: even its fastest run is beyond A's slowest by more than the band
    slower = _runs(tmp_path, "s", [3000 * 1.8 * s for s in SHIFTS_A2], 30)
    c = model.build(model.load_groups([a, slower]))
    diff = _diff(c)
    assert diff.outcome == "worse" and diff.location == "higher"
    median = next(s for s in diff.spreads if s.statistic == "median")
    assert median.separated == "higher"
    assert command.regressed(c)
    # A heavier tail in every run (a neighbour taking the CPU in bursts), median unmoved.
    noisy = [
        write_result(
            tmp_path / f"t{i}",
            {WAKE: with_tail(lognormal(40 + i, N, m), seed=50 + i, share=0.04, low=5, high=10)},
        )
        for i, m in enumerate([3000 * s for s in SHIFTS_A2])
    ]
    c = model.build(model.load_groups([a, noisy]))
    diff = _diff(c)
    assert diff.tail == "higher" and diff.outcome == "worse"
    assert diff.location in ("none", "noise", "spread")


def test_pooled_cell_holds_every_run(tmp_path: Path) -> None:
    values = [lognormal(60 + i, 1000, 3000 * s) for i, s in enumerate((1.0, 1.2, 0.9))]
    paths = [write_result(tmp_path / f"p{i}", {WAKE: v}) for i, v in enumerate(values)]
    other = write_result(tmp_path / "o", {WAKE: lognormal(70, 1000, 3000)})
    c = model.build(model.load_groups([paths, [other]]))
    row = c.metrics[0]
    cell = row.cells[0]
    pooled = sorted(v for run in values for v in run)
    assert cell is not None and cell.count == 3000
    assert cell.min == pooled[0] and cell.max == pooled[-1]
    assert cell.p50 == pooled[1499] and cell.p99 == pooled[2969]
    assert cell.mean == pytest.approx(sum(pooled) / 3000)
    assert cell.stddev == pytest.approx(float(np.std(pooled, ddof=1)), rel=1e-6)
    assert sum(b.count for b in cell.histogram) == 3000
    assert [len(r) for r in row.run_cells] == [3, 1]
    assert c.systems[0].name.endswith("+2 runs")
    first = next(csv.DictReader(io.StringIO(tables.csv_text(c))))
    assert first["run"] == "p0+p1+p2" and first["samples"] == "3000"
    assert first["path"].split(";") == [str(p) for p in paths]


def test_cli_compare_vs_groups_runs(run_cli: RunCli, tmp_path: Path) -> None:
    a = _runs(tmp_path, "a", [3000 * s for s in SHIFTS_A], 10)
    b = _runs(tmp_path, "b", [3000 * s for s in SHIFTS_A2], 20)
    done = run_cli("compare", *map(str, a), "--vs", *map(str, b), "--fail-on-regression")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "B against A: 1 same" in done.stdout
    assert "within the run-to-run spread" in done.stdout
    # the same runs, each its own system: the shifts are called real
    done = run_cli("compare", str(a[0]), str(b[0]), "--fail-on-regression")
    assert done.returncode == command.REGRESSION_STATUS
    assert_one_line_error(run_cli("compare", str(a[0]), str(a[0]), "--vs", str(b[0])))


def test_separation_chance() -> None:
    assert cstats.separation_chance(3, 3) == pytest.approx(0.1)
    assert cstats.separation_chance(1, 1) == 1.0
    assert cstats.separation_chance(5, 5) == pytest.approx(2 / 252)
    # exact for exchangeable runs: count the orders in which three runs all beat three others
    rng = np.random.default_rng(3)
    draws = rng.normal(size=(20000, 6))
    separated = (draws[:, :3].max(axis=1) < draws[:, 3:].min(axis=1)) | (
        draws[:, :3].min(axis=1) > draws[:, 3:].max(axis=1)
    )
    assert float(separated.mean()) == pytest.approx(0.1, abs=0.01)


def test_runs_of_one_system_that_differ_in_setup_are_warned_about(tmp_path: Path) -> None:
    same = [write_result(tmp_path / f"s{i}", {WAKE: lognormal(80 + i, 500, 3000)}) for i in (0, 1)]
    other = write_result(tmp_path / "o", {WAKE: lognormal(90, 500, 3000)})
    c = model.build(model.load_groups([same, [other]]))
    assert not any("runs differ" in w for w in c.warnings)
    odd = write_result(
        tmp_path / "odd", {WAKE: lognormal(82, 500, 3000)}, run={"profile": "standard"}
    )
    c = model.build(model.load_groups([[*same, odd], [other]]))
    warned = [w for w in c.warnings if w.startswith("A's runs differ in profile")]
    assert len(warned) == 1 and "standard (odd)" in warned[0]
    loaded = write_result(
        tmp_path / "loaded",
        {WAKE: lognormal(83, 500, 3000)},
        run={"conditions": {"trace": {"events": "sched"}}},
    )
    c = model.build(model.load_systems([same[0], loaded]))
    assert any(w.startswith("run conditions differ") for w in c.warnings)
