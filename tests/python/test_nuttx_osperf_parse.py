# SPDX-License-Identifier: Apache-2.0
"""bench/nuttx-osperf's pure parts: reading osperf's table, its unit, and the
configuration it adds to rtbench's NuttX defconfig (no build, no boot)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]

# osperf's output on virt-a7 under -icount shift=5 (rtbench's NuttX configuration)
SAMPLE = """\
OS performance args: count:100, detail:false\r
==============================================================\r
Describe                                Max        Min        Avg\r
pthread-create                      2253824    2025984    2050979\r
pthread-switch                       146432     146432     146432\r
context-switch                       313344      99840     101975\r
hpwork                               489472     266240     270704\r
poll-write                          1569280    1355776    1370721\r
pipe-rw                              263168     263168     263168\r
semwait                               67584      67584      67584\r
sempost                               25088      25088      25088\r
"""


@pytest.fixture(scope="module")
def osperf() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader(
        "nuttx_osperf", str(ROOT / "bench" / "nuttx-osperf")
    )
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[loader.name] = module  # dataclasses look their module up
    loader.exec_module(module)
    return module


def test_parse_reads_every_row(osperf: ModuleType) -> None:
    table = osperf.parse(SAMPLE)
    assert list(table) == list(osperf.NAMES)
    assert table["pthread-create"] == (2253824, 2025984, 2050979)
    assert table["sempost"] == (25088, 25088, 25088)


def test_parse_skips_the_header_and_a_partial_table(osperf: ModuleType) -> None:
    partial = SAMPLE.split("hpwork", maxsplit=1)[0]
    assert list(osperf.parse(partial)) == ["pthread-create", "pthread-switch", "context-switch"]


def test_unit_is_512_per_instruction_at_shift_5(osperf: ModuleType) -> None:
    assert osperf.UNITS_PER_INSN == 512
    # single-run figures are whole instructions
    for _, low, _ in osperf.parse(SAMPLE).values():
        assert low % 512 == 0


def test_defconfig_adds_only_what_osperf_needs(osperf: ModuleType) -> None:
    base = 'CONFIG_ARCH="arm"\nCONFIG_INIT_ENTRYPOINT="rtbench_main"\n'
    text = osperf.defconfig(base)
    assert 'CONFIG_INIT_ENTRYPOINT="osperf_main"' in text
    assert "rtbench_main" not in text
    assert 'CONFIG_ARCH="arm"' in text
    for key in ("CONFIG_PIPES", "CONFIG_SCHED_HPWORK", "CONFIG_ARCH_PERF_EVENTS",
                "CONFIG_BENCHMARK_OSPERF"):  # fmt: skip
        assert f"{key}=y" in text
