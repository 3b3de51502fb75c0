# SPDX-License-Identifier: Apache-2.0
"""Each RTOS port's manifest (ports/<rtos>/port.json) is the one place its facts
are written: the Python package, the port's CMake and CI read it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from rtbench.paths import ROOT
from rtbench.targets.firmware import rtos as rtos_module
from rtbench.targets.firmware.rtoses import RTOSES

FIRMWARE_PORTS = sorted(p.parent.name for p in (ROOT / "ports").glob("*/port.json"))


def test_every_firmware_port_has_a_manifest_python_reads() -> None:
    images = [
        p.parent.name
        for p in (ROOT / "ports").glob("*/port.cmake")
        if "RTB_PORT_FIRMWARE ON" in p.read_text(encoding="utf-8")
    ]
    assert images and sorted(images) == FIRMWARE_PORTS
    for name in FIRMWARE_PORTS:
        manifest = json.loads((ROOT / "ports" / name / "port.json").read_text())
        assert manifest["name"] == name
        rtos = RTOSES[name]
        assert rtos.source_env == manifest["sources"]["env"]
        assert rtos.tested_release == manifest["sources"]["tested_release"]
        assert rtos.required == tuple(manifest["sources"]["required"])


@pytest.mark.parametrize("name", FIRMWARE_PORTS)
def test_the_port_cmake_takes_its_sources_from_the_manifest(name: str) -> None:
    text = (ROOT / "ports" / name / "port.cmake").read_text(encoding="utf-8")
    assert "rtb_port_sources(${CMAKE_CURRENT_LIST_DIR})" in text
    # the release and the files are not written again there (comments aside)
    code = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    assert not any(RTOSES[name].tested_release in line for line in code)
    assert not any(
        f"EXISTS ${{{RTOSES[name].cmake_source_var}}}/{f}" in line
        for line in code
        for f in RTOSES[name].required
    )


def test_a_changed_manifest_changes_what_python_knows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The negative control: the loader reads the file, nothing else."""
    folder = tmp_path / "ports" / "threadx"
    folder.mkdir(parents=True)
    manifest = json.loads((ROOT / "ports" / "threadx" / "port.json").read_text())
    manifest["sources"]["tested_release"] = "v9.9.9"
    (folder / "port.json").write_text(json.dumps(manifest))
    monkeypatch.setattr(rtos_module, "ROOT", tmp_path)
    loaded = rtos_module.from_manifest("threadx", read_release=RTOSES["threadx"].read_release)
    assert loaded.tested_release == "v9.9.9"


def test_ci_finds_each_rtos_from_its_manifest(tmp_path: Path) -> None:
    """.ci/run, without the variables set, exports each RTOS's folder from the
    shared dependencies folder the manifest names, when it holds the files."""
    clone = tmp_path / "clone"
    (clone / ".ci").mkdir(parents=True)
    ci = (ROOT / ".ci" / "run").read_text()
    (clone / ".ci" / "run").write_text(ci.replace('exec tests/run "$@"', "env"))
    for name in FIRMWARE_PORTS:
        (clone / "ports" / name).mkdir(parents=True)
        manifest_text = (ROOT / "ports" / name / "port.json").read_text()
        (clone / "ports" / name / "port.json").write_text(manifest_text)
        sources = json.loads(manifest_text)["sources"]
        for required in sources["required"]:
            path = tmp_path / "shared" / "deps" / sources["deps_folder"] / required
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("")
    env = {"PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        ["bash", str(clone / ".ci" / "run")], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    found = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    for name in FIRMWARE_PORTS:
        sources = json.loads((ROOT / "ports" / name / "port.json").read_text())["sources"]
        expected = (tmp_path / "shared" / "deps" / sources["deps_folder"]).resolve()
        assert Path(found[sources["env"]]).resolve() == expected, name
    # a folder lacking a required file is not taken
    missing = tmp_path / "shared" / "deps" / "threadx" / "common" / "inc" / "tx_api.h"
    if "threadx" in FIRMWARE_PORTS:
        missing.unlink()
        again = subprocess.run(
            ["bash", str(clone / ".ci" / "run")], capture_output=True, text=True, env=env,
            check=False,
        )  # fmt: skip
        assert "THREADX_PATH=" not in again.stdout


def test_a_kernel_built_as_several_archives_names_them_in_its_manifest() -> None:
    """NuttX's make builds its kernel as several archives, each counted as kernel
    code; a kernel port.cmake builds as one library is lib<name>_kernel.a."""
    assert RTOSES["freertos"].kernel_libraries == ("libfreertos_kernel.a",)
    if "nuttx" in RTOSES:
        libraries = RTOSES["nuttx"].kernel_libraries
        assert "libsched.a" in libraries and "libc.a" not in libraries
