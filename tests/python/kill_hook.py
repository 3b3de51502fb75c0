# SPDX-License-Identifier: Apache-2.0
"""A run hook for the tests of lost targets: it kills the emulator of a QEMU
target (a Debian guest or a firmware board) `after_s` into one unit."""

from __future__ import annotations

import io
import os
import signal
import threading
from pathlib import Path
from typing import Any, Protocol

from rtbench.model import catalog
from rtbench.model.catalog import CoreScenario
from rtbench.model.results import ResultsDocument, ScenarioOutcome
from rtbench.run import runner
from rtbench.run.hooks import HookContext
from rtbench.run.progress import Progress


class _Machine(Protocol):
    @property
    def pid(self) -> int | None: ...


class _Target(Protocol):
    @property
    def machine(self) -> _Machine | None: ...


class KillQemu:
    """A run hook that kills the target's QEMU `after_s` into one unit."""

    key = "kill_qemu"

    def __init__(self, target: _Target, unit: str, after_s: float) -> None:
        self.target = target
        self.unit = unit
        self.after_s = after_s
        self.killed: list[int] = []
        self._timer: threading.Timer | None = None

    def start(self, ctx: HookContext) -> None:
        return None

    def _kill(self) -> None:
        machine = self.target.machine
        if machine is not None and machine.pid is not None:
            self.killed.append(machine.pid)
            os.kill(machine.pid, signal.SIGKILL)

    def before_unit(self, unit: CoreScenario) -> list[str]:
        if unit.name == self.unit and not self.killed:
            self._timer = threading.Timer(self.after_s, self._kill)
            self._timer.start()
        return []

    def after_unit(self, unit: CoreScenario, outcome: ScenarioOutcome) -> ScenarioOutcome:
        return outcome

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def describe(self) -> dict[str, Any]:
        return {"unit": self.unit, "killed": list(self.killed)}


def run_killing(
    target: Any, victim: str, others: list[str], after_s: float, out: Path
) -> tuple[runner.Run, ResultsDocument, KillQemu]:
    """Run `victim` then `others` on an opened target through the runner, its QEMU
    killed `after_s` into `victim`: the run, its results document and the hook."""
    said: list[str] = []
    cpu = target.check_cpu(None)
    _meta, core_catalog = runner.query_catalog(target.transport(), cpu)
    selection, _ = catalog.select(core_catalog, [victim, *others])
    hook = KillQemu(target, victim, after_s=after_s)
    options = runner.RunOptions(profile="quick", patterns=(), cpu=cpu, out_dir=out)
    out.mkdir()
    run = runner.Run(
        options, target, core_catalog, selection, target.snapshot(cpu, False), [],
        runner.Ui(warn=said.append, info=said.append),
        Progress(io.StringIO(), interactive=False), "lost", hooks=(hook,),
    )  # fmt: skip
    return run, run.execute(), hook
