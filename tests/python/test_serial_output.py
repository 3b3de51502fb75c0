# SPDX-License-Identifier: Apache-2.0
"""The emulator's serial output never waits for rtbench to read it.

QEMU makes its standard output non-blocking; on a pipe the host has not
emptied, a write fails, the emulated UART says "transmitter full" and the guest
spins until the host reads, so a deterministic (-icount) guest's timeline would
follow the host's. The machine's output therefore goes to a regular file that
`follow` reads back as it grows. Checked with a stand-in emulator that does what
QEMU does to its output (O_NONBLOCK, then writes far more than a pipe holds
while the reader is held back) and reports what it saw; no QEMU needed."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from rtbench.targets.guest import link as link_mod
from rtbench.targets.guest.machine import Machine, follow

# A stand-in emulator: makes its standard output non-blocking as QEMU does,
# writes 4 MiB of noise lines (a pipe holds 64 KiB to 1 MiB) and counts the
# writes that would have blocked, then says ready with the count and whether its
# output was a regular file; it ends on `off` or when its input closes.
FAKE = r"""
import errno, os, stat, sys
fd = sys.stdout.fileno()
os.set_blocking(fd, False)
line = b"x" * 1023 + b"\n"
would_block = 0
for _ in range(4096):
    view = memoryview(line)
    while view:
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:
            would_block += 1
regular = int(stat.S_ISREG(os.fstat(fd).st_mode))
os.write(fd, b"#rtb ready 1 blocked%%3D%d%%20regular%%3D%d fake\n" % (would_block, regular))
for request in sys.stdin:
    if request.startswith("#rtb off"):
        break
"""


class FakeLaunch:
    def __init__(self, script: Path) -> None:
        self.script = script

    def argv(self, folder: Path) -> list[str]:
        return [sys.executable, str(self.script)]


def test_a_guest_writing_more_than_a_pipe_holds_never_waits(tmp_path: Path) -> None:
    script = tmp_path / "fake_qemu.py"
    script.write_text(FAKE)
    machine = Machine(FakeLaunch(script))
    try:
        link = machine.start()
        # the reader stops for 1 s at its first line (set before the stand-in's
        # Python has started): what the guest writes meanwhile must go
        # somewhere without waiting
        link.stall_s = 1.0
        ready = link.wait_ready(60.0)
        assert ready is not None, link.closed
        assert ready.text == "blocked=0 regular=1", ready.text
        assert link.noise == 4096  # every line written before it arrived, in order
    finally:
        machine.stop()


def test_follow_reads_a_growing_file_to_its_end(tmp_path: Path) -> None:
    path = tmp_path / "out"
    path.write_bytes(b"")
    ended = threading.Event()

    def writer() -> None:
        with path.open("ab", buffering=0) as out:
            for i in range(50):
                out.write(b"line %d\n" % i)
                if i % 10 == 0:
                    time.sleep(0.02)  # the reader catches up and waits
            out.write(b"last, without a newline")
        ended.set()

    thread = threading.Thread(target=writer)
    thread.start()
    got = list(follow(path, ended.is_set))
    thread.join()
    assert got == [b"line %d\n" % i for i in range(50)] + [b"last, without a newline"]


def test_the_jitter_hook_is_off_unless_asked_for(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv(link_mod.JITTER_ENV, raising=False)
    assert link_mod.jitter_s() == 0.0
    monkeypatch.setenv(link_mod.JITTER_ENV, "20")
    pauses = [link_mod.jitter_s() for _ in range(200)]
    assert all(0.0 <= p <= 0.02 for p in pauses) and len(set(pauses)) > 100
    monkeypatch.setenv(link_mod.JITTER_ENV, "not a number")
    assert link_mod.jitter_s() == 0.0
