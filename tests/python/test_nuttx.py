# SPDX-License-Identifier: Apache-2.0
"""Apache NuttX on the Cortex-A7 board (`qemu:nuttx-virt-a7`: NuttX's
qemu-armv7a built with rtbench as its application, ports/nuttx): the quick
catalog runs through, every scenario ok or unsupported with its reason; the
behaviour verdicts pass with their controls caught (semaphore waiters released
by priority, priority inheritance, and the priority ceiling, which NuttX is the
first RTOS port to have); the results name NuttX's release and configuration;
deterministic mode gives the same figures twice; and a NUTTX_PATH that holds no
NuttX tree is one sentence and exit status 2.

One quick catalog, with iterations cut down, shared by the tests (a module
fixture, which builds the image: about a minute the first time, cached after).
The tests of the image are skipped, with the sentence `rtbench targets` gives,
when NUTTX_PATH, kconfig-frontends-nox, the ARM toolchain or qemu-system-arm
are missing; the bad NUTTX_PATH's needs none of them."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from board_runs import assert_same_figures, figures, run_ok, run_twice, verdict
from conftest import RunCli, cli, read_results
from rtbench.targets.firmware import target as fw_target
from rtbench.targets.firmware.rtoses import NUTTX

SPEC = "qemu:nuttx-virt-a7"
WHY_NOT = fw_target.ready(NUTTX)
pytestmark = pytest.mark.slow
SHORT = ("--set", "iterations=300")
# latency paths through a switch, a queue and an interrupt (the timer, and the SGI)
LATENCY = ("sem.wait.block", "mq.send.unblock", "irq.latency", "tm.irq")


@dataclass(frozen=True)
class Quick:
    """The quick catalog, deterministic, iterations cut down."""

    data: dict[str, Any]
    done: subprocess.CompletedProcess[str]


def runner(folder: Path) -> RunCli:
    """conftest.cli in `folder`, its runs locking their CPU among themselves only."""

    def run(
        *args: str, env: dict[str, str] | None = None, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        return cli(
            *args, cwd=folder, env={"RTBENCH_LOCK_DIR": str(folder), **(env or {})},
            timeout=timeout,
        )  # fmt: skip

    return run


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Quick:
    if WHY_NOT is not None:
        pytest.skip(WHY_NOT)
    folder = tmp_path_factory.mktemp("quick-nuttx")
    out = folder / "quick"
    done = run_ok(
        runner(folder), out, "run", "--target", SPEC, "--deterministic", *SHORT, timeout=900
    )
    return Quick(read_results(out), done)


def test_the_quick_catalog_runs_with_every_verdict_passing(quick: Quick) -> None:
    data = quick.data
    statuses = {s["name"]: (s["status"], s.get("reason") or "") for s in data["scenarios"]}
    assert len(statuses) > 30, statuses
    wrong = {n: s for n, s in statuses.items() if s[0] not in ("ok", "unsupported")}
    assert not wrong, wrong
    unsupported = {n: r for n, (s, r) in statuses.items() if s == "unsupported"}
    assert all(r.strip() for r in unsupported.values()), unsupported
    # the signal channels are not ported, NuttX has no System V semaphores; its
    # message queue channel is
    assert set(unsupported) == {"ipc.signal.roundtrip", "ipc.signal.wake", "ipc.sysv_sem.wake"}, (
        unsupported
    )
    # NuttX releases the most urgent semaphore waiter first, inherits, and with
    # CONFIG_PRIORITY_PROTECT has PTHREAD_PRIO_PROTECT: each check passes and
    # its negative control (a FIFO semaphore, a mutex without protocol) is caught
    for scenario, check in (
        ("sem.behavior.release_order", "release_order"),
        ("mut.behavior.pi", "priority_inheritance"),
        ("mut.behavior.pi", "priority_ceiling"),
        ("clk.tick.config", "tick_config"),
    ):
        found = verdict(data, scenario, check)
        assert (found["outcome"], found["control"]["outcome"]) == ("pass", "caught"), found
    failed = [
        (r["scenario"], r["check"], r["outcome"])
        for s in data["scenarios"]
        for r in s["records"]
        if r.get("type") == "verdict" and r["outcome"] != "pass"
    ]
    assert not failed, failed
    assert data["host"]["kernel"]["system"] == "NuttX"
    assert data["host"]["cpus"]["model"] == "cortex-a7"
    assert "virt-a7" in quick.done.stdout and "EMULATED" in quick.done.stdout


def test_the_results_name_the_release_the_configuration_and_the_counter(quick: Quick) -> None:
    meta = next(s["meta"] for s in quick.data["scenarios"] if s.get("meta"))
    assert (meta["os"], meta["os_release"]) == ("NuttX", "13.0.0"), meta["os_release"]
    config = meta["os_config"]
    assert config["name"] == "production", config
    settings = {s["name"]: (s["value"], s["from"]) for s in config["settings"]}
    assert settings["priority protect"] == ("on", "CONFIG_PRIORITY_PROTECT"), settings
    assert settings["asserts"] == ("off", "CONFIG_DEBUG_ASSERTIONS"), settings
    # -icount shift=5: one PMU tick per instruction, 32 ns each
    counter = meta["counter"]
    assert (counter["name"], counter["hz"]) == ("pmu-instructions", 31250000), counter


def test_deterministic_runs_give_identical_figures(
    quick: Quick, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("twice-nuttx")
    runs = run_twice(
        runner(folder), folder, "run", "--target", SPEC, "--deterministic", "--only",
        *LATENCY, *SHORT, timeout=600,
    )  # fmt: skip
    first, second = (figures(data) for data in runs)
    assert {name for name, _ in first} >= set(LATENCY)  # every scenario gave figures
    assert_same_figures(first, second)


def test_a_folder_without_nuttx_is_one_sentence_and_status_2(tmp_path: Path) -> None:
    done = cli(
        "run", "--target", SPEC, "--out", str(tmp_path / "out"), cwd=tmp_path,
        env={"NUTTX_PATH": str(tmp_path), "RTBENCH_LOCK_DIR": str(tmp_path)}, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in lines[0], lines
    assert f"NUTTX_PATH={tmp_path} is not an Apache NuttX source tree" in lines[0], lines
