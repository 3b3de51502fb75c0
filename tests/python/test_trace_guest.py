# SPDX-License-Identifier: Apache-2.0
"""`rtbench run --trace` in a QEMU Debian guest: the tracefs scripts run by the
guest's agent on its serial line (targets.guest.tracefs).

A short traced run of timer.periodic.latency (the quick profile, one second) must
explain its samples as an SSH target's does; in a guest booted here, the instance
must be created, removed at the end, and set up again after a fresh guest is
booted. Skipped, with the reason, when QEMU or the guest's kernel is missing. The
rules of set-up-again and removal are also checked with a scripted runner.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

import pytest

from conftest import cli
from rtbench.targets.guest.target import QemuTarget
from rtbench.targets.guest.tracefs import GUEST_BUFFER_KB, guest_tracefs
from rtbench.trace.kernel import shell_tracefs
from rtbench.trace.kernel.shell_tracefs import ShellTracefs
from rtbench.trace.kernel.tracefs import TraceError
from traced import remote_traced_run, timer_trace, usable_guest

SPEC = "qemu:debian-amd64"
SHORT = (
    "--profile", "quick", "--only", "timer.periodic.latency",
    "--set", "timer.periodic.latency.interval_ns=200000", "--set", "duration_ms=1000",
)  # fmt: skip
TRACEFS = "/sys/kernel/tracing"


@pytest.fixture
def guest() -> Iterator[QemuTarget]:
    usable_guest("debian-amd64")
    target = QemuTarget(SPEC)
    try:
        target.open(lambda _t: None)
        yield target
    finally:
        target.close()


def _ours(target: QemuTarget) -> list[str]:
    names = target.source().listdir(f"{TRACEFS}/instances") or []
    return sorted(n for n in names if n.startswith("rtbench-"))


@pytest.mark.slow
def test_traced_run_in_a_guest_explains_its_samples(tmp_path: Path) -> None:
    usable_guest("debian-amd64")
    done = cli(
        "run", "--target", SPEC, "--trace", *SHORT, "--out", "res", cwd=tmp_path, timeout=900,
        env={"RTBENCH_LOCK_DIR": str(tmp_path)},
    )  # fmt: skip
    out = tmp_path / "res"
    data, cond = remote_traced_run(done, out, SPEC, "guest")
    access = cond["access"]
    assert "no guard" in access["removal"] and "initramfs" in access["removal"]
    assert access["instance_path"] == f"{TRACEFS}/instances/{cond['instance']}"
    assert access["compressed_on_target"] is True  # busybox gzip is in the initramfs
    assert access["set_up_again"] == 0
    assert cond["buffer_kb_per_cpu"] == GUEST_BUFFER_KB
    assert cond["mounted_by_rtbench"] is False  # the agent mounts tracefs at boot
    unit = cond["units"]["timer.periodic.latency"]
    trace_file = out / unit["file"]
    assert trace_file.is_file() and trace_file.stat().st_size == unit["file_bytes"]
    assert trace_file.read_bytes()[:2] == b"\x1f\x8b"
    assert unit["events"] > 0 and unit["read_s"] > 0
    cmap = unit["clock_map"]
    assert cmap["trace_clock"] == cond["clock"]
    assert cmap["sync_points"] == 10  # five readings before the unit, five after
    assert cmap["mono_method"] == "markers"
    trace = timer_trace(data)
    assert trace["line"] and trace["file"] == unit["file"]
    assert any(s.get("covered") for s in trace["samples"])
    assert all(s["line"] for s in trace["samples"])
    perfetto = cli("trace", "export", str(out), "--format", "perfetto", cwd=tmp_path)
    assert perfetto.returncode == 0, perfetto.stderr
    events = json.loads((out / "trace" / "perfetto.json").read_text())["traceEvents"]
    assert any(e.get("name") == "timer.periodic.latency" for e in events)


@pytest.mark.slow
def test_instance_in_a_guest_is_removed_and_set_up_again_in_a_fresh_one(
    guest: QemuTarget, tmp_path: Path
) -> None:
    assert _ours(guest) == []
    access = guest_tracefs(guest)
    access.open()
    access.configure("mono", 1024, (1,))
    assert _ours(guest) == [access.name]  # control: the listing sees the instance
    assert access.ensure() is None
    reads = access.start(2)
    assert len(reads) == 2 and all(r.mono_before > 0 for r in reads)
    reads += access.finish(2)
    access.read_trace(tmp_path / "t.txt.gz")
    assert b"rtbench-sync" in _gunzip(tmp_path / "t.txt.gz")
    # the guest is lost and a fresh one booted: the instance is set up there again
    assert guest.recover(lambda _t: None)
    assert _ours(guest) == []
    note = access.ensure()
    assert note is not None and "again" in note and "fresh" in note
    assert _ours(guest) == [access.name] and access.reopened == 1
    assert access.close() is None
    assert _ours(guest) == []


def _gunzip(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes())


# ---- the rules, with a scripted runner -------------------------------------------------


class _Scripted:
    """A ShellRunner answering the scripts' `@word` lines as a machine would."""

    where = "scripted"
    removal = "scripted"

    def __init__(self) -> None:
        self.boots = 1
        self.up = True
        self.ran: list[str] = []

    def run(self, script: str, args: Sequence[str], timeout_s: float) -> tuple[int, bytes, bytes]:
        if not self.up:
            return 255, b"", b"the guest is not running"
        if script == shell_tracefs._OPEN:
            self.ran.append("open")
            said = "@root 0 /t\n@clocks [mono] x86-tsc\n@now 123\n@gzip\n@opened\n"
            return 0, said.encode(), b""
        if script == shell_tracefs._CONFIGURE:
            self.ran.append("configure")
            return 0, b"@found sched/sched_switch\n", b""
        if script == shell_tracefs._REMOVE:
            self.ran.append("remove")
            return 0, b"@removed\n", b""
        return 0, b"", b""

    def run_to(
        self, script: str, args: Sequence[str], out: IO[bytes], timeout_s: float
    ) -> tuple[int, bytes]:
        status, said, err = self.run(script, args, timeout_s)
        out.write(said)
        return status, err

    def guard(self, script: str, args: Sequence[str]) -> None:
        return None

    def alive(self) -> bool:
        return self.up

    def why_down(self) -> str:
        return "the guest is not running"

    def generation(self) -> int:
        return self.boots

    def left_behind(self, path: str) -> str | None:
        return None


def test_a_fresh_machine_gets_the_instance_again_with_the_same_settings() -> None:
    runner = _Scripted()
    access = ShellTracefs(runner, "qemu:x")
    access.open()
    access.configure("mono", 512, (1,))
    assert access.ensure() is None
    runner.boots += 1
    note = access.ensure()
    assert note is not None and "fresh machine" in note
    assert runner.ran == ["open", "configure", "open", "configure"]
    assert access.clock == "mono" and access.reopened == 1
    assert access.describe()["set_up_again"] == 1
    assert access.ensure() is None  # once per new machine


def test_without_a_guard_the_end_removes_the_instance_or_says_nothing_is_left() -> None:
    runner = _Scripted()
    access = ShellTracefs(runner, "qemu:x")
    access.open()
    assert access.close() is None and runner.ran[-1] == "remove"
    gone = _Scripted()
    access = ShellTracefs(gone, "qemu:x")
    access.open()
    gone.up = False  # the guest was powered off: nothing of it is left
    assert access.close() is None and gone.ran == ["open"]


def test_a_step_on_a_lost_guest_says_why_in_one_sentence(tmp_path: Path) -> None:
    runner = _Scripted()
    access = ShellTracefs(runner, "qemu:x")
    access.open()
    runner.up = False
    with pytest.raises(TraceError, match=r"^--trace could not start the trace on qemu:x: the "):
        access.start(1)
    with pytest.raises(TraceError, match="not running"):
        access.read_trace(tmp_path / "t.txt.gz")
    assert list(tmp_path.iterdir()) == []  # no part file left
