# SPDX-License-Identifier: Apache-2.0
"""tracefs on an SSH target: trace.kernel.shell_tracefs's scripts run over the target's
connection, one session per step, with a guard session next to them.

The guard is a session over the same master connection: when rtbench ends
normally it closes the guard's input; when rtbench dies or the connection ends,
sshd closes it, and the guard removes the instance. If the connection is down at
the end, `close()` says that the instance may be left and how to remove it.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Sequence
from typing import IO

from rtbench.targets.ssh.link import STATUS_TIMEOUT, SshLink, remote_shell
from rtbench.trace.kernel.shell_tracefs import ShellTracefs


class _SshGuard:
    """A guard session: an ssh client whose input rtbench holds."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process = process

    def ended(self) -> bool:
        return self._process.poll() is not None

    def end(self, wait_s: float) -> bytes:
        guard = self._process
        out = b""
        with contextlib.suppress(OSError, ValueError, subprocess.TimeoutExpired):
            out, _err = guard.communicate(timeout=wait_s)  # closes its input
        if guard.poll() is None:
            guard.kill()
            guard.wait(timeout=5)
        for pipe in (guard.stdout, guard.stderr):
            if pipe is not None:
                pipe.close()
        return out or b""


class SshShell:
    """Runs the scripts over `link` (trace.kernel.shell_tracefs.ShellRunner)."""

    where = "ssh"
    removal = (
        "a guard session on the target removes the instance when rtbench ends or the "
        "connection is lost"
    )

    def __init__(self, link: SshLink, spec: str) -> None:
        self._link = link
        self._spec = spec

    def run(self, script: str, args: Sequence[str], timeout_s: float) -> tuple[int, bytes, bytes]:
        return self._link.run(remote_shell(script, *args), timeout_s=timeout_s)

    def run_to(
        self, script: str, args: Sequence[str], out: IO[bytes], timeout_s: float
    ) -> tuple[int, bytes]:
        argv = self._link.client_argv(remote_shell(script, *args))
        try:
            done = subprocess.run(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.PIPE,
                timeout=timeout_s,
                check=False,
                start_new_session=True,
            )
        except subprocess.TimeoutExpired:
            return STATUS_TIMEOUT, b""
        return done.returncode, done.stderr

    def guard(self, script: str, args: Sequence[str]) -> _SshGuard:
        return _SshGuard(self._link.popen(remote_shell(script, *args), stdin=subprocess.PIPE))

    def alive(self) -> bool:
        return self._link.alive()

    def why_down(self) -> str:
        return self._link.why_down()

    def generation(self) -> int:
        return 0  # a lost connection is seen by the guard ending

    def left_behind(self, path: str) -> str | None:
        name = path.rsplit("/", 1)[-1]
        return (
            f"--trace: the connection to {self._spec} is gone, so its tracefs instance "
            f"instances/{name} may be left there; remove it on {self._spec} with "
            f"`rmdir {path}`."
        )


class SshTracefs(ShellTracefs):
    """tracefs on the machine at the other end of `link`."""

    def __init__(self, link: SshLink, spec: str) -> None:
        super().__init__(SshShell(link, spec), spec)
