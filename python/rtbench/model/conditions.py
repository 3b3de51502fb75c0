# SPDX-License-Identifier: Apache-2.0
"""What a run's conditions (`run.conditions` in results.json, written by the run
hooks) say, read back by reports, comparisons and the store.

`LOAD_KEY` is where the background load (run.load) describes itself.
"""

from __future__ import annotations

from typing import Any

LOAD_KEY = "load"


def load_summary(conditions: Any) -> str | None:
    """`under load: sched, memory, io, network (hackbench, stress-ng) on CPUs 0,1`
    from run.conditions, or None for a run without load."""
    if not isinstance(conditions, dict) or not isinstance(conditions.get(LOAD_KEY), dict):
        return None
    load = conditions[LOAD_KEY]
    tools = ", ".join(str(t.get("tool")) for t in load.get("tools", []) if isinstance(t, dict))
    cpus = ",".join(str(c) for c in load.get("cpus", []))
    text = f"under load: {', '.join(load.get('kinds', []))} ({tools}) on CPU(s) {cpus}"
    if load.get("on_measurement_cpu"):
        text += ", measured CPUs included at SCHED_OTHER"
    return text
