# SPDX-License-Identifier: Apache-2.0
"""How the runner talks to rtbench-core.

A `Transport` starts one core command on a target and returns a `CoreStream`:
the record lines it writes (read with a timeout), a way to ask it to stop
(`terminate`: the core then finishes early and reports what it measured), to
end it for good (`kill`), and its exit status. `LocalProcess` runs the core as
a child process on this host; remote boards, QEMU guests or serial lines are
further implementations of the same two interfaces.
"""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Protocol


class EndOfStream(Exception):
    """The core closed its output: no more lines will come."""


class TargetLost(Exception):
    """The target itself went away (guest ended, connection dropped): the command's
    fate is unknown. `str()` is the reason in a few words."""


class CoreStream(Protocol):
    """One running core command."""

    def read_line(self, timeout_s: float) -> str | None:
        """The next line without its newline, or None if none came within `timeout_s`.
        Raises EndOfStream once the output is closed and every line was read, and
        TargetLost when the target disappeared under the command."""
        ...

    def terminate(self) -> None:
        """Ask the command to stop early (it reports what it measured, then ends)."""
        ...

    def kill(self) -> None:
        """End the command and everything it started, at once."""
        ...

    def wait(self, timeout_s: float) -> int | None:
        """The exit status (negative: killed by that signal), or None if still running."""
        ...

    def stderr_tail(self) -> str:
        """The last few kilobytes the command wrote to its error stream."""
        ...

    def close(self) -> None:
        """Release the stream's resources; the command must have ended."""
        ...


class Transport(Protocol):
    """Starts core commands on one target."""

    name: str

    def start(self, args: Sequence[str]) -> CoreStream:
        """Start `rtbench-core <args>` on the target."""
        ...

    def describe(self) -> dict[str, str | None]:
        """What the results record about the target's core (path, version, ...)."""
        ...


# The clock a watchdog reads: seconds of progress since an arbitrary start.
Clock = Callable[[], float]


def watchdog_clock(transport: object) -> Clock:
    """The clock the runner's watchdog measures a unit's deadline on: the host's
    monotonic clock, unless the transport offers `progress_clock()` (an emulator
    whose figures follow its instructions, not the host's clock, so a busy host
    slows it down without its scenarios being late)."""
    offered = getattr(transport, "progress_clock", None)
    clock = offered() if callable(offered) else None
    return clock if clock is not None else time.monotonic


_STDERR_TAIL_BYTES = 8192


class StderrTail:
    """The last 8 KiB a process wrote on stderr, kept by a reader thread."""

    def __init__(self, limit: int = _STDERR_TAIL_BYTES) -> None:
        self._chunks: collections.deque[bytes] = collections.deque()
        self._size = 0
        self._limit = limit
        self._lock = threading.Lock()

    def drain(self, pipe: IO[bytes]) -> None:
        """Read `pipe` to its end (a reader thread's target)."""
        fd = pipe.fileno()
        while chunk := os.read(fd, 4096):
            with self._lock:
                self._chunks.append(chunk)
                self._size += len(chunk)
                while self._size > self._limit and len(self._chunks) > 1:
                    self._size -= len(self._chunks.popleft())

    def text(self) -> str:
        with self._lock:
            data = b"".join(self._chunks)
        return data[-self._limit :].decode("utf-8", errors="replace")


_EOF = object()


class LocalStream:
    """A core running as a child process in its own session (so a Ctrl-C at the
    terminal reaches the runner, which decides what the child gets)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process = process
        self._lines: queue.Queue[object] = queue.Queue()
        self._tail = StderrTail()
        self._eof = False
        assert process.stdout is not None
        assert process.stderr is not None
        self._readers = [
            threading.Thread(target=self._read_stdout, args=(process.stdout,), daemon=True),
            threading.Thread(target=self._tail.drain, args=(process.stderr,), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    @property
    def pid(self) -> int:
        return self._process.pid

    def _read_stdout(self, pipe: IO[bytes]) -> None:
        try:
            for raw in pipe:
                self._lines.put(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
        finally:
            self._lines.put(_EOF)

    def read_line(self, timeout_s: float) -> str | None:
        if self._eof:
            raise EndOfStream
        try:
            item = self._lines.get(timeout=max(timeout_s, 0.0))
        except queue.Empty:
            return None
        if item is _EOF:
            self._eof = True
            raise EndOfStream
        assert isinstance(item, str)
        return item

    def _signal_group(self, signo: int) -> None:
        if self._process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._process.pid, signo)

    def terminate(self) -> None:
        self._signal_group(signal.SIGTERM)

    def kill(self) -> None:
        # Also after the leader exited: threads or children may still hold the pipe.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._process.pid, signal.SIGKILL)

    def wait(self, timeout_s: float) -> int | None:
        try:
            return self._process.wait(timeout=max(timeout_s, 0.0))
        except subprocess.TimeoutExpired:
            return None

    def stderr_tail(self) -> str:
        return self._tail.text()

    def close(self) -> None:
        for reader in self._readers:
            reader.join(timeout=2.0)
        for pipe in (self._process.stdout, self._process.stderr):
            if pipe is not None:
                pipe.close()


class LocalProcess:
    """The core as a child process of this host.

    `child_cpus`: the CPU affinity children start with. The runner pins itself
    away from the measurement CPU; the core must still be allowed to use it, so
    children are started from a short-lived thread that first widens its own
    affinity (a forked child inherits the affinity of the forking thread).
    """

    name = "local"

    def __init__(self, binary: Path, child_cpus: set[int] | None = None) -> None:
        self.binary = binary
        self.child_cpus = child_cpus

    def describe(self) -> dict[str, str | None]:
        return {"path": str(self.binary), "version": None}

    def _popen(self, args: Sequence[str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [str(self.binary), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )

    def start(self, args: Sequence[str]) -> LocalStream:
        if self.child_cpus is None:
            return LocalStream(self._popen(args))
        started: list[subprocess.Popen[bytes]] = []
        failed: list[BaseException] = []
        cpus = set(self.child_cpus)

        def spawn() -> None:
            try:
                os.sched_setaffinity(0, cpus)
                started.append(self._popen(args))
            except BaseException as e:  # handed to the calling thread below
                failed.append(e)

        spawner = threading.Thread(target=spawn, name="rtbench-spawn")
        spawner.start()
        spawner.join()
        if failed:
            raise failed[0]
        return LocalStream(started[0])
