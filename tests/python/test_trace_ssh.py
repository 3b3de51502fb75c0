# SPDX-License-Identifier: Apache-2.0
"""`rtbench run --trace` on an SSH target, against a real sshd in a network namespace.

The target is this machine seen through the namespace's sshd, so its tracefs is this
kernel's: the tests mount tracefs here when it is not mounted (and unmount it after)
to watch the instances, and compare the whole listing of tracefs state
(trace.kernel.tracefs.state()) before and after a run, a run stopped by SIGINT and a run
whose core is killed on the target. The runs are short: the quick profile,
timer.periodic.latency for one second.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import sshd_netns
from conftest import cli, run_with_untraceable_kind
from rtbench.paths import ROOT
from rtbench.targets.ssh.link import OPTIONS_ENV, SshLink
from rtbench.targets.ssh.tracefs import SshTracefs
from rtbench.trace.kernel import tracefs
from sshd_netns import NamespaceSshd
from traced import remote_traced_run, timer_trace, tracefs_mounted

# reads or changes this machine's real-time settings (conftest.py)
pytestmark = pytest.mark.host_settings

MOUNT = Path("/sys/kernel/tracing")
SHORT = (
    "--profile", "quick", "--only", "timer.periodic.latency",
    "--set", "timer.periodic.latency.interval_ns=200000",
)  # fmt: skip


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NamespaceSshd]:
    if not MOUNT.is_dir():
        pytest.skip("no tracefs on this kernel")
    yield from sshd_netns.serve(tmp_path_factory.mktemp("sshd"))


@pytest.fixture
def watched() -> Iterator[Path]:
    """tracefs mounted here for the test (unmounted after when it was not mounted)."""
    with tracefs_mounted() as root:
        yield root


def _env(server: NamespaceSshd, tmp_path: Path) -> dict[str, str]:
    return {OPTIONS_ENV: server.options(), "RTBENCH_LOCK_DIR": str(tmp_path)}


def _ours(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "instances").iterdir() if p.name.startswith("rtbench-"))


def _start(server: NamespaceSshd, tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env.update(_env(server, tmp_path))
    env.update({"PYTHONPATH": str(ROOT / "python"), "NO_COLOR": "1"})
    env.pop("RTBENCH_CORE", None)
    argv = [sys.executable, "-m", "rtbench", "run", "--target", server.spec(), "--trace", *args]
    return subprocess.Popen(
        argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_traced_run_over_ssh_explains_and_leaves_tracefs_as_it_was(
    sshd: NamespaceSshd, watched: Path, tmp_path: Path
) -> None:
    before = tracefs.state()
    done = cli(
        "run", "--target", sshd.spec(), "--trace", *SHORT, "--set", "duration_ms=1000",
        "--out", "res", cwd=tmp_path, env=_env(sshd, tmp_path), timeout=300,
    )  # fmt: skip
    out = tmp_path / "res"
    data, cond = remote_traced_run(done, out, sshd.spec(), "ssh")
    # the target is in its own mount namespace: rtbench mounted tracefs there
    assert cond["mounted_by_rtbench"] is True
    unit = cond["units"]["timer.periodic.latency"]
    assert (out / unit["file"]).is_file()
    cmap = unit["clock_map"]
    assert cmap["trace_clock"] == cond["clock"]
    assert cmap["sync_points"] == 10  # five readings before the unit, five after
    assert cmap["counter_method"] in ("identity", "clock_pairs")
    trace = timer_trace(data)
    assert trace["line"] and trace["file"] == unit["file"]
    covered = [s for s in trace["samples"] if s.get("covered")]
    assert covered and all(s["line"] for s in trace["samples"])
    # nothing is left: no instance, tracefs listing as before, no session on the target
    assert _ours(watched) == []
    assert tracefs.state() == before
    assert list(sshd.processes()) == [sshd.listener_pid()]
    # the exports read a remote traced run as they read a local one
    perfetto = cli("trace", "export", str(out), "--format", "perfetto", cwd=tmp_path)
    assert perfetto.returncode == 0, perfetto.stderr
    events = json.loads((out / "trace" / "perfetto.json").read_text())["traceEvents"]
    assert any(e.get("name") == "timer.periodic.latency" for e in events)
    if shutil.which("babeltrace2") is not None:
        ctf = cli("trace", "export", str(out), "--format", "ctf", cwd=tmp_path, timeout=600)
        assert ctf.returncode == 0, ctf.stderr
        listing = subprocess.run(
            ["babeltrace2", str(out / "trace" / "ctf")],
            capture_output=True, text=True, timeout=600, check=True,
        ).stdout  # fmt: skip
        assert "rtbench:sample_begin:" in listing and "sched_switch:" in listing


@pytest.mark.parametrize("how", ["sigint", "core_killed"])
def test_cut_run_over_ssh_removes_the_instance(
    sshd: NamespaceSshd, watched: Path, tmp_path: Path, how: str
) -> None:
    before = tracefs.state()
    run = _start(sshd, tmp_path, *SHORT, "--set", "duration_ms=60000", "--out", "res")
    try:
        end_by = time.monotonic() + 180
        cores: list[int] = []
        while time.monotonic() < end_by and run.poll() is None and not cores:
            cores = [p for p, a in sshd.cores().items() if "timer.periodic.latency" in a]
            time.sleep(0.1)
        assert cores, run.communicate(timeout=60)
        time.sleep(1.0)
        during = _ours(watched)
        assert len(during) == 1  # control: the listing sees rtbench's instance
        assert (watched / "instances" / during[0] / "tracing_on").read_text().strip() == "1"
        if how == "sigint":
            run.send_signal(signal.SIGINT)
        else:
            os.kill(cores[0], signal.SIGKILL)
        _out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate(timeout=30)
    assert "Traceback" not in err
    assert run.returncode == (130 if how == "sigint" else 1), err
    assert _ours(watched) == []
    assert tracefs.state() == before
    assert sshd.cores() == {}
    assert list(sshd.processes()) == [sshd.listener_pid()]


def test_connection_dropped_mid_run_sets_the_instance_up_again(
    sshd: NamespaceSshd, watched: Path, tmp_path: Path
) -> None:
    """The sshd sessions are killed while timer.periodic.latency runs: the target
    removes the instance when the guard's session ends, rtbench reconnects, sets the
    instance up again and traces mem.alloc; nothing is left at the end."""
    before = tracefs.state()
    run = _start(
        sshd, tmp_path, "--profile", "quick", "--only", "timer.periodic.latency", "mem.alloc",
        "--set", "duration_ms=20000", "--out", "res",
    )  # fmt: skip
    try:
        end_by = time.monotonic() + 180
        while time.monotonic() < end_by and run.poll() is None:
            if any("timer.periodic.latency" in a for a in sshd.cores().values()):
                break
            time.sleep(0.1)
        time.sleep(0.5)
        assert sshd.drop_sessions() > 0
        _out, err = run.communicate(timeout=180)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate(timeout=30)
    assert run.returncode == 1, err  # the lost scenario counts as failed
    assert "Traceback" not in err
    assert "again" in err
    data = json.loads((tmp_path / "res" / "results.json").read_text())
    status = {s["name"]: s["status"] for s in data["scenarios"]}
    assert status["timer.periodic.latency"] == "lost" and status["mem.alloc"] == "ok"
    cond = data["run"]["conditions"]["trace"]
    assert cond["access"]["set_up_again"] == 1
    assert (tmp_path / "res" / cond["units"]["mem.alloc"]["file"]).is_file()
    assert _ours(watched) == []
    assert tracefs.state() == before
    assert list(sshd.processes()) == [sshd.listener_pid()]


def test_monotonic_clock_read_from_timer_list() -> None:
    """The sync readings' clock: `now at` of /proc/timer_list is CLOCK_MONOTONIC (it
    falls between two clock_gettime reads of it)."""
    if os.geteuid() != 0:
        pytest.skip("/proc/timer_list is readable by root only")
    for _ in range(5):
        before = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        with Path("/proc/timer_list").open(encoding="ascii") as f:
            lines = [f.readline() for _ in range(5)]
        after = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        now = next(int(x.split()[2]) for x in lines if x.startswith("now at "))
        assert before <= now <= after


def test_connection_gone_at_the_end_says_what_may_be_left() -> None:
    access = SshTracefs(SshLink("ssh://root@board.invalid"), "ssh://root@board.invalid")
    access.root = "/sys/kernel/tracing"
    access.path = f"/sys/kernel/tracing/instances/{access.name}"
    said = access.close()
    assert said is not None
    assert f"instances/{access.name} may be left" in said
    assert f"rmdir {access.path}" in said
    assert access.close() is None  # once


def test_target_that_cannot_be_traced_is_refused_in_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    status, _out, err = run_with_untraceable_kind(
        monkeypatch, capsys,
        "run", "--trace", "--target", "board:x", "--only", "timer.periodic.latency",
    )  # fmt: skip
    assert status == 2
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    assert "over SSH" in lines[0] and "QEMU Debian guests" in lines[0]
    assert "not on board:x" in lines[0]
    assert not (tmp_path / "results").exists()
