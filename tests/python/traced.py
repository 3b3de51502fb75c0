# SPDX-License-Identifier: Apache-2.0
"""What the tests of `rtbench run --trace` on different targets read alike."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from rtbench import records


def timer_trace(data: dict[str, Any]) -> dict[str, Any]:
    """The `trace` object of timer.periodic.latency's result (it must have one)."""
    for s in data["scenarios"]:
        for r in s["records"]:
            if r["type"] == "result" and r["scenario"] == "timer.periodic.latency":
                assert "trace" in r, "the traced run explained nothing"
                trace: dict[str, Any] = r["trace"]
                return trace
    raise AssertionError("no timer.periodic.latency result")


def remote_traced_run(
    done: subprocess.CompletedProcess[str], out: Path, spec: str, where: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A traced run on a target reached through shell scripts: it ended well, said
    where it traced, and recorded how; (results, run.conditions.trace)."""
    assert done.returncode == 0, done.stderr
    assert f"on {spec}, clock" in done.stderr
    assert "Kernel trace of the worst samples" in done.stdout
    data = json.loads((out / "results.json").read_text())
    records.validate(data, "results")
    cond: dict[str, Any] = data["run"]["conditions"]["trace"]
    assert cond["traced"] is True
    access = cond["access"]
    assert access["where"] == where and access["target"] == spec
    assert "/proc/timer_list" in access["sync_method"]
    assert access["instance_path"].endswith(f"/instances/{cond['instance']}")
    return data, cond
