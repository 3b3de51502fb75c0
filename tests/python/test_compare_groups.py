# SPDX-License-Identifier: Apache-2.0
"""rtbench compare of systems timed by different clocks: comparable groups, the
differences the user chose named once, no rating across groups, and the
warnings of two runs of one host kept. Synthetic results, no boots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rtbench.compare import answer, groups, html, model, tables, text
from synth import lognormal, verdict_record, write_result

N = 2000
WAKE = ("sem.signal.unblock", "release", "SEM-P-ARC")


def _board(rtos: str, shift: int | None) -> dict[str, Any]:
    return {
        "kind": "qemu",
        "spec": f"qemu:{rtos.lower()}-mps2-an385",
        "board": "mps2-an385",
        "arch": "armv7m",
        "emulator": "qemu-system-arm",
        "emulator_version": "7.2.22",
        "accel": "tcg",
        "emulated": True,
        "icount_shift": shift,
        "deterministic": None if shift is None else {"icount_shift": shift},
    }


def _guest(name: str) -> dict[str, Any]:
    spec = f"qemu:{name}"
    return {"kind": "qemu", "spec": spec, "guest": name, "arch": "x86_64",
            "emulated": True, "accel": "tcg", "deterministic": None}  # fmt: skip


def _system(
    tmp_path: Path,
    name: str,
    median: float,
    *,
    info: dict[str, Any] | None = None,
    host: dict[str, Any] | None = None,
    os: tuple[str, str] = ("Linux", "6.1.0"),
    seed: int = 1,
) -> Path:
    kernel = {"system": os[0], "release": os[1], "cmdline": "quiet"}
    facts: dict[str, Any] = {"hostname": "lab1", "cpus": {"model": "EPYC"}, "kernel": kernel}
    facts.update(host or {})
    run: dict[str, Any] = {"target": (info or {}).get("spec", "local")}
    if info is not None:
        run["target_info"] = info
    return write_result(tmp_path / name, {WAKE: lognormal(seed, N, median)}, run=run, host=facts)


def _members(c: model.Comparison) -> list[str]:
    return ["".join(c.systems[i].letter for i in g.members) for g in c.groups]


def test_groups_follow_the_clock_that_timed_each_system(tmp_path: Path) -> None:
    paths = [
        _system(tmp_path, "a", 3000),
        _system(tmp_path, "b", 6000, seed=2),  # the same host: tested against A
        _system(tmp_path, "c", 3000, host={"hostname": "lab2"}),  # another real machine
        _system(tmp_path, "d", 90000, info=_guest("debian-amd64")),  # TCG wall clock
        _system(tmp_path, "e", 90000, info=_guest("debian-arm64")),  # TCG: never rated
        _system(tmp_path, "f", 4000, info=_board("FreeRTOS", 3), os=("FreeRTOS", "V11")),
        _system(tmp_path, "g", 8000, info=_board("ThreadX", 3), os=("ThreadX", "6.4"), seed=3),
        _system(tmp_path, "h", 8000, info=_board("uCOS3", 5), os=("uC/OS-III", "3.08")),
    ]
    c = model.build(model.load_systems(paths))
    assert _members(c) == ["AB", "C", "D", "E", "FG", "H"]
    assert [g.rated for g in c.groups] == [True, False, False, False, True, False]
    row = c.metrics[0]
    assert row.differences[1] is not None and row.differences[1].outcome == "worse"
    assert all(d is None for d in row.differences[2:])  # other clocks: not tested
    sync = next(r for r in c.ratings if r.family == "synchronisation")
    # each rated group is rated within itself: A against B, F against G
    assert "among A, B: best: A" in sync.sentence and "among F, G: best: F" in sync.sentence
    assert sync.best == ("A", "F")
    why = next(n for n in c.notes if n.startswith("Times are tested and rated only"))
    assert "D (emulated x86_64 without -icount" in why and "H (emulated mps2-an385" in why


def test_wall_clock_emulation_is_never_rated(tmp_path: Path) -> None:
    """Two TCG guests of one host are still two emulator wall clocks: no test, no rating."""
    a = _system(tmp_path, "a", 90000, info=_guest("debian-amd64"))
    b = _system(tmp_path, "b", 200000, info=_guest("debian-amd64"), seed=2)
    c = model.build(model.load_systems([a, b]))
    assert not any(g.rated for g in c.groups)
    assert c.metrics[0].differences[1] is None
    sync = next(r for r in c.ratings if r.family == "synchronisation")
    assert sync.best == () and sync.sentence.startswith("not rated")
    assert groups.comparable(groups.of(c.systems), 0, 1) is False


def test_the_header_names_the_chosen_differences_without_a_red_box(tmp_path: Path) -> None:
    linux = _system(tmp_path, "a", 90000, info=_guest("debian-amd64"),
                    host={"hostname": "debian"})  # fmt: skip
    freertos = _system(tmp_path, "b", 4000, info=_board("FreeRTOS", 3), os=("FreeRTOS", "V11"),
                       host={"hostname": "mps2-an385", "cpus": {"model": "cortex-m3"}})  # fmt: skip
    c = model.build(model.load_systems([linux, freertos]))
    assert "OS: A Linux 6.1.0, B FreeRTOS V11." in c.compared
    assert any(line.startswith("target: A qemu:debian-amd64, no -icount") for line in c.compared)
    assert c.warnings == ()  # what differs is the point of the comparison
    assert "times are tested only between results timed by one clock" in html.render(c)
    assert any("hostname" in d for d in c.details)  # the host facts are details
    for shown in (text.render(c), tables.markdown(c), html.render(c)):
        flat = " ".join(shown.split())
        assert "Configuration differences" not in flat
        assert flat.index("What is compared") < flat.index("Results")


def test_no_rating_words_across_groups(tmp_path: Path) -> None:
    linux = _system(tmp_path, "a", 90000, info=_guest("debian-amd64"))
    rtos = _system(tmp_path, "b", 4000, info=_board("FreeRTOS", 3), os=("FreeRTOS", "V11"))
    c = model.build(model.load_systems([linux, rtos]))
    assert c.regressions() == []
    for shown in (text.render(c), tables.markdown(c)):
        figures = shown.split("Rules")[0]
        for word in ("WORSE", "better", "MIXED", "SLOWER", "faster", "best:"):
            assert word not in figures, word
        assert "not compared" in figures


def test_two_runs_of_one_host_keep_their_warnings(tmp_path: Path) -> None:
    a = _system(tmp_path, "a", 3000)
    b = _system(tmp_path, "b", 3000, host={"kernel": {"system": "Linux", "release": "6.1.0",
                                                       "cmdline": "quiet isolcpus=1"}})  # fmt: skip
    c = model.build(model.load_systems([a, b]))
    assert _members(c) == ["AB"]
    assert any(w.startswith("host kernel.cmdline differs") for w in c.warnings)
    assert c.compared == ()
    assert "Configuration differences" in text.render(c)


def test_the_first_screen_is_the_answer(tmp_path: Path) -> None:
    """The answer table leads (systems as columns: behaviour with each failure's
    reason, the headline figure, instructions for an -icount clock), then one
    sentence per family only where a comparable difference names a winner."""
    linux = _system(tmp_path, "a", 90000, info=_guest("debian-amd64"))
    free = _system(tmp_path, "b", 4000, info=_board("FreeRTOS", 3), os=("FreeRTOS", "V11"))
    tx = _system(tmp_path, "c", 8000, info=_board("ThreadX", 3), os=("ThreadX", "6.4"), seed=3)
    c = model.build(model.load_systems([linux, free, tx]))
    found = dict(answer.table(c))
    assert found["system"] == ["Linux 6.1.0", "FreeRTOS V11", "ThreadX 6.4"]
    assert found["timed by"] == ["TCG wall clock", "icount 3 [BC]", "icount 3 [BC]"]
    assert found["SEM-P-ARC instructions"][0] == "-"
    assert [line.split(":")[0] for line in answer.sentences(c)] == ["synchronisation"]
    assert "among B, C: best: B" in answer.sentences(c)[0]
    shown = text.render(c)
    assert shown.index("SEM-P-ARC median/p99") < shown.index("Systems") < shown.index("Results")
    # a failed verdict is named with its reason in the table
    db = _system(tmp_path, "d", 4000, info=_board("FreeRTOS", 3), os=("FreeRTOS", "V11"))
    doc = json.loads((db / "results.json").read_text())
    doc["scenarios"][0]["records"].append(verdict_record("mut.behavior.pi", "MUT-B-ARC", "fail"))
    (db / "results.json").write_text(json.dumps(doc))
    c = model.build(model.load_systems([free, db]))
    assert dict(answer.table(c))["behaviour"][1] == "0 pass; FAILS MUT-B-ARC: synthetic fail"
    # several checks of one label failing for one reason are said once, counted
    second = verdict_record("mut.behavior.pi", "MUT-B-ARC", "fail")
    second["check"] = "inherit"
    doc["scenarios"][0]["records"].append(second)
    (db / "results.json").write_text(json.dumps(doc))
    c = model.build(model.load_systems([free, db]))
    assert dict(answer.table(c))["behaviour"][1] == "0 pass; FAILS MUT-B-ARC: synthetic fail (x2)"
