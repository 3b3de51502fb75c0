# SPDX-License-Identifier: Apache-2.0
"""rtbench compare of two deterministic, traced runs of the emulated FreeRTOS board:
the kernel as it is, and a copy with a loop planted in xQueueSemaphoreTake.

The take of an available semaphore (sem.wait.available) must come out slower,
exactly, with the path difference naming xQueueSemaphoreTake, and
--fail-on-regression must exit 1; the signal of a semaphore (the release in
sem.signal.unblock) does not go through the take's entry, so its median and
typical path must not move. The two kernel copies live at different paths, so
their images are built apart.

Skipped like the other FreeRTOS tests when the kernel, the toolchain or QEMU
are missing; marked slow (two traced runs of a few minutes each)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import cli
from rtbench.commands import compare as command
from rtbench.targets.firmware import target as fw_target
from rtbench.targets.firmware.rtoses import FREERTOS
from traced import FEW_AMORTISED

WHY_NOT = fw_target.ready(FREERTOS)
KERNEL_ENV = FREERTOS.source_env
pytestmark = [pytest.mark.skipif(WHY_NOT is not None, reason=f"{WHY_NOT}"), pytest.mark.slow]
SPEC = "qemu:freertos-mps2-an385"
ENTRY = "    traceENTER_xQueueSemaphoreTake( xQueue, xTicksToWait );\n"
PLANTED = (
    "    for( volatile uint32_t ulPlanted = 0; ulPlanted < 100U; ulPlanted++ )\n    {\n    }\n"
)


def _kernel(to: Path, planted: bool) -> Path:
    shutil.copytree(os.environ[KERNEL_ENV], to, ignore=shutil.ignore_patterns(".git"))
    queue = to / "queue.c"
    source = queue.read_text()
    assert source.count(ENTRY) == 1, "the kernel's xQueueSemaphoreTake has changed"
    if planted:
        queue.write_text(source.replace(ENTRY, ENTRY + PLANTED))
    return to


def _run(kernel: Path, out: Path) -> None:
    done = cli(
        "run", "--target", SPEC, "--deterministic", "--trace",
        "--only", "sem.wait.available", "sem.signal.unblock",
        "--set", "iterations=300", *FEW_AMORTISED, "--out", str(out),
        cwd=out.parent, env={KERNEL_ENV: str(kernel)}, timeout=1800,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """Two runs of the kernel as it is, one of the planted kernel."""
    base = tmp_path_factory.mktemp("exact")
    as_is = _kernel(base / "kernel-as-is", planted=False)
    a, again, b = base / "a", base / "a-again", base / "b"
    _run(as_is, a)
    _run(as_is, again)
    _run(_kernel(base / "kernel-planted", planted=True), b)
    return a, again, b


def _csv_rows(out: Path) -> dict[str, dict[str, Any]]:
    import csv  # noqa: PLC0415

    rows = list(csv.DictReader((out / "comparison.csv").open()))
    return {f"{r['scenario']} {r['metric']}": r for r in rows if r["system"] == "B"}


def test_the_planted_loop_is_slower_exactly_with_its_function_named(
    runs: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    a, _again, b = runs
    out = tmp_path / "cmp"
    done = cli("compare", str(a), str(b), "--fail-on-regression", "--out", str(out), cwd=tmp_path)
    assert done.returncode == command.REGRESSION_STATUS, done.stdout + done.stderr
    text = " ".join(done.stdout.split())
    assert "ran deterministic on the same emulated board (mps2-an385" in text
    rows = _csv_rows(out)
    wait = rows["sem.wait.available wait"]
    assert wait["outcome"] == "worse" and wait["location"] == "exact"
    # 100 iterations of a volatile loop: several instructions each
    assert float(wait["median_change"]) > 100 * 32
    assert "xQueueSemaphoreTake +" in wait["path_difference"]
    assert "slower by exactly" in text and "xQueueSemaphoreTake +" in text
    release = rows["sem.signal.unblock release"]
    assert release["location"] == "exact" and float(release["median_change"]) == 0.0
    assert "xQueueSemaphoreTake" not in release["path_difference"].split("worst sample")[0]
    md = (out / "comparison.md").read_text()
    assert "| xQueueSemaphoreTake |" in md


def test_two_runs_of_one_kernel_are_identical(
    runs: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    a, again, _b = runs
    done = cli("compare", str(a), str(again), "--fail-on-regression", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads((a / "results.json").read_text())
    metrics = sum(1 for s in data["scenarios"] for r in s["records"] if r.get("type") == "result")
    assert f"B against A (exact, deterministic): {metrics} identical" in done.stdout
