# SPDX-License-Identifier: Apache-2.0
"""The comparison's summary worth printing: every metric's figures side by side
(systems as columns, the kernel's share of each traced path beside the figure),
and the operations whose paths differ most between the systems.

It serves the question the classic evaluation reports answered with one
comparison table: on one board, what does each RTOS's kernel do for each
operation? A figure is the median and the p99 (the maximum where no p99 was
kept) in the metric's unit; where a system was timed by QEMU's -icount, the
median's instruction count follows (the time over the time of one
instruction). A traced
path adds `kernel N of M`: the typical sample's instructions that ran in the
RTOS's own sources, of all the sample's instructions (the port's and the
measurement's are the rest, shown in the metric's details).

"Differ most": among the operations (the metrics of a family: not the
calibration's) traced on at least two systems, the ones
whose typical paths are furthest apart in the kernel's instructions (the
largest over the smallest), so that the paths worth reading come first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rtbench.compare import wording
from rtbench.compare.sidebyside import SidePath, os_release
from rtbench.model.target import TargetView

if TYPE_CHECKING:
    from rtbench.compare.model import Comparison, MetricRow

DIFFER_MOST = 3  # the operations whose paths are set out in the summary

TITLE = "Figures side by side"
DIFFER_TITLE = "The operations whose kernels differ most"
NOTE = (
    "Each system's median / p99 (the maximum where no p99 was kept). A traced path "
    "adds the typical sample's instructions that ran in the RTOS's own sources, of all "
    "its instructions; the port's and the measurement's are the rest (each metric's "
    "details). Figures of systems timed by different clocks are shown, not rated."
)


def _kernel(side: SidePath | None) -> int | None:
    if side is None or not side.shares:
        return None
    return side.shares.get("kernel")


def _cell(comparison: Comparison, row: MetricRow, index: int, divisor: float) -> str:
    cell = row.cells[index]
    if cell is None:
        return "-"
    tail = "p99" if cell.p99 is not None else "max"
    text = f"{wording.value(cell, 'p50', row, divisor)} / {wording.value(cell, tail, row, divisor)}"
    # under -icount a time is a count of instructions: the median's, net
    shift = TargetView.of(comparison.systems[index].doc).icount_shift
    if shift is not None and row.unit == "ns" and cell.p50 is not None:
        text += f" ({cell.p50 / 2**shift:,.1f} instr.)"
    side = row.sides[index] if index < len(row.sides) else None
    kernel = _kernel(side)
    if side is not None and kernel is not None:
        text += f"; kernel {kernel:,} of {side.instructions:,} instr."
    elif side is not None:
        text += f"; {side.instructions:,} instr."
    return text


def shown(comparison: Comparison) -> bool:
    """Whether the summary has something to set side by side: two systems or more,
    and a metric measured by two of them."""
    return len(comparison.systems) > 1 and any(
        sum(c is not None for c in row.cells) > 1 for row in comparison.metrics
    )


def headers(comparison: Comparison) -> list[str]:
    return ["metric", "unit", *(f"{s.letter} {os_release(s)}" for s in comparison.systems)]


def figure_rows(comparison: Comparison) -> list[list[str]]:
    """One row per metric measured by two systems or more: its label and name, the
    unit, then each system's median / p99 (or max) and its kernel share."""
    rows = []
    for row in comparison.metrics:
        if sum(c is not None for c in row.cells) < 2:
            continue
        unit, divisor = wording.row_scale(row)
        tail = "p99" if any(c is not None and c.p99 is not None for c in row.cells) else "max"
        name = f"{row.label} {row.name}" if row.label else row.name
        rows.append(
            [
                name,
                f"{unit}, median / {tail}",
                *(_cell(comparison, row, i, divisor) for i in range(len(comparison.systems))),
            ]
        )
    return rows


@dataclass(frozen=True)
class Spread:
    """A metric whose kernels differ: the largest kernel share over the smallest."""

    row: MetricRow
    ratio: float
    most: str  # "B uC/OS-III V3.08.02: kernel 188"
    least: str

    def sentence(self) -> str:
        return (
            f"{self.row.label or self.row.name} ({self.row.name}): {self.most} "
            f"against {self.least} instructions, {self.ratio:.2f}x"
        )


def differ_most(comparison: Comparison, limit: int = DIFFER_MOST) -> list[Spread]:
    """The metrics traced on two systems or more whose kernels' instructions are
    furthest apart, the widest first (ties by the metric's order)."""
    found = []
    for order, row in enumerate(comparison.metrics):
        if row.family is None:  # the calibration and the like: not an operation
            continue
        kernels = [
            (k, side)
            for side in row.sides
            if side is not None and (k := _kernel(side)) is not None and k > 0
        ]
        if len(kernels) < 2:
            continue
        high = max(kernels, key=lambda ks: ks[0])
        low = min(kernels, key=lambda ks: ks[0])
        spread = Spread(
            row=row,
            ratio=high[0] / low[0],
            most=f"{high[1].letter} {high[1].system}: kernel {high[0]:,}",
            least=f"{low[1].letter} {low[1].system}: kernel {low[0]:,}",
        )
        found.append((-spread.ratio, order, spread))
    found.sort(key=lambda item: (item[0], item[1]))
    return [spread for _r, _o, spread in found[:limit]]
