# SPDX-License-Identifier: Apache-2.0
"""Run hooks: things that run beside the measurement (a background load, a
tracer) and take part in every unit of a run.

`runner.Run(..., hooks=(...))` calls `start` once after the host settings are
applied and before the first unit, `before_unit` / `after_unit` around every
unit (`before_unit` may add core arguments, `after_unit` may add to the
outcome), and `stop` on every exit path. `describe()` is stored in
results.json as `run.conditions[key]`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from rtbench.catalog import CoreScenario
from rtbench.results import ScenarioOutcome


@dataclass(frozen=True)
class HookContext:
    """What a hook is told when the run starts."""

    cpu: int  # measurement CPU
    out_dir: Path  # the results directory
    profile: str
    target: Any  # the target under test (rtbench.targets.base.Target)
    warn: Callable[[str], None]
    info: Callable[[str], None]


class RunHook(Protocol):
    """One participant of a run; see the module text for when each call comes."""

    key: str  # its entry in results.json run.conditions

    def start(self, ctx: HookContext) -> None: ...

    def before_unit(self, unit: CoreScenario) -> list[str]: ...

    def after_unit(self, unit: CoreScenario, outcome: ScenarioOutcome) -> ScenarioOutcome: ...

    def stop(self) -> None: ...

    def describe(self) -> dict[str, Any]: ...
