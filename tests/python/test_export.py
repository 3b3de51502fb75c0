# SPDX-License-Identifier: Apache-2.0
"""rtbench show --format: pure functions of the stored result."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from conftest import FIXTURES, RunCli
from rtbench.model.results import load
from rtbench.report import formats, terminal
from test_cli_errors import assert_one_line_error

RESULT = FIXTURES / "results-quick"


def test_text_is_the_terminal_report() -> None:
    doc = load(RESULT)
    expected = terminal.render(doc, color=False, location="here")
    assert formats.render(doc, "text", location="here") == expected.encode()


@pytest.mark.parametrize("fmt", formats.FORMATS)
def test_every_format_is_deterministic(fmt: str) -> None:
    assert formats.render(load(RESULT), fmt) == formats.render(load(RESULT), fmt)


def test_markdown_has_one_row_per_metric() -> None:
    doc = load(RESULT)
    text = formats.render(doc, "markdown").decode()
    metrics = [m for o in doc.scenarios for m in o.metrics()]
    assert text.startswith(f"# rtbench {doc.rtbench_version} run {doc.run.id}")
    assert "| label | metric | samples | min | median | avg | p99 | max | unit |" in text
    for m in metrics:
        assert f"| {m.label} | {m.name} | {m.count:,} |" in text


def test_csv_values_are_in_nanoseconds() -> None:
    doc = load(RESULT)
    rows = list(csv.DictReader(io.StringIO(formats.render(doc, "csv").decode())))
    metrics = [m for o in doc.scenarios for m in o.metrics()]
    assert len(rows) == len(metrics)
    for row, m in zip(rows, metrics, strict=True):
        assert row["scenario"] == m.scenario and row["unit"] == "ns"
        assert float(row["p50"]) == pytest.approx(m.p50, rel=1e-5)
        assert int(row["samples"]) == m.count


def test_json_summary() -> None:
    doc = load(RESULT)
    data = json.loads(formats.render(doc, "json", with_reference=True))
    assert data["schema"] == formats.SUMMARY_SCHEMA and data["version"] == 1
    assert data["run"]["id"] == doc.run.id
    sem = next(m for m in data["metrics"] if m["scenario"] == "sem.wait.block")
    assert sem["label"] == "SEM-P-ARC" and sem["published"]
    assert all("2012" in p["system"] or "2011" in p["system"] for p in sem["published"])


def test_cli_show_formats(run_cli: RunCli) -> None:
    for fmt in formats.FORMATS:
        done = run_cli("show", str(RESULT), "--format", fmt)
        assert done.returncode == 0, done.stderr
        assert done.stdout.encode() == formats.render(load(RESULT), fmt, location=str(RESULT))


def test_cli_show_bad_format(run_cli: RunCli, tmp_path: Path) -> None:
    assert_one_line_error(run_cli("show", str(RESULT), "--format", "xml"))
    assert_one_line_error(run_cli("show", str(RESULT), "--format", "csv", "--reference"))
    assert_one_line_error(run_cli("show", str(tmp_path)))
