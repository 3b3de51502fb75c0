# SPDX-License-Identifier: Apache-2.0
"""FreeRTOS, uC/OS-III and ThreadX on the Cortex-A7 board (`qemu:<rtos>-virt-a7`:
QEMU's virt, each kernel's ARMv7-A port, ports/boards/virt-a7 and
ports/arch/cortex-a): the quick catalog runs through, every scenario ok or
unsupported with its reason, the behaviour verdicts of the Cortex-M3 board hold
(SEM-B-REL, MUT-B-ARC, each with its control caught; ThreadX's semaphores release
in arrival order, so SEM-B-REL fails there with that reason, as on mps2-an385),
the results name the kernel port, the counter and the FPU context policy, and
deterministic mode (the PMU's instruction counter) gives the same figures twice.

One quick catalog per RTOS, shared by the tests of that RTOS (a module fixture).
An RTOS is skipped, with the sentence `rtbench targets` gives, when its sources
(FREERTOS_KERNEL_PATH, UCOS3_PATH, THREADX_PATH), the ARM toolchain, picolibc or
qemu-system-arm are missing. Iterations are cut down so the module stays within a
few minutes."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from board_runs import assert_same_figures, figures, run_ok, run_twice, verdict
from conftest import RunCli, cli, read_results
from rtbench.targets.firmware import target as fw_target
from rtbench.targets.firmware.rtoses import FREERTOS, THREADX, UCOS3, Rtos

SHORT = ("--set", "iterations=300")
# latency paths through a switch, an interrupt (the SGI and the timer) and a queue
LATENCY = ("sem.wait.block", "sem.wait.available", "mq.send.unblock", "irq.latency", "tm.irq")


@dataclass(frozen=True)
class Case:
    """One RTOS on virt-a7 and what its results must say."""

    rtos: Rtos
    kernel_port: str  # the kernel's port the results name
    fpu_context: str  # how the "FPU context" setting of os_config begins
    release_order: str  # SEM-B-REL's outcome: "pass", or "fail" (FIFO semaphores)

    @property
    def spec(self) -> str:
        return f"qemu:{self.rtos.name}-virt-a7"


CASES = (
    Case(FREERTOS, "GCC/ARM_CA9", "every task", "pass"),
    Case(UCOS3, "ARM-Cortex-A/ARMv7-A/GNU", "every task", "pass"),
    Case(THREADX, "cortex_a7/gnu", "every thread", "fail"),
)


@dataclass(frozen=True)
class Quick:
    """The quick catalog of one RTOS, deterministic, iterations cut down."""

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


@pytest.fixture(scope="module", params=CASES, ids=lambda c: c.rtos.name)
def case(request: pytest.FixtureRequest) -> Case:
    found: Case = request.param
    why_not = fw_target.ready(found.rtos)
    if why_not is not None:
        pytest.skip(why_not)
    return found


@pytest.fixture(scope="module")
def quick(case: Case, tmp_path_factory: pytest.TempPathFactory) -> Quick:
    folder = tmp_path_factory.mktemp(f"quick-{case.rtos.name}")
    out = folder / "quick"
    done = run_ok(
        runner(folder), out, "run", "--target", case.spec, "--deterministic", *SHORT,
        timeout=900,
    )  # fmt: skip
    return Quick(read_results(out), done)


def test_the_quick_catalog_runs_with_the_cortex_m3_verdicts(case: Case, quick: Quick) -> None:
    data = quick.data
    statuses = {s["name"]: (s["status"], s.get("reason") or "") for s in data["scenarios"]}
    assert len(statuses) > 30, statuses
    wrong = {n: s for n, s in statuses.items() if s[0] not in ("ok", "unsupported")}
    assert not wrong, wrong
    unsupported = {n: r for n, (s, r) in statuses.items() if s == "unsupported"}
    assert all(r.strip() for r in unsupported.values()), unsupported
    assert set(unsupported) <= {n for n in statuses if n.startswith("ipc.")}, unsupported
    release = verdict(data, "sem.behavior.release_order", "release_order")
    assert (release["outcome"], release["control"]["outcome"]) == (
        case.release_order,
        "caught",
    ), release
    if case.release_order == "fail":
        assert "FIFO" in release["reason"] and "order they blocked" in release["reason"], release
    inherit = verdict(data, "mut.behavior.pi", "priority_inheritance")
    assert (inherit["outcome"], inherit["control"]["outcome"]) == ("pass", "caught"), inherit
    assert data["host"]["kernel"]["port"] == case.kernel_port
    assert data["host"]["cpus"]["model"] == "cortex-a7"
    assert "virt-a7" in quick.done.stdout and "EMULATED" in quick.done.stdout


def test_the_results_name_the_counter_and_the_fpu_context(case: Case, quick: Quick) -> None:
    meta = next(s["meta"] for s in quick.data["scenarios"] if s.get("meta"))
    counter = meta["counter"]
    # -icount shift=5: one PMU tick per instruction, 32 ns each
    assert (counter["name"], counter["hz"]) == ("pmu-instructions", 31250000), counter
    assert "instructions-retired" in counter["note"]
    settings = {s["name"]: s["value"] for s in meta["os_config"]["settings"]}
    assert settings["FPU context"].startswith(case.fpu_context), settings


def test_deterministic_runs_count_instructions_and_repeat(
    case: Case, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp(f"twice-{case.rtos.name}")
    runs = run_twice(
        runner(folder), folder, "run", "--target", case.spec, "--deterministic", "--only",
        *LATENCY, *SHORT, timeout=600,
    )  # fmt: skip
    first, second = (figures(data) for data in runs)
    assert len(first) >= len(LATENCY)  # every scenario gave figures
    assert_same_figures(first, second)


def test_trace_is_refused_with_its_reason(run_cli: RunCli, tmp_path: Path) -> None:
    why_not = fw_target.ready(FREERTOS)
    if why_not is not None:
        pytest.skip(why_not)
    done = run_cli(
        "run", "--target", CASES[0].spec, "--trace", "--only", "sem.wait.available",
        "--out", str(tmp_path / "t"), timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--trace is not available on virt-a7" in done.stdout + done.stderr
