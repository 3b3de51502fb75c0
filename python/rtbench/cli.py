# SPDX-License-Identifier: Apache-2.0
"""The `rtbench` command line: run, list, system, show, compare, import, targets.

Bad input is one sentence on the error stream and exit status 2; nothing
already stored is touched before every input has been checked.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rtbench import __version__, build, system, targets
from rtbench.commands import compare as compare_command
from rtbench.commands import run as run_command
from rtbench.commands import store as store_history
from rtbench.errors import RtbenchError, UsageError
from rtbench.importers import import_file
from rtbench.model import catalog
from rtbench.model.options import render as render_options
from rtbench.model.results import (
    load,
)
from rtbench.paths import ROOT
from rtbench.report import formats, terminal
from rtbench.run import runner
from rtbench.trace.export import command as trace_command
from rtbench.transport import LocalProcess
from rtbench.ui import Parser, attach_signed_values, color, err, nonnegative, styled, width

_SET_RE = re.compile(r"^[A-Za-z0-9_.\-]+=.+$")
_SIGNED = re.compile(r"^-\.?\d")  # a value such as -5s, -1,2 or -.5
RAW_MAX_LIMIT = 100_000_000  # the core's bound on --raw-max
COMPARISON_DIR = "comparison"  # in a multi-target run's results directory


def build_parser() -> Parser:
    parser = Parser(
        prog="rtbench",
        description="Evaluate how this system behaves and performs for real-time work.",
    )
    parser.add_argument("--version", action="version", version=f"rtbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="command", required=True)

    run = sub.add_parser("run", help="run the scenarios and write a results directory")
    run_command.add_arguments(run)

    lst = sub.add_parser("list", help="show the scenario catalog")
    lst.add_argument("--json", action="store_true", help="machine-readable output")
    lst.add_argument(
        "--options", action="store_true", help="the options each scenario takes (--set)"
    )

    sysp = sub.add_parser("system", help="describe this host and what may disturb measurements")
    sysp.add_argument("--json", action="store_true", help="machine-readable output")
    sysp.add_argument("--cpu", type=nonnegative, help="measurement CPU to check")
    sysp.add_argument(
        "--target", default="local", metavar="T", help="the machine to describe (default: local)"
    )

    show = sub.add_parser("show", help="print the report of a stored run")
    show.add_argument("path", type=Path, metavar="DIR", help="results directory or results.json")
    show.add_argument(
        "--details",
        action="store_true",
        help="every statistic, verdict evidence and table (default: the one-screen summary)",
    )
    show.add_argument(
        "--format",
        choices=formats.FORMATS,
        default=None,
        help="text (default), markdown, csv, json",
    )
    show.add_argument(
        "--reference",
        action="store_true",
        help="add the published figures (QNX, CE7, Linux-rt, Android; 2011-2012)",
    )

    compare_command.add_parser(sub)
    trace_command.add_parser(sub)

    tgt = sub.add_parser(
        "targets", help="the kinds of target rtbench can measure, and what each needs"
    )
    tgt.add_argument("--json", action="store_true", help="machine-readable output")

    imp = sub.add_parser(
        "import", help="turn a cyclictest or oslat --json file into a results directory"
    )
    imp.add_argument("file", type=Path, metavar="FILE", help="cyclictest or oslat JSON output")
    imp.add_argument(
        "--out", type=Path, help="results directory to create (default: results/<file>-imported)"
    )
    store_history.add_store_options(imp)
    store_history.add_parsers(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    command: str | None = None
    parser = build_parser()
    if not args_list:
        sys.stderr.write(parser.format_usage())
        err("rtbench: a command is needed; `rtbench --help` says what each one does.")
        return 2
    try:
        args = parser.parse_args(attach_signed_values(parser, args_list))
        command = args.command
        if args.command == "run":
            return run_command.run(args, args_list)
        if args.command == "list":
            return cmd_list(args)
        if args.command == "system":
            return cmd_system(args)
        if args.command == "compare":
            return compare_command.run(args, color(sys.stdout))
        if args.command == "import":
            return cmd_import(args)
        if args.command == "targets":
            return cmd_targets(args)
        if args.command == "store":
            return store_history.run_store(args)
        if args.command == "history":
            return store_history.run_history(args)
        if args.command == "trace":
            return trace_command.run(args)
        return cmd_show(args)
    except RtbenchError as e:
        err(styled(command, str(e)))
        return e.exit_status
    except KeyboardInterrupt:
        err("Interrupted.")
        return 130
    except BrokenPipeError:
        return 1


# ---- helpers shared by commands --------------------------------------------


def _core(announce: bool = True) -> Path:
    return build.ensure_core(ROOT, err if announce else (lambda _text: None))


# ---- list, system, show ------------------------------------------------------


def cmd_list(args: argparse.Namespace) -> int:
    core = _core()
    transport = LocalProcess(core)
    _meta, core_catalog = runner.query_catalog(transport, system.default_cpu())
    listed = catalog.merged(core_catalog)
    if args.options:
        sys.stdout.write(render_options(core_catalog))
        return 0
    if args.json:
        sys.stdout.write(json.dumps(catalog.to_json(listed), indent=1) + "\n")
    else:
        sys.stdout.write(catalog.render(listed))
    return 0


def cmd_system(args: argparse.Namespace) -> int:
    target = targets.parse(args.target)
    try:
        target.open(err)
        cpu = target.check_cpu(args.cpu)
        snap = target.snapshot(cpu, cpu_given=args.cpu is not None)
        cavs = target.caveats(snap)
    finally:
        target.close()
    if args.json:
        data: dict[str, Any] = {"snapshot": snap, "caveats": cavs}
        sys.stdout.write(json.dumps(data, indent=1, default=str) + "\n")
    else:
        text = target.render_snapshot(snap, cavs)
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    doc = load(args.path)
    location = args.path if args.path.is_dir() else args.path.parent
    if args.format is None and not args.reference:
        sys.stdout.write(
            terminal.render(
                doc,
                color=color(sys.stdout),
                location=str(location),
                details=args.details,
                width=width(sys.stdout),
            )
        )
        return 0
    if args.reference and args.format == "csv":
        raise UsageError("--reference works with --format text, markdown or json, not csv.")
    data = formats.render(
        doc,
        args.format or "text",
        location=str(location),
        with_reference=args.reference,
        details=args.details,
    )
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    return 0


def cmd_targets(args: argparse.Namespace) -> int:
    rows = targets.available()
    if args.json:
        data = [
            {
                "kind": kind.name,
                "syntax": kind.syntax,
                "summary": kind.summary,
                "needs": kind.needs,
                "usable": why is None,
                "why_not": why,
            }
            for kind, why in rows
        ]
        sys.stdout.write(json.dumps(data, indent=1) + "\n")
        return 0
    column = max(len(kind.syntax) for kind, _ in rows)
    for kind, why in rows:
        state = "ready" if why is None else f"not usable here: {why}"
        sys.stdout.write(f"{kind.syntax:<{column}}  {kind.summary} ({state})\n")
        sys.stdout.write(f"{'':<{column}}  needs: {kind.needs}\n")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    out = args.out
    if out is None:
        out = Path("results") / f"{args.file.stem}-imported"
    out = run_command.check_out(out, "imported")
    doc = import_file(args.file, out)
    store_history.store_after_run(args, out, doc)
    sys.stdout.write(
        f"imported {args.file} ({doc.run.source and doc.run.source.get('tool')}) into {out}\n"
    )
    return 0
