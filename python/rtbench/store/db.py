# SPDX-License-Identifier: Apache-2.0
"""The store's SQLite database.

Schema (PRAGMA user_version = SCHEMA_VERSION):

- `runs`: one row per results folder (its resolved path, unique, and the
  SHA-256 of its results.json, unique, so a folder or a copy of it added
  twice is stored once), the testbed's key and description, the version
  under test and its sort key, when it started, the rtbench version.
- `metrics`: per run and metric, count, min, median, p99, p99.9, max and the
  histogram (JSON), in the metric's base unit.
- `verdicts`: per run and behaviour check, the outcome.

The database is opened in WAL mode with a busy timeout, so runs that store at
the same time wait for each other instead of failing. Every problem (corrupt
file, a database from a newer rtbench, no permission) is a StoreError: one
sentence.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtbench.errors import ResultsError, UsageError
from rtbench.model.results import RESULTS_FILE, ResultsDocument, load
from rtbench.store.extract import extract

SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 30.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    folder TEXT NOT NULL UNIQUE,
    digest TEXT NOT NULL UNIQUE,
    run_id TEXT NOT NULL,
    started TEXT NOT NULL,
    target TEXT NOT NULL,
    testbed TEXT NOT NULL,
    testbed_json TEXT NOT NULL,
    version_json TEXT NOT NULL,
    version_text TEXT NOT NULL,
    sort_key TEXT NOT NULL,
    exact INTEGER NOT NULL,
    rtbench_version TEXT NOT NULL,
    added TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_testbed ON runs (testbed, sort_key);
CREATE TABLE IF NOT EXISTS metrics (
    run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    scenario TEXT NOT NULL,
    label TEXT,
    unit TEXT NOT NULL,
    count INTEGER NOT NULL,
    min REAL, median REAL, p99 REAL, p99_9 REAL, max REAL,
    histogram TEXT NOT NULL,
    PRIMARY KEY (run, name)
);
CREATE TABLE IF NOT EXISTS verdicts (
    run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    scenario TEXT NOT NULL,
    label TEXT,
    outcome TEXT NOT NULL,
    PRIMARY KEY (run, name)
);
"""


class StoreError(UsageError):
    """The store cannot be used; one sentence. `corrupt` when the file is not a sound
    SQLite database (`rtbench store rebuild` then keeps it aside and makes a new one)."""

    def __init__(self, message: str, *, corrupt: bool = False) -> None:
        super().__init__(message)
        self.corrupt = corrupt


@dataclass(frozen=True)
class StoredRun:
    id: int
    folder: str
    run_id: str
    started: str
    target: str
    testbed: str
    testbed_info: dict[str, Any]
    version: dict[str, Any]
    version_text: str
    sort_key: str
    exact: bool


def _is_corrupt(e: sqlite3.Error) -> bool:
    text = str(e)
    return isinstance(e, sqlite3.DatabaseError) and (
        "not a database" in text or "malformed" in text or "disk image" in text
    )


def _why(e: sqlite3.Error) -> str:
    text = str(e)
    if _is_corrupt(e):
        return (
            "it is corrupt (not a valid SQLite database); `rtbench store rebuild DIR...` "
            "keeps it aside and makes a new one from the result folders"
        )
    if "readonly" in text or "unable to open" in text:
        return "it cannot be written (permission denied or a read-only place)"
    if "locked" in text or "busy" in text:
        return "another rtbench held it longer than the busy timeout"
    return text


def _error(what: str, e: sqlite3.Error) -> StoreError:
    return StoreError(f"{what}: {_why(e)}.", corrupt=_is_corrupt(e))


class Store:
    """An open store; use as a context manager."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(f"Cannot use the store {path}: {e.strerror or e}.") from None
        try:
            self.db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except sqlite3.Error as e:
            raise _error(f"Cannot use the store {path}", e) from None
        try:
            self.db.execute("PRAGMA foreign_keys = ON")
            version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                self.db.close()
                raise StoreError(
                    f"The store {path} was written by a newer rtbench (schema version "
                    f"{version}; this rtbench knows {SCHEMA_VERSION}); upgrade rtbench or "
                    "choose another --store."
                )
            mode = self.db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            del mode  # a read-only or network file system may refuse WAL; it still works
            if version < SCHEMA_VERSION:
                with self._write():
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            self.db.execute(statement)
                    self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except sqlite3.Error as e:
            self.db.close()
            raise _error(f"Cannot use the store {path}", e) from None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.db.close()

    @contextmanager
    def _write(self) -> Iterator[None]:
        """One transaction that takes the write lock at once (waits up to the busy timeout)."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # ---- adding ------------------------------------------------------------------

    def add(self, folder: Path, doc: ResultsDocument | None = None) -> bool:
        """Store one results folder; False when it (or an identical copy) is stored already."""
        if doc is None:
            doc = load(folder.resolve())
        try:
            with self._write():
                return self._insert(folder, doc)
        except sqlite3.Error as e:
            raise _error(f"Cannot store {folder} in {self.path}", e) from None

    def replace(self, docs: Sequence[tuple[Path, ResultsDocument]]) -> int:
        """The runs of these folders made again, in one transaction: each folder's
        stored run is removed and its document added again; the count added. Runs of
        other folders stay: those whose folders are gone, and those another process
        stored while the rebuild was reading the folders."""
        try:
            with self._write():
                for folder, _doc in docs:
                    self.db.execute("DELETE FROM runs WHERE folder = ?", (str(folder.resolve()),))
                return sum(self._insert(folder, doc) for folder, doc in docs)
        except sqlite3.Error as e:
            raise _error(f"Cannot rewrite the store {self.path}", e) from None

    def _insert(self, folder: Path, doc: ResultsDocument) -> bool:
        """Inside a write transaction: store one folder unless it is stored already."""
        resolved = folder.resolve()
        file = resolved / RESULTS_FILE
        try:
            digest = hashlib.sha256(file.read_bytes()).hexdigest()
        except OSError as e:
            raise ResultsError(f"Cannot read {file}: {e.strerror or e}.") from None
        found = extract(doc)
        known = self.db.execute(
            "SELECT id, digest FROM runs WHERE folder = ? OR digest = ?",
            (str(resolved), digest),
        ).fetchall()
        if any(row[1] == digest for row in known):
            return False
        for row in known:  # the folder's results changed (a resumed run): replace
            self.db.execute("DELETE FROM runs WHERE id = ?", (row[0],))
        cursor = self.db.execute(
            "INSERT INTO runs (folder, digest, run_id, started, target, testbed, "
            "testbed_json, version_json, version_text, sort_key, exact, "
            "rtbench_version, added) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                str(resolved),
                digest,
                doc.run.id,
                doc.run.started,
                doc.run.target,
                found.testbed_key,
                json.dumps(found.testbed, sort_keys=True),
                json.dumps(found.version, sort_keys=True),
                found.version_text,
                found.order,
                int(found.deterministic),
                doc.rtbench_version,
                dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            ),
        )
        run = cursor.lastrowid
        self.db.executemany(
            "INSERT INTO metrics VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    run,
                    m.name,
                    m.scenario,
                    m.label,
                    m.unit,
                    m.count,
                    m.min,
                    m.median,
                    m.p99,
                    m.p99_9,
                    m.max,
                    json.dumps(m.histogram),
                )
                for m in found.metrics
            ],
        )
        self.db.executemany(
            "INSERT INTO verdicts VALUES (?, ?, ?, ?, ?)",
            [(run, v.name, v.scenario, v.label, v.outcome) for v in found.verdicts],
        )
        return True

    def folders(self) -> list[Path]:
        return [Path(r[0]) for r in self._read("SELECT folder FROM runs ORDER BY id")]

    def check(self) -> None:
        """A StoreError (corrupt) unless SQLite finds the whole file sound."""
        rows = self._read("PRAGMA quick_check")
        if [r[0] for r in rows] != ["ok"]:
            raise StoreError(
                f"Cannot read the store {self.path}: it is corrupt ({rows[0][0]}).", corrupt=True
            )

    # ---- reading -----------------------------------------------------------------

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        try:
            return list(self.db.execute(sql, params).fetchall())
        except sqlite3.Error as e:
            raise _error(f"Cannot read the store {self.path}", e) from None

    def runs(self) -> list[StoredRun]:
        rows = self._read(
            "SELECT id, folder, run_id, started, target, testbed, testbed_json, version_json, "
            "version_text, sort_key, exact FROM runs ORDER BY testbed, sort_key, id"
        )
        return [
            StoredRun(
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                r[5],
                json.loads(r[6]),
                json.loads(r[7]),
                r[8],
                r[9],
                bool(r[10]),
            )
            for r in rows
        ]

    def metrics(self) -> list[tuple[Any, ...]]:
        """(run, name, scenario, label, unit, count, min, median, p99, p99_9, max, histogram)."""
        return self._read("SELECT * FROM metrics")

    def verdicts(self) -> list[tuple[Any, ...]]:
        """(run, name, scenario, label, outcome)."""
        return self._read("SELECT * FROM verdicts")
