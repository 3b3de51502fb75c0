# SPDX-License-Identifier: Apache-2.0
"""The code paths of a run traced on an emulated board, as a Chrome trace-event
JSON file that Perfetto's UI opens.

One process per unit, one track per kept sample (the typical and worst first,
then the others), and on each track the functions the sample ran through, in
order, as back-to-back slices. The time axis counts instructions: one
microsecond on it is one instruction (the file says so in `otherData`), so a
slice's length is the instructions spent in that function before the path
left it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rtbench.errors import UsageError
from rtbench.model.results import ResultsDocument
from rtbench.trace.export.stored import write_json
from rtbench.trace.kernel.render import metric_name


def _samples(detail: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for metric in detail.get("metrics", []):
        name = metric_name(metric)
        for s in metric.get("samples", []):
            if s.get("found") and s.get("timeline"):
                found.append((name, s))
    return found


def build(doc: ResultsDocument, root: Path) -> dict[str, Any]:
    condition = (doc.run.conditions or {}).get("path_trace") or {}
    meta: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    for pid, (unit, info) in enumerate((condition.get("units") or {}).items(), start=1):
        path = root / str(info.get("file", ""))
        try:
            detail = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a unit whose paths were not written (a lost unit)
        meta.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": unit}})
        for tid, (name, s) in enumerate(_samples(detail), start=1):
            label = f"{name} {s['kind']} #{s['rank']} ({s['value']}: {s['instructions']} insns)"
            meta.append(
                {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                 "args": {"name": label}}
            )  # fmt: skip
            at = 0
            for function, n in s["timeline"]:
                out.append(
                    {"name": function, "cat": "handler" if function in s["handlers"] else
                     "function", "ph": "X", "ts": at, "dur": n, "pid": pid, "tid": tid}
                )  # fmt: skip
                at += n
    if not out:
        raise UsageError("The run's code paths hold no sample that was found in the log.")
    return {
        "traceEvents": meta + out,
        "displayTimeUnit": "ns",
        "otherData": {
            "tool": "rtbench",
            "run": doc.run.id,
            "time_axis": "instructions: 1 us on this timeline is one instruction",
            "ns_per_instruction": _ns_per_instruction(condition),
        },
    }


def _ns_per_instruction(condition: dict[str, Any]) -> int | None:
    shift = condition.get("icount_shift")
    return None if shift is None else 2 ** int(shift)


def has_paths(doc: ResultsDocument) -> bool:
    """Whether the run holds code paths (and no kernel trace)."""
    conditions = doc.run.conditions or {}
    return bool((conditions.get("path_trace") or {}).get("traced")) and not conditions.get("trace")


def export(doc: ResultsDocument, root: Path, dest: Path) -> Path:
    """Write the code paths of `doc`, stored in the folder `root`, to `dest`."""
    write_json(dest, build(doc, root))
    return dest
