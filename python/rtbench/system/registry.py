# SPDX-License-Identifier: Apache-2.0
"""The caveat registry: each check is registered once, under its code.

A check reads a snapshot (a plain dict, possibly read back from an older results file,
so any key may be missing) and returns a `Finding` or None. The registry adds the code;
the list of codes, which tests and docs/system.md follow, comes from here and is never
kept by hand. `caveats` puts the checks in order (by module, then as defined).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rtbench.system.parse import format_cpu_list

SnapshotDict = dict[str, Any]


@dataclass(frozen=True)
class Finding:
    severity: str  # "warning": it changes the numbers; "info": context or a refinement
    message: str  # what it does to the results
    advice: str  # what to do about it


Check = Callable[[SnapshotDict], Finding | None]

_CHECKS: dict[str, Check] = {}


def caveat(code: str) -> Callable[[Check], Check]:
    """Register a check under `code` (a decorator)."""

    def register(check: Check) -> Check:
        if code in _CHECKS:
            raise ValueError(f"caveat code {code!r} is registered twice")
        _CHECKS[code] = check
        return check

    return register


def registered() -> list[tuple[str, Check]]:
    """(code, check) of every registered check, in the order of registration."""
    return list(_CHECKS.items())


def evaluate(snap: SnapshotDict, checks: list[tuple[str, Check]]) -> list[dict[str, str]]:
    """The checks on `snap`, warnings first, then information (each in check order)."""
    found = []
    for code, check in checks:
        finding = check(snap)
        if finding is not None:
            found.append(
                {
                    "code": code,
                    "severity": finding.severity,
                    "message": finding.message,
                    "advice": finding.advice,
                }
            )
    return sorted(found, key=lambda c: c["severity"] != "warning")


# ---- reading a snapshot that may lack any key ---------------------------------------


def get(snap: Any, *keys: str) -> Any:
    value: Any = snap
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def cpu_of(snap: SnapshotDict) -> int | None:
    cpu = get(snap, "measurement_cpu", "cpu")
    return cpu if isinstance(cpu, int) else None


def usable(snap: SnapshotDict) -> list[int]:
    cpus = get(snap, "cpus", "usable")
    return [c for c in cpus if isinstance(c, int)] if isinstance(cpus, list) else []


def cpu_list(cpus: list[int]) -> str:
    return format_cpu_list(cpus)
