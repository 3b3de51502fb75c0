# SPDX-License-Identifier: Apache-2.0
"""`rtbench run --parallel N`: targets that do not run on this machine's CPUs
measured at the same time (two deterministic emulated boards, through the
stand-in for QEMU and the image), and the refusal when one of them does."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import RunCli
from rtbench.model.results import RESULTS_FILE
from rtbench.targets.firmware import target as fw_target
from rtbench.targets.firmware.rtoses import FREERTOS
from test_freertos_target import FAKE, _checkout

SPEC = "qemu:freertos-mps2-an385"
OTHER = "qemu:freertos-mps2-an385,icount=4"

# Started instead of QEMU: waits (at most 30 s) until the other board has started
# too, notes whether it met it, then becomes the stand-in.
RENDEZVOUS = """
import os, sys, time
folder = sys.argv[1]
open(os.path.join(folder, f"arrived-{os.getpid()}"), "w").close()
end_by = time.monotonic() + 30
while time.monotonic() < end_by:
    if len([n for n in os.listdir(folder) if n.startswith("arrived-")]) >= 2:
        break
    time.sleep(0.05)
met = len([n for n in os.listdir(folder) if n.startswith("arrived-")]) >= 2
with open(os.path.join(folder, "met"), "a") as f:
    f.write(("met" if met else "alone") + "\\n")
os.execv(sys.executable, [sys.executable, *sys.argv[2:]])
"""


@pytest.fixture
def boards(core_binary: Path, tmp_path: Path) -> dict[str, str]:
    image = tmp_path / "image.elf"
    image.write_bytes(b"\x7fELF")
    meet = tmp_path / "meet"
    meet.mkdir()
    script = tmp_path / "rendezvous.py"
    script.write_text(RENDEZVOUS)
    return {
        fw_target.EMULATOR_ENV: f"{sys.executable} {script} {meet} {FAKE}",
        FREERTOS.image_env: str(image),
        FREERTOS.source_env: str(_checkout(tmp_path / "FreeRTOS-Kernel")),
        "FAKE_FREERTOS_CORE": str(core_binary),
    }


def test_two_deterministic_boards_run_at_once_and_are_compared(
    run_cli: RunCli, boards: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "both"
    done = run_cli(
        "run", "--target", SPEC, "--target", OTHER, "--deterministic", "--parallel", "2",
        "--only", "cal.timestamp", "sem.wait.available", "--out", str(out), env=boards,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    # both emulators were running at the same time
    assert (tmp_path / "meet" / "met").read_text().split() == ["met", "met"]
    shifts = {}
    for spec, folder in (
        (SPEC, "qemu-freertos-mps2-an385"),
        (OTHER, "qemu-freertos-mps2-an385-icount-4"),
    ):
        data = json.loads((out / folder / RESULTS_FILE).read_text())
        assert data["run"]["target"] == spec
        assert {s["name"]: s["status"] for s in data["scenarios"]} == {
            "cal.timestamp": "ok",
            "sem.wait.available": "ok",
        }
        shifts[spec] = data["run"]["target_info"]["icount_shift"]
        # one progress line per scenario, each prefixed with its target, never redrawn
        assert f"[{spec}] [2/2] sem.wait.available ... ok" in done.stderr
    assert shifts == {SPEC: 5, OTHER: 4}
    assert "\r" not in done.stderr
    for line in done.stderr.splitlines():
        assert line.startswith(("[qemu:", "rtbench run:")), line
    assert "rtbench compare: 2 results, baseline A" in done.stdout
    assert (out / "comparison" / "comparison.html").is_file()


def test_a_target_on_this_machines_cpus_is_refused_in_one_sentence(
    run_cli: RunCli, boards: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "r"
    done = run_cli(
        "run", "--target", "local", "--target", f"{SPEC},icount=off", "--parallel", "2",
        "--only", "cal.timestamp", "--out", str(out), env=boards,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert "--parallel measures targets side by side only when" in lines[0]
    # the board on the wall clock (icount=off) runs on this machine's CPUs too
    assert f"local, {SPEC},icount=off do" in lines[0]
    assert not out.exists()
    assert not (tmp_path / "meet" / "met").exists()


def test_parallel_needs_a_count_from_one(run_cli: RunCli, tmp_path: Path) -> None:
    done = run_cli("run", "--parallel", "0", "--out", str(tmp_path / "r"))
    assert done.returncode == 2
    assert "--parallel" in done.stderr and "Traceback" not in done.stderr
