# SPDX-License-Identifier: Apache-2.0
"""The JSON Schema: real core output validates, broken records are rejected."""

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, read_jsonl
from rtbench.errors import ResultsError
from rtbench.model import records, results
from rtbench.paths import SCHEMA_PATH

CORE_FIXTURES = (
    "core-list.jsonl",
    "cal-timestamp.jsonl",
    "sem-wait-available.jsonl",
    "sem-wait-block.jsonl",
    "synthetic-verdicts-tables.jsonl",
)


def test_schema_is_draft_2020_12_and_carries_versions() -> None:
    data = json.loads(SCHEMA_PATH.read_text())
    assert data["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert data["rtbench_protocol_version"] == records.PROTOCOL_VERSION
    assert data["rtbench_schema_version"] == records.RESULTS_SCHEMA_VERSION
    for kind in records.RECORD_TYPES:
        assert kind in data["$defs"]
    assert "results" in data["$defs"]


@pytest.mark.parametrize("name", CORE_FIXTURES)
def test_recorded_core_output_validates(name: str) -> None:
    lines = (FIXTURES / name).read_text().splitlines()
    assert lines
    for line in lines:
        records.parse_line(line)


def test_live_core_output_validates(core_binary: Path, measurement_cpu: int) -> None:
    out = subprocess.run(
        [str(core_binary), "run", "--profile", "quick", "--scenario", "sem.wait.block",
         "--cpu", str(measurement_cpu), "--raw-max", "10", "--set", "rounds=2"],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    kinds = [records.parse_line(line)["type"] for line in out.splitlines()]
    assert kinds[0] == "meta"
    assert "result" in kinds and "samples" in kinds
    assert kinds[-1] == "end"


def _one(kind: str) -> dict[str, Any]:
    for name in CORE_FIXTURES:
        for record in read_jsonl(name):
            if record["type"] == kind:
                return copy.deepcopy(record)
    raise AssertionError(kind)


@pytest.mark.parametrize(
    ("kind", "breakage"),
    [
        ("meta", lambda r: r.pop("counter")),
        ("meta", lambda r: r.__setitem__("realtime", "yes")),
        ("result", lambda r: r.pop("stats")),
        ("result", lambda r: r["stats"].__setitem__("count", -1)),
        ("result", lambda r: r["stats"].pop("p50")),
        ("result", lambda r: r["histogram"]["buckets"].append([1, 2])),
        ("result", lambda r: r["histogram"]["buckets"].append([1, 2, 0])),
        ("samples", lambda r: r["values"].append("x")),
        ("catalog", lambda r: r["ids"].clear()),
        ("verdict", lambda r: r.__setitem__("outcome", "passed")),
        ("verdict", lambda r: r["control"].__setitem__("outcome", "maybe")),
        ("table", lambda r: r.pop("columns")),
        ("end", lambda r: r.__setitem__("status", "fine")),
        ("end", lambda r: r.pop("scenario")),
        ("log", lambda r: r.__setitem__("level", "loud")),
    ],
)
def test_broken_records_are_rejected(kind: str, breakage: Any) -> None:
    record = _one(kind) if kind != "log" else {
        "v": 1, "type": "log", "level": "info", "message": "hello"
    }  # fmt: skip
    records.check_record(copy.deepcopy(record))  # intact: valid
    breakage(record)
    with pytest.raises(records.RecordError):
        records.check_record(record)


def test_other_protocol_versions_are_refused() -> None:
    record = _one("meta")
    record["v"] = 2
    with pytest.raises(records.ProtocolVersionError):
        records.check_record(record)


@pytest.mark.parametrize("line", ["", "{", "[1, 2]", '{"v": 1, "type": "nonsense"}', "null"])
def test_lines_that_are_not_records_are_rejected(line: str) -> None:
    with pytest.raises(records.RecordError):
        records.parse_line(line)


def test_stored_results_fixture_validates() -> None:
    doc = results.load(FIXTURES / "results-quick")
    assert doc.run.profile == "quick"
    records.validate(doc.to_json(), "results")
    data = json.loads((FIXTURES / "results-quick" / "results.json").read_text())
    assert doc.to_json() == data


def test_schema_invalid_results_are_refused(tmp_path: Path) -> None:
    data = json.loads((FIXTURES / "results-quick" / "results.json").read_text())
    data["scenarios"][0]["status"] = "great"
    (tmp_path / "results.json").write_text(json.dumps(data))
    with pytest.raises(ResultsError, match="does not match the results schema"):
        results.load(tmp_path)


def test_the_schema_names_each_key_once() -> None:
    """A JSON object with a key twice keeps only the last: a rule written in the
    first would silently not apply."""

    def unique(pairs: list[tuple[str, object]]) -> dict[str, object]:
        keys = [k for k, _ in pairs]
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        assert not repeated, f"keys given twice in one object: {repeated}"
        return dict(pairs)

    json.loads(SCHEMA_PATH.read_text(), object_pairs_hook=unique)


@pytest.mark.parametrize(
    "values",
    [[], [0, 1, 2**40], [1, -2], [1, True], [1.5], [3.0], ["7"], [None], [0] * 5000],
)
def test_raw_samples_are_judged_as_the_schema_judges_them(values: list[object]) -> None:
    """Chunks of raw samples skip the schema's per-number check for speed; what
    they accept and refuse must stay exactly what the schema accepts and refuses."""
    rec = {
        "v": 1, "type": "samples", "scenario": "x", "metric": "m", "params": {},
        "chunk": 0, "first_index": 0, "values": values,
    }  # fmt: skip
    by_schema = records.validator("samples").is_valid(rec)
    try:
        records.check_record(rec)
        fast = True
    except records.RecordError:
        fast = False
    assert fast == by_schema


def test_a_rewritten_document_is_checked_again_where_it_changed(tmp_path: Path) -> None:
    """results.json is validated scenario by scenario, each once: a scenario that
    changed after an earlier write, or a bad run header, is still refused."""
    doc = results.load(FIXTURES / "results-quick")
    results.write_document(tmp_path, doc)  # valid: every scenario remembered
    bad = copy.deepcopy(doc)
    object.__setattr__(bad.scenarios[1], "status", "great")
    with pytest.raises(records.RecordError, match=r"^scenarios\.1\.status"):
        results.write_document(tmp_path, bad)
    header = copy.deepcopy(doc)
    object.__setattr__(header.run, "profile", "forever")
    with pytest.raises(records.RecordError):
        results.write_document(tmp_path, header)
    assert results.load(tmp_path).to_json() == doc.to_json()  # what was written is intact
