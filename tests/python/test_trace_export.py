# SPDX-License-Identifier: Apache-2.0
"""`rtbench trace export`: the Perfetto file is well-formed Chrome trace-event JSON with
the expected events; babeltrace2 reads the CTF export and lists its kernel and rtbench
events; an untraced run is refused with one sentence."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import cli

# reads or changes this machine's real-time settings (conftest.py)
pytestmark = [
    pytest.mark.host_settings,
    pytest.mark.skipif(
        os.geteuid() != 0 or not Path("/sys/kernel/tracing").is_dir(),
        reason="needs root and tracefs",
    ),
]


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("traced")
    out = folder / "run"
    done = cli(
        "run", "--trace", "--only", "timer.periodic.latency", "--set", "duration_ms=600",
        "--out", str(out), cwd=folder, env={"RTBENCH_LOCK_DIR": str(folder)}, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Kernel trace of the worst samples" in done.stdout
    assert "timer.periodic.latency latency" in done.stdout
    return out


def test_perfetto_export(traced: Path, tmp_path: Path) -> None:
    dest = tmp_path / "p.json"
    done = cli("trace", "export", str(traced), "--format", "perfetto", "--out", str(dest),
               cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(dest.read_text())
    events = data["traceEvents"]
    assert isinstance(events, list) and events
    for e in events:
        assert e["ph"] in ("X", "i", "M")
        assert isinstance(e["pid"], int) and e["name"]
        if e["ph"] == "X":
            assert isinstance(e["ts"], int | float) and e["dur"] >= 0
    names = {e["name"] for e in events}
    cats = {e.get("cat") for e in events}
    assert {"irq", "rtbench_scenario", "rtbench_sample", "wakeup"} <= cats
    assert "local timer interrupt" in names
    assert "timer.periodic.latency" in names
    assert "timer.periodic.latency latency max" in names
    sample = next(e for e in events if e["name"] == "timer.periodic.latency latency max")
    assert sample["args"]["explanation"].startswith("max ")
    procs = {e["args"]["name"] for e in events if e["name"] == "process_name"}
    assert "rtbench" in procs and any(p.endswith("(measurement)") for p in procs)


@pytest.mark.skipif(shutil.which("babeltrace2") is None, reason="needs babeltrace2")
def test_ctf_export_reads_back(traced: Path, tmp_path: Path) -> None:
    dest = tmp_path / "ctf"
    done = cli("trace", "export", str(traced), "--format", "ctf", "--out", str(dest),
               cwd=tmp_path, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (dest / "metadata").is_file()
    listing = subprocess.run(
        ["babeltrace2", str(dest)], capture_output=True, text=True, timeout=600, check=True
    ).stdout
    for name in ("sched_switch:", "x86_irq_vectors_local_timer_entry:", "rtbench:scenario_begin:",
                 "rtbench:sample_begin:", "rtbench:sample_end:"):  # fmt: skip
        assert name in listing, name
    assert 'scenario = "timer.periodic.latency"' in listing
    assert "next_tid = " in listing and "cpu_id = " in listing


def test_untraced_run_is_refused(traced: Path, tmp_path: Path) -> None:
    copy = tmp_path / "untraced"
    copy.mkdir()
    data = json.loads((traced / "results.json").read_text())
    del data["run"]["conditions"]["trace"]
    (copy / "results.json").write_text(json.dumps(data))
    done = cli("trace", "export", str(copy), "--format", "perfetto", cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "without --trace" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    missing = cli("trace", "export", str(tmp_path / "nothing"), "--format", "ctf", cwd=tmp_path)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr


def test_report_and_show_of_a_traced_run(traced: Path, tmp_path: Path) -> None:
    html = (traced / "report.html").read_text()
    assert "<title>Kernel trace of the worst sample: max " in html
    assert "samples on the trace clock" in html and "Kernel trace of the kept samples" in html
    details = cli("show", str(traced), "--details", cwd=tmp_path)
    assert details.returncode == 0, details.stderr
    assert "Kernel trace of the kept samples (clock " in details.stdout
    assert "    max " in details.stdout and "    worst #2 " in details.stdout
