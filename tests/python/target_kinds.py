# SPDX-License-Identifier: Apache-2.0
"""What the tests of the target kinds share: a kind's row in `rtbench targets`
when it cannot be used here, and a command refused in one sentence."""

from __future__ import annotations

import json
import subprocess

from conftest import RunCli


def refusal(done: subprocess.CompletedProcess[str]) -> str:
    """The sentence a command was refused with: exit status 2 and that one line on
    stderr, not a traceback."""
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert "Traceback" not in done.stderr
    assert len(lines) == 1, done.stderr
    return lines[0]


def why_not_usable(run_cli: RunCli, kind: str, env: dict[str, str]) -> str:
    """Why `rtbench targets --json`, run with `env`, lists the kind as not usable."""
    listed = run_cli("targets", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    row = next(r for r in json.loads(listed.stdout) if r["kind"] == kind)
    assert row["usable"] is False
    return str(row["why_not"])
