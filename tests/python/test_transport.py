# SPDX-License-Identifier: Apache-2.0
"""The local transport: lines with timeouts, stop, kill, affinity of children."""

import os
from pathlib import Path

import pytest

from rtbench.transport import CoreStream, EndOfStream, LocalProcess

SH = Path("/bin/sh")


def drain(stream: CoreStream) -> list[str | None]:
    """Lines until the end of the stream (at most 100 reads)."""
    lines: list[str | None] = []
    for _ in range(100):
        try:
            lines.append(stream.read_line(5.0))
        except EndOfStream:
            return lines
    raise AssertionError("the stream did not end")


def test_lines_timeout_and_kill() -> None:
    stream = LocalProcess(SH).start(["-c", "echo one; echo two >&2; exec sleep 30"])
    try:
        assert stream.read_line(5.0) == "one"
        assert stream.read_line(0.2) is None
        stream.kill()
        assert drain(stream) == []
        with pytest.raises(EndOfStream):
            stream.read_line(1.0)
        assert stream.wait(5.0) == -9
        assert "two" in stream.stderr_tail()
    finally:
        stream.kill()
        stream.close()


def test_terminate_reaches_the_child() -> None:
    stream = LocalProcess(SH).start(["-c", "trap 'echo stopping; exit 0' TERM; echo ready; "
                                           "while :; do sleep 0.1; done"])  # fmt: skip
    try:
        assert stream.read_line(5.0) == "ready"
        stream.terminate()
        assert stream.read_line(5.0) == "stopping"
        assert stream.wait(5.0) == 0
    finally:
        stream.kill()
        stream.close()


def test_child_runs_in_its_own_session() -> None:
    stream = LocalProcess(SH).start(["-c", "cut -d' ' -f6 /proc/$$/stat"])
    try:
        line = stream.read_line(5.0)
        assert line is not None
        assert int(line.strip()) != os.getsid(0)
    finally:
        stream.wait(5.0)
        stream.close()


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_children_get_the_wide_affinity_while_the_parent_is_pinned() -> None:
    original = os.sched_getaffinity(0)
    first = min(original)
    try:
        os.sched_setaffinity(0, {first})
        stream = LocalProcess(SH, child_cpus=set(original)).start(
            ["-c", "grep Cpus_allowed_list /proc/self/status"]
        )
        line = stream.read_line(5.0)
        stream.wait(5.0)
        stream.close()
        assert os.sched_getaffinity(0) == {first}
    finally:
        os.sched_setaffinity(0, original)
    assert line is not None
    allowed = line.split(":")[1].strip()
    assert allowed != str(first)
