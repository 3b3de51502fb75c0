# SPDX-License-Identifier: Apache-2.0
"""The real ThreadX image under QEMU, through `rtbench run --target
qemu:threadx-mps2-an385`: deterministic mode giving the same figures twice,
a path trace naming ThreadX's own functions, and the behaviour verdicts that
tell ThreadX apart (semaphore waiters released in arrival order unless the
image is built with sem_prioritize=on; inheriting mutexes).

Skipped, with the sentence `rtbench targets` gives, when THREADX_PATH, the
ARM toolchain, picolibc or qemu-system-arm are missing. Each run is a few
scenarios of the quick profile; the first builds the image (about a minute,
cached in build/ after), the prioritize variant a second one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import RunCli
from rtbench.model import records
from rtbench.model.results import RESULTS_FILE
from rtbench.targets.firmware import target as fw_target
from rtbench.targets.firmware.rtoses import THREADX

SPEC = "qemu:threadx-mps2-an385"
WHY_NOT = fw_target.ready(THREADX)
pytestmark = [pytest.mark.slow, pytest.mark.skipif(WHY_NOT is not None, reason=f"{WHY_NOT}")]
# the latency scenarios of the determinism check, with the calibration before them
LATENCY = ("sem.wait.block", "sem.wait.available", "mut.lock.block")


def _results(out: Path) -> dict[str, Any]:
    data = json.loads((out / RESULTS_FILE).read_text())
    records.validate(data, "results")
    assert isinstance(data, dict)
    return data


def _figures(data: dict[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
    """Every metric's statistics, without when (in counter ticks since boot) its
    maximum happened: a moment, not a figure."""
    found = {}
    for scenario in data["scenarios"]:
        for record in scenario["records"]:
            if record.get("type") == "result" and record.get("stats"):
                stats = {k: v for k, v in record["stats"].items() if not k.endswith("_at_ticks")}
                key = (scenario["name"], str(record.get("metric")), str(record.get("params")))
                found[key] = stats
    return found


def _verdicts(data: dict[str, Any], scenario: str) -> dict[str, dict[str, Any]]:
    """The verdicts of one scenario, by check."""
    return {
        r["check"]: r
        for s in data["scenarios"]
        for r in s["records"]
        if r.get("type") == "verdict" and r.get("scenario") == scenario
    }


def test_deterministic_runs_give_identical_figures(run_cli: RunCli, tmp_path: Path) -> None:
    runs = []
    for n in (1, 2):
        out = tmp_path / f"d{n}"
        done = run_cli(
            "run", "--target", SPEC, "--deterministic", "--only", *LATENCY,
            "--out", str(out), timeout=900,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        data = _results(out)
        assert data["host"]["kernel"]["system"] == "ThreadX"
        runs.append(_figures(data))
    first, second = runs
    assert {name for name, _, _ in first} >= set(LATENCY)  # every scenario gave figures
    assert all(stats.get("count", 0) > 0 for stats in first.values())
    differ = {k: (v, second.get(k)) for k, v in first.items() if second.get(k) != v}
    assert not differ, differ


def test_trace_names_threadx_functions_on_the_path(run_cli: RunCli, tmp_path: Path) -> None:
    out = tmp_path / "t"
    done = run_cli(
        "run", "--target", SPEC, "--deterministic", "--trace", "--only", "sem.wait.block",
        "--out", str(out), timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    paths = json.loads((out / "trace" / "02-sem.wait.block.paths.json").read_text())
    seen: dict[str, set[str]] = {}
    for metric in paths["metrics"]:
        for sample in metric["samples"]:
            if sample.get("found") and sample["kind"] == "median":
                seen.setdefault(metric["metric"], set()).update(sample["calls"])
    # the waiter blocks in ThreadX's get and is suspended by the kernel; the
    # releaser's put resumes it: the functions of ThreadX's common/src
    assert {"_tx_semaphore_get", "_tx_thread_system_suspend"} <= seen["acquire"], seen
    assert {"_tx_semaphore_put", "_tx_thread_system_resume"} <= seen["release"], seen
    assert "_tx_semaphore_get" in done.stdout


def test_semaphore_release_is_fifo_unless_prioritized(run_cli: RunCli, tmp_path: Path) -> None:
    plain, prioritized = tmp_path / "fifo", tmp_path / "prio"
    done = run_cli(
        "run", "--target", SPEC, "--only", "sem.behavior.release_order", "mut.behavior.pi",
        "--out", str(plain), timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = _results(plain)
    release = _verdicts(data, "sem.behavior.release_order")["release_order"]
    assert release["outcome"] == "fail", release
    assert "FIFO" in release["reason"] and "order they blocked" in release["reason"], release
    assert release["control"]["outcome"] == "caught"
    inherit = _verdicts(data, "mut.behavior.pi")["priority_inheritance"]
    assert inherit["outcome"] == "pass", inherit
    assert inherit["control"]["outcome"] == "caught", inherit  # TX_NO_INHERIT showed the inversion

    done = run_cli(
        "run", "--target", f"{SPEC},sem_prioritize=on", "--only", "sem.behavior.release_order",
        "--out", str(prioritized), timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    release = _verdicts(_results(prioritized), "sem.behavior.release_order")["release_order"]
    assert release["outcome"] == "pass", release
    assert release["control"]["outcome"] == "caught", release
