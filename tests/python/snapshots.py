# SPDX-License-Identifier: Apache-2.0
"""What the tests of the system snapshot (rtbench.system) share: its sections, the
codes of its caveats, and what a snapshot of a system nothing was read of says."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from rtbench import system

# the sections that do not change by themselves between two snapshots
STABLE_SECTIONS = (
    "kernel",
    "rt_throttling",
    "cpus",
    "measurement_cpu",
    "frequency",
    "cpuidle",
    "clocksource",
    "virtualization",
    "libc",
    "privileges",
    "memory",
    "tracing",
    "irqbalance",
)
# every section of a snapshot
SECTIONS = frozenset(STABLE_SECTIONS) | {
    "snapshot_version",
    "taken_at",
    "hostname",
    "python",
    "cpu_dma_latency",
    "kernel_knobs",
    "load",
    "elapsed_s",
}


def codes(cavs: list[dict[str, str]]) -> set[str]:
    """The codes of caveats."""
    return {c["code"] for c in cavs}


def assert_all_unknown(snap: dict[str, Any], facts: Iterable[str], caveats: Iterable[str]) -> str:
    """A snapshot of a system nothing was read of: it is JSON, each of `facts` (a
    dotted path) is unknown (None), none of `caveats` is raised on facts it does not
    have, and it renders; the text."""
    json.dumps(snap, allow_nan=False)
    for path in facts:
        value: Any = snap
        for key in path.split("."):
            value = value[key]
        assert value is None, path
    found = codes(system.caveats(snap))
    for code in caveats:
        assert code not in found, code
    return system.render(snap, system.caveats(snap))
