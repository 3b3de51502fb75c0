# SPDX-License-Identifier: Apache-2.0
"""`rtbench compare DIR... [--vs DIR...]... [--out DIR] [--reference] [--fail-on-regression]`.

With `--vs`, each system is several runs of one configuration (the first
group is the baseline's runs). With `--reference`, one DIR is enough: it is
shown beside the published figures.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rtbench.compare import DEFAULT_MIN_CHANGE
from rtbench.errors import UsageError
from rtbench.model.results import write_atomic

if TYPE_CHECKING:
    from rtbench.compare.model import Comparison

HTML_FILE = "comparison.html"
MARKDOWN_FILE = "comparison.md"
CSV_FILE = "comparison.csv"
REGRESSION_STATUS = 1


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "compare",
        help="compare stored results side by side (the first is the baseline)",
        description="Compare stored results test by test against the first one (the baseline).",
    )
    p.add_argument(
        "paths",
        type=Path,
        nargs="+",
        metavar="DIR",
        help="results directories, one system each (with --vs: the baseline's runs)",
    )
    p.add_argument(
        "--vs",
        type=Path,
        nargs="+",
        action="append",
        metavar="DIR",
        help="several runs of one more system (repeatable); the DIRs before the first --vs "
        "are then several runs of the baseline, and differences must exceed the spread "
        "between runs",
    )
    p.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="also write comparison.html, comparison.md, comparison.csv here",
    )
    p.add_argument(
        "--reference",
        action="store_true",
        help="show the published figures (QNX, CE7, Linux-rt, Android; 2011-2012) as well; "
        "then one DIR is enough",
    )
    p.add_argument(
        "--min-change",
        type=_percent,
        default=DEFAULT_MIN_CHANGE,
        metavar="PCT",
        help="smallest median change (percent) reported as a difference (default 10)",
    )
    p.add_argument(
        "--fail-on-regression",
        action="store_true",
        help=f"exit with status {REGRESSION_STATUS} when a result is significantly worse than A "
        "(of deterministic runs: any min, median or max slower)",
    )


def _percent(value: str) -> float:
    try:
        number = float(value.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{value}' is not a percentage") from None
    if not 0 <= number < 100:
        raise argparse.ArgumentTypeError(f"'{value}' is not between 0 and 100")
    return number / 100.0


def _check_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} exists and is not a directory.")
    ancestor = out.absolute()
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir() or not os.access(ancestor, os.W_OK | os.X_OK):
        raise UsageError(f"Cannot write to {out}: {ancestor} is not a writable directory.")


def run(args: argparse.Namespace, color: bool) -> int:
    """`rtbench compare` as the command line asked it."""
    groups = [[p] for p in args.paths] if not args.vs else [args.paths, *args.vs]
    return compare(
        groups,
        out=args.out,
        reference=args.reference,
        min_change=args.min_change,
        fail_on_regression=args.fail_on_regression,
        color=color,
    )


def compare(
    groups: Sequence[Sequence[Path]],
    *,
    out: Path | None = None,
    reference: bool = False,
    min_change: float = DEFAULT_MIN_CHANGE,
    fail_on_regression: bool = False,
    color: bool = False,
) -> int:
    """Compare systems, each given as one or more results directories (the first
    system is the baseline); print the comparison and, with `out`, write its files
    there. With `reference` the published figures are shown too, and one system is
    enough. Returns the exit status; bad input is a UsageError (one sentence)."""
    # Loaded here: scipy takes a second to import, which no other command should pay.
    from rtbench.compare import html, model, tables, text  # noqa: PLC0415

    if out is not None:
        _check_out(out)
    systems = model.load_groups(groups, alone=reference)
    comparison = model.build(systems, min_change=min_change)
    sys.stdout.write(text.render(comparison, color=color, with_reference=reference))
    if out is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
            write_atomic(out / HTML_FILE, html.render(comparison, with_reference=reference))
            write_atomic(out / MARKDOWN_FILE, tables.markdown(comparison, with_reference=reference))
            write_atomic(out / CSV_FILE, tables.csv_text(comparison))
        except OSError as e:
            raise UsageError(f"Cannot write to {out}: {e.strerror or e}.") from None
        sys.stdout.write(f"comparison: {out / HTML_FILE} (and .md, .csv)\n")
    sys.stdout.flush()
    if fail_on_regression and regressed(comparison):
        return REGRESSION_STATUS
    return 0


def regressed(comparison: Comparison) -> bool:
    """A significantly worse (or mixed) metric, or a verdict that fails where A's did not."""
    if comparison.regressions():
        return True
    return any(
        row.outcome(i) == "fail" and row.outcome(0) != "fail"
        for row in comparison.verdicts
        for i in range(1, len(comparison.systems))
    )
