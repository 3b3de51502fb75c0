# SPDX-License-Identifier: Apache-2.0
"""The catalog `rtbench list` shows, the core and docs/ stay in step."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from rtbench.model import catalog
from rtbench.paths import ROOT


def core_ids(core_binary: Path) -> dict[str, str | None]:
    out = subprocess.run(
        [str(core_binary), "list", "--no-mlock"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    ids: dict[str, str | None] = {}
    for line in out.splitlines():
        record = json.loads(line)
        if record["type"] == "catalog":
            for entry in record["ids"]:
                ids[entry["id"]] = entry["label"]
    return ids


def test_every_core_id_is_in_the_catalog_with_its_label(core_binary: Path) -> None:
    ids = core_ids(core_binary)
    assert ids, "the core lists no scenario"
    for id_, label in ids.items():
        assert id_ in catalog.SPEC_BY_ID, f"{id_} is implemented but not in rtbench list"
        # The specification numbers the variants of one label ("THR-P-NEW (1)");
        # results carry the label itself.
        spec_label = re.sub(r" \(\d+\)$", "", catalog.SPEC_BY_ID[id_].label or "")
        assert (label or "") == spec_label, f"{id_}: core {label!r}, list {spec_label!r}"


def test_every_implemented_id_is_documented(core_binary: Path) -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs/scenarios").glob("*.md"))
    documented = set(re.findall(r"`([a-z]+(?:\.[a-z_0-9]+)+)`", text))
    missing = sorted(set(core_ids(core_binary)) - documented)
    assert not missing, f"not described in docs/scenarios: {missing}"


def test_the_scenario_index_lists_every_family_document() -> None:
    index = (ROOT / "docs/scenarios/README.md").read_text(encoding="utf-8")
    for doc in (ROOT / "docs/scenarios").glob("*.md"):
        if doc.name != "README.md":
            assert f"({doc.name})" in index, f"docs/scenarios/README.md does not link {doc.name}"


def test_readme_shows_every_port_board_and_architecture() -> None:
    """README's "How it is built" names every folder under ports/ (an OS port, the
    shared code) and every board and architecture folder, so it stays true as
    ports are added."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## How it is built", 1)[1].split("\n## ", 1)[0]
    ports = ROOT / "ports"
    folders = [f"ports/{d.name}" for d in ports.iterdir() if d.is_dir()]
    folders = [f for f in folders if f not in ("ports/boards", "ports/arch")]
    for shared in ("boards", "arch"):
        folders += [f"ports/{shared}/{d.name}" for d in (ports / shared).iterdir() if d.is_dir()]
    assert len(folders) >= 6
    missing = [f for f in sorted(folders) if f not in section]
    assert not missing, f"README's 'How it is built' does not show {missing}"
