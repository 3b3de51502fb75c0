# SPDX-License-Identifier: Apache-2.0
"""Whose code a traced path ran (rtbench.trace.codepath.origin): a small linker
map, compile commands and execution log written here place every function by
its source file, split a sample's instructions into the kernel's, the port's
and the measurement's (the C runtime counted in its caller's share), and the
renderings show the split next to the total. No emulator needed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rtbench.compare import pathdiff, sidebyside
from rtbench.trace.codepath import exec_log, origin
from rtbench.trace.codepath import render as path_render
from rtbench.trace.codepath.hook import _sample as hook_sample
from rtbench.trace.codepath.hook import instructions_per_tick, summarise
from rtbench.trace.codepath.symbols import Symbols

PROJECT = Path("/src/rtbench")
KERNEL = Path("/deps/FreeRTOS-Kernel")
ROOTS = origin.Roots(PROJECT, KERNEL, "freertos")
READS = exec_log.CounterReads("cmsdk_apb_dualtimer_read", 0x4, 32, inverted=True)

# Two members named port.c.obj (the kernel's architecture port and rtbench's
# port) are told apart by their library; a long input-section name wraps; the
# debug sections at low addresses and the discarded ones are not code.
MAP = """\
Archive member included to satisfy reference by file (symbol)

libfreertos_kernel.a(queue.c.obj)
                              librtb_port_freertos.a(sync.c.obj) (xQueueSemaphoreTake)

Discarded input sections

 .text          0x00000000        0x0 librtb_port_freertos.a(sync.c.obj)
 .text.unused   0x00000000       0x40 libfreertos_kernel.a(queue.c.obj)

Memory Configuration

Linker script and memory map

LOAD CMakeFiles/rtb_scenarios_freertos.dir/core/scenarios/sem.c.obj

.text           0x00000000      0x400
 *(.vectors)
 .vectors       0x00000000       0x40 librtb_port_freertos.a(startup.c.obj)
 *(.text .text.*)
 .text          0x00000100       0x40 CMakeFiles/rtb_scenarios_freertos.dir/core/scenarios/sem.c.obj
                0x00000100                run_wait
 .text          0x00000140       0x20 librtb_port_freertos.a(sync.c.obj)
                0x00000140                rtb_port_sem_wait
 .text          0x00000160       0x20 librtb_port_freertos.a(port.c.obj)
 .text          0x00000180       0x40 libfreertos_kernel.a(queue.c.obj)
 .text          0x000001c0       0x40 libfreertos_kernel.a(port.c.obj)
 *fill*         0x00000200        0x4
 .text.a_rather_long_section_name_that_wraps
                0x00000210       0x10 librtb_port_freertos.a(fw_time.c.obj)
 .text.memcpy   0x00000220       0x20 /usr/lib/picolibc/arm-none-eabi/lib/libc.a(memcpy.c.o)
                0x00000220                memcpy
 .text          0x00000240       0x20 /opt/other/libvendor.a(blob.o)

.data           0x20000000       0x10 load address 0x00000400
 .data          0x20000000       0x10 libfreertos_kernel.a(queue.c.obj)

.debug_info     0x00000000     0x1000
 .debug_info    0x00000100      0x200 libfreertos_kernel.a(queue.c.obj)
.comment        0x00000000       0x26
"""

NM = """\
00000000 00000040 t vectors
00000100 00000040 T run_wait
00000140 00000020 T rtb_port_sem_wait
00000160 00000020 T vApplicationTickHook
00000180 00000040 T xQueueSemaphoreTake
000001c0 00000020 T vPortEnterCritical
000001e0 00000020 T xPortSysTickHandler
00000210 00000010 T rtb_time_now
00000220 00000020 T memcpy
00000240 00000020 T vendor_blob
"""


def _commands() -> list[dict[str, Any]]:
    def entry(obj: str, source: Path, style: str = "command") -> dict[str, Any]:
        out: dict[str, Any] = {"directory": "/build", "file": str(source)}
        if style == "command":
            out["command"] = f"arm-none-eabi-gcc -O3 -o {obj} -c {source}"
        else:
            out["arguments"] = ["arm-none-eabi-gcc", f"-o{obj}", "-c", str(source)]
        return out

    return [
        entry(
            "CMakeFiles/rtb_scenarios_freertos.dir/core/scenarios/sem.c.obj",
            PROJECT / "core/scenarios/sem.c",
        ),
        entry(
            "CMakeFiles/rtb_port_freertos.dir/ports/freertos/sync.c.obj",
            PROJECT / "ports/freertos/sync.c",
        ),
        entry(
            "CMakeFiles/rtb_port_freertos.dir/ports/freertos/port.c.obj",
            PROJECT / "ports/freertos/port.c",
        ),
        entry(
            "CMakeFiles/rtb_port_freertos.dir/ports/boards/mps2-an385/startup.c.obj",
            PROJECT / "ports/boards/mps2-an385/startup.c",
        ),
        entry(
            "CMakeFiles/rtb_port_freertos.dir/ports/arch/cortex-m/fw_time.c.obj",
            PROJECT / "ports/arch/cortex-m/fw_time.c",
            "arguments",
        ),
        entry(
            "CMakeFiles/freertos_kernel.dir/deps/FreeRTOS-Kernel/queue.c.obj", KERNEL / "queue.c"
        ),
        entry(
            "CMakeFiles/freertos_kernel.dir/deps/FreeRTOS-Kernel/portable/GCC/ARM_CM3/port.c.obj",
            KERNEL / "portable/GCC/ARM_CM3/port.c",
        ),
    ]


def _origins() -> tuple[Symbols, origin.Origins]:
    symbols = Symbols.parse(NM, None, "vectors")
    objects = origin.parse_compile_commands(_commands())
    return symbols, origin.Origins.build(symbols, origin.parse_map(MAP), objects, ROOTS)


def test_the_map_lists_the_code_sections_and_their_objects() -> None:
    sections = origin.parse_map(MAP)
    starts = [(s.start, s.end, s.obj) for s in sections]
    assert (0x210, 0x220, "librtb_port_freertos.a(fw_time.c.obj)") in starts  # wrapped name
    assert (0x20000000, 0x20000010, "libfreertos_kernel.a(queue.c.obj)") in starts
    # neither the discarded sections nor the debug ones (their addresses overlap code)
    assert [s.obj for s in sections if s.start < 0x100] == ["librtb_port_freertos.a(startup.c.obj)"]
    assert len(sections) == 10


def test_each_function_is_placed_by_its_source_file() -> None:
    _symbols, found = _origins()

    def of(name: str) -> tuple[str, str, bool]:
        o = found.of_name(name)
        assert o is not None, name
        return o.share, o.source, o.wrapper

    assert of("run_wait") == ("measurement", "core/scenarios/sem.c", False)
    assert of("rtb_port_sem_wait") == ("port", "ports/freertos/sync.c", True)
    # named like a kernel hook, compiled from rtbench's port: the port's
    assert of("vApplicationTickHook") == ("port", "ports/freertos/port.c", True)
    assert of("rtb_time_now") == ("port", "ports/arch/cortex-m/fw_time.c", False)
    assert of("xQueueSemaphoreTake") == ("kernel", str(KERNEL / "queue.c"), False)
    # the kernel's own architecture port is the kernel's, though its member is port.c.obj too
    assert of("vPortEnterCritical") == (
        "kernel",
        str(KERNEL / "portable/GCC/ARM_CM3/port.c"),
        False,
    )
    assert of("memcpy") == ("runtime", "libc.a(memcpy.c.o)", False)
    assert of("vendor_blob")[0] == "unattributed"  # a library the build did not make


def test_a_library_member_the_compile_commands_name_is_placed_by_its_source() -> None:
    """An image built by the RTOS's own make (NuttX): its compile commands name
    each library member as the map does, `<library>(<member>)`, and that wins
    over the C runtime rule, since the RTOS's own libc.a is the kernel's."""
    nuttx = Path("/deps/nuttx")
    staging = "/build/nuttx/staging"
    text = (
        "Linker script and memory map\n\n"
        f" .text.sem_wait 0x00000100 0x20 {staging}/libc.a(sem_wait.o)\n"
        f" .text.nxsem_wait 0x00000120 0x20 {staging}/libsched.a(sem_wait.o)\n"
        f" .text.rtb_port_sem_wait 0x00000140 0x20 {staging}/libapps.a(ports_posix_sync.o)\n"
    )
    nm = (
        "00000100 00000020 T sem_wait\n"
        "00000120 00000020 T nxsem_wait\n"
        "00000140 00000020 T rtb_port_sem_wait\n"
    )
    commands = [
        {"directory": "/build/nuttx", "file": str(source), "output": f"{staging}/{member}"}
        for source, member in (
            (nuttx / "libs/libc/semaphore/sem_wait.c", "libc.a(sem_wait.o)"),
            (nuttx / "sched/semaphore/sem_wait.c", "libsched.a(sem_wait.o)"),
            (PROJECT / "ports/posix/sync.c", "libapps.a(ports_posix_sync.o)"),
        )
    ]
    symbols = Symbols.parse(nm, None, "vectors")
    roots = origin.Roots(PROJECT, nuttx, "nuttx")
    objects = origin.parse_compile_commands(commands)
    found = origin.Origins.build(symbols, origin.parse_map(text), objects, roots)

    def share(name: str) -> str | None:
        o = found.of_name(name)
        return o.share if o is not None else None

    assert [share(n) for n in ("sem_wait", "nxsem_wait")] == ["kernel", "kernel"]
    # the POSIX port's file the NuttX port builds: the port's wrapper
    wrapper = found.of_name("rtb_port_sem_wait")
    assert wrapper is not None and (wrapper.share, wrapper.wrapper) == ("port", True)


def test_without_the_rtos_sources_nothing_is_the_kernels() -> None:
    symbols = Symbols.parse(NM, None, "vectors")
    roots = origin.Roots(PROJECT, None, "freertos")
    objects = origin.parse_compile_commands(_commands())
    found = origin.Origins.build(symbols, origin.parse_map(MAP), objects, roots)
    kernel = found.of_name("xQueueSemaphoreTake")
    assert kernel is not None and kernel.share == "unattributed"


def _tb(pc: int) -> str:
    return f"Trace 0: 0x7f0000001000 [00800400/{pc:08x}/00000110/ff020200] f"


def _read(counter: int) -> str:
    raw = ~counter & 0xFFFFFFFF
    return f"cmsdk_apb_dualtimer_read CMSDK APB dualtimer read: offset 0x4 data 0x{raw:x} size 4"


def _listing(*addrs: int) -> list[str]:
    return ["----------------", "IN: f", *[f"0x{a:08x}:  bf00       nop" for a in addrs], ""]


def _window() -> tuple[exec_log.Window, exec_log.Translations]:
    """run_wait calls memcpy, then the port's wrapper, which enters the kernel, which
    calls memcpy; the tick interrupts that memcpy and it goes on after the return."""
    lines: list[str] = []
    lines += _listing(0x100, 0x102, 0x104)  # run_wait: 3
    lines += _listing(0x106, 0x108)  # run_wait again (after a call): 2
    lines += _listing(0x220, 0x222, 0x224, 0x226)  # memcpy: 4
    lines += _listing(0x228, 0x22A)  # memcpy's rest: 2
    lines += _listing(0x140, 0x142)  # rtb_port_sem_wait: 2
    lines += _listing(0x180, 0x182, 0x184)  # xQueueSemaphoreTake: 3
    lines += _listing(0x1E0, 0x1E2, 0x1E4, 0x1E6, 0x1E8)  # xPortSysTickHandler: 5
    lines += [_tb(0x100), _read(500)]  # the start reading
    lines += [_tb(0x106)]  # 2 measurement
    lines += [_tb(0x220)]  # memcpy from run_wait: the measurement's (4)
    lines += [_tb(0x140)]  # 2 port
    lines += [_tb(0x180)]  # 3 kernel
    lines += [_tb(0x220)]  # memcpy from the kernel: 4 kernel
    lines += [_tb(0x1E0)]  # tick: 5 kernel
    lines += [_tb(0x228)]  # memcpy goes on (no entry): 2, still the kernel's
    lines += [_tb(0x140)]  # 2 port
    lines += [_tb(0x220)]  # memcpy from the port: 4 port
    lines += [_tb(0x106), _read(600)]  # 2 measurement, the stop reading
    window = exec_log.Window("s", 500, 600)
    translations = exec_log.Translations()
    exec_log.scan([line + "\n" for line in lines], READS, [window], translations)
    assert window.closed
    return window, translations


def test_a_path_is_split_by_whose_code_ran() -> None:
    symbols, found = _origins()
    window, translations = _window()
    parts = origin.split(window.blocks, symbols, found)
    path = exec_log.analyse(window, symbols, translations)
    assert parts.shares == {"kernel": 14, "port": 8, "measurement": 8}
    assert sum(parts.shares.values()) == path.instructions == 30
    # memcpy went three ways: each call in its caller's share
    assert parts.libc == {"memcpy": {"measurement": 4, "kernel": 6, "port": 4}}
    assert parts.wrappers == {"rtb_port_sem_wait": 4}


def test_runtime_code_without_a_seen_entry_is_not_guessed() -> None:
    symbols, found = _origins()
    parts = origin.split([[0x228, 2], [0x100, 3]], symbols, found)
    assert parts.shares == {"kernel": 0, "port": 0, "measurement": 3, "unattributed": 2}


def _record() -> dict[str, Any]:
    return {
        "scenario": "sem.wait.available",
        "metric": "wait",
        "unit": "ticks",
        "overhead_ticks": 10,
        "stats": {"p50": 14},
    }


def _samples() -> list[dict[str, Any]]:
    symbols, found = _origins()
    window, translations = _window()
    kept = {"index": 3, "value": 14}
    return [
        hook_sample(window, kind, 0, kept, symbols, None, translations, found)
        for kind in ("median", "worst")
    ]


def test_an_instruction_is_a_tick_times_1_25_at_25_mhz_under_shift_5() -> None:
    # 40 ns a tick, 32 ns an instruction
    assert instructions_per_tick(5, 25_000_000) == 1.25
    assert instructions_per_tick(None, 25_000_000) is None


def test_the_measurement_is_set_beside_the_subtracted_overhead() -> None:
    path = summarise(_record(), _samples(), "trace/x.paths.json", 5, 25_000_000)
    over = path["overhead"]
    assert over["measurement_instructions"] == 8
    assert over["overhead_instructions"] == 12.5 and over["overhead_ticks"] == 10
    assert over["line"] == (
        "measurement: 8 instructions, subtracted overhead: 12.5 instructions "
        "(10 ticks x 1.25); 4.5 fewer measured than subtracted"
    )
    assert "30 instructions (kernel 14, port 8, measurement 8)" in path["line"]
    calibration = summarise(
        {**_record(), "scenario": "cal.timestamp"}, _samples(), "f", 5, 25_000_000
    )
    assert calibration["overhead"]["subtracted"] is False
    assert "nothing subtracted" in calibration["overhead"]["line"]
    # without -icount the overhead stays in ticks
    untimed = summarise(_record(), _samples(), "f", None, 25_000_000)
    assert untimed["overhead"]["overhead_instructions"] is None
    assert "10 ticks (not instructions" in untimed["overhead"]["line"]


def test_details_and_markdown_show_the_split_and_old_paths_read_as_before() -> None:
    path = summarise(_record(), _samples(), "f", 5, 25_000_000)
    lines = path_render.split_lines(path)
    assert lines[0] == (
        "whose code (typical): kernel 14 (47 %), port 8 (27 %), measurement 8 (27 %) "
        "of 30 instructions"
    )
    assert path["overhead"]["line"] in lines
    assert "port wrappers: rtb_port_sem_wait 4" in lines
    assert (
        "C runtime, counted in its caller's share: memcpy 4 (measurement), memcpy 6 (kernel), "
        "memcpy 4 (port)" in lines
    )
    # a path recorded before the split (older results) has none of these lines
    old = json.loads(json.dumps(path))
    for sample in (old["typical"], old["worst"]):
        for key in ("shares", "libc", "port_wrappers"):
            del sample[key]
    del old["overhead"]
    assert path_render.split_lines(old) == []
    html = path_render.metric_html({"path": {**path, "whose_code": {"run_wait": "measurement"}}})
    assert "<th>code</th>" in html.replace(' class="num"', "")
    assert "measurement" in html and "subtracted overhead" in html
    assert "<th>code</th>" not in path_render.metric_html({"path": old})


def test_the_side_by_side_comparison_gives_the_kernels_share_and_the_ports() -> None:
    def side(letter: str, shares: dict[str, int] | None) -> sidebyside.SidePath:
        return sidebyside.SidePath(
            letter, f"OS {letter}", 41.0, "ticks", 64, 4, None, (), (), None, True,
            shares=shares,
            wrappers={"rtb_port_sem_wait": 8} if shares else None,
            overhead_line="measurement: 17 instructions" if shares else None,
        )  # fmt: skip

    a = side("A", {"kernel": 39, "port": 8, "measurement": 17})
    rows = {r[0]: r[1:] for r in sidebyside.summary_rows([a, side("B", None)])}
    assert rows["kernel's instructions"] == ["39 (61 %)", "not split"]
    assert rows["port's instructions"] == ["8 (12 %)", "not split"]
    assert rows["port wrappers"] == ["rtb_port_sem_wait 8", "not split"]
    assert a.head().startswith("A OS A: 64 instructions (kernel 39, port 8, measurement 17)")
    # two systems without the split: the table is as before
    old = sidebyside.summary_rows([side("A", None), side("B", None)])
    assert [r[0] for r in old][:3] == ["typical sample", "instructions", "function entries"]


def test_a_missing_map_or_compile_commands_is_said_in_one_sentence(tmp_path: Path) -> None:
    elf = tmp_path / "image.elf"
    elf.write_bytes(b"")
    symbols = Symbols.parse(NM, None, "vectors")
    with pytest.raises(origin.OriginError, match="no linker map beside the image"):
        origin.Origins.load(elf, symbols, ROOTS)
    (tmp_path / "image.map").write_text(MAP)
    with pytest.raises(origin.OriginError, match=r"compile_commands\.json"):
        origin.Origins.load(elf, symbols, ROOTS)
    (tmp_path / "compile_commands.json").write_text(json.dumps(_commands()))
    found = origin.Origins.load(elf, symbols, ROOTS)
    assert found.described["port_folder"] == "ports/freertos/"
    assert set(found.described["rules"]) >= {"kernel", "port", "measurement", "libc"}


def test_the_path_difference_of_one_rtos_says_which_share_changed() -> None:
    a = {"instructions": 64, "calls": {"f": 1}, "instructions_by_function": {"f": 64},
         "shares": {"kernel": 39, "port": 8, "measurement": 17}}  # fmt: skip
    b = {**a, "instructions": 70, "instructions_by_function": {"f": 70},
         "shares": {"kernel": 45, "port": 8, "measurement": 17}}  # fmt: skip
    diff = pathdiff.compare_samples("typical", a, b, "ticks", True)
    assert diff.head() == (
        "typical sample: 64 -> 70 instructions (+6, kernel +6, port +0, measurement +0; "
        "exact instruction counts)"
    )
    unsplit = {k: v for k, v in b.items() if k != "shares"}
    assert "kernel" not in pathdiff.compare_samples("typical", a, unsplit, "ticks", True).head()
