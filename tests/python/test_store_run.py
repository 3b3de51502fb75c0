# SPDX-License-Identifier: Apache-2.0
"""The store end to end: a real `rtbench run` on this host adds its result to the
history (`--store`), `--no-store` does not, and a store that cannot be used (corrupt,
newer, unwritable) is one warning while the run completes and keeps its folder."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from conftest import RunCli, cli
from rtbench.store import db as store_db

# fast scenarios on any host: the counter, one metric pair and one behaviour check
ONLY = ("--only", "cal.timestamp", "sem.wait.available", "sem.behavior.lock", "--raw-max", "10")


def _runs(path: Path) -> list[store_db.StoredRun]:
    with store_db.Store(path) as store:
        return store.runs()


def test_run_stores_its_result_and_no_store_does_not(run_cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    done = run_cli("run", *ONLY, "--out", str(tmp_path / "one"), "--store", str(path))
    assert done.returncode == 0, done.stderr
    (run,) = _runs(path)
    assert Path(run.folder) == (tmp_path / "one").resolve() and run.target == "local"
    data = json.loads((tmp_path / "one" / "results.json").read_text())
    assert run.run_id == data["run"]["id"]
    with store_db.Store(path) as store:
        names = {row[1] for row in store.metrics()}
        assert any(name.startswith("sem.wait.available") for name in names)
        assert [v[2] for v in store.verdicts()] == ["sem.behavior.lock"]
    shown = cli("history", "--store", str(path), "--only", "sem.wait.*", cwd=tmp_path)
    assert shown.returncode == 0 and data["run"]["id"][:28] in shown.stdout

    before = path.read_bytes()
    done = run_cli("run", *ONLY, "--out", str(tmp_path / "two"), "--store", str(path), "--no-store")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "two" / "results.json").is_file()
    assert len(_runs(path)) == 1 and path.read_bytes() == before
    # --no-store alone: the default store (RTBENCH_STORE) is not created either
    default = Path(os.environ["RTBENCH_STORE"])
    existed = default.exists()
    done = run_cli("run", *ONLY, "--out", str(tmp_path / "three"), "--no-store")
    assert done.returncode == 0, done.stderr
    assert default.exists() == existed

    # `store add` of a folder a run stored already: stored once
    again = cli("store", "add", str(tmp_path / "one"), "--store", str(path), cwd=tmp_path)
    assert again.returncode == 0 and "already stored" in again.stderr
    assert len(_runs(path)) == 1


def _newer(path: Path) -> None:
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA user_version = {store_db.SCHEMA_VERSION + 1}")
    con.close()


@pytest.mark.parametrize("problem", ["corrupt", "newer", "unwritable", "a folder"])
def test_run_completes_when_the_store_cannot_be_used(
    run_cli: RunCli, tmp_path: Path, problem: str
) -> None:
    if problem == "unwritable" and os.geteuid() == 0:
        pytest.skip("root writes read-only folders")
    place = tmp_path / "db"
    place.mkdir()
    path = place / "h.sqlite"
    if problem == "corrupt":
        path.write_bytes(b"not a database " * 300)
    elif problem == "newer":
        _newer(path)
    elif problem == "a folder":  # cannot be opened, even by root
        path.mkdir()
    before = path.read_bytes() if path.is_file() else None
    if problem == "unwritable":
        place.chmod(0o500)
    try:
        done = run_cli("run", *ONLY, "--out", str(tmp_path / "out"), "--store", str(path))
    finally:
        place.chmod(0o700)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    warned = [line for line in done.stderr.splitlines() if "not added to the history" in line]
    assert len(warned) == 1 and str(tmp_path / "out") in warned[0]
    assert (tmp_path / "out" / "results.json").is_file()
    assert (path.read_bytes() if path.is_file() else None) == before  # nothing touched


@pytest.mark.parametrize("problem", ["newer", "unwritable", "under a file"])
def test_import_completes_when_the_store_cannot_be_used(tmp_path: Path, problem: str) -> None:
    """(A corrupt store during an import: test_store.py.)"""
    from conftest import FIXTURES  # noqa: PLC0415

    if problem == "unwritable" and os.geteuid() == 0:
        pytest.skip("root writes read-only folders")
    source = next(p for p in sorted(FIXTURES.glob("*cyclictest*.json")))
    place = tmp_path / "db"
    place.mkdir()
    path = place / "h.sqlite"
    if problem == "newer":
        _newer(path)
    elif problem == "under a file":  # its folder cannot be made, even by root
        path = tmp_path / "file" / "h.sqlite"
        path.parent.write_text("a file\n")
    else:
        place.chmod(0o500)
    try:
        out = tmp_path / "imp"
        done = cli("import", str(source), "--out", str(out), "--store", str(path), cwd=tmp_path)
    finally:
        place.chmod(0o700)
    assert done.returncode == 0, done.stderr
    assert "not added to the history" in done.stderr and "Traceback" not in done.stderr
    assert (out / "results.json").is_file()
