# SPDX-License-Identifier: Apache-2.0
"""The comparison's printable summary of RTOSes on one board: every metric's
figures side by side with each kernel's share, and the operations whose kernels
differ most, widest first. Synthetic deterministic, traced results of three
RTOSes (test_compare_rtos's), no boots."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from rtbench.compare import html, model, publish, tables
from test_compare_exact import WAIT, deterministic_result, path_object
from test_compare_rtos import FREERTOS_CAPS, FREERTOS_FACTS, UCOS3_CAPS, UCOS3_FACTS, _rtos

PATHS = {  # name: (calls, instructions by function, the split of the typical sample)
    "freertos": (
        {"rtb_port_sem_wait": 1, "xQueueSemaphoreTake": 1},
        {"rtb_port_sem_wait": 3, "xQueueSemaphoreTake": 80, "rtb_sem_wait_main": 10},
        {"kernel": 80, "port": 3, "measurement": 10},
    ),
    "ucos3": (
        {"rtb_port_sem_wait": 1, "OSSemPend": 1},
        {"rtb_port_sem_wait": 8, "OSSemPend": 32, "rtb_sem_wait_main": 10},
        {"kernel": 32, "port": 8, "measurement": 10},
    ),
    "threadx": (
        {"rtb_port_sem_wait": 1, "_tx_semaphore_get": 1},
        {"rtb_port_sem_wait": 8, "_tx_semaphore_get": 10, "rtb_sem_wait_main": 10},
        {"kernel": 10, "port": 8, "measurement": 10},
    ),
}
OS = {"freertos": "FreeRTOS", "ucos3": "uC/OS-III", "threadx": "ThreadX"}


def _system(tmp_path: Path, port: str, value: int, *, traced: bool = True) -> Path:
    calls, insns, shares = PATHS[port]
    paths: dict[str, Any] = {}
    if traced:
        obj = path_object(calls, insns, value)
        obj["typical"]["shares"] = shares
        paths = {WAIT[0]: obj}
    out = deterministic_result(tmp_path / port, {WAIT: [value] * 100}, paths=paths)
    if traced:  # the trace's run condition, as a traced image records it
        doc = json.loads((out / "results.json").read_text())
        doc["run"]["conditions"] = {
            "path_trace": {
                "source": "QEMU execution log",
                "exact_bounds": True,
                "image": f"rtbench-{port}-mps2-an385.elf",
                "attribution": {
                    "functions": {f: {"share": "kernel"} for f in insns if "rtb" not in f},
                    "rtos_sources": f"/deps/{port}",
                },
            }
        }
        (out / "results.json").write_text(json.dumps(doc))
    caps, facts = (UCOS3_CAPS, UCOS3_FACTS) if port == "ucos3" else (FREERTOS_CAPS, FREERTOS_FACTS)
    return _rtos(out, OS[port], port, caps, facts)


def _three(tmp_path: Path, *, traced: bool = True) -> model.Comparison:
    paths = [
        _system(tmp_path, "freertos", 93, traced=traced),
        _system(tmp_path, "ucos3", 50, traced=traced),
        _system(tmp_path, "threadx", 28, traced=traced),
    ]
    return model.build(model.load_systems(paths))


def test_figures_side_by_side_carry_each_kernels_share(tmp_path: Path) -> None:
    c = _three(tmp_path)
    assert publish.shown(c)
    head = publish.headers(c)
    assert head[:2] == ["metric", "unit"] and [h[0] for h in head[2:]] == ["A", "B", "C"]
    (row,) = publish.figure_rows(c)
    assert row[0] == f"{WAIT[2]} {WAIT[0]} {WAIT[1]}"
    # the typical sample's split: kernel instructions of all its instructions
    assert row[2].endswith("; kernel 80 of 93 instr.")
    assert row[3].endswith("; kernel 32 of 50 instr.")
    assert row[4].endswith("; kernel 10 of 28 instr.")
    # timed by -icount (shift 5, 32 ns an instruction): the median in instructions
    assert row[2].startswith("3.72 / 3.72 (116.2 instr.)")
    assert [h.split(" ", 1)[1] for h in head[2:]] == ["FreeRTOS V1", "uC/OS-III V1", "ThreadX V1"]


def test_the_kernels_that_differ_most_come_first(tmp_path: Path) -> None:
    c = _three(tmp_path)
    # each image's map of whose code each function is differs with the RTOS,
    # which the comparison names as what is compared: no warning
    assert c.warnings == ()
    (spread,) = publish.differ_most(c)
    assert spread.ratio == 8.0  # FreeRTOS's 80 kernel instructions over ThreadX's 10
    assert spread.sentence().endswith(
        "A FreeRTOS V1: kernel 80 against C ThreadX V1: kernel 10 instructions, 8.00x"
    )
    page = html.render(c)
    flat = " ".join(page.split())
    assert publish.TITLE in flat and publish.DIFFER_TITLE in flat
    # the summary sits before the details of each metric
    assert flat.index(publish.TITLE) < flat.index("<h2>Results</h2>")
    md = tables.markdown(c)
    assert f"## {publish.DIFFER_TITLE}" in md and "kernel 32 of 50 instr." in md


def test_the_calibration_is_no_operation_to_rank(tmp_path: Path) -> None:
    """A calibration's path may hold a tick's kernel code; it is never ranked."""
    c = _three(tmp_path)
    (row,) = c.metrics
    assert publish.differ_most(c) != []
    # the same paths, as a metric of no family
    calibration = dataclasses.replace(c, metrics=(dataclasses.replace(row, family=None),))
    assert publish.differ_most(calibration) == []


def test_untraced_systems_get_figures_without_shares(tmp_path: Path) -> None:
    """The negative control: no trace, no kernel share and no path ranking."""
    c = _three(tmp_path, traced=False)
    (row,) = publish.figure_rows(c)
    assert not any("kernel" in cell or "; " in cell for cell in row[2:])
    assert publish.differ_most(c) == []
    assert publish.DIFFER_TITLE not in html.render(c)


def test_one_system_has_nothing_to_set_side_by_side(tmp_path: Path) -> None:
    alone = model.load_groups([[_system(tmp_path, "threadx", 28)]], alone=True)
    c = model.build(alone)
    assert not publish.shown(c)
    assert publish.TITLE not in html.render(c) and publish.TITLE not in tables.markdown(c)
