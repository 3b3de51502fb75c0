# SPDX-License-Identifier: Apache-2.0
"""FreeRTOS on the Cortex-A7 board (`qemu:freertos-virt-a7`: QEMU's virt, the
ARM_CA9 kernel port, ports/boards/virt-a7 and ports/arch/cortex-a): the quick
catalog runs through, every scenario ok or unsupported with its reason, the
behaviour verdicts of the Cortex-M3 board hold (SEM-B-REL, MUT-B-ARC, each with
its control caught), the results name the counter, and deterministic mode
(the PMU's instruction counter) gives the same figures twice.

Skipped, with the sentence `rtbench targets` gives, when FREERTOS_KERNEL_PATH,
the ARM toolchain, picolibc or qemu-system-arm are missing. Iterations are cut
down so the module stays within a few minutes."""

from __future__ import annotations

from pathlib import Path

import pytest

from board_runs import assert_same_figures, figures, run_ok, run_twice, verdict
from conftest import RunCli, read_results
from rtbench.targets.firmware import target as fw_target
from rtbench.targets.firmware.rtoses import FREERTOS

SPEC = "qemu:freertos-virt-a7"
WHY_NOT = fw_target.ready(FREERTOS)
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=f"{WHY_NOT}")
SHORT = ("--set", "iterations=300")
# latency paths through a switch, an interrupt (the SGI and the timer) and a queue
LATENCY = ("sem.wait.block", "sem.wait.available", "mq.send.unblock", "irq.latency", "tm.irq")


def test_the_quick_catalog_runs_with_the_cortex_m3_verdicts(
    run_cli: RunCli, tmp_path: Path
) -> None:
    out = tmp_path / "quick"
    done = run_ok(run_cli, out, "run", "--target", SPEC, "--deterministic", *SHORT, timeout=900)
    data = read_results(out)
    statuses = {s["name"]: (s["status"], s.get("reason") or "") for s in data["scenarios"]}
    assert len(statuses) > 30, statuses
    wrong = {n: s for n, s in statuses.items() if s[0] not in ("ok", "unsupported")}
    assert not wrong, wrong
    unsupported = {n: r for n, (s, r) in statuses.items() if s == "unsupported"}
    assert all(r.strip() for r in unsupported.values()), unsupported
    assert set(unsupported) <= {n for n in statuses if n.startswith("ipc.")}, unsupported
    for scenario, check in (
        ("sem.behavior.release_order", "release_order"),
        ("mut.behavior.pi", "priority_inheritance"),
    ):
        found = verdict(data, scenario, check)
        assert (found["outcome"], found["control"]["outcome"]) == ("pass", "caught"), found
    assert data["host"]["kernel"]["port"] == "GCC/ARM_CA9"
    assert data["host"]["cpus"]["model"] == "cortex-a7"
    assert "virt-a7" in done.stdout and "EMULATED" in done.stdout


def test_deterministic_runs_count_instructions_and_repeat(run_cli: RunCli, tmp_path: Path) -> None:
    runs = run_twice(
        run_cli, tmp_path, "run", "--target", SPEC, "--deterministic", "--only", *LATENCY,
        *SHORT, timeout=600,
    )  # fmt: skip
    first, second = (figures(data) for data in runs)
    assert len(first) >= len(LATENCY)  # every scenario gave figures
    assert_same_figures(first, second)
    meta = next(s["meta"] for s in runs[0]["scenarios"] if s.get("meta"))
    counter = meta["counter"]
    # -icount shift=5: one PMU tick per instruction, 32 ns each
    assert (counter["name"], counter["hz"]) == ("pmu-instructions", 31250000), counter
    assert "instructions-retired" in counter["note"]
    settings = {s["name"]: s["value"] for s in meta["os_config"]["settings"]}
    assert settings["FPU context"].startswith("every task"), settings


def test_trace_is_refused_with_its_reason(run_cli: RunCli, tmp_path: Path) -> None:
    done = run_cli(
        "run", "--target", SPEC, "--trace", "--only", "sem.wait.available",
        "--out", str(tmp_path / "t"), timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--trace is not available on virt-a7" in done.stdout + done.stderr
