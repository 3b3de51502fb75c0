# SPDX-License-Identifier: Apache-2.0
"""Unit conversion and number formatting."""

import re
from pathlib import Path

import pytest

from rtbench.model import units


def test_ticks_to_ns_uses_the_counter_frequency() -> None:
    assert units.ticks_to_ns(44, 2_500_000_000) == pytest.approx(17.6)
    assert units.ticks_to_ns(24, 24_000_000) == pytest.approx(1000.0)


def test_ticks_need_a_positive_frequency() -> None:
    with pytest.raises(ValueError, match="positive"):
        units.ticks_to_ns(1, 0)


@pytest.mark.parametrize(
    ("reference_ns", "unit"),
    [(17.6, "ns"), (999.0, "ns"), (1000.0, "µs"), (1495.0, "µs"), (2.5e6, "ms"), (3e9, "s")],
)
def test_time_unit_follows_the_reference_value(reference_ns: float, unit: str) -> None:
    assert units.time_unit_for(reference_ns)[0] == unit


@pytest.mark.parametrize(
    ("value", "text"),
    [(0, "0"), (1.5, "1.50"), (17.6, "17.6"), (99.94, "99.9"), (25474, "25,474"), (None, "-")],
)
def test_format_number(value: float | None, text: str) -> None:
    assert units.format_number(value) == text


def test_format_duration_picks_a_unit_per_value() -> None:
    assert units.format_duration(17.6) == "17.6 ns"
    assert units.format_duration(1500) == "1.50 µs"
    assert units.format_duration(36_320_000) == "36.3 ms"


def test_format_seconds() -> None:
    assert units.format_seconds(1.23) == "1.2 s"
    assert units.format_seconds(125) == "2m05s"
    assert units.format_seconds(7380) == "2h03m"


def test_to_base_converts_each_unit_family() -> None:
    assert units.to_base(2500, "ticks", 2.5e9) == pytest.approx(1000.0)
    assert units.to_base(3, "us", None) == pytest.approx(3000.0)
    assert units.to_base(1250, "ratio_milli", None) == pytest.approx(1.25)
    assert units.to_base(7, "count", None) == 7.0
    assert units.base_unit("ticks") == "ns"
    assert units.base_unit("ratio_milli") == "ratio"
    with pytest.raises(ValueError, match="frequency"):
        units.to_base(1, "ticks", None)


def test_throughput_is_shown_in_operations_per_second() -> None:
    assert units.base_unit("ops_per_s") == "ops/s"
    assert units.to_base(1_520_276, "ops_per_s", None) == 1_520_276.0
    assert units.row_scale("ops_per_s", 1_520_276.0) == ("ops/s", 1.0)
    assert units.format_in(1_520_276.0, "ops/s", 1.0) == "1,520,276"


def test_counts_keep_integers_in_rows() -> None:
    assert units.format_in(12345, "count", 1.0) == "12,345"
    assert units.format_in(1495.0, "ns", 1000.0) == "1.50"
    assert units.format_in(None, "ns", 1.0) == "-"


def test_median() -> None:
    assert units.median([3.0, 1.0, 2.0]) == 2.0
    assert units.median([4.0, 1.0, 2.0, 3.0]) == 2.5
    assert units.median([]) is None


def _core_units() -> set[str]:
    """Every unit the core's sources give a metric (`.unit = "..."`), a table
    column (`struct rtb_column NAME[] = {{"name", "unit"}, ...}`) or return from a
    `*_metric_unit()` function."""
    root = Path(__file__).resolve().parents[2] / "core"
    found: set[str] = set()
    for source in root.rglob("*.c"):
        text = source.read_text()
        found.update(re.findall(r'\.unit\s*=\s*"([^"]*)"', text))
        for table in re.finditer(r"struct rtb_column\s+\w+\[\]\s*=\s*\{(.*?)\};", text, re.S):
            found.update(u for _, u in re.findall(r'\{\s*"([^"]*)"\s*,\s*"([^"]*)"\s*\}', table[1]))
        unit_fn = re.search(r"_metric_unit\([^)]*\)\s*\{(.*?)\n\}", text, re.S)
        if unit_fn:  # a function that names a metric's unit (check_mem.c)
            found.update(re.findall(r'"([^"]*)"', unit_fn[1]))
    return found


def test_every_unit_the_core_emits_has_a_direction_or_is_declared_without_one() -> None:
    emitted = _core_units()
    assert {"ticks", "ns", "ops_per_s", "bytes", "count"} <= emitted  # the reading found them
    missing = emitted - set(units.DIRECTION)
    assert not missing, f"units with no entry in model.units.DIRECTION: {sorted(missing)}"
    # and what they convert to for reports, compare and history
    assert not {units.base_unit(u) for u in emitted} - set(units.DIRECTION)


def test_one_direction_for_compare_and_history() -> None:
    assert units.lower_is_better("ns") is True
    assert units.lower_is_better("bytes") is True
    assert units.lower_is_better("instructions") is True
    # rates, in the core's unit and in the unit reports convert them to
    assert units.lower_is_better("ops_per_s") is False
    assert units.lower_is_better(units.base_unit("ops_per_s")) is False
    assert units.lower_is_better("1/s") is False
    assert units.lower_is_better("count") is None
    assert units.lower_is_better("furlongs") is None
