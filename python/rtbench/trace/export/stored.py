# SPDX-License-Identifier: Apache-2.0
"""A traced results directory, read back for the exports: the units' trace files on one
timeline, and the kept samples with their explanations."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtbench.errors import UsageError
from rtbench.model.results import ResultsDocument, load
from rtbench.trace.kernel.events import Event, read_events


@dataclass(frozen=True)
class TracedUnit:
    name: str
    file: Path
    units_per_ns: float
    samples: list[dict[str, Any]]  # explained samples, each with scenario/metric added
    first_sync: int | None  # trace timestamps of the unit's first and last sync marker
    last_sync: int | None


@dataclass(frozen=True)
class TracedRun:
    doc: ResultsDocument
    cpu: int
    clock: str
    units: list[TracedUnit]

    def events(self, unit: TracedUnit) -> Iterator[Event]:
        return read_events(unit.file)


def load_traced(path: Path, doc: ResultsDocument | None = None) -> TracedRun:
    """The traced run stored in `path` (its results already read: `doc`); UsageError
    when it holds no kernel trace."""
    doc = doc if doc is not None else load(path)
    root = path if path.is_dir() else path.parent
    condition = (doc.run.conditions or {}).get("trace")
    if not isinstance(condition, dict) or not condition.get("traced"):
        raise UsageError(f"{root} holds a run made without --trace; there is no trace to export.")
    units: list[TracedUnit] = []
    for outcome in doc.scenarios:
        info = (condition.get("units") or {}).get(outcome.name)
        if not isinstance(info, dict) or not info.get("clock_map"):
            continue
        file = root / str(info["file"])
        if not file.is_file():
            raise UsageError(f"{file} is missing; the trace of {outcome.name} cannot be exported.")
        samples = []
        for record in outcome.of_type("result"):
            trace = record.get("trace")
            if isinstance(trace, dict):
                for s in trace.get("samples", []):
                    samples.append(
                        {**s, "scenario": record["scenario"], "metric": record["metric"]}
                    )
        units.append(
            TracedUnit(
                name=outcome.name,
                file=file,
                units_per_ns=float(info["clock_map"]["trace_units_per_ns"]),
                samples=samples,
                first_sync=info.get("first_sync"),
                last_sync=info.get("last_sync"),
            )
        )
    if not units:
        raise UsageError(f"{root} was traced, but no unit's trace was kept.")
    return TracedRun(doc, doc.run.cpu, str(condition.get("clock")), units)


def write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", encoding="utf-8") as f:
        json.dump(data, f, separators=(",", ":"))
    tmp.replace(path)
