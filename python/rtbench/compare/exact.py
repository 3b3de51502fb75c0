# SPDX-License-Identifier: Apache-2.0
"""Exact comparison of deterministic runs: no statistics where nothing varies.

A run in deterministic mode (`rtbench run --deterministic`, QEMU's -icount)
on an emulated board counts instructions: its clock advances 2^shift ns per
executed instruction, and the same image gives the same figures run after
run. Two such runs with the same shift on the same emulated machine are
compared figure by figure: equal distributions are *identical*, and any
other difference is real and reported exactly, in the metric's unit (counter
ticks when it was recorded in ticks), in instructions and in per cent.

`pairing` decides, for the baseline and one other system, whether their
figures are comparable as exact and says why not in one sentence;
`difference` compares one metric of such a pair. A guest operating system
under -icount is not compared exactly: its figures do not repeat from run to
run (requests arrive on the serial line at moments of the host's time, and
the guest kernel has its own timers), see docs/targets.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rtbench.compare import significance as cstats
from rtbench.model import units
from rtbench.model.records import params_key
from rtbench.model.summary import MetricSummary
from rtbench.model.target import TargetView

if TYPE_CHECKING:
    from rtbench.compare.model import SamplesReader, System

# The statistics compared, in the order a difference lists them: (name, attribute).
STATISTICS: tuple[tuple[str, str], ...] = (
    ("min", "min"),
    ("median", "p50"),
    ("avg", "mean"),
    ("p90", "p90"),
    ("p99", "p99"),
    ("p99.9", "p99_9"),
    ("p99.99", "p99_99"),
    ("max", "max"),
)
# The statistics that decide whether a run is slower or faster: its shortest, typical
# and longest path. The others (avg, p90 to p99.99) count how many samples took
# which path, and that moves with the code around the timed section: which samples
# the periodic tick interrupt lands in depends on how long everything before took.
# They are reported exactly but alone make a metric only `differs`.
DECIDING = ("min", "median", "max")
# The statistic a difference is told by first: the median, else the maximum, else any.
_HEADLINE = ("median", "max", "min")
# What the machine of a deterministic run is: the same on both sides, or no exact comparison.
# what must be the same for exact figures (TargetView.machine's names); a
# version not recorded on one side is not known to differ
_MACHINE = ("board", "architecture", "emulator")
_MACHINE_VERSION = "emulator version"


@dataclass(frozen=True)
class Pairing:
    """Whether the baseline and one other system are compared exactly.

    `sentence` says why (a note when `exact`) or why not (a warning when
    `warn`; a plain note for guests, whose figures never repeat exactly)."""

    exact: bool
    shift: int | None = None
    ns_per_instruction: float | None = None
    sentence: str = ""
    warn: bool = False


def _shift_text(shift: int) -> str:
    return f"-icount shift={shift}, {2**shift} ns an instruction"


def pairing(base: System, other: System) -> Pairing:
    """Compare exactly only when every run of both systems is deterministic with one
    shift, on the same emulated board (same board, architecture, emulator and its
    version as recorded in `run.target_info`)."""
    pair = f"A and {other.letter}"
    runs = [(s.letter, TargetView.of(r.doc)) for s in (base, other) for r in s.runs()]
    modes = [target.deterministic for _letter, target in runs]
    if all(m is None for m in modes):
        return Pairing(False)
    fallback = "their figures are not comparable as exact, so they are tested by statistics"
    if any(m is None for m in modes):
        det = sorted({letter for (letter, _i), m in zip(runs, modes, strict=True) if m})
        non = sorted({letter for (letter, _i), m in zip(runs, modes, strict=True) if not m})
        if set(det) & set(non):
            who = " and ".join(f"{x}'s runs" for x in sorted(set(det) & set(non)))
            text = f"Not all of {who} ran deterministic (--deterministic): {fallback}."
        else:
            text = (
                f"{' and '.join(det)} ran deterministic (--deterministic) and "
                f"{' and '.join(non)} did not: {fallback}."
            )
        return Pairing(False, sentence=text, warn=True)
    shifts = sorted({int(m["icount_shift"]) for m in modes if m is not None})
    if len(shifts) > 1:
        listed = " and ".join(f"shift={s}" for s in shifts)
        return Pairing(
            False,
            sentence=f"{pair} ran deterministic with different -icount shifts ({listed}): "
            f"{fallback}.",
            warn=True,
        )
    shift = shifts[0]
    machines = [target.machine() for _letter, target in runs]
    # a guest beside a board, on the same core: the same unit, but a guest's
    # figures move from run to run (interrupts, the kernel's own timers)
    boards = [target.is_board for _letter, target in runs]
    named = {target.core for _letter, target in runs}
    if any(boards) and not all(boards) and len(named) == 1 and None not in named:
        return Pairing(
            False,
            shift=shift,
            sentence=f"{pair} ran deterministic on the same emulated core ({named.pop()}, "
            f"{_shift_text(shift)}): their figures count instructions of that core, but a guest "
            "operating system's do not repeat exactly from run to run (docs/targets.md), so "
            "they are tested by statistics.",
        )
    if not any(boards):
        return Pairing(
            False,
            shift=shift,
            sentence=f"{pair} ran deterministic guest operating systems, whose figures do not "
            "repeat exactly from run to run (docs/targets.md), so they are tested by statistics.",
        )
    for name in (*_MACHINE, _MACHINE_VERSION):
        values = [machine[name] for machine in machines]
        # a board on one side only is a difference; an unrecorded version is not known
        known = {str(v) for v in values if v is not None or name == "board"}
        if len(known) > 1:
            shown = _per_system(runs, name)
            return Pairing(
                False,
                shift=shift,
                sentence=f"{pair} ran deterministic on different emulated machines ({name}: "
                f"{shown}): {fallback}.",
                warn=True,
            )
    board = machines[0]["board"]
    version = machines[0]["emulator version"]
    emulator = f"QEMU {version}" if version else "the same emulator"
    return Pairing(
        True,
        shift=shift,
        ns_per_instruction=float(2**shift),
        sentence=f"{pair} ran deterministic on the same emulated board ({board}, {emulator}, "
        f"{_shift_text(shift)}): their figures count instructions and repeat exactly, so "
        "every difference is reported exactly, without statistics.",
    )


def _per_system(runs: Sequence[tuple[str, TargetView]], name: str) -> str:
    """`A 8.2.2, B 7.2.0`: each system's values of a machine fact (first seen first)."""
    seen: dict[str, list[str]] = {}
    for letter, target in runs:
        value = str(target.machine()[name])
        if value not in seen.setdefault(letter, []):
            seen[letter].append(value)
    return ", ".join(f"{letter} {'/'.join(values)}" for letter, values in seen.items())


# ---- one metric ------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """One statistic that differs: its name and both values (base unit)."""

    statistic: str
    base: float
    other: float

    @property
    def delta(self) -> float:
        return self.other - self.base

    @property
    def percent(self) -> float | None:
        return None if self.base == 0 else self.delta / abs(self.base) * 100.0


@dataclass(frozen=True)
class Exact:
    """An exact comparison of one metric of two deterministic runs.

    `outcome`: `identical`, `worse`/`better` (slower/faster for times),
    `higher`/`lower` (no better direction), `mixed` (some slower, some
    faster), each decided by the DECIDING statistics, or `differs` (those
    the same, but other statistics, the samples or their number differ; or no
    better direction and both ways)."""

    outcome: str
    changes: tuple[Change, ...]  # the statistics that differ, in STATISTICS order
    counts: tuple[int, int]
    basis: str  # "samples": every raw sample compared; "histogram": statistics and histogram
    unit: str  # the metric's base unit (ns for times)
    tick_ns: float | None  # the counter's step when the metric was recorded in ticks
    ns_per_instruction: float | None  # for times: 2^shift


def _figures(m: MetricSummary) -> tuple[Any, ...]:
    return (
        m.count,
        *(getattr(m, attr) for _name, attr in STATISTICS),
        tuple((b.lower, b.upper, b.count) for b in m.histogram),
    )


def record_of(system: System, metric: MetricSummary) -> tuple[Mapping[str, Any], float | None]:
    """The `result` record of a metric in a system's first run, and the counter
    frequency of its scenario; ({}, None) when it is not found."""
    key = params_key(dict(metric.params))
    for outcome in system.doc.scenarios:
        for record in outcome.of_type("result"):
            if (
                record.get("scenario") == metric.scenario
                and record.get("metric") == metric.metric
                and params_key(dict(record.get("params") or {})) == key
            ):
                return record, outcome.counter_hz
    return {}, None


def difference(
    systems: tuple[System, System],
    runs: tuple[Sequence[MetricSummary | None], Sequence[MetricSummary | None]],
    lower_is_better: bool | None,
    pair: Pairing,
    reader: SamplesReader,
) -> cstats.Difference | str:
    """The exact difference of one metric, or why it cannot be compared exactly
    (a system whose runs differ in it: then it is tested by statistics)."""
    firsts: list[MetricSummary] = []
    for system, cells in zip(systems, runs, strict=True):
        present = [m for m in cells if m is not None]
        if len(present) != len(cells) or not present:
            return f"not every run of {system.letter} measured it"
        if any(_figures(m) != _figures(present[0]) for m in present[1:]):
            return (
                f"the {len(present)} deterministic runs of {system.letter} differ in this "
                "metric, so it is tested by statistics"
            )
        firsts.append(present[0])
    a, b = firsts
    changes = tuple(
        Change(name, float(getattr(a, attr)), float(getattr(b, attr)))
        for name, attr in STATISTICS
        if getattr(a, attr) is not None
        and getattr(b, attr) is not None
        and getattr(a, attr) != getattr(b, attr)
    )
    samples_a = reader(systems[0].runs()[0], a)
    samples_b = reader(systems[1].runs()[0], b)
    if samples_a is not None and samples_b is not None:
        basis, same = "samples", sorted(samples_a) == sorted(samples_b)
    else:
        basis, same = "histogram", _figures(a) == _figures(b)
    outcome = _outcome(changes, same and a.count == b.count, lower_is_better)
    is_time = units.is_time(a.source_unit)
    tick_ns = None
    if a.source_unit == "ticks":
        _record, hz = record_of(systems[0], a)
        tick_ns = 1e9 / hz if hz else None
    exact = Exact(
        outcome=outcome,
        changes=changes,
        counts=(a.count, b.count),
        basis=basis,
        unit=a.unit,
        tick_ns=tick_ns,
        ns_per_instruction=pair.ns_per_instruction if is_time else None,
    )
    location = "exact"
    return cstats.Difference(outcome, location, location, None, (), "", exact=exact)


def _outcome(changes: Sequence[Change], identical: bool, lower_is_better: bool | None) -> str:
    if not changes:
        return "identical" if identical else "differs"
    deciding = [c for c in changes if c.statistic in DECIDING]
    if not deciding:
        return "differs"
    up = any(c.delta > 0 for c in deciding)
    down = any(c.delta < 0 for c in deciding)
    if up and down:
        return "mixed" if lower_is_better is not None else "differs"
    direction = "higher" if up else "lower"
    if lower_is_better is None:
        return direction
    return "worse" if (direction == "higher") == lower_is_better else "better"


# ---- words -----------------------------------------------------------------------

# The word of each outcome in a comparison's table.
WORDS = {
    "identical": "identical",
    "worse": "SLOWER",
    "better": "faster",
    "mixed": "MIXED",
    "differs": "differs",
    "higher": "higher",
    "lower": "lower",
}


def _number(value: float, signed: bool) -> str:
    """`+80`, `-0.01` (signed) or `80`, `0.01` (the magnitude): whole numbers as
    they are, others to about three digits."""
    sign = ("+" if value > 0 else "-" if value < 0 else "") if signed else ""
    magnitude = abs(value)
    if math.isclose(magnitude, round(magnitude), abs_tol=1e-9):
        return f"{sign}{round(magnitude):,}"
    return sign + units.format_number(magnitude)


def _percent(value: float) -> str:
    """`+25.0%`; a change below 0.1 % with two significant digits (`-0.015%`)."""
    return f"{value:+.1f}%" if abs(value) >= 0.1 else f"{value:+.2g}%"


def amount(exact: Exact, change: Change, *, full: bool, signed: bool = True) -> str:
    """A change in the recorded unit, e.g. `+80 ticks = +3.20 µs ≈ +100 instructions
    (+25.0%)` (`full`), or `+80 ticks (+25.0%)`; `signed=False`: the magnitudes
    (`80 ticks = 3.20 µs ...`), the per cent keeps its sign."""
    delta = change.delta
    pct = "" if change.percent is None else f" ({_percent(change.percent)})"
    if not units.is_time(exact.unit):
        unit = units.base_unit(exact.unit)
        shown = units.format_number(abs(delta))
        sign = ("+" if delta > 0 else "-") if signed else ""
        return f"{sign}{shown}{'' if unit == 'count' else ' ' + unit}{pct}"
    parts: list[str] = []
    step = 1.0
    if exact.tick_ns:
        step = exact.tick_ns
        ticks = delta / exact.tick_ns
        parts.append(f"{_number(ticks, signed)} tick{'' if abs(ticks) == 1 else 's'}")
    if not parts or full:
        name, size = units.time_unit_for(abs(delta))
        sign = ("+" if delta > 0 else "-") if signed else ""
        parts.append(f"{sign}{units.format_number(abs(delta) / size)} {name}")
    shown = " = ".join(parts)
    if full and exact.ns_per_instruction:
        insns = delta / exact.ns_per_instruction
        whole = math.isclose(insns, round(insns), abs_tol=1e-9)
        # a reading moves in counter steps: a step of more than one instruction
        # leaves the count of instructions uncertain by a step
        approx = "=" if whole and step <= exact.ns_per_instruction else "≈"
        if approx == "≈" and abs(insns) >= 1:
            insns = float(round(insns))
        plural = "" if abs(insns) == 1 else "s"
        shown += f" {approx} {_number(insns, signed)} instruction{plural}"
    return shown + pct


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def text(exact: Exact, letter: str) -> str:
    """The sentence of a comparison's detail line."""
    n_a, n_b = exact.counts
    counts = "" if n_a == n_b else f"; A has {n_a:,} samples, {letter} {n_b:,}"
    if exact.outcome == "identical":
        if exact.basis == "samples":
            return f"identical: the same {n_a:,} samples (deterministic)"
        return f"identical: the same statistics and histogram of {n_a:,} samples (deterministic)"
    if not exact.changes:
        what = "samples" if exact.basis == "samples" else "histograms"
        return f"differs: every statistic is the same, but the {what} differ{counts}"
    if not any(c.statistic in DECIDING for c in exact.changes):
        listed = "; ".join(f"{c.statistic} {amount(exact, c, full=False)}" for c in exact.changes)
        return f"differs: the same min, median and max; {listed}{counts}"
    head = next(
        (c for name in _HEADLINE for c in exact.changes if c.statistic == name),
        exact.changes[0],
    )
    rest = [c for c in exact.changes if c is not head]
    # a shift of the whole distribution moves every statistic by as much: said once
    alike = [c.statistic for c in rest if math.isclose(c.delta, head.delta, rel_tol=1e-9)]
    others = "; ".join(
        f"{c.statistic} {amount(exact, c, full=False)}" for c in rest if c.statistic not in alike
    )
    others = (f", and by as much in {_listed(alike)}" if alike else "") + (
        f"; {others}" if others else ""
    )
    unchanged = "" if head.statistic == "median" else "; median unchanged"
    if exact.outcome in ("worse", "better", "higher", "lower"):
        word = {"worse": "slower", "better": "faster"}.get(exact.outcome, exact.outcome)
        by = amount(exact, head, full=True, signed=False)
        return f"{word} by exactly {by} in the {head.statistic}{unchanged}{others}{counts}"
    word = "MIXED" if exact.outcome == "mixed" else "differs"
    main = amount(exact, head, full=True)
    return f"{word}, exactly: {head.statistic} {main}{others}{counts}"
