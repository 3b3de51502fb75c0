# SPDX-License-Identifier: Apache-2.0
"""The history store: adding folders, once; rebuilding; concurrent writers; a corrupt,
newer or unwritable database is one sentence and the run's folder is kept."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cli
from rtbench.model.results import load
from rtbench.paths import ROOT
from rtbench.store import db as store_db
from synth import lognormal, verdict_record, write_result

METRIC = ("sem.wait.block", "wake", "SEM-B")


def _run(folder: Path, seed: int, median: float = 1000.0, **run: object) -> Path:
    started = run.pop("started", f"2025-01-{seed % 28 + 1:02d}T00:00:00+00:00")
    return write_result(
        folder,
        {METRIC: lognormal(seed, 400, median)},
        verdicts=[verdict_record("sem.order", "SEM-O", "pass")],
        run={"started": started, **run},
    )


def test_store_is_isolated_in_tests() -> None:
    home_store = Path.home() / ".local" / "share" / "rtbench"
    assert os.environ["RTBENCH_STORE"].startswith(os.environ["XDG_DATA_HOME"])
    assert not os.environ["RTBENCH_STORE"].startswith(str(home_store))


def test_add_once_and_read_back(tmp_path: Path) -> None:
    a = _run(tmp_path / "a", 1)
    path = tmp_path / "h.sqlite"
    with store_db.Store(path) as store:
        assert store.add(a) is True
        assert store.add(a) is False  # the same folder
        assert store.add(tmp_path / "a" / ".." / "a") is False
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "results.json").write_bytes((a / "results.json").read_bytes())
    with store_db.Store(path) as store:
        assert store.add(copy) is False  # an identical copy
        runs = store.runs()
        assert len(runs) == 1
        names = {row[1] for row in store.metrics()}
        assert names == {"sem.wait.block wake"}
        (row,) = store.metrics()
        assert row[5] == 400 and row[6] <= row[7] <= row[8] <= row[10]
        assert [v[4] for v in store.verdicts()] == ["pass"]


def test_cli_store_add_and_rebuild(tmp_path: Path) -> None:
    folders = [_run(tmp_path / f"r{i}", i) for i in range(3)]
    path = tmp_path / "h.sqlite"
    done = cli("store", "add", *map(str, folders), "--store", str(path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    again = cli("store", "add", str(folders[0]), "--store", str(path), cwd=tmp_path)
    assert "already stored" in again.stderr
    with store_db.Store(path) as store:
        before = [(r.folder, r.sort_key) for r in store.runs()]
    assert len(before) == 3
    rebuilt = cli("store", "rebuild", "--store", str(path), cwd=tmp_path)
    assert rebuilt.returncode == 0, rebuilt.stderr
    with store_db.Store(path) as store:
        assert [(r.folder, r.sort_key) for r in store.runs()] == before


def test_bad_folder_is_one_sentence_and_stores_nothing(tmp_path: Path) -> None:
    good = _run(tmp_path / "good", 1)
    path = tmp_path / "h.sqlite"
    done = cli(
        "store", "add", str(good), str(tmp_path / "missing"), "--store", str(path), cwd=tmp_path
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not path.exists() or not store_db.Store(path).runs()


def test_corrupt_database(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    path.write_bytes(b"this is not a database, it is a text file of some length" * 40)
    folder = _run(tmp_path / "a", 1)
    done = cli("store", "add", str(folder), "--store", str(path), cwd=tmp_path)
    assert done.returncode == 2
    assert "corrupt" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_newer_schema(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA user_version = {store_db.SCHEMA_VERSION + 1}")
    con.close()
    done = cli("store", "add", str(_run(tmp_path / "a", 1)), "--store", str(path), cwd=tmp_path)
    assert done.returncode == 2
    assert "newer rtbench" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only folders")
def test_unwritable_database(tmp_path: Path) -> None:
    place = tmp_path / "ro"
    place.mkdir()
    place.chmod(0o500)
    try:
        done = cli(
            "store",
            "add",
            str(_run(tmp_path / "a", 1)),
            "--store",
            str(place / "h.sqlite"),
            cwd=tmp_path,
        )
    finally:
        place.chmod(0o700)
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_import_stores_and_survives_a_corrupt_store(tmp_path: Path) -> None:
    """A store that cannot be used is one warning: the import still completes."""
    from conftest import FIXTURES  # noqa: PLC0415

    source = next(p for p in sorted(FIXTURES.glob("*cyclictest*.json")))
    good = tmp_path / "h.sqlite"
    done = cli(
        "import", str(source), "--out", str(tmp_path / "imp"), "--store", str(good), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    with store_db.Store(good) as store:
        assert len(store.runs()) == 1
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"garbage" * 500)
    done = cli(
        "import", str(source), "--out", str(tmp_path / "imp2"), "--store", str(bad), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "not added to the history" in done.stderr and "Traceback" not in done.stderr
    assert (tmp_path / "imp2" / "results.json").is_file()
    assert bad.read_bytes() == b"garbage" * 500  # nothing already there is touched


_WRITER = """
import sys
from pathlib import Path
from rtbench.store.db import Store
with Store(Path(sys.argv[1])) as s:
    for f in sys.argv[2:]:
        s.add(Path(f))
"""


def test_concurrent_writers_both_land(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    with store_db.Store(path):
        pass  # created once, as the first run would
    group_a = [str(_run(tmp_path / f"a{i}", i)) for i in range(8)]
    group_b = [str(_run(tmp_path / f"b{i}", 100 + i)) for i in range(8)]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), *group], env=env)
        for group in (group_a, group_b)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    with store_db.Store(path) as store:
        assert len(store.runs()) == 16


def test_a_run_stored_while_a_rebuild_reads_the_folders_stays(tmp_path: Path) -> None:
    """rebuild reads the folders first and rewrites in one transaction at the end: a run
    another process stored in between is not removed by it."""
    path = tmp_path / "h.sqlite"
    old = [_run(tmp_path / f"old{i}", i) for i in range(3)]
    with store_db.Store(path) as store:
        for folder in old:
            store.add(folder)
    docs = [(folder, load(folder)) for folder in old]  # what the rebuild read
    late = _run(tmp_path / "late", 50)
    with store_db.Store(path) as other:
        assert other.add(late)  # a run finishing meanwhile
    with store_db.Store(path) as store:
        assert store.replace(docs) == 3
        assert sorted(f.name for f in store.folders()) == ["late", "old0", "old1", "old2"]


def test_rebuild_and_a_writer_at_the_same_time_both_land(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    first = [str(_run(tmp_path / "results" / f"a{i}", i)) for i in range(8)]
    later = [str(_run(tmp_path / f"b{i}", 100 + i)) for i in range(8)]
    done = cli("store", "add", *first, "--store", str(path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(path), *later], env=env)
    rebuilds = [cli("store", "rebuild", "--store", str(path), cwd=tmp_path) for _ in range(3)]
    assert writer.wait(timeout=120) == 0
    assert [r.returncode for r in rebuilds] == [0, 0, 0], [r.stderr for r in rebuilds]
    with store_db.Store(path) as store:
        assert len(store.runs()) == 16
