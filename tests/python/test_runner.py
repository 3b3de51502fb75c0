# SPDX-License-Identifier: Apache-2.0
"""The runner against the real core and a misbehaving fake one: watchdog,
interruption, crashes, invalid output, runs without real-time privileges."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import RunCli, fake_core_env, read_results
from rtbench import build
from rtbench.model import results
from rtbench.paths import ROOT

# reads or changes this machine's real-time settings (conftest.py)
pytestmark = pytest.mark.host_settings

RT_RUNTIME = Path("/proc/sys/kernel/sched_rt_runtime_us")


def by_name(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in data["scenarios"]}


def test_watchdog_kills_an_overrunning_scenario(run_cli: RunCli, tmp_path: Path) -> None:
    out = tmp_path / "out"
    started = time.monotonic()
    done = run_cli(
        "run", "--only", "sem.wait.*", "--set", "rounds=100000000", "--raw-max", "100",
        "--out", str(out), env={"RTBENCH_DEADLINE_SCALE": "0.0001"},
    )  # fmt: skip
    took = time.monotonic() - started
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    scenarios = by_name(read_results(out))
    assert scenarios["cal.timestamp"]["status"] == "ok"
    assert scenarios["sem.wait.block"]["status"] == "timeout"
    assert "watchdog" in scenarios["sem.wait.block"]["reason"]
    # The run went on: the scenario after the timed-out one was not skipped,
    # and nothing waited for the core's own 60 s deadline.
    assert scenarios["sem.wait.available"]["status"] in ("ok", "timeout")
    assert took < 50
    assert "TIMEOUT" in done.stdout


@pytest.mark.parametrize("signo", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_interruption_keeps_results_and_restores_settings(
    core_binary: Path, tmp_path: Path, signo: signal.Signals
) -> None:
    out = tmp_path / "out"
    before = RT_RUNTIME.read_text()
    # a private lock folder, as every other test's runs: another run elsewhere on the
    # machine must not make this one wait or refuse
    env = dict(
        os.environ, PYTHONPATH=str(ROOT / "python"), NO_COLOR="1", RTBENCH_LOCK_DIR=str(tmp_path)
    )
    env.pop(build.CORE_ENV, None)
    child = subprocess.Popen(
        [sys.executable, "-m", "rtbench", "run", "--only", "sem.wait.available", "sem.wait.block",
         "--lift-rt-throttle", "--set", "rounds=100000000", "--out", str(out)],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        # Wait until the long scenario runs: two units are finished by then.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            time.sleep(0.2)
            try:
                data = json.loads((out / "results.json").read_text())
            except (OSError, ValueError):
                continue
            if len(data["scenarios"]) - _not_implemented(data) >= 2:
                break
        else:
            raise AssertionError("the run did not reach sem.wait.block")
        time.sleep(1.0)
        during = RT_RUNTIME.read_text()
        child.send_signal(signo)
        stdout, stderr = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert RT_RUNTIME.read_text() == before
    data = read_results(out)
    assert data["run"]["complete"] is False
    assert data["run"]["interrupted"] is True
    scenarios = by_name(data)
    assert scenarios["cal.timestamp"]["status"] == "ok"
    assert scenarios["sem.wait.available"]["status"] == "ok"
    assert scenarios["sem.wait.block"]["status"] in ("stopped", "interrupted")
    changes = [c for c in data["settings"]["changes"] if "rt_runtime" in c["setting"]]
    if changes:
        assert during != before
        assert all(c["restored"] is True for c in changes)
        # the stored caveats and the warnings describe the run, throttling lifted
        throttling = [c for c in data["caveats"] if c["code"] == "rt_throttling"]
        assert all(c["severity"] == "info" for c in throttling)
        assert "RT throttling is on" not in stderr
    assert str(out) in stderr
    assert (out / "report.html").is_file()
    assert "INCOMPLETE" in stdout


def _not_implemented(data: dict[str, Any]) -> int:
    return sum(1 for s in data["scenarios"] if s["status"] == "not_implemented")


def _misbehaving_run(
    run_cli: RunCli, core_binary: Path, tmp_path: Path, mode: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """`rtbench run` of sem.wait.available and sem.wait.block with the fake core
    misbehaving (`mode`) in sem.wait.available: the run goes on to sem.wait.block
    and ends with exit status 1. The process, and sem.wait.available as stored."""
    out = tmp_path / "out"
    env = fake_core_env(core_binary, mode, "sem.wait.available")
    done = run_cli("run", "--only", "sem.wait.*", "--raw-max", "10", "--out", str(out), env=env)
    assert done.returncode == 1, done.stderr
    scenarios = by_name(read_results(out))
    assert scenarios["sem.wait.block"]["status"] == "ok"
    return done, scenarios["sem.wait.available"]


def test_crashed_scenario_is_recorded_and_the_run_goes_on(
    run_cli: RunCli, core_binary: Path, tmp_path: Path
) -> None:
    done, crashed = _misbehaving_run(run_cli, core_binary, tmp_path, "crash")
    assert crashed["status"] == "crashed"
    assert "SIGSEGV" in crashed["reason"]
    assert crashed["meta"] is not None
    assert any(r["type"] == "log" for r in crashed["records"])
    assert "about to crash" in crashed["stderr_tail"]
    assert "CRASHED" in done.stdout


def test_invalid_record_is_an_error_of_that_scenario(
    run_cli: RunCli, core_binary: Path, tmp_path: Path
) -> None:
    _, bad = _misbehaving_run(run_cli, core_binary, tmp_path, "badrecord")
    assert bad["status"] == "error"
    assert any("stats" in e for e in bad["errors"])
    # The valid records of the same process are kept.
    assert any(r["type"] == "result" for r in bad["records"])


def test_other_protocol_version_is_refused(
    run_cli: RunCli, core_binary: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    env = fake_core_env(core_binary, "badversion", "sem.wait.available")
    done = run_cli("run", "--only", "sem.wait.available", "--out", str(out), env=env)
    assert done.returncode == 1, done.stderr
    refused = by_name(read_results(out))["sem.wait.available"]
    assert refused["status"] == "error"
    assert "protocol version" in refused["reason"]


def test_run_without_realtime_is_marked(run_cli: RunCli, core_binary: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = fake_core_env(core_binary, "norealtime")
    done = run_cli("run", "--only", "sem.wait.available", "--raw-max", "10", "--out", str(out),
                   env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "NOT REAL-TIME" in done.stderr
    data = read_results(out)
    assert data["run"]["realtime"] is False
    assert data["run"]["complete"] is True
    shown = run_cli("show", str(out))
    assert shown.returncode == 0
    assert "NOT REAL-TIME" in shown.stdout
    assert "NOT REAL-TIME" in (out / "report.html").read_text()


def test_results_are_written_after_every_scenario(tmp_path: Path) -> None:
    # A document as the runner writes it between two scenarios loads again.
    doc = results.load(Path(__file__).parent / "fixtures" / "results-quick")
    partial = results.ResultsDocument(
        run=doc.run, host=doc.host, caveats=doc.caveats, settings=doc.settings,
        calibration=doc.calibration, scenarios=doc.scenarios[:1],
    )  # fmt: skip
    results.write_document(tmp_path, partial)
    assert results.load(tmp_path).scenarios == doc.scenarios[:1]
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]
