# SPDX-License-Identifier: Apache-2.0
"""The real FreeRTOS image under QEMU, through `rtbench run --target
qemu:freertos-mps2-an385`: a few scenarios and their verdicts, deterministic
mode giving the same figures twice (the second run with the host's timing made
ragged on purpose), and a comparison with this machine.

Skipped, with the sentence `rtbench targets` gives, when FREERTOS_KERNEL_PATH,
the ARM toolchain, picolibc or qemu-system-arm are missing. Each run is a few
scenarios of the quick profile, so the module stays within minutes."""

from __future__ import annotations

from pathlib import Path

import pytest

from board_runs import assert_same_figures, figures, run_ok, run_twice, verdict, verdicts
from conftest import RunCli, read_results
from rtbench.targets.firmware import target as fw_target
from rtbench.targets.firmware.rtoses import FREERTOS

SPEC = "qemu:freertos-mps2-an385"
WHY_NOT = fw_target.ready(FREERTOS)
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=f"{WHY_NOT}")
# the latency scenarios of the determinism check, with the calibration before them
# (mq.send.unblock: a few of its tick-landing samples once differed between boots)
LATENCY = ("sem.wait.block", "sem.wait.available", "mut.lock.block", "mq.send.unblock")


def test_the_image_runs_scenarios_and_their_verdicts(run_cli: RunCli, tmp_path: Path) -> None:
    out = tmp_path / "r"
    done = run_ok(
        run_cli, out, "run", "--target", SPEC, "--only", "sem.wait.block",
        "sem.behavior.release_order", timeout=600,
    )  # fmt: skip
    data = read_results(out)
    statuses = {s["name"]: s["status"] for s in data["scenarios"]}
    assert set(statuses.values()) == {"ok"}, statuses
    assert data["host"]["kernel"]["system"] == "FreeRTOS"
    assert data["run"]["target_info"]["freertos_kernel"]["tag"]
    release = verdicts(data, "sem.behavior.release_order")
    assert [v["outcome"] for v in release] == ["pass"]
    assert [v["control"]["outcome"] for v in release] == ["caught"]  # control built in the image
    assert "FreeRTOS" in done.stdout and "EMULATED" in done.stdout


def test_deterministic_runs_give_identical_figures(run_cli: RunCli, tmp_path: Path) -> None:
    """The same figures twice; and CLK-B-CFG, run with them, is sure of the tick
    under -icount, control caught. Its sleeps start at points spread over the
    tick, so the verdict does not hang on where one fixed point falls: 800 us
    more before each sleep (as a longer code path) would make every 100 us
    sleep of a fixed start end at the next tick 190 us later, and a fail
    ("lasts only 191.320 us"); spread, it passes as with no shift."""
    runs = run_twice(
        run_cli, tmp_path, "run", "--target", SPEC, "--deterministic", "--only", *LATENCY,
        "clk.tick.config", "--set", "clk.tick.config.phase_shift_ns=800000", timeout=600,
    )  # fmt: skip
    first, second = (figures(data) for data in runs)
    assert len(first) >= len(LATENCY)  # every scenario gave figures
    assert_same_figures(first, second)
    tick = verdict(runs[0], "clk.tick.config", "tick_config")
    assert (tick["outcome"], tick["control"]["outcome"]) == ("pass", "caught"), tick


def test_checks_on_measures_the_checked_configuration_and_says_so(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """checks=on builds its own image (configASSERT, stack checking): every report
    says which configuration was measured, the checks lengthen the paths, and
    compare names the settings that differ."""
    outs = {}
    for kind, spec in (("production", SPEC), ("checked", SPEC + ",checks=on")):
        out = tmp_path / kind
        done = run_ok(
            run_cli, out, "run", "--target", spec, "--deterministic", "--only", "sem.wait.block",
            "--set", "waiters=1", timeout=900,
        )  # fmt: skip
        assert f"{kind} configuration: tick 1000 Hz" in " ".join(done.stdout.split())
        data = read_results(out)
        meta = next(s["meta"] for s in data["scenarios"] if s.get("meta"))
        assert meta["os_config"]["name"] == kind
        settings = {x["name"]: x["value"] for x in meta["os_config"]["settings"]}
        on = kind == "checked"
        assert settings["asserts"] == ("on" if on else "off")
        assert settings["stack check"] == ("method 2" if on else "off")
        outs[kind] = (out, figures(data))
    # the waiter's acquire and the releaser's release, both measured by sem.wait.block
    for metric in (("sem.wait.block", "acquire"), ("sem.signal.unblock", "release")):
        production = outs["production"][1][metric]["p50"]
        checked = outs["checked"][1][metric]["p50"]
        assert checked > production, (metric, production, checked)  # what the checks cost
    done = run_cli("compare", str(outs["production"][0]), str(outs["checked"][0]), timeout=120)
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "OS setting asserts (configASSERT) differs: A off, B on." in text


def test_compare_puts_the_board_next_to_this_machine(run_cli: RunCli, tmp_path: Path) -> None:
    board, here = tmp_path / "board", tmp_path / "here"
    for target, out in ((SPEC, board), ("local", here)):
        run_ok(run_cli, out, "run", "--target", target, "--only", "sem.wait.block", timeout=600)
    done = run_cli("compare", str(here), str(board), timeout=120)
    assert done.returncode == 0, done.stderr
    assert "FreeRTOS" in done.stdout and "Linux" in done.stdout
    assert "sem.wait.block" in done.stdout or "SEM-P-ARC" in done.stdout
