# SPDX-License-Identifier: Apache-2.0
"""uC/OS-III on the emulated board, through `rtbench run --target
qemu:ucos3-mps2-an385`, and beside FreeRTOS on the same board.

- Deterministic mode gives the same figures in two runs, the second with the
  host's timing made ragged on purpose.
- `--trace` names uC/OS-III's own functions on the path of a blocking take and
  of the signal that wakes the waiter, the assembly ones of uC/CPU and of the
  port included, and counts their critical sections.
- One run of both RTOSes writes the comparison with each metric's two code paths
  side by side and the services each image reports.

Skipped, with the sentence `rtbench targets` gives, when UCOS3_PATH (or, for the
comparison, FREERTOS_KERNEL_PATH), the ARM toolchain, picolibc or
qemu-system-arm are missing; marked slow (a few runs of a few minutes in all)."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from board_runs import (
    assert_all_tight,
    assert_own_overheads,
    assert_same_figures,
    assert_split,
    figures,
    result_records,
    run_ok,
    run_twice,
    verdict,
)
from conftest import cli, read_results
from rtbench.targets.firmware import target as fw_target
from rtbench.targets.firmware.rtoses import FREERTOS, UCOS3
from traced import FEW_AMORTISED

WHY_NOT = fw_target.ready(UCOS3)
WHY_NOT_BOTH = WHY_NOT or fw_target.ready(FREERTOS)
pytestmark = [pytest.mark.skipif(WHY_NOT is not None, reason=f"{WHY_NOT}"), pytest.mark.slow]
SPEC = "qemu:ucos3-mps2-an385"
FREERTOS_SPEC = "qemu:freertos-mps2-an385"
# what a take that blocks runs through in uC/OS-III v3.08.02: the pend, the wait
# list, the scheduler, uC/CPU's critical sections and the port's PendSV handler
ON_THE_WAIT_PATH = {
    "OSSemPend",
    "OS_Pend",
    "OSSched",
    "CPU_SR_Save",
    "CPU_SR_Restore",
    "OS_CPU_PendSVHandler",
}
ON_THE_SIGNAL_PATH = {"OSSemPost", "OS_Post", "OSSched", "CPU_SR_Save", "OS_CPU_PendSVHandler"}
# short runs; sem.wait.block with 40 waiters: FreeRTOS spreads them over its 29
# priority levels, uC/OS-III over 40 of its 60
SHORT = ("--set", "iterations=2000")
SHORT_BLOCK = ("--set", "waiters=40", "--set", "rounds=5")
# the most instructions the port's wrappers run on a 4-byte send and receive
# without a switch, by RTOS (docs/ports/ucos3.md and freertos.md list them: 18
# and 22 on uC/OS-III, 13 and 12 on FreeRTOS; before, 37 and 37, 19 and 23)
MQ_WRAPPERS_MAX = {"ucos3": (18, 22), "freertos": (13, 12)}
# families whose samples are timed calls, traced beside sem.wait.block
TRACED_FAMILIES = ("sem.wait.available", "mut.lock.uncontended", "mq.send.no_waiter", "mem.alloc")


# the runs go through conftest.cli in the folder above their results (the module
# fixture `both` cannot use the run_cli fixture); one of both boards takes minutes
RUN_TIMEOUT_S = 1800


def test_deterministic_runs_give_identical_figures(tmp_path: Path) -> None:
    runs = run_twice(
        functools.partial(cli, cwd=tmp_path), tmp_path, "run", "--target", SPEC,
        "--deterministic", "--only", "sem.wait.available", "mq.send.no_waiter",
        "mq.send.unblock", "clk.tick.config", *SHORT, timeout=RUN_TIMEOUT_S,
    )  # fmt: skip
    first, second = (figures(data) for data in runs)
    # the calibration, the semaphore's wait and signal, the queue's send and receive
    # without a waiter and to a blocked one
    assert {k[0] for k in first} >= {"sem.wait.available", "mq.send.no_waiter", "mq.send.unblock"}
    assert_same_figures(first, second)
    # CLK-B-CFG, run with them, is sure of the tick under -icount, control caught
    tick = verdict(runs[0], "clk.tick.config", "tick_config")
    assert (tick["outcome"], tick["control"]["outcome"]) == ("pass", "caught"), tick


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One traced, deterministic run of FreeRTOS and uC/OS-III: sem.wait.block, and
    the queue's send and receive of 4-byte messages, and a few hundred samples
    of the other families timed by calls (TRACED_FAMILIES)."""
    if WHY_NOT_BOTH is not None:
        pytest.skip(WHY_NOT_BOTH)
    out = tmp_path_factory.mktemp("rtos") / "run"
    run_ok(
        functools.partial(cli, cwd=out.parent), out, "run", "--target", FREERTOS_SPEC,
        "--target", SPEC, "--deterministic", "--trace", "--only", "sem.wait.block",
        *TRACED_FAMILIES, *SHORT_BLOCK, "--set", "iterations=300", *FEW_AMORTISED,
        timeout=RUN_TIMEOUT_S,
    )  # fmt: skip
    return out


def test_the_trace_names_ucos3_functions_and_counts_critical_sections(both: Path) -> None:
    data = read_results(both / "qemu-ucos3-mps2-an385")
    table = data["run"]["conditions"]["path_trace"]["critical_sections"]
    assert table == {
        "enter": ["CPU_SR_Save"],
        "exit": ["CPU_SR_Restore"],
        "inline": ["OS_CPU_PendSVHandler"],
    }
    found = result_records(data)
    wait = found[("sem.wait.block", "acquire")]["path"]["typical"]
    signal = found[("sem.signal.unblock", "release")]["path"]["typical"]
    assert set(wait["sequence"]) >= ON_THE_WAIT_PATH, wait["sequence"]
    assert set(signal["sequence"]) >= ON_THE_SIGNAL_PATH, signal["sequence"]
    for sample in (wait, signal):
        calls = sample["calls"]
        # uC/CPU's assembly functions are named, never left as addresses
        assert not [f for f in sample["instructions_by_function"] if f.startswith("0x")]
        assert calls["CPU_SR_Save"] == calls["CPU_SR_Restore"] >= 1
        counted = sample["critical_sections"]
        assert counted["entries"] == calls["CPU_SR_Save"] + calls["OS_CPU_PendSVHandler"]
        assert counted["calls"] == 2 * calls["CPU_SR_Save"]
    # uC/CPU's assembly and the kernel's ARMv7-M port are the kernel's, not the port's
    found_wait = found[("sem.wait.block", "acquire")]["path"]
    assert_split(found_wait, ON_THE_WAIT_PATH, {"rtb_port_sem_wait"})
    found_signal = found[("sem.signal.unblock", "release")]["path"]
    assert_split(found_signal, ON_THE_SIGNAL_PATH, {"rtb_port_sem_signal"})


def test_a_small_message_travels_inside_the_pointer(both: Path) -> None:
    """A 4-byte message is one OSQPost and one OSQPend, as a uC/OS-III user passes
    it: no OSMem slot, no copy, no critical section but the kernel's own; the
    port's wrappers stay short on both RTOSes, and the facts say which sizes the
    uC/OS-III port copies."""
    data = read_results(both / "qemu-ucos3-mps2-an385")
    found = result_records(data)
    for (scenario, metric), kernel_call, most in zip(
        (("mq.send.no_waiter", "send"), ("mq.receive.available", "receive")),
        ("OSQPost", "OSQPend"),
        MQ_WRAPPERS_MAX["ucos3"],
        strict=True,
    ):
        record = found[(scenario, metric)]
        assert record["params"]["bytes"] == 4, record["params"]
        typical = record["path"]["typical"]
        ran = set(typical["sequence"])
        assert kernel_call in ran, typical["sequence"]
        assert not ran & {"OSMemGet", "OSMemPut", "memcpy"}, typical["sequence"]
        assert typical["calls"]["CPU_SR_Save"] == 1, typical["calls"]
        assert 0 < sum(typical["port_wrappers"].values()) <= most, typical["port_wrappers"]
    note = data["host"]["ucos3"]["notes"]["mq"]
    assert "up to 4 bytes travels inside the pointer" in note and "copies" in note, note
    freertos = result_records(read_results(both / "qemu-freertos-mps2-an385"))
    for key, most in zip(
        (("mq.send.no_waiter", "send"), ("mq.receive.available", "receive")),
        MQ_WRAPPERS_MAX["freertos"],
        strict=True,
    ):
        wrappers = freertos[key]["path"]["typical"]["port_wrappers"]
        assert 0 < sum(wrappers.values()) <= most, wrappers


def test_the_comparison_sets_the_paths_and_the_services_side_by_side(both: Path) -> None:
    md = (both / "comparison" / "comparison.md").read_text()
    assert "## Services of each system" in md
    assert (
        "| priority ceiling | none: FreeRTOS has no priority ceiling protocol | none: uC/OS-III"
        in md
    )
    assert "| round-robin among equal priorities | native: time slicing for the whole kernel" in md
    assert "| message queues (messages copied) | native: xQueueSend" in md
    assert "native: OSQ: a message of up to 4 bytes travels inside the pointer" in md
    # sem.wait.block's waiters share 29 priority levels on FreeRTOS and 40 on uC/OS-III
    assert "B measured it with priority_levels=40, A with priority_levels=29" in md
    assert "Code paths side by side, typical samples (exact instruction counts):" in md
    blocks = md.split("### SEM-P-ARC `sem.wait.block acquire")[1].split("###")[0]
    assert "| A function | instructions | entries | B function | instructions | entries |" in blocks
    assert "vPortEnterCritical" in blocks and "CPU_SR_Save" in blocks and "OS_Pend" in blocks
    assert "Path difference of B" not in md  # two kernels: side by side, not a difference
    # the kernel's share next to the total, the port's and its wrappers beside it
    for row in ("kernel's instructions", "port's instructions", "measurement's instructions"):
        assert f"| {row} | " in blocks, row
    assert "| port wrappers | rtb_port_sem_wait " in blocks
    assert "| measurement vs subtracted overhead | measurement: " in blocks
    a, b = (str(both / f"qemu-{os}-mps2-an385") for os in ("freertos", "ucos3"))
    text = cli("compare", a, b, cwd=both.parent)
    assert text.returncode == 0, text.stderr
    assert "instructions (kernel " in text.stdout
    page = (both / "comparison" / "comparison.html").read_text()
    assert "Services of each system" in page and "Code paths side by side" in page


def test_the_measurement_inside_a_sample_is_the_subtracted_overhead(both: Path) -> None:
    """On both boards, the code of rtbench's own inside every traced sample of the
    timed-call families is the overhead subtracted from it, within one
    instruction (the samples used to hold 4 to 9 instructions more)."""
    expected = {"sem.wait.block", "sem.signal.unblock", *TRACED_FAMILIES}
    expected |= {"sem.signal.no_waiter", "mut.unlock.uncontended", "mq.receive.available"}
    expected.add("mem.free")
    for board in ("qemu-freertos-mps2-an385", "qemu-ucos3-mps2-an385"):
        assert_all_tight(read_results(both / board), expected)
        assert_own_overheads(read_results(both / board))
