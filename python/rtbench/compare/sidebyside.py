# SPDX-License-Identifier: Apache-2.0
"""Two kernels' code paths for one metric, side by side.

The path *difference* (compare.pathdiff) names the functions that changed
between two builds of one kernel. Two different RTOSes share no kernel
functions, so a difference of theirs would list every function twice; each
system's path is set beside the other's instead: the typical sample's
instructions, its function entries, the critical sections it took (counted
by the trace from the functions its RTOS masks interrupts with:
trace.codepath.critical), its instructions split by whose code ran (the
kernel's, the port's, the measurement's: trace.codepath.origin), so two
kernels are compared on what the kernels themselves do while the port's part
stays in view, the port's wrappers with their instructions, the functions
with their instructions, largest first, and the worst sample's line.

Which systems are compared this way: each one whose operating system differs
from the baseline's (the `os` of the core's meta record), when both it and
the baseline were traced for the metric. Systems of the baseline's OS keep
the path difference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rtbench.compare.exact import record_of
from rtbench.model.views import first_meta
from rtbench.trace.codepath import critical

if TYPE_CHECKING:
    from rtbench.compare.model import System
    from rtbench.model.summary import MetricSummary

TERMINAL_FUNCTIONS = 4  # functions a terminal line names before "(+N more)"
SEQUENCE_SHOWN = 60  # functions of a call sequence the page and Markdown show


def os_of(system: System) -> str | None:
    """The operating system a system's core ran on (`FreeRTOS`, `uC/OS-III`, `Linux`),
    None when no meta record says it (an imported result)."""
    meta = first_meta(system.doc)
    found = (meta or {}).get("os")
    return str(found) if found else None


def os_release(system: System) -> str:
    """`FreeRTOS V11.1.0`: the OS and its release as the core reported them."""
    meta = first_meta(system.doc) or {}
    return " ".join(str(meta[k]) for k in ("os", "os_release") if meta.get(k)) or system.letter


def other_os(systems: Sequence[System]) -> tuple[bool, ...]:
    """Per system, whether its OS is known and differs from the baseline's."""
    base = os_of(systems[0])
    return tuple(
        i > 0 and base is not None and os_of(s) is not None and os_of(s) != base
        for i, s in enumerate(systems)
    )


@dataclass(frozen=True)
class FunctionCost:
    name: str
    instructions: int
    calls: int


@dataclass(frozen=True)
class SidePath:
    """One system's typical path of a metric (and its worst sample's line)."""

    letter: str
    system: str  # "FreeRTOS V11.1.0"
    value: float  # the typical sample's own value, in `unit`
    unit: str
    instructions: int
    entries: int  # function entries (calls and handler entries)
    critical: Mapping[str, Any] | None  # the sample's critical_sections, when counted
    functions: tuple[FunctionCost, ...]  # largest instructions first
    sequence: tuple[str, ...]
    worst_line: str | None
    exact: bool
    shares: Mapping[str, int] | None = None  # whose code ran, when the path was split
    wrappers: Mapping[str, int] | None = None  # the port's own functions (ports/<rtos>/)
    overhead_line: str | None = None  # the measurement beside the subtracted overhead

    def shares_text(self) -> str:
        """`kernel 400, port 50, measurement 41`, "" when not split."""
        return ", ".join(f"{k} {n:,}" for k, n in (self.shares or {}).items())

    def critical_text(self) -> str:
        return critical.text(self.critical) or "critical sections not counted"

    def head(self) -> str:
        split = f" ({self.shares_text()})" if self.shares else ""
        return (
            f"{self.letter} {self.system}: {self.instructions:,} instructions{split}, "
            f"{self.critical_text()}, {self.entries:,} function entries"
        )

    def line(self, limit: int | None = TERMINAL_FUNCTIONS) -> str:
        """`A FreeRTOS V11.1.0: 491 instructions, 7 critical sections (...), 27
        function entries; most in f 112, g 80 (+N more)`."""
        shown = self.functions if limit is None else self.functions[:limit]
        listed = ", ".join(f"{f.name} {f.instructions:,}" for f in shown)
        more = len(self.functions) - len(shown)
        return f"{self.head()}; most in {listed}" + (f" (+{more} more)" if more > 0 else "")

    def sequence_text(self) -> str:
        shown = " > ".join(self.sequence[:SEQUENCE_SHOWN])
        more = len(self.sequence) - SEQUENCE_SHOWN
        return shown + (f" > ... ({more} more)" if more > 0 else "")


def _side(system: System, metric: MetricSummary) -> SidePath | None:
    record, _hz = record_of(system, metric)
    path = record.get("path")
    if not isinstance(path, Mapping):
        return None
    typical = path.get("typical")
    if not isinstance(typical, Mapping) or not isinstance(typical.get("instructions"), int):
        return None
    calls = {str(k): int(v) for k, v in (typical.get("calls") or {}).items()}
    by_function = {
        str(k): int(v) for k, v in (typical.get("instructions_by_function") or {}).items()
    }
    functions = sorted(
        (FunctionCost(name, n, calls.get(name, 0)) for name, n in by_function.items()),
        key=lambda f: (-f.instructions, f.name),
    )
    found = typical.get("critical_sections")
    worst = path.get("worst_line")
    shares = typical.get("shares")
    wrappers = typical.get("port_wrappers")
    over = path.get("overhead")
    return SidePath(
        letter=system.letter,
        system=os_release(system),
        value=float(typical.get("value") or 0),
        unit=str(record.get("unit", "")),
        instructions=int(typical["instructions"]),
        entries=sum(calls.values()),
        critical=found if isinstance(found, Mapping) else None,
        functions=tuple(functions),
        sequence=tuple(str(s) for s in typical.get("sequence") or ()),
        worst_line=str(worst) if worst else None,
        exact=bool(path.get("exact_bounds")),
        shares={str(k): int(v) for k, v in shares.items()} if isinstance(shares, Mapping) else None,
        wrappers=(
            {str(k): int(v) for k, v in wrappers.items()} if isinstance(wrappers, Mapping) else None
        ),
        overhead_line=str(over["line"]) if isinstance(over, Mapping) and over.get("line") else None,
    )


def for_metric(
    systems: Sequence[System], cells: Sequence[MetricSummary | None], differ: Sequence[bool]
) -> tuple[SidePath | None, ...]:
    """Every traced system's path of one metric when some system of another OS than
    the baseline's (`differ`) and the baseline were both traced; else all None."""
    sides = tuple(
        None if cell is None else _side(system, cell)
        for system, cell in zip(systems, cells, strict=True)
    )
    if sides[0] is None or not any(d and s is not None for d, s in zip(differ, sides, strict=True)):
        return tuple(None for _s in systems)
    return sides


def title(sides: Sequence[SidePath | None]) -> str:
    shown = [s for s in sides if s is not None]
    how = (
        "exact instruction counts"
        if all(s.exact for s in shown)
        else "instructions to a block at each end"
    )
    return f"Code paths side by side, typical samples ({how}):"


def summary_rows(sides: Sequence[SidePath]) -> list[list[str]]:
    """Rows of the summary table: one column per side."""
    rows = [
        ["typical sample", *(f"{s.value:g} {s.unit}" for s in sides)],
        ["instructions", *(f"{s.instructions:,}" for s in sides)],
        ["function entries", *(f"{s.entries:,}" for s in sides)],
        ["critical sections", *(_critical_count(s) for s in sides)],
        ["critical-section functions", *(_critical_functions(s) for s in sides)],
        ["worst sample", *(s.worst_line or "-" for s in sides)],
    ]
    if any(s.shares for s in sides):
        # the kernel's share next to the total, and the port's never hidden
        split = [
            [f"{share}'s instructions", *(_share(s, share) for s in sides)]
            for share in _share_names(sides)
        ]
        rows[2:2] = [
            *split,
            ["port wrappers", *(_wrappers(s) for s in sides)],
            ["measurement vs subtracted overhead", *(s.overhead_line or "-" for s in sides)],
        ]
    return rows


def _share_names(sides: Sequence[SidePath]) -> list[str]:
    return list(dict.fromkeys(k for s in sides for k in (s.shares or {})))


def _share(side: SidePath, share: str) -> str:
    if side.shares is None:
        return "not split"
    n = side.shares.get(share, 0)
    pct = f" ({100 * n / side.instructions:.0f} %)" if side.instructions else ""
    return f"{n:,}{pct}"


def _wrappers(side: SidePath) -> str:
    if side.wrappers is None:
        return "not split"
    return ", ".join(f"{name} {n:,}" for name, n in side.wrappers.items()) or "none"


def _critical_count(side: SidePath) -> str:
    found = side.critical
    if found is None:
        return "not counted"
    return f"{int(found.get('entries', 0)):,} ({int(found.get('calls', 0)):,} calls)"


def _critical_functions(side: SidePath) -> str:
    by_function = (side.critical or {}).get("by_function") or {}
    return ", ".join(f"{name} x{n}" for name, n in by_function.items()) or "-"


def function_rows(sides: Sequence[SidePath]) -> list[list[str]]:
    """The functions of each side ranked by instructions, side by side: row k holds
    each side's k-th function (name, instructions, entries), blank when it has fewer."""
    depth = max((len(s.functions) for s in sides), default=0)
    rows = []
    for k in range(depth):
        row: list[str] = []
        for side in sides:
            if k < len(side.functions):
                f = side.functions[k]
                row += [f.name, f"{f.instructions:,}", f"{f.calls:,}" if f.calls else ""]
            else:
                row += ["", "", ""]
        rows.append(row)
    return rows


def function_headers(sides: Sequence[SidePath]) -> list[str]:
    return [h for s in sides for h in (f"{s.letter} function", "instructions", "entries")]
