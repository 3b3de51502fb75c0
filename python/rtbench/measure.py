# SPDX-License-Identifier: Apache-2.0
"""--cpus, --duration and --break: how the timer and noise scenarios measure.

They reach the core as scenario options, and only for a unit that declares
them: `cpu_mask` (bit N: one measuring thread on CPU N), `duration_ms`, and
`break_ns` (timer.periodic.latency stops at the first sample above it). A
longer duration moves the unit's deadline with it: the core's time budget
(`--deadline-ms`, 80 % of it) and the runner's watchdog follow, so a two-hour
run is neither cut short nor killed. The core's progress records carry the
current and largest latency so far per CPU (`live`), which the progress line
shows on a terminal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rtbench import units
from rtbench.catalog import CoreScenario
from rtbench.errors import UsageError

CPU_MASK_BITS = 64
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h)\s*$")
_DURATION_MS = {"ms": 1, "s": 1000, "m": 60_000, "min": 60_000, "h": 3_600_000}
DURATION_MAX_MS = 864_000_000  # ten days: the scenarios' own bound


def parse_duration(text: str) -> int:
    """`60s`, `10m`, `2h`, `500ms` -> milliseconds; UsageError otherwise."""
    m = _DURATION.match(text)
    if m is None:
        raise UsageError(
            f"--duration '{text}' is not a duration (use a number and ms, s, m or h: 60s, 10m, 2h)."
        )
    ms = round(float(m.group(1)) * _DURATION_MS[m.group(2)])
    if not 20 <= ms <= DURATION_MAX_MS:
        raise UsageError(f"--duration '{text}' must be between 20 ms and 10 days.")
    return ms


def parse_cpus(text: str, usable: Sequence[int]) -> tuple[int, ...]:
    """`all` or a list like `0,2-3` -> CPUs, each online and allowed."""
    if text.strip() == "all":
        return tuple(sorted(usable))
    cpus: set[int] = set()
    for part in text.split(","):
        m = re.match(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$", part)
        if m is None:
            raise UsageError(f"--cpus '{text}' is not 'all' or a list like 0,2-3.")
        low = int(m.group(1))
        high = int(m.group(2)) if m.group(2) else low
        if high < low:
            raise UsageError(f"--cpus '{text}': the range {part.strip()} runs backwards.")
        cpus.update(range(low, high + 1))
    bad = sorted(c for c in cpus if c not in usable)
    if bad:
        listed = ", ".join(str(c) for c in usable)
        raise UsageError(
            f"--cpus: CPU {bad[0]} is not online or not allowed for this process "
            f"(usable: {listed})."
        )
    if max(cpus) >= CPU_MASK_BITS:
        raise UsageError(f"--cpus: CPUs from {CPU_MASK_BITS} up cannot be named yet.")
    return tuple(sorted(cpus))


def _declares(unit: CoreScenario, key: str) -> bool:
    return any(o.key == key for o in unit.options)


@dataclass(frozen=True)
class MeasureOptions:
    """What --cpus, --duration and --break asked for."""

    cpus: tuple[int, ...] = ()
    duration_ms: int | None = None
    # --break: scenario -> the tightest latency limit in ns
    break_ns: Mapping[str, float] = field(default_factory=dict)
    break_on_violation: bool = False

    def cpus_for(self, unit: CoreScenario, cpu: int) -> tuple[int, ...]:
        """The CPUs a unit measures on: --cpus when it takes them, else the one CPU."""
        if self.cpus and _declares(unit, "cpu_mask"):
            return self.cpus
        return (cpu,)

    def core_args(self, unit: CoreScenario, profile: str, cpu: int) -> list[str]:
        args: list[str] = []
        if self.cpus and _declares(unit, "cpu_mask"):
            mask = sum(1 << c for c in self.cpus)
            args += ["--set", f"cpu_mask={mask}"]
        if self.duration_ms is not None and _declares(unit, "duration_ms"):
            args += ["--set", f"duration_ms={self.duration_ms}"]
            args += ["--deadline-ms", str(self.deadline_ms(unit, profile))]
        limit = self.break_ns.get(unit.name)
        if self.break_on_violation and limit is not None and _declares(unit, "break_ns"):
            args += ["--set", f"break_ns={max(int(limit), 0)}"]
        return args

    def deadline_ms(self, unit: CoreScenario, profile: str) -> int:
        """The unit's deadline: the catalog's, or longer for a longer --duration
        (a quarter more, plus 10 s for the set-up and the report)."""
        base = int(unit.deadline_ms[profile])
        if self.duration_ms is None or not _declares(unit, "duration_ms"):
            return base
        return max(base, self.duration_ms * 5 // 4 + 10_000)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.cpus:
            data["cpus"] = list(self.cpus)
        if self.duration_ms is not None:
            data["duration_ms"] = self.duration_ms
        if self.break_on_violation:
            data["break"] = True
        return data


def live_text(record: Mapping[str, Any]) -> str | None:
    """`CPU0 now 12.1 µs max 48.0 µs  CPU1 ...` from a progress record's `live`."""
    live = record.get("live")
    if not isinstance(live, list) or not live:
        return None
    parts = []
    for item in live:
        if not isinstance(item, Mapping):
            continue
        now = units.format_duration(float(item.get("now_ns", 0)))
        top = units.format_duration(float(item.get("max_ns", 0)))
        parts.append(f"CPU{item.get('cpu')} now {now} max {top}")
    return "  ".join(parts) or None
