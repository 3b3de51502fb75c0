# SPDX-License-Identifier: Apache-2.0
"""What one core process reports, and how its unit ended.

`query_catalog` asks a core for its meta record and catalog; a `Collector`
gathers the records of one run unit as they arrive (raw samples joined per
metric, log lines shown, inconsistencies noted); `unit_status` turns what was
gathered and how the process ended into the unit's status and reason.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from rtbench.errors import CoreError
from rtbench.model.catalog import CoreScenario
from rtbench.model.records import (
    PROTOCOL_VERSION,
    ProtocolVersionError,
    Record,
    RecordError,
    metric_key,
    parse_line,
)
from rtbench.model.summary import consistency_problems
from rtbench.run.measure import live_text
from rtbench.run.progress import Progress
from rtbench.transport import EndOfStream, TargetLost, Transport

WATCHDOG_SLACK_S = 5.0
POLL_S = 0.1
LIST_TIMEOUT_S = 60.0


class Ui:
    """Where the runner says things: messages go above the progress bar."""

    def __init__(self, warn: Callable[[str], None], info: Callable[[str], None]) -> None:
        self.warn = warn
        self.info = info


def query_catalog(transport: Transport, cpu: int) -> tuple[Record, list[CoreScenario]]:
    """Ask the core for its meta record and catalog (`rtbench-core list`)."""
    try:
        stream = transport.start(["list", "--cpu", str(cpu)])
    except OSError as e:
        raise CoreError(f"Cannot start rtbench-core: {e.strerror or e}.") from None
    except TargetLost as e:
        raise CoreError(
            f"The target was lost before rtbench-core could list its scenarios: {e}."
        ) from None
    meta: Record | None = None
    scenarios: list[CoreScenario] = []
    problem: str | None = None
    end_by = time.monotonic() + LIST_TIMEOUT_S
    try:
        while True:
            if time.monotonic() > end_by:
                stream.kill()
                problem = "rtbench-core did not answer `list` in time"
                break
            try:
                line = stream.read_line(POLL_S)
            except EndOfStream:
                break
            except TargetLost as e:
                raise CoreError(
                    f"The target was lost while rtbench-core listed its scenarios: {e}."
                ) from None
            if line is None or not line.strip():
                continue
            try:
                record = parse_line(line)
            except ProtocolVersionError as e:
                stream.kill()
                raise CoreError(
                    f"rtbench-core wrote a {e}; rebuild the core from this source tree."
                ) from None
            except RecordError as e:
                problem = problem or f"rtbench-core wrote an invalid record ({e})"
                continue
            if record["type"] == "meta":
                meta = record
            elif record["type"] == "catalog":
                scenarios.append(CoreScenario.from_record(record))
            elif record["type"] == "log" and record["level"] == "error":
                problem = problem or f"rtbench-core failed: {record['message']}"
        stream.wait(10.0)
    finally:
        stream.kill()
        stream.wait(5.0)
        stream.close()
    if problem is not None:
        raise CoreError(problem.rstrip(".") + ".")
    if meta is None or not scenarios:
        tail = stream.stderr_tail().strip().splitlines()
        detail = f" ({tail[-1]})" if tail else ""
        raise CoreError(f"rtbench-core did not list its scenarios{detail}.")
    return meta, scenarios


@dataclass
class Collector:
    """What one core process reported, gathered while it runs."""

    progress: Progress
    ui: Ui
    meta: Record | None = None
    records: list[Record] = field(default_factory=list)
    values: dict[tuple[str, str, str], list[int]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    end: Record | None = None
    last_error: str | None = None
    lines: int = 0

    def add(self, record: Record) -> None:
        kind = record["type"]
        if kind == "meta":
            if self.meta is None:
                self.meta = record
            else:
                self.errors.append(f"line {self.lines}: a second meta record")
        elif kind == "samples":
            series = self.values.setdefault(metric_key(record), [])
            if int(record["first_index"]) != len(series):
                self.errors.append(
                    f"line {self.lines}: samples of {record['scenario']} {record['metric']} "
                    f"start at {record['first_index']}, expected {len(series)}"
                )
            series.extend(int(v) for v in record["values"])
        elif kind == "catalog":
            self.errors.append(f"line {self.lines}: unexpected catalog record in a run")
        else:
            self.records.append(record)
            if kind == "log":
                self._log(record)
            elif kind == "end" and record["scope"] == "scenario" and self.end is None:
                self.end = record
            elif kind == "result":
                self.errors.extend(consistency_problems(record))

    def _log(self, record: Record) -> None:
        level = record["level"]
        where = record.get("scenario", "rtbench-core")
        if level == "progress":
            if "progress" in record:
                live = live_text(record)
                self.progress.fraction(float(record["progress"]), live or "", live=live is not None)
        elif level in ("warning", "error"):
            self.ui.warn(f"{where}: {record['message']}")
            if level == "error":
                self.last_error = str(record["message"])


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def unit_status(
    c: Collector,
    returncode: int | None,
    timed_out: bool,
    refused: str | None,
    stopping: bool,
    killed: bool,
    limit_s: float,
) -> tuple[str, str | None]:
    if timed_out:
        return "timeout", (
            f"still running after {limit_s:.1f} s (deadline plus {WATCHDOG_SLACK_S:.0f} s "
            "of slack); killed by the watchdog"
        )
    if refused is not None:
        return "error", refused + f"; this rtbench reads protocol version {PROTOCOL_VERSION}"
    if c.end is not None:
        status = str(c.end["status"])
        reason: str | None = c.end.get("reason")
        if returncode is not None and returncode < 0 and not killed:
            return "crashed", (f"killed by {_signal_name(returncode)} after reporting its end")
        if returncode is not None and returncode > 0:
            return "error", f"exited with status {returncode} after reporting its end"
        if c.errors and status in ("ok", "stopped"):
            more = f" (and {len(c.errors) - 1} more)" if len(c.errors) > 1 else ""
            return (
                "error",
                f"the core wrote inconsistent or invalid output: {c.errors[0]}{more}",
            )
        return status, reason
    if stopping:
        return "interrupted", "stopped by the user before the scenario reported its end"
    if returncode is not None and returncode < 0:
        why = f"killed by {_signal_name(returncode)} without reporting its end"
    else:
        why = f"exited with status {returncode} without reporting its end"
    if c.last_error:
        why += f" ({c.last_error})"
    return "crashed", why
