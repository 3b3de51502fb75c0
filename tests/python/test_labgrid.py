# SPDX-License-Identifier: Apache-2.0
"""`--target labgrid:...`: boards in a shared lab, reserved through labgrid.

The lab is real labgrid on this machine's loopback (labgrid_lab): a coordinator,
an exporter, a place whose NetworkService is an sshd in a network namespace and
a place whose serial port (raw TCP) and network power switch front the FreeRTOS
image in QEMU, and one whose serial port is the image's served by ser2net over
RFC 2217 (labgrid's default protocol). Other users of the lab are labgrid-client
calls under another user name.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import freertos_image as frt
import labgrid_lab
import ser2net_serve
import sshd_netns
from conftest import RunCli
from labgrid_lab import RFC2217_PLACE, Lab
from rtbench import targets
from rtbench.errors import UsageError
from rtbench.model.results import RESULTS_FILE
from rtbench.paths import ROOT
from rtbench.targets.lab.client import Place, Resource, parse_show
from rtbench.targets.lab.target import LabgridTarget, parse_spec
from rtbench.targets.ssh.link import OPTIONS_ENV
from sshd_netns import NamespaceSshd
from target_kinds import refusal, why_not_usable

# reads or changes this machine's real-time settings (conftest.py)
pytestmark = pytest.mark.host_settings

OTHER = "someone-else"  # another user of the lab
# two short scenarios, fewer samples and back-to-back calls than the quick
# profile's: the lab's tests check what happens around a run, not its figures
FAST = (
    "--only", "cal.timestamp", "sem.wait.available",
    "--set", "iterations=2000", "--set", "amortised_calls=1000",
)  # fmt: skip
COMPARISON_HTML = "comparison/comparison.html"


# ---- the spec and the kind, without a lab ---------------------------------------------


def test_specs_name_a_place_or_tags_with_options() -> None:
    assert parse_spec("labgrid:rpi4") == ("rpi4", None, None, None)
    assert parse_spec("labgrid:rpi4,coordinator=lab.example:20408,wait=30") == (
        "rpi4",
        None,
        "lab.example:20408",
        30.0,
    )
    assert parse_spec("labgrid:tags:board=stm32,rtos=freertos,wait=0") == (
        None,
        {"board": "stm32", "rtos": "freertos"},
        None,
        0.0,
    )


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("labgrid:", "Cannot read the target"),
        ("labgrid:tags:", "Cannot read the target"),
        ("labgrid:rpi4,wait=soon", "takes seconds"),
        ("labgrid:rpi4,coordinator=nowhere", "is not HOST:PORT"),
        ("labgrid:rpi4,board=x", "Unknown option 'board=x'"),
        ("labgrid:tags:B=x", "not one labgrid accepts"),
    ],
)
def test_bad_specs_are_one_sentence(spec: str, words: str) -> None:
    with pytest.raises(UsageError, match=re.escape(words)) as e:
        targets.parse(spec)
    assert "\n" not in str(e.value)


def test_a_place_shown_by_labgrid_client_is_read() -> None:
    place = parse_show(
        "Place 'rpi4':\n"
        "  aliases: bench-3\n"
        "  tags: board=rpi4, os=linux\n"
        "  matches:\n"
        "    lab-1/rpi4/*\n"
        "  acquired: ci-runner/alice\n"
        "  acquired resources:\n"
        "    lab-1/rpi4/NetworkService/NetworkService\n"
        "  created: 2026-01-01 00:00:00\n"
        "Acquired resource 'NetworkService' (lab-1/rpi4/NetworkService/NetworkService):\n"
        "  {'acquired': 'rpi4',\n"
        "   'avail': True,\n"
        "   'cls': 'NetworkService',\n"
        "   'params': {'address': '192.0.2.7',\n"
        "              'extra': {'proxy': 'lab-1', 'proxy_required': True},\n"
        "              'port': 22,\n"
        "              'username': 'root'}}\n"
    )
    assert (place.name, place.aliases, place.holder) == ("rpi4", ("bench-3",), "ci-runner/alice")
    assert place.tags == {"board": "rpi4", "os": "linux"}
    service = place.find("NetworkService")
    assert service is not None and service.exporter == "lab-1"
    assert service.params == {"address": "192.0.2.7", "port": 22, "username": "root"}
    assert service.extra == {"proxy": "lab-1", "proxy_required": True}


def _serial_place(**params: Any) -> Place:
    extra = params.pop("extra", {})
    port = Resource("lab-1", "stm32", "NetworkSerialPort", "NetworkSerialPort",
                    {"host": "lab-1", "port": 4001, "speed": 921600, **params}, extra)  # fmt: skip
    return Place("stm32", resources=(port,))


@pytest.mark.parametrize(
    ("protocol", "url"),
    [({}, "rfc2217://lab-1:4001"), ({"protocol": "raw"}, "socket://lab-1:4001")],
)
def test_a_network_serial_port_becomes_a_serial_url(protocol: dict[str, str], url: str) -> None:
    target = LabgridTarget("labgrid:stm32")
    target.place = _serial_place(**protocol)
    info = target._make_inner().describe()
    assert (info["serial_port"], info["baud"]) == (f"{url} (labgrid place stm32)", 921600)


def test_a_serial_port_behind_a_proxy_says_how_to_tunnel_it() -> None:
    target = LabgridTarget("labgrid:stm32")
    target.place = _serial_place(extra={"proxy": "gw-1", "proxy_required": True})
    with pytest.raises(UsageError) as e:
        target._make_inner()
    assert "tunnel it (ssh -N -L 4001:lab-1:4001 gw-1)" in str(e.value)
    assert str(e.value).endswith("use --target serial:rfc2217://localhost:4001.")


def test_without_labgrid_targets_says_how_to_get_it(run_cli: RunCli, tmp_path: Path) -> None:
    env = {"RTBENCH_LABGRID_CLIENT": str(tmp_path / "no-labgrid-client")}
    why_not = why_not_usable(run_cli, "labgrid", env)
    assert "pip install --require-hashes -r requirements/labgrid.txt" in why_not
    done = run_cli("run", "--target", "labgrid:rpi4", "--out", str(tmp_path / "r"), env=env)
    assert "labgrid is not installed" in refusal(done)


def test_no_coordinator_is_one_sentence(run_cli: RunCli, tmp_path: Path) -> None:
    if labgrid_lab.why_unusable() is not None:
        pytest.skip(str(labgrid_lab.why_unusable()))
    address = f"127.0.0.1:{ser2net_serve.free_port()}"
    done = run_cli(
        "run", "--target", f"labgrid:rpi4,coordinator={address}", "--out", str(tmp_path / "r")
    )
    assert f"No labgrid coordinator answers at {address}" in refusal(done)
    assert not (tmp_path / "r").exists()


# ---- against a lab ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def image() -> Path:
    return frt.rtbench_image()


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NamespaceSshd]:
    yield from sshd_netns.serve(tmp_path_factory.mktemp("sshd"))


@pytest.fixture(scope="module")
def lab(
    image: Path, sshd: NamespaceSshd, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Lab]:
    why = labgrid_lab.why_unusable()
    if why is not None:
        pytest.skip(why)
    with Lab(tmp_path_factory.mktemp("lab"), sshd.address, image) as the_lab:
        yield the_lab
    assert not any(the_lab.running().values()), the_lab.running()


@pytest.fixture
def lab_env(lab: Lab, sshd: NamespaceSshd) -> Iterator[dict[str, str]]:
    yield {**lab.env(), OPTIONS_ENV: sshd.options()}
    # whatever a test did, rtbench left the lab as it found it
    for place in ("linux", "freertos", *([RFC2217_PLACE] if lab.rfc_board else [])):
        holder = lab.holder(place)
        if holder is not None and holder.endswith(f"/{OTHER}"):
            lab.client("-p", place, "release", user=OTHER)
    assert "Reservation" not in lab.reservations()
    assert _clients(lab) == []
    for board in lab.boards().values():
        if not board.powered():
            board.on()


def _clients(lab: Lab) -> list[int]:
    """labgrid-client processes still talking to this lab."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if (
            any(a.endswith(b"labgrid-client") for a in argv[:2])
            and lab.coordinator.encode() in argv
        ):
            found.append(int(entry.name))
    return found


def _results(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / RESULTS_FILE).read_text())
    schema = json.loads((ROOT / "schema" / "rtbench.schema.json").read_text())
    jsonschema.validate(data, schema)
    return data


def _statuses(data: dict[str, Any]) -> dict[str, str]:
    return {s["name"]: s["status"] for s in data["scenarios"]}


def test_a_serial_board_is_measured_and_released(
    lab: Lab, lab_env: dict[str, str], run_cli: RunCli, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    done = run_cli("run", "--target", "labgrid:freertos", *FAST, "--out", str(out), env=lab_env)
    assert done.returncode == 0, done.stderr
    data = _results(out)
    assert _statuses(data) == {"cal.timestamp": "ok", "sem.wait.available": "ok"}
    info = data["run"]["target_info"]
    assert (info["kind"], info["board_kind"], info["os"]) == ("labgrid", "serial", "FreeRTOS")
    recorded = info["labgrid"]
    assert recorded["coordinator"] == lab.coordinator and recorded["place"] == "freertos"
    assert recorded["exporters"] == [labgrid_lab.EXPORTER_NAME]
    assert recorded["tags"] == {"board": "freertos"}
    assert recorded["acquired_by_rtbench"] is True
    assert lab.holder("freertos") is None


def test_a_place_held_by_another_user_is_one_sentence(
    lab: Lab, lab_env: dict[str, str], run_cli: RunCli, tmp_path: Path
) -> None:
    lab.client("-p", "freertos", "acquire", user=OTHER)
    done = run_cli("run", "--target", "labgrid:freertos", *FAST, "--out", str(tmp_path / "r"),
                   env=lab_env)  # fmt: skip
    said = refusal(done)
    assert "The labgrid place freertos is held by " in said and f"/{OTHER}" in said
    assert lab.holder("freertos").endswith(f"/{OTHER}")  # type: ignore[union-attr]
    unknown = run_cli("run", "--target", "labgrid:nowhere", "--out", str(tmp_path / "u"),
                      env=lab_env)  # fmt: skip
    assert "has no place named 'nowhere'" in refusal(unknown)


def test_a_place_the_user_holds_is_used_and_kept(
    lab: Lab, lab_env: dict[str, str], run_cli: RunCli, tmp_path: Path
) -> None:
    lab.client("-p", "freertos", "acquire")
    try:
        out = tmp_path / "r"
        done = run_cli("run", "--target", "labgrid:freertos", "--only", "cal.timestamp",
                       "--out", str(out), env=lab_env)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert _results(out)["run"]["target_info"]["labgrid"]["acquired_by_rtbench"] is False
        assert lab.holder("freertos") is not None  # still the user's
    finally:
        lab.client("-p", "freertos", "release")


def _start_run(env: dict[str, str], cwd: Path, *args: str) -> subprocess.Popen[str]:
    full = {**os.environ, "PYTHONPATH": str(ROOT / "python"), "NO_COLOR": "1", **env}
    full.pop("RTBENCH_DEADLINE_SCALE", None)
    return subprocess.Popen(
        [sys.executable, "-m", "rtbench", "run", *args],
        cwd=cwd, env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _wait_for_waiting(lab: Lab, run: subprocess.Popen[str]) -> None:
    end_by = time.monotonic() + 60
    while "state: waiting" not in lab.reservations():
        assert run.poll() is None, run.communicate()
        assert time.monotonic() < end_by, "rtbench made no reservation"
        time.sleep(0.3)


def test_a_reservation_by_tags_waits_for_a_release(
    lab: Lab, lab_env: dict[str, str], tmp_path: Path
) -> None:
    lab.client("-p", "freertos", "acquire", user=OTHER)
    out = tmp_path / "r"
    run = _start_run(lab_env, tmp_path, "--target", "labgrid:tags:board=freertos,wait=120",
                     *FAST, "--out", str(out))  # fmt: skip
    try:
        _wait_for_waiting(lab, run)
        time.sleep(2)
        assert run.poll() is None  # still waiting for the place
        lab.client("-p", "freertos", "release", user=OTHER)
        _stdout, stderr = run.communicate(timeout=300)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert run.returncode == 0, stderr
    data = _results(out)
    assert _statuses(data) == {"cal.timestamp": "ok", "sem.wait.available": "ok"}
    recorded = data["run"]["target_info"]["labgrid"]
    assert recorded["place"] == "freertos" and recorded["reserved_with"] == {"board": "freertos"}
    assert lab.holder("freertos") is None


def test_sigterm_while_waiting_cancels_the_reservation(
    lab: Lab, lab_env: dict[str, str], tmp_path: Path
) -> None:
    lab.client("-p", "freertos", "acquire", user=OTHER)
    # a place by name with wait= waits through a reservation of that name
    run = _start_run(lab_env, tmp_path, "--target", "labgrid:freertos,wait=120",
                     *FAST, "--out", str(tmp_path / "r"))  # fmt: skip
    try:
        _wait_for_waiting(lab, run)
        assert "main: name=freertos" in lab.reservations()
        run.send_signal(signal.SIGTERM)
        _stdout, stderr = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert run.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert lab.holder("freertos").endswith(f"/{OTHER}")  # type: ignore[union-attr]
    # lab_env checks that no reservation and no labgrid-client is left


def test_sigterm_during_the_run_releases_the_place(
    lab: Lab, lab_env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "r"
    run = _start_run(
        lab_env, tmp_path, "--target", "labgrid:freertos",
        "--only", "sem.wait.available", "sem.wait.block", "--out", str(out),
    )  # fmt: skip
    said = []
    try:
        assert run.stderr is not None
        for line in run.stderr:
            said.append(line)
            if "[1/3]" in line:  # the calibration is done, the next unit measures
                run.send_signal(signal.SIGTERM)
                break
        _stdout, rest = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    stderr = "".join(said) + rest
    assert run.returncode == 130, stderr
    assert "Traceback" not in stderr and "Interrupted" in stderr
    data = _results(out)
    assert data["run"]["interrupted"] is True
    assert data["run"]["target_info"]["labgrid"]["acquired_by_rtbench"] is True
    assert lab.holder("freertos") is None


def test_a_hung_board_is_power_cycled_and_the_run_goes_on(
    lab: Lab, lab_env: dict[str, str], run_cli: RunCli, tmp_path: Path
) -> None:
    assert lab.board is not None and lab.relay is not None
    boots = lab.board.boots
    lab.hang_on("sem.wait.block")
    out = tmp_path / "r"
    done = run_cli(
        "run", "--target", "labgrid:freertos", "--only", "sem.wait.block", "sem.wait.available",
        "--out", str(out), env={**lab_env, "RTBENCH_DEADLINE_SCALE": "0.5"}, timeout=600,
    )  # fmt: skip
    assert lab.relay.hung == 1
    assert done.returncode == 1, done.stderr
    data = _results(out)
    assert _statuses(data) == {
        "cal.timestamp": "ok",
        "sem.wait.block": "lost",
        "sem.wait.available": "ok",
    }
    info = data["run"]["target_info"]
    assert info["labgrid"]["power_cycles"] == 1 and info["connects"] == 2
    assert lab.board.switches[-2:] == ["off", "on"] and lab.board.boots == boots + 1
    assert "power-cycling the board of the labgrid place freertos" in done.stderr
    assert lab.holder("freertos") is None


@pytest.fixture
def rfc2217(lab: Lab) -> str:
    """The place whose serial port ser2net serves over RFC 2217."""
    if lab.rfc_board is None:
        pytest.skip(str(ser2net_serve.why_unusable()))
    return RFC2217_PLACE


def test_a_board_served_by_ser2net_is_measured_over_rfc2217(
    lab: Lab, lab_env: dict[str, str], rfc2217: str, run_cli: RunCli, tmp_path: Path
) -> None:
    assert "'protocol'" not in lab.client("-p", rfc2217, "show").stdout  # labgrid's default
    out = tmp_path / "r"
    done = run_cli("run", "--target", f"labgrid:{rfc2217}", *FAST, "--out", str(out),
                   env=lab_env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = _results(out)
    assert _statuses(data) == {"cal.timestamp": "ok", "sem.wait.available": "ok"}
    info = data["run"]["target_info"]
    assert (info["board_kind"], info["os"], info["baud"]) == ("serial", "FreeRTOS", 115200)
    assert lab.rfc_relay is not None
    url = f"rfc2217://127.0.0.1:{lab.rfc_relay.port}"
    assert info["serial_port"] == f"{url} (labgrid place {rfc2217})"
    assert info["labgrid"]["place"] == rfc2217 and lab.holder(rfc2217) is None


def test_a_hung_board_behind_ser2net_is_power_cycled_and_the_run_goes_on(
    lab: Lab, lab_env: dict[str, str], rfc2217: str, run_cli: RunCli, tmp_path: Path
) -> None:
    board, relay = lab.rfc_board, lab.rfc_relay
    assert board is not None and relay is not None
    boots = board.boots
    # the first unit after the calibration hangs; after the power cycle the tty comes
    # back 3 s after the power, as a board's own USB serial port would, and ser2net
    # refuses the connection until it is there
    lab.hang_on("sem.wait.available", rfc2217)
    board.tty_delay_s = 3.0
    out = tmp_path / "r"
    try:
        done = run_cli(
            "run", "--target", f"labgrid:{rfc2217}", "--only", "sem.wait.block",
            "sem.wait.available", "--out", str(out),
            env={**lab_env, "RTBENCH_DEADLINE_SCALE": "0.5"}, timeout=600,
        )  # fmt: skip
    finally:
        board.tty_delay_s = 0.0
    assert relay.hung == 1
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    data = _results(out)
    assert [(s["name"], s["status"]) for s in data["scenarios"]] == [
        ("cal.timestamp", "ok"),
        ("sem.wait.available", "lost"),
        ("sem.wait.block", "ok"),  # on the fresh boot
    ]
    info = data["run"]["target_info"]
    assert info["labgrid"]["power_cycles"] == 1 and info["connects"] == 2
    assert board.switches[-2:] == ["off", "on"] and board.boots == boots + 1
    assert lab.holder(rfc2217) is None


def test_two_places_in_parallel_give_both_results_and_a_comparison(
    lab: Lab, lab_env: dict[str, str], run_cli: RunCli, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    done = run_cli(
        "run", "--target", "labgrid:tags:board=freertos", "--target", "labgrid:tags:board=linux",
        "--parallel", "2", "--profile", "quick", "--lift-rt-throttle", *FAST,
        "--out", str(out), env=lab_env, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    places = {}
    for folder in ("labgrid-tags-board-freertos", "labgrid-tags-board-linux"):
        data = _results(out / folder)
        assert set(_statuses(data).values()) == {"ok"}, _statuses(data)
        info = data["run"]["target_info"]
        places[info["labgrid"]["place"]] = info["board_kind"]
    assert places == {"freertos": "serial", "linux": "ssh"}
    assert (out / COMPARISON_HTML).is_file()
    assert lab.holder("freertos") is None and lab.holder("linux") is None
