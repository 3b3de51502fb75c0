# SPDX-License-Identifier: Apache-2.0
"""End to end: `rtbench run --profile quick` on this host."""

import json
import re
from pathlib import Path
from typing import Any

from board_runs import assert_own_overheads
from conftest import QuickRun, RunCli
from rtbench.model import records
from rtbench.model import summary as stats


def _key(item: dict[str, Any]) -> tuple[str, str, str]:
    return (item["scenario"], item["metric"], json.dumps(item["params"], sort_keys=True))


def test_quick_run(quick_run: QuickRun, run_cli: RunCli) -> None:
    out, done = quick_run.out, quick_run.done
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    data = json.loads((out / "results.json").read_text())
    records.validate(data, "results")
    assert data["run"]["complete"] is True
    assert data["run"]["interrupted"] is False
    assert data["calibration"]["overhead_ticks"] >= 0
    ran = [s for s in data["scenarios"] if s["status"] != "not_implemented"]
    assert ran[0]["name"] == "cal.timestamp"
    assert {s["status"] for s in ran} <= {"ok", "unsupported"}
    hz = data["calibration"]["counter"]["hz"]
    metrics = 0
    for scenario in ran[1:]:
        assert scenario["meta"]["overhead_source"] == "given"
        assert scenario["meta"]["overhead_inline_source"] == "given"
        assert scenario["meta"]["counter"]["hz"] == hz
    # timed calls and inline reads each subtract their own calibrated overhead
    assert_own_overheads(data)
    for scenario in ran:
        for r in scenario["records"]:
            if r["type"] != "result":
                continue
            metrics += 1
            s = r["stats"]
            assert stats.histogram_total(r["histogram"]["buckets"]) == s["count"]
            if s["count"]:
                ordered = [s["min"], s["p50"], s["p99"], s["max"]]
                present = [v for v in ordered if v is not None]
                assert present == sorted(present)
            assert stats.consistency_problems(r) == []
        counts = {
            _key(r): r["stats"]["count"] for r in scenario["records"] if r["type"] == "result"
        }
        for sf in scenario["samples"]:
            lines = (out / sf["path"]).read_text().splitlines()
            total = counts[_key(sf)]
            if total > sf["count"]:  # a bounded series says so where the data is
                assert lines[0].startswith(f"# the first {sf['count']} of {total} samples")
                lines = lines[1:]
            assert lines[0] in ("index,value_ns", f"index,value_{sf['unit']}")
            assert len(lines) - 1 == sf["count"]
            assert [int(line.split(",")[0]) for line in lines[1:4]] == [0, 1, 2][: len(lines) - 1]
            # the whole distribution, as CSV
            hist = (out / "histograms" / Path(sf["path"]).name).read_text().splitlines()
            assert hist[1].endswith(",count")
            assert sum(int(row.rsplit(",", 1)[1]) for row in hist[2:]) == total
    assert metrics >= 5

    html = (out / "report.html").read_text()
    assert "<svg" in html and "</html>" in html
    assert "<script" not in html
    external = re.findall(r"(?:src|href)=['\"](?!#)([^'\"]+)", html)
    assert external == []
    assert "sem.signal.unblock" in html
    # The raw samples stay in the CSV files; the page stays small.
    assert (out / "report.html").stat().st_size < 500_000

    # The summary fits a screen: verdicts in one block, one line per latency family,
    # and a last line that says whether the run was real-time, on an isolated CPU.
    printed = done.stdout.splitlines()
    assert len(printed) <= 40
    assert f"every metric, verdict and table: rtbench show {out} --details" in done.stdout
    assert "Worst case of each latency family" in done.stdout
    final = " ".join(done.stdout[done.stdout.rindex("scenarios run") :].split())
    assert ("real-time, CPU" in final) == data["run"]["realtime"]
    assert "worst case thread switch" in final

    shown = run_cli("show", str(out))
    assert shown.returncode == 0
    assert "Worst case of each latency family" in shown.stdout
    assert str(out) in done.stdout
    details = run_cli("show", str(out), "--details")
    assert details.returncode == 0
    assert len(details.stdout.splitlines()) > len(shown.stdout.splitlines()) + metrics
    assert "cal.timestamp timestamp" in details.stdout
    # On POSIX, the interrupt metrics say what they measure next to the classic label.
    heading = re.search(r'<h3 id="s-irq\.latency">[^<]*\bIRQ-P-LAT\b', html)
    assert heading is not None
    section = html[heading.start() : html.index("<h3", heading.end())]
    assert "Interrupt latency (POSIX timer signal): " in section
    for title in (
        "Interrupt latency (POSIX timer signal)",
        "Interrupt return (POSIX timer signal)",
        "Interrupt to thread (POSIX timer signal)",
    ):
        assert title in html
        assert title in details.stdout


def test_default_out_is_a_new_timestamped_folder(run_cli: RunCli, tmp_path: Path) -> None:
    done = run_cli("run", "--only", "cal.timestamp", "--raw-max", "10")
    assert done.returncode == 0, done.stderr
    folders = list((tmp_path / "results").iterdir())
    assert len(folders) == 1
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-quick", folders[0].name)
    data = json.loads((folders[0] / "results.json").read_text())
    assert [s["name"] for s in data["scenarios"]] == ["cal.timestamp"]
