# SPDX-License-Identifier: Apache-2.0
"""`run --length`: a profile scaled to a wall time through the core's --length-ppm."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import RunCli
from rtbench.errors import UsageError
from rtbench.model.catalog import CoreScenario
from rtbench.model.options import OptionSpec
from rtbench.run import measure


def _unit(name: str, estimate_ms: int, *lengths: str) -> CoreScenario:
    return CoreScenario(
        name=name,
        ids=(),
        summary="",
        estimate_ms={"quick": estimate_ms, "standard": estimate_ms * 10, "endurance": 0},
        deadline_ms={"quick": 10_000, "standard": 60_000, "endurance": 600_000},
        needs=(),
        supported=True,
        options=tuple(OptionSpec(k, "count", "", 1, 10**10, length=True) for k in lengths),
    )


def test_the_scale_is_the_time_asked_over_the_estimate() -> None:
    units = [_unit("a", 3000, "iterations"), _unit("b", 1000)]
    assert measure.length_ppm(2000, units, "quick") == 500_000
    assert measure.length_ppm(40_000, units, "standard") == 1_000_000
    assert measure.length_ppm(8_000, units, "quick") == 2_000_000
    with pytest.raises(UsageError, match="no time estimate in 'endurance'"):
        measure.length_ppm(1000, units, "endurance")
    with pytest.raises(UsageError, match="out of reach"):
        measure.length_ppm(8_000_000, units, "quick")  # above a thousand times


def test_the_core_gets_the_scale_and_deadlines_only_grow() -> None:
    unit = _unit("a", 3000, "iterations")
    same = measure.MeasureOptions()
    assert "--length-ppm" not in same.core_args(unit, "quick", 0)
    short = measure.MeasureOptions(length_ms=1500, length_ppm=500_000, length_estimate_ms=3000)
    assert short.core_args(unit, "quick", 0)[-2:] == ["--length-ppm", "500000"]
    assert short.deadline_ms(unit, "quick") == 10_000  # never below the quick profile's
    assert short.deadline_ms(unit, "endurance") == 300_000
    assert measure.MeasureOptions(length_ppm=1000).deadline_ms(unit, "endurance") == 10_000
    assert short.estimate_s(unit, "quick") == pytest.approx(1.5)
    assert short.to_json()["length"] == {
        "requested_ms": 1500,
        "ppm": 500_000,
        "catalog_estimate_ms": 3000,
    }
    long = measure.MeasureOptions(length_ms=30_000, length_ppm=10_000_000)
    assert long.deadline_ms(unit, "quick") == 100_000


def _count(doc: dict[str, Any], scenario: str) -> int:
    unit = next(s for s in doc["scenarios"] if s["name"] == scenario)
    results = [r for r in unit["records"] if r.get("type") == "result"]
    return int(results[0]["stats"]["count"])


def test_a_scaled_run_takes_the_scaled_number_of_samples(run_cli: RunCli, tmp_path: Path) -> None:
    """The quick catalog estimate of sem.create is scaled to a tenth of it: the
    scaled run's samples are a tenth of the unscaled run's (within rounding)."""
    plain = run_cli("run", "--only", "sem.create", "--out", "plain")
    assert plain.returncode == 0, plain.stderr
    full = _count(json.loads((tmp_path / "plain" / "results.json").read_text()), "sem.create")
    scaled = run_cli("run", "--only", "sem.create", "--length", "1ms", "--out", "scaled")
    assert scaled.returncode == 2 and "--length '1ms' must be between" in scaled.stderr
    scaled = run_cli("run", "--only", "sem.create", "--length", "20ms", "--out", "scaled")
    assert scaled.returncode == 0, scaled.stderr
    doc = json.loads((tmp_path / "scaled" / "results.json").read_text())
    length = doc["run"]["options"]["length"]
    ppm = length["ppm"]
    assert length["requested_ms"] == 20 and ppm == round(20e6 / length["catalog_estimate_ms"])
    assert ppm < 1_000_000
    want = max(1, full * ppm // 1_000_000)
    assert abs(_count(doc, "sem.create") - want) <= 1
    assert "quick scaled to about" in scaled.stdout


def test_bad_lengths_are_one_sentence(run_cli: RunCli, tmp_path: Path) -> None:
    for value, says in (
        ("soon", "--length 'soon' is not a duration"),
        ("9000h", "must be between 20 ms and 10 days"),
        ("9d", "is not a duration"),
    ):
        done = run_cli("run", "--only", "sem.create", "--length", value, "--out", "never")
        assert done.returncode == 2 and says in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    done = run_cli("run", "--only", "sem.create", "--length", "240h", "--out", "never")
    assert done.returncode == 2 and "out of reach" in done.stderr, done.stderr
    assert not (tmp_path / "never").exists()
