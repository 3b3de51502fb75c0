# SPDX-License-Identifier: Apache-2.0
"""The results directory of a run: the data model, results.json, raw samples.

A results directory holds `results.json` (the document: run information, host
snapshot, caveats, changed settings, calibration, and per scenario its status
and every record the core wrote except raw samples), `samples/*.csv` (the raw
series, one file per metric) and the rendered reports. results.json is
rewritten atomically after every scenario, so an interruption or a crash keeps
everything measured until then.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtbench import __version__
from rtbench.errors import ResultsError
from rtbench.model import units
from rtbench.model.catalog import CatalogId
from rtbench.model.records import (
    PROTOCOL_VERSION,
    RESULTS_SCHEMA,
    RESULTS_SCHEMA_VERSION,
    RecordError,
    validate,
)
from rtbench.model.summary import MetricSummary, summarize

RESULTS_FILE = "results.json"
SAMPLES_DIR = "samples"
HISTOGRAMS_DIR = "histograms"
REPORT_FILE = "report.html"

STATUSES = (
    "ok",
    "stopped",
    "unsupported",
    "error",
    "timeout",
    "crashed",
    "interrupted",
    "not_implemented",
    "lost",
)
# `lost`: the target itself went away (guest ended, connection dropped) during the unit.
FAILED_STATUSES = ("error", "timeout", "crashed", "lost")

Json = dict[str, Any]


@dataclass(frozen=True)
class SamplesFile:
    """A metric's raw series stored as `index,value` CSV under samples/."""

    scenario: str
    metric: str
    params: Mapping[str, Any]
    path: str
    count: int
    unit: str

    def to_json(self) -> Json:
        return {
            "scenario": self.scenario,
            "metric": self.metric,
            "params": dict(self.params),
            "path": self.path,
            "count": self.count,
            "unit": self.unit,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SamplesFile:
        return cls(
            str(data["scenario"]),
            str(data["metric"]),
            dict(data["params"]),
            str(data["path"]),
            int(data["count"]),
            str(data["unit"]),
        )


@dataclass(frozen=True)
class ScenarioOutcome:
    """One run unit: how it ended and what the core reported."""

    name: str
    ids: tuple[CatalogId, ...]
    summary: str | None
    status: str
    reason: str | None
    elapsed_s: float | None = None
    exit_code: int | None = None
    deadline_ms: int | None = None
    meta: Json | None = None
    records: tuple[Json, ...] = ()
    samples: tuple[SamplesFile, ...] = ()
    stderr_tail: str = ""
    errors: tuple[str, ...] = ()

    @property
    def counter_hz(self) -> float | None:
        if self.meta is None:
            return None
        return float(self.meta["counter"]["hz"])

    def of_type(self, kind: str) -> Iterator[Json]:
        return (r for r in self.records if r.get("type") == kind)

    def metrics(self) -> list[MetricSummary]:
        """The scenario's `result` records with statistics in their base unit."""
        hz = self.counter_hz
        out: list[MetricSummary] = []
        for record in self.of_type("result"):
            if record["unit"] == "ticks" and hz is None:
                continue
            out.append(summarize(record, hz))
        return out

    def samples_for(self, summary: MetricSummary) -> SamplesFile | None:
        for sf in self.samples:
            if (
                sf.scenario == summary.scenario
                and sf.metric == summary.metric
                and dict(sf.params) == dict(summary.params)
            ):
                return sf
        return None

    def to_json(self) -> Json:
        return {
            "name": self.name,
            "ids": [{"id": i.id, "label": i.label} for i in self.ids],
            "summary": self.summary,
            "status": self.status,
            "reason": self.reason,
            "elapsed_s": None if self.elapsed_s is None else round(self.elapsed_s, 3),
            "exit_code": self.exit_code,
            "deadline_ms": self.deadline_ms,
            "meta": self.meta,
            "records": list(self.records),
            "samples": [s.to_json() for s in self.samples],
            "stderr_tail": self.stderr_tail,
            "errors": list(self.errors),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ScenarioOutcome:
        return cls(
            name=str(data["name"]),
            ids=tuple(CatalogId(str(i["id"]), i.get("label")) for i in data["ids"]),
            summary=data.get("summary"),
            status=str(data["status"]),
            reason=data.get("reason"),
            elapsed_s=data.get("elapsed_s"),
            exit_code=data.get("exit_code"),
            deadline_ms=data.get("deadline_ms"),
            meta=data.get("meta"),
            records=tuple(data["records"]),
            samples=tuple(SamplesFile.from_json(s) for s in data["samples"]),
            stderr_tail=str(data["stderr_tail"]),
            errors=tuple(str(e) for e in data["errors"]),
        )


@dataclass(frozen=True)
class Calibration:
    """The timestamp calibration a run used.

    overhead_ticks is what samples taken as timed calls subtract (the metric
    `timestamp`); overhead_inline_ticks what samples with inline counter reads
    subtract (`timestamp_inline`; None in results made before the two shapes).
    """

    scenario: str
    counter: Mapping[str, Any]
    overhead_ticks: int
    overhead_ns: float
    passed_on: bool
    overhead_inline_ticks: int | None = None
    overhead_inline_ns: float | None = None

    def to_json(self) -> Json:
        out: Json = {
            "scenario": self.scenario,
            "counter": dict(self.counter),
            "overhead_ticks": self.overhead_ticks,
            "overhead_ns": round(self.overhead_ns, 3),
            "passed_on": self.passed_on,
        }
        if self.overhead_inline_ticks is not None:
            out["overhead_inline_ticks"] = self.overhead_inline_ticks
        if self.overhead_inline_ns is not None:
            out["overhead_inline_ns"] = round(self.overhead_inline_ns, 3)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Calibration:
        inline_ticks = data.get("overhead_inline_ticks")
        inline_ns = data.get("overhead_inline_ns")
        return cls(
            str(data["scenario"]),
            dict(data["counter"]),
            int(data["overhead_ticks"]),
            float(data["overhead_ns"]),
            bool(data["passed_on"]),
            None if inline_ticks is None else int(inline_ticks),
            None if inline_ns is None else float(inline_ns),
        )


@dataclass(frozen=True)
class RunInfo:
    """What was asked for and how the run went as a whole."""

    id: str
    started: str
    finished: str | None
    complete: bool
    interrupted: bool
    profile: str
    cpu: int
    patterns: tuple[str, ...]
    selected: tuple[str, ...]
    command_line: tuple[str, ...]
    target: str
    realtime: bool
    options: Mapping[str, Any]
    core: Mapping[str, Any]
    # Imported results only: the tool and file the figures come from.
    source: Mapping[str, Any] | None = None
    # The machine measured (Target.describe()) and the conditions of the run
    # (background load, tracing, ...: RunHook.describe() by key).
    target_info: Mapping[str, Any] | None = None
    conditions: Mapping[str, Any] | None = None

    @property
    def imported(self) -> bool:
        return self.source is not None

    def to_json(self) -> Json:
        data: Json = {
            "id": self.id,
            "started": self.started,
            "finished": self.finished,
            "complete": self.complete,
            "interrupted": self.interrupted,
            "profile": self.profile,
            "cpu": self.cpu,
            "patterns": list(self.patterns),
            "selected": list(self.selected),
            "command_line": list(self.command_line),
            "target": self.target,
            "realtime": self.realtime,
            "options": dict(self.options),
            "core": dict(self.core),
        }
        if self.source is not None:
            data["source"] = dict(self.source)
        if self.target_info is not None:
            data["target_info"] = dict(self.target_info)
        if self.conditions is not None:
            data["conditions"] = dict(self.conditions)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunInfo:
        return cls(
            id=str(data["id"]),
            started=str(data["started"]),
            finished=data.get("finished"),
            complete=bool(data["complete"]),
            interrupted=bool(data["interrupted"]),
            profile=str(data["profile"]),
            cpu=int(data["cpu"]),
            patterns=tuple(data["patterns"]),
            selected=tuple(data["selected"]),
            command_line=tuple(data["command_line"]),
            target=str(data["target"]),
            realtime=bool(data["realtime"]),
            options=dict(data["options"]),
            core=dict(data["core"]),
            source=None if data.get("source") is None else dict(data["source"]),
            target_info=None if data.get("target_info") is None else dict(data["target_info"]),
            conditions=None if data.get("conditions") is None else dict(data["conditions"]),
        )


@dataclass(frozen=True)
class ResultsDocument:
    """The whole of results.json."""

    run: RunInfo
    host: Mapping[str, Any]
    caveats: tuple[Mapping[str, str], ...]
    settings: Mapping[str, Any]
    calibration: Calibration | None
    scenarios: tuple[ScenarioOutcome, ...]
    rtbench_version: str = field(default=__version__)
    # The user's requirements as judged after the run (rtbench.run.requirements.evaluate).
    requirements: tuple[Mapping[str, Any], ...] = ()

    def to_json(self) -> Json:
        data: Json = {
            "schema": RESULTS_SCHEMA,
            "schema_version": RESULTS_SCHEMA_VERSION,
            "protocol_version": PROTOCOL_VERSION,
            "rtbench_version": self.rtbench_version,
            "run": self.run.to_json(),
            "host": dict(self.host),
            "caveats": [dict(c) for c in self.caveats],
            "settings": {
                "changes": list(self.settings.get("changes", [])),
                "skipped": list(self.settings.get("skipped", [])),
            },
            "calibration": None if self.calibration is None else self.calibration.to_json(),
            "scenarios": [s.to_json() for s in self.scenarios],
        }
        if self.requirements:
            data["requirements"] = [dict(r) for r in self.requirements]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ResultsDocument:
        cal = data.get("calibration")
        return cls(
            run=RunInfo.from_json(data["run"]),
            host=dict(data["host"]),
            caveats=tuple(dict(c) for c in data["caveats"]),
            settings=dict(data["settings"]),
            calibration=None if cal is None else Calibration.from_json(cal),
            scenarios=tuple(ScenarioOutcome.from_json(s) for s in data["scenarios"]),
            rtbench_version=str(data["rtbench_version"]),
            requirements=tuple(dict(r) for r in data.get("requirements") or ()),
        )


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` so a reader sees the old or the new file, never a part."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with tmp.open("w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


# Digests of scenario outcomes already validated: a run rewrites results.json
# after every unit, and checks again only what changed since.
_VALIDATED: dict[str, None] = {}
_VALIDATED_MAX = 4096


def _validate_document(data: dict[str, Any]) -> None:
    """validate(data, "results"), the scenarios each against `scenario_outcome`
    (which is all the results schema asks of them) and only when not seen before."""
    scenarios = data.get("scenarios")
    if not isinstance(scenarios, list):
        validate(data, "results")
        return
    validate({**data, "scenarios": []}, "results")
    for i, scenario in enumerate(scenarios):
        text = json.dumps(scenario, sort_keys=True, ensure_ascii=False, default=str)
        digest = hashlib.sha256(text.encode()).hexdigest()
        if digest in _VALIDATED:
            continue
        try:
            validate(scenario, "scenario_outcome")
        except RecordError as e:
            raise RecordError(f"scenarios.{i}.{e}") from None
        if len(_VALIDATED) >= _VALIDATED_MAX:
            _VALIDATED.pop(next(iter(_VALIDATED)))
        _VALIDATED[digest] = None


def write_document(out_dir: Path, doc: ResultsDocument) -> Path:
    """Write results.json (validated first: an invalid document is a bug of rtbench)."""
    data = doc.to_json()
    _validate_document(data)
    path = out_dir / RESULTS_FILE
    # default=str: a host snapshot value that is not plain JSON is kept as text.
    write_atomic(path, json.dumps(data, indent=1, ensure_ascii=False, default=str) + "\n")
    return path


_UNSAFE = re.compile(r"[^A-Za-z0-9._=+-]+")


def samples_file_name(scenario: str, metric: str, params: Mapping[str, Any]) -> str:
    """`<scenario>-<metric>[-key=value...].csv` with unsafe characters replaced."""
    parts = [scenario, metric] + [f"{k}={v}" for k, v in params.items()]
    stem = "-".join(_UNSAFE.sub("_", str(p)) for p in parts)
    return stem[:180] + ".csv"


def write_samples(
    out_dir: Path,
    scenario: str,
    metric: str,
    params: Mapping[str, Any],
    values: Sequence[int],
    unit: str,
    counter_hz: float | None,
    taken: set[str],
    total: int | None = None,
) -> SamplesFile:
    """Write one raw series as CSV; tick values are converted to nanoseconds. When the
    series holds fewer values than the metric's `total` samples (the raw series is
    bounded), a first `#` line says so where the data is."""
    folder = out_dir / SAMPLES_DIR
    folder.mkdir(exist_ok=True)
    name = samples_file_name(scenario, metric, params)
    stem = name[:-4]
    n = 2
    while name in taken:
        name = f"{stem}-{n}.csv"
        n += 1
    taken.add(name)
    if unit == "ticks" and counter_hz:
        csv_unit = "ns"
        lines = [f"{i},{units.ticks_to_ns(v, counter_hz):.1f}" for i, v in enumerate(values)]
    else:
        csv_unit = unit
        lines = [f"{i},{v}" for i, v in enumerate(values)]
    header = [f"index,value_{_UNSAFE.sub('_', csv_unit)}"]
    if total is not None and total > len(values):
        header.insert(
            0,
            f"# the first {len(values)} of {total} samples after warm-up (the raw series "
            f"is bounded by --raw-max); the statistics and {HISTOGRAMS_DIR}/{name} cover all "
            f"{total}",
        )
    write_atomic(folder / name, "\n".join([*header, *lines]) + "\n")
    return SamplesFile(
        scenario, metric, dict(params), f"{SAMPLES_DIR}/{name}", len(values), csv_unit
    )


def write_histogram(
    out_dir: Path,
    record: Mapping[str, Any],
    counter_hz: float | None,
    taken: set[str],
) -> str:
    """Write a result's whole histogram as CSV (`lower,upper,count`, inclusive bounds,
    ns for tick values; every sample, not only the bounded raw series), for plotting
    with any tool (gnuplot, a spreadsheet). Returns the path below out_dir."""
    folder = out_dir / HISTOGRAMS_DIR
    folder.mkdir(exist_ok=True)
    name = samples_file_name(
        str(record["scenario"]), str(record["metric"]), record.get("params", {})
    )
    stem, n = name[:-4], 2
    while name in taken:
        name = f"{stem}-{n}.csv"
        n += 1
    taken.add(name)
    unit = str(record["unit"])
    scale = 1e9 / counter_hz if unit == "ticks" and counter_hz else None
    csv_unit = "ns" if scale is not None else _UNSAFE.sub("_", unit)
    rows = [
        f"# {record['scenario']} {record['metric']}: {record['stats']['count']} samples",
        f"lower_{csv_unit},upper_{csv_unit},count",
    ]
    for lower, upper, count in record["histogram"]["buckets"]:
        if scale is not None:
            rows.append(f"{lower * scale:.1f},{upper * scale:.1f},{count}")
        else:
            rows.append(f"{lower},{upper},{count}")
    write_atomic(folder / name, "\n".join(rows) + "\n")
    return f"{HISTOGRAMS_DIR}/{name}"


def read_samples(out_dir: Path, sf: SamplesFile) -> list[float]:
    """The values of a samples CSV (empty when the file is missing or unreadable)."""
    path = out_dir / sf.path
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return []
    values: list[float] = []
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    for line in lines[1:]:
        _, _, value = line.partition(",")
        try:
            values.append(float(value))
        except ValueError:
            return values
    return values


def resolve(path: Path) -> Path:
    """The results.json a user means by a directory or a file path."""
    if path.is_dir():
        return path / RESULTS_FILE
    return path


def load(path: Path) -> ResultsDocument:
    """Read and check a stored results.json; every problem is one sentence (ResultsError)."""
    file = resolve(path)
    if not file.exists():
        if path.is_dir():
            raise ResultsError(f"{path} holds no {RESULTS_FILE}.")
        raise ResultsError(f"{path} does not exist.")
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) else "it is not UTF-8 text"
        raise ResultsError(f"Cannot read {file}: {reason}.") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ResultsError(
            f"{file} is not valid JSON (line {e.lineno}: {e.msg}); it is truncated or corrupted."
        ) from None
    if not isinstance(data, dict) or data.get("schema") != RESULTS_SCHEMA:
        raise ResultsError(f"{file} is not an rtbench results file.")
    version = data.get("schema_version")
    if version != RESULTS_SCHEMA_VERSION:
        raise ResultsError(
            f"{file} uses results schema version {version!r}; "
            f"this rtbench reads version {RESULTS_SCHEMA_VERSION}."
        )
    protocol = data.get("protocol_version")
    if protocol != PROTOCOL_VERSION:
        raise ResultsError(
            f"{file} holds records of protocol version {protocol!r}; "
            f"this rtbench reads version {PROTOCOL_VERSION}."
        )
    try:
        validate(data, "results")
    except RecordError as e:
        raise ResultsError(f"{file} does not match the results schema ({e}).") from None
    return ResultsDocument.from_json(data)
