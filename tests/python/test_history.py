# SPDX-License-Identifier: Apache-2.0
"""`rtbench history` on synthetic series: a planted step is found at its run, a
stationary series raises nothing, a deterministic series changing by one
instruction and a verdict flip are reported, --fail-on-change, rebuild."""

from __future__ import annotations

import math
import re
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from conftest import cli
from rtbench.model.summary import Bucket
from rtbench.store.detect import Point, Series, detect
from synth import lognormal, verdict_record, write_result

METRIC = ("sem.wait.block", "wake", "SEM-B")


def _series(
    tmp_path: Path,
    medians: list[float],
    *,
    outcomes: list[str] | None = None,
    exact: bool = False,
    prefix: str = "r",
    samples: int = 500,
) -> Path:
    """One run per median, each of a version 6.1.0-<i>; returns the store."""
    store = tmp_path / "h.sqlite"
    folders = []
    for i, median in enumerate(medians):
        folder = tmp_path / f"{prefix}{i:02d}"
        if exact:
            values = [int(median)] * 300 + [int(median) + 64] * 20
        else:
            values = lognormal(1000 + i, samples, median)
        run: dict[str, object] = {
            "started": f"2025-{1 + i // 28:02d}-{1 + i % 28:02d}T00:00:00+00:00"
        }
        if exact:
            run["target"] = "qemu:freertos-mps2-an385"
            run["target_info"] = {
                "kind": "firmware", "spec": "qemu:freertos-mps2-an385", "board": "mps2-an385",
                "arch": "armv7m", "os": "FreeRTOS", "os_release": "V11.1.0",
                "deterministic": {"icount_shift": 3},
            }  # fmt: skip
        verdicts = [verdict_record("sem.order", "SEM-O", outcomes[i])] if outcomes else []
        write_result(
            folder,
            {METRIC: values},
            verdicts=verdicts,
            run=run,
            host={"kernel": {"release": f"6.1.0-{i + 1}", "version": "#1 SMP"}},
        )
        folders.append(str(folder))
    done = cli("store", "add", *folders, "--store", str(store), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return store


def _history(tmp_path: Path, store: Path, *extra: str) -> tuple[int, str, str]:
    done = cli("history", "--store", str(store), *extra, cwd=tmp_path)
    return done.returncode, done.stdout, done.stderr


def _confirmed(out: str) -> list[str]:
    """The confirmed change lines of `history`'s table."""
    return [line for line in out.splitlines() if line.startswith("    change:")]


def _noisy(n: int, level: float, seed: int, jitter: float = 0.03) -> list[float]:
    rng = np.random.default_rng(seed)
    return [level * math.exp(rng.normal(0, jitter)) for _ in range(n)]


def test_planted_step_found_at_its_run(tmp_path: Path) -> None:
    store = _series(tmp_path, _noisy(14, 1000, 1) + _noisy(10, 1400, 2))
    status, out, err = _history(tmp_path, store)
    assert status == 0, err
    changes = _confirmed(out)
    assert len(changes) == 1, out
    assert "worse from run r14" in changes[0]
    assert "between kernel 6.1.0-14 and kernel 6.1.0-15" in changes[0]


def test_stationary_series_raises_nothing(tmp_path: Path) -> None:
    store = _series(tmp_path, _noisy(50, 1000, 7, jitter=0.04))
    status, out, err = _history(tmp_path, store, "--fail-on-change")
    assert status == 0, err
    assert not _confirmed(out)
    assert len(re.findall(r"^    r\d", out, re.M)) == 50


def test_newest_run_fails_ci_with_where_and_how_much(tmp_path: Path) -> None:
    store = _series(tmp_path, [*_noisy(12, 1000, 3), 1500])
    status, out, _err = _history(tmp_path, store, "--fail-on-change")
    assert status == 1
    (line,) = [x for x in out.splitlines() if x.startswith("CHANGE")]
    assert "sem.wait.block wake" in line and "run r12" in line and "%" in line


def test_deterministic_change_by_one_instruction(tmp_path: Path) -> None:
    medians = [1000.0] * 6 + [1008.0]  # shift 3: one instruction is 8 ns
    store = _series(tmp_path, medians, exact=True)
    status, out, _err = _history(tmp_path, store, "--fail-on-change")
    assert status == 1, out
    assert "deterministic" in out
    assert "median 1000 -> 1008 (+8ns), exact" in out
    assert len(_confirmed(out)) == 1


def test_verdict_flip_reported(tmp_path: Path) -> None:
    outcomes = ["pass"] * 5 + ["fail"]
    store = _series(tmp_path, _noisy(6, 1000, 5), outcomes=outcomes)
    status, out, _err = _history(tmp_path, store, "--fail-on-change")
    assert status == 1
    assert "verdict pass -> fail" in out
    status, out, _err = _history(tmp_path, store, "--fail-on-change", "--only", "sem.wait.*")
    assert status == 0 and "verdict" not in out


def test_filters_and_bad_input(tmp_path: Path) -> None:
    store = _series(tmp_path, _noisy(4, 1000, 9))
    _s, out, _e = _history(tmp_path, store, "--since", "2025-01-03")
    assert len(re.findall(r"^    r\d", out, re.M)) == 2
    _s, out, _e = _history(tmp_path, store, "--target", "ssh://*")
    assert "No stored run matches" in out
    status, _o, err = _history(tmp_path, store, "--since", "yesterday")
    assert status == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    status, _o, err = _history(tmp_path, tmp_path / "none.sqlite")
    assert status == 2 and "No history" in err


def test_rebuild_gives_the_same_history(tmp_path: Path) -> None:
    store = _series(tmp_path, _noisy(10, 1000, 4) + _noisy(6, 1500, 6))
    _s, before, _e = _history(tmp_path, store)
    store.unlink()
    for suffix in ("-wal", "-shm"):
        Path(f"{store}{suffix}").unlink(missing_ok=True)
    # the database made anew from the folders: add them, then rebuild once more
    folders = sorted(str(p) for p in tmp_path.glob("r*"))
    assert cli("store", "add", *folders, "--store", str(store), cwd=tmp_path).returncode == 0
    assert cli("store", "rebuild", "--store", str(store), cwd=tmp_path).returncode == 0
    _s, after, _e = _history(tmp_path, store)
    assert after == before and _confirmed(after)


def test_html_page(tmp_path: Path) -> None:
    store = _series(tmp_path, _noisy(8, 1000, 2) + _noisy(6, 1500, 3), outcomes=None)
    page = tmp_path / "h.html"
    status, _o, err = _history(tmp_path, store, "--html", str(page))
    assert status == 0, err
    text = page.read_text()
    assert text.count("<svg viewBox") == 1 and 'class="change"' in text
    assert 'name="viewport"' in text and 'class="median"' in text


def test_since_shows_changes_that_began_since_against_the_earlier_runs(tmp_path: Path) -> None:
    # runs r00..r13 (2025-01-01..14) at one level, r14.. (2025-01-15..) 40 % higher
    store = _series(tmp_path, _noisy(14, 1000, 1) + _noisy(6, 1400, 2))
    status, out, err = _history(tmp_path, store, "--since", "2025-01-15", "--fail-on-change")
    assert status == 1, err  # the change began since the date, though not at the newest run
    assert len(re.findall(r"^    r\d", out, re.M)) == 6  # only the runs since are shown
    (change,) = _confirmed(out)
    # judged against the runs before the date, which are not shown
    assert "worse from run r14" in change and "run(s) after against 10 before" in change
    assert "CHANGE" in out
    # without --since only the newest run counts for CI: this change is not new
    status, out, _err = _history(tmp_path, store, "--fail-on-change")
    assert status == 0 and "worse from run r14" in out
    # a date after the change: its runs are shown, the change is not, and CI passes
    status, out, _err = _history(tmp_path, store, "--since", "2025-01-17", "--fail-on-change")
    assert status == 0 and not _confirmed(out)
    assert len(re.findall(r"^    r\d", out, re.M)) == 4
    # a date after every run
    status, out, _err = _history(tmp_path, store, "--since", "2026-01-01")
    assert status == 0 and "No stored run matches" in out


def _corrupt(store: Path, how: str) -> None:
    data = bytearray(store.read_bytes())
    if how == "garbage":
        data[:] = b"not a database at all " * (len(data) // 22)
    else:  # pages after the first, where the runs are, overwritten
        data[4096:] = bytes(range(256)) * ((len(data) - 4096) // 256 + 1)
        del data[len(store.read_bytes()) :]
    store.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["garbage", "damaged pages"])
def test_corrupt_store_rebuilt_from_its_folders(tmp_path: Path, how: str) -> None:
    store = _series(tmp_path, _noisy(10, 1000, 4) + _noisy(6, 1500, 6), outcomes=["pass"] * 16)
    _s, before, _e = _history(tmp_path, store)
    assert _confirmed(before)
    _corrupt(store, how)
    damaged = store.read_bytes()
    status, _o, err = _history(tmp_path, store)
    assert status == 2 and "corrupt" in err and "store rebuild" in err
    # nothing to rebuild from: one sentence, and the file is left as it is
    empty = tmp_path / "empty"
    empty.mkdir()
    done = cli("store", "rebuild", "--store", str(store), cwd=empty)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "corrupt" in done.stderr and store.read_bytes() == damaged
    done = cli("store", "rebuild", str(tmp_path / "nowhere"), "--store", str(store), cwd=empty)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    done = cli("store", "rebuild", str(empty), "--store", str(store), cwd=empty)
    assert done.returncode == 2 and "no result folder" in done.stderr
    assert store.read_bytes() == damaged
    # rebuilt from the folders below a root: the same history, the damaged file kept
    done = cli("store", "rebuild", str(tmp_path), "--store", str(store), cwd=empty)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "16 run(s)" in done.stderr
    (aside,) = tmp_path.glob("h.sqlite.corrupt-*")
    assert aside.read_bytes() == damaged
    _s, after, _e = _history(tmp_path, store)
    assert after == before


def test_rebuild_defaults_to_results_and_keeps_runs_whose_folder_is_gone(
    tmp_path: Path,
) -> None:
    root = tmp_path / "results"
    root.mkdir()
    store = _series(root, _noisy(5, 1000, 8))
    shutil.rmtree(root / "r04")
    # a run measured since, never added: found below ./results, where `rtbench run` writes
    write_result(root / "late", {METRIC: lognormal(77, 500, 1000)}, run={"started": "2025-03-01"})
    done = cli("store", "rebuild", "--store", str(store), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "kept as stored" in done.stderr and "r04" in done.stderr
    _s, out, _e = _history(tmp_path, store)
    assert len(re.findall(r"^    (r0\d|late) ", out, re.M)) == 6, out
    assert not list(root.glob("*.corrupt-*"))


def test_a_change_needs_three_runs_before_it(tmp_path: Path) -> None:
    """With one or two runs before, the spread between runs is unknown: nothing is raised.
    With three, a run 60 % above them (their medians within 2 %) is a possible change,
    one that CI does not fail on, until one more run stays up; three times higher is a
    change at once."""
    store = _series(tmp_path, [1000.0, 1010.0, 1600.0])
    status, out, _err = _history(tmp_path, store, "--fail-on-change")
    assert status == 0 and "change" not in out
    store = _series(tmp_path / "four", [1000.0, 1010.0, 990.0, 1600.0])
    status, out, _err = _history(tmp_path, store, "--fail-on-change")
    assert status == 0 and not _confirmed(out), out
    assert re.search(r"^    r03 .*<- worse\? p=0\.00\d+$", out, re.M), out
    assert "1 possible change(s) at the newest run, marked ?" in out
    store = _series(tmp_path / "five", [1000.0, 1010.0, 990.0, 1600.0, 1610.0])
    status, out, _err = _history(tmp_path, store)
    (line,) = _confirmed(out)
    assert "worse from run r03" in line and "2 run(s) after against 3 before" in line, out
    store = _series(tmp_path / "triple", [1000.0, 1010.0, 990.0, 3000.0])
    status, out, _err = _history(tmp_path, store, "--fail-on-change")
    assert status == 1 and "worse from run r03" in out and "1 run(s) after against 3 before" in out


def test_a_run_must_lie_beyond_what_the_spread_of_the_runs_before_allows(tmp_path: Path) -> None:
    """One run 25 % above three others lies beyond every one of them, outside the noise
    band and significantly on the pooled samples; it is a change only when the three
    runs are tight enough that such a jump is not their own run-to-run spread."""
    loose = _series(tmp_path / "loose", [1000.0, 1080.0, 940.0, 1250.0])
    status, out, _err = _history(tmp_path, loose, "--fail-on-change")
    assert status == 0 and not _confirmed(out), out
    assert "<- " not in out, out  # well within the spread (p = 0.14): not even possible
    tight = _series(tmp_path / "tight", [1000.0, 1004.0, 996.0, 1250.0], samples=20000)
    status, out, _err = _history(tmp_path, tight, "--fail-on-change")
    assert status == 1 and "worse from run r03" in out, out
    assert re.search(r"\(t test on the runs: p = 0\.000\d+\)", out), out


def test_a_change_that_lasts_is_confirmed_by_the_runs_after_it(tmp_path: Path) -> None:
    """The same loose baseline: the first run after the jump is not enough, five runs
    that stay up are, and the change is placed where it began."""
    base = [1000.0, 1080.0, 940.0]
    store = _series(tmp_path, [*base, 1250.0, 1260.0, 1240.0, 1255.0, 1245.0])
    status, out, _err = _history(tmp_path, store)
    assert status == 0
    (line,) = _confirmed(out)
    assert "worse from run r03" in line and "5 run(s) after against 3 before" in line, out


def _rate_series(rates: list[float]) -> Series:
    """A throughput series (ops/s), each run 200 samples around its rate."""
    points = []
    for i, rate in enumerate(rates):
        values = sorted(int(v) for v in _noisy(200, rate, 40 + i, jitter=0.01))
        hist = tuple(Bucket(float(v), float(v), n) for v, n in sorted(Counter(values).items()))
        points.append(
            Point(i, f"t{i}", f"kernel 6.1.0-{i}", f"2025-02-{1 + i:02d}", count=len(values),
                  min=values[0], median=values[100], p99=values[198], max=values[-1],
                  histogram=hist)
        )  # fmt: skip
    return Series("tb", "tb", "local", "tm.basic throughput", "ops/s", "metric", False, points)


def test_a_rate_that_falls_is_worse_and_one_that_rises_better() -> None:
    """Throughput: higher is better, so a drop is a change for the worse."""
    (change,) = detect(_rate_series([50_000.0, 50_100.0, 49_900.0, 50_050.0, 30_000.0]))
    assert (change.index, change.direction, change.confirmed) == (4, "worse", True)
    assert "median" in change.how and "(-40 %)" in change.how
    (change,) = detect(_rate_series([50_000.0, 50_100.0, 49_900.0, 50_050.0, 70_000.0]))
    assert (change.index, change.direction) == (4, "better")


def test_html_page_marks_a_possible_change_apart(tmp_path: Path) -> None:
    store = _series(tmp_path, [1000.0, 1010.0, 990.0, 1600.0])
    page = tmp_path / "h.html"
    status, _out, err = _history(tmp_path, store, "--html", str(page))
    assert status == 0, err
    text = page.read_text()
    assert text.count('class="possible-change"') == 1 and 'class="change"' not in text
    assert '<li class="possible">possible change: worse? from run r03' in text
