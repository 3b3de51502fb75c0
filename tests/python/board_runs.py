# SPDX-License-Identifier: Apache-2.0
"""What the tests of RTOS images on the emulated board (`rtbench run --target
qemu:RTOS-mps2-an385`) share: a run that must end well, every metric's figures, a
scenario's verdicts, and two runs whose figures must be the same."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from conftest import RunCli, read_results


def run_ok(
    run: RunCli, out: Path, *args: str, timeout: float, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`rtbench ARGS --out OUT` through `run` (the run_cli fixture, or conftest.cli
    bound to a folder), which must end well."""
    done = run(*args, "--out", str(out), timeout=timeout, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done


# The host's timing made ragged on purpose (targets.guest.link's test hook): each
# command sent after a random 0..50 ms, the reader held back as long.
JITTER = {"RTBENCH_SERIAL_JITTER_MS": "50"}


def run_twice(run: RunCli, folder: Path, *args: str, timeout: float) -> list[dict[str, Any]]:
    """The results of `rtbench ARGS`, run twice (in folder/d1, then folder/d2), the
    second with the host's timing made ragged (JITTER): a deterministic board's
    figures must not follow it."""
    found = []
    for n, env in ((1, None), (2, JITTER)):
        out = folder / f"d{n}"
        run_ok(run, out, *args, timeout=timeout, env=env)
        found.append(read_results(out))
    return found


def result_records(data: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """Every result record of a run, by its scenario and metric."""
    return {
        (str(r["scenario"]), str(r["metric"])): r
        for s in data["scenarios"]
        for r in s["records"]
        if r.get("type") == "result"
    }


def figures(data: dict[str, Any], by_params: bool = False) -> dict[tuple[str, ...], dict[str, Any]]:
    """Every metric's statistics, without when (in counter ticks since boot) its
    maximum happened: a moment, not a figure. By scenario and metric, and with
    by_params by the parameters too (one metric measured with several settings)."""
    found: dict[tuple[str, ...], dict[str, Any]] = {}
    for record in (r for s in data["scenarios"] for r in s["records"]):
        if record.get("type") != "result" or not record.get("stats"):
            continue
        key: tuple[str, ...] = (str(record["scenario"]), str(record["metric"]))
        if by_params:
            key += (str(record.get("params")),)
        found[key] = {k: v for k, v in record["stats"].items() if not k.endswith("_at_ticks")}
    return found


def assert_same_figures(first: dict[Any, Any], second: dict[Any, Any]) -> None:
    """Every figure of the first run is the second's."""
    differ = {k: (v, second.get(k)) for k, v in first.items() if second.get(k) != v}
    assert not differ, differ


def verdicts(data: dict[str, Any], scenario: str) -> list[dict[str, Any]]:
    """The verdicts of one scenario, in the order the run gave them."""
    return [
        r
        for s in data["scenarios"]
        for r in s["records"]
        if r.get("type") == "verdict" and r.get("scenario") == scenario
    ]


def verdict(data: dict[str, Any], scenario: str, check: str) -> dict[str, Any]:
    """The one verdict of `check` in a scenario."""
    found = [v for v in verdicts(data, scenario) if v["check"] == check]
    assert len(found) == 1, found
    return found[0]


def assert_split(path: dict[str, Any], kernel: set[str], wrappers: set[str]) -> None:
    """A traced metric's typical sample split by whose code ran (the image's linker
    map): the shares add up to its instructions with nothing unattributed, the
    named kernel functions are the kernel's and the named wrappers the port's,
    every function counted as a wrapper is the port's, the kernel's share holds at
    least its functions' instructions, and the measurement's share is set beside
    the subtracted overhead (1.25 instructions a tick of the 25 MHz counter at
    -icount shift=5)."""
    typical = path["typical"]
    shares, whose = typical["shares"], path["whose_code"]
    assert sum(shares.values()) == typical["instructions"], shares
    assert shares.get("unattributed", 0) == 0, (shares, whose)
    assert {f: whose.get(f) for f in kernel} == dict.fromkeys(kernel, "kernel"), whose
    assert set(typical["port_wrappers"]) >= wrappers, typical["port_wrappers"]
    assert {whose[f] for f in typical["port_wrappers"]} == {"port"}
    by_function = typical["instructions_by_function"]
    assert shares["kernel"] >= sum(n for f, n in by_function.items() if whose[f] == "kernel")
    assert shares["port"] >= sum(typical["port_wrappers"].values()) > 0
    over = path["overhead"]
    assert over["measurement_instructions"] == shares["measurement"] > 0
    assert over["instructions_per_tick"] == 1.25
    assert over["overhead_instructions"] == over["overhead_ticks"] * 1.25
    assert over["line"].startswith(f"measurement: {shares['measurement']} instructions, ")
    assert_tight(path)


# The scenarios whose samples are timed calls (core/include/rtb/sample.h): between
# the two reads only the call, so the measurement code inside a sample is what
# the calibration subtracts.
TIMED_CALLS = (
    "sem.create", "sem.delete.used", "sem.delete.unused", "sem.wait.available",
    "sem.signal.no_waiter", "sem.wait.block", "sem.signal.unblock", "mut.lock.uncontended",
    "mut.unlock.uncontended", "mq.send.no_waiter", "mq.receive.available",
    "evt.set.no_waiter", "evt.wait.available", "mem.alloc", "mem.free",
)  # fmt: skip


def assert_own_overheads(data: dict[str, Any]) -> None:
    """Every sample subtracts what its own timestamp code costs: the timed-call
    families (TIMED_CALLS) and cal.timestamp's `timestamp` the timed-call overhead
    of their run's meta, every other metric in ticks the inline one; the run's
    calibration holds both, cal.timestamp's two minima."""
    cal = data["calibration"]
    found = result_records(data)
    assert cal["overhead_ticks"] == found[("cal.timestamp", "timestamp")]["stats"]["min"]
    inline = found[("cal.timestamp", "timestamp_inline")]["stats"]["min"]
    assert cal["overhead_inline_ticks"] == inline, cal
    checked = 0
    for scenario in data["scenarios"]:
        meta = scenario.get("meta") or {}
        for r in scenario["records"]:
            if r.get("type") != "result" or r.get("unit") != "ticks":
                continue
            call = r["scenario"] in TIMED_CALLS or (r["scenario"], r["metric"]) == (
                "cal.timestamp",
                "timestamp",
            )
            want = (
                ("call", meta["overhead_ticks"])
                if call
                else ("inline", meta["overhead_inline_ticks"])
            )
            assert (r["overhead_shape"], r["overhead_ticks"]) == want, (r["scenario"], r["metric"])
            checked += 1
    assert checked > 1


def assert_tight(path: dict[str, Any]) -> None:
    """A traced sample's measurement share (the instructions neither the kernel's
    nor the port's) is the subtracted overhead within one instruction."""
    over = path["overhead"]
    assert over["subtracted"] and over["overhead_instructions"] is not None, over
    assert abs(float(over["difference"])) <= 1, over["line"]


# What the calling convention adds between the reads of a timed call, beyond the
# calibration's: evt_wait's fifth argument goes on the stack (a load from the
# timed call's own arguments and a store to the callee's).
ABI_EXTRA = {"evt.wait.available": 2}


def assert_all_tight(data: dict[str, Any], expected: set[str]) -> None:
    """Every traced metric of the `expected` scenarios (all of them timed calls)
    is tight (assert_tight, less what the ABI adds: ABI_EXTRA); fails naming the
    loose ones."""
    seen: dict[str, str] = {}
    loose: dict[str, str] = {}
    for (scenario, _), record in result_records(data).items():
        path = record.get("path") or {}
        if scenario not in TIMED_CALLS or not path.get("overhead"):
            continue
        seen[scenario] = path["overhead"]["line"]
        if abs(float(path["overhead"]["difference"]) - ABI_EXTRA.get(scenario, 0)) > 1:
            loose[scenario] = path["overhead"]["line"]
    assert set(seen) >= expected, seen
    assert not loose, loose
