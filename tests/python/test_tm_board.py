# SPDX-License-Identifier: Apache-2.0
"""Thread-Metric's interrupt and memory tests on the emulated board use the RTOS's
own idiom, as the original does, and their results say so.

- `tm.irq` and `tm.irq_preempt` raise the interrupt from software (a spare NVIC
  line set pending, param `interrupt`: "software-pended interrupt"), not by
  stopping and restarting a board timer. Under `--deterministic` (-icount
  shift=5: 2^5 ns an instruction) a rate is an instruction count, the same on any
  machine: 31.25 M / ops_per_s instructions a hand-off. The timer's restart alone
  costs 74 instructions (`rtb_port_irq_fire`, `board_timer_start`,
  `board_timer_stop`); each bound below lies between the software path and the
  software path plus those 74, so a hand-off that still went through the timer is
  caught (the timer path measured 245, 276 and 392 instructions on ThreadX,
  FreeRTOS and uC/OS-III; the software path 105, 152 and 261, and 63, 112 and
  225 since the raise and the take are inline where the port can, and the
  software line's handler is in the vector table).
- `tm.mem` takes its blocks from the RTOS's fixed-block pool where it has one
  (param `allocator`: "block pool", ThreadX and uC/OS-III: 59 and 107
  instructions, against 129 and 149 through the general allocator), and says the
  pool is emulated over the heap on FreeRTOS, which has none.

One run of `tm.*` with 100 ms periods per RTOS; skipped, with the sentence
`rtbench targets` gives, when an RTOS's sources, the ARM toolchain, picolibc or
qemu-system-arm are missing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from board_runs import result_records, run_ok
from conftest import RunCli, read_results
from rtbench.targets.firmware import target as fw_target
from rtbench.targets.firmware.rtoses import FREERTOS, THREADX, UCOS3, Rtos

INSTRUCTIONS_PER_S = 1e9 / (1 << 5)  # -icount shift=5
# rtos, tm.mem's allocator, the most instructions a tm.irq hand-off may take on
# the software path, the most a tm.mem operation may take (None: not bounded)
CASES = [
    pytest.param(THREADX, "block pool", 100, 90, id="threadx"),
    pytest.param(FREERTOS, "emulated pool", 150, None, id="freertos"),
    pytest.param(UCOS3, "block pool", 260, 125, id="ucos3"),
]
pytestmark = pytest.mark.slow


def _instructions(record: dict[str, Any]) -> float:
    return INSTRUCTIONS_PER_S / float(record["stats"]["mean"])


@pytest.mark.parametrize(("rtos", "allocator", "irq_max", "mem_max"), CASES)
def test_thread_metric_uses_the_rtos_idiom(
    run_cli: RunCli,
    tmp_path: Path,
    rtos: Rtos,
    allocator: str,
    irq_max: int,
    mem_max: int | None,
) -> None:
    why_not = fw_target.ready(rtos)
    if why_not is not None:
        pytest.skip(why_not)
    out = tmp_path / rtos.name
    run_ok(
        run_cli, out, "run", "--target", f"qemu:{rtos.name}-mps2-an385", "--deterministic",
        "--only", "tm.*", "--set", "period_ms=100", "--set", "periods=1", timeout=900,
    )  # fmt: skip
    data = read_results(out)
    found = result_records(data)
    irq, irqp, mem = (found[(t, "throughput")] for t in ("tm.irq", "tm.irq_preempt", "tm.mem"))
    assert irq["params"]["interrupt"] == "software-pended interrupt", irq["params"]
    assert irqp["params"]["interrupt"] == "software-pended interrupt", irqp["params"]
    assert mem["params"]["allocator"] == allocator, mem["params"]
    assert _instructions(irq) < irq_max, (rtos.name, _instructions(irq))
    if mem_max is not None:
        assert _instructions(mem) < mem_max, (rtos.name, _instructions(mem))
    caps = next(s["meta"]["caps"] for s in data["scenarios"] if s.get("meta"))
    assert ("mem_pool" in caps) == (allocator == "block pool"), caps
    logs = [r["message"] for s in data["scenarios"] for r in s["records"] if r.get("type") == "log"]
    assert any("fire it with delay 0: the firing thread sets pending" in m for m in logs), logs
