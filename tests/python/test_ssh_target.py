# SPDX-License-Identifier: Apache-2.0
"""The SSH target against a real sshd in a network namespace of this machine.

The namespace, its veth pair with private addresses, the keys and the sshd are made
by the tests (sshd_netns) and torn down at the end; no other address is contacted.
The runs use the quick profile and a few scenarios.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import sshd_netns
from conftest import RunCli, cli
from rtbench import targets
from rtbench.errors import UsageError
from rtbench.model.results import RESULTS_FILE
from rtbench.paths import ROOT
from rtbench.targets.ssh.link import OPTIONS_ENV, parse_address
from rtbench.targets.ssh.stream import WRAPPER, shell_status
from sshd_netns import NamespaceSshd, running

# reads or changes this machine's real-time settings (conftest.py)
pytestmark = pytest.mark.host_settings

SUBSET = ("cal.timestamp", "sem.behavior.release_order", "mut.behavior.pi")


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NamespaceSshd]:
    yield from sshd_netns.serve(tmp_path_factory.mktemp("sshd"))


def _env(server: NamespaceSshd, tmp_path: Path) -> dict[str, str]:
    return {OPTIONS_ENV: server.options(), "RTBENCH_LOCK_DIR": str(tmp_path)}


def _results(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / RESULTS_FILE).read_text())
    schema = json.loads((ROOT / "schema" / "rtbench.schema.json").read_text())
    jsonschema.validate(data, schema)
    return data


def _verdicts(data: dict[str, Any]) -> dict[str, set[str]]:
    """Scenario -> the outcomes of its verdicts."""
    found: dict[str, set[str]] = {}
    for scenario in data["scenarios"]:
        for record in scenario.get("records", []):
            if record.get("type") == "verdict":
                found.setdefault(scenario["name"], set()).add(record["outcome"])
    return found


# ---- addresses ------------------------------------------------------------------------


def test_addresses_are_read_or_refused_in_one_sentence() -> None:
    a = parse_address("ssh://pi@board.local:2222")
    assert (a.user, a.host, a.port) == ("pi", "board.local", 2222)
    assert parse_address("ssh://[fe80::1]").host == "fe80::1"
    assert parse_address("ssh://board").user is None
    for bad in (
        "ssh://",
        "ssh://host:99999",
        "ssh://host/path",
        "ssh://u:pw@host",
        "ssh://-oProxy=x",
    ):
        with pytest.raises(UsageError):
            targets.parse(bad)
    assert targets.parse("ssh://root@10.213.0.2").kind == "ssh"


# ---- against the namespace sshd ---------------------------------------------------------


def test_quick_subset_runs_over_ssh_and_leaves_nothing(
    sshd: NamespaceSshd, run_cli: RunCli, tmp_path: Path
) -> None:
    done = run_cli(
        "run", "--target", sshd.spec(), "--profile", "quick", "--only", *SUBSET,
        "--lift-rt-throttle", "--out", "res", env=_env(sshd, tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = _results(tmp_path / "res")
    info = data["run"]["target_info"]
    assert info["kind"] == "ssh" and info["spec"] == sshd.spec()
    assert info["arch"] == platform.machine()
    assert info["kernel_release"] == platform.release()
    assert {s["name"]: s["status"] for s in data["scenarios"]} == dict.fromkeys(SUBSET, "ok")
    assert _verdicts(data) == {
        "sem.behavior.release_order": {"pass"},
        "mut.behavior.pi": {"pass"},
    }
    assert "/rtbench." in data["run"]["core"]["path"]
    # the settings were changed on the target and put back there
    held = {c["setting"]: c for c in data["settings"]["changes"]}
    skipped = {s["setting"]: s["reason"] for s in data["settings"]["skipped"]}
    assert "cpu_dma_latency" in held or "cpu_dma_latency" in skipped
    if "sched_rt_runtime_us" in held:
        assert held["sched_rt_runtime_us"]["restored"] is True
    else:  # another run on this machine lifted it first
        assert "already lifted" in skipped["sched_rt_runtime_us"]
    # (confirmed by the shell on the target; the file itself is shared with any other
    # run on this machine, so comparing its value before and after would be a race)
    assert all(c["restored"] for c in held.values())
    # the deployed folder is gone, no core runs, only the listener is left
    assert not Path(info["core_path"]).parent.exists()
    assert sshd.cores() == {}
    assert list(sshd.processes()) == [sshd.listener_pid()]


def test_system_reads_the_target(sshd: NamespaceSshd, tmp_path: Path) -> None:
    done = cli("system", "--target", sshd.spec(), "--json", cwd=tmp_path, env=_env(sshd, tmp_path))
    assert done.returncode == 0, done.stderr
    snap = json.loads(done.stdout)["snapshot"]
    assert snap["kernel"]["release"] == platform.release()
    assert snap["kernel"]["machine"] == platform.machine()
    assert list(sshd.processes()) == [sshd.listener_pid()]


def _start_run(sshd: NamespaceSshd, tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env.update(_env(sshd, tmp_path))
    env.update({"PYTHONPATH": str(ROOT / "python"), "NO_COLOR": "1"})
    env.pop("RTBENCH_CORE", None)
    argv = [sys.executable, "-m", "rtbench", "run", "--target", sshd.spec(), *args]
    return subprocess.Popen(
        argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _wait_for_core(sshd: NamespaceSshd, run: subprocess.Popen[str], scenario: str) -> list[int]:
    end_by = time.monotonic() + 120
    while time.monotonic() < end_by and run.poll() is None:
        seen = [p for p, argv in sshd.cores().items() if scenario in argv]
        if seen:
            return seen
        time.sleep(0.05)
    raise AssertionError(f"the core never ran {scenario} on the target")


def test_connection_killed_mid_run_ends_that_scenario_lost(
    sshd: NamespaceSshd, tmp_path: Path
) -> None:
    """The sshd serving the run is killed while timer.periodic.latency measures: that
    scenario is `lost`, rtbench reconnects, kills what the dropped session left, and
    runs the rest (mem.alloc comes after it in the catalog's order)."""
    run = _start_run(
        sshd, tmp_path, "--profile", "quick", "--only", "timer.periodic.latency", "mem.alloc",
        "--set", "duration_ms=20000", "--out", "res",
    )  # fmt: skip
    try:
        with run:
            seen = _wait_for_core(sshd, run, "timer.periodic.latency")
            assert sshd.drop_sessions() > 0
            _out, err = run.communicate(timeout=180)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 1, err  # a lost scenario counts as failed
    data = _results(tmp_path / "res")
    status = {s["name"]: s for s in data["scenarios"]}
    lost = status["timer.periodic.latency"]
    assert lost["status"] == "lost"
    assert "SSH connection ended" in lost["reason"]
    assert status["cal.timestamp"]["status"] == "ok"  # measured before: kept
    assert status["mem.alloc"]["status"] == "ok"  # after the reconnection
    assert "reconnected" in err
    # the core the dropped session left behind was killed; nothing else remains
    assert not any(running(pid) for pid in seen)
    assert sshd.cores() == {}
    assert list(sshd.processes()) == [sshd.listener_pid()]


def test_ctrl_c_stops_the_remote_core_which_reports(sshd: NamespaceSshd, tmp_path: Path) -> None:
    """SIGINT to rtbench mid-scenario: the core on the target gets SIGTERM over the
    connection and reports what it measured (`stopped`), as a local core does."""
    run = _start_run(
        sshd, tmp_path, "--profile", "quick", "--only", "timer.periodic.latency",
        "--set", "duration_ms=20000", "--out", "res",
    )  # fmt: skip
    try:
        with run:
            _wait_for_core(sshd, run, "timer.periodic.latency")
            time.sleep(0.5)
            run.send_signal(signal.SIGINT)
            _out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 130, err
    data = _results(tmp_path / "res")
    stopped = {s["name"]: s for s in data["scenarios"]}["timer.periodic.latency"]
    assert stopped["status"] == "stopped"
    assert any(r["type"] == "result" for r in stopped["records"])
    assert sshd.cores() == {}
    assert list(sshd.processes()) == [sshd.listener_pid()]


def test_link_down_mid_run_stops_the_run_cleanly(sshd: NamespaceSshd, tmp_path: Path) -> None:
    """The link to the target goes down under a scenario and stays down: the master
    connection notices (ServerAlive), that scenario is `lost`, the reconnection fails,
    and the run stops there with everything measured before stored. The core left on
    the unreachable target ends by itself when its measuring time is over."""
    args = ["--profile", "quick", "--only", "timer.periodic.latency", "mem.alloc"]
    run = _start_run(sshd, tmp_path, *args, "--set", "duration_ms=8000", "--out", "res")
    try:
        with run:
            cores = _wait_for_core(sshd, run, "timer.periodic.latency")
            subprocess.run(["ip", "link", "set", sshd.veth, "down"], check=True, timeout=30)
            _out, err = run.communicate(timeout=180)
    finally:
        if run.poll() is None:
            run.kill()
        subprocess.run(["ip", "link", "set", sshd.veth, "up"], check=True, timeout=30)
    assert run.returncode == 1, err
    data = _results(tmp_path / "res")
    status = {s["name"]: s for s in data["scenarios"]}
    assert status["cal.timestamp"]["status"] == "ok"
    assert status["timer.periodic.latency"]["status"] == "lost"
    assert "mem.alloc" not in status  # the run stopped before it
    assert "could not be recovered" in err
    assert "Traceback" not in err
    # the documented limit: the core on the unreachable target runs out its own time
    end_by = time.monotonic() + 60
    while time.monotonic() < end_by and any(running(p) for p in cores):
        time.sleep(0.2)
    assert sshd.cores() == {}
    # rtbench's folder there goes when the target's sshd ends the session (once the
    # link is back its TCP gets a reset; the sessions are dropped here not to wait)
    folder = Path(data["run"]["target_info"]["core_path"]).parent
    sshd.drop_sessions()
    end_by = time.monotonic() + 30
    while time.monotonic() < end_by and folder.exists():
        time.sleep(0.1)
    assert not folder.exists()


def test_wrong_host_is_one_sentence_and_exit_2(sshd: NamespaceSshd, tmp_path: Path) -> None:
    # the other end of the namespace's /30: nothing listens on port 22 there
    started = time.monotonic()
    done = cli(
        "run", "--target", f"ssh://root@{sshd.host_address}:1", "--only", "cal.timestamp",
        cwd=tmp_path, env=_env(sshd, tmp_path),
    )  # fmt: skip
    assert time.monotonic() - started < 60
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if not line.startswith("rtbench: ")]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"rtbench run: Cannot connect to ssh://root@{sshd.host_address}:1")
    assert "refused" in lines[0]
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "results").exists()


def test_unknown_key_is_refused_without_a_prompt(sshd: NamespaceSshd, tmp_path: Path) -> None:
    done = cli(
        "system", "--target", f"ssh://nobody-here@{sshd.address}", cwd=tmp_path,
        env={**_env(sshd, tmp_path), "SSH_AUTH_SOCK": ""},
    )  # fmt: skip
    assert done.returncode == 2
    assert "Permission denied" in done.stderr
    assert "Traceback" not in done.stderr


# ---- the wrapper every core command runs in, under this machine's sh ----------------


def _wrapped(*command: str) -> subprocess.Popen[str]:
    """The wrapper running `command`, killed after 30 s whatever happens (so no read
    of its output can wait for ever)."""
    p = subprocess.Popen(
        ["sh", "-c", WRAPPER, "rtbench", "/", *command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )

    def kill() -> None:
        with contextlib.suppress(OSError):
            os.killpg(p.pid, signal.SIGKILL)

    guard = threading.Timer(30.0, kill)
    guard.daemon = True
    guard.start()
    return p


def test_the_wrapper_reports_the_pids_and_the_exit_status() -> None:
    with _wrapped("sh", "-c", "echo record; exit 3") as p:
        assert p.stdout is not None and p.stdin is not None
        out: list[str] = []
        while not out or not out[-1].startswith("@rtbench-exit"):
            line = p.stdout.readline()
            assert line, out
            out.append(line.strip())
        p.stdin.close()
        p.wait(timeout=30)
    # the group line comes first, the exit line last; the core's own line may come
    # before or after the shell says the core's pid
    assert out[0] == f"@rtbench-group {p.pid}"
    assert sorted(out[1:3]) == sorted(["record", next(x for x in out if "-core " in x)])
    assert out[3:] == ["@rtbench-exit 3"]
    assert shell_status(3) == 3 and shell_status(128 + 9) == -9


def test_the_wrapper_kills_the_core_when_the_session_input_ends() -> None:
    with _wrapped("sleep", "60") as p:
        assert p.stdout is not None and p.stdin is not None
        p.stdout.readline()
        core = int(p.stdout.readline().split()[1])
        time.sleep(0.3)
        assert running(core)  # control: alive while the input is open
        p.stdin.close()
        last = p.stdout.readline().strip()
        p.wait(timeout=30)
    assert last == "@rtbench-exit 137"
    assert not running(core)
