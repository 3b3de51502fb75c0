# SPDX-License-Identifier: Apache-2.0
"""`rtbench trace export DIR --format perfetto|ctf [--out PATH]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rtbench.errors import UsageError
from rtbench.model.results import load
from rtbench.trace.export import ctf, perfetto
from rtbench.trace.export import paths as path_export
from rtbench.trace.export.stored import load_traced

FORMATS = ("perfetto", "ctf")


def add_parser(sub: Any) -> None:
    trace = sub.add_parser("trace", help="export the kernel trace of a run made with --trace")
    actions = trace.add_subparsers(dest="trace_command", metavar="action", required=True)
    exp = actions.add_parser(
        "export",
        help="write the trace as Perfetto (Chrome JSON) or CTF (babeltrace2, Trace Compass)",
    )
    exp.add_argument("path", type=Path, metavar="DIR", help="results directory of a traced run")
    exp.add_argument("--format", choices=FORMATS, required=True, help="perfetto or ctf")
    exp.add_argument(
        "--out",
        type=Path,
        help="file (perfetto) or directory (ctf) to write; default: in DIR/trace/",
    )


def run(args: argparse.Namespace) -> int:
    root = args.path if args.path.is_dir() else args.path.parent
    doc = load(args.path)
    if path_export.has_paths(doc):
        if args.format != "perfetto":
            raise UsageError(
                f"{root} holds the code paths of an emulated board, not a kernel trace: "
                "export them with --format perfetto."
            )
        dest = args.out or root / "trace" / "paths.perfetto.json"
        _check_parent(dest)
        path_export.export(doc, root, dest)
        sys.stdout.write(f"{dest}\n")
        return 0
    traced = load_traced(args.path, doc)
    if args.format == "perfetto":
        dest = args.out or root / "trace" / "perfetto.json"
        _check_parent(dest)
        perfetto.export(traced, dest)
    else:
        dest = args.out or root / "trace" / "ctf"
        _check_parent(dest)
        ctf.export(traced, dest)
    sys.stdout.write(f"{dest}\n")
    return 0


def _check_parent(dest: Path) -> None:
    parent = dest.absolute().parent
    if not parent.is_dir():
        raise UsageError(f"Cannot write {dest}: {parent} is not a directory.")
    if dest.exists() and dest.is_dir() != (dest.suffix == ""):
        raise UsageError(f"Cannot write {dest}: it exists and is of another kind.")
