# SPDX-License-Identifier: Apache-2.0
"""Pinned dependencies and the core build stamp."""

import re
import shutil
from pathlib import Path

import pytest

from rtbench import build
from rtbench.errors import UsageError
from rtbench.paths import ROOT

REQ = ROOT / "requirements"


def pins(name: str) -> dict[str, tuple[str, frozenset[str]]]:
    text = (REQ / name).read_text()
    out: dict[str, tuple[str, frozenset[str]]] = {}
    for raw in re.split(r"\n(?=[A-Za-z])", text):
        block = raw.strip()
        if not block or block.startswith("#"):
            continue
        first = block.split()[0]
        assert "==" in first, f"{name}: {first} is not pinned with =="
        package, version = first.split("==")
        hashes = frozenset(re.findall(r"--hash=sha256:([0-9a-f]{64})", block))
        assert hashes, f"{name}: {package} has no sha256 hash"
        out[package.lower()] = (version, hashes)
    return out


def test_every_requirement_is_pinned_with_hashes() -> None:
    runtime = pins("runtime.txt")
    dev = pins("dev.txt")
    assert "jsonschema" in runtime
    assert {"pytest", "ruff", "mypy", "types-jsonschema"} <= set(dev)


def test_dev_set_contains_the_runtime_set_unchanged() -> None:
    runtime = pins("runtime.txt")
    dev = pins("dev.txt")
    for package, pinned in runtime.items():
        assert dev.get(package) == pinned, package


def test_stamp_changes_when_a_source_changes(tmp_path: Path) -> None:
    for part in ("core", "ports"):
        shutil.copytree(ROOT / part, tmp_path / part)
    shutil.copy2(ROOT / "CMakeLists.txt", tmp_path / "CMakeLists.txt")
    first = build.source_stamp(tmp_path)
    assert build.source_stamp(tmp_path) == first
    source = next((tmp_path / "core").rglob("*.c"))
    source.write_text(source.read_text() + "\n")
    assert build.source_stamp(tmp_path) != first


def test_core_override_must_be_executable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = tmp_path / "core"
    plain.write_text("")
    monkeypatch.setenv(build.CORE_ENV, str(plain))
    with pytest.raises(UsageError):
        build.ensure_core(ROOT, lambda _t: None)
    plain.chmod(0o755)
    assert build.ensure_core(ROOT, lambda _t: None) == plain
