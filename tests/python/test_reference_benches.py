# SPDX-License-Identifier: Apache-2.0
"""The reference benchmarks' scripts still build and run: bench/rtosbench (RTOSBench
with rtbench's porting layers) and bench/thread-metric --rtos (the original
Thread-Metric with rtbench's FreeRTOS and uC/OS-III porting layers), each on one
short case per RTOS, RTOSBench's or Thread-Metric's side only (no rtbench run).
Needs the RTOSes' sources (FREERTOS_KERNEL_PATH, UCOS3_PATH, THREADX_PATH for
Thread-Metric's tests, RTOSBENCH_PATH), arm-none-eabi-gcc with picolibc and
qemu-system-arm; skipped without them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from freertos_image import missing

ROOT = Path(__file__).resolve().parents[2]
SOURCES = {
    "FREERTOS_KERNEL_PATH": "tasks.c",
    "UCOS3_PATH": "uC-OS3/Source/os_core.c",
    "THREADX_PATH": "utility/benchmarks/thread_metric/tm_api.h",
    "RTOSBENCH_PATH": "include/porting_layer.h",
}


def _missing() -> str | None:
    for var, file in SOURCES.items():
        if not (Path(os.environ.get(var, "/nonexistent")) / file).is_file():
            return f"{var} does not name a checkout holding {file}"
    return missing()


pytestmark = pytest.mark.skipif(_missing() is not None, reason=str(_missing()))


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One build folder for the module: both scripts reuse its kernels."""
    return tmp_path_factory.mktemp("reference-benches")


def _bench(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def test_rtosbench_builds_and_reads_every_sample(tmp_path: Path, out: Path) -> None:
    done = _bench("rtosbench", "--rtos", "freertos", "ucos3", "--only", "sem_processing",
                  "--iterations", "40", "--no-rtbench", "--out", str(out),
                  "--json", str(tmp_path / "rb.json"))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads((tmp_path / "rb.json").read_text())
    for rtos in ("freertos", "ucos3"):
        fig = data["rtoses"][rtos]
        rows = {r["case"]: r for r in fig["rows"]}
        assert set(rows) == {"-- timestamp --", "--- Sem: Signal ---", "--- Sem: Wait ---"}
        assert all(r["samples"] == 40 for r in rows.values())
        ts = fig["timestamp_ticks"]
        # two back-to-back reads cost a few instructions; a semaphore call tens
        assert 1 <= ts <= 20
        for case in ("--- Sem: Signal ---", "--- Sem: Wait ---"):
            assert ts + 10 <= rows[case]["median_ticks"] <= 400, (rtos, case, rows[case])


def test_rtosbench_refuses_bad_input(tmp_path: Path) -> None:
    done = _bench("rtosbench", "--iterations", "0", "--out", str(tmp_path))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "--iterations" in done.stderr


@pytest.mark.parametrize("rtos", ["freertos", "ucos3"])
def test_thread_metric_runs_on_another_rtos(tmp_path: Path, out: Path, rtos: str) -> None:
    if shutil.which("qemu-system-arm") is None:
        pytest.skip("qemu-system-arm is not installed")
    done = _bench("thread-metric", "--rtos", rtos, "--only", "sync", "--period", "1",
                  "--periods", "1", "--no-rtbench", "--out", str(out),
                  "--json", str(tmp_path / "tm.json"))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (row,) = json.loads((tmp_path / "tm.json").read_text())["rows"]
    assert row["test"] == "sync" and not row["error"]
    # one synchronisation pair (a get and a put) is 100 to 200 instructions here:
    # 31.25 M instructions in the 1 s period
    assert 150_000 <= row["totals"][0] <= 320_000, row
