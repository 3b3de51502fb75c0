# SPDX-License-Identifier: Apache-2.0
"""The path difference of a metric: which functions gained or lost instructions or calls.

A run traced on an emulated board (`rtbench run --trace`) stores, in each
result record, a `path` object: the typical and the worst kept sample with
their instructions per function and their calls (entries) per function
(docs/tracing.md). When both compared systems have one for a metric, the
difference of their typical samples (and of their worst samples, when it
tells something the typical one does not) names the code that changed:
`xQueueSemaphoreTake +400 instructions; vPortEnterCritical 7 -> 0 calls`.
Changes are ordered by the absolute change of instructions, then of calls.
A system given as several runs is represented by its first run's path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rtbench.compare.exact import record_of

if TYPE_CHECKING:
    from rtbench.compare.model import System
    from rtbench.model.summary import MetricSummary

TERMINAL_CHANGES = 4  # functions a terminal line names before "(+N more)"


@dataclass(frozen=True)
class FunctionChange:
    """One function whose instructions or calls differ: (baseline, other) each."""

    name: str
    instructions: tuple[int, int]
    calls: tuple[int, int]

    @property
    def delta(self) -> int:
        return self.instructions[1] - self.instructions[0]

    def text(self) -> str:
        parts = []
        if self.delta:
            parts.append(f"{self.delta:+,} instructions")
        if self.calls[0] != self.calls[1]:
            parts.append(f"{self.calls[0]:,} -> {self.calls[1]:,} calls")
        return f"{self.name} {', '.join(parts)}"


@dataclass(frozen=True)
class PathDiff:
    """The difference between the same kept sample (`typical` or `worst`) of two runs."""

    sample: str
    instructions: tuple[int, int]
    values: tuple[float, float]  # the samples' own values (the metric's recorded unit)
    unit: str
    changes: tuple[FunctionChange, ...]
    handlers: tuple[tuple[str, ...], tuple[str, ...]]  # handlers only in A, only in the other
    exact: bool  # both counted exactly (deterministic mode)
    # the change of each share (kernel, port, measurement) when both paths were split
    shares: tuple[tuple[str, int], ...] = ()

    @property
    def delta(self) -> int:
        return self.instructions[1] - self.instructions[0]

    def head(self) -> str:
        a, b = self.instructions
        how = "exact instruction counts" if self.exact else "instructions to a block at each end"
        if not self.changes and not any(self.handlers):
            return f"{self.sample} sample: the same path, {a:,} instructions ({how})"
        split = "".join(f", {k} {d:+,}" for k, d in self.shares)
        return f"{self.sample} sample: {a:,} -> {b:,} instructions ({self.delta:+,}{split}; {how})"

    def items(self, letter: str) -> list[str]:
        """Every change as a phrase, the largest first, then the handlers (`letter`:
        the other system's)."""
        out = [c.text() for c in self.changes]
        only_a, only_b = self.handlers
        if only_a:
            out.append(f"interrupted by {', '.join(only_a)} only in A")
        if only_b:
            out.append(f"interrupted by {', '.join(only_b)} only in {letter}")
        return out

    def line(self, letter: str, limit: int | None = TERMINAL_CHANGES) -> str:
        """`typical sample: 491 -> 891 instructions (+400; ...): f +400 instructions; ...
        (+N more)`, naming at most `limit` changes (None: all)."""
        items = self.items(letter)
        if not items:
            return self.head()
        shown = items if limit is None else items[:limit]
        more = len(items) - len(shown)
        return f"{self.head()}: {'; '.join(shown)}" + (f" (+{more} more)" if more > 0 else "")


def path_of(system: System, metric: MetricSummary) -> Mapping[str, Any] | None:
    """The `path` object of a metric in a system's first run, or None (not traced)."""
    record, _hz = record_of(system, metric)
    found = record.get("path")
    return found if isinstance(found, Mapping) else None


def _sample(path: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    found = path.get(kind)
    if isinstance(found, Mapping) and isinstance(found.get("instructions"), int):
        return found
    return None


def _counts(sample: Mapping[str, Any], key: str) -> dict[str, int]:
    found = sample.get(key)
    if not isinstance(found, Mapping):
        return {}
    return {str(k): int(v) for k, v in found.items()}


def compare_samples(
    kind: str, a: Mapping[str, Any], b: Mapping[str, Any], unit: str, exact: bool
) -> PathDiff:
    insns_a = _counts(a, "instructions_by_function")
    insns_b = _counts(b, "instructions_by_function")
    calls_a, calls_b = _counts(a, "calls"), _counts(b, "calls")
    names = list(dict.fromkeys([*insns_a, *calls_a, *insns_b, *calls_b]))
    every = (
        FunctionChange(
            name,
            (insns_a.get(name, 0), insns_b.get(name, 0)),
            (calls_a.get(name, 0), calls_b.get(name, 0)),
        )
        for name in names
    )
    changes = [c for c in every if c.delta or c.calls[0] != c.calls[1]]
    changes.sort(key=lambda c: (-abs(c.delta), -abs(c.calls[1] - c.calls[0]), c.name))
    handlers_a = [str(h) for h in a.get("handlers") or []]
    handlers_b = [str(h) for h in b.get("handlers") or []]
    return PathDiff(
        sample=kind,
        instructions=(int(a["instructions"]), int(b["instructions"])),
        values=(float(a.get("value") or 0), float(b.get("value") or 0)),
        unit=unit,
        changes=tuple(changes),
        handlers=(
            tuple(dict.fromkeys(h for h in handlers_a if h not in handlers_b)),
            tuple(dict.fromkeys(h for h in handlers_b if h not in handlers_a)),
        ),
        exact=exact,
        shares=_share_changes(a, b),
    )


def _share_changes(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[tuple[str, int], ...]:
    """Each share's change from `a` to `b` (trace.codepath.origin), () unless both
    samples were split."""
    sa, sb = a.get("shares"), b.get("shares")
    if not isinstance(sa, Mapping) or not isinstance(sb, Mapping):
        return ()
    keys = dict.fromkeys([*sa, *sb])
    return tuple((str(k), int(sb.get(k, 0)) - int(sa.get(k, 0))) for k in keys)


def difference(
    base: Mapping[str, Any] | None, other: Mapping[str, Any] | None, unit: str
) -> tuple[PathDiff, ...]:
    """The typical samples' difference, and the worst samples' when it differs from
    the typical one's; () when either side has no path with a typical sample."""
    if base is None or other is None:
        return ()
    exact = bool(base.get("exact_bounds")) and bool(other.get("exact_bounds"))
    out: list[PathDiff] = []
    ta, tb = _sample(base, "typical"), _sample(other, "typical")
    if ta is None or tb is None:
        return ()
    typical = compare_samples("typical", ta, tb, unit, exact)
    out.append(typical)
    wa, wb = _sample(base, "worst"), _sample(other, "worst")
    if wa is not None and wb is not None:
        worst = compare_samples("worst", wa, wb, unit, exact)
        if (worst.changes, worst.handlers, worst.delta) != (
            typical.changes,
            typical.handlers,
            typical.delta,
        ):
            out.append(worst)
    return tuple(out)


def for_metric(
    systems: Sequence[System], cells: Sequence[MetricSummary | None]
) -> tuple[tuple[PathDiff, ...], ...]:
    """Per system, its path difference against the baseline for one metric (the
    baseline's and an untraced system's are empty)."""
    base_cell = cells[0]
    if base_cell is None:
        return tuple(() for _s in systems)
    base = path_of(systems[0], base_cell)
    if base is None:
        return tuple(() for _s in systems)
    record, _hz = record_of(systems[0], base_cell)
    unit = str(record.get("unit", ""))
    out: list[tuple[PathDiff, ...]] = [()]
    for system, cell in zip(systems[1:], cells[1:], strict=True):
        out.append(() if cell is None else difference(base, path_of(system, cell), unit))
    return tuple(out)


def rows(diff: PathDiff) -> list[list[str]]:
    """One table row per changed function: name, instructions A and other, change,
    calls A and other."""

    def calls(c: FunctionChange) -> list[str]:
        return [f"{c.calls[0]:,}", f"{c.calls[1]:,}"]

    return [
        [
            c.name,
            f"{c.instructions[0]:,}",
            f"{c.instructions[1]:,}",
            f"{c.delta:+,}" if c.delta else "0",
            *calls(c),
        ]
        for c in diff.changes
    ]


ROW_HEADERS = ("function", "instructions A", "instructions {}", "change", "calls A", "calls {}")
