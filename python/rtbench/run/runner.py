# SPDX-License-Identifier: Apache-2.0
"""Running scenarios: one core process per run unit, under a watchdog.

The runner always runs `cal.timestamp` first and hands its minimum (the cost
of a timestamp) and the counter frequency to every later process, so a whole
run uses one calibration. Each unit runs in its own process and session; a
unit that overruns its deadline (from the core's catalog, plus slack) is
killed and recorded as `timeout` (the deadline is measured on the target's
watchdog clock: the host's, or an emulator's own progress when its figures do not
depend on the host's load, see `transport.watchdog_clock`), one that dies or ends without its `end`
record as `crashed`, and the run goes on. results.json is rewritten after
every unit. SIGINT, SIGTERM and SIGHUP ask the running unit to stop (it reports what
it measured), then the run ends as interrupted. Settings changed on the target for
the run are restored on every path, and run hooks (a background load, a trace) are
stopped on every path. A unit whose target went away (guest ended, connection
dropped) ends as `lost`; the target then recovers or the run stops there, with
everything measured before it stored.

Test hook: RTBENCH_DEADLINE_SCALE multiplies every deadline (e.g. 0.001 makes
the watchdog fire after the slack alone).
"""

from __future__ import annotations

import atexit
import contextlib
import datetime as dt
import os
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import FrameType
from typing import Any

from rtbench.errors import UsageError
from rtbench.model.catalog import CatalogId, CoreScenario, Selection, SpecEntry
from rtbench.model.records import (
    ProtocolVersionError,
    RecordError,
    metric_key,
    parse_line,
)
from rtbench.model.results import (
    FAILED_STATUSES,
    RESULTS_FILE,
    Calibration,
    ResultsDocument,
    RunInfo,
    SamplesFile,
    ScenarioOutcome,
    write_document,
    write_histogram,
    write_samples,
)
from rtbench.model.units import ticks_to_ns
from rtbench.run import requirements
from rtbench.run.collect import (
    POLL_S,
    WATCHDOG_SLACK_S,
    Collector,
    Ui,
    query_catalog,
    unit_status,
)
from rtbench.run.hooks import HookContext, RunHook
from rtbench.run.measure import MeasureOptions
from rtbench.run.progress import Progress
from rtbench.targets.base import Target, Tuning
from rtbench.transport import CoreStream, EndOfStream, TargetLost, Transport, watchdog_clock

CALIBRATION = "cal.timestamp"
# its metrics: the timed-call overhead and the inline one (rtb/sample.h)
CALIBRATION_METRIC = "timestamp"
CALIBRATION_INLINE_METRIC = "timestamp_inline"
STOP_GRACE_S = 5.0
DEADLINE_SCALE_ENV = "RTBENCH_DEADLINE_SCALE"


def deadline_scale() -> float:
    """The test hook RTBENCH_DEADLINE_SCALE (1 when unset)."""
    text = os.environ.get(DEADLINE_SCALE_ENV)
    if not text:
        return 1.0
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise UsageError(f"{DEADLINE_SCALE_ENV} must be a positive number, not {text!r}.")
    return value


@dataclass(frozen=True)
class RunOptions:
    """What `rtbench run` was asked to do, already checked."""

    profile: str
    patterns: tuple[str, ...]
    cpu: int
    out_dir: Path
    sets: tuple[tuple[str, str], ...] = ()
    lift_rt_throttle: bool = False
    dma_latency: bool = True
    raw_max: int | None = None
    deadline_scale: float = 1.0
    command_line: tuple[str, ...] = ()
    # --cpus, --duration and --break for the scenarios that take them (rtbench.run.measure)
    measure: MeasureOptions = field(default_factory=MeasureOptions)


class StopFlag:
    """Set by SIGINT/SIGTERM/SIGHUP; the runner polls it."""

    def __init__(self) -> None:
        self.count = 0
        self.signal_name = ""

    def requested(self) -> bool:
        return self.count > 0

    def handler(self, signo: int, _frame: FrameType | None) -> None:
        self.count += 1
        self.signal_name = signal.Signals(signo).name


class Run:
    """One `rtbench run`: calibration, the selected units, results after each."""

    def __init__(
        self,
        options: RunOptions,
        target: Target,
        core_catalog: Sequence[CoreScenario],
        selection: Selection,
        host: dict[str, Any],
        caveats: list[dict[str, str]],
        ui: Ui,
        progress: Progress,
        run_id: str,
        hooks: Sequence[RunHook] = (),
        should_stop: Callable[[ScenarioOutcome], str | None] | None = None,
        stop: StopFlag | None = None,
    ) -> None:
        self.options = options
        self.target = target
        self.transport: Transport = target.transport()
        self.hooks = tuple(hooks)
        # asked after every unit; a reason stops the run there (--break)
        self.should_stop = should_stop
        self.broken: str | None = None
        # why the run could not go on after its target was lost
        self.target_gone: str | None = None
        self.core_catalog = list(core_catalog)
        self.selection = selection
        self.host = host
        self.caveats = caveats
        self.ui = ui
        self.progress = progress
        self.run_id = run_id
        # given: the caller takes the signals (runs of several targets at once)
        self._own_signals = stop is None
        self.stop = stop if stop is not None else StopFlag()
        self.outcomes: list[ScenarioOutcome] = []
        self.calibration: Calibration | None = None
        self.settings: dict[str, list[dict[str, Any]]] = {"changes": [], "skipped": []}
        self.started = _now()
        self.finished: str | None = None
        self.interrupted = False
        self.complete = False
        self._taken_names: set[str] = set()
        self._taken_histograms: set[str] = set()
        self._warned_not_realtime = False
        # why results could not be stored (a full disk, ...); the run stops there
        self.storage_failure: str | None = None
        self._cal_unit = self._find_calibration()
        units = list(selection.units)
        if self._cal_unit is not None and self._cal_unit not in units:
            units.insert(0, self._cal_unit)
        elif self._cal_unit is not None:
            units.remove(self._cal_unit)
            units.insert(0, self._cal_unit)
        self.units = units

    # ---- the document -------------------------------------------------

    def _find_calibration(self) -> CoreScenario | None:
        for unit in self.core_catalog:
            if unit.name == CALIBRATION or any(c.id == CALIBRATION for c in unit.ids):
                return unit
        return None

    @property
    def realtime(self) -> bool:
        return all(o.meta is None or bool(o.meta["realtime"]) for o in self.outcomes)

    def document(self) -> ResultsDocument:
        opts = self.options
        run = RunInfo(
            id=self.run_id,
            started=self.started,
            finished=self.finished,
            complete=self.complete,
            interrupted=self.interrupted,
            profile=opts.profile,
            cpu=opts.cpu,
            patterns=opts.patterns,
            selected=tuple(u.name for u in self.units),
            command_line=opts.command_line,
            target=self.target.spec,
            realtime=self.realtime,
            options={
                "set": dict(opts.sets),
                "raw_max": opts.raw_max,
                "dma_latency": opts.dma_latency,
                "lift_rt_throttle": opts.lift_rt_throttle,
                "deadline_scale": opts.deadline_scale,
                **opts.measure.to_json(),
            },
            core=self._core_description(),
            target_info=self.target.describe(),
            conditions={h.key: h.describe() for h in self.hooks} or None,
        )
        missing = [_not_implemented(e) for e in self.selection.missing]
        return ResultsDocument(
            run=run,
            host=self.host,
            caveats=tuple(self.caveats),
            settings=self.settings,
            calibration=self.calibration,
            scenarios=(*self.outcomes, *missing),
        )

    def _core_description(self) -> dict[str, Any]:
        described = dict(self.transport.describe())
        for outcome in self.outcomes:
            if outcome.meta is not None:
                described["version"] = outcome.meta["core_version"]
                break
        return described

    def save(self) -> None:
        """Rewrite results.json. A write that fails leaves the previous file whole
        (write_atomic) and stops the run after the current scenario."""
        try:
            write_document(self.options.out_dir, self.document())
        except OSError as e:
            self._storage_failed(e, RESULTS_FILE)

    def _storage_failed(self, e: OSError, what: str) -> None:
        if self.storage_failure is None:
            self.storage_failure = f"cannot write {what} in {self.options.out_dir}: " + (
                e.strerror or str(e)
            )
            self.ui.warn(f"{self.storage_failure[0].upper()}{self.storage_failure[1:]}; stopping.")

    # ---- the run ---------------------------------------------------------

    def execute(self) -> ResultsDocument:
        """Run everything; results.json is complete or marked incomplete on return."""
        previous = {
            signo: signal.signal(signo, self.stop.handler)
            # SIGHUP too: a closed terminal must not leave host settings changed.
            for signo in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
            if self._own_signals
        }
        host_tuning = self.target.tuning(
            dma_latency=self.options.dma_latency,
            lift_rt_throttle=self.options.lift_rt_throttle,
            cpu=self.options.cpu,
        )
        atexit.register(host_tuning.restore)
        try:
            self.save()
            try:
                host_tuning.apply()
            except OSError as e:
                self.ui.warn(f"Could not change host settings for the run: {e}.")
            finally:
                self._note_settings(host_tuning)
            for change in host_tuning.changes:
                self.ui.info(
                    f"Changed {change.get('setting')} from {change.get('original')} to "
                    f"{change.get('applied')} for the run (restored at the end)."
                )
            self._caveats_as_run(host_tuning)
            self._start_hooks()
            self._run_units()
            self.complete = (
                not self.interrupted
                and self.storage_failure is None
                and self.target_gone is None
                and self.broken is None
            )
        finally:
            try:
                self._stop_hooks()
                host_tuning.restore()
            finally:
                atexit.unregister(host_tuning.restore)
                self._note_settings(host_tuning)
                for signo, handler in previous.items():
                    signal.signal(signo, handler)
                self.finished = _now()
                self.save()
        return self.document()

    def _start_hooks(self) -> None:
        ctx = HookContext(
            cpu=self.options.cpu,
            out_dir=self.options.out_dir,
            profile=self.options.profile,
            target=self.target,
            warn=self.ui.warn,
            info=self.ui.info,
        )
        for hook in self.hooks:
            hook.start(ctx)
            self.save()  # what the hook started is on record at once

    def _stop_hooks(self) -> None:
        for hook in reversed(self.hooks):
            with contextlib.suppress(Exception):  # stop() must not raise; never let it mask
                hook.stop()

    def _caveats_as_run(self, host_tuning: Tuning) -> None:
        """Caveats describe the conditions the run had, not those before it: RT
        throttling lifted for the run is no longer a warning; one that could not be
        lifted is warned about now (the command line held that warning back)."""
        lifted = any(
            c.get("setting") == "sched_rt_runtime_us" and c.get("applied") == -1
            for c in host_tuning.changes
        )
        if lifted:
            throttling = self.host.setdefault("rt_throttling", {})
            if isinstance(throttling, dict):
                throttling["lifted_for_run"] = True
            self.caveats = self.target.caveats(self.host)
        elif self.options.lift_rt_throttle:
            for c in self.caveats:
                if c.get("code") == "rt_throttling":
                    self.ui.warn(f"{c.get('message', '')} (--lift-rt-throttle did not take)")

    def _note_settings(self, host_tuning: Tuning) -> None:
        self.settings = {
            "changes": [dict(c) for c in host_tuning.changes],
            "skipped": [dict(s) for s in host_tuning.skipped],
        }

    def _run_units(self) -> None:
        profile = self.options.profile
        estimates = [self.options.measure.estimate_s(u, profile) + 0.3 for u in self.units]
        progress = self.progress
        progress.start(estimates)
        try:
            for index, unit in enumerate(self.units):
                if self.stop.requested():
                    self.interrupted = True
                    break
                outcome = self._run_unit(index, unit, progress)
                self.outcomes.append(outcome)
                if unit is self._cal_unit:
                    self._calibrate(outcome)
                self._check_realtime(outcome)
                self.save()
                if outcome.status == "lost" and (
                    self.target_gone is not None
                    or not self._recover(
                        outcome.name, f"{outcome.name}: the target was lost ({outcome.reason})."
                    )
                ):
                    break
                if self.stop.requested():
                    self.interrupted = True
                    break
                if self.storage_failure is not None:
                    break
                self.broken = self.should_stop(outcome) if self.should_stop else None
                if self.broken is not None:
                    self.ui.warn(f"Stopping the run: {self.broken} (--break).")
                    break
        finally:
            progress.close()

    def _recover(self, name: str, warning: str) -> bool:
        """After a lost unit (`name`): can the target go on? If not, the run stops here."""
        self.ui.warn(warning)
        try:
            if self.target.recover(self.ui.info):
                return True
            why = "it could not be recovered"
        except Exception as e:  # a target that fails to recover ends the run, cleanly
            why = f"recovering it failed: {e}"
        self.target_gone = f"the target {self.target.spec} was lost during {name} and {why}"
        self.ui.warn(f"The run stops: {self.target_gone}; what was measured before is kept.")
        return False

    def _calibrate(self, outcome: ScenarioOutcome) -> None:
        if outcome.meta is None:
            self.ui.warn(
                "The calibration did not run; every scenario calibrates itself instead, "
                "so their overheads may differ slightly."
            )
            return
        counter = outcome.meta["counter"]
        found, inline = (
            next(
                (
                    r
                    for r in outcome.of_type("result")
                    if r["scenario"] == CALIBRATION
                    and r.get("metric") == metric
                    and r["unit"] == "ticks"
                    and r["stats"]["count"] > 0
                ),
                None,
            )
            for metric in (CALIBRATION_METRIC, CALIBRATION_INLINE_METRIC)
        )
        if found is None or outcome.status not in ("ok", "stopped"):
            self.ui.warn(
                f"The calibration ended '{outcome.status}'; every scenario calibrates "
                "itself instead, so their overheads may differ slightly."
            )
            return
        overhead = int(found["stats"]["min"])
        # a core without the inline metric: each scenario calibrates it itself
        inline_overhead = None if inline is None else int(inline["stats"]["min"])
        self.calibration = Calibration(
            scenario=CALIBRATION,
            counter=dict(counter),  # nominal and effective resolution alike
            overhead_ticks=overhead,
            overhead_ns=ticks_to_ns(overhead, float(counter["hz"])),
            passed_on=True,
            overhead_inline_ticks=inline_overhead,
            overhead_inline_ns=(
                None
                if inline_overhead is None
                else ticks_to_ns(inline_overhead, float(counter["hz"]))
            ),
        )

    def _check_realtime(self, outcome: ScenarioOutcome) -> None:
        meta = outcome.meta
        if meta is None or self._warned_not_realtime:
            return
        if not meta["realtime"]:
            self._warned_not_realtime = True
            self.ui.warn(
                "NOT REAL-TIME: rtbench-core could not use a real-time scheduling policy "
                f"({meta['degraded'] or 'no reason given'}). The run goes on and its results "
                "are marked 'not real-time'; run as root (or with CAP_SYS_NICE) for real numbers."
            )
        elif meta["degraded"] and outcome.name == CALIBRATION:
            self.ui.warn(f"rtbench-core: {meta['degraded']}")

    def _args(self, unit: CoreScenario) -> list[str]:
        opts = self.options
        args = ["run", "--profile", opts.profile, "--scenario", unit.name, "--cpu", str(opts.cpu)]
        if opts.raw_max is not None:
            args += ["--raw-max", str(opts.raw_max)]
        if self.calibration is not None and unit is not self._cal_unit:
            args += ["--overhead-ticks", str(self.calibration.overhead_ticks)]
            if self.calibration.overhead_inline_ticks is not None:
                args += ["--overhead-inline-ticks", str(self.calibration.overhead_inline_ticks)]
            args += ["--counter-hz", str(self.calibration.counter["hz"])]
        if unit is not self._cal_unit or unit in self.selection.units:
            for key, value in opts.sets:
                args += ["--set", f"{key}={value}"]
        if unit is not self._cal_unit:
            args += opts.measure.core_args(unit, opts.profile, opts.cpu)
        return args

    def _run_unit(self, index: int, unit: CoreScenario, progress: Progress) -> ScenarioOutcome:
        deadline_ms = unit.deadline_ms[self.options.profile]
        if unit is not self._cal_unit:  # a longer --duration moves the deadline
            deadline_ms = self.options.measure.deadline_ms(unit, self.options.profile)
        base = ScenarioOutcome(
            name=unit.name,
            ids=unit.ids,
            summary=unit.summary,
            status="error",
            reason=None,
            deadline_ms=deadline_ms,
        )
        labels = dict.fromkeys(i.label for i in unit.ids if i.label)
        progress.begin(index, unit.name, ", ".join(labels))
        extra = [arg for hook in self.hooks for arg in hook.before_unit(unit)]
        outcome = self._run_stream(unit, base, extra, progress)
        for hook in self.hooks:
            outcome = hook.after_unit(unit, outcome)
        return outcome

    def _run_stream(
        self, unit: CoreScenario, base: ScenarioOutcome, extra: list[str], progress: Progress
    ) -> ScenarioOutcome:
        limit_s = float(base.deadline_ms or 0) / 1000.0 * self.options.deadline_scale
        limit_s += WATCHDOG_SLACK_S
        try:
            stream = self._start(unit, extra)
        except TargetLost as e:
            outcome = replace(base, status="lost", reason=str(e), elapsed_s=0.0)
            progress.end(outcome.status, 0.0)
            return outcome
        except OSError as e:
            outcome = replace(
                base, reason=f"rtbench-core could not be started: {e.strerror or e}", elapsed_s=0.0
            )
            progress.end(outcome.status, 0.0)
            return outcome

        started = time.monotonic()
        watch = watchdog_clock(self.transport)
        watch_started = watch()
        collector = Collector(progress, self.ui)
        lost: str | None = None
        timed_out = False
        refused: str | None = None
        stop_sent_at: float | None = None
        killed = False
        try:
            while True:
                now = time.monotonic()
                if self.stop.requested() and stop_sent_at is None:
                    stop_sent_at = now
                    stream.terminate()
                    self.ui.warn(
                        f"{self.stop.signal_name}: stopping {unit.name} (it reports what it "
                        "measured); press Ctrl-C again to kill it."
                    )
                if (
                    stop_sent_at is not None
                    and not killed
                    and (now - stop_sent_at > STOP_GRACE_S or self.stop.count > 1)
                ):
                    stream.kill()
                    killed = True
                if not killed and watch() - watch_started > limit_s:
                    stream.kill()
                    killed = timed_out = True
                try:
                    line = stream.read_line(POLL_S)
                except EndOfStream:
                    break
                except TargetLost as e:
                    lost = str(e) or "the target went away"
                    break
                if line is None:
                    progress.tick()
                    continue
                collector.lines += 1
                if not line.strip() or refused is not None:
                    continue
                try:
                    record = parse_line(line)
                except ProtocolVersionError as e:
                    refused = f"rtbench-core wrote a {e}"
                    stream.kill()
                    killed = True
                    continue
                except RecordError as e:
                    collector.errors.append(f"line {collector.lines}: {e}")
                    continue
                collector.add(record)
            returncode = None if lost is not None else self._reap(stream)
        finally:
            stream.kill()
            stream.close()
        elapsed = time.monotonic() - started
        samples = self._write_samples(collector)
        status, reason = unit_status(
            collector, returncode, timed_out, refused, stop_sent_at is not None, killed, limit_s
        )
        if lost is not None:
            status, reason = "lost", lost
        outcome = replace(
            base,
            status=status,
            reason=reason,
            elapsed_s=elapsed,
            exit_code=returncode,
            meta=collector.meta,
            records=tuple(collector.records),
            samples=tuple(samples),
            stderr_tail=stream.stderr_tail(),
            errors=tuple(collector.errors),
        )
        progress.end(status, elapsed)
        return outcome

    def _start(self, unit: CoreScenario, extra: list[str]) -> CoreStream:
        """Start the unit. A target that was already gone before it started (its
        machine ended with the unit before it, killed by the watchdog) is
        recovered once and the unit started there: it never ran, so it is not
        the one lost."""
        args = [*self._args(unit), *extra]
        try:
            return self.transport.start(args)
        except TargetLost as e:
            warning = f"The target was gone before {unit.name} started ({e})."
            if not self._recover(unit.name, warning):
                raise
            return self.transport.start(args)

    @staticmethod
    def _reap(stream: CoreStream) -> int | None:
        returncode = stream.wait(5.0)
        if returncode is None:
            stream.kill()
            returncode = stream.wait(5.0)
        return returncode

    def _write_samples(self, c: Collector) -> list[SamplesFile]:
        hz = float(c.meta["counter"]["hz"]) if c.meta is not None else None
        files: list[SamplesFile] = []
        seen: set[tuple[str, str, str]] = set()
        for record in c.records:
            if record["type"] != "result":
                continue
            key = metric_key(record)
            seen.add(key)
            values = c.values.get(key, [])
            expected = int(record["raw"]["count"])
            if len(values) != expected:
                c.errors.append(
                    f"{record['scenario']} {record['metric']}: {len(values)} raw samples "
                    f"received, {expected} announced"
                )
            if self.storage_failure is not None:
                continue
            try:
                if values:
                    files.append(
                        write_samples(
                            self.options.out_dir,
                            str(record["scenario"]),
                            str(record["metric"]),
                            record.get("params", {}),
                            values,
                            str(record["unit"]),
                            hz,
                            self._taken_names,
                            total=int(record["stats"]["count"]),
                        )
                    )
                if record["stats"]["count"]:
                    write_histogram(self.options.out_dir, record, hz, self._taken_histograms)
            except OSError as e:
                self._storage_failed(e, f"the raw samples of {record['scenario']}")
        for key in c.values:
            if key not in seen:
                c.errors.append(f"raw samples of {key[0]} {key[1]} without a result record")
        return files


def _not_implemented(entry: SpecEntry) -> ScenarioOutcome:
    return ScenarioOutcome(
        name=entry.id,
        ids=(CatalogId(entry.id, entry.label),),
        summary=entry.description,
        status="not_implemented",
        reason="not implemented in this build of rtbench-core",
    )


def _now() -> str:
    return dt.datetime.now(dt.UTC).astimezone().isoformat(timespec="seconds")


def exit_status(doc: ResultsDocument) -> int:
    """130 when interrupted, else 1 when a unit ended error/timeout/crashed/lost or a
    requirement was missed or could not be judged (not measured), else 0."""
    if doc.run.interrupted:
        return 130
    if any(s.status in FAILED_STATUSES for s in doc.scenarios):
        return 1
    if doc.requirements and not requirements.all_requirements_met(doc.requirements):
        return 1
    return 0


__all__ = [
    "Run",
    "RunOptions",
    "StopFlag",
    "Ui",
    "deadline_scale",
    "exit_status",
    "query_catalog",
]
