# SPDX-License-Identifier: Apache-2.0
"""`--target serial:rfc2217://HOST:PORT`: a board's UART served over the network by
ser2net with RFC 2217, as labs serve theirs. The board is the FreeRTOS image under
QEMU with its UART on a pseudo-terminal, which a private ser2net serves on a free
loopback port (ser2net_serve); and what is said when no such server answers."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

import freertos_image as frt
import ser2net_serve
from conftest import RunCli
from rtbench import targets
from rtbench.errors import UsageError
from rtbench.model.results import RESULTS_FILE
from rtbench.targets.firmware.serial import SerialLine, pyserial_url
from ser2net_serve import PtyBoard, Ser2net
from target_kinds import refusal

serial = pytest.importorskip("serial")


def test_rfc2217_urls_leave_dtr_and_rts_unconfirmed() -> None:
    assert pyserial_url("rfc2217://lab-1:4001") == "rfc2217://lab-1:4001?ign_set_control"
    assert (
        pyserial_url("rfc2217://lab-1:4001?timeout=9")
        == "rfc2217://lab-1:4001?timeout=9&ign_set_control"
    )
    assert pyserial_url("rfc2217://lab-1:4001?ign_set_control") == (
        "rfc2217://lab-1:4001?ign_set_control"
    )
    assert pyserial_url("socket://lab-1:4001") == "socket://lab-1:4001"
    assert pyserial_url("/dev/ttyUSB0") == "/dev/ttyUSB0"


def test_a_url_is_a_serial_device() -> None:
    target = targets.parse("serial:rfc2217://lab-1:4001,baud=921600")
    assert target.kind == "serial"
    info = target.describe()
    assert (info["serial_port"], info["baud"]) == ("rfc2217://lab-1:4001", 921600)
    assert targets.parse("serial:socket://lab-1:4001").describe()["serial_port"] == (
        "socket://lab-1:4001"
    )


def test_nothing_listening_is_one_sentence(run_cli: RunCli, tmp_path: Path) -> None:
    url = f"rfc2217://127.0.0.1:{ser2net_serve.free_port()}"
    done = run_cli("run", "--target", f"serial:{url}", "--out", str(tmp_path / "r"))
    assert refusal(done) == f"rtbench run: Cannot open the serial port {url}: connection refused."
    assert not (tmp_path / "r").exists()
    raw = f"socket://127.0.0.1:{ser2net_serve.free_port()}"
    with pytest.raises(UsageError) as e:
        SerialLine.open(raw, 115200)
    assert str(e.value) == f"Cannot open the serial port {raw}: connection refused."


def test_a_server_that_does_not_speak_rfc2217_is_one_sentence() -> None:
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts, never answers
        # pyserial's own wait for the telnet options, shortened from 3 s
        url = f"rfc2217://127.0.0.1:{silent.getsockname()[1]}?timeout=0.5"
        with pytest.raises(UsageError) as e:
            SerialLine.open(url, 115200)
    assert str(e.value) == (
        f"Cannot open the serial port {url}: the server there does not speak RFC 2217 "
        "(a raw TCP port is socket://HOST:PORT)."
    )


# ---- the image behind ser2net ------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ser2net]:
    """ser2net serving the FreeRTOS board's pseudo-terminal; one boot for the module."""
    why = ser2net_serve.why_unusable()
    if why is not None:
        pytest.skip(why)
    image = frt.rtbench_image()
    folder = tmp_path_factory.mktemp("ser2net")
    board = PtyBoard(image, folder)
    board.on()
    try:
        with Ser2net(board.tty, folder) as server:
            yield server
        assert not server.running()
    finally:
        board.off()


def test_pyserial_alone_waits_for_a_dtr_answer_ser2net_never_gives(served: Ser2net) -> None:
    # why rtbench adds ign_set_control: a pseudo-terminal has no modem control lines,
    # so ser2net never confirms pyserial's DTR request and the port does not open
    with pytest.raises(serial.SerialException, match="timeout while waiting for option 'control'"):
        serial.serial_for_url(f"{served.url}?timeout=1", baudrate=115200, timeout=0.2)
    port = serial.serial_for_url(pyserial_url(served.url), baudrate=115200, timeout=0.2)
    port.close()


def test_a_port_another_client_holds_is_one_sentence(served: Ser2net) -> None:
    other = SerialLine.open(served.url, 115200)
    try:
        with pytest.raises(UsageError) as e:
            SerialLine.open(served.url, 115200)
    finally:
        other.close()
    assert str(e.value) == (
        f"Cannot open the serial port {served.url}: the server there said "
        "'Port already in use' and closed the connection."
    )


def test_the_board_behind_ser2net_is_measured_over_rfc2217(
    served: Ser2net, run_cli: RunCli, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    spec = f"serial:{served.url},baud=115200"
    done = run_cli("run", "--target", spec, "--only", "sem.wait.block", "--out", str(out),
                   timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    data = json.loads((out / RESULTS_FILE).read_text())
    statuses = {s["name"]: s["status"] for s in data["scenarios"]}
    assert statuses == {"cal.timestamp": "ok", "sem.wait.block": "ok"}
    info = data["run"]["target_info"]
    assert (info["kind"], info["spec"], info["os"]) == ("serial", spec, "FreeRTOS")
    assert (info["serial_port"], info["baud"], info["connects"]) == (served.url, 115200, 1)
    assert data["host"]["serial"] == {"port": served.url, "baud": 115200}
