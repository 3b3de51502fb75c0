# SPDX-License-Identifier: Apache-2.0
"""A real sshd in a network namespace of this machine, for the SSH target's tests.

`NamespaceSshd` creates a namespace and a veth pair with private /30 addresses
(10.213.N.1 here, 10.213.N.2 in the namespace), generates a host key and a client
key in a temporary folder, starts Debian's sshd in the namespace listening only
on its address, and writes an ssh client configuration that trusts exactly that
host key and offers exactly that identity (`options()`: RTBENCH_SSH_OPTIONS).
Nothing but the namespace's address is ever contacted. `stop()` kills every
process in the namespace and deletes it (which deletes the veth pair).

`why_unusable()` says why it cannot run here (not root, no sshd, no `ip`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SSHD = Path("/usr/sbin/sshd")
PRIVSEP_DIR = Path("/run/sshd")


def why_unusable() -> str | None:
    if os.geteuid() != 0:
        return "creating a network namespace needs root"
    if not SSHD.is_file():
        return "sshd is not installed (Debian package openssh-server)"
    for tool in ("ip", "ssh", "ssh-keygen"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    return None


def running(pid: int) -> bool:
    """Whether a process runs (a zombie waiting for its parent to collect it does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def _run(*argv: str) -> None:
    subprocess.run(argv, check=True, capture_output=True, timeout=30)


def _run_quietly(*argv: str) -> None:
    """A command whose failure means only that there was nothing to do."""
    subprocess.run(argv, capture_output=True, timeout=30, check=False)


def _free_subnet() -> int:
    """A third octet N for 10.213.N.0/30 that no interface here uses."""
    used = subprocess.run(
        ["ip", "-o", "-4", "addr", "show"], capture_output=True, text=True, timeout=10, check=True
    ).stdout
    start = os.getpid() % 200
    for step in range(250):
        n = (start + step) % 250 + 1
        if f"10.213.{n}." not in used:
            return n
    raise RuntimeError("no free 10.213.N.0/30 subnet")


class NamespaceSshd:
    """One namespace with one sshd; use as a context manager."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        tag = f"{os.getpid() % 100000}{int(time.monotonic() * 1000) % 1000}"
        self.netns = f"rtbssh{tag}"
        self.veth = f"rtbs{tag}"[:15]
        self.peer = f"rtbp{tag}"[:15]
        n = _free_subnet()
        self.host_address = f"10.213.{n}.1"
        self.address = f"10.213.{n}.2"
        self.listener: subprocess.Popen[bytes] | None = None
        self._made_privsep = False

    # -- setting up ----------------------------------------------------------------------

    def start(self) -> None:
        try:
            self._network()
            self._keys()
            self._sshd()
        except BaseException:
            self.stop()
            raise

    def _network(self) -> None:
        _run("ip", "netns", "add", self.netns)
        _run("ip", "link", "add", self.veth, "type", "veth", "peer", "name", self.peer)
        _run("ip", "link", "set", self.peer, "netns", self.netns)
        _run("ip", "addr", "add", f"{self.host_address}/30", "dev", self.veth)
        _run("ip", "link", "set", self.veth, "up")
        inside = ("ip", "netns", "exec", self.netns)
        _run(*inside, "ip", "addr", "add", f"{self.address}/30", "dev", self.peer)
        _run(*inside, "ip", "link", "set", self.peer, "up")
        _run(*inside, "ip", "link", "set", "lo", "up")

    def _keys(self) -> None:
        f = self.folder
        _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(f / "host_key"))
        _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(f / "id"))
        shutil.copy(f / "id.pub", f / "authorized_keys")
        host_pub = (f / "host_key.pub").read_text().split()
        (f / "known_hosts").write_text(f"{self.address} {host_pub[0]} {host_pub[1]}\n")
        (f / "ssh_config").write_text(
            "Host *\n"
            f"  IdentityFile {f / 'id'}\n"
            "  IdentitiesOnly yes\n"
            f"  UserKnownHostsFile {f / 'known_hosts'}\n"
            "  GlobalKnownHostsFile /dev/null\n"
            "  StrictHostKeyChecking yes\n"
            "  IdentityAgent none\n"
        )

    def _sshd(self) -> None:
        f = self.folder
        (f / "sshd_config").write_text(
            f"ListenAddress {self.address}\n"
            "Port 22\n"
            f"HostKey {f / 'host_key'}\n"
            f"AuthorizedKeysFile {f / 'authorized_keys'}\n"
            "PubkeyAuthentication yes\n"
            "PasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\n"
            "PermitRootLogin prohibit-password\n"
            "UsePAM no\n"
            "StrictModes no\n"
            "MaxSessions 64\n"
            "MaxStartups 64\n"
            f"PidFile {f / 'sshd.pid'}\n"
            "LogLevel ERROR\n"
        )
        if not PRIVSEP_DIR.exists():
            PRIVSEP_DIR.mkdir(mode=0o755, parents=True)
            self._made_privsep = True
        self.listener = subprocess.Popen(
            [
                "ip",
                "netns",
                "exec",
                self.netns,
                str(SSHD),
                "-D",
                "-e",
                "-f",
                str(f / "sshd_config"),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=(f / "sshd.log").open("wb"),
        )
        end_by = time.monotonic() + 15
        while time.monotonic() < end_by:
            if self.listener.poll() is not None:
                raise RuntimeError(f"sshd ended: {(f / 'sshd.log').read_text()[-500:]}")
            with contextlib.suppress(OSError), socket.create_connection((self.address, 22), 0.5):
                return
            time.sleep(0.05)
        raise RuntimeError("sshd did not listen within 15 s")

    # -- what the tests use --------------------------------------------------------------

    def spec(self, user: str = "root") -> str:
        return f"ssh://{user}@{self.address}"

    def options(self) -> str:
        """RTBENCH_SSH_OPTIONS for the client."""
        return f"-F {self.folder / 'ssh_config'}"

    def pids(self) -> list[int]:
        """Every process in the namespace."""
        out = subprocess.run(
            ["ip", "netns", "pids", self.netns],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout
        return [int(p) for p in out.split() if p.isdigit() and running(int(p))]

    def processes(self) -> dict[int, list[str]]:
        """pid -> argv of every process in the namespace."""
        found: dict[int, list[str]] = {}
        for pid in self.pids():
            with contextlib.suppress(OSError):
                raw = Path(f"/proc/{pid}/cmdline").read_bytes()
                found[pid] = raw.decode(errors="replace").split("\0")[:-1] or [""]
        return found

    def cores(self) -> dict[int, list[str]]:
        """The rtbench-core processes running in the namespace."""
        return {p: a for p, a in self.processes().items() if a[0].endswith("/rtbench-core")}

    def drop_sessions(self) -> int:
        """Kill every sshd serving a connection (not the listener): the connections
        drop as if the target's sshd died. How many were killed."""
        listener = self.listener_pid()
        killed = 0
        for pid in self.pids():
            if pid == listener:
                continue
            with contextlib.suppress(OSError):
                if Path(f"/proc/{pid}/comm").read_text().strip() == "sshd":
                    os.kill(pid, signal.SIGKILL)
                    killed += 1
        return killed

    def listener_pid(self) -> int | None:
        with contextlib.suppress(OSError, ValueError):
            return int((self.folder / "sshd.pid").read_text())
        return None

    # -- tearing down ----------------------------------------------------------------------

    def stop(self) -> None:
        """Kill every process in the namespace and delete it; safe to call twice."""
        for _attempt in range(3):
            pids = self.pids() if self._exists() else []
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.1)
        if self.listener is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.listener.wait(timeout=5)
        if self._exists():
            _run_quietly("ip", "netns", "del", self.netns)
        _run_quietly("ip", "link", "del", self.veth)
        if self._made_privsep:
            with contextlib.suppress(OSError):
                PRIVSEP_DIR.rmdir()
            self._made_privsep = False

    def _exists(self) -> bool:
        return Path(f"/run/netns/{self.netns}").exists()

    def __enter__(self) -> NamespaceSshd:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()


def serve(folder: Path) -> Iterator[NamespaceSshd]:
    """A module fixture's body: the server for the tests (skipped, with the reason,
    when it cannot run here), and afterwards no namespace left behind."""
    why = why_unusable()
    if why is not None:
        pytest.skip(f"no namespace sshd: {why}")
    server = NamespaceSshd(folder)
    with server:
        yield server
    assert not Path(f"/run/netns/{server.netns}").exists()
