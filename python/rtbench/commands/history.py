# SPDX-License-Identifier: Apache-2.0
"""`rtbench history`: the stored runs of each series in order, where each changed,
an HTML page of trends, and an exit status for CI (--fail-on-change)."""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rtbench.errors import UsageError
from rtbench.model.results import write_atomic
from rtbench.model.summary import Bucket
from rtbench.store.changes import change_line, shown_changes, since_start
from rtbench.store.db import Store
from rtbench.store.detect import ALPHA, POSSIBLE_ALPHA, Point, Series, _number, detect
from rtbench.store.extract import testbed_text


def add_parser(sub: Any) -> None:
    hist = sub.add_parser(
        "history", help="the stored runs of each series over versions, and where they changed"
    )
    hist.add_argument("--store", type=Path, metavar="PATH", help="the history database")
    hist.add_argument(
        "--only", nargs="+", default=[], metavar="PATTERN",
        help="metrics or checks whose id, label or name matches these shell patterns",
    )  # fmt: skip
    hist.add_argument("--target", metavar="T", help="runs on this target (local, qemu:NAME, ...)")
    hist.add_argument("--testbed", metavar="ID", help="one testbed (the id the table shows)")
    hist.add_argument(
        "--since",
        metavar="DATE",
        help="runs started on or after DATE (2025-01-31) and the changes that began in "
        "them; earlier runs stay the baseline the changes are judged against",
    )
    hist.add_argument("--html", type=Path, metavar="PATH", help="write the trend page here")
    hist.add_argument(
        "--fail-on-change",
        action="store_true",
        help="exit status 1 when the newest run of a series starts a change for the worse "
        "(with --since: when any change for the worse began since DATE)",
    )


def _matches(patterns: Sequence[str], *names: str | None) -> bool:
    return not patterns or any(fnmatch.fnmatchcase(n, p) for p in patterns for n in names if n)


def _hist(text: str) -> tuple[Bucket, ...]:
    return tuple(Bucket(float(lo), float(hi), int(n)) for lo, hi, n in json.loads(text))


def load_series(store: Store, args: argparse.Namespace) -> list[Series]:
    runs = {r.id: r for r in store.runs()}
    order = list(runs)
    by_key: dict[tuple[str, str], Series] = {}

    def series_of(run_id: int, name: str, unit: str, kind: str) -> Series:
        run = runs[run_id]
        key = (run.testbed, name)
        if key not in by_key:
            by_key[key] = Series(
                run.testbed, testbed_text(run.testbed_info), run.target, name, unit, kind,
                run.exact and kind == "metric",
            )  # fmt: skip
        return by_key[key]

    def point(run_id: int, **values: Any) -> Point:
        run = runs[run_id]
        return Point(run_id, run.run_id, run.version_text, run.started, **values)

    for row in store.metrics():
        run_id, name, scenario, label, unit = row[:5]
        if not _matches(args.only, name, scenario, label):
            continue
        s = series_of(run_id, name, unit, "metric")
        s.points.append(
            point(
                run_id,
                count=row[5],
                min=row[6],
                median=row[7],
                p99=row[8],
                p99_9=row[9],
                max=row[10],
                histogram=_hist(row[11]),
            )
        )
    for run_id, name, scenario, label, outcome in store.verdicts():
        if _matches(args.only, name, scenario, label):
            series_of(run_id, name, "", "verdict").points.append(point(run_id, outcome=outcome))
    chosen = []
    for s in by_key.values():
        if args.target and not fnmatch.fnmatchcase(s.target, args.target):
            continue
        if args.testbed and not s.testbed.startswith(args.testbed):
            continue
        s.points.sort(key=lambda p: order.index(p.run))
        s.changes = detect(s)
        chosen.append(s)
    chosen.sort(key=lambda s: (s.testbed_text, s.kind, s.name))
    return chosen


def render_table(series: Sequence[Series], since: str | None) -> str:
    out: list[str] = []
    testbed = None
    possible = 0
    for s in series:
        if not any(since_start(p, since) for p in s.points):
            continue
        if s.testbed != testbed:
            testbed = s.testbed
            out.append(f"testbed {s.testbed[:8]}: {s.testbed_text}")
        unit = f" ({s.unit})" if s.unit else ""
        out.append(f"  {s.name}{unit}{', deterministic' if s.exact else ''}")
        changes = shown_changes(s, since)
        began = {c.index: c for c in changes}
        if s.kind == "verdict":
            header = f"    {'run':<28} {'started':<10}  {'version':<28} outcome"
        else:
            header = (
                f"    {'run':<28} {'started':<10}  {'version':<28} {'count':>8} {'min':>8} "
                f"{'median':>8} {'p99':>8} {'p99.9':>8} {'max':>8}"
            )
        out.append(header)
        for i, p in enumerate(s.points):
            if not since_start(p, since):
                continue
            mark = ""
            if i in began:
                c = began[i]
                mark = f"  <- {c.direction}" if c.confirmed else f"  <- {c.direction}? p={c.p:.2g}"
            if s.kind == "verdict":
                row = (
                    f"    {p.label[:28]:<28} {p.started[:10]:<10}  {p.version[:28]:<28} {p.outcome}"
                )
            else:
                figures = " ".join(
                    f"{_number(v, s.unit):>8}" for v in (p.min, p.median, p.p99, p.p99_9, p.max)
                )
                row = (
                    f"    {p.label[:28]:<28} {p.started[:10]:<10}  {p.version[:28]:<28} "
                    f"{p.count:>8} {figures}"
                )
            out.append(row + mark)
        for c in changes:
            if c.confirmed:
                out.append(f"    change: {change_line(s, c)}")
            else:
                possible += 1
    if not out:
        return "No stored run matches (see `rtbench store add`).\n"
    if possible:
        out.append(
            f"{possible} possible change(s) at the newest run, marked ?: beyond every run "
            f"before it and the noise band, t test on the runs p < {POSSIBLE_ALPHA:g} but "
            f"not below {ALPHA:g}; the runs after it will confirm or dismiss them."
        )
    return "\n".join(out) + "\n"


def run(args: argparse.Namespace, path: Path) -> int:
    if args.since and not _valid_date(args.since):
        raise UsageError(f"--since takes a date such as 2025-01-31, not '{args.since}'.")
    if not path.exists():
        raise UsageError(f"No history at {path} yet: `rtbench run` or `rtbench store add` fill it.")
    with Store(path) as store:
        series = load_series(store, args)
    sys.stdout.write(render_table(series, args.since))
    if args.html is not None:
        from rtbench.store import page  # noqa: PLC0415

        try:
            write_atomic(args.html, page.render(series, args.since))
        except OSError as e:
            raise UsageError(f"Cannot write {args.html}: {e.strerror or e}.") from None
        sys.stderr.write(f"trend page: {args.html}\n")
    if args.fail_on_change:
        # the newest run only, or with --since every run since DATE: a change confirmed
        # only once more runs followed it still fails the check that --since covers
        failing = [
            (s, c)
            for s in series
            for c in shown_changes(s, args.since)
            if (args.since or c.index == len(s.points) - 1)
            and c.confirmed
            and c.direction in ("worse", "mixed")
        ]
        for s, c in failing:
            sys.stdout.write(f"CHANGE {s.testbed[:8]} {s.name}: {change_line(s, c)}\n")
        return 1 if failing else 0
    return 0


def _valid_date(text: str) -> bool:
    import datetime as dt  # noqa: PLC0415

    try:
        dt.date.fromisoformat(text[:10])
    except ValueError:
        return False
    return len(text) >= 10
