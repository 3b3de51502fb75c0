# SPDX-License-Identifier: Apache-2.0
"""`rtbench compare DIR... [--vs DIR...]... [--out DIR] [--reference] [--fail-on-regression]`.

With `--vs`, each system is several runs of one configuration (the first
group is the baseline's runs).
"""

from __future__ import annotations

import argparse
import os
import sys
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
        help="show the published figures (QNX, CE7, Linux-rt, Android; 2011-2012) as well",
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
    # Loaded here: scipy takes a second to import, which no other command should pay.
    from rtbench.compare import html, model, tables, text  # noqa: PLC0415

    if args.out is not None:
        _check_out(args.out)
    groups = [[p] for p in args.paths] if not args.vs else [args.paths, *args.vs]
    systems = model.load_groups(groups)
    comparison = model.build(systems, min_change=args.min_change)
    sys.stdout.write(text.render(comparison, color=color, with_reference=args.reference))
    if args.out is not None:
        try:
            args.out.mkdir(parents=True, exist_ok=True)
            write_atomic(
                args.out / HTML_FILE, html.render(comparison, with_reference=args.reference)
            )
            write_atomic(
                args.out / MARKDOWN_FILE,
                tables.markdown(comparison, with_reference=args.reference),
            )
            write_atomic(args.out / CSV_FILE, tables.csv_text(comparison))
        except OSError as e:
            raise UsageError(f"Cannot write to {args.out}: {e.strerror or e}.") from None
        sys.stdout.write(f"comparison: {args.out / HTML_FILE} (and .md, .csv)\n")
    sys.stdout.flush()
    if args.fail_on_regression and regressed(comparison):
        return REGRESSION_STATUS
    return 0


def compare_dirs(paths: list[Path], out: Path, color: bool) -> int:
    """Compare the result directories of one run's targets (`rtbench run --target A
    --target B`): the first is the baseline; files go to `out`."""
    args = argparse.Namespace(
        paths=paths,
        out=out,
        reference=False,
        min_change=DEFAULT_MIN_CHANGE,
        fail_on_regression=False,
    )
    return run(args, color)


def regressed(comparison: Comparison) -> bool:
    """A significantly worse (or mixed) metric, or a verdict that fails where A's did not."""
    if comparison.regressions():
        return True
    return any(
        row.outcome(i) == "fail" and row.outcome(0) != "fail"
        for row in comparison.verdicts
        for i in range(1, len(comparison.systems))
    )
