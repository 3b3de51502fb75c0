# SPDX-License-Identifier: Apache-2.0
"""The test suite runs its modules in parallel (tests/run, pytest-xdist): a module
that reads or changes this machine's real-time settings must say so, or it
would run beside another one and read a setting that one changed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

HERE = Path(__file__).parent
# what a module that touches this machine's real-time settings contains: a run
# that lifts RT throttling, the file itself, or an SSH server or a lab on this
# machine (its runs tune this machine through SSH)
TOUCHES_HOST = re.compile(
    r"--lift-rt-throttle|lift_rt_throttle=True|sched_rt_runtime_us|RT_RUNTIME|sshd_netns|labgrid_lab"
)
MARK = "pytestmark = pytest.mark.host_settings"


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
    assert unmarked == [], f"add `{MARK}` to {unmarked}"


def test_the_guard_sees_an_unmarked_module(tmp_path: Path) -> None:
    """The negative control: a module that lifts RT throttling without the mark
    is caught by the same pattern."""
    text = 'run("--lift-rt-throttle")\n'
    assert TOUCHES_HOST.search(text) and MARK not in text


def test_marked_modules_share_one_group(request: pytest.FixtureRequest) -> None:
    """conftest.py puts every marked test in one xdist group and every other
    module in its own."""
    items = request.session.items
    groups: dict[str, set[str]] = {}
    for item in items:
        mark = item.get_closest_marker("xdist_group")
        assert mark is not None, item.nodeid
        groups.setdefault(mark.args[0], set()).add(item.nodeid.split("::", 1)[0])
    marked = {i.nodeid.split("::", 1)[0] for i in items if i.get_closest_marker("host_settings")}
    for group, files in groups.items():
        if files & marked:
            assert files == marked, group
        else:
            assert len(files) == 1, (group, files)
