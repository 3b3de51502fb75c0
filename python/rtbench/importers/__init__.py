# SPDX-License-Identifier: Apache-2.0
"""`rtbench import FILE`: another tool's output as an rtbench results directory.

The directory holds a results.json like a run's, marked as imported: the
run's `profile` is `imported`, `target` names the tool, and `run.source`
says which tool and version wrote which file, what it reported and what
rtbench derived from it. `rtbench show` and `rtbench compare` read it like
any result; there are no raw samples, so a comparison uses the histograms.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import json
from pathlib import Path
from typing import Any

from rtbench.errors import UsageError
from rtbench.importers import rttests
from rtbench.model.catalog import CatalogId
from rtbench.model.records import RecordError
from rtbench.model.results import ResultsDocument, RunInfo, ScenarioOutcome, write_document

TOOLS = ("cyclictest", "oslat")


def _iso(text: Any) -> str | None:
    """cyclictest writes RFC 2822 dates ("Mon, 23 Nov 2026 06:00:38 +0000")."""
    if not isinstance(text, str):
        return None
    try:
        return email.utils.parsedate_to_datetime(text).isoformat(timespec="seconds")
    except (TypeError, ValueError):
        return None


def convert(data: Any, file_name: str, run_id: str) -> ResultsDocument:
    """The results document of a tool's JSON output (pure; raises ImportFormatError)."""
    tool = rttests.detect(data)
    conv = rttests.cyclictest(data) if tool == "cyclictest" else rttests.oslat(data)
    started = _iso(conv.started) or dt.datetime(1970, 1, 1, tzinfo=dt.UTC).isoformat()
    finished = _iso(conv.finished)
    elapsed = None
    if finished is not None:
        elapsed = max(
            0.0,
            (
                dt.datetime.fromisoformat(finished) - dt.datetime.fromisoformat(started)
            ).total_seconds(),
        )
    info = conv.sysinfo
    host: dict[str, Any] = {
        "hostname": info.get("nodename"),
        "kernel": {
            "system": info.get("sysname"),
            "release": info.get("release"),
            "version": info.get("version"),
            "machine": info.get("machine"),
            "preempt_rt": None if info.get("realtime") is None else bool(info.get("realtime")),
        },
    }
    source = {
        "tool": conv.tool,
        "version": conv.version,
        "file": file_name,
        "command_line": conv.command_line,
        "fields": list(conv.fields),
        "derived": list(conv.derived),
        "notes": list(conv.notes),
    }
    ok = conv.return_code in (0, None)
    outcome = ScenarioOutcome(
        name=conv.scenario,
        ids=(CatalogId(conv.scenario, None),),
        summary=conv.summary,
        status="ok" if ok else "error",
        reason=None if ok else f"{conv.tool} exited with status {conv.return_code}",
        elapsed_s=elapsed,
        exit_code=conv.return_code if isinstance(conv.return_code, int) else None,
        records=conv.records,
    )
    caveat = {
        "code": "imported",
        "severity": "warning",
        "message": (
            f"Imported from {conv.tool} {conv.version or '(version unknown)'} ({file_name}): "
            "measured by that tool with its own method and resolution, not by rtbench."
        ),
        "advice": "run.source in results.json says what the tool reported and what was derived.",
    }
    run = RunInfo(
        id=run_id,
        started=started,
        finished=finished,
        complete=ok,
        interrupted=False,
        profile="imported",
        cpu=conv.cpu,
        patterns=(),
        selected=(conv.scenario,),
        command_line=("rtbench", "import", file_name),
        target=f"imported:{conv.tool}",
        realtime=conv.realtime,
        options={
            "set": {},
            "raw_max": None,
            "dma_latency": False,
            "lift_rt_throttle": False,
            "deadline_scale": 1.0,
        },
        core={"path": conv.tool, "version": conv.version},
        source=source,
    )
    return ResultsDocument(
        run=run,
        host=host,
        caveats=(caveat,),
        settings={"changes": [], "skipped": []},
        calibration=None,
        scenarios=(outcome,),
    )


def import_file(path: Path, out: Path) -> ResultsDocument:
    """Convert `path` and write `out/results.json`; bad input is one sentence."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path} does not exist.") from None
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) else "it is not UTF-8 text"
        raise UsageError(f"Cannot read {path}: {reason}.") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"{path} is not JSON (line {e.lineno}: {e.msg}).") from None
    try:
        doc = convert(data, path.name, out.name)
    except rttests.ImportFormatError as e:
        raise UsageError(f"Cannot import {path}: {e}.") from None
    try:
        out.mkdir(parents=True, exist_ok=True)
        write_document(out, doc)
    except RecordError as e:
        raise UsageError(f"Cannot import {path}: the converted result is invalid ({e}).") from None
    except OSError as e:
        raise UsageError(f"Cannot write to {out}: {e.strerror or e}.") from None
    return doc
