# SPDX-License-Identifier: Apache-2.0
"""`serial:DEVICE,image=PATH`: the ELF flashed on the board is named, so the results
record its digest, its code size and the RTOS sources it was built from, as they do
for an image rtbench builds; and what is said when they cannot be known."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import RunCli
from rtbench.errors import UsageError
from rtbench.model.results import RESULTS_FILE
from rtbench.targets.firmware import image as fw_image
from rtbench.targets.firmware.rtoses import FREERTOS
from rtbench.targets.firmware.serial import parse_spec
from target_kinds import refusal
from test_serial_target import image as image  # noqa: PLC0414 (the module's fixtures)
from test_serial_target import pty_board as pty_board  # noqa: PLC0414


def test_image_option_is_parsed_and_a_missing_file_refused(tmp_path: Path) -> None:
    elf = tmp_path / "fw.elf"
    elf.write_bytes(b"\x7fELF")
    assert parse_spec(f"serial:/dev/ttyACM0,image={elf},baud=921600") == (
        "/dev/ttyACM0",
        921600,
        elf,
    )
    assert parse_spec("serial:/dev/ttyACM0")[2] is None
    with pytest.raises(UsageError, match="is not a file"):
        parse_spec(f"serial:/dev/ttyACM0,image={tmp_path / 'gone.elf'}")


def test_cli_refuses_a_missing_image_in_one_sentence(run_cli: RunCli, tmp_path: Path) -> None:
    done = run_cli(
        "run", "--target", f"serial:/dev/null,image={tmp_path / 'gone.elf'}",
        "--out", str(tmp_path / "r"),
    )  # fmt: skip
    assert "is not a file" in refusal(done)
    assert not (tmp_path / "r").exists()


def _measure(run_cli: RunCli, board: str, elf: Path, out: Path) -> tuple[dict[str, Any], str]:
    done = run_cli(
        "run", "--target", f"serial:{board},image={elf}", "--only", "cal.timestamp",
        "--out", str(out), "--no-store",
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    info: dict[str, Any] = json.loads((out / RESULTS_FILE).read_text())["run"]["target_info"]
    return info, done.stderr


def test_the_flashed_image_is_recorded(
    run_cli: RunCli, pty_board: str, image: Path, tmp_path: Path
) -> None:
    info, said = _measure(run_cli, pty_board, image, tmp_path / "r")
    assert info["image"] == str(image.resolve())
    assert info["image_sha256"] == hashlib.sha256(image.read_bytes()).hexdigest()
    built = fw_image.read_sources(FREERTOS, fw_image.sources(FREERTOS, "armv7m").path, "armv7m")
    kernel = info["freertos_kernel"]
    assert kernel is not None and kernel["digest"] == built.digest
    assert kernel["tag"] == built.tag and kernel["tag"] in info["os_release"]
    size = info["code_size"]
    assert size["image"]["text"] > 0 and size["kernel_text"] > 0
    assert "xTaskCreate" in size["kernel_functions"]
    assert info["image_notes"] == [] and "The image" not in said


def test_an_image_away_from_its_build_folder_says_what_is_unknown(
    run_cli: RunCli, pty_board: str, image: Path, tmp_path: Path
) -> None:
    alone = tmp_path / "copy" / image.name
    alone.parent.mkdir()
    shutil.copy2(image, alone)
    info, said = _measure(run_cli, pty_board, alone, tmp_path / "r")
    assert info["freertos_kernel"] is None
    assert info["code_size"]["image"]["text"] > 0 and info["code_size"]["kernel_text"] is None
    notes = info["image_notes"]
    assert any("sources are not known" in n for n in notes), notes
    assert any("no linker map" in n for n in notes), notes
    assert "sources are not known" in said
