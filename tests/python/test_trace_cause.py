# SPDX-License-Identifier: Apache-2.0
"""The trace's explanation against a known cause.

A helper process named `rtb-disturb` burns 2 ms of CPU every 50 ms at SCHED_FIFO 99
(above the core's highest priority) on the measurement CPU while
timer.periodic.latency runs with --trace. The explanation of the worst samples must
name it, with a time within 20 % of its measured burns. The control: the same helper
on another CPU, where it cannot delay the timer's thread, must not be named. Nothing
asserts an absolute latency (this VM is noisy): only the named cause and the ratio.
"""

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import RunCli
from rtbench.model import records
from traced import timer_trace

HERE = Path(__file__).parent
BURN_US, PERIOD_US = 2000, 50_000

# reads or changes this machine's real-time settings (conftest.py)
pytestmark = [
    pytest.mark.host_settings,
    pytest.mark.skipif(
        os.geteuid() != 0 or not Path("/sys/kernel/tracing").is_dir() or (os.cpu_count() or 1) < 2,
        reason="needs root, tracefs and two CPUs",
    ),
]


def _traced_run(
    run_cli: RunCli, tmp_path: Path, cpu: int, disturb_cpu: int, name: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    out = tmp_path / name
    burns_file = tmp_path / f"{name}-burns.json"
    helper = subprocess.Popen(
        [sys.executable, str(HERE / "disturb.py"), str(disturb_cpu), "99", str(BURN_US),
         str(PERIOD_US), "3000", "150", str(burns_file)],
    )  # fmt: skip
    try:
        done = run_cli(
            "run", "--trace", "--cpu", str(cpu), "--only", "timer.periodic.latency",
            "--set", "timer.periodic.latency.interval_ns=200000", "--set", "duration_ms=2000",
            "--out", str(out), timeout=240,
        )  # fmt: skip
    finally:
        helper.terminate()
        helper.wait(timeout=30)
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "results.json").read_text())
    records.validate(data, "results")
    burns = json.loads(burns_file.read_text())
    return data, burns


def _named(sample: dict[str, Any], pid: int) -> float | None:
    for c in sample.get("causes", []):
        if c["label"] == f"task rtb-disturb:{pid}":
            return float(c["ns"])
    return None


def test_known_disturbance_is_named_with_its_time(run_cli: RunCli, tmp_path: Path) -> None:
    cpu = (os.cpu_count() or 2) - 1
    data, burns = _traced_run(run_cli, tmp_path, cpu, cpu, "disturbed")
    lengths = [b - a for a, b in burns["burns"]]
    assert len(lengths) >= 20, "the helper did not run"
    burn_ns = statistics.median(lengths)
    trace = timer_trace(data)
    worst = [s for s in trace["samples"] if s["kind"] == "worst" and s.get("covered")]
    assert worst, trace
    named = [(s, _named(s, burns["pid"])) for s in worst]
    hits = [(s, ns) for s, ns in named if ns is not None]
    # the disturbance is the main cause of most of the worst samples ...
    assert len(hits) >= len(worst) // 2 + 1, [s["line"] for s in worst]
    assert hits[0][0]["causes"][0]["label"] == f"task rtb-disturb:{burns['pid']}"
    assert "rtb-disturb" in trace["line"] or "rtb-disturb" in hits[0][0]["line"]
    # ... and its time there is its burn, within 20 % (the timer's 200 µs grid
    # starts each window at most one interval into a burn). Judged on the median
    # of the samples that name it: on a VM one sample may also hold a stall of the
    # virtual CPU that cut the burn short in that window (the trace then says
    # which share it cannot explain).
    named_ns = statistics.median(ns for _sample, ns in hits)
    lines = [sample["line"] for sample, _ns in hits]
    assert 0.8 * burn_ns <= named_ns <= 1.2 * burn_ns, (lines, burn_ns)


def test_disturbance_elsewhere_is_not_named(run_cli: RunCli, tmp_path: Path) -> None:
    cpu = (os.cpu_count() or 2) - 1
    data, burns = _traced_run(run_cli, tmp_path, cpu, 0, "elsewhere")
    assert len(burns["burns"]) >= 20, "the helper did not run"
    trace = timer_trace(data)
    covered = [s for s in trace["samples"] if s.get("covered")]
    assert covered, trace
    for sample in covered:
        assert _named(sample, burns["pid"]) is None, sample["line"]
        assert "rtb-disturb" not in sample["line"]
