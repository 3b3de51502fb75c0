# SPDX-License-Identifier: Apache-2.0
"""rtbench import: real cyclictest and oslat --json files become results that
show and compare accept, holding what the tool reported and nothing invented."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, RunCli
from rtbench.compare import model
from rtbench.importers import convert
from rtbench.importers.rttests import ImportFormatError
from rtbench.model import records, results
from rtbench.model.summary import consistency_problems
from test_cli_errors import assert_one_line_error


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return data


def _result(doc: results.ResultsDocument, index: int = 0) -> dict[str, Any]:
    found = [r for r in doc.scenarios[0].records if r["type"] == "result"]
    return found[index]


def test_cyclictest_keeps_every_sample_and_the_tool_figures() -> None:
    data = _load("cyclictest-2000.json")
    doc = convert(data, "cyclictest-2000.json", "ct")
    records.validate(doc.to_json(), "results")
    thread = data["thread"]["0"]
    record = _result(doc)
    stats = record["stats"]
    assert record["scenario"] == "timer.periodic.latency" and record["unit"] == "us"
    assert record["params"] == {"interval_ns": 1_000_000}
    assert stats["count"] == thread["cycles"] == 2000
    assert (stats["min"], stats["max"], stats["mean"]) == (
        thread["min"],
        thread["max"],
        thread["avg"],
    )
    buckets = record["histogram"]["buckets"]
    assert sum(b[2] for b in buckets) == 2000
    assert {str(b[0]): b[2] for b in buckets} == thread["histogram"]
    assert stats["sum"] == sum(int(k) * n for k, n in thread["histogram"].items())
    assert stats["max_index"] is None
    assert consistency_problems(record) == []
    run = doc.run
    assert run.profile == "imported" and run.target == "imported:cyclictest"
    assert run.source is not None and run.source["tool"] == "cyclictest"
    assert run.source["version"] == "2.40"
    assert "histogram (one line per value)" in run.source["fields"]
    assert run.realtime  # -p 80
    assert doc.caveats[0]["code"] == "imported"


def test_cyclictest_overflows_are_one_bucket_up_to_the_maximum() -> None:
    data = _load("cyclictest-overflow.json")
    record = _result(convert(data, "f", "ct"))
    thread = data["thread"]["0"]
    counted = sum(thread["histogram"].values())
    overflow = thread["cycles"] - counted
    assert overflow > 0
    assert record["histogram"]["buckets"][-1] == [400, thread["max"], overflow]
    stats = record["stats"]
    assert stats["sum"] is None and stats["stddev"] is None  # unknown beyond the histogram
    assert stats["p50"] is not None
    # Rank 1998 of 2000 is the last sample inside the histogram: p99.9 is known.
    assert stats["p99_9"] == max(int(k) for k in thread["histogram"])
    assert consistency_problems(record) == []


def test_cyclictest_without_histogram_keeps_min_avg_max_only() -> None:
    doc = convert(_load("cyclictest-no-histogram.json"), "f", "ct")
    records.validate(doc.to_json(), "results")
    record = _result(doc)
    assert record["histogram"]["buckets"] == []
    assert record["stats"]["p50"] is None
    assert doc.run.source is not None and "histogram" not in " ".join(doc.run.source["fields"])


def test_cyclictest_threads_and_nanoseconds() -> None:
    doc = convert(_load("cyclictest-2threads-ns.json"), "f", "ct")
    records.validate(doc.to_json(), "results")
    first, second = _result(doc, 0), _result(doc, 1)
    assert first["unit"] == "ns"
    assert first["params"] == {"interval_ns": 1_000_000, "thread": 0}
    assert second["params"] == {"interval_ns": 1_500_000, "thread": 1}
    assert first["histogram"]["buckets"] == [[100, first["stats"]["max"], 500]]
    # Every sample is beyond the histogram: no percentile can be told.
    assert first["stats"]["p50"] is None and first["stats"]["p99"] is None


def test_oslat_last_line_holds_the_overflows() -> None:
    data = _load("oslat-2s.json")
    doc = convert(data, "oslat-2s.json", "os")
    records.validate(doc.to_json(), "results")
    record = _result(doc)
    thread = data["thread"]["0"]
    assert record["scenario"] == "os.noise" and record["unit"] == "us"
    assert record["stats"]["count"] == sum(thread["histogram"].values())
    last = max(thread["histogram"], key=int)
    assert record["histogram"]["buckets"][-1] == [
        int(last),
        thread["max"],
        thread["histogram"][last],
    ]
    assert consistency_problems(record) == []
    assert doc.run.source is not None and doc.run.source["tool"] == "oslat"


def test_not_rt_tests_output_is_refused() -> None:
    with pytest.raises(ImportFormatError):
        convert({"hello": 1}, "f", "x")
    with pytest.raises(ImportFormatError):
        convert({"thread": {"0": {"cycles": -1}}, "cmdline:": "cyclictest"}, "f", "x")


def test_cli_import_then_show_and_compare(run_cli: RunCli, tmp_path: Path) -> None:
    for name, out in (("cyclictest-2000.json", "a"), ("cyclictest-overflow.json", "b")):
        done = run_cli("import", str(FIXTURES / name), "--out", str(tmp_path / out))
        assert done.returncode == 0, done.stderr
    shown = run_cli("show", str(tmp_path / "a"))
    assert shown.returncode == 0, shown.stderr
    assert "Imported from cyclictest 2.40" in shown.stdout
    assert "timer.periodic.latency latency" in shown.stdout
    for fmt in ("markdown", "csv", "json"):
        assert run_cli("show", str(tmp_path / "a"), "--format", fmt).returncode == 0
    compared = run_cli("compare", str(tmp_path / "a"), str(tmp_path / "b"))
    assert compared.returncode == 0, compared.stderr
    assert "(histogram)" in compared.stdout
    assert "imported from cyclictest" in compared.stdout
    again = run_cli("import", str(FIXTURES / "oslat-2s.json"), "--out", str(tmp_path / "a"))
    assert_one_line_error(again)  # never overwrites a result


def test_compare_without_histogram_says_it_cannot_test(tmp_path: Path) -> None:
    doc = convert(_load("cyclictest-no-histogram.json"), "f", "a")
    other = convert(_load("cyclictest-2000.json"), "f", "b")
    for folder, d in (("a", doc), ("b", other)):
        (tmp_path / folder).mkdir()
        results.write_document(tmp_path / folder, d)
    c = model.build(model.load_systems([tmp_path / "a", tmp_path / "b"]))
    diff = c.metrics[0].differences[1]
    assert diff is not None and diff.outcome == "untested"
    assert "histogram" in diff.reason


@pytest.mark.parametrize("content", ["not json", '{"a": 1}', "[1, 2]"])
def test_cli_import_bad_files(run_cli: RunCli, tmp_path: Path, content: str) -> None:
    path = tmp_path / "in.json"
    path.write_text(content)
    assert_one_line_error(run_cli("import", str(path), "--out", str(tmp_path / "out")))
    assert not (tmp_path / "out" / "results.json").exists()


def test_cli_import_missing_file(run_cli: RunCli, tmp_path: Path) -> None:
    assert_one_line_error(run_cli("import", str(tmp_path / "nope.json")))
