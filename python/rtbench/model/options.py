# SPDX-License-Identifier: Apache-2.0
"""Scenario options (`--set key=value`): what each run unit declares, and the check of
what the user gives before anything runs.

The core declares, per run unit, every option it reads (`rtbench-core list`): a
whole number within a range, one of a few words, or a flag. An option no selected
unit declares, or a value outside what the units that declare it accept, is bad input:
one sentence naming the valid keys, exit status 2, nothing measured.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rtbench.errors import UsageError

_FLAG_WORDS = ("1", "0", "true", "false", "yes", "no", "on", "off")


@dataclass(frozen=True)
class OptionSpec:
    """One option a run unit reads."""

    key: str
    kind: str  # "count", "choice" or "flag"
    help: str
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()
    length: bool = False  # sets how long the unit runs: `run --length` scales it

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> OptionSpec:
        choices = str(data.get("choices", ""))
        return cls(
            key=str(data["key"]),
            kind=str(data["kind"]),
            help=str(data.get("help", "")),
            min=int(data["min"]) if "min" in data else None,
            max=int(data["max"]) if "max" in data else None,
            choices=tuple(w for w in choices.split("|") if w),
            length=data.get("length") is True,
        )

    def accepts(self) -> str:
        """What values it takes, in words: '1..1000000', 'inherit|none', '0/1'."""
        if self.kind == "count":
            return f"{self.min}..{self.max}"
        if self.kind == "choice":
            return "|".join(self.choices)
        return "1/0, true/false, yes/no, on/off"

    def problem(self, value: str) -> str | None:
        """Why `value` is not valid, or None."""
        if self.kind == "count":
            if not value.isdigit():
                return "is not a whole number"
            number = int(value)
            if self.min is not None and number < self.min:
                return f"is below {self.min} (valid: {self.accepts()})"
            if self.max is not None and number > self.max:
                return f"is above {self.max} (valid: {self.accepts()})"
            return None
        if self.kind == "choice":
            return None if value in self.choices else f"is not one of {self.accepts()}"
        return None if value in _FLAG_WORDS else f"is not one of {self.accepts()}"


def check_sets(pairs: Sequence[tuple[str, str]], units: Iterable[Any]) -> None:
    """Refuse an option no selected unit declares, and a value a declaring unit rejects."""
    declared: dict[str, list[tuple[str, OptionSpec]]] = {}
    for unit in units:
        for spec in unit.options:
            declared.setdefault(spec.key, []).append((unit.name, spec))
    for key, value in pairs:
        if key not in declared:
            valid = ", ".join(sorted(declared)) or "none"
            raise UsageError(
                f"--set {key}: no selected scenario has this option (valid keys: {valid}; "
                "`rtbench list --options` describes them)."
            )
        for unit_name, spec in declared[key]:
            why = spec.problem(value)
            if why is not None:
                raise UsageError(f"--set {key}={value}: the value {why} for {unit_name}.")


def render(units: Iterable[Any]) -> str:
    """The options of each run unit, for `rtbench list --options`."""
    lines: list[str] = []
    for unit in units:
        if not unit.options:
            continue
        lines.append(unit.name)
        width = max(len(o.key) for o in unit.options)
        for o in unit.options:
            scaled = " (scaled by --length)" if o.length else ""
            lines.append(f"  {o.key:<{width}}  {o.accepts():<24}  {o.help}{scaled}")
    lines.append("")
    lines.append(
        "Give them with `rtbench run --set KEY=VALUE`; counts named like `iterations` "
        "apply to every selected scenario that has them."
    )
    return "\n".join(lines) + "\n"
