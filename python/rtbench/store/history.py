# SPDX-License-Identifier: Apache-2.0
"""`rtbench store` and `rtbench history`, and the store's part in `run` and `import`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rtbench.errors import RtbenchError
from rtbench.model.results import RESULTS_FILE, ResultsDocument
from rtbench.store import STORE_ENV, default_path
from rtbench.store.db import Store, StoreError
from rtbench.ui import err, warn


def add_store_options(parser: argparse.ArgumentParser) -> None:
    """--store PATH and --no-store, for every command that stores a run."""
    parser.add_argument(
        "--store",
        type=Path,
        metavar="PATH",
        help=f"the history database (default: ${STORE_ENV}, else "
        "$XDG_DATA_HOME/rtbench/store.sqlite; see docs/history.md)",
    )
    parser.add_argument(
        "--no-store", action="store_true", help="do not add this run to the history database"
    )


def chosen_path(args: argparse.Namespace) -> Path:
    return args.store if getattr(args, "store", None) is not None else default_path()


def store_after_run(
    args: argparse.Namespace, folder: Path, doc: ResultsDocument | None = None
) -> None:
    """Add a finished run's folder to the store; a problem is one warning, and the run
    and its folder stay as they are."""
    if getattr(args, "no_store", False) or not (folder / RESULTS_FILE).is_file():
        return
    try:
        with Store(chosen_path(args)) as store:
            store.add(folder, doc)
    except RtbenchError as e:
        warn(f"the run was not added to the history: {e} Its results are in {folder}.")


def add_parsers(sub: Any) -> None:
    store = sub.add_parser("store", help="the history database: add result folders, rebuild it")
    actions = store.add_subparsers(dest="store_action", metavar="action", required=True)
    add = actions.add_parser("add", help="add existing results folders to the history")
    add.add_argument("folders", type=Path, nargs="+", metavar="DIR")
    add.add_argument("--store", type=Path, metavar="PATH", help="the history database")
    rebuild = actions.add_parser(
        "rebuild", help="make the database again from the result folders it knows"
    )
    rebuild.add_argument("--store", type=Path, metavar="PATH", help="the history database")

    from rtbench.store import command as history_command  # noqa: PLC0415

    history_command.add_parser(sub)


def run_history(args: argparse.Namespace) -> int:
    from rtbench.store import command as history_command  # noqa: PLC0415

    return history_command.run(args, chosen_path(args))


def run_store(args: argparse.Namespace) -> int:
    path = chosen_path(args)
    if args.store_action == "add":
        from rtbench.model.results import load  # noqa: PLC0415

        docs = [(folder, load(folder)) for folder in args.folders]  # check all first
        with Store(path) as store:
            for folder, doc in docs:
                added = store.add(folder, doc)
                err(f"{'added' if added else 'already stored'}: {folder}")
        return 0
    return rebuild(path)


def rebuild(path: Path) -> int:
    """Read every folder the store knows, then write the database again from them;
    a folder that is gone or unreadable is named and left out."""
    from rtbench.model.results import load  # noqa: PLC0415

    with Store(path) as store:
        folders = store.folders()
        docs: list[tuple[Path, ResultsDocument]] = []
        for folder in folders:
            try:
                docs.append((folder, load(folder)))
            except RtbenchError as e:
                warn(f"left out of the rebuilt store: {e}")
        store.clear()
        for folder, doc in docs:
            store.add(folder, doc)
    err(f"rebuilt {path} from {len(docs)} of {len(folders)} result folder(s)")
    return 0


__all__ = ["StoreError", "add_parsers", "add_store_options", "run_store", "store_after_run"]
