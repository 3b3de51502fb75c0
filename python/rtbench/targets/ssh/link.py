# SPDX-License-Identifier: Apache-2.0
"""One SSH connection to a target, through the system's OpenSSH client.

`SshLink` starts a master connection (`ssh -M -N`) whose control socket lives in a
private temporary folder of this run; every later command is a session multiplexed
over it, so a round trip costs milliseconds instead of a new handshake. Using the
system's `ssh` means the user's keys, agent, `~/.ssh/config` and jump hosts apply as
they expect. `BatchMode=yes` makes it fail instead of asking for anything, and
`ConnectTimeout` makes a wrong or unreachable host fail within seconds.

Extra client options come from the environment variable RTBENCH_SSH_OPTIONS, split
like a shell would (`-F ./ssh_config -J gateway -o IdentitiesOnly=yes`). Options
given there win over rtbench's defaults (the first value ssh sees is the one it
uses), except BatchMode and the control socket, which rtbench needs.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO
from urllib.parse import urlsplit

from rtbench.errors import RtbenchError, UsageError

OPTIONS_ENV = "RTBENCH_SSH_OPTIONS"
CONNECT_TIMEOUT_S = 8
ALIVE_INTERVAL_S = 2
ALIVE_COUNT = 3
_PR_SET_PDEATHSIG = 1
# ssh's own exit status when the connection (not the remote command) failed
SSH_FAILED = 255
# what `timeout` and the system facts' command sources say for a command out of time
STATUS_TIMEOUT = 124


@dataclass(frozen=True)
class Address:
    """What `ssh://[user@]host[:port]` names."""

    host: str
    user: str | None
    port: int | None

    def destination(self) -> str:
        return self.host if self.user is None else f"{self.user}@{self.host}"


def parse_address(spec: str) -> Address:
    """The address in an ssh:// target, or UsageError in one sentence."""
    usage = f"Cannot read the SSH target '{spec}' (write ssh://[user@]host[:port])."
    if not spec.startswith("ssh://"):
        raise UsageError(usage)
    try:
        parts = urlsplit(spec)
        port = parts.port
    except ValueError:
        raise UsageError(usage) from None
    host = parts.hostname
    if not host or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise UsageError(usage)
    if port == 0:
        raise UsageError(f"The SSH target '{spec}' names port 0; a port is 1 to 65535.")
    if parts.password is not None:
        raise UsageError(
            f"The SSH target '{spec}' holds a password; rtbench never asks for or sends "
            "one (use a key or an agent)."
        )
    if host.startswith("-") or (parts.username or "").startswith("-"):
        raise UsageError(usage)
    return Address(host=host, user=parts.username or None, port=port)


def extra_options() -> list[str]:
    """The client options of RTBENCH_SSH_OPTIONS, or UsageError if they cannot be split."""
    text = os.environ.get(OPTIONS_ENV, "")
    try:
        return shlex.split(text)
    except ValueError as e:
        raise UsageError(f"Cannot split {OPTIONS_ENV} like a shell would: {e}.") from None


def ssh_ready() -> str | None:
    """None when the OpenSSH client is installed, else why the SSH target cannot work."""
    return None if shutil.which("ssh") else "the OpenSSH client (ssh) is not installed"


def remote_shell(script: str, *args: str) -> str:
    """A command line that runs `script` with POSIX sh on the target, whatever the
    login shell there, with `args` as $1, $2, ..."""
    return "exec sh -c " + shlex.join([script, "rtbench", *args])


def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        function: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return function


_PRCTL = _prctl()  # looked up here: the child of a fork should do as little as it can


def _die_with_parent() -> None:
    """In the master's child before exec: end when rtbench ends, however it ends (Linux's
    parent-death signal), so no connection outlives the run."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1].rstrip(".") if lines else ""


class SshLink:
    """The master connection to one target and the commands run over it."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.address = parse_address(spec)
        self.extra = extra_options()
        self._dir: Path | None = None
        self._master: subprocess.Popen[bytes] | None = None
        self._master_log: IO[bytes] | None = None

    # -- the command lines -----------------------------------------------------------

    def _common(self) -> list[str]:
        assert self._dir is not None
        argv = ["-o", "BatchMode=yes", "-o", f"ControlPath={self._dir / 'control'}"]
        argv += self.extra
        argv += [
            "-o",
            f"ConnectTimeout={CONNECT_TIMEOUT_S}",
            "-o",
            f"ServerAliveInterval={ALIVE_INTERVAL_S}",
            "-o",
            f"ServerAliveCountMax={ALIVE_COUNT}",
            "-o",
            "LogLevel=ERROR",
        ]
        if self.address.port is not None:
            argv += ["-p", str(self.address.port)]
        return argv

    def client_argv(self, command: str) -> list[str]:
        """The ssh command line that runs `command` (a shell command line) on the target
        through the master connection."""
        return [
            "ssh",
            "-o",
            "ControlMaster=no",
            *self._common(),
            "-T",
            "--",
            self.address.destination(),
            command,
        ]

    # -- the master connection -------------------------------------------------------

    def connect(self) -> None:
        """Open the master connection; RtbenchError in one sentence when it fails."""
        self.disconnect()
        if shutil.which("ssh") is None:
            raise UsageError(
                f"Cannot connect to {self.spec}: the OpenSSH client (ssh) is not installed."
            )
        if self._dir is None:
            # a Unix socket's path has room for about 100 bytes
            base = tempfile.gettempdir()
            self._dir = Path(
                tempfile.mkdtemp(prefix="rtbench-ssh-", dir=base if len(base) < 60 else "/tmp")
            )
        log_path = self._dir / "master.log"
        self._master_log = log_path.open("w+b")
        argv = [
            "ssh",
            "-o",
            "ControlMaster=yes",
            "-o",
            "ControlPersist=no",
            *self._common(),
            "-N",
            "--",
            self.address.destination(),
        ]
        self._master = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._master_log,
            start_new_session=True,  # a Ctrl-C at the terminal is the runner's to handle
            # only a foreign call, prepared before the fork (see _die_with_parent)
            preexec_fn=_die_with_parent if _PRCTL is not None else None,  # noqa: PLW1509
        )
        # Everything ssh may spend: the TCP connection, a jump host's, authentication.
        deadline = time.monotonic() + 3 * CONNECT_TIMEOUT_S + 5
        socket = self._dir / "control"
        while time.monotonic() < deadline:
            if self._master.poll() is not None:
                why = self._master_output() or f"ssh exited with status {self._master.returncode}"
                self.disconnect()
                raise UsageError(f"Cannot connect to {self.spec}: {why}.")
            if socket.exists() and self._check():
                return
            time.sleep(0.05)
        self.disconnect()
        raise UsageError(
            f"Cannot connect to {self.spec}: no SSH session within {3 * CONNECT_TIMEOUT_S + 5} s."
        )

    def _check(self) -> bool:
        assert self._dir is not None
        try:
            done = subprocess.run(
                ["ssh", *self._common(), "-O", "check", "--", self.address.destination()],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=5,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return False
        return done.returncode == 0

    def _master_output(self) -> str:
        if self._master_log is None:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self._master_log.flush()
            self._master_log.seek(0)
            return _last_line(self._master_log.read().decode("utf-8", errors="replace"))
        return ""

    def alive(self) -> bool:
        """Is the master connection still up (as far as this side knows)?"""
        return self._master is not None and self._master.poll() is None

    def why_down(self) -> str:
        """What the master said when it ended, in a few words."""
        said = self._master_output()
        return f"the SSH connection ended ({said})" if said else "the SSH connection ended"

    def disconnect(self) -> None:
        """End the master connection (and with it every session over it)."""
        master, self._master = self._master, None
        if master is not None and master.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(master.pid, signal.SIGTERM)
            try:
                master.wait(timeout=5)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(master.pid, signal.SIGKILL)
                master.wait(timeout=5)
        log, self._master_log = self._master_log, None
        if log is not None:
            log.close()

    def close(self) -> None:
        """Disconnect and remove the private folder; idempotent."""
        self.disconnect()
        folder, self._dir = self._dir, None
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)

    # -- commands ------------------------------------------------------------------------

    def run(
        self, command: str, timeout_s: float = 10.0, stdin: IO[bytes] | None = None
    ) -> tuple[int, bytes, bytes]:
        """Run a shell command line on the target: (status, stdout, stderr). Status 255
        with the master gone: the connection failed. Never raises for the command."""
        if not self.alive():
            return SSH_FAILED, b"", self.why_down().encode()
        try:
            done = subprocess.run(
                self.client_argv(command),
                stdin=stdin if stdin is not None else subprocess.DEVNULL,
                capture_output=True,
                timeout=timeout_s,
                check=False,
                start_new_session=True,
            )
        except subprocess.TimeoutExpired:
            return SSH_FAILED, b"", f"no answer within {timeout_s:g} s".encode()
        except OSError as e:
            return SSH_FAILED, b"", f"ssh could not be started: {e.strerror or e}".encode()
        return done.returncode, done.stdout, done.stderr

    def run_argv(self, argv: Sequence[str], timeout_s: float = 10.0) -> tuple[int, bytes]:
        """`argv` run on the target (each word quoted): (status, stdout). The shape of
        callable the system facts' CommandSource reads through."""
        status, out, err = self.run(shlex.join(argv), timeout_s=timeout_s)
        if status == SSH_FAILED and err.startswith(b"no answer within"):
            return STATUS_TIMEOUT, out
        return status, out

    def must(self, command: str, what: str, timeout_s: float = 30.0) -> str:
        """Run a command that has to work; its stdout, or RtbenchError saying `what` failed."""
        status, out, err = self.run(command, timeout_s=timeout_s)
        if status != 0:
            said = _last_line(err.decode("utf-8", errors="replace"))
            if status == SSH_FAILED and not self.alive():
                said = self.why_down()
            raise RtbenchError(f"Cannot {what} on {self.spec}: {said or f'exit status {status}'}.")
        return out.decode("utf-8", errors="replace").strip()

    def popen(self, command: str, stdin: int | IO[bytes]) -> subprocess.Popen[bytes]:
        """Start a long-running command over the master connection."""
        return subprocess.Popen(
            self.client_argv(command),
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
