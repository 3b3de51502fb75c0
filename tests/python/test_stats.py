# SPDX-License-Identifier: Apache-2.0
"""Statistics of recorded core output: conversions, histograms, percentiles."""

import copy
from typing import Any

import pytest

from conftest import read_jsonl
from rtbench.model import summary as stats

FIXTURE_FILES = ("cal-timestamp.jsonl", "sem-wait-available.jsonl", "sem-wait-block.jsonl")


def results_with_meta() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    out: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for name in FIXTURE_FILES:
        records = read_jsonl(name)
        meta = records[0]
        out.extend((meta, r) for r in records if r["type"] == "result")
    return out


def test_fixtures_hold_results() -> None:
    assert len(results_with_meta()) == 5


@pytest.mark.parametrize(("meta", "record"), results_with_meta())
def test_histogram_counts_add_up_to_the_sample_count(
    meta: dict[str, Any], record: dict[str, Any]
) -> None:
    assert stats.histogram_total(record["histogram"]["buckets"]) == record["stats"]["count"]


@pytest.mark.parametrize(("meta", "record"), results_with_meta())
def test_core_percentiles_follow_the_documented_rule(
    meta: dict[str, Any], record: dict[str, Any]
) -> None:
    s = record["stats"]
    buckets = record["histogram"]["buckets"]
    for key, q in stats.PERCENTILES:
        if s[key] is not None:
            assert (
                stats.percentile_from_histogram(buckets, s["count"], q, s["min"], s["max"])
                == s[key]
            ), key
    assert stats.consistency_problems(record) == []


@pytest.mark.parametrize(("meta", "record"), results_with_meta())
def test_summary_converts_ticks_to_ns(meta: dict[str, Any], record: dict[str, Any]) -> None:
    hz = meta["counter"]["hz"]
    summary = stats.summarize(record, hz)
    assert summary.unit == "ns"
    assert summary.count == record["stats"]["count"]
    assert summary.min == pytest.approx(record["stats"]["min"] * 1e9 / hz)
    assert summary.max == pytest.approx(record["stats"]["max"] * 1e9 / hz)
    assert summary.stddev == pytest.approx(record["stats"]["stddev"] * 1e9 / hz)
    assert summary.min is not None and summary.p50 is not None
    assert summary.p99 is not None and summary.max is not None
    assert summary.min <= summary.p50 <= summary.p99 <= summary.max
    assert stats.histogram_total(summary.histogram) == summary.count


def test_raw_samples_lie_within_the_reported_range() -> None:
    records = read_jsonl("sem-wait-block.jsonl")
    results = {(r["scenario"], r["metric"]): r for r in records if r["type"] == "result"}
    chunks = [r for r in records if r["type"] == "samples"]
    assert chunks
    for chunk in chunks:
        result = results[(chunk["scenario"], chunk["metric"])]
        summary = stats.summarize_series(chunk["values"])
        assert summary is not None
        assert summary.count == result["raw"]["count"]
        assert result["stats"]["min"] <= summary.min <= summary.max <= result["stats"]["max"]


def test_broken_histogram_is_reported() -> None:
    record = copy.deepcopy(results_with_meta()[0][1])
    record["histogram"]["buckets"][0][2] += 1
    problems = stats.consistency_problems(record)
    assert any("histogram holds" in p for p in problems)


def test_percentiles_out_of_order_are_reported() -> None:
    record = copy.deepcopy(results_with_meta()[0][1])
    record["stats"]["p50"] = record["stats"]["max"] + 1
    problems = stats.consistency_problems(record)
    assert any("p50" in p for p in problems)


def test_percentile_rule_on_a_small_histogram() -> None:
    buckets = [[10, 10, 1], [20, 20, 2], [30, 31, 7]]
    assert stats.percentile_from_histogram(buckets, 10, 0.10, 10, 31) == 10
    assert stats.percentile_from_histogram(buckets, 10, 0.30, 10, 31) == 20
    assert stats.percentile_from_histogram(buckets, 10, 0.31, 10, 31) == 30
    assert stats.percentile_from_histogram(buckets, 10, 0.99, 10, 30) == 30


def test_series_summary() -> None:
    s = stats.summarize_series([1.0, 2.0, 3.0, 4.0])
    assert s is not None
    assert (s.count, s.min, s.max, s.mean) == (4, 1.0, 4.0, 2.5)
    assert s.stddev == pytest.approx(1.2909944)
    assert stats.summarize_series([]) is None


def test_step_merged_histogram_bounds_the_percentiles() -> None:
    # A counter moving in steps of 26 ticks: the core merged its buckets to 26
    # ticks; its p50 (52, a real value) lies in the merged bucket, p99 (78) too.
    record = copy.deepcopy(results_with_meta()[0][1])
    record["histogram"] = {
        "scheme": "log-linear",
        "sub_bucket_bits": 8,
        "min_width": 26,
        "buckets": [[52, 77, 600], [78, 103, 400]],
    }
    record["stats"].update(count=1000, min=52, max=78, p50=52, p90=78, p99=78, p99_9=78)
    record["stats"]["p99_99"] = None
    record["raw"]["count"] = 0
    record["stats"]["mean"] = 62.4
    assert stats.consistency_problems(record) == []
    record["stats"]["p50"] = 78  # not in the bucket that holds rank 500
    assert any("p50 is 78" in p for p in stats.consistency_problems(record))
