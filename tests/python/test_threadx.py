# SPDX-License-Identifier: Apache-2.0
"""The real ThreadX image under QEMU, through `rtbench run --target
qemu:threadx-mps2-an385`: deterministic mode giving the same figures twice (the
second run with the host's timing made ragged on purpose), a path trace naming
ThreadX's own functions, and the behaviour verdicts that tell ThreadX apart
(semaphore waiters released in arrival order unless the image is built with
sem_prioritize=on; inheriting mutexes).

Skipped, with the sentence `rtbench targets` gives, when THREADX_PATH, the
ARM toolchain, picolibc or qemu-system-arm are missing. Each run is a few
scenarios of the quick profile; the first builds the image (about a minute,
cached in build/ after), the prioritize variant a second one."""

from __future__ import annotations

import json
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
from conftest import RunCli, read_results
from rtbench.targets.firmware import target as fw_target
from rtbench.targets.firmware.rtoses import THREADX
from traced import FEW_AMORTISED

SPEC = "qemu:threadx-mps2-an385"
WHY_NOT = fw_target.ready(THREADX)
pytestmark = [pytest.mark.slow, pytest.mark.skipif(WHY_NOT is not None, reason=f"{WHY_NOT}")]
# the latency scenarios of the determinism check, with the calibration before them
# (mq.send.unblock: a few of its tick-landing samples once differed between boots)
LATENCY = ("sem.wait.block", "sem.wait.available", "mut.lock.block", "mq.send.unblock")


def test_deterministic_runs_give_identical_figures(run_cli: RunCli, tmp_path: Path) -> None:
    runs = run_twice(
        run_cli, tmp_path, "run", "--target", SPEC, "--deterministic", "--only", *LATENCY,
        "clk.tick.config", timeout=900,
    )  # fmt: skip
    assert [data["host"]["kernel"]["system"] for data in runs] == ["ThreadX", "ThreadX"]
    first, second = (figures(data, by_params=True) for data in runs)
    assert {name for name, _, _ in first} >= set(LATENCY)  # every scenario gave figures
    assert all(stats.get("count", 0) > 0 for stats in first.values())
    assert_same_figures(first, second)
    # CLK-B-CFG, run with them, is sure of the tick under -icount, control caught
    tick = verdict(runs[0], "clk.tick.config", "tick_config")
    assert (tick["outcome"], tick["control"]["outcome"]) == ("pass", "caught"), tick


def test_trace_names_threadx_functions_on_the_path(run_cli: RunCli, tmp_path: Path) -> None:
    out = tmp_path / "t"
    done = run_ok(
        run_cli, out, "run", "--target", SPEC, "--deterministic", "--trace", "--only",
        "sem.wait.block", "sem.wait.available", "mut.lock.uncontended", "mq.send.no_waiter",
        "evt.set.no_waiter", "--set", "iterations=300", *FEW_AMORTISED, timeout=900,
    )  # fmt: skip
    # numbered in run order (sem.wait.available runs before it)
    (paths_file,) = (out / "trace").glob("*-sem.wait.block.paths.json")
    paths = json.loads(paths_file.read_text())
    seen: dict[str, set[str]] = {}
    for metric in paths["metrics"]:
        for sample in metric["samples"]:
            if sample.get("found") and sample["kind"] == "median":
                seen.setdefault(metric["metric"], set()).update(sample["calls"])
    # the waiter blocks in ThreadX's get and is suspended by the kernel; the
    # releaser's put resumes it: the functions of ThreadX's common/src
    assert {"_tx_semaphore_get", "_tx_thread_system_suspend"} <= seen["acquire"], seen
    assert {"_tx_semaphore_put", "_tx_thread_system_resume"} <= seen["release"], seen
    assert "_tx_semaphore_get" in done.stdout
    # ThreadX's common sources and its Cortex-M3 assembly are the kernel's;
    # rtbench's tx_board.c and lowlevel.c would be the port's
    found = result_records(read_results(out))
    assert_split(
        found[("sem.wait.block", "acquire")]["path"],
        {"_tx_semaphore_get", "_tx_thread_system_suspend"},
        {"rtb_port_sem_wait"},
    )
    assert_split(
        found[("sem.signal.unblock", "release")]["path"],
        {"_tx_semaphore_put", "_tx_thread_system_resume"},
        {"rtb_port_sem_signal"},
    )
    # rtbench's own code inside each timed call's sample is what is subtracted
    assert_all_tight(
        read_results(out),
        {"sem.wait.block", "sem.signal.unblock", "sem.wait.available", "sem.signal.no_waiter",
         "mut.lock.uncontended", "mut.unlock.uncontended", "mq.send.no_waiter",
         "mq.receive.available", "evt.set.no_waiter", "evt.wait.available"},
    )  # fmt: skip
    # and each sample subtracts the overhead of its own timestamp code
    assert_own_overheads(read_results(out))


def test_semaphore_release_is_fifo_unless_prioritized(run_cli: RunCli, tmp_path: Path) -> None:
    plain, prioritized = tmp_path / "fifo", tmp_path / "prio"
    run_ok(
        run_cli, plain, "run", "--target", SPEC, "--only", "sem.behavior.release_order",
        "mut.behavior.pi", timeout=900,
    )  # fmt: skip
    data = read_results(plain)
    release = verdict(data, "sem.behavior.release_order", "release_order")
    assert release["outcome"] == "fail", release
    assert "FIFO" in release["reason"] and "order they blocked" in release["reason"], release
    assert release["control"]["outcome"] == "caught"
    inherit = verdict(data, "mut.behavior.pi", "priority_inheritance")
    assert inherit["outcome"] == "pass", inherit
    assert inherit["control"]["outcome"] == "caught", inherit  # TX_NO_INHERIT showed the inversion

    run_ok(
        run_cli, prioritized, "run", "--target", f"{SPEC},sem_prioritize=on", "--only",
        "sem.behavior.release_order", timeout=900,
    )  # fmt: skip
    release = verdict(read_results(prioritized), "sem.behavior.release_order", "release_order")
    assert release["outcome"] == "pass", release
    assert release["control"]["outcome"] == "caught", release


def test_sustained_interrupt_search_ends_under_deterministic(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """irq.sustained from 2,831 ns, the period at which a phase once held the CPU
    for good under -icount (the storm check missed every expiry that fell in the
    handler's first instructions); halving from there goes below the handler's
    own path, where only the storm check gives the CPU back to the controller.
    The deadline is scaled down so that a phase that never ends fails in seconds:
    the search needs well under one."""
    out = tmp_path / "sus"
    done = run_cli(
        "run", "--target", SPEC, "--deterministic", "--only", "irq.sustained",
        "--set", "irq.sustained.start_period_ns=2831", "--out", str(out),
        env={"RTBENCH_DEADLINE_SCALE": "0.25"}, timeout=900,
    )  # fmt: skip
    data = read_results(out)
    unit = next(s for s in data["scenarios"] if s["name"] == "irq.sustained")
    assert unit["status"] == "ok", (unit["status"], unit["reason"], done.stdout[-2000:])
    records = [r for r in unit["records"] if r.get("scenario") == "irq.sustained"]
    phases = next(r for r in records if r.get("type") == "table" and r["name"] == "phases")
    names = [c["name"] for c in phases["columns"]]
    rows = [dict(zip(names, row, strict=True)) for row in phases["rows"]]
    assert rows[0]["period"] == 2831, rows
    # a phase the storm check ended: shorter than the handler's path, interrupts
    # lost, yet it ended and the search went on
    stormed = [r for r in rows if r["lost"] > 0 and r["period"] < 2831]
    assert stormed and rows.index(stormed[0]) < len(rows) - 1, rows
    assert all(r["generated"] >= r["phase"] for r in rows), rows
    result = [r for r in records if r.get("type") == "result" and r["metric"] == "min_period"]
    assert len(result) == 1 and result[0]["params"]["bound"] == "found", result
