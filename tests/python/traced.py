# SPDX-License-Identifier: Apache-2.0
"""What the tests of `rtbench run --trace` on different targets share."""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rtbench.model import records
from rtbench.targets.guest import debian, images
from rtbench.trace.kernel import tracefs

# the amortised cross-check of the timed-call families, cut down in a traced run:
# its back-to-back calls (a million by default) fill the execution log outside
# the samples and take most of the run
FEW_AMORTISED = ("--set", "amortised_calls=1000")


def timer_trace(data: dict[str, Any]) -> dict[str, Any]:
    """The `trace` object of timer.periodic.latency's result (it must have one)."""
    for s in data["scenarios"]:
        for r in s["records"]:
            if r["type"] == "result" and r["scenario"] == "timer.periodic.latency":
                assert "trace" in r, "the traced run explained nothing"
                trace: dict[str, Any] = r["trace"]
                return trace
    raise AssertionError("no timer.periodic.latency result")


def remote_traced_run(
    done: subprocess.CompletedProcess[str], out: Path, spec: str, where: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A traced run on a target reached through shell scripts: it ended well, said
    where it traced, and recorded how; (results, run.conditions.trace)."""
    assert done.returncode == 0, done.stderr
    assert f"on {spec}, clock" in done.stderr
    assert "Kernel trace of the worst samples" in done.stdout
    data = json.loads((out / "results.json").read_text())
    records.validate(data, "results")
    cond: dict[str, Any] = data["run"]["conditions"]["trace"]
    assert cond["traced"] is True
    access = cond["access"]
    assert access["where"] == where and access["target"] == spec
    assert "/proc/timer_list" in access["sync_method"]
    assert access["instance_path"].endswith(f"/instances/{cond['instance']}")
    return data, cond


@contextlib.contextmanager
def tracefs_mounted() -> Iterator[Path]:
    """Where tracefs is mounted, mounting it for the test when it was not (and
    unmounting it afterwards then)."""
    mounted_here = tracefs._mounted_at() is None
    if mounted_here:
        subprocess.run(
            ["mount", "-t", "tracefs", "nodev", str(tracefs.DEFAULT_MOUNT)], check=True, timeout=10
        )
    root = tracefs._mounted_at()
    assert root is not None
    try:
        yield root
    finally:
        if mounted_here:
            subprocess.run(["umount", str(root)], check=True, timeout=10)


def usable_guest(name: str) -> images.Guest:
    """The Debian guest `name`, or the test skipped with what it lacks."""
    guest = images.GUESTS[name]
    missing = images.missing_tools(guest)
    if missing:
        pytest.skip(f"the {name} guest needs {', '.join(missing)}")
    try:
        debian.ensure_kernel(guest.meta_package, guest.deb_arch, lambda _t: None)
    except debian.PackageError as e:
        pytest.skip(f"no kernel for {name}: {e}")
    return guest
