# SPDX-License-Identifier: Apache-2.0
"""Reading QEMU's execution log back into code paths (rtbench.trace.codepath.exec_log,
symbols, path_hook's summaries) and the monitor client, on small logs written
here: no emulator needed."""

import socket
import struct
import threading
from pathlib import Path
from typing import Any

import pytest

from conftest import run_with_untraceable_kind
from rtbench.targets.qemu.monitor import Monitor, MonitorError
from rtbench.trace.codepath import exec_log
from rtbench.trace.codepath import render as path_render
from rtbench.trace.codepath.critical import CriticalSections
from rtbench.trace.codepath.critical import text as critical_text
from rtbench.trace.codepath.hook import _sample as hook_sample
from rtbench.trace.codepath.hook import pick_typical, summarise, worst_line
from rtbench.trace.codepath.symbols import Symbols, vector_words

READS = exec_log.CounterReads("cmsdk_apb_dualtimer_read", 0x4, 32, inverted=True)
NM = """\
00000000 000000c0 t vectors
00000100 00000020 T take
00000120 00000010 T enter_critical
00000130 00000010 T exit_critical
00000140 00000040 T tick_handler
00000180 00000004 T no_size_here
00000200 r rodata_without_size
"""


def _symbols() -> Symbols:
    return Symbols.parse(NM, None, "vectors")  # the table is data, not a function


def _listing(*addrs: int) -> list[str]:
    return ["----------------", "IN: f", *[f"0x{a:08x}:  bf00       nop" for a in addrs], ""]


def _tb(pc: int, cflags: int = 0xFF020200) -> str:
    return f"Trace 0: 0x7f0000001000 [00800400/{pc:08x}/00000110/{cflags:08x}] f"


def _read(counter: int) -> str:
    raw = ~counter & 0xFFFFFFFF
    return f"cmsdk_apb_dualtimer_read CMSDK APB dualtimer read: offset 0x4 data 0x{raw:x} size 4"


def _log() -> list[str]:
    """take() called between readings 1000 and 1100: enters enter/exit critical twice
    (once interrupted by the tick handler), with one block stopped before it ran and
    one rewound at a device access."""
    lines: list[str] = []
    lines += _listing(0x100, 0x102, 0x104)  # take: 3 instructions
    lines += _listing(0x120, 0x122)  # enter_critical: 2
    lines += _listing(0x130, 0x132, 0x134, 0x136)  # exit_critical: 4
    lines += _listing(0x140)  # tick_handler: 1
    lines += _listing(0x106, 0x108)  # back in take: 2
    lines += [_tb(0x200), _read(999)]  # a reading of no kept sample
    lines += [_tb(0x200), _read(1000)]  # the start reading
    lines += [_tb(0x100), _tb(0x120), _tb(0x130)]  # 3 + 2 + 4
    lines += [_tb(0x140), "Stopped execution of TB chain before 0x7f0000001000 [00000140] f"]
    lines += [_tb(0x120), _tb(0x140)]  # 2 + 1: the tick now runs
    lines += [_tb(0x130), "cpu_io_recompile: rewound execution of TB to 00000134"]  # 2 of 4
    lines += [_tb(0x134, 0xFF038201)]  # the one device access: 1 (count in cflags)
    lines += [_tb(0x106), _read(1100)]  # 2, then the stop reading
    lines += [_tb(0x100), _tb(0x120)]  # after the window: not counted
    return [line + "\n" for line in lines]


def _scan(windows: list[exec_log.Window]) -> int:
    return exec_log.scan(_log(), READS, windows, exec_log.Translations())


def test_a_window_counts_the_blocks_between_its_readings() -> None:
    w = exec_log.Window("s", 1000, 1100)
    assert _scan([w]) == 3  # every reading of the counter's register
    assert w.opened and w.closed
    p = exec_log.analyse(w, _symbols())
    # 3 + 2 + 4 + (stopped: 0) + 2 + 1 + 2 (rewound) + 1 (count) + 2
    assert p.instructions == 17
    assert p.calls == {"take": 1, "enter_critical": 2, "exit_critical": 2, "tick_handler": 1}
    assert p.sequence == (
        "take", "enter_critical", "exit_critical", "enter_critical", "tick_handler",
        "exit_critical",
    )  # fmt: skip
    assert p.by_function == {"take": 5, "enter_critical": 4, "exit_critical": 7, "tick_handler": 1}
    assert p.unknown_blocks == 0


def test_inline_masks_are_counted_from_the_executed_instructions() -> None:
    # a kernel that masks inline (ThreadX's TX_DISABLE): `cpsid i` in the blocks
    # that ran, only the instructions that ran of a rewound block
    def insn(a: int, text: str = "nop") -> str:
        return f"0x{a:08x}:  bf00       {text}"

    lines = ["IN: take", insn(0x100), insn(0x102, "cpsid    i"), insn(0x104), ""]
    lines += ["IN: exit_critical", insn(0x130), insn(0x132, "cpsid    i"), insn(0x134)]
    lines += [insn(0x136, "cpsid    i"), ""]
    lines += [_tb(0x200), _read(1000)]
    lines += [_tb(0x100)]  # 1 mask
    lines += [_tb(0x130), "cpu_io_recompile: rewound execution of TB to 00000134"]  # 1 of 2
    lines += [_tb(0x130), _read(1100)]  # 2
    w = exec_log.Window(("r", "median", 0, {}), 1000, 1100)
    translations = exec_log.Translations()
    exec_log.scan([line + "\n" for line in lines], READS, [w], translations)
    p = exec_log.analyse(w, _symbols(), translations)
    assert p.masks == {"take": 1, "exit_critical": 3}
    assert exec_log.analyse(w, _symbols()).masks == {}  # no translations, nothing claimed
    table = CriticalSections(enter=(), exit=(), masking=("exit_",))
    assert table.describe()["masking"] == ["exit_"]
    kept = {"index": 4, "value": 100}
    found = hook_sample(w, "median", 0, kept, _symbols(), table, translations)
    # only the functions the table names: take's mask is not the kernel's
    assert found["critical_sections"] == {
        "entries": 3,
        "calls": 0,
        "by_function": {"exit_critical": 3},
    }


def test_readings_not_in_the_log_find_nothing() -> None:
    # negative controls: a sample whose start, or stop, reading never happened
    never = exec_log.Window("never", 5, 1100)
    unclosed = exec_log.Window("unclosed", 1000, 77)
    _scan([never, unclosed])
    assert not never.opened and not never.closed and never.blocks == []
    assert unclosed.opened and not unclosed.closed


def test_two_windows_may_share_a_reading() -> None:
    first, second = exec_log.Window("a", 999, 1000), exec_log.Window("b", 1000, 1100)
    _scan([first, second])
    assert first.closed and second.closed
    assert exec_log.analyse(first, _symbols()).instructions == 0  # the block was before it
    assert exec_log.analyse(second, _symbols()).instructions == 17


def test_a_block_never_translated_in_the_log_is_counted_as_unknown() -> None:
    w = exec_log.Window("s", 1, 2)
    lines = [_read(1) + "\n", _tb(0x300) + "\n", _read(2) + "\n"]
    exec_log.scan(lines, READS, [w], exec_log.Translations())
    p = exec_log.analyse(w, _symbols())
    assert (p.instructions, p.unknown_blocks, p.blocks) == (0, 1, 1)


def test_counter_values_follow_the_register() -> None:
    assert READS.value(0xFFFFFFFF) == 0
    assert READS.value(0xFFFFFFFE) == 1
    up = exec_log.CounterReads("e", 0, 16, inverted=False)
    assert up.value(0x12345) == 0x2345


def test_symbols_name_functions_and_skip_what_is_not_one() -> None:
    s = _symbols()
    assert s.names == ("take", "enter_critical", "exit_critical", "tick_handler", "no_size_here")
    assert s.name_at(0x104) == "take" and s.entered(0x100) == "take"
    assert s.entered(0x104) is None
    assert s.name_at(0x190).startswith("0x")  # past every function's end
    thumb = Symbols.parse("00000101 00000010 T f\n")
    assert thumb.starts == (0x100,)


def test_functions_an_assembler_gave_no_size_run_to_the_next_symbol() -> None:
    # uC/CPU's cpu_a.s and a PendSV handler in assembly have no .size; a literal
    # pool's label inside a sized C function is not a function of its own
    nm = """\
00000100 00000020 T naked_handler
00000118 t pool_label
00000120 T CPU_SR_Save
0000013c T CPU_SR_Restore
0000014e T OSCtxSw
0000014e T OSIntCtxSw
00000158 00000010 T sized_after
00000170 d data_after
"""
    s = Symbols.parse(nm)
    assert s.name_at(0x11A) == "naked_handler"  # the label is inside it
    assert s.entered(0x120) == "CPU_SR_Save" and s.name_at(0x13A) == "CPU_SR_Save"
    assert s.entered(0x13C) == "CPU_SR_Restore" and s.name_at(0x14C) == "CPU_SR_Restore"
    assert s.entered(0x14E) == "OSCtxSw"  # one name for two aliases
    assert s.name_at(0x156) == "OSCtxSw" and s.entered(0x158) == "sized_after"
    assert "pool_label" not in s.names


def test_a_sample_counts_its_critical_sections_from_the_rtos_table() -> None:
    w = exec_log.Window(("r", "median", 0, {}), 1000, 1100)
    _scan([w])
    table = CriticalSections(
        enter=("enter_critical",), exit=("exit_critical",), inline=("tick_handler",)
    )
    kept = {"index": 4, "value": 100}
    found = hook_sample(w, "median", 0, kept, _symbols(), table)
    # two calls of enter_critical and one entry of a handler masking inline
    assert found["critical_sections"] == {
        "entries": 3,
        "calls": 4,
        "by_function": {"enter_critical": 2, "exit_critical": 2, "tick_handler": 1},
    }
    assert critical_text(found["critical_sections"]) == (
        "3 critical sections (enter_critical x2, exit_critical x2, tick_handler x1)"
    )
    # an RTOS without a table: nothing is claimed
    assert "critical_sections" not in hook_sample(w, "median", 0, kept, _symbols())
    assert critical_text(None) == ""


def test_the_vector_table_names_the_handlers(tmp_path: Path) -> None:
    # a minimal 32-bit little-endian ELF: one PT_LOAD at vaddr 0 holding 4 words
    words = [0x20001000, 0x00000101, 0x00000141, 0x00000000]
    payload = struct.pack("<4I", *words)
    header = bytearray(52)
    header[:6] = b"\x7fELF\x01\x01"
    struct.pack_into("<I", header, 28, 52)  # e_phoff
    struct.pack_into("<HH", header, 42, 32, 1)  # e_phentsize, e_phnum
    ph = struct.pack("<8I", 1, 84, 0, 0, len(payload), len(payload), 5, 4)
    elf = tmp_path / "image.elf"
    elf.write_bytes(bytes(header) + ph + payload)
    assert vector_words(elf, 0, 16) == words
    s = Symbols.parse(NM.replace("000000c0 t vectors", "00000010 t vectors"), elf, "vectors")
    assert s.handlers == frozenset({"take", "tick_handler"})
    assert vector_words(elf, 0x1000, 16) == []  # not in the file


def _sample(kind: str, rank: int, value: int, calls: dict[str, int], insns: int) -> dict[str, Any]:
    return {
        "kind": kind, "rank": rank, "index": rank, "value": value, "found": True,
        "instructions": insns, "calls": calls, "sequence": list(calls),
        "instructions_by_function": {"take": insns}, "handlers": [],
    }  # fmt: skip


def test_the_typical_sample_takes_the_path_most_median_samples_took() -> None:
    common = {"take": 1, "enter_critical": 7}
    ticked = {"take": 1, "enter_critical": 7, "tick_handler": 1}
    found = [
        _sample("median", 0, 500, ticked, 600),  # nearest the median, but ticked
        _sample("median", 1, 380, common, 490),
        _sample("median", 2, 390, common, 495),
    ]
    assert pick_typical(found, 510) is found[2]
    assert pick_typical([], 510) is None


def test_the_worst_line_says_what_it_ran_beyond_the_typical_path() -> None:
    typical = _sample("median", 0, 380, {"take": 1, "enter_critical": 7}, 490)
    worst = _sample("worst", 0, 900, {"take": 1, "enter_critical": 7, "tick_handler": 1}, 1100)
    worst["handlers"] = ["tick_handler"]
    worst["instructions_by_function"] = {"take": 1050, "tick_handler": 50}
    line = worst_line(worst, typical, "ticks")
    assert "1,100 instructions (+610 on the typical path)" in line
    assert "tick_handler x1" in line and "longer in take +560" in line
    assert line.endswith("interrupted by tick_handler")
    same = worst_line(typical, typical, "ticks")
    assert same.endswith("the typical path")


def test_summarise_says_when_nothing_was_found() -> None:
    record = {"unit": "ticks", "stats": {"p50": 3}}
    lost = {"kind": "worst", "rank": 0, "index": 1, "value": 9, "found": False}
    out = summarise(record, [lost], "trace/x.json", None)
    assert out["found"] == 0 and out["typical"] is None
    assert out["line"] == "no kept sample was found in the execution log"


class _FakeHmp:
    """A Unix socket that answers like QEMU's monitor: banner, echo, prompt."""

    def __init__(self, path: Path, answers: dict[str, str]) -> None:
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(path))
        self.server.listen(4)
        self.answers = answers
        self.got: list[str] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                conn.sendall(b"QEMU 7.2 monitor - type 'help' for more information\r\n(qemu) ")
                data = b""
                while not data.endswith(b"\n"):
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                line = data.decode().strip()
                self.got.append(line)
                echo = "".join(f"{line[:i]}\x1b[K\x1b[D" for i in range(1, len(line) + 1))
                answer = self.answers.get(line, "")
                conn.sendall(f"{echo}\r\n{answer}(qemu) ".encode())

    def close(self) -> None:
        self.server.close()


def test_the_monitor_runs_commands_and_reports_refusals(tmp_path: Path) -> None:
    sock = tmp_path / "m.sock"
    fake = _FakeHmp(sock, {"log bogus": "Invalid parameter 'bogus'\r\n"})
    try:
        monitor = Monitor(sock)
        monitor.require("log exec,nochain")
        assert monitor.command("log bogus") == "Invalid parameter 'bogus'"
        with pytest.raises(MonitorError, match="refused 'log bogus': Invalid parameter"):
            monitor.require("log bogus")
        assert fake.got[0] == "log exec,nochain"
    finally:
        fake.close()
    with pytest.raises(MonitorError, match="did not answer"):
        Monitor(tmp_path / "absent.sock").command("log none")


def test_trace_on_a_target_it_cannot_trace_is_refused_in_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _out, err = run_with_untraceable_kind(
        monkeypatch, capsys,
        "run", "--trace", "--target", "board:x", "--only", "sem.wait.block",
        "--out", str(tmp_path / "r"),
    )  # fmt: skip
    assert status == 2
    assert "--trace works on this machine" in err and "board:x" in err
    assert "Traceback" not in err and not (tmp_path / "r").exists()


def test_the_report_block_shows_both_paths_side_by_side() -> None:
    typical = _sample("median", 0, 380, {"take": 1, "enter_critical": 7}, 490)
    worst = _sample("worst", 0, 900, {"take": 1, "<tick>": 1}, 1100)
    worst["instructions_by_function"] = {"take": 1050, "<tick>": 50}
    record = {"unit": "ticks", "stats": {"p50": 380}}
    record["path"] = summarise(record, [typical, worst], "trace/x.json", 5)
    html = path_render.metric_html(record)
    assert "entries (worst)" in html and "&lt;tick&gt;" in html and "<tick>" not in html
    assert "1,100" in html and "take &gt; enter_critical" in html
    assert path_render.metric_html({"unit": "ticks"}) == ""  # untraced: nothing
