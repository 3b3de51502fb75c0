# SPDX-License-Identifier: Apache-2.0
"""QEMU's human monitor (HMP) on a Unix socket: one command at a time.

A machine started with `-monitor unix:PATH,server=on,wait=off` accepts one
client at a time; `command` connects, sends one line, reads until the next
prompt and returns what QEMU printed for it (empty when the command
succeeded silently). The echo of the line and the terminal's escape sequences
are dropped.
"""

from __future__ import annotations

import re
import socket
import threading
from pathlib import Path

from rtbench.errors import RtbenchError

PROMPT = b"(qemu) "
TIMEOUT_S = 10.0
_ESCAPES = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class MonitorError(RtbenchError):
    """The monitor could not be reached or refused a command."""


class Monitor:
    """HMP client for the socket at `path`; safe to share between threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def command(self, line: str) -> str:
        """Run `line`; what QEMU answered (stripped), or MonitorError."""
        with self._lock:
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                    s.settimeout(TIMEOUT_S)
                    s.connect(str(self.path))
                    _until_prompt(s)
                    s.sendall(line.encode() + b"\n")
                    answer = _until_prompt(s)
            except OSError as e:
                raise MonitorError(
                    f"QEMU's monitor at {self.path} did not answer '{line}': {e.strerror or e}"
                ) from None
        text = _ESCAPES.sub("", answer.decode(errors="replace")).replace("\r", "")
        # the echo ends with the whole line as typed; the answer follows it
        _, _, after = text.rpartition(line)
        return after.removesuffix(PROMPT.decode()).strip()

    def require(self, line: str) -> None:
        """Run `line`; MonitorError when QEMU printed anything (an error)."""
        answer = self.command(line)
        if answer:
            raise MonitorError(f"QEMU's monitor refused '{line}': {answer.splitlines()[0]}")


def _until_prompt(s: socket.socket) -> bytes:
    got = b""
    while not got.endswith(PROMPT):
        chunk = s.recv(65536)
        if not chunk:
            raise OSError("the monitor closed the connection")
        got += chunk
    return got
