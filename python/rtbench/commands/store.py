# SPDX-License-Identifier: Apache-2.0
"""`rtbench store` and `rtbench history`, and the store's part in `run` and `import`."""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rtbench.errors import RtbenchError, UsageError
from rtbench.model.results import RESULTS_FILE, ResultsDocument
from rtbench.store import STORE_ENV, default_path
from rtbench.store.db import Store, StoreError
from rtbench.ui import err, warn

DEFAULT_RESULTS = Path("results")  # where `rtbench run` and `import` write by default


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
        "rebuild",
        help="make the database again from result folders (a corrupt one is kept aside)",
        description="Make the history database again from result folders: those the "
        "database lists and those at or below each DIR (default: ./results, where "
        "`rtbench run` writes). A corrupt database is kept as NAME.corrupt-<time> and a "
        "new one is made; runs whose folders are gone stay as stored.",
    )
    rebuild.add_argument(
        "dirs", type=Path, nargs="*", metavar="DIR", help="result folders or folders of them"
    )
    rebuild.add_argument("--store", type=Path, metavar="PATH", help="the history database")

    from rtbench.commands import history as history_command  # noqa: PLC0415

    history_command.add_parser(sub)


def run_history(args: argparse.Namespace) -> int:
    from rtbench.commands import history as history_command  # noqa: PLC0415

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
    return rebuild(path, args.dirs)


def result_folders(root: Path) -> list[Path]:
    """Every results folder at or below `root` (a folder holding results.json)."""
    return sorted({f.parent.resolve() for f in root.rglob(RESULTS_FILE) if f.is_file()})


def _aside(path: Path) -> Path:
    """Move a corrupt database (and its -wal and -shm files) to NAME.corrupt-<time>;
    the new name. Nothing is deleted."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    try:
        path.rename(aside)
        for suffix in ("-wal", "-shm", "-journal"):
            extra = Path(f"{path}{suffix}")
            if extra.exists():
                extra.rename(Path(f"{aside}{suffix}"))
    except OSError as e:
        why = e.strerror or e
        raise StoreError(f"Cannot move the corrupt store {path} aside: {why}.") from None
    return aside


def _known(path: Path) -> tuple[list[Path], StoreError | None]:
    """The folders a database lists, or why it is corrupt; other problems (newer
    schema, no permission) are raised as they are."""
    if not path.exists():
        return [], None
    try:
        with Store(path) as store:
            store.check()
            return store.folders(), None
    except StoreError as e:
        if not e.corrupt:
            raise
        return [], e


def rebuild(path: Path, dirs: Sequence[Path] = ()) -> int:
    """Make the database again from result folders: those below each DIR given (by
    default the results root `rtbench run` writes to, ./results) and those the
    database lists. A corrupt database is kept aside as NAME.corrupt-<time> and a new
    one made; in a sound one, the runs of folders that are gone stay as stored."""
    from rtbench.model.results import load  # noqa: PLC0415

    for d in dirs:
        if not d.is_dir():
            raise UsageError(f"{d} is not a folder (rtbench store rebuild [DIR...]).")
    scanned: list[Path] = []
    for d in dirs:
        found = result_folders(d)
        if not found:
            raise UsageError(f"{d} holds no result folder (no {RESULTS_FILE} in or below it).")
        scanned += found
    if not dirs and DEFAULT_RESULTS.is_dir():
        scanned = result_folders(DEFAULT_RESULTS)
    known, corrupt = _known(path)
    folders = list(dict.fromkeys([*known, *scanned]))
    if not folders:
        where = "it is corrupt and " if corrupt else ""
        raise UsageError(
            f"Nothing to rebuild {path} from: {where}no result folder was found; name the "
            "folders or their roots: rtbench store rebuild DIR..."
        )
    docs: list[tuple[Path, ResultsDocument]] = []
    for folder in folders:
        try:
            docs.append((folder, load(folder)))
        except RtbenchError as e:
            if folder in known:
                warn(f"kept as stored, its folder cannot be read again: {e}")
            else:
                warn(f"left out of the rebuilt store: {e}")
    if corrupt is not None:
        aside = _aside(path)
        warn(f"{path} is corrupt; it is kept as {aside} and a new database is made.")
    with Store(path) as store:
        added = store.replace(docs)
    err(f"rebuilt {path}: {added} run(s) from {len(folders)} result folder(s)")
    return 0


__all__ = ["StoreError", "add_parsers", "add_store_options", "run_store", "store_after_run"]
