# SPDX-License-Identifier: Apache-2.0
"""A counter that is a CPU register (rtbench.trace.codepath.read_sites): its reads
found in an image's disassembly, and the samples' windows found in an execution
log by the blocks holding those reads and the register dumps after them, on
small listings and logs written here: no emulator needed. And the kernels'
critical sections on the Cortex-A7 board, which their ARMv7-A ports take
otherwise than on the Cortex-M3."""

from __future__ import annotations

from rtbench.targets.firmware.boards import BOARDS
from rtbench.targets.firmware.rtoses import FREERTOS, THREADX, UCOS3
from rtbench.trace.codepath import exec_log
from rtbench.trace.codepath.read_sites import CounterInstructions, ReadInstruction, ReadSites

READS = CounterInstructions(
    (
        ReadInstruction("mrrc (CNTVCT)", 0xFFF00FFF, 0xEC500F1E),
        ReadInstruction("mrc (PMXEVCNTR)", 0xFFFF0FFF, 0xEE190F5D),
    ),
    objdump="objdump",
)
OBJDUMP = """\
40110b18:	f57ff06f 	isb	sy
40110b1c:	ec501f1e 	mrrc	15, 1, r1, r0, cr14
40110b20:	ea000009 	b	40110b4c <f+0x30>
40110b2c:	ee191f5d 	mrc	15, 0, r1, cr9, cr13, {2}
40110b30:	1c501f1e 	mrrcne	15, 1, r1, r0, cr14
40110b34:	ee193f3d 	mrc	15, 0, r3, cr9, cr13, {1}
40110b38:	ec5cbf1e 	.word	0xec5cbf1e
40110b3c:	ec5cbf1e 	mrrc	15, 1, fp, ip, cr14
40110b40:	ec51 2f1e 	mrrc	15, 1, r2, r1, cr14
"""


def test_the_reads_are_found_by_their_encoding_with_their_register() -> None:
    sites = READS.parse(OBJDUMP)
    # not a conditional read, another PMU register, data, nor a Thumb encoding
    assert sites.registers == {0x40110B1C: 1, 0x40110B2C: 1, 0x40110B3C: 11}
    assert sites.bits == 32 and sites.describe() == {"read_sites": 3}


def test_the_cortex_a7_board_reads_its_counter_with_instructions() -> None:
    reads = BOARDS["virt-a7"].counter_reads
    assert isinstance(reads, CounterInstructions) and reads.log_items == "cpu"
    assert reads.parse(OBJDUMP).registers == READS.parse(OBJDUMP).registers


def _listing(*addrs: int) -> list[str]:
    return ["----------------", "IN: f", *[f"0x{a:08x}:  e1a00000  nop" for a in addrs], ""]


def _tb(pc: int, cflags: int = 0xFF020200) -> str:
    return f"Trace 0: 0x7f0000001000 [00000480/{pc:08x}/00000020/{cflags:08x}] f"


def _dump(r2: int = 0) -> list[str]:
    """QEMU's register dump (-d cpu), r2 holding `r2`."""
    return [
        f"R00=00000000 R01=00000001 R02={r2:08x} R03=00000003",
        "R04=00000004 R05=00000005 R06=00000006 R07=00000007",
        "R08=00000008 R09=00000009 R10=0000000a R11=0000000b",
        "R12=0000000c R13=4016f000 R14=40100000 R15=40100100",
        "PSR=600001d3 -ZC- A svc32",
    ]


SITES = ReadSites({0x300: 2, 0x404: 2}, 32)


def _log() -> list[str]:
    """A sample between the reads of 1000 and 1100 (r2 after the block at 0x300):
    3 + 2 instructions, a block stopped before it ran, and a read in the middle
    of a block (0x404, no -icount) counted to the block's end."""
    lines: list[str] = []
    lines += _listing(0x300)  # the read alone in its block (-icount)
    lines += _listing(0x100, 0x104, 0x108)
    lines += _listing(0x120, 0x124)
    lines += _listing(0x400, 0x404, 0x408)
    lines += [_tb(0x300), *_dump(7), _tb(0x120), *_dump(999)]  # a read of no kept sample
    lines += [_tb(0x300), *_dump(999), _tb(0x100), *_dump(1000)]  # the start read
    lines += [_tb(0x120), *_dump(1000)]  # 3 + 2
    lines += [_tb(0x300), *_dump(1000)]
    lines += ["Stopped execution of TB chain before 0x7f0000001000 [00000300] f"]  # not run
    lines += [_tb(0x120), *_dump(1000)]  # 2
    lines += [_tb(0x400), *_dump(1000), _tb(0x100), *_dump(1100)]  # 3, the stop read
    lines += [_tb(0x120), *_dump(1100)]  # after the window
    return [line + "\n" for line in lines]


def test_a_window_lies_between_the_blocks_holding_its_reads() -> None:
    w = exec_log.Window("s", 1000, 1100)
    other = exec_log.Window("o", 999, 1000)
    seen = exec_log.scan(_log(), SITES, [w, other], exec_log.Translations())
    assert seen == 3  # the reads that ran: the stopped block's did not
    assert w.opened and w.closed and other.closed
    assert w.blocks == [[0x100, 3], [0x120, 2], [0x120, 2], [0x400, 3]]
    assert other.blocks == [[0x120, 2], [0x300, 1]]


def test_a_read_whose_value_is_in_no_window_finds_nothing() -> None:
    w = exec_log.Window("s", 5, 6)
    assert exec_log.scan(_log(), SITES, [w], exec_log.Translations()) == 3
    assert not w.opened and not w.closed and w.blocks == []


def test_a_read_beyond_a_blocks_count_did_not_run() -> None:
    lines = [*_listing(0x400, 0x404, 0x408), *_listing(0x100)]
    # -icount limited the block to its first instruction: no read
    lines += [_tb(0x400, 0xFF020201), *_dump(1000), _tb(0x100), *_dump(1000)]
    w = exec_log.Window("s", 1000, 1100)
    text = [line + "\n" for line in lines]
    assert exec_log.scan(text, SITES, [w], exec_log.Translations()) == 0
    assert not w.opened


def test_the_cortex_a7_ports_have_their_own_critical_section_tables() -> None:
    ucos3 = UCOS3.critical_sections_for("virt-a7")
    assert ucos3 is not None and ucos3.masking == ("OS", "CPU_")
    assert UCOS3.critical_sections_for("mps2-an385") == UCOS3.critical_sections
    freertos = FREERTOS.critical_sections_for("virt-a7")
    assert freertos is not None and "FreeRTOS_Tick_Handler" in freertos.inline
    assert THREADX.critical_sections_for("virt-a7") == THREADX.critical_sections
    # uC-CPU's `cpsid if` masks as `cpsid i` does
    lines = ["IN: OSSemPend", "0x00000100:  e10f0000  mrs      r0, apsr"]
    lines += ["0x00000104:  f10c00c0  cpsid    if", "0x00000108:  e12fff1e  bx       lr", ""]
    lines += [*_listing(0x300), _tb(0x300), *_dump(7), _tb(0x100), *_dump(1000)]
    lines += [_tb(0x300), *_dump(1000), _tb(0x120), *_dump(1100)]
    w = exec_log.Window("s", 1000, 1100)
    translations = exec_log.Translations()
    exec_log.scan([line + "\n" for line in lines], SITES, [w], translations)
    assert translations.masked(0x100, 3) == 1 and w.closed
    assert ucos3.count({"OSSemPend": 1}, {"OSSemPend": 1})["entries"] == 1
