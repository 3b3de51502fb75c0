# SPDX-License-Identifier: Apache-2.0
"""The `rtbench run` options for measuring the way real-time engineers do:
--load, --cpus, --duration, --length, --require, --require-file and --break.

`add_arguments` declares them, `prepare` checks them all before anything runs
(a bad one is a UsageError: one sentence, exit status 2), and `judge` evaluates
the requirements on the finished results and gives the exit status.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rtbench import system
from rtbench.errors import UsageError
from rtbench.model.catalog import CoreScenario, Selection, merged
from rtbench.model.results import ResultsDocument, ScenarioOutcome, read_samples, write_document
from rtbench.run import load, measure, requirements
from rtbench.run.hooks import RunHook
from rtbench.run.requirements import Requirement

if TYPE_CHECKING:
    from rtbench.targets.base import Target


@dataclass(frozen=True)
class Plan:
    """What the options asked for, checked."""

    measure: measure.MeasureOptions
    requirements: tuple[Requirement, ...]
    hooks: tuple[RunHook, ...]
    break_on_violation: bool

    def should_stop(self, outcome: ScenarioOutcome) -> str | None:
        """With --break: the first missed requirement judged on this unit alone."""
        if not self.break_on_violation or not self.requirements:
            return None
        ids = {outcome.name, *(i.id for i in outcome.ids), *(i.label for i in outcome.ids)}
        mine = [
            r
            for r in self.requirements
            if (requirements.COUNTS[r.subject][0] if r.kind == "count" else r.subject) in ids
        ]
        if not mine:
            return None
        doc = _one_unit_doc(outcome)
        for entry in requirements.evaluate(mine, doc):
            if entry["status"] == requirements.MISSED:
                return f"requirement '{entry['expr']}' missed in {outcome.name}"
        return None


def _one_unit_doc(outcome: ScenarioOutcome) -> Any:
    class _Doc:
        scenarios = (outcome,)

    return _Doc()


def precheck(args: argparse.Namespace, chosen: Sequence[Target]) -> None:
    """What can be checked before any target is opened: the expressions, the
    duration, the load kinds and tools, and what a remote target cannot do yet."""
    requirements.gather(args.require, args.require_file)
    if args.duration is not None:
        measure.parse_duration(args.duration)
    if args.length is not None:
        measure.parse_duration(args.length, "--length")
    if args.load is not None:
        load.check_tools(load.parse_kinds(args.load), load.Tools.find())
    remote = [t.kind for t in chosen if not t.runs_here]
    if remote and args.load is not None:
        raise UsageError(
            f"--load runs its tools on this machine, so it works with the local target "
            f"only, not {remote[0]}."
        )
    if remote and args.cpus is not None and args.cpus.strip() == "all":
        raise UsageError(
            f"--cpus all needs the local target; name the CPUs of a {remote[0]} target "
            "(--cpus 0-3)."
        )


def prepare(
    args: argparse.Namespace,
    core_catalog: Sequence[CoreScenario],
    selection: Selection,
    cpu: int,
    runs_here: bool = True,
) -> Plan:
    """Check every option of this module before the run; UsageError otherwise."""
    usable = tuple(system.usable_cpus())
    cpus: tuple[int, ...] = ()
    if args.cpus is not None and runs_here:
        cpus = measure.parse_cpus(args.cpus, usable)
    elif args.cpus is not None:
        # another machine's CPUs: the core refuses one it does not have
        cpus = measure.parse_cpus(args.cpus, range(measure.CPU_MASK_BITS))
    duration = None if args.duration is None else measure.parse_duration(args.duration)
    length_ms = None if args.length is None else measure.parse_duration(args.length, "--length")
    ppm = measure.PPM_ONE
    estimate_ms = None
    if length_ms is not None:
        ppm = measure.length_ppm(length_ms, selection.units, args.profile)
        estimate_ms = sum(int(u.estimate_ms[args.profile]) for u in selection.units)
    reqs = requirements.gather(args.require, args.require_file)
    known: dict[str, list[str]] = {}
    for listed in merged(core_catalog):
        known[listed.entry.id] = [listed.entry.id]
    for listed in merged(core_catalog):
        if listed.entry.label and listed.entry.label not in known:
            known.setdefault(listed.entry.label.upper(), []).append(listed.entry.id)
    for unit in core_catalog:
        known.setdefault(unit.name, [unit.name])
    selected = {i.id for u in selection.units for i in u.ids} | {u.name for u in selection.units}
    reqs = requirements.check(reqs, known, selected)
    if args.break_on_violation and not reqs:
        raise UsageError("--break needs a requirement (--require or --require-file) to break on.")
    break_ns: dict[str, float] = {}
    for u in selection.units:
        limit = requirements.time_limit_ns(reqs, u.name)
        if limit is not None:
            break_ns[u.name] = limit
    hooks: list[RunHook] = []
    if args.load is not None:
        kinds = load.parse_kinds(args.load)
        tools = load.Tools.find()
        load.check_tools(kinds, tools)
        measured = tuple(sorted({cpu, *cpus}))
        hooks.append(
            load.LoadHook(
                kinds,
                measured,
                usable,
                on_measurement_cpu=args.load_on_measurement_cpu,
                tools=tools,
            )
        )
    elif args.load_on_measurement_cpu:
        raise UsageError("--load-on-measurement-cpu needs --load.")
    return Plan(
        measure=measure.MeasureOptions(
            cpus=cpus,
            duration_ms=duration,
            break_ns=break_ns,
            break_on_violation=bool(args.break_on_violation),
            length_ms=length_ms,
            length_ppm=ppm,
            length_estimate_ms=estimate_ms,
        ),
        requirements=tuple(reqs),
        hooks=tuple(hooks),
        break_on_violation=bool(args.break_on_violation),
    )


def judge(plan: Plan, doc: ResultsDocument, out: Path) -> ResultsDocument:
    """The document with its requirements evaluated, stored in results.json."""
    if not plan.requirements:
        return doc

    def series(sf: Any) -> Sequence[float] | None:
        try:
            return read_samples(out, sf)
        except (OSError, ValueError):
            return None

    judged = requirements.evaluate(plan.requirements, doc, series)
    doc = replace(doc, requirements=tuple(judged))
    write_document(out, doc)
    return doc
