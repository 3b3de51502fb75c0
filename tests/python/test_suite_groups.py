# SPDX-License-Identifier: Apache-2.0
"""The test suite runs its modules in parallel (tests/run, pytest-xdist): a module
that reads or changes this machine's real-time settings must say so, or it
would run beside another one and read a setting that one changed."""

from __future__ import annotations

import re
from pathlib import Path

HERE = Path(__file__).parent
# what a module that touches this machine's real-time settings contains: a run
# that lifts RT throttling, the file itself, an SSH server or a lab on this
# machine (its runs tune this machine through SSH), or this machine's tracefs
TOUCHES_HOST = re.compile(
    r"--lift-rt-throttle|lift_rt_throttle=True|sched_rt_runtime_us|RT_RUNTIME|sshd_netns"
    r"|labgrid_lab|trace\.kernel import tracefs|needs root,? (and )?tracefs"
)
MARK = "pytest.mark.host_settings"


def modules() -> list[Path]:
    return sorted(HERE.glob("test_*.py"))


def test_every_module_that_touches_the_host_settings_is_marked() -> None:
    unmarked = [
        path.name
        for path in modules()
        if path.name != Path(__file__).name
        and TOUCHES_HOST.search(text := path.read_text(encoding="utf-8"))
        and MARK not in text
    ]
    assert unmarked == [], f"add `pytestmark = {MARK}` to {unmarked}"


def test_the_guard_sees_an_unmarked_module(tmp_path: Path) -> None:
    """The negative control: a module that lifts RT throttling without the mark
    is caught by the same pattern."""
    text = 'run("--lift-rt-throttle")\n'
    assert TOUCHES_HOST.search(text) and MARK not in text
