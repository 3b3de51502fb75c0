# SPDX-License-Identifier: Apache-2.0
"""`rtbench run --trace` on the FreeRTOS image: the code path of sem.wait.block.

Two traced runs in deterministic mode and one untraced: the typical path of a
blocking take holds the FreeRTOS functions it must go through, its critical
sections are balanced and counted the same in both runs, the counted
instructions agree with the sample's own value (the clock follows
instructions), and tracing leaves the deterministic figures unchanged.

Skipped like the other FreeRTOS tests when the kernel, the toolchain or QEMU
are missing."""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path
from typing import Any

import pytest

from board_runs import assert_split
from conftest import cli
from rtbench.model import records
from rtbench.model.results import RESULTS_FILE
from rtbench.targets.firmware import target as fw_target
from rtbench.targets.firmware.rtoses import FREERTOS

SPEC = "qemu:freertos-mps2-an385"
WHY_NOT = fw_target.ready(FREERTOS)
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=f"{WHY_NOT}")
# what a take that blocks must run through in FreeRTOS: the take, the event
# list it waits on, critical sections and the context switch
ON_THE_WAIT_PATH = {
    "xQueueSemaphoreTake",
    "vTaskPlaceOnEventList",
    "vPortEnterCritical",
    "vPortExitCritical",
    "xPortPendSVHandler",
}


def _run(out: Path, *extra: str) -> tuple[dict[str, Any], str]:
    done = cli(
        "run", "--target", SPEC, "--deterministic", *extra, "--only", "sem.wait.block",
        "--out", str(out), cwd=out.parent, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads((out / RESULTS_FILE).read_text())
    records.validate(data, "results")
    assert isinstance(data, dict)
    data["_dir"] = str(out)  # where it is stored, for the tests that read it again
    return data, done.stdout


def _results(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        str(r["metric"]): r
        for s in data["scenarios"]
        for r in s["records"]
        if r.get("type") == "result" and str(r.get("scenario", "")).startswith("sem.")
    }


def _stats(data: dict[str, Any]) -> dict[str, Any]:
    return {
        m: {k: v for k, v in r["stats"].items() if not k.endswith("_at_ticks")}
        for m, r in _results(data).items()
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    base = tmp_path_factory.mktemp("path")
    return [_run(base / "t1", "--trace"), _run(base / "t2", "--trace"), _run(base / "plain")]


def test_the_wait_path_names_the_kernel_functions(runs: list[Any]) -> None:
    (data, stdout), _, _ = runs
    acquire = _results(data)["acquire"]["path"]
    typical = acquire["typical"]
    assert acquire["found"] == acquire["kept"] > 0
    assert set(typical["sequence"]) >= ON_THE_WAIT_PATH, typical["sequence"]
    calls = typical["calls"]
    assert calls["vPortEnterCritical"] == calls["vPortExitCritical"] >= 2
    assert "xPortPendSVHandler" in typical["handlers"]
    assert "Code path of the kept samples" in stdout
    assert f"vPortEnterCritical x{calls['vPortEnterCritical']}" in stdout
    # the log is deleted once read; what was found stays
    trace_dir = data["run"]["conditions"]["path_trace"]["units"]["sem.wait.block"]["file"]
    assert trace_dir.startswith("trace/")


def test_the_path_is_split_into_the_kernels_the_ports_and_the_measurements(
    runs: list[Any],
) -> None:
    (data, stdout), (second, _), _ = runs
    found = _results(data)
    assert_split(found["acquire"]["path"], ON_THE_WAIT_PATH, {"rtb_port_sem_wait"})
    signal = {"xQueueGenericSend", "vPortEnterCritical", "vPortExitCritical"}
    assert_split(found["release"]["path"], signal, {"rtb_port_sem_signal"})
    shares = found["acquire"]["path"]["typical"]["shares"]
    assert _results(second)["acquire"]["path"]["typical"]["shares"] == shares
    # the summary's typical line gives the split (wrapped to the terminal's width)
    assert f"kernel {shares['kernel']:,}, port {shares['port']:,}" in " ".join(stdout.split())
    table = data["run"]["conditions"]["path_trace"]["attribution"]["functions"]
    assert table["xQueueSemaphoreTake"] == {
        "share": "kernel",
        "source": str(Path(os.environ["FREERTOS_KERNEL_PATH"]).resolve() / "queue.c"),
    }
    assert table["rtb_port_sem_wait"] == {"share": "port", "source": "ports/freertos/sync.c"}
    details = cli("show", data["_dir"], "--details", cwd=Path(data["_dir"]).parent)
    assert "whose code (typical): kernel" in details.stdout
    assert "subtracted overhead: " in details.stdout and "port wrappers: rtb_port_sem_wait" in (
        details.stdout
    )


def test_the_path_is_the_same_in_two_runs(runs: list[Any]) -> None:
    (first, _), (second, _), _ = runs
    a, b = _results(first), _results(second)
    for metric in ("acquire", "release"):
        pa, pb = a[metric]["path"]["typical"], b[metric]["path"]["typical"]
        assert pa["calls"] == pb["calls"], metric
        assert pa["instructions"] == pb["instructions"], metric


def test_counted_instructions_agree_with_the_samples_values(runs: list[Any]) -> None:
    (data, _), _, _ = runs
    hz = float(data["host"]["counter"]["hz"])
    for metric, record in _results(data).items():
        path = record["path"]
        ns_per_insn = float(path["ns_per_instruction"])
        for sample in (path["typical"], path["worst"]):
            ticks = float(sample["value"]) + float(record.get("overhead_ticks", 0))
            implied = ticks * 1e9 / hz / ns_per_insn
            # each reading is within one counter tick (1.25 instructions here)
            assert abs(implied - sample["instructions"]) <= 3, (metric, sample["kind"], implied)


def test_signalling_takes_fewer_critical_sections_than_blocking(runs: list[Any]) -> None:
    (data, _), _, _ = runs
    found = _results(data)
    wait, signal = found["acquire"]["path"]["typical"], found["release"]["path"]["typical"]
    assert signal["calls"]["vPortEnterCritical"] < wait["calls"]["vPortEnterCritical"]
    assert signal["instructions"] < wait["instructions"]


def test_tracing_leaves_deterministic_figures_unchanged(runs: list[Any]) -> None:
    (traced, _), _, (plain, _) = runs
    assert _stats(traced) == _stats(plain)
    assert "path_trace" not in (plain["run"].get("conditions") or {})


def test_code_paths_export_for_perfetto_and_not_as_ctf(runs: list[Any], tmp_path: Path) -> None:
    (data, _), _, _ = runs
    out = Path(data["_dir"])
    ctf = cli("trace", "export", str(out), "--format", "ctf", cwd=tmp_path)
    assert ctf.returncode == 2
    assert "code paths of an emulated board" in ctf.stderr and "Traceback" not in ctf.stderr
    done = cli("trace", "export", str(out), "--format", "perfetto", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    exported = json.loads(Path(done.stdout.strip()).read_text())
    assert "one instruction" in exported["otherData"]["time_axis"]
    events = exported["traceEvents"]
    tracks = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["name"] == "thread_name"}
    typical = _results(data)["acquire"]["path"]["typical"]
    label = next(
        k
        for k, v in tracks.items()
        if v.startswith("sem.wait.block acquire")
        and f" {typical['kind']} #{typical['rank']} ({typical['value']}:" in v
    )
    slices = [e for e in events if e["ph"] == "X" and (e["pid"], e["tid"]) == label]
    # back to back, and as long as the sample's instructions
    assert sum(e["dur"] for e in slices) == typical["instructions"]
    assert all(a["ts"] + a["dur"] == b["ts"] for a, b in itertools.pairwise(slices))
    assert {"vPortEnterCritical", "xQueueSemaphoreTake"} <= {e["name"] for e in slices}
