# SPDX-License-Identifier: Apache-2.0
"""Configuration variants of a firmware image from the command line
(`--target qemu:freertos-mps2-an385,config=KEY=VALUE;...`, targets.firmware.variant)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import RunCli
from rtbench.errors import UsageError
from rtbench.targets.firmware import target as fw_target
from rtbench.targets.firmware import variant
from rtbench.targets.firmware.rtoses import FREERTOS

WHY_NOT = fw_target.ready(FREERTOS)
SPEC = "qemu:freertos-mps2-an385"


def test_settings_are_parsed_in_order_and_checked() -> None:
    spec = f"{SPEC},icount=5,config=configUSE_TIME_SLICING=0;configTICK_RATE_HZ=500"
    rtos, board, icount, options, settings = fw_target.parse_spec(spec)
    assert (rtos.name, board.name, icount, options) == ("freertos", "mps2-an385", 5, ())
    assert settings == (("configUSE_TIME_SLICING", "0"), ("configTICK_RATE_HZ", "500"))
    for bad in ("config=configX", "config==1", "config=configX=1;configX=2", "config=a b=1"):
        with pytest.raises(UsageError):
            fw_target.parse_spec(f"{SPEC},{bad}")


def test_a_variant_folder_ends_with_its_settings(tmp_path: Path) -> None:
    base = tmp_path / "base"
    base.mkdir()
    (base / "FreeRTOSConfig.h").write_text("#define configTICK_RATE_HZ 1000\n")
    (base / "other.h").write_text("/* kept */\n")
    folder = variant.write_folder(FREERTOS, base, tmp_path / "v", [("configTICK_RATE_HZ", "500")])
    header = (folder / "FreeRTOSConfig.h").read_text()
    assert header.endswith("#undef configTICK_RATE_HZ\n#define configTICK_RATE_HZ 500\n")
    assert (folder / "other.h").read_text() == "/* kept */\n"
    stamp = (folder / "FreeRTOSConfig.h").stat().st_mtime_ns
    variant.write_folder(FREERTOS, base, tmp_path / "v", [("configTICK_RATE_HZ", "500")])
    assert (folder / "FreeRTOSConfig.h").stat().st_mtime_ns == stamp  # unchanged, not rewritten


@pytest.mark.skipif(WHY_NOT is not None, reason=str(WHY_NOT))
def test_an_unknown_setting_is_one_sentence(run_cli: RunCli, tmp_path: Path) -> None:
    done = run_cli(
        "run", "--target", f"{SPEC},config=configNO_SUCH_SETTING=1", "--only", "cal.timestamp",
        "--out", str(tmp_path / "r"),
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "FreeRTOS has no setting configNO_SUCH_SETTING" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()


@pytest.mark.skipif(WHY_NOT is not None, reason=str(WHY_NOT))
def test_two_configurations_in_one_run_are_compared_exactly(
    run_cli: RunCli, tmp_path: Path
) -> None:
    key = "configUSE_PORT_OPTIMISED_TASK_SELECTION"
    out = tmp_path / "both"
    done = run_cli(
        "run", "--deterministic", "--only", "thr.switch.yield",
        "--target", f"{SPEC},config={key}=0", "--target", f"{SPEC},config={key}=1",
        "--set", "iterations=500", "--out", str(out), timeout=1200,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    infos = []
    for folder in sorted(p for p in out.iterdir() if p.name != "comparison"):
        doc = json.loads((folder / "results.json").read_text())
        infos.append(doc["run"]["target_info"])
        assert doc["host"]["freertos"]["config"][key] in (0, 1)
    assert sorted(i["build_options"]["config"] for i in infos) == [f"{key}=0", f"{key}=1"]
    assert all(i["code_size"]["kernel_text"] > 0 for i in infos)
    markdown = (out / "comparison" / "comparison.md").read_text()
    assert "compared exactly" in markdown or "exactly" in markdown
    assert f"host freertos.config.{key} differs: A 0, B 1." in markdown
    assert "Code size of B:" in markdown and "against A" in markdown
