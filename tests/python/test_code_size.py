# SPDX-License-Identifier: Apache-2.0
"""The code size of firmware images: read from the linker's map and nm, recorded
per image, and shown by `rtbench compare` beside the figures."""

from __future__ import annotations

from pathlib import Path

import pytest

import synth
from rtbench.compare import codesize, configuration, model
from rtbench.paths import ROOT
from rtbench.targets.firmware import image as fw_image
from rtbench.targets.firmware import size
from rtbench.targets.firmware import target as fw_target
from rtbench.targets.firmware.rtoses import FREERTOS

MAP = """\
Linker script and memory map

 .text          0x00000100       0x40 CMakeFiles/main.dir/main.c.obj
 .text          0x00000140      0x220 libucos3_kernel.a(os_sem.c.obj)
                0x00000140                OSSemCreate
 .text          0x00000360        0x0 libucos3_kernel.a(os_var.c.obj)
 .text.startup
                0x00000360       0x10 libucos3_kernel.a(os_core.c.obj)
 .text          0x00000370       0x80 librtb_port_ucos3.a(sync.c.obj)
"""


def test_the_kernel_sections_come_from_its_library_only() -> None:
    ranges = size.library_ranges(MAP, "libucos3_kernel.a")
    assert ranges == [(0x140, 0x360, "os_sem.c.obj"), (0x360, 0x370, "os_core.c.obj")]
    assert size.library_ranges(MAP, "libfreertos_kernel.a") == []


def _result(tmp_path: Path, name: str, text: int, kernel: int, functions: dict[str, int]) -> Path:
    code_size = {
        "image": {"text": text, "data": 96, "bss": 4096},
        "kernel_text": kernel,
        "kernel_functions": functions,
    }
    return synth.write_result(
        tmp_path / name,
        {("sem.wait.block", "acquire", "SEM-P-ARC"): [1000, 1010, 1020] * 50},
        run={
            "target_info": {"kind": "qemu", "spec": "qemu:ucos3-mps2-an385", "code_size": code_size}
        },
    )


def test_compare_shows_each_image_and_its_difference(tmp_path: Path) -> None:
    a = _result(tmp_path, "a", 300_000, 10_000, {"xQueueSemaphoreTake": 400, "vListInsert": 80})
    b = _result(tmp_path, "b", 300_512, 10_512, {"xQueueSemaphoreTake": 912, "vListInsert": 80})
    systems = model.load_systems([a, b])
    lines = codesize.lines(systems)
    assert lines[0].startswith("Code size of A: text 300,000 B, data 96 B, bss 4,096 B")
    assert "(text +512 B, +0.2%, kernel code +512 B, +5.1% against A)" in lines[1]
    assert "kernel functions: xQueueSemaphoreTake +512 B" in lines[1]
    assert "vListInsert" not in lines[1]
    comparison = model.build(systems)
    assert lines[1] in comparison.notes


def test_no_code_size_line_without_firmware(tmp_path: Path) -> None:
    metrics: dict[tuple[str, str, str | None], list[int]] = {
        ("sem.wait.block", "acquire", "SEM-P-ARC"): [1000, 1010] * 50
    }
    a = synth.write_result(tmp_path / "a", metrics)
    b = synth.write_result(tmp_path / "b", metrics)
    assert codesize.lines(model.load_systems([a, b])) == []


def test_a_real_image_names_its_kernel_functions() -> None:
    why = fw_target.ready(FREERTOS)
    if why is not None:
        pytest.skip(why)
    image = fw_image.ensure_image(ROOT, FREERTOS, "mps2-an385", lambda _text: None)
    measured = size.measure(image.path, "libfreertos_kernel.a")
    assert measured["image"]["text"] > measured["kernel_text"] > 1000
    functions = measured["kernel_functions"]
    assert functions["xQueueSemaphoreTake"] > 0 and functions["xTaskIncrementTick"] > 0
    assert "rtb_main" not in functions  # rtbench's own code is not the kernel's
    assert sum(functions.values()) <= measured["kernel_text"]


def test_compare_names_the_kernel_files_that_differ(tmp_path: Path) -> None:
    def kernel(files: dict[str, str]) -> dict[str, object]:
        return {"kernel": {"system": "FreeRTOS", "checkout": {"tag": "V11.1.0", "files": files}}}

    same, other = "a" * 64, "b" * 64
    metrics: dict[tuple[str, str, str | None], list[int]] = {
        ("sem.wait.block", "acquire", "SEM-P-ARC"): [1000, 1010] * 50
    }
    a = synth.write_result(
        tmp_path / "a", metrics, host=kernel({"tasks.c": same, "queue.c": same, "old.c": same})
    )
    b = synth.write_result(
        tmp_path / "b", metrics, host=kernel({"tasks.c": same, "queue.c": other, "new.c": same})
    )
    warnings = configuration.configuration_warnings(model.load_systems([a, b]))
    assert (
        "kernel files that differ between A and B: new.c (only B), old.c (only A), queue.c."
        in warnings
    )
    assert not any("checkout.files" in w for w in warnings)
