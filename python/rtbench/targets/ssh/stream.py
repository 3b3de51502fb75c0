# SPDX-License-Identifier: Apache-2.0
"""Core commands on an SSH target: the transport and its streams.

Each command runs on the target under a small POSIX sh wrapper, in the session
sshd gives every command (sshd makes it a session and process-group leader):

    echo "@rtbench-group $$"      the process group of the command
    CORE ARGS &                   the core, in that group
    echo "@rtbench-core $!"       its pid
    (watcher)                     kills the core when the session's input ends
    wait; echo "@rtbench-exit $?" its exit status (128+n: killed by signal n)

The three `@rtbench-` lines travel on stdout beside the core's records and are taken
out before the runner sees them. rtbench keeps the session's input open and never
writes to it; a watcher in the wrapper kills the core when that input ends, which is
when the session ends for any reason the target sees (rtbench killed, its master
connection ended, sshd gone). `terminate()` sends SIGTERM to the core, `kill()`
SIGKILL to the whole group, both as commands over the master connection. Without an
exit line, a command that ssh reports ended was not ended by rtbench: the connection
dropped, and `read_line` raises `TargetLost`.

A dropped connection may leave the core running on the target (sshd does not signal
a command without a terminal); it writes into a closed pipe at its next record and
ends, and the core bounds its own run time in any case. `reap()` kills it once the
target is reachable again (found by its path: the deployment folder is the run's own).
"""

from __future__ import annotations

import contextlib
import queue
import signal
import subprocess
import threading
from collections.abc import Sequence
from typing import IO

from rtbench.targets.ssh.link import SshLink, remote_shell
from rtbench.transport import EndOfStream, StderrTail, TargetLost

_EOF = object()
_PREFIX = "@rtbench-"
# How long to wait for ssh to report its end once the output is closed.
_EXIT_WAIT_S = 5.0
_SIGNAL_WAIT_S = 5.0

WRAPPER = (
    'cd "$1" || exit 97; shift; '
    'echo "@rtbench-group $$"; '
    '"$@" </dev/null & c=$!; '
    'echo "@rtbench-core $c"; '
    # the session's input ends when the session does: then nobody reads the core
    'exec 3<&0; { while read -r _l; do :; done; kill -KILL "$c" 2>/dev/null; } <&3 & w=$!; '
    'wait "$c"; s=$?; kill "$w" 2>/dev/null; echo "@rtbench-exit $s"'
)

# Kills every process whose command line starts with the core's path ($1); prints how many.
REAP = (
    "n=0; for d in /proc/[0-9]*; do "
    "c=$(tr '\\000' ' ' < \"$d/cmdline\" 2>/dev/null) || continue; "
    'case "$c" in "$1 "*) kill -KILL "${d#/proc/}" 2>/dev/null && n=$((n + 1)) ;; esac; '
    'done; echo "$n"'
)


def shell_status(status: int) -> int:
    """A shell's `$?` as a subprocess-style exit status (negative: killed by that signal)."""
    if status > 128 and status - 128 < signal.NSIG:
        return -(status - 128)
    return status


class SshStream:
    """One core command running on the target."""

    def __init__(self, link: SshLink, process: subprocess.Popen[bytes]) -> None:
        self._link = link
        self._process = process
        self._lines: queue.Queue[object] = queue.Queue()
        self._tail = StderrTail()
        self._known = threading.Event()  # the core's pid arrived
        self.group: int | None = None
        self.core: int | None = None
        self.exit_status: int | None = None  # from the wrapper's exit line
        self._eof = False
        self._lost: str | None = None
        self._signalled: int | None = None  # the signal rtbench sent to the group
        assert process.stdout is not None
        assert process.stderr is not None
        self._readers = [
            threading.Thread(target=self._read_stdout, args=(process.stdout,), daemon=True),
            threading.Thread(target=self._tail.drain, args=(process.stderr,), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    # -- reading -------------------------------------------------------------------------

    def _control(self, line: str) -> bool:
        """Take an `@rtbench-` line of the wrapper; False for any other line."""
        if not line.startswith(_PREFIX):
            return False
        key, _, value = line[len(_PREFIX) :].partition(" ")
        if not value.strip().isdigit() or key not in ("group", "core", "exit"):
            return False
        number = int(value)
        if key == "group":
            self.group = number
        elif key == "core":
            self.core = number
            self._known.set()
        else:
            self.exit_status = shell_status(number)
        return True

    def _read_stdout(self, pipe: IO[bytes]) -> None:
        try:
            for raw in pipe:
                line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                if not self._control(line):
                    self._lines.put(line)
        finally:
            self._known.set()
            self._lines.put(_EOF)

    def read_line(self, timeout_s: float) -> str | None:
        if self._lost is not None:
            raise TargetLost(self._lost)
        if self._eof:
            raise EndOfStream
        try:
            item = self._lines.get(timeout=max(timeout_s, 0.0))
        except queue.Empty:
            return None
        if item is not _EOF:
            assert isinstance(item, str)
            return item
        self._eof = True
        self._ended()
        if self._lost is not None:
            raise TargetLost(self._lost)
        raise EndOfStream

    def _ended(self) -> None:
        """The output closed: did the command end, or the connection?"""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=_EXIT_WAIT_S)
        if self.exit_status is not None or self._signalled is not None:
            return
        said = self._said()
        if self._link.alive() and self._process.returncode not in (None, 255):
            # ssh ended normally without the wrapper's last line: the wrapper could not
            # start (no sh, or the deployed folder is gone); an error, not a lost target.
            self.exit_status = self._process.returncode
            return
        self._lost = said or self._link.why_down()

    def _said(self) -> str:
        text = self.stderr_tail()
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if not lines:
            return ""
        last = lines[-1].rstrip(".")
        for marker in ("closed by remote host", "Broken pipe", "read header failed", "Timeout"):
            if marker in last:
                return f"the SSH connection ended ({last})"
        return ""

    # -- signals -------------------------------------------------------------------------

    def _finished(self) -> bool:
        return self.exit_status is not None and self._process.poll() is not None

    def _remote_kill(self, signo: int, whole_group: bool) -> None:
        if self._lost is not None or not self._link.alive():
            return
        targets: list[str] = []
        if whole_group and self.group is not None:
            targets.append(f"-{self.group}")
        if self.core is not None:
            targets.append(str(self.core))
        if not targets:
            return
        name = signal.Signals(signo).name.removeprefix("SIG")
        self._link.run(
            f"kill -{name} -- {' '.join(targets)} 2>/dev/null; true", timeout_s=_SIGNAL_WAIT_S
        )

    def terminate(self) -> None:
        if self._finished():
            return
        self._known.wait(timeout=_SIGNAL_WAIT_S)
        if self.core is None:
            self._signalled = signal.SIGTERM
            self._remote_kill(signal.SIGTERM, whole_group=True)
        else:
            self._remote_kill(signal.SIGTERM, whole_group=False)

    def kill(self) -> None:
        if not self._finished():
            self._signalled = signal.SIGKILL
            self._remote_kill(signal.SIGKILL, whole_group=True)
        if self._process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                self._process.kill()

    def wait(self, timeout_s: float) -> int | None:
        try:
            self._process.wait(timeout=max(timeout_s, 0.0))
        except subprocess.TimeoutExpired:
            return None
        if self.exit_status is not None:
            return self.exit_status
        if self._signalled is not None:
            return -int(self._signalled)
        return self._process.returncode

    def stderr_tail(self) -> str:
        return self._tail.text()

    @property
    def lost(self) -> bool:
        """Whether the connection dropped under the command (it may still run there)."""
        return self._lost is not None

    def close(self) -> None:
        if self._process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                self._process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=5)
        for reader in self._readers:
            reader.join(timeout=2.0)
        for pipe in (self._process.stdin, self._process.stdout, self._process.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()


class SshTransport:
    """Starts core commands on an SSH target, from the folder the core was copied to."""

    name = "ssh"

    def __init__(self, link: SshLink, folder: str) -> None:
        self.link = link
        self.folder = folder
        self.core = f"{folder}/rtbench-core"
        self._leftovers = False  # a command was lost: its core may still run there
        self._streams: list[SshStream] = []

    def describe(self) -> dict[str, str | None]:
        return {"path": f"{self.link.spec}{self.core}", "version": None}

    def relocate(self, folder: str) -> None:
        """The core was copied again, into `folder` (after a reconnection)."""
        self.folder = folder
        self.core = f"{folder}/rtbench-core"

    def start(self, args: Sequence[str]) -> SshStream:
        self._collect()
        if not self.link.alive():
            raise TargetLost(self.link.why_down())
        command = remote_shell(WRAPPER, self.folder, self.core, *args)
        stream = SshStream(self.link, self.link.popen(command, stdin=subprocess.PIPE))
        self._streams.append(stream)
        return stream

    def _collect(self) -> None:
        """Note whether a dropped connection may have left a command running."""
        self._leftovers = self._leftovers or any(s.lost for s in self._streams)
        self._streams = [s for s in self._streams if s._process.poll() is None]

    def reap(self, always: bool = False) -> int:
        """Kill, over a working connection, what dropped connections left running: every
        process on the target that runs this deployment's core (its folder is this run's
        own, and the runner runs one command at a time). How many there were. Without
        `always`, only when a command was lost."""
        self._collect()
        if not (always or self._leftovers):
            return 0
        status, out, _err = self.link.run(remote_shell(REAP, self.core), timeout_s=30)
        if status != 0:
            return 0
        self._leftovers = False
        text = out.decode("ascii", errors="replace").strip()
        return int(text) if text.isdigit() else 0
