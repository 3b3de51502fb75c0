# SPDX-License-Identifier: Apache-2.0
"""The Cortex-A7 board's images through the run's machinery, as the mps2-an385
images go through it: an image whose QEMU dies mid-scenario loses that scenario
alone and a fresh boot runs the rest, and two deterministic virt-a7 boards are
measured at the same time (`--parallel`) and compared.

Real images (FreeRTOS, ThreadX and NuttX on ports/boards/virt-a7); each test is skipped
with `rtbench targets`'s sentence when the sources, toolchain or QEMU are missing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import RunCli
from kill_hook import run_killing
from rtbench.model.results import RESULTS_FILE
from rtbench.targets.firmware import target as fw_target
from rtbench.targets.firmware.rtos import Rtos
from rtbench.targets.firmware.rtoses import FREERTOS, NUTTX, THREADX


def _ready(*rtoses: object) -> None:
    for rtos in rtoses:
        why_not = fw_target.ready(rtos)  # type: ignore[arg-type]
        if why_not is not None:
            pytest.skip(why_not)


@pytest.mark.parametrize("rtos", [FREERTOS, NUTTX], ids=lambda r: r.name)
def test_a_killed_board_loses_one_scenario_and_a_fresh_boot_runs_the_rest(
    rtos: Rtos, tmp_path: Path
) -> None:
    _ready(rtos)
    target = fw_target.FirmwareTarget(f"qemu:{rtos.name}-virt-a7")
    said: list[str] = []
    # tm.basic measures for whole periods of emulated time: long enough to be
    # killed inside, whatever this machine's speed
    victim, after = "tm.basic", "sem.wait.available"
    try:
        target.open(said.append)
        first_pid = target.machine.pid if target.machine else None
        _run, doc, hook = run_killing(target, victim, [after], 1.0, tmp_path / "o")
    finally:
        target.close()
    statuses = {s.name: s.status for s in doc.scenarios}
    assert hook.killed == [first_pid] and first_pid is not None
    assert statuses[victim] == "lost", statuses
    assert statuses[after] == "ok", statuses  # in the second boot
    assert target.boots == 2
    assert not Path(f"/proc/{first_pid}").exists()


def test_two_virt_a7_boards_are_measured_at_once_and_compared(
    run_cli: RunCli, tmp_path: Path
) -> None:
    _ready(NUTTX, THREADX)
    out = tmp_path / "both"
    specs = {"qemu:nuttx-virt-a7": "NuttX", "qemu:threadx-virt-a7": "ThreadX"}
    done = run_cli(
        "run", *(a for s in specs for a in ("--target", s)), "--deterministic",
        "--parallel", "2", "--only", "cal.timestamp", "sem.wait.available",
        "--set", "iterations=300", "--out", str(out), timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for spec, os_name in specs.items():
        data = json.loads((out / spec.replace(":", "-") / RESULTS_FILE).read_text())
        assert data["run"]["target_info"]["board"] == "virt-a7"
        assert {s["name"]: s["status"] for s in data["scenarios"]} == {
            "cal.timestamp": "ok",
            "sem.wait.available": "ok",
        }
        assert data["scenarios"][1]["meta"]["os"] == os_name
        # one progress line per scenario, each prefixed with its target
        assert f"[{spec}] [2/2] sem.wait.available ... ok" in done.stderr
    assert "rtbench compare: 2 results, baseline A" in done.stdout
    page = (out / "comparison" / "comparison.html").read_text()
    # one clock for both: the figures are rated (exact instruction counts)
    assert "Times are tested and rated only" not in page
