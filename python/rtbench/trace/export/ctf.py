# SPDX-License-Identifier: Apache-2.0
"""The CTF export: the kernel events under LTTng's kernel event and field names, plus
rtbench's scenario and sample events, written by babeltrace2 (docs/tracing.md).

Names follow LTTng's kernel tracer so that Trace Compass's kernel views read the
trace: `sched_switch` (prev_comm, prev_tid, prev_prio, prev_state, next_comm,
next_tid, next_prio; priorities as LTTng gives them, the kernel's minus 100),
`sched_waking`/`sched_wakeup`/`sched_wakeup_new` (comm, tid, prio, target_cpu),
`sched_migrate_task`, `irq_handler_entry`/`_exit` (irq, name / ret),
`irq_softirq_entry`/`_exit` (vec), `x86_irq_vectors_local_timer_entry`/`_exit` and the
other vectors (vector). rtbench adds `rtbench:scenario_begin`/`_end` (scenario) and
`rtbench:sample_begin`/`_end` (scenario, metric, kind, rank, index, value_ns,
explanation) on the measurement CPU's stream. hrtimer and workqueue events are left
out: LTTng records them with raw pointers the text trace does not give.

The bindings exist only for Debian's /usr/bin/python3, so the writing runs there
(rtbench.trace.export.ctf_writer as a script) with the events handed over in a JSON Lines file.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from rtbench.errors import RtbenchError, UsageError
from rtbench.trace.export.stored import TracedRun
from rtbench.trace.kernel.events import Event

SYSTEM_PYTHON = Path("/usr/bin/python3")
WRITER = Path(__file__).with_name("ctf_writer.py")
WRITE_TIMEOUT_S = 600.0

_STATES = {"R": 0, "R+": 0, "S": 1, "D": 2, "T": 4, "t": 8, "X": 16, "Z": 32, "P": 64, "I": 1026}
_VECTORS = ("local_timer", "reschedule", "call_function", "call_function_single", "irq_work")


def _int(text: str | None) -> int:
    try:
        return int(text or 0)
    except ValueError:
        return 0


def lttng_event(e: Event) -> tuple[str, dict[str, Any]] | None:
    """The LTTng name and fields of one ftrace event, or None when not exported."""
    a = e.args
    n = e.name
    if n == "sched_switch" and a:
        return "sched_switch", {
            "prev_comm": a["prev_comm"], "prev_tid": _int(a["prev_pid"]),
            "prev_prio": _int(a["prev_prio"]) - 100,
            "prev_state": _STATES.get(a["prev_state"], 0),
            "next_comm": a["next_comm"], "next_tid": _int(a["next_pid"]),
            "next_prio": _int(a["next_prio"]) - 100,
        }  # fmt: skip
    if n in ("sched_waking", "sched_wakeup", "sched_wakeup_new") and a:
        return n, {"comm": a["comm"], "tid": _int(a["pid"]), "prio": _int(a["prio"]) - 100,
                   "target_cpu": _int(a["target_cpu"])}  # fmt: skip
    if n == "sched_migrate_task" and a:
        return n, {"comm": a["comm"], "tid": _int(a["pid"]), "prio": _int(a["prio"]) - 100,
                   "orig_cpu": _int(a["orig_cpu"]), "dest_cpu": _int(a["dest_cpu"])}  # fmt: skip
    if n == "irq_handler_entry" and a:
        return n, {"irq": _int(a["irq"]), "name": a.get("irq_name", "")}
    if n == "irq_handler_exit" and a:
        return n, {"irq": _int(a["irq"]), "ret": 1 if a.get("ret") == "handled" else 0}
    if n in ("softirq_entry", "softirq_exit") and a:
        return f"irq_{n}", {"vec": _int(a["vec"])}
    base, _, edge = n.rpartition("_")
    if base in _VECTORS and edge in ("entry", "exit"):
        return f"x86_irq_vectors_{n}", {"vector": _int(a.get("vector"))}
    return None


def _lines(run: TracedRun) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    events: list[tuple[int, int, dict[str, Any]]] = []
    seq = 0
    frequency = 0
    for unit in run.units:
        if not frequency:
            frequency = round(unit.units_per_ns * 1e9)
        first = last = None
        for e in run.events(unit):
            first = e.ts if first is None else first
            last = e.ts
            got = lttng_event(e)
            if got is not None:
                seq += 1
                events.append((e.ts, seq, {"cpu": e.cpu, "ts": e.ts, "name": got[0],
                                            "fields": got[1]}))  # fmt: skip
        if first is None or last is None:
            continue
        start = unit.first_sync if unit.first_sync is not None else first
        end = unit.last_sync if unit.last_sync is not None else last
        for ts, name in ((start, "rtbench:scenario_begin"), (end, "rtbench:scenario_end")):
            seq += 1
            events.append((ts, seq, {"cpu": run.cpu, "ts": ts, "name": name,
                                     "fields": {"scenario": unit.name}}))  # fmt: skip
        for s in unit.samples:
            if not s.get("covered"):
                continue
            fields = {
                "scenario": s["scenario"],
                "metric": s["metric"],
                "kind": s["kind"],
                "rank": int(s["rank"]),
                "index": int(s["index"]),
                "value_ns": round(float(s["value_ns"])),
                "explanation": s["line"],
            }
            for key, name in (("start", "rtbench:sample_begin"), ("end", "rtbench:sample_end")):
                ts = max(0, round(float(s[key])))
                seq += 1
                events.append((ts, seq, {"cpu": run.cpu, "ts": ts, "name": name,
                                         "fields": fields}))  # fmt: skip
    events.sort(key=lambda t: (t[0], t[1]))
    header = {
        "frequency": frequency or 1_000_000_000,
        "env": {
            "domain": "kernel",
            "tracer_name": "lttng-modules",
            "tracer_major": 2,
            "tracer_minor": 13,
            "hostname": socket.gethostname(),
            "trace_source": "Linux tracefs events converted by rtbench (not recorded by LTTng)",
            "trace_clock": run.clock,
        },
    }
    return header, [e for _, _, e in events]


def export(run: TracedRun, dest: Path) -> Path:
    if not SYSTEM_PYTHON.is_file():
        raise UsageError(f"The CTF export needs {SYSTEM_PYTHON} with Debian's python3-bt2.")
    check = subprocess.run(
        [str(SYSTEM_PYTHON), "-c", "import bt2"], capture_output=True, timeout=60, check=False
    )
    if check.returncode != 0:
        raise UsageError(
            "The CTF export needs babeltrace2's Python bindings: apt-get install python3-bt2."
        )
    if dest.exists() and any(dest.iterdir()):
        raise UsageError(f"{dest} exists and is not empty; choose another --out.")
    header, events = _lines(run)
    with tempfile.TemporaryDirectory(prefix="rtbench-ctf-") as tmp:
        listing = Path(tmp) / "events.jsonl"
        with listing.open("w", encoding="utf-8") as f:
            f.write(json.dumps(header) + "\n")
            for e in events:
                f.write(json.dumps(e, separators=(",", ":")) + "\n")
        work = Path(tmp) / "ctf"
        try:
            done = subprocess.run(
                [str(SYSTEM_PYTHON), str(WRITER), str(listing), str(work)],
                capture_output=True, text=True, timeout=WRITE_TIMEOUT_S, check=False,
                env={k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")},
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            raise RtbenchError(
                "babeltrace2 did not finish writing the CTF trace in time."
            ) from None
        if done.returncode != 0:
            tail = done.stderr.strip().splitlines()
            raise RtbenchError(
                f"babeltrace2 could not write the CTF trace ({tail[-1] if tail else 'no message'})."
            )
        dest.mkdir(parents=True, exist_ok=True)
        for item in work.iterdir():
            shutil.move(str(item), dest / item.name)
    return dest
