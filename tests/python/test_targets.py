# SPDX-License-Identifier: Apache-2.0
"""The target and hook seams of the runner, with a scripted target.

A target wrapping the real core can be told to disappear during one unit (its
stream raises TargetLost, as a dropped SSH session or a dead guest would), and
to refuse to come back. Hooks record what the runner called, in order.
"""

from __future__ import annotations

import io
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from rtbench import targets
from rtbench.errors import CoreError, UsageError
from rtbench.model import catalog
from rtbench.model.catalog import CoreScenario
from rtbench.model.results import RESULTS_FILE, ScenarioOutcome, load
from rtbench.paths import ROOT
from rtbench.run import runner
from rtbench.run.hooks import HookContext
from rtbench.run.progress import Progress
from rtbench.targets.local import LocalTarget
from rtbench.transport import CoreStream, EndOfStream, LocalProcess, TargetLost


class _VanishingStream:
    """A real core stream that loses its target after `after` lines."""

    def __init__(self, inner: CoreStream, after: int) -> None:
        self._inner = inner
        self._left = after

    def read_line(self, timeout_s: float) -> str | None:
        if self._left <= 0:
            self._inner.kill()
            raise TargetLost("the connection dropped")
        line = self._inner.read_line(timeout_s)
        if line is not None:
            self._left -= 1
        return line

    def terminate(self) -> None:
        self._inner.terminate()

    def kill(self) -> None:
        self._inner.kill()

    def wait(self, timeout_s: float) -> int | None:
        return self._inner.wait(timeout_s)

    def stderr_tail(self) -> str:
        return self._inner.stderr_tail()

    def close(self) -> None:
        self._inner.close()


class _ScriptedTransport:
    name = "scripted"

    def __init__(self, core: Path, vanish_in: str, recovers: bool) -> None:
        self._local = LocalProcess(core, child_cpus=set(os.sched_getaffinity(0)))
        self.vanish_in = vanish_in

    def start(self, args: Sequence[str]) -> CoreStream:
        stream = self._local.start(args)
        if self.vanish_in in args:
            return _VanishingStream(stream, after=2)
        return stream

    def describe(self) -> dict[str, str | None]:
        return self._local.describe()


class ScriptedTarget(LocalTarget):
    """This machine, except that it disappears during one unit."""

    kind = "scripted"

    def __init__(self, core: Path, vanish_in: str, recovers: bool) -> None:
        super().__init__("scripted:test")
        self._scripted = _ScriptedTransport(core, vanish_in, recovers)
        self.recovers = recovers
        self.recover_calls = 0
        self.closed = False

    def transport(self) -> Any:
        return self._scripted

    def tuning(self, dma_latency: bool, lift_rt_throttle: bool, cpu: int) -> Any:
        return super().tuning(False, False, cpu)  # leave this machine's settings alone

    def recover(self, say: Any) -> bool:
        self.recover_calls += 1
        return self.recovers

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "kind": self.kind, "spec": self.spec}


class RecordingHook:
    key = "recording"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def start(self, ctx: HookContext) -> None:
        self.calls.append(f"start cpu={ctx.cpu}")

    def before_unit(self, unit: CoreScenario) -> list[str]:
        self.calls.append(f"before {unit.name}")
        return []

    def after_unit(self, unit: CoreScenario, outcome: ScenarioOutcome) -> ScenarioOutcome:
        self.calls.append(f"after {unit.name} {outcome.status}")
        return outcome

    def stop(self) -> None:
        self.calls.append("stop")

    def describe(self) -> dict[str, Any]:
        return {"calls": len(self.calls)}


def _run(tmp_path: Path, target: ScriptedTarget, cpu: int, hook: RecordingHook) -> runner.Run:
    _meta, core_catalog = runner.query_catalog(target.transport(), cpu)
    selection, _ = catalog.select(core_catalog, ["sem.wait.block", "mut.behavior.pi"])
    options = runner.RunOptions(
        profile="quick", patterns=(), cpu=cpu, out_dir=tmp_path, raw_max=100
    )
    ui = runner.Ui(warn=lambda _t: None, info=lambda _t: None)
    run = runner.Run(
        options, target, core_catalog, selection, {}, [], ui,
        Progress(io.StringIO(), interactive=False), "test", hooks=(hook,),
    )  # fmt: skip
    run.execute()
    return run


def _schema_check(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / RESULTS_FILE).read_text())
    schema = json.loads((ROOT / "schema" / "rtbench.schema.json").read_text())
    jsonschema.validate(data, {**schema, "$ref": "#/$defs/results"})
    return data


def test_a_lost_target_that_recovers_loses_one_unit(
    core_binary: Path, measurement_cpu: int, tmp_path: Path
) -> None:
    target = ScriptedTarget(core_binary, vanish_in="sem.wait.block", recovers=True)
    hook = RecordingHook()
    run = _run(tmp_path, target, measurement_cpu, hook)
    statuses = {o.name: o.status for o in run.outcomes}
    assert statuses["sem.wait.block"] == "lost"
    assert statuses["mut.behavior.pi"] == "ok"  # the run went on after recovering
    assert target.recover_calls == 1
    assert run.complete and run.target_gone is None
    data = _schema_check(tmp_path)
    lost = next(s for s in data["scenarios"] if s["name"] == "sem.wait.block")
    assert lost["reason"] == "the connection dropped"
    assert data["run"]["target"] == "scripted:test"
    assert data["run"]["target_info"]["kind"] == "scripted"
    assert data["run"]["conditions"] == {"recording": {"calls": len(hook.calls)}}
    assert hook.calls[0].startswith("start") and hook.calls[-1] == "stop"
    assert "after sem.wait.block lost" in hook.calls
    assert runner.exit_status(load(tmp_path)) == 1  # a lost unit is a failed unit


def test_a_lost_target_that_cannot_recover_stops_the_run_cleanly(
    core_binary: Path, measurement_cpu: int, tmp_path: Path
) -> None:
    target = ScriptedTarget(core_binary, vanish_in="sem.wait.block", recovers=False)
    hook = RecordingHook()
    run = _run(tmp_path, target, measurement_cpu, hook)
    names = [o.name for o in run.outcomes]
    assert names[-1] == "sem.wait.block" and "mut.behavior.pi" not in names
    assert run.target_gone is not None and "could not be recovered" in run.target_gone
    data = _schema_check(tmp_path)
    assert data["run"]["complete"] is False
    cal = next(s for s in data["scenarios"] if s["name"] == "cal.timestamp")
    assert cal["status"] == "ok"  # what was measured before is kept
    assert hook.calls[-1] == "stop"


def test_target_specs_are_checked_in_one_sentence() -> None:
    assert targets.parse("local").kind == "local"
    assert targets.kind_of("ssh://pi@board:2222") == "ssh"
    assert targets.kind_of("qemu:debian-amd64") == "qemu"
    with pytest.raises(UsageError, match="Unknown target 'vax:11'"):
        targets.parse("vax:11")
    with pytest.raises(UsageError, match="Unknown C library"):
        targets.parse("local", libc="bionic")


def test_targets_command_lists_the_kinds(run_cli: Any) -> None:
    done = run_cli("targets", "--json")
    assert done.returncode == 0, done.stderr
    kinds = {row["kind"]: row for row in json.loads(done.stdout)}
    assert kinds["local"]["usable"] is True
    done = run_cli("run", "--target", "vax:11")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "Unknown target 'vax:11'" in done.stderr


def test_a_target_lost_while_listing_is_one_sentence(
    core_binary: Path, measurement_cpu: int
) -> None:
    transport = _ScriptedTransport(core_binary, vanish_in="list", recovers=False)
    with pytest.raises(CoreError, match=r"^The target was lost while rtbench-core listed"):
        runner.query_catalog(transport, measurement_cpu)
    control = _ScriptedTransport(core_binary, vanish_in="run", recovers=False)
    _meta, listed = runner.query_catalog(control, measurement_cpu)
    assert listed


class _SilentStream:
    """A unit that writes nothing for `quiet_s`, then ends without its records."""

    def __init__(self, quiet_s: float) -> None:
        self._until = time.monotonic() + quiet_s
        self.killed = False

    def read_line(self, timeout_s: float) -> str | None:
        if self.killed or time.monotonic() >= self._until:
            raise EndOfStream
        time.sleep(min(timeout_s, 0.05))
        return None

    def terminate(self) -> None:
        self.killed = True

    def kill(self) -> None:
        self.killed = True

    def wait(self, timeout_s: float) -> int | None:
        return -9 if self.killed else 1

    def stderr_tail(self) -> str:
        return ""

    def close(self) -> None:
        pass


class _SlowEmulatorTransport(_ScriptedTransport):
    """sem.wait.block stays silent for 7 s (longer than the watchdog's 5 s of slack);
    `progress_clock`, when given, is the emulator's own clock, at half the host's
    pace (a host busy with other work)."""

    def __init__(self, core: Path, paced: bool) -> None:
        super().__init__(core, vanish_in="", recovers=True)
        self.paced = paced
        self.silent: _SilentStream | None = None

    def start(self, args: Sequence[str]) -> CoreStream:
        if "sem.wait.block" in args:
            self.silent = _SilentStream(7.0)
            return self.silent
        return self._local.start(args)

    def progress_clock(self) -> Any:
        if not self.paced:
            return None
        return lambda: time.monotonic() / 2.0


@pytest.mark.parametrize("paced", [True, False])
def test_the_watchdog_reads_the_clock_the_target_offers(
    core_binary: Path, measurement_cpu: int, tmp_path: Path, paced: bool
) -> None:
    target = ScriptedTarget(core_binary, vanish_in="", recovers=True)
    transport = _SlowEmulatorTransport(core_binary, paced)
    target._scripted = transport
    _meta, core_catalog = runner.query_catalog(transport, measurement_cpu)
    selection, _ = catalog.select(core_catalog, ["sem.wait.block"])
    options = runner.RunOptions(
        profile="quick", patterns=(), cpu=measurement_cpu, out_dir=tmp_path, raw_max=100,
        deadline_scale=0.0001,  # the deadline is the watchdog's slack alone
    )  # fmt: skip
    ui = runner.Ui(warn=lambda _t: None, info=lambda _t: None)
    run = runner.Run(
        options, target, core_catalog, selection, {}, [], ui,
        Progress(io.StringIO(), interactive=False), "test",
    )  # fmt: skip
    run.execute()
    status = {o.name: o.status for o in run.outcomes}["sem.wait.block"]
    assert transport.silent is not None
    if paced:
        # 7 s on the host are 3.5 s of the emulator's progress: inside the slack
        # (it then ends without its records: crashed, not late)
        assert status == "crashed"
    else:
        # negative control: on the host's clock the same unit is late and killed
        assert status == "timeout"


class _GoneBeforeTransport(_ScriptedTransport):
    """The machine is already gone when mut.behavior.pi is first started (the
    watchdog ended it with the unit before)."""

    def __init__(self, core: Path) -> None:
        super().__init__(core, vanish_in="", recovers=True)
        self.refused = 0

    def start(self, args: Sequence[str]) -> CoreStream:
        if "mut.behavior.pi" in args and self.refused == 0:
            self.refused += 1
            raise TargetLost("the image is not running")
        return self._local.start(args)


@pytest.mark.parametrize("recovers", [True, False])
def test_a_target_gone_before_a_unit_starts_is_recovered_for_it(
    core_binary: Path, measurement_cpu: int, tmp_path: Path, recovers: bool
) -> None:
    target = ScriptedTarget(core_binary, vanish_in="", recovers=recovers)
    target._scripted = _GoneBeforeTransport(core_binary)
    run = _run(tmp_path, target, measurement_cpu, RecordingHook())
    statuses = {o.name: o.status for o in run.outcomes}
    assert target.recover_calls == 1  # asked once, never twice for one loss
    if recovers:
        # the unit never ran on the gone machine: it runs on the fresh one
        assert statuses["mut.behavior.pi"] == "ok" and run.target_gone is None
    else:
        assert statuses["mut.behavior.pi"] == "lost"
        assert run.target_gone is not None and "could not be recovered" in run.target_gone
