# SPDX-License-Identifier: Apache-2.0
"""`--target serial:DEVICE[,baud=N]`: a board on a serial port. The real FreeRTOS
image runs in QEMU with its UART on a pseudo-terminal, which rtbench opens as it
would a USB serial adapter; and what the kind refuses or says it needs."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import freertos_image as frt
from conftest import RunCli
from rtbench import targets
from rtbench.errors import UsageError
from rtbench.model.results import RESULTS_FILE
from rtbench.paths import ROOT
from target_kinds import refusal, why_not_usable


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("serial:", "names no serial device"),
        ("serial:/dev/ttyUSB0,baud=fast", "Unknown option 'baud=fast'"),
        ("serial:/dev/ttyUSB0,parity=odd", "Unknown option 'parity=odd'"),
    ],
)
def test_bad_specs_are_one_sentence(spec: str, words: str) -> None:
    with pytest.raises(UsageError, match=re.escape(words)):
        targets.parse(spec)


def test_the_kind_parses_device_and_baud() -> None:
    target = targets.parse("serial:/dev/ttyACM0,baud=921600")
    assert target.kind == "serial"
    assert target.shares_host_cpus() is False and target.runs_here is False
    info = target.describe()
    assert (info["serial_port"], info["baud"]) == ("/dev/ttyACM0", 921600)
    assert targets.parse("serial:/dev/ttyACM0").describe()["baud"] == 115200


def test_without_pyserial_targets_says_how_to_get_it(run_cli: RunCli, tmp_path: Path) -> None:
    hidden = tmp_path / "hide" / "serial"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ImportError('hidden by the test')\n")
    env = {"PYTHONPATH": f"{tmp_path / 'hide'}{os.pathsep}{ROOT / 'python'}"}
    why_not = why_not_usable(run_cli, "serial", env)
    assert "pip install --require-hashes -r requirements/serial.txt" in why_not
    done = run_cli("run", "--target", "serial:/dev/null", "--out", str(tmp_path / "r"), env=env)
    assert "pyserial is not installed" in refusal(done)


def test_a_port_that_cannot_be_opened_is_one_sentence(run_cli: RunCli, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-tty"
    done = run_cli("run", "--target", f"serial:{missing}", "--out", str(tmp_path / "r"))
    assert f"Cannot open the serial port {missing}" in refusal(done)
    assert not (tmp_path / "r").exists()


# ---- the real image on a pseudo-terminal -------------------------------------------


@pytest.fixture(scope="module")
def image() -> Path:
    return frt.rtbench_image()


@pytest.fixture
def pty_board(image: Path, tmp_path: Path) -> Iterator[str]:
    """QEMU running the image with its UART on a pseudo-terminal; yields its path."""
    qemu = subprocess.Popen(
        [
            "qemu-system-arm", "-machine", "mps2-an385", "-cpu", "cortex-m3", "-nographic",
            "-no-reboot", "-monitor", "none", "-kernel", str(image),
            "-chardev", "pty,id=rtb", "-serial", "chardev:rtb",
        ],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        assert qemu.stdout is not None
        said = b""
        end_by = time.monotonic() + 20
        found = None
        while found is None and time.monotonic() < end_by:
            ready, _, _ = select.select([qemu.stdout], [], [], 0.5)
            if ready:
                chunk = os.read(qemu.stdout.fileno(), 4096)
                if not chunk:
                    break
                said += chunk
            found = re.search(rb"redirected to (/dev/pts/\d+)", said)
        assert found is not None, said.decode(errors="replace")
        yield found.group(1).decode()
    finally:
        qemu.kill()
        qemu.wait(timeout=10)


def test_the_image_on_a_pseudo_terminal_is_measured(
    run_cli: RunCli, pty_board: str, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    done = run_cli(
        "run", "--target", f"serial:{pty_board},baud=115200",
        "--only", "cal.timestamp", "sem.wait.available", "--out", str(out),
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    data = json.loads((out / RESULTS_FILE).read_text())
    statuses = {s["name"]: s["status"] for s in data["scenarios"]}
    assert statuses == {"cal.timestamp": "ok", "sem.wait.available": "ok"}
    info = data["run"]["target_info"]
    assert info["kind"] == "serial" and info["spec"] == f"serial:{pty_board},baud=115200"
    assert info["os"] == "FreeRTOS" and info["board"] == "mps2-an385"
    assert info["serial_port"] == pty_board and info["emulated"] is False
    assert info["connects"] == 1
    assert data["host"]["kernel"]["system"] == "FreeRTOS"
    assert data["host"]["freertos"]["config"]["configTICK_RATE_HZ"] == 1000
