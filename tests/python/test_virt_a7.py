# SPDX-License-Identifier: Apache-2.0
"""FreeRTOS, uC/OS-III and ThreadX on the Cortex-A7 board (`qemu:<rtos>-virt-a7`:
QEMU's virt, each kernel's ARMv7-A port, ports/boards/virt-a7 and
ports/arch/cortex-a): the quick catalog runs through, every scenario ok or
unsupported with its reason, the behaviour verdicts of the Cortex-M3 board hold
(SEM-B-REL, MUT-B-ARC, each with its control caught; ThreadX's semaphores release
in arrival order, so SEM-B-REL fails there with that reason, as on mps2-an385),
the results name the kernel port, the counter and the FPU context policy,
deterministic mode (the PMU's instruction counter) gives the same figures twice,
and `--trace` follows a sample's code path through the kernel (the counter's
reads are coprocessor instructions, found in the image and in QEMU's register
dumps): the kernel's wait function on it with its critical section, its
instructions split into the kernel's, the port's and the measurement's, the
counted instructions the sample's own value, and the measurement's share the
subtracted overhead.

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

from board_runs import (
    assert_same_figures,
    assert_tight,
    figures,
    result_records,
    run_ok,
    run_twice,
    verdict,
)
from conftest import RunCli, cli, read_results
from rtbench.targets.firmware import target as fw_target
from rtbench.targets.firmware.rtoses import FREERTOS, THREADX, UCOS3, Rtos
from traced import FEW_AMORTISED

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
    take: str  # the kernel's function a semaphore take goes through

    @property
    def spec(self) -> str:
        return f"qemu:{self.rtos.name}-virt-a7"


CASES = (
    Case(FREERTOS, "GCC/ARM_CA9", "every task", "pass", "xQueueSemaphoreTake"),
    Case(UCOS3, "ARM-Cortex-A/ARMv7-A/GNU", "every task", "pass", "OSSemPend"),
    Case(THREADX, "cortex_a7/gnu", "every thread", "fail", "_tx_semaphore_get"),
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


def test_trace_follows_a_take_through_the_kernel(tmp_path: Path) -> None:
    # one RTOS: the calibration's traced log alone is 1.7 GB (uC/OS-III and
    # ThreadX take the same path through the tracer, their kernels' tables aside)
    case = CASES[0]
    why_not = fw_target.ready(case.rtos)
    if why_not is not None:
        pytest.skip(why_not)
    folder = tmp_path
    out = folder / "traced"
    done = run_ok(
        runner(folder), out, "run", "--target", case.spec, "--deterministic", "--trace",
        "--only", "sem.wait.available", *SHORT, *FEW_AMORTISED, timeout=900,
    )  # fmt: skip
    data = read_results(out)
    record = result_records(data)[("sem.wait.available", "wait")]
    path = record["path"]
    assert path["found"] == path["kept"] > 0, path
    typical, whose = path["typical"], path["whose_code"]
    assert case.take in typical["sequence"] and whose[case.take] == "kernel", typical["sequence"]
    # the take masks interrupts once, by the kernel port's means on this board
    critical = typical["critical_sections"]
    assert critical["entries"] == 1, critical
    shares = typical["shares"]
    assert sum(shares.values()) == typical["instructions"], shares
    assert shares.get("unattributed", 0) == 0, (shares, whose)
    assert shares["kernel"] > 0 and shares["measurement"] > 0, shares
    assert set(typical["port_wrappers"]) >= {"rtb_port_sem_wait"}, typical["port_wrappers"]
    assert {whose[f] for f in typical["port_wrappers"]} == {"port"}
    # one PMU tick an instruction: a sample's value and the overhead subtracted
    # from it are the instructions between its reads
    for sample in (typical, path["worst"]):
        assert sample["instructions"] == sample["value"] + record["overhead_ticks"], sample
    over = path["overhead"]
    assert over["instructions_per_tick"] == 1.0
    assert over["measurement_instructions"] == shares["measurement"]
    assert_tight(path)
    assert "Code path of the kept samples" in done.stdout
    details = runner(folder)("show", str(out), "--details")
    assert "whose code (typical): kernel" in details.stdout
    assert "subtracted overhead: " in details.stdout
