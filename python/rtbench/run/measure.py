# SPDX-License-Identifier: Apache-2.0
"""--cpus, --duration, --length and --break: how long and where scenarios measure.

They reach the core as scenario options, and only for a unit that declares
them: `cpu_mask` (bit N: one measuring thread on CPU N), `duration_ms`, and
`break_ns` (timer.periodic.latency stops at the first sample above it). A
longer duration moves the unit's deadline with it: the core's time budget
(`--deadline-ms`, 80 % of it) and the runner's watchdog follow, so a two-hour
run is neither cut short nor killed. The core's progress records carry the
current and largest latency so far per CPU (`live`), which the progress line
shows on a terminal.

`--length TIME` scales a whole profile to about that wall time: the ratio of
TIME to the selected units' catalog estimates reaches the core as
`--length-ppm`, which multiplies every length option (iterations, durations,
rounds, the long phases) the user did not set, so a fifteen-hour endurance
profile can be run end to end in an hour, or a quick one stretched. Deadlines
grow with a scale above one and never shrink.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rtbench.errors import UsageError
from rtbench.model import units
from rtbench.model.catalog import CoreScenario

CPU_MASK_BITS = 64
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h)\s*$")
_NEGATIVE = re.compile(r"^\s*-\s*\.?\d")
_DURATION_MS = {"ms": 1, "s": 1000, "m": 60_000, "min": 60_000, "h": 3_600_000}
DURATION_MAX_MS = 864_000_000  # ten days: the scenarios' own bound
PPM_ONE = 1_000_000
PPM_MAX = 1_000_000_000  # the core's bound: a thousand times the profile


def parse_duration(text: str, flag: str = "--duration") -> int:
    """`60s`, `10m`, `2h`, `500ms` -> milliseconds; UsageError otherwise."""
    m = _DURATION.match(text)
    if _NEGATIVE.match(text) or (m is not None and float(m.group(1)) == 0):
        raise UsageError(f"{flag} '{text}' must be a positive duration (60s, 10m, 2h).")
    if m is None:
        raise UsageError(
            f"{flag} '{text}' is not a duration (use a number and ms, s, m or h: 60s, 10m, 2h)."
        )
    ms = round(float(m.group(1)) * _DURATION_MS[m.group(2)])
    if not 20 <= ms <= DURATION_MAX_MS:
        raise UsageError(f"{flag} '{text}' must be between 20 ms and 10 days.")
    return ms


def length_ppm(length_ms: int, chosen: Sequence[CoreScenario], profile: str) -> int:
    """The core's --length-ppm that brings these units' catalog estimates for
    the profile to about length_ms; UsageError when no scale can."""
    estimate_ms = sum(int(u.estimate_ms[profile]) for u in chosen)
    if estimate_ms <= 0:
        raise UsageError(
            f"--length: the selected scenarios have no time estimate in '{profile}' to scale."
        )
    ppm = round(length_ms * PPM_ONE / estimate_ms)
    if not 1 <= ppm <= PPM_MAX:
        est = units_format(estimate_ms)
        raise UsageError(
            f"--length {units_format(length_ms)} is out of reach: the '{profile}' profile of "
            f"these scenarios takes about {est}, and it can be scaled by 1/1000000 to 1000."
        )
    return ppm


def scaled_deadline_ms(unit: CoreScenario, profile: str, ppm: int) -> int:
    """The deadline the core gives a unit under --length-ppm (its
    rtb_scaled_deadline_ms): scaled, never below the quick profile's."""
    ms = int(unit.deadline_ms[profile])
    if ppm == PPM_ONE:
        return ms
    scaled = ms * ppm // PPM_ONE
    if ppm < PPM_ONE:
        return max(scaled, min(int(unit.deadline_ms["quick"]), ms))
    return scaled


def units_format(ms: int) -> str:
    return units.format_seconds(ms / 1000)


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
    # --length: what was asked, the scale the core applies, the catalog's estimate
    length_ms: int | None = None
    length_ppm: int = PPM_ONE
    length_estimate_ms: int | None = None

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
        if self.length_ppm != PPM_ONE:
            args += ["--length-ppm", str(self.length_ppm)]
        return args

    def estimate_s(self, unit: CoreScenario, profile: str) -> float:
        """The unit's expected time under --length (for the progress line)."""
        return float(unit.estimate_ms[profile]) / 1000.0 * self.length_ppm / PPM_ONE

    def deadline_ms(self, unit: CoreScenario, profile: str) -> int:
        """The unit's deadline: the catalog's, or longer for a longer --duration
        (a quarter more, plus 10 s for the set-up and the report), scaled with
        --length as the core scales it."""
        base = scaled_deadline_ms(unit, profile, self.length_ppm)
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
        if self.length_ms is not None:
            data["length"] = {
                "requested_ms": self.length_ms,
                "ppm": self.length_ppm,
                "catalog_estimate_ms": self.length_estimate_ms,
            }
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
