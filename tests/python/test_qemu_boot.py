# SPDX-License-Identifier: Apache-2.0
"""QEMU guests booted for real: one per architecture, and one lost under a scenario.

Each boot runs the calibration and the two behaviour verdicts through
`rtbench run --target qemu:NAME`; the guests run real Linux kernels, so both
verdicts must pass (their negative controls are checked inside the core). The
PREEMPT_RT guest's facts must say PREEMPT_RT and the standard one's must not.
Killing QEMU under a scenario must end that scenario `lost`, boot a fresh guest
for the rest, and leave no QEMU process behind.

The PREEMPT_RT guest must also keep its serial line through the scenarios whose
records once silenced it (the kernel took the line's interrupt for a stuck one),
and hear a kill while a scenario's top-priority thread keeps its only CPU busy.

Skipped, with the reason, when QEMU or a cross compiler is missing, or when a
guest's kernel is neither cached nor downloadable here.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import cli
from kill_hook import run_killing
from rtbench.errors import RtbenchError
from rtbench.model.results import RESULTS_FILE
from rtbench.paths import ROOT
from rtbench.targets.guest.target import QemuTarget
from traced import usable_guest

pytestmark = pytest.mark.slow

VERDICTS = ["sem.behavior.release_order", "mut.behavior.pi"]


def _qemu_left(marker: Path) -> list[str]:
    """QEMU processes whose command line names a folder under `marker`."""
    done = subprocess.run(
        ["pgrep", "-af", f"qemu-system.*{marker}"], capture_output=True, text=True, check=False
    )
    return [line for line in done.stdout.splitlines() if line.strip()]


def _schema_check(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / RESULTS_FILE).read_text())
    schema = json.loads((ROOT / "schema" / "rtbench.schema.json").read_text())
    jsonschema.validate(data, {**schema, "$ref": "#/$defs/results"})
    return data


@pytest.mark.parametrize(
    ("name", "options", "machine", "cpu", "rt"),
    [
        ("debian-rt-amd64", "", "x86_64", "max", True),
        ("debian-arm64", "", "aarch64", "cortex-a53", False),
        ("debian-armhf", "", "armv7l", "cortex-a15", False),
        # the virt-a7 RTOSes' core, deterministic at their shift
        ("debian-armhf", ",cpu=cortex-a7,icount=5", "armv7l", "cortex-a7", False),
    ],
)
def test_a_guest_boots_and_passes_both_verdicts(
    name: str, options: str, machine: str, cpu: str, rt: bool, tmp_path: Path
) -> None:
    usable_guest(name)
    out = tmp_path / "out"
    temp = tmp_path / "tmp"
    temp.mkdir()
    done = cli(
        "run", "--target", f"qemu:{name}{options}", "--only", *VERDICTS, "cal.timestamp",
        "--out", str(out),
        cwd=tmp_path, env={"TMPDIR": str(temp)}, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    data = _schema_check(out)
    info = data["run"]["target_info"]
    assert (info["kind"], info["arch"], info["guest"]) == ("qemu", machine, name)
    assert info["cpu"] == cpu or (info["accel"] == "kvm" and info["cpu"] == "host")
    assert info["kernel"]["package"].startswith("linux-image-6.")
    assert data["host"]["kernel"]["machine"] == machine
    assert data["host"]["kernel"]["preempt_rt"] is rt
    statuses = {s["name"]: s["status"] for s in data["scenarios"]}
    assert statuses == {"cal.timestamp": "ok", **dict.fromkeys(VERDICTS, "ok")}
    outcomes = [
        r["outcome"] for s in data["scenarios"] for r in s["records"] if r["type"] == "verdict"
    ]
    assert len(outcomes) == 3 and set(outcomes) == {"pass"}, outcomes
    if info["accel"] == "tcg":
        assert "emulated" in [c["code"] for c in data["caveats"]]
        assert "EMULATED: timing is not representative of hardware" in done.stdout
    assert _qemu_left(temp) == []


# Each ended `lost` on the PREEMPT_RT guest: after about 100 KB of records the
# kernel disabled the serial line's interrupt, and the agent never heard the kill.
LOST_ON_RT = ["clk.tick", "thr.switch.yield", "mq.send.no_waiter"]
SERIAL_SETTINGS = {"serial_irq_thread_priority", "agent_priority"}


def test_the_rt_guest_keeps_its_serial_line_through_the_scenarios_it_lost(
    tmp_path: Path,
) -> None:
    usable_guest("debian-rt-amd64")
    out = tmp_path / "out"
    temp = tmp_path / "tmp"
    temp.mkdir()
    done = cli(
        "run", "--target", "qemu:debian-rt-amd64", "--only", *LOST_ON_RT, "--out", str(out),
        cwd=tmp_path, env={"TMPDIR": str(temp)}, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    data = _schema_check(out)
    statuses = {s["name"]: s["status"] for s in data["scenarios"]}
    assert statuses == {"cal.timestamp": "ok", **dict.fromkeys(LOST_ON_RT, "ok")}, statuses
    changes = data["settings"]["changes"]
    assert {c["setting"] for c in changes} >= SERIAL_SETTINGS, changes
    assert all(c["restored"] is True for c in changes), changes
    assert _qemu_left(temp) == []


def test_a_one_cpu_rt_guest_hears_a_kill_under_a_top_priority_busy_loop(tmp_path: Path) -> None:
    usable_guest("debian-rt-amd64")
    out = tmp_path / "out"
    temp = tmp_path / "tmp"
    temp.mkdir()
    # clk.tick busy-loops at the core's highest priority for 30 s; the watchdog
    # (deadline scaled to its slack, 5 s) stops it in that loop.
    done = cli(
        "run", "--target", "qemu:debian-rt-amd64,cpus=1", "--only", "clk.tick",
        "--set", "duration_ms=30000", "--out", str(out),
        cwd=tmp_path, env={"TMPDIR": str(temp), "RTBENCH_DEADLINE_SCALE": "0.001"}, timeout=900,
    )  # fmt: skip
    data = _schema_check(out)
    tick = next(s for s in data["scenarios"] if s["name"] == "clk.tick")
    assert tick["status"] == "timeout", (tick["status"], tick["reason"], done.stderr[-3000:])
    assert tick["elapsed_s"] < 20, tick["elapsed_s"]  # killed in the loop, not at its end
    assert data["run"]["target_info"]["boots"] == 1  # no fresh guest was needed
    assert _qemu_left(temp) == []


def test_killing_qemu_mid_scenario_is_lost_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    usable_guest("debian-amd64")
    if shutil.which("pgrep") is None:
        pytest.skip("pgrep is missing (procps)")
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    import tempfile  # noqa: PLC0415 (the new TMPDIR must be read again)

    monkeypatch.setattr(tempfile, "tempdir", None)
    target = QemuTarget("qemu:debian-amd64,cpus=2")
    said: list[str] = []
    try:
        try:
            target.open(said.append)
        except RtbenchError as e:
            pytest.skip(f"the guest could not be prepared here: {e}")
        first_pid = target.machine.pid if target.machine else None
        assert len(_qemu_left(temp)) == 1  # the check below sees a running guest
        victim = "clk.tick"
        run, doc, hook = run_killing(target, victim, [VERDICTS[0]], 1.5, tmp_path / "o")
    finally:
        target.close()
    statuses = {s.name: s.status for s in doc.scenarios}
    assert hook.killed == [first_pid]
    assert statuses[victim] == "lost", statuses
    lost = next(s for s in doc.scenarios if s.name == victim)
    assert "SIGKILL" in (lost.reason or ""), lost.reason
    # a fresh guest ran the rest
    assert statuses[VERDICTS[0]] == "ok"
    assert target.boots == 2
    assert run.target_gone is None
    data = _schema_check(tmp_path / "o")
    assert data["run"]["complete"] is True
    assert _qemu_left(temp) == []
    assert first_pid is not None and not Path(f"/proc/{first_pid}").exists()
