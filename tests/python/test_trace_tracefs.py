# SPDX-License-Identifier: Apache-2.0
"""`rtbench run --trace` leaves tracefs exactly as it found it.

The whole listing of tracefs state (rtbench.trace.kernel.tracefs.state(): the top level's
tracer, clock, tracing_on, buffer sizes, cpumask, options, enabled events, instances)
is compared before and after: a run on an unmounted tracefs (mounted for the run,
unmounted after); and, on a tracefs a user has set up (another clock, an event enabled,
a smaller buffer, an instance of their own), a run stopped by SIGINT mid-unit and a run
whose core is killed mid-unit. The control: during the run the listing does differ
(rtbench's instance is there), so the comparison can see a change.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rtbench import build
from rtbench.paths import ROOT
from rtbench.trace.kernel import tracefs
from traced import tracefs_mounted

MOUNT = Path("/sys/kernel/tracing")

# reads or changes this machine's real-time settings (conftest.py)
pytestmark = [
    pytest.mark.host_settings,
    pytest.mark.skipif(os.geteuid() != 0 or not MOUNT.is_dir(), reason="needs root and tracefs"),
]


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), NO_COLOR="1")
    env.pop(build.CORE_ENV, None)
    env["RTBENCH_LOCK_DIR"] = str(tmp_path)
    return env


def _start(tmp_path: Path, out: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "rtbench", "run", "--trace", "--only", "timer.periodic.latency",
         "--out", str(out), *extra],
        cwd=tmp_path, env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip


def _instance_of(child: subprocess.Popen[str]) -> Path | None:
    root = tracefs._mounted_at()
    if root is None:
        return None
    inst = root / "instances" / f"rtbench-{child.pid}"
    return inst if inst.is_dir() else None


def _wait_for_unit(child: subprocess.Popen[str], out: Path, unit: str) -> dict[str, object]:
    """Wait until `unit` runs (rtbench's instance is tracing); the state then."""
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        time.sleep(0.2)
        assert child.poll() is None, child.communicate()
        try:
            data = json.loads((out / "results.json").read_text())
        except (OSError, ValueError):
            continue
        if any(s["name"] == "cal.timestamp" for s in data["scenarios"]):
            inst = _instance_of(child)
            if inst is not None and (inst / "tracing_on").read_text().strip() == "1":
                time.sleep(1.0)
                return tracefs.state()
    raise AssertionError(f"the run did not reach {unit}")


def _core_pid(parent: int) -> int | None:
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            stat = (proc / "stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            if int(fields[1]) == parent and "rtbench-core" in stat[: stat.rindex(")")]:
                return int(proc.name)
    return None


@contextlib.contextmanager
def _user_tracefs() -> Iterator[None]:
    """tracefs mounted and set up the way a user might have it; undone afterwards."""
    with tracefs_mounted() as root, _user_settings(root):
        yield


@contextlib.contextmanager
def _user_settings(root: Path) -> Iterator[None]:
    clock = (root / "trace_clock").read_text().split("[")[1].split("]")[0]
    size = (root / "buffer_size_kb").read_text().split()[0]
    switch = root / "events/sched/sched_switch/enable"
    enabled = switch.read_text().strip()
    mine = root / "instances" / "user-own"
    try:
        (root / "trace_clock").write_text("mono")
        (root / "buffer_size_kb").write_text("1111")
        switch.write_text("1")
        mine.mkdir()
        yield
    finally:
        with contextlib.suppress(OSError):
            mine.rmdir()
        switch.write_text(enabled)
        (root / "buffer_size_kb").write_text(size)
        (root / "trace_clock").write_text(clock)


def test_unmounted_tracefs_is_mounted_for_the_run_only(tmp_path: Path) -> None:
    if tracefs._mounted_at() is not None:
        pytest.skip("tracefs is mounted on this machine")
    out = tmp_path / "out"
    child = _start(tmp_path, out, "--set", "duration_ms=3000")
    during = _wait_for_unit(child, out, "timer.periodic.latency")
    _stdout, stderr = child.communicate(timeout=240)
    assert child.returncode == 0, stderr
    assert during["mounted"] is True  # control: the listing sees rtbench's doing
    assert tracefs.state() == {"mounted": False}
    data = json.loads((out / "results.json").read_text())
    cond = data["run"]["conditions"]["trace"]
    assert cond["traced"] is True and cond["mounted_by_rtbench"] is True
    assert (out / cond["units"]["timer.periodic.latency"]["file"]).is_file()


@pytest.mark.parametrize("how", ["sigint", "core_killed"])
def test_user_tracefs_restored_after_a_cut_run(tmp_path: Path, how: str) -> None:
    out = tmp_path / "out"
    with _user_tracefs():
        before = tracefs.state()
        child = _start(tmp_path, out, "--set", "duration_ms=60000")
        try:
            during = _wait_for_unit(child, out, "timer.periodic.latency")
            if how == "sigint":
                child.send_signal(signal.SIGINT)
            else:
                core = _core_pid(child.pid)
                assert core is not None
                os.kill(core, signal.SIGKILL)
            _stdout, stderr = child.communicate(timeout=120)
        finally:
            if child.poll() is None:
                child.kill()
                child.communicate(timeout=30)
        after = tracefs.state()
    assert "Traceback" not in stderr
    assert child.returncode == (130 if how == "sigint" else 1), stderr
    # control: the listing saw rtbench's instance while it traced
    assert during != before
    assert f"rtbench-{child.pid}" in during["instances"]  # type: ignore[operator]
    assert after == before
    data = json.loads((out / "results.json").read_text())
    timer = next(s for s in data["scenarios"] if s["name"] == "timer.periodic.latency")
    # stopped: the core reported what it measured; interrupted: a loaded machine made
    # it miss the grace period
    assert timer["status"] in (("stopped", "interrupted") if how == "sigint" else ("crashed",))


def test_break_keeps_the_trace_of_the_violating_sample(tmp_path: Path) -> None:
    """--break with --trace: the run stops at the first sample over the limit, and
    that sample (the unit's largest, since every earlier one met the limit) is the
    one the stored trace explains, with the trace file kept."""
    out = tmp_path / "r"
    child = _start(
        tmp_path, out, "--duration", "20s", "--require", "timer.periodic.latency:max<=1ns",
        "--break",
    )  # fmt: skip
    _, err = child.communicate(timeout=240)
    assert child.returncode == 1, err
    doc = json.loads((out / "results.json").read_text())
    timer = next(s for s in doc["scenarios"] if s["name"] == "timer.periodic.latency")
    broke = [r for r in timer["records"] if "break_ns" in str(r.get("message", ""))]
    assert broke, "the core did not say where it stopped"
    index = int(str(broke[0]["message"]).rsplit("sample ", 1)[1])
    worst = doc["requirements"][0]["rows"][0]["worst"]["index"]
    assert worst == index
    traced = [r["trace"] for r in timer["records"] if r.get("type") == "result" and "trace" in r]
    assert traced, err
    first = traced[0]["samples"][0]
    assert first["kind"] == "worst" and first["index"] == index
    assert (out / traced[0]["file"]).is_file()
