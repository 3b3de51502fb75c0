# SPDX-License-Identifier: Apache-2.0
"""`rtbench run --trace` on an emulated RTOS board: the code path of the kept samples.

Around every unit the hook switches QEMU's execution log on and off through
the target (targets.qemu.exec_log), then finds each kept sample of every
metric in the log by its two counter readings (trace.codepath.exec_log) and names the
functions executed between them with the image's symbols (trace.codepath.symbols).
Each result record with kept samples gets a `path` object: the typical sample
(the kept one nearest the median) with its instruction count, the functions
it entered in order and how often, the instructions spent in each and, when
the RTOS names its critical-section functions, the critical sections it took,
and its instructions split by whose code ran (trace.codepath.origin: the
kernel's, the port's, rtbench's measurement code); the worst sample with what
it executed beyond the typical one; a line for each; and the measurement
code's instructions beside the timestamp overhead the core subtracted.
Every kept sample's analysis goes to `trace/NN-<unit>.paths.json`; the log
itself is deleted once read (it is large), unless KEEP_LOG_ENV is 1: it is
then kept as `trace/NN-<unit>.exec.log` for tools that read whole logs
(bench/thread-metric-explain). A log that grows past LOG_CAP_BYTES (times the
register dumps' `log_scale` when the counter is a CPU register) is switched
off for the rest of the unit, and the samples after that point are said to be
not found, never guessed.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rtbench.errors import RtbenchError
from rtbench.trace.codepath import exec_log, origin
from rtbench.trace.codepath.critical import CriticalSections
from rtbench.trace.codepath.read_sites import CounterInstructions, ReadSites
from rtbench.trace.codepath.symbols import Symbols

if TYPE_CHECKING:
    from rtbench.model.catalog import CoreScenario
    from rtbench.model.results import ScenarioOutcome
    from rtbench.run.hooks import HookContext
    from rtbench.targets.qemu.exec_log import ExecLog

TRACE_DIR = "trace"
LOG_CAP_BYTES = 1 << 30
KEEP_LOG_ENV = "RTBENCH_TRACE_KEEP_LOG"
WATCH_S = 0.25
TOP_CALLS = 8  # functions named in a path's line
# the scenario that measures the timestamp overhead: nothing is subtracted from
# its own samples (rtbench.run.runner.CALIBRATION)
CALIBRATION = "cal.timestamp"


class PathTraceHook:
    """The run hook of `--trace` on a target with an execution log (rtbench.run.hooks.RunHook)."""

    key = "path_trace"

    def __init__(self, source: Callable[[], ExecLog], log_cap_bytes: int = LOG_CAP_BYTES) -> None:
        """`source`: the execution log of the opened target's machine."""
        self._source = source
        self._cap_given = log_cap_bytes
        self._cap = log_cap_bytes  # the given cap, grown for a log with register dumps
        self._ctx: HookContext | None = None
        self._log: ExecLog | None = None
        self._symbols: Symbols | None = None
        # the counter's reads: the log's trace event, or the image's read instructions
        self._reads: exec_log.CounterReads | ReadSites | None = None
        self._origins: origin.Origins | None = None
        self._origins_note: str | None = None
        self._placed: dict[str, dict[str, str]] = {}  # functions seen on a path
        self._translations = exec_log.Translations()
        self._units: dict[str, dict[str, Any]] = {}
        self._index = 0
        self._file: Path | None = None
        self._watch: threading.Thread | None = None
        self._watch_stop = threading.Event()
        self._capped = threading.Event()
        self._logging = False
        self._keep = os.environ.get(KEEP_LOG_ENV) == "1"

    # ---- RunHook ------------------------------------------------------------

    def start(self, ctx: HookContext) -> None:
        self._ctx = ctx
        log = self._source()
        fw = log.firmware
        self._symbols = Symbols.load(fw.elf, fw.nm, fw.vector_table)
        reads = log.reads
        if isinstance(reads, CounterInstructions):
            self._reads = reads.sites(fw.elf)
            # its register dumps lengthen every block's lines: as many blocks
            # fit under the cap as on a board whose reads are trace events
            self._cap = self._cap_given * reads.log_scale
        else:
            self._reads, self._cap = reads, self._cap_given
        self._log = log
        self._load_origins(ctx)
        (ctx.out_dir / TRACE_DIR).mkdir(exist_ok=True)
        exact = "exact" if log.icount is not None else "to a block at each end"
        ctx.info(
            f"Tracing the code path of the kept samples with QEMU's execution log "
            f"({len(self._symbols.names)} functions in {fw.elf.name}; instruction counts "
            f"{exact})."
        )
        if log.icount is None:
            ctx.warn(
                "--trace without --deterministic: logging slows the emulator while the "
                "board's timers follow the host's clock, so this run's figures are disturbed "
                "and its instruction counts may be off by a block at each end; add "
                "--deterministic for exact counts and undisturbed figures."
            )

    def before_unit(self, unit: CoreScenario) -> list[str]:
        log, ctx = self._log, self._ctx
        if log is None or ctx is None:
            return []
        self._index += 1
        dest = ctx.out_dir / TRACE_DIR / f".{self._index:02d}-{unit.name}.exec.log"
        self._capped.clear()
        try:
            self._file = log.start(dest)
            self._logging = True
        except RtbenchError as e:
            self._file = None
            self._warn(f"--trace: could not start QEMU's execution log for {unit.name}: {e}.")
            return []
        self._watch_stop.clear()
        self._watch = threading.Thread(target=self._watch_size, name="rtb-exec-log", daemon=True)
        self._watch.start()
        return []

    def after_unit(self, unit: CoreScenario, outcome: ScenarioOutcome) -> ScenarioOutcome:
        self._halt_watch()
        self._switch_off()
        log, ctx, symbols, path = self._log, self._ctx, self._symbols, self._file
        self._file = None
        if log is None or ctx is None or symbols is None or path is None:
            return outcome
        try:
            return self._collect(unit, outcome, log, symbols, path, ctx)
        except (OSError, ValueError, KeyError, TypeError) as e:
            self._warn(f"--trace: the execution log of {unit.name} could not be read: {e}.")
            return outcome
        finally:
            with contextlib.suppress(OSError):
                if self._keep:
                    path.rename(path.with_name(path.name.lstrip(".")))
                else:
                    path.unlink()

    def stop(self) -> None:
        self._halt_watch()
        self._switch_off()
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.unlink()
            self._file = None

    def describe(self) -> dict[str, Any]:
        log = self._log
        exact = "exact instruction counts" if log and log.icount is not None else "instructions"
        return {
            "summary": f"the code path of the kept samples, {exact}",
            "traced": log is not None,
            "source": "QEMU execution log (-d exec,nochain,in_asm) and the counter's reads",
            "counter_event": _event(log.reads) if log else None,
            **(self._reads.describe() if isinstance(self._reads, ReadSites) else {}),
            "image": log.firmware.elf.name if log else None,
            "functions": len(self._symbols.names) if self._symbols else 0,
            "icount_shift": log.icount if log else None,
            "exact_bounds": log is not None and log.icount is not None,
            "log_cap_bytes": self._cap,
            # the functions the RTOS masks interrupts with (each sample's
            # critical_sections counts their entries), or None: not counted
            "critical_sections": (
                log.firmware.critical_sections.describe()
                if log and log.firmware.critical_sections
                else None
            ),
            "units": self._units,
            # whose code each function on a path is: the rules, and every
            # function found on a path with its share and source
            "attribution": (
                {**self._origins.described, "functions": self._placed}
                if self._origins is not None
                else {"note": self._origins_note or "not read"}
            ),
            "note": "Instructions are counted in QEMU's translated blocks; a sample's path "
            "is every block executed between its two counter readings. Logging slows the "
            "emulator: figures of a traced run without --deterministic are disturbed; with it "
            "they are the same as untraced (docs/tracing.md).",
        }

    # ---- the work -----------------------------------------------------------

    def _load_origins(self, ctx: HookContext) -> None:
        log, symbols = self._log, self._symbols
        if log is None or symbols is None:
            return
        fw = log.firmware
        if fw.project is None:
            self._origins_note = "the image's build is not known"
            return
        roots = origin.Roots(fw.project, fw.rtos_sources, fw.rtos)
        try:
            self._origins = origin.Origins.load(fw.elf, symbols, roots)
        except origin.OriginError as e:
            self._origins_note = str(e)
            ctx.warn(
                f"--trace: {e}, so the paths' instructions are not split into the kernel's, "
                "the port's and the measurement's."
            )

    def _place(self, sample: dict[str, Any]) -> None:
        """Note the origin of every function of a found sample (describe's table)."""
        found = self._origins
        if found is None:
            return
        for name in sample.get("instructions_by_function") or {}:
            if name not in self._placed:
                o = found.of_name(name)
                self._placed[name] = (
                    {"share": "libc" if o.share == origin.RUNTIME else o.share, "source": o.source}
                    if o is not None
                    else {"share": origin.UNATTRIBUTED, "source": ""}
                )

    def _warn(self, text: str) -> None:
        if self._ctx is not None:
            self._ctx.warn(text)

    def _switch_off(self) -> None:
        if self._logging and self._log is not None:
            self._logging = False
            # an emulator that is gone (a lost unit) logs nothing more
            with contextlib.suppress(RtbenchError):
                self._log.stop()

    def _watch_size(self) -> None:
        while not self._watch_stop.wait(WATCH_S):
            path = self._file
            try:
                size = path.stat().st_size if path is not None else 0
            except OSError:
                continue
            if size > self._cap:
                self._capped.set()
                self._switch_off()
                return

    def _halt_watch(self) -> None:
        self._watch_stop.set()
        if self._watch is not None:
            self._watch.join(timeout=5)
            self._watch = None

    def _collect(
        self,
        unit: CoreScenario,
        outcome: ScenarioOutcome,
        log: ExecLog,
        symbols: Symbols,
        path: Path,
        ctx: HookContext,
    ) -> ScenarioOutcome:
        mask = (1 << log.reads.bits) - 1
        windows: list[exec_log.Window] = []
        for r, record in enumerate(outcome.records):
            spans = record.get("spans") if record.get("type") == "result" else None
            for kind in ("worst", "median"):
                for rank, kept in enumerate((spans or {}).get(kind, [])):
                    if kept.get("clock") == "counter":
                        windows.append(
                            exec_log.Window(
                                (r, kind, rank, kept),
                                int(kept["start"]) & mask,
                                int(kept["stop"]) & mask,
                            )
                        )
        size = path.stat().st_size if path.exists() else 0
        anchor = self._reads or log.reads
        assert not isinstance(anchor, CounterInstructions)  # start() found its sites
        reads = (
            exec_log.scan(exec_log.read_lines(path), anchor, windows, self._translations)
            if size
            else 0
        )
        name = f"{self._index:02d}-{unit.name}.paths.json"
        info: dict[str, Any] = {
            "file": f"{TRACE_DIR}/{name}",
            "log_bytes": size,
            "counter_reads": reads,
            "capped": self._capped.is_set(),
            "kept_samples": len(windows),
            "found": sum(1 for w in windows if w.closed),
        }
        self._units[unit.name] = info
        if info["capped"]:
            self._warn(
                f"--trace: the execution log of {unit.name} passed {self._cap >> 20} MiB and "
                "was switched off; samples after that point have no path."
            )
        by_record: dict[int, list[dict[str, Any]]] = {}
        for w in windows:
            r, kind, rank, kept = w.key
            sample = _sample(
                w,
                kind,
                rank,
                kept,
                symbols,
                log.firmware.critical_sections,
                self._translations,
                self._origins,
            )
            self._place(sample)
            by_record.setdefault(r, []).append(sample)
        detail: dict[str, Any] = {"unit": unit.name, "metrics": []}
        records = list(outcome.records)
        for r, samples in by_record.items():
            record = dict(records[r])
            record["path"] = summarise(
                record, samples, info["file"], log.icount, outcome.counter_hz
            )
            if self._origins is not None:
                # whose code each function of the typical and worst sample is
                record["path"]["whose_code"] = {
                    name: self._placed[name]["share"]
                    for s in (record["path"]["typical"], record["path"]["worst"])
                    if s
                    for name in s["instructions_by_function"]
                    if name in self._placed
                }
            detail["metrics"].append(
                {"scenario": record.get("scenario"), "metric": record.get("metric"),
                 "params": record.get("params"), "samples": samples}
            )  # fmt: skip
            records[r] = record
        (ctx.out_dir / TRACE_DIR / name).write_text(json.dumps(detail, indent=1), "utf-8")
        return replace(outcome, records=tuple(records))


def _event(reads: exec_log.CounterReads | CounterInstructions) -> str | None:
    """The trace event of the counter's reads, None when they are instructions."""
    return reads.event if isinstance(reads, exec_log.CounterReads) else None


def _sample(
    w: exec_log.Window,
    kind: str,
    rank: int,
    kept: dict[str, Any],
    symbols: Symbols,
    critical: CriticalSections | None = None,
    translations: exec_log.Translations | None = None,
    origins: origin.Origins | None = None,
) -> dict[str, Any]:
    found: dict[str, Any] = {
        "kind": kind,
        "rank": rank,
        "index": int(kept["index"]),
        "value": kept["value"],
        "found": w.closed,
    }
    if not w.closed:
        found["why"] = (
            "its stop reading is not in the log"
            if w.opened
            else "its start reading is not in the log"
        )
        return found
    p = exec_log.analyse(w, symbols, translations)
    found.update(
        {
            "instructions": p.instructions,
            "blocks": p.blocks,
            "unknown_blocks": p.unknown_blocks,
            "sequence": list(p.sequence),
            "calls": p.calls,
            "instructions_by_function": dict(sorted(p.by_function.items(), key=lambda kv: -kv[1])),
            "handlers": list(p.handlers),
            # what ran, in order: [function, instructions], a new entry at each call
            "timeline": [list(r) for r in p.runs],
        }
    )
    if critical is not None:
        found["critical_sections"] = critical.count(p.calls, p.masks)
    if origins is not None:
        parts = origin.split(w.blocks, symbols, origins)
        found["shares"] = {k: n for k, n in parts.shares.items() if n or k in origin.SHARES}
        found["libc"] = parts.libc
        found["port_wrappers"] = parts.wrappers
    return found


def summarise(
    record: dict[str, Any],
    samples: list[dict[str, Any]],
    file: str,
    icount: int | None,
    hz: float | None = None,
) -> dict[str, Any]:
    """The `path` object of one result record (`hz`: the counter's frequency, which
    turns the subtracted overhead into instructions under -icount)."""
    found = [s for s in samples if s.get("found")]
    typical = pick_typical(found, (record.get("stats") or {}).get("p50"))
    worst = next((s for s in found if s["kind"] == "worst" and s["rank"] == 0), None)
    unit = str(record.get("unit", ""))
    out: dict[str, Any] = {
        "file": file,
        "exact_bounds": icount is not None,
        "ns_per_instruction": 2**icount if icount is not None else None,
        "kept": len(samples),
        "found": len(found),
        "typical": typical,
        "worst": worst,
        "line": typical_line(typical, unit) if typical else None,
        "worst_line": worst_line(worst, typical, unit) if worst and typical else None,
    }
    if typical is None:
        out["line"] = "no kept sample was found in the execution log"
    elif isinstance(typical.get("shares"), dict):
        out["overhead"] = overhead(record, typical, icount, hz)
    return out


def instructions_per_tick(icount: int | None, hz: float | None) -> float | None:
    """Under -icount shift=N an instruction takes 2**N ns of the board's time, so one
    tick of a counter at `hz` is (1e9 / hz) / 2**N instructions (1.25 for the
    25 MHz counter at shift=5); None without -icount (time is not instructions)."""
    if icount is None or not hz:
        return None
    return (1e9 / float(hz)) / float(2**icount)


def overhead(
    record: dict[str, Any], typical: dict[str, Any], icount: int | None, hz: float | None
) -> dict[str, Any]:
    """The typical sample's measurement instructions beside the timestamp overhead the
    core subtracted from every sample of the metric (`overhead_ticks`), in instructions."""
    measured = int((typical.get("shares") or {}).get(origin.MEASUREMENT, 0))
    if record.get("scenario") == CALIBRATION:
        return {
            "measurement_instructions": measured,
            "subtracted": False,
            "line": f"measurement: {measured:,} instructions, nothing subtracted (this metric "
            "is the timestamp overhead that is subtracted from the others)",
        }
    ticks = record.get("overhead_ticks")
    per_tick = instructions_per_tick(icount, hz)
    subtracted = (
        round(float(ticks) * per_tick, 2)
        if isinstance(ticks, int | float) and per_tick is not None
        else None
    )
    out: dict[str, Any] = {
        "measurement_instructions": measured,
        "subtracted": True,
        "overhead_ticks": ticks if isinstance(ticks, int) else None,
        "instructions_per_tick": per_tick,
        "overhead_instructions": subtracted,
        "difference": round(measured - subtracted, 2) if subtracted is not None else None,
    }
    out["line"] = overhead_line(out)
    return out


def overhead_line(found: dict[str, Any]) -> str:
    """`measurement: 17 instructions, subtracted overhead: 12.5 instructions (10 ticks x
    1.25); 4.5 more measured than subtracted`."""
    measured = found.get("measurement_instructions")
    ticks, subtracted = found.get("overhead_ticks"), found.get("overhead_instructions")
    head = f"measurement: {measured:,} instructions, subtracted overhead: "
    if ticks is None:
        return head + "none recorded"
    if subtracted is None:
        return head + f"{ticks} ticks (not instructions without --deterministic)"
    per_tick = found.get("instructions_per_tick")
    diff = float(found.get("difference") or 0)
    if diff == 0:
        tail = "the same"
    else:
        tail = f"{abs(diff):g} {'more' if diff > 0 else 'fewer'} measured than subtracted"
    return f"{head}{subtracted:g} instructions ({ticks} ticks x {per_tick:g}); {tail}"


def pick_typical(found: list[dict[str, Any]], median: Any) -> dict[str, Any] | None:
    """Of the samples kept near the median, one that took the path most of them
    took (the same function entries), the nearest the median among those."""
    near = [s for s in found if s["kind"] == "median"] or found
    if not near:
        return None
    groups: dict[tuple[tuple[str, int], ...], list[dict[str, Any]]] = {}
    for s in near:
        groups.setdefault(tuple(sorted(s["calls"].items())), []).append(s)
    common = max(groups.values(), key=len)  # the first of equals: kept order
    if median is None:
        return common[0]
    return min(common, key=lambda s: abs(float(s["value"]) - float(median)))


def _calls_text(calls: dict[str, int], limit: int = TOP_CALLS) -> str:
    ordered = sorted(calls.items(), key=lambda kv: -kv[1])  # stable: first entry breaks ties
    text = ", ".join(f"{name} x{n}" for name, n in ordered[:limit])
    more = len(ordered) - limit
    return text + (f" and {more} more" if more > 0 else "")


def shares_text(s: dict[str, Any]) -> str:
    """`kernel 39, port 8, measurement 17` from a sample's `shares` ("" without)."""
    found = s.get("shares")
    if not isinstance(found, dict):
        return ""
    return ", ".join(f"{k} {int(n):,}" for k, n in found.items())


def typical_line(s: dict[str, Any], unit: str) -> str:
    head = f"typical sample ({s['value']} {unit}): {s['instructions']:,} instructions"
    split = shares_text(s)
    if split:
        head += f" ({split})"
    calls = sum(s["calls"].values())
    if not calls:
        where = ", ".join(list(s["instructions_by_function"])[:3])
        return f"{head}, no function entered ({where})"
    return f"{head}, {calls} function entries: {_calls_text(s['calls'])}"


def worst_line(worst: dict[str, Any], typical: dict[str, Any], unit: str) -> str:
    extra = {
        name: n - typical["calls"].get(name, 0)
        for name, n in worst["calls"].items()
        if n > typical["calls"].get(name, 0)
    }
    more = worst["instructions"] - typical["instructions"]
    head = f"worst sample ({worst['value']} {unit}): {worst['instructions']:,} instructions"
    if more <= 0 and not extra:
        return head + ", the typical path"
    longer = _longer(worst["instructions_by_function"], typical["instructions_by_function"])
    beyond = "; ".join(x for x in (_calls_text(extra) if extra else "", longer) if x)
    handlers = [h for h in worst["handlers"] if h not in typical["handlers"]]
    taken = f"; interrupted by {', '.join(dict.fromkeys(handlers))}" if handlers else ""
    return f"{head} ({more:+,} on the typical path{_shares_delta(worst, typical)}): {beyond}{taken}"


def _shares_delta(worst: dict[str, Any], typical: dict[str, Any]) -> str:
    """`: kernel +34, port +12, measurement +0`, the worst sample's shares beyond the
    typical one's ("" when either has none)."""
    a, b = worst.get("shares"), typical.get("shares")
    if not isinstance(a, dict) or not isinstance(b, dict):
        return ""
    keys = list(dict.fromkeys([*b, *a]))
    return ": " + ", ".join(f"{k} {int(a.get(k, 0)) - int(b.get(k, 0)):+,}" for k in keys)


def _longer(worst: dict[str, int], typical: dict[str, int], limit: int = 3) -> str:
    """The functions the worst sample spent the most extra instructions in."""
    extra = sorted(((n - typical.get(name, 0), name) for name, n in worst.items()), reverse=True)
    named = [f"{name} {d:+,}" for d, name in extra[:limit] if d > 0]
    return f"longer in {', '.join(named)}" if named else ""
