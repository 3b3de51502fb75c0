# SPDX-License-Identifier: Apache-2.0
"""rtbench compare of two different RTOSes on one emulated board: each system's
code path set beside the other's (not a difference of functions two kernels do
not share), the services each image reports, and a metric whose parameters the
port sets (sem.wait.block's priority levels) matched across the two.

The results are synthetic deterministic runs (test_compare_exact's), given the
meta record, facts and paths of a FreeRTOS and a uC/OS-III image."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from rtbench.compare import configuration, html, model, tables, text
from test_compare_exact import WAIT, deterministic_result, path_object

FREERTOS_CAPS = ["realtime", "mutex_inherit", "mq", "evt", "irq", "thread_delete_live"]
UCOS3_CAPS = [*FREERTOS_CAPS, "policy_rr", "suspend_other"]
FREERTOS_FACTS = {
    "heap": {"scheme": "heap_4"},
    "notes": {"mq": "xQueueSend copies", "evt": "event groups, 24 flags"},
    "unsupported": {"mutex_ceiling": "no ceiling in FreeRTOS", "policy_rr": "one build switch"},
    "not_ported": {"suspend_other": "vTaskSuspend exists; the port does not use it"},
}
UCOS3_FACTS = {
    "heap": {"scheme": "size classes on OSMem partitions (the port's)"},
    "notes": {"policy_rr": "a quantum per task"},
    "emulated": {"mq": "OSQ passes pointers: the port copies", "memory": "OSMem size classes"},
    "unsupported": {"mutex_ceiling": "no ceiling in uC/OS-III"},
}
FREERTOS_PATH = (
    {"rtb_port_sem_wait": 1, "xQueueSemaphoreTake": 1, "vPortEnterCritical": 7,
     "vPortExitCritical": 7, "xPortPendSVHandler": 1},
    {"xQueueSemaphoreTake": 80, "vPortEnterCritical": 112, "vPortExitCritical": 64,
     "xPortPendSVHandler": 19, "rtb_port_sem_wait": 3},
)  # fmt: skip
UCOS3_PATH = (
    {"rtb_port_sem_wait": 1, "OSSemPend": 1, "OS_Pend": 1, "CPU_SR_Save": 2,
     "CPU_SR_Restore": 2, "OS_CPU_PendSVHandler": 1},
    {"OSSemPend": 23, "OS_Pend": 34, "CPU_SR_Save": 20, "CPU_SR_Restore": 12,
     "OS_CPU_PendSVHandler": 37, "rtb_port_sem_wait": 8},
)  # fmt: skip
FREERTOS_CRITICAL = {
    "entries": 8,
    "calls": 14,
    "by_function": {"vPortEnterCritical": 7, "vPortExitCritical": 7, "xPortPendSVHandler": 1},
}
UCOS3_CRITICAL = {
    "entries": 3,
    "calls": 4,
    "by_function": {"CPU_SR_Save": 2, "CPU_SR_Restore": 2, "OS_CPU_PendSVHandler": 1},
}


def _rtos(
    out: Path,
    os_name: str,
    port: str,
    caps: list[str],
    facts: dict[str, Any],
    params: dict[str, Any] | None = None,
) -> Path:
    """Make a deterministic result that of an RTOS image: its meta record's OS, port
    and capabilities, its facts under host.<port>, and the metrics' parameters."""
    doc = json.loads((out / "results.json").read_text())
    for scenario in doc["scenarios"]:
        meta = dict(scenario["meta"])
        meta.update({"os": os_name, "os_release": "V1", "port": port, "caps": caps})
        scenario["meta"] = meta
        for record in (*scenario["records"], *scenario["samples"]):
            if params is not None:
                record["params"] = dict(params)
    doc["host"][port] = facts
    (out / "results.json").write_text(json.dumps(doc, indent=1))
    return out


def _traced(tmp_path: Path, name: str, path: tuple[dict[str, int], dict[str, int]],
            critical: dict[str, Any], values: list[int]) -> Path:  # fmt: skip
    obj = path_object(path[0], path[1], values[0])
    obj["typical"]["critical_sections"] = critical
    obj["worst_line"] = f"worst sample ({max(values)} ticks): interrupted by a tick"
    return deterministic_result(tmp_path / name, {WAIT: values}, paths={WAIT[0]: obj})


def _pair(tmp_path: Path, params_b: dict[str, Any] | None = None) -> model.Comparison:
    a = _traced(tmp_path, "a", FREERTOS_PATH, FREERTOS_CRITICAL, [400] * 100)
    b = _traced(tmp_path, "b", UCOS3_PATH, UCOS3_CRITICAL, [180] * 100)
    _rtos(a, "FreeRTOS", "freertos", FREERTOS_CAPS, FREERTOS_FACTS, params={"levels": 29})
    _rtos(b, "uC/OS-III", "ucos3", UCOS3_CAPS, UCOS3_FACTS, params=params_b or {"levels": 29})
    return model.build(model.load_systems([a, b]))


def test_two_kernels_get_their_paths_side_by_side_not_a_difference(tmp_path: Path) -> None:
    c = _pair(tmp_path)
    (row,) = c.metrics
    assert row.path_changes(1) == ()  # no difference of functions two kernels do not share
    a, b = row.sides
    assert a is not None and b is not None
    assert (a.instructions, b.instructions) == (278, 134)
    assert b.critical == UCOS3_CRITICAL and b.entries == 8
    assert [f.name for f in b.functions][:2] == ["OS_CPU_PendSVHandler", "OS_Pend"]
    rendered = " ".join(text.render(c).split())
    assert "Code paths side by side, typical samples (exact instruction counts):" in rendered
    assert (
        "A FreeRTOS V1: 278 instructions, 8 critical sections (vPortEnterCritical x7, "
        "vPortExitCritical x7, xPortPendSVHandler x1), 17 function entries; most in "
        "vPortEnterCritical 112, xQueueSemaphoreTake 80, vPortExitCritical 64, "
        "xPortPendSVHandler 19 (+1 more)"
    ) in rendered
    assert "B uC/OS-III V1: 134 instructions, 3 critical sections (CPU_SR_Save x2" in rendered
    assert "path difference" not in rendered
    md = tables.markdown(c)
    assert "| critical sections | 8 (14 calls) | 3 (4 calls) |" in md
    assert "| vPortEnterCritical | 112 | 7 | OS_CPU_PendSVHandler | 37 | 1 |" in md
    assert "| worst sample | worst sample (400 ticks): interrupted by a tick |" in md
    assert "- B entered, in order: rtb_port_sem_wait > OSSemPend > OS_Pend > CPU_SR_Save" in md
    page = html.render(c)
    assert "Code paths side by side" in page and ">OS_CPU_PendSVHandler</td><td>37</td>" in page
    rows = list(csv.DictReader(io.StringIO(tables.csv_text(c))))
    assert rows[1]["code_path"].startswith("B uC/OS-III V1: 134 instructions")
    assert rows[1]["path_difference"] == ""


def test_one_kernel_keeps_the_path_difference(tmp_path: Path) -> None:
    a = _traced(tmp_path, "a", FREERTOS_PATH, FREERTOS_CRITICAL, [400] * 100)
    calls, insns = dict(FREERTOS_PATH[0]), dict(FREERTOS_PATH[1])
    insns["xQueueSemaphoreTake"] += 100
    b = _traced(tmp_path, "b", (calls, insns), FREERTOS_CRITICAL, [480] * 100)
    for out in (a, b):
        _rtos(out, "FreeRTOS", "freertos", FREERTOS_CAPS, FREERTOS_FACTS)
    c = model.build(model.load_systems([a, b]))
    (row,) = c.metrics
    assert all(side is None for side in row.sides)
    assert [d.sample for d in row.path_changes(1)] == ["typical"]
    assert c.services == ()  # one OS: no table of services
    assert "Services of each system" not in text.render(c)


def test_the_services_come_from_the_capabilities_and_the_facts(tmp_path: Path) -> None:
    c = _pair(tmp_path)
    cells = {s.key: tuple(cell.full() for cell in s.cells) for s in c.services}
    assert cells["mutex_ceiling"] == (
        "none: no ceiling in FreeRTOS",
        "none: no ceiling in uC/OS-III",
    )
    assert cells["policy_rr"] == ("none: one build switch", "native: a quantum per task")
    assert cells["suspend_other"] == (
        "not ported: vTaskSuspend exists; the port does not use it",
        "native",
    )
    assert cells["mq"] == (
        "native: xQueueSend copies",
        "emulated: OSQ passes pointers: the port copies",
    )
    assert cells["memory"] == ("native: heap_4", "emulated: OSMem size classes")
    assert cells["evt"] == ("native: event groups, 24 flags", "native")
    # nothing in the facts and no capability: none, with no reason invented
    assert cells["ipc"] == ("none", "none")
    rendered = text.render(c)
    assert "Services of each system" in rendered
    assert "B message queues (messages copied): emulated: OSQ passes pointers" in rendered
    md = tables.markdown(c)
    assert (
        "| round-robin among equal priorities | none: one build switch | native: a quantum per "
        "task |"
    ) in md
    assert "not ported" in html.render(c)


def test_a_parameter_the_port_sets_does_not_keep_two_kernels_apart(tmp_path: Path) -> None:
    c = _pair(tmp_path, params_b={"levels": 60})
    (row,) = c.metrics  # one row, not one per system
    assert row.cells[0] is not None and row.cells[1] is not None
    assert (
        row.param_notes[1]
        == "B measured it with levels=60, A with levels=29: the parameters differ"
    )
    diff = row.differences[1]
    assert diff is not None and diff.outcome == "better"
    assert "B measured it with levels=60" in " ".join(text.render(c).split())


def test_one_kernel_matches_parameters_exactly(tmp_path: Path) -> None:
    a = deterministic_result(tmp_path / "a", {WAIT: [400] * 100})
    b = deterministic_result(tmp_path / "b", {WAIT: [400] * 100})
    _rtos(a, "FreeRTOS", "freertos", FREERTOS_CAPS, FREERTOS_FACTS, params={"levels": 29})
    _rtos(b, "FreeRTOS", "freertos", FREERTOS_CAPS, FREERTOS_FACTS, params={"levels": 60})
    c = model.build(model.load_systems([a, b]))
    assert len(c.metrics) == 2  # a configuration of one OS measured something else
    assert all(not note for row in c.metrics for note in row.param_notes)


def test_the_capabilities_decide_whether_a_service_is_there(tmp_path: Path) -> None:
    # a time-sliced FreeRTOS build claims round-robin: a stale reason in the facts
    # does not make it missing, and a service the caps lack is never native
    a = deterministic_result(tmp_path / "a", {WAIT: [400] * 100})
    b = deterministic_result(tmp_path / "b", {WAIT: [180] * 100})
    _rtos(a, "FreeRTOS", "freertos", [*FREERTOS_CAPS, "policy_rr"], FREERTOS_FACTS)
    _rtos(b, "uC/OS-III", "ucos3", ["realtime"], {"notes": {"mq": "OSQ"}})
    c = model.build(model.load_systems([a, b]))
    cells = {s.key: tuple(cell.status for cell in s.cells) for s in c.services}
    assert cells["policy_rr"] == ("native", "none")
    assert cells["mq"] == ("native", "none")
    assert cells["memory"] == ("native", "-")  # no facts of an allocator: not known


def test_two_kernels_are_not_compared_file_by_file(tmp_path: Path) -> None:
    """Two RTOSes differ in OS, kernel sources and port, which the header names as
    what is compared (not a warning); their kernels' files, build facts and port
    notes have nothing in common to list line by line."""

    def kernel(system: str, files: dict[str, str]) -> dict[str, Any]:
        return {"system": system, "checkout": {"tag": "V1", "files": files}}

    a = _traced(tmp_path, "a", FREERTOS_PATH, FREERTOS_CRITICAL, [400] * 100)
    b = _traced(tmp_path, "b", UCOS3_PATH, UCOS3_CRITICAL, [180] * 100)
    _rtos(a, "FreeRTOS", "freertos", FREERTOS_CAPS, FREERTOS_FACTS)
    _rtos(b, "uC/OS-III", "ucos3", UCOS3_CAPS, UCOS3_FACTS)
    for folder, host_kernel in (
        (a, kernel("FreeRTOS", {"tasks.c": "a" * 64})),
        (b, kernel("uC/OS-III", {"os_core.c": "b" * 64})),
    ):
        doc = json.loads((folder / "results.json").read_text())
        doc["host"]["kernel"] = host_kernel
        doc["host"]["emulator"] = {"version": "7.2.22" if folder == a else "8.0.0"}
        (folder / "results.json").write_text(json.dumps(doc, indent=1))
    config = configuration.configuration(model.load_systems([a, b]))
    warnings = config.warnings
    assert "port: A freertos, B ucos3." in config.compared
    assert not any(w.startswith("port differs") for w in warnings)
    assert not any("kernel files that differ" in w for w in warnings)
    assert not any(w.startswith("host kernel.") for w in warnings)
    assert not any("recorded in only one" in w for w in warnings)  # each port's own section
    # what both share is still compared
    assert "host emulator.version differs: A 7.2.22, B 8.0.0." in warnings
