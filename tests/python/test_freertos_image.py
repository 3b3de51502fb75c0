# SPDX-License-Identifier: Apache-2.0
"""The FreeRTOS image on QEMU's mps2-an385, driven over its serial line.

The image is built from ports/freertos with the kernel of FREERTOS_KERNEL_PATH
and booted in qemu-system-arm; tests/python/freertos_image.py speaks the line
protocol (docs/targets.md) to it. Checked here: the ready line and the facts
file, the catalog (IPC unsupported), every record valid against the schema,
SEM-B-REL and MUT-B-ARC passing with their negative controls caught and the
priority ceiling unsupported with its reason, several runs in one boot, a
second run refused while one runs, `term` ending a run early, identical
figures from two boots under QEMU's -icount, an image built with a
configuration that defines no configASSERT (as production builds do), and a
kernel edited after a build: rebuilt, said modified, and measured slower.
The scheduling policies follow the configuration built: with time slicing
(the production configuration) THR-B-RR and THR-B-NEW's round-robin checks
pass with their controls and the FIFO checks are unsupported, naming
configUSE_TIME_SLICING; without it, the reverse. The image reports its
configuration in the meta record.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import freertos_image as frt
from rtbench.model.records import check_record
from rtbench.targets.firmware import image as fw_image
from rtbench.targets.firmware.rtoses import FREERTOS

WHY = frt.missing()
pytestmark = [
    pytest.mark.skipif(WHY is not None, reason=f"FreeRTOS image not buildable here: {WHY}"),
    pytest.mark.slow,
]

ICOUNT_SHIFT = 5  # 32 ns of virtual time per instruction: about a 31 MHz core


@pytest.fixture(scope="module")
def elf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return frt.build(tmp_path_factory.mktemp("frt-build"))


@pytest.fixture
def board(elf: Path) -> Iterator[frt.Image]:
    img = frt.Image(elf)
    try:
        yield img
    finally:
        img.close()


@pytest.fixture(scope="module")
def elf_no_slicing(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The production configuration with configUSE_TIME_SLICING 0."""
    config = tmp_path_factory.mktemp("frt-noslice-config")
    production = frt.ROOT / "ports" / "freertos" / "config" / "FreeRTOSConfig.h"
    (config / "FreeRTOSConfig.h").write_text(
        f'#include "{production}"\n'
        "#undef configUSE_TIME_SLICING\n#define configUSE_TIME_SLICING 0\n"
    )
    return frt.build(tmp_path_factory.mktemp("frt-noslice-build"), config)


def run_one(img: frt.Image, name: str, *extra: str) -> frt.RunResult:
    args = ["run", "--profile", "quick", "--scenario", name, "--cpu", "0", *extra]
    res = img.run(args, 180.0)
    assert not res.lost, f"{name}: {res.lost}"
    assert res.status == 0, f"{name}: exit {res.status}, {res.errors}"
    for record in res.records:
        check_record(record)
    return res


def verdict(res: frt.RunResult, check: str) -> dict[str, Any]:
    found = [v for v in res.of_type("verdict") if v.get("check") == check]
    assert len(found) == 1, f"no single verdict {check}: {res.of_type('verdict')}"
    return found[0]


def test_ready_facts_and_catalog(board: frt.Image) -> None:
    assert board.ready == "#rtb ready 1 FreeRTOS%20V11.1.0 mps2-an385"
    assert board.request("#rtb hello") == [board.ready]
    lines = board.request("#rtb read /rtbench/freertos.json")
    assert lines[-1] == "#rtb done"
    facts = json.loads("".join(frt._decode(x[len("#rtb data ") :]) for x in lines[:-1]))
    assert facts["kernel"] == "V11.1.0" and facts["port"] == "GCC/ARM_CM3"
    assert facts["heap"]["scheme"] == "heap_4" and facts["heap"]["total_bytes"] > 0
    assert facts["config"]["configUSE_PREEMPTION"] == 1
    assert board.request("#rtb read /etc/passwd")[-1].startswith("#rtb fail 38 ")
    assert board.request("#rtb exec 1000 ls")[-1].startswith("#rtb fail 38 ")

    res = board.run(["list", "--cpu", "0"], 60.0)
    assert res.status == 0
    for record in res.records:
        check_record(record)
    meta = res.of_type("meta")[0]
    assert meta["os"] == "FreeRTOS" and meta["build"]["arch"] == "armv7-m"
    entries = {c["scenario"]: c for c in res.of_type("catalog")}
    assert entries["sem.wait.block"]["supported"] is True
    assert entries["irq.latency"]["supported"] is True
    ipc = [n for n in entries if n.startswith("ipc.") and n != "ipc.pi.stress"]
    assert ipc and all(entries[n]["supported"] is False for n in ipc)


def test_behaviour_verdicts_with_controls(board: frt.Image) -> None:
    rel = verdict(run_one(board, "sem.behavior.release_order"), "release_order")
    assert rel["outcome"] == "pass", rel
    assert rel["control"]["outcome"] == "caught", rel

    mut = run_one(board, "mut.behavior.pi")
    pi = verdict(mut, "priority_inheritance")
    assert pi["outcome"] == "pass", pi
    assert pi["control"]["outcome"] == "caught", pi
    ceiling = verdict(mut, "priority_ceiling")
    assert ceiling["outcome"] == "unsupported"
    assert "ceiling" in ceiling["reason"], ceiling

    # the same boot keeps answering: a POSIX-only scenario is unsupported
    ipc = run_one(board, "ipc.signal.roundtrip")
    assert ipc.end_status("ipc.signal.roundtrip") == "unsupported"


def _settings(res: frt.RunResult) -> dict[str, str]:
    config = res.of_type("meta")[0]["os_config"]
    return {str(s["name"]): str(s["value"]) for s in config["settings"]}


NEW_CHECKS = ("lower_waits", "equal_to_tail", "equal_after_yield", "higher_preempts")


def test_round_robin_follows_time_slicing_on(elf: Path) -> None:
    img = frt.Image(elf, ICOUNT_SHIFT)  # deterministic: a slice is 1 ms of instructions
    try:
        new = run_one(img, "thr.create.behavior")
        rr = run_one(img, "thr.rr.behavior")
        forced = run_one(img, "thr.rr.behavior", "--set", "thr.rr.behavior.policy=fifo")
    finally:
        img.close()
    meta = new.of_type("meta")[0]
    assert meta["os_config"]["name"] == "production"
    settings = _settings(new)
    assert settings["time slicing"] == "on" and settings["preemption"] == "on"
    assert settings["asserts"] == "off" and settings["stack check"] == "off"
    assert settings["tick"] == "1000 Hz"
    assert "policy_rr" in meta["caps"]
    for check in NEW_CHECKS:
        v = verdict(new, f"rr.{check}")
        assert (v["outcome"], v["control"]["outcome"]) == ("pass", "caught"), v
        fifo = verdict(new, f"fifo.{check}")
        assert fifo["outcome"] == "unsupported", fifo
        assert "configUSE_TIME_SLICING is 1 in this image's FreeRTOSConfig.h" in fifo["reason"]
    # the busy work fits in the one-tick slice
    assert any("time slice is 1.000 ms" in e for e in verdict(new, "rr.equal_to_tail")["evidence"])
    fair = verdict(rr, "fairness")
    assert (fair["outcome"], fair["control"]["outcome"]) == ("pass", "caught"), fair
    assert any("OS time slice: 1.000 ms" in e for e in fair["evidence"]), fair
    unfair = verdict(forced, "fairness")  # the platform made to starve: must fail
    assert unfair["outcome"] == "fail" and "never got a time slice" in unfair["reason"], unfair


def test_the_yield_ring_keeps_only_real_switches_under_time_slicing(elf: Path) -> None:
    """With time slicing the tick can stop a ring thread between its marks and
    its yield, or between its t1 and its reads: such a sample is no switch
    (before, one paired times from two rounds and wrapped below zero into a
    maximum of 2^64 ticks); it must be counted invalid and said."""
    img = frt.Image(elf, ICOUNT_SHIFT)
    try:
        res = run_one(img, "thr.switch.yield", "--set", "threads=5")
    finally:
        img.close()
    (result,) = res.of_type("result")
    stats = result["stats"]
    hz = res.of_type("meta")[0]["counter"]["hz"]
    assert stats["count"] > 0 and stats["max"] < hz / 1000, stats  # under 1 ms
    assert stats["mean"] < 2 * stats["p50"], stats
    logs = [r["message"] for r in res.of_type("log")]
    assert any("a time slice ended inside one (counted invalid)" in m for m in logs), logs


def test_round_robin_is_unsupported_without_time_slicing_and_says_why(
    elf_no_slicing: Path,
) -> None:
    img = frt.Image(elf_no_slicing, ICOUNT_SHIFT)
    try:
        new = run_one(img, "thr.create.behavior")
        rr = run_one(img, "thr.rr.behavior")
    finally:
        img.close()
    assert _settings(new)["time slicing"] == "off"
    assert "policy_rr" not in new.of_type("meta")[0]["caps"]
    why = "configUSE_TIME_SLICING is 0 in this image's FreeRTOSConfig.h"
    for check in NEW_CHECKS:
        v = verdict(new, f"fifo.{check}")
        assert (v["outcome"], v["control"]["outcome"]) == ("pass", "caught"), v
        unsupported = verdict(new, f"rr.{check}")
        assert unsupported["outcome"] == "unsupported" and why in unsupported["reason"]
    assert rr.end_status("thr.rr.behavior") == "unsupported"
    (end,) = [r for r in rr.of_type("end") if r.get("scenario") == "thr.rr.behavior"]
    assert why in end["reason"], end


def test_busy_and_term(board: frt.Image) -> None:
    board.send("#rtb run run --profile quick --scenario os.noise --cpu 0 --set duration_ms=60000")
    time.sleep(2.0)
    board.send("#rtb run list --cpu 0")
    board.send("#rtb term")
    records, fail = [], []
    started = time.monotonic()
    while True:
        line = board.read_line(60.0)
        if line.startswith("#rtb fail 16 "):
            fail.append(line)
        elif line.startswith("{"):
            records.append(json.loads(line))
        elif line.startswith("#rtb exit "):
            break
    assert fail, "a second run during a run was not refused"
    assert time.monotonic() - started < 30.0, "term did not end the run early"
    ends = [r for r in records if r["type"] == "end" and r.get("scope") == "scenario"]
    assert ends and ends[0]["scenario"] == "os.noise"


LATENCY = [
    "sem.wait.block",
    "mut.lock.block",
    "mq.send.unblock",
    "evt.set.unblock",
    "sched.preempt.switch",
    "irq.latency",
    "irq.to_thread",
]


def figures(res: frt.RunResult) -> list[tuple[Any, ...]]:
    out = []
    for r in res.of_type("result"):
        stats = r.get("stats", {})
        out.append((r.get("metric"), tuple(sorted((k, str(v)) for k, v in stats.items()))))
    return out


def test_deterministic_figures(elf: Path) -> None:
    # The production configuration, time slicing on: two boots give the same
    # figures (each run starts where the tick's handler wakes the runner).
    runs = []
    for _ in range(2):
        img = frt.Image(elf, ICOUNT_SHIFT)
        try:
            runs.append({n: figures(run_one(img, n)) for n in LATENCY})
        finally:
            img.close()
    for name in LATENCY:
        assert runs[0][name], f"{name}: no result"
        assert runs[0][name] == runs[1][name], f"{name} differs between two -icount boots"


def test_a_configuration_without_configassert_builds_and_boots(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    # rtbench's production configuration defines no configASSERT, as a product's
    # does: the image must start its tasks all the same (nothing inside an assert)
    header = (frt.ROOT / "ports" / "freertos" / "config" / "FreeRTOSConfig.h").read_text()
    without = re.sub(r"#define configASSERT\(x\)(?:.*\\\n)*.*\n", "", header)
    assert "define configASSERT" not in without
    (config / "FreeRTOSConfig.h").write_text(without)
    img = frt.Image(frt.build(tmp_path / "build", config), ICOUNT_SHIFT)
    try:
        assert img.ready == "#rtb ready 1 FreeRTOS%20V11.1.0 mps2-an385"
        res = run_one(img, "sem.wait.available")
        assert res.end_status("sem.wait.available") == "ok"
        assert any(r.get("metric") == "wait" for r in res.of_type("result"))
    finally:
        img.close()


# A few hundred instructions more on the path of a semaphore take.
_SPIN = (
    "traceENTER_xQueueSemaphoreTake( xQueue, xTicksToWait );\n"
    "    { volatile uint32_t ulSpin; for( ulSpin = 0; ulSpin < 100; ulSpin++ ) { } }\n"
)


def _wait_median(elf: Path) -> int:
    img = frt.Image(elf, ICOUNT_SHIFT)
    try:
        res = run_one(img, "sem.wait.available")
    finally:
        img.close()
    (wait,) = [r for r in res.of_type("result") if r.get("metric") == "wait"]
    return int(wait["stats"]["p50"])


def test_an_edited_kernel_is_rebuilt_said_modified_and_measured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kernel = tmp_path / "FreeRTOS-Kernel"
    shutil.copytree(os.environ[FREERTOS.source_env], kernel)
    for path in [kernel, *kernel.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)
    monkeypatch.setenv(FREERTOS.source_env, str(kernel))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for name in (FREERTOS.image_env, FREERTOS.config_env):
        monkeypatch.delenv(name, raising=False)

    said: list[str] = []
    first = fw_image.ensure_image(frt.ROOT, FREERTOS, frt.BOARD, said.append)
    assert first.sources is not None and first.sources.modified is False
    before = first.path.read_bytes()
    fast = _wait_median(first.path)

    queue = kernel / "queue.c"
    st = queue.stat()
    text = queue.read_text()
    assert text.count(_SPIN.splitlines()[0]) == 1
    queue.write_text(text.replace(_SPIN.splitlines()[0] + "\n", _SPIN))
    # with its old time, as a copy that keeps times makes it: make would miss it
    os.utime(queue, ns=(st.st_atime_ns, st.st_mtime_ns))
    second = fw_image.ensure_image(frt.ROOT, FREERTOS, frt.BOARD, said.append)
    assert len(said) == 2, said  # built again
    assert second.path == first.path and second.path.read_bytes() != before
    assert second.sources is not None and second.sources.modified is True
    assert second.sources.digest != first.sources.digest
    slow = _wait_median(second.path)
    assert slow > fast + 100, (fast, slow)
