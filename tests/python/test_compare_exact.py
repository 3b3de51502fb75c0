# SPDX-License-Identifier: Apache-2.0
"""rtbench compare of deterministic runs: exact differences instead of statistics,
the path difference of traced runs, and --fail-on-regression on them.

The results are synthetic: runs of the emulated FreeRTOS board in deterministic
mode (-icount shift=5, a 25 MHz counter: one tick is 40 ns, 1.25 instructions),
with figures in counter ticks and, for traced runs, the `path` object the code
path tracer writes."""

from __future__ import annotations

import copy
import csv
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from conftest import RunCli
from rtbench.commands import compare as command
from rtbench.compare import exact, html, model, pathdiff, tables, text
from rtbench.compare import significance as cstats
from synth import BASE_DOC, lognormal, write_result

WAIT = ("sem.wait.available", "wait", "SEM-P-ARN")
SIGNAL = ("sem.signal.no_waiter", "signal", "SEM-P-ARN")
HZ = 25_000_000
TICK_NS = 40.0
TARGET_INFO: dict[str, Any] = {
    "kind": "qemu",
    "spec": "qemu:freertos-mps2-an385",
    "os": "FreeRTOS",
    "board": "mps2-an385",
    "cpu": "cortex-m3",
    "arch": "armv7m",
    "emulator": "qemu-system-arm",
    "emulator_version": "7.2.22",
    "accel": "tcg",
    "emulated": True,
    "icount_shift": 5,
    "deterministic": {"icount_shift": 5, "ns_per_instruction": 32, "qemu_option": "shift=5"},
    "cpus": 1,
}
# A take of an available semaphore: 60 ticks, and 98 when the tick interrupt lands in it.
BASE_WAIT = [60] * 4950 + [98] * 50
BASE_SIGNAL = [70] * 4950 + [110] * 50


def _sample(calls: Mapping[str, int], insns: Mapping[str, int], value: int) -> dict[str, Any]:
    return {
        "kind": "median",
        "rank": 0,
        "index": 0,
        "value": value,
        "found": True,
        "instructions": sum(insns.values()),
        "blocks": 30,
        "unknown_blocks": 0,
        "sequence": [name for name, n in calls.items() for _ in range(n)],
        "calls": dict(calls),
        "instructions_by_function": dict(insns),
        "handlers": [],
    }


TYPICAL_CALLS = {
    "rtb_port_sem_wait": 1,
    "xQueueSemaphoreTake": 1,
    "vPortEnterCritical": 7,
    "vPortExitCritical": 7,
}
TYPICAL_INSNS = {
    "xQueueSemaphoreTake": 30,
    "run_arn": 17,
    "vPortEnterCritical": 112,
    "vPortExitCritical": 64,
    "rtb_port_sem_wait": 8,
}


def path_object(calls: Mapping[str, int], insns: Mapping[str, int], value: int) -> dict[str, Any]:
    typical = _sample(calls, insns, value)
    worst = {**_sample(calls, insns, value), "kind": "worst"}
    return {
        "file": "trace/02-sem.wait.available.paths.json",
        "exact_bounds": True,
        "ns_per_instruction": 32,
        "kept": 11,
        "found": 11,
        "typical": typical,
        "worst": worst,
        "line": "typical sample",
        "worst_line": None,
    }


def deterministic_result(
    out: Path,
    metrics: Mapping[tuple[str, str, str | None], Sequence[int]],
    *,
    paths: Mapping[str, dict[str, Any]] | None = None,
    target_info: Mapping[str, Any] | None = None,
    raw: bool = True,
) -> Path:
    """A results directory of a deterministic run: figures in ticks of a 25 MHz
    counter (the raw series in ns, as the runner stores them), `paths`: the `path`
    object of each scenario's result record (a traced run)."""
    write_result(out, metrics, raw=raw)
    doc = json.loads((out / "results.json").read_text())
    base = json.loads(BASE_DOC.read_text())
    meta = copy.deepcopy(base["scenarios"][0]["meta"])
    meta["counter"] = {"name": "cmsdk-dualtimer1", "hz": HZ, "ns_per_tick": TICK_NS, "note": ""}
    doc["run"]["target_info"] = dict(TARGET_INFO if target_info is None else target_info)
    doc["run"]["target"] = "qemu:freertos-mps2-an385"
    for scenario in doc["scenarios"]:
        scenario["meta"] = meta
        for record in scenario["records"]:
            record["unit"] = "ticks"
            if paths and scenario["name"] in paths:
                record["path"] = paths[scenario["name"]]
        for sf in scenario["samples"]:
            file = out / sf["path"]
            rows = list(csv.reader(io.StringIO(file.read_text())))
            lines = [",".join(rows[0])]
            lines += [f"{i},{float(v) * TICK_NS}" for i, v in rows[1:]]
            file.write_text("\n".join(lines) + "\n")
    (out / "results.json").write_text(json.dumps(doc, indent=1))
    return out


def _build(*dirs: Path) -> model.Comparison:
    return model.build(model.load_systems(list(dirs)))


def _diff(c: model.Comparison, row: int = 0, index: int = 1) -> cstats.Difference:
    diff = c.metrics[row].differences[index]
    assert diff is not None
    return diff


def test_identical_runs_are_identical_without_statistics(tmp_path: Path) -> None:
    a = deterministic_result(tmp_path / "a", {WAIT: BASE_WAIT, SIGNAL: BASE_SIGNAL})
    b = deterministic_result(tmp_path / "b", {WAIT: BASE_WAIT, SIGNAL: BASE_SIGNAL})
    c = _build(a, b)
    assert c.exact_with(1)
    for row in range(2):
        diff = _diff(c, row)
        assert diff.outcome == "identical" and diff.exact is not None
        assert diff.exact.basis == "samples" and diff.exact.changes == ()
        assert diff.loc_test is None and diff.tails == ()  # no statistics ran
    rendered = " ".join(text.render(c).split())
    assert "B against A (exact, deterministic): 2 identical" in rendered
    assert "same emulated board (mps2-an385, QEMU 7.2.22, -icount shift=5" in rendered
    assert "synchronisation no difference: identical figures (2 metrics, compared exactly)" in (
        rendered
    )
    assert "Mann-Whitney p" not in rendered and " B: " not in rendered  # no detail line
    # deterministic runs have no run-to-run variance to warn about
    assert "Run-to-run variance was not measured" not in rendered
    assert not command.regressed(c)


def test_a_planted_difference_is_reported_exactly(tmp_path: Path) -> None:
    a = deterministic_result(tmp_path / "a", {WAIT: BASE_WAIT, SIGNAL: BASE_SIGNAL})
    # 80 ticks more on every take: 3.2 µs, 100 instructions at 1.25 instructions a tick
    b = deterministic_result(
        tmp_path / "b", {WAIT: [v + 80 for v in BASE_WAIT], SIGNAL: BASE_SIGNAL}
    )
    c = _build(a, b)
    diff = _diff(c)
    assert diff.outcome == "worse" and diff.exact is not None
    changes = {ch.statistic: ch for ch in diff.exact.changes}
    assert changes["median"].delta == pytest.approx(80 * TICK_NS)
    assert changes["max"].delta == pytest.approx(80 * TICK_NS)
    assert _diff(c, 1).outcome == "identical"
    line = " ".join(text.render(c).split())
    assert (
        "slower by exactly 80 ticks = 3.20 µs ≈ 100 instructions (+133.3%) in the median, "
        "and by as much in min, avg, p90, p99, p99.9 and max"
    ) in line
    assert "SLOWER" in line and "B against A (exact, deterministic): 1 SLOWER, 1 identical" in line
    assert command.regressed(c)
    # the other way round it is faster, and no regression
    back = _build(b, a)
    assert _diff(back).outcome == "better"
    assert "faster by exactly 80 ticks = 3.20 µs ≈ 100 instructions (-57.1%)" in " ".join(
        text.render(back).split()
    )
    assert not command.regressed(back)
    rows = list(csv.DictReader(io.StringIO(tables.csv_text(c))))
    wait_b = next(r for r in rows if r["scenario"] == "sem.wait.available" and r["system"] == "B")
    assert wait_b["outcome"] == "worse" and wait_b["location"] == "exact"
    assert wait_b["exact_shift"] == "5" and float(wait_b["median_change"]) == 80 * TICK_NS


def test_only_the_maximum_moving_is_still_slower(tmp_path: Path) -> None:
    """Deterministic maxima repeat too: a tick handler 40 ticks longer is a real,
    exact difference, even with every other statistic unchanged."""
    a = deterministic_result(tmp_path / "a", {WAIT: BASE_WAIT})
    b = deterministic_result(tmp_path / "b", {WAIT: [*BASE_WAIT[:-1], 138]})
    c = _build(a, b)
    diff = _diff(c)
    assert diff.outcome == "worse"
    assert diff.exact is not None and [ch.statistic for ch in diff.exact.changes] == ["avg", "max"]
    assert (
        "slower by exactly 40 ticks = 1.60 µs ≈ 50 instructions (+40.8%) in the max; "
        "median unchanged; avg +0.01 ticks (+0.013%)"
    ) in " ".join(text.render(c).split())
    assert command.regressed(c)


def test_more_samples_hit_by_the_tick_only_differ(tmp_path: Path) -> None:
    """The same paths (min, median, max), but the tick interrupt landed in 10 more
    samples (its phase moved with the code around the timed section): reported
    exactly, and neither slower nor a regression."""
    a = deterministic_result(tmp_path / "a", {WAIT: BASE_WAIT})
    b = deterministic_result(tmp_path / "b", {WAIT: [60] * 4940 + [98] * 60})
    c = _build(a, b)
    diff = _diff(c)
    assert diff.outcome == "differs" and diff.exact is not None
    assert [ch.statistic for ch in diff.exact.changes] == ["avg", "p99"]
    rendered = " ".join(text.render(c).split())
    assert "differs: the same min, median and max; avg +0.08 ticks (+0.1%); p99 +38 ticks" in (
        rendered
    )
    assert "no difference: the same min, median and max (1 metric, compared exactly)" in rendered
    assert not command.regressed(c)


def test_faster_median_with_a_slower_maximum_is_mixed(tmp_path: Path) -> None:
    a = deterministic_result(tmp_path / "a", {WAIT: BASE_WAIT})
    b = deterministic_result(tmp_path / "b", {WAIT: [52] * 4950 + [200] * 50})
    c = _build(a, b)
    assert _diff(c).outcome == "mixed"
    assert "MIXED, exactly: median -8 ticks = -320 ns ≈ -10 instructions (-13.3%)" in " ".join(
        text.render(c).split()
    )
    assert command.regressed(c)


def test_instructions_are_exact_only_when_a_reading_step_is_an_instruction() -> None:
    change = exact.Change("median", 400.0, 920.0)  # 13 ticks of 40 ns: 16.25 instructions
    ticks = exact.Exact("worse", (change,), (1, 1), "samples", "ns", TICK_NS, 32.0)
    assert (
        exact.amount(ticks, change, full=True) == "+13 ticks = +520 ns ≈ +16 instructions (+130.0%)"
    )
    # a guest's figure in ns under -icount shift=3: 8 ns an instruction, 1 ns readings
    ns = exact.Exact("worse", (exact.Change("median", 800.0, 1600.0),), (1, 1), "samples", "ns",
                     None, 8.0)  # fmt: skip
    assert exact.amount(ns, ns.changes[0], full=True) == "+800 ns = +100 instructions (+100.0%)"
    assert exact.amount(ns, ns.changes[0], full=True, signed=False) == (
        "800 ns = 100 instructions (+100.0%)"
    )


def _traced(tmp_path: Path, name: str, calls: dict[str, int], insns: dict[str, int], value: int,
            values: list[int]) -> Path:  # fmt: skip
    return deterministic_result(
        tmp_path / name,
        {WAIT: values},
        paths={"sem.wait.available": path_object(calls, insns, value)},
    )


def test_the_path_difference_names_the_functions_and_the_calls(tmp_path: Path) -> None:
    a = _traced(tmp_path, "a", TYPICAL_CALLS, TYPICAL_INSNS, 60, BASE_WAIT)
    # the other kernel: 100 more instructions in the take, and no critical sections
    calls = {**TYPICAL_CALLS, "vPortEnterCritical": 0, "vPortExitCritical": 0}
    insns = {**TYPICAL_INSNS, "xQueueSemaphoreTake": 130, "vPortEnterCritical": 0}
    insns["vPortExitCritical"] = 0
    b = _traced(tmp_path, "b", calls, insns, 59, [v - 1 for v in BASE_WAIT])
    c = _build(a, b)
    row = c.metrics[0]
    (typical,) = row.path_changes(1)  # the worst sample's difference is the same: not repeated
    assert typical.sample == "typical" and typical.exact
    assert typical.instructions == (231, 155)
    names = [ch.name for ch in typical.changes]
    # ordered by the absolute change of instructions
    assert names == ["vPortEnterCritical", "xQueueSemaphoreTake", "vPortExitCritical"]
    take = typical.changes[1]
    assert take.delta == 100 and take.calls == (1, 1)
    enter = typical.changes[0]
    assert enter.calls == (7, 0) and enter.delta == -112
    rendered = " ".join(text.render(c).split())
    assert "B path difference, typical sample: 231 -> 155 instructions (-76; exact" in rendered
    assert "xQueueSemaphoreTake +100 instructions" in rendered
    assert "vPortEnterCritical -112 instructions, 7 -> 0 calls" in rendered
    md = tables.markdown(c)
    assert "Path difference of B, typical sample: 231 -> 155 instructions" in md
    assert "| vPortEnterCritical | 112 | 0 | -112 | 7 | 0 |" in md
    page = html.render(c)
    assert "Path difference of B, typical sample: 231 -&gt; 155 instructions" in page
    assert '<td class="t">xQueueSemaphoreTake</td><td>30</td><td>130</td><td>+100</td>' in page
    rows = list(csv.DictReader(io.StringIO(tables.csv_text(c))))
    assert "xQueueSemaphoreTake +100 instructions" in rows[1]["path_difference"]


def test_the_terminal_caps_the_path_difference(tmp_path: Path) -> None:
    insns_a = {f"f{i}": 10 for i in range(7)}
    calls_a = {f"f{i}": 1 for i in range(7)}
    insns_b = {f"f{i}": 10 + 10 * (i + 1) for i in range(7)}  # f6 gained the most
    a = _traced(tmp_path, "a", calls_a, insns_a, 60, BASE_WAIT)
    b = _traced(tmp_path, "b", calls_a, insns_b, 60, [v + 224 for v in BASE_WAIT])
    c = _build(a, b)
    (typical,) = c.metrics[0].path_changes(1)
    assert [ch.name for ch in typical.changes][:2] == ["f6", "f5"]
    rendered = " ".join(text.render(c).split())
    assert "f6 +70 instructions; f5 +60 instructions" in rendered
    assert f"(+{7 - pathdiff.TERMINAL_CHANGES} more)" in rendered
    assert "f0 +10 instructions" not in rendered
    # the page and the Markdown list every function
    assert "| f0 | 10 | 20 | +10 | 1 | 1 |" in tables.markdown(c)


def test_an_unchanged_path_is_not_listed_for_identical_figures(tmp_path: Path) -> None:
    a = _traced(tmp_path, "a", TYPICAL_CALLS, TYPICAL_INSNS, 60, BASE_WAIT)
    b = _traced(tmp_path, "b", TYPICAL_CALLS, TYPICAL_INSNS, 60, BASE_WAIT)
    c = _build(a, b)
    assert c.metrics[0].path_changes(1) == ()
    assert "path difference" not in text.render(c)


def test_mismatched_shift_is_another_clock_and_not_tested(tmp_path: Path) -> None:
    """Two shifts are two clocks (32 ns and 8 ns an instruction): the figures are
    shown side by side, neither tested nor rated, and one line says why."""
    a = deterministic_result(tmp_path / "a", {WAIT: BASE_WAIT})
    other = {**TARGET_INFO, "icount_shift": 3, "deterministic": {"icount_shift": 3}}
    b = deterministic_result(tmp_path / "b", {WAIT: [v + 80 for v in BASE_WAIT]},
                             target_info=other)  # fmt: skip
    c = _build(a, b)
    assert not c.exact_with(1) and not c.timed_with_base(1)
    assert c.metrics[0].differences[1] is None
    assert any("shift=3" in n and "shift=5" in n and "side by side" in n for n in c.notes)
    rendered = text.render(c)
    figures = rendered.split("\nRules")[0]
    assert "WORSE" not in figures and "better" not in figures
    assert "not compared" in rendered


def test_one_deterministic_side_is_another_clock_and_not_tested(tmp_path: Path) -> None:
    a = deterministic_result(tmp_path / "a", {WAIT: BASE_WAIT})
    b = write_result(tmp_path / "b", {WAIT: lognormal(1, 5000, 2400)})
    c = _build(a, b)
    assert not c.exact_with(1) and not c.timed_with_base(1)
    assert c.metrics[0].differences[1] is None
    assert not any("ran deterministic" in w for w in c.warnings)


def test_another_emulator_version_falls_back_to_statistics(tmp_path: Path) -> None:
    a = deterministic_result(tmp_path / "a", {WAIT: BASE_WAIT})
    b = deterministic_result(tmp_path / "b", {WAIT: BASE_WAIT},
                             target_info={**TARGET_INFO, "emulator_version": "8.2.2"})  # fmt: skip
    c = _build(a, b)
    assert not c.exact_with(1)
    assert any("different emulated machines (emulator version: A 7.2.22, B 8.2.2)" in w
               for w in c.warnings)  # fmt: skip
    assert _diff(c).outcome == "same"


def test_a_guest_under_icount_is_tested_by_statistics(tmp_path: Path) -> None:
    guest = {k: v for k, v in TARGET_INFO.items() if k != "board"} | {"guest": "debian-amd64"}
    a = deterministic_result(tmp_path / "a", {WAIT: BASE_WAIT}, target_info=guest)
    b = deterministic_result(tmp_path / "b", {WAIT: BASE_WAIT}, target_info=guest)
    c = _build(a, b)
    assert not c.exact_with(1)
    assert any("guest operating systems, whose figures do not repeat" in n for n in c.notes)
    assert not any("guest" in w for w in c.warnings)
    assert _diff(c).exact is None


def test_runs_of_one_system_that_differ_are_tested_by_statistics(tmp_path: Path) -> None:
    a1 = deterministic_result(tmp_path / "a1", {WAIT: BASE_WAIT})
    a2 = deterministic_result(tmp_path / "a2", {WAIT: [*BASE_WAIT[:-1], 99]})
    b1 = deterministic_result(tmp_path / "b1", {WAIT: BASE_WAIT})
    b2 = deterministic_result(tmp_path / "b2", {WAIT: BASE_WAIT})
    c = model.build(model.load_groups([[a1, a2], [b1, b2]]))
    assert c.exact_with(1)
    diff = _diff(c)
    assert diff.exact is None and "the 2 deterministic runs of A differ" in diff.note
    # runs that agree are compared exactly
    c = model.build(model.load_groups([[a1, b1], [b2]]))
    assert _diff(c).outcome == "identical"


def test_cli_fail_on_regression_on_deterministic_runs(run_cli: RunCli, tmp_path: Path) -> None:
    a = deterministic_result(tmp_path / "a", {WAIT: BASE_WAIT, SIGNAL: BASE_SIGNAL})
    same = deterministic_result(tmp_path / "same", {WAIT: BASE_WAIT, SIGNAL: BASE_SIGNAL})
    slower = deterministic_result(
        tmp_path / "slower", {WAIT: BASE_WAIT, SIGNAL: [v + 1 for v in BASE_SIGNAL]}
    )
    faster = deterministic_result(
        tmp_path / "faster", {WAIT: [v - 1 for v in BASE_WAIT], SIGNAL: BASE_SIGNAL}
    )
    done = run_cli("compare", str(a), str(same), "--fail-on-regression")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 identical" in done.stdout
    done = run_cli("compare", str(a), str(faster), "--fail-on-regression")
    assert done.returncode == 0, done.stdout + done.stderr
    # one tick (1.25 instructions) slower on one metric is a regression
    done = run_cli("compare", str(a), str(slower), "--fail-on-regression", "--out",
                   str(tmp_path / "cmp"))  # fmt: skip
    assert done.returncode == command.REGRESSION_STATUS, done.stdout + done.stderr
    assert "slower by exactly 1 tick = 40.0 ns ≈ 1 instruction (+1.4%) in the median" in " ".join(
        done.stdout.split()
    )
    assert "SLOWER" in (tmp_path / "cmp" / "comparison.html").read_text()
    # without the option a regression is a result, not an error
    assert run_cli("compare", str(a), str(slower)).returncode == 0


def test_an_exact_small_difference_names_the_better_system(tmp_path: Path) -> None:
    """Deterministic figures carry no noise: a take 4 % slower on every sample is a
    real, exact difference, and the rating names the faster system instead of
    calling the two a tie inside the 10 % noise band of measured runs."""
    slower = [round(v * 1.04) for v in BASE_WAIT]
    a = deterministic_result(tmp_path / "a", {WAIT: BASE_WAIT, SIGNAL: BASE_SIGNAL})
    b = deterministic_result(tmp_path / "b", {WAIT: slower, SIGNAL: BASE_SIGNAL})
    sync = next(r for r in _build(a, b).ratings if r.family == "synchronisation")
    assert sync.best == ("A",), sync.sentence
    assert "an exact difference" in sync.sentence
    # Negative control: the same figures with noise (not deterministic) tie.
    noisy_a = write_result(tmp_path / "na", {WAIT: BASE_WAIT, SIGNAL: BASE_SIGNAL})
    noisy_b = write_result(tmp_path / "nb", {WAIT: slower, SIGNAL: BASE_SIGNAL})
    noisy = next(r for r in _build(noisy_a, noisy_b).ratings if r.family == "synchronisation")
    assert noisy.best == ()
