# SPDX-License-Identifier: Apache-2.0
"""Run hooks: things that happen around every scenario of a run.

A background load, a kernel trace or any other condition of a run is a `RunHook`.
The runner calls `start` once, after the target's settings are applied and before
the first unit; `before_unit` and `after_unit` around every unit (after_unit may
return the outcome with more in it, such as an explanation of its worst samples);
and `stop` on every exit path, Ctrl-C included. What `describe` returns is stored
in results.json as `run.conditions[key]`, so every report can say under which
conditions the figures were measured.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rtbench.model.catalog import CoreScenario
    from rtbench.model.results import ScenarioOutcome
    from rtbench.targets.base import Target


@dataclass(frozen=True)
class HookContext:
    """What a hook may know about the run it belongs to."""

    cpu: int
    out_dir: Path
    profile: str
    target: Target
    warn: Callable[[str], None]
    info: Callable[[str], None]


class RunHook(Protocol):
    """One condition of a run, started and stopped by the runner."""

    key: str

    def start(self, ctx: HookContext) -> None:
        """Once, before the first unit. Raise RtbenchError to refuse the run."""
        ...

    def before_unit(self, unit: CoreScenario) -> list[str]:
        """Just before `unit` starts; returns extra core arguments (usually none)."""
        ...

    def after_unit(self, unit: CoreScenario, outcome: ScenarioOutcome) -> ScenarioOutcome:
        """Just after `unit` ended, whatever its status; returns the outcome to store."""
        ...

    def stop(self) -> None:
        """On every exit path; idempotent; never raises."""
        ...

    def describe(self) -> dict[str, Any]:
        """JSON data stored as `run.conditions[key]`."""
        ...
