# SPDX-License-Identifier: Apache-2.0
"""A machine reached over SSH, as a target (`ssh://[user@]host[:port]`).

`open()` connects (ssh.link), reads `uname -m` there, picks or builds a
statically linked core for that architecture and C library, and copies it into a
private folder made by `mktemp -d` on the target; `close()` removes the folder and
ends the connection. Core commands run there through `ssh.stream`, the settings
of the run are held there by `ssh.tuning`, and the system facts are read there
through the same connection.
"""

from __future__ import annotations

import contextlib
import subprocess
import time
from pathlib import Path
from typing import Any

from rtbench import build, system
from rtbench.errors import RtbenchError, UsageError
from rtbench.paths import ROOT
from rtbench.targets.base import Say, Tracing
from rtbench.targets.ssh.link import SshLink, remote_shell
from rtbench.targets.ssh.stream import SshTransport
from rtbench.targets.ssh.tuning import SshTuning

_RECOVER_TRIES = 3
_RECOVER_PAUSE_S = 2.0
_DEPLOY_TIMEOUT_S = 120.0

# Makes the private folder and says what the target is, in one round trip.
_PREPARE = (
    'd=$(mktemp -d "${TMPDIR:-/tmp}/rtbench.XXXXXXXX") || exit 1; echo "$d"; uname -m; uname -r'
)
# Copies stdin into $1/rtbench-core and makes it executable.
_COPY = (
    'cat > "$1/rtbench-core.part" && chmod 700 "$1/rtbench-core.part" '
    '&& mv -f "$1/rtbench-core.part" "$1/rtbench-core"'
)
# Removes the private folder, only if it is one rtbench made.
_REMOVE = 'case "$1" in */rtbench.*) rm -rf -- "$1" ;; esac'
# Waits for its input to end (rtbench closing it, or the session ending however it
# ends), then removes the private folder.
_KEEP = "while read -r _l; do :; done; " + _REMOVE


class SshTarget:
    """A Linux machine reached with the system's OpenSSH client."""

    kind = "ssh"
    runs_here = False

    def __init__(
        self, spec: str, libc: str = "glibc", extra_options: list[str] | None = None
    ) -> None:
        """`extra_options`: ssh client options of the kind that found the machine (a lab's
        jump host), after the user's own RTBENCH_SSH_OPTIONS."""
        self.link = SshLink(spec)  # UsageError for a malformed address, before any work
        self.link.extra += extra_options or []
        self.spec = spec
        self.libc = libc
        self.arch: str | None = None
        self.release: str | None = None
        self.folder: str | None = None
        self._say: Say = lambda _text: None
        self._transport: SshTransport | None = None
        self._tuning: SshTuning | None = None
        self._keeper: subprocess.Popen[bytes] | None = None

    # -- open ----------------------------------------------------------------------------

    def open(self, say: Say) -> None:
        self._say = say
        say(f"rtbench: connecting to {self.spec}")
        self.link.connect()
        self._prepare()

    def _prepare(self) -> None:
        """Make the private folder on the target, and the session that removes it."""
        lines = self.link.must(remote_shell(_PREPARE), "make a private folder").splitlines()
        if len(lines) < 3 or not lines[0].startswith("/"):
            raise RtbenchError(f"Cannot prepare {self.spec}: it answered {lines!r}.")
        self.folder, self.arch, self.release = lines[0], lines[1], lines[2]
        self._end_keeper()
        self._keeper = self.link.popen(remote_shell(_KEEP, self.folder), stdin=subprocess.PIPE)

    def _core(self, say: Say) -> Path:
        """The static core for the target's architecture and the chosen C library."""
        assert self.arch is not None
        return build.ensure_core(ROOT, say, arch=self.arch, libc=self.libc, static=True)

    def _deploy(self, core: Path) -> None:
        assert self.folder is not None
        try:
            with core.open("rb") as f:
                status, _out, err = self.link.run(
                    remote_shell(_COPY, self.folder), timeout_s=_DEPLOY_TIMEOUT_S, stdin=f
                )
        except OSError as e:
            raise RtbenchError(f"Cannot read {core}: {e.strerror or e}.") from None
        if status != 0:
            said = err.decode("utf-8", errors="replace").strip().splitlines()
            raise RtbenchError(
                f"Cannot copy rtbench-core to {self.spec}:{self.folder}: "
                f"{said[-1] if said else f'exit status {status}'}."
            )

    # -- the Target protocol ---------------------------------------------------------------

    def transport(self) -> SshTransport:
        # The core is copied on first use: `rtbench system` needs none.
        if self._transport is None:
            if self.folder is None:
                raise RtbenchError(f"The target {self.spec} is not open.")
            core = self._core(self._say)
            self._say(f"rtbench: copying rtbench-core ({self.arch}) to {self.spec}:{self.folder}")
            self._deploy(core)
            self._transport = SshTransport(self.link, self.folder)
        return self._transport

    def check_cpu(self, cpu: int | None) -> int:
        usable = system.usable_cpus(self._source())
        if cpu is None:
            return usable[-1] if usable else 0
        if cpu not in usable:
            listed = ", ".join(str(c) for c in usable)
            raise UsageError(
                f"CPU {cpu} is not online or not allowed on {self.spec} (usable: {listed})."
            )
        return cpu

    def _source(self) -> system.CommandSource:
        """The target's system facts, read through commands over the connection."""
        return system.CommandSource(self.link.run_argv)

    def snapshot(self, cpu: int, cpu_given: bool) -> dict[str, Any]:
        return system.snapshot(cpu, cpu_given=cpu_given, source=self._source())

    def caveats(self, snap: dict[str, Any]) -> list[dict[str, str]]:
        return system.caveats(snap)

    def tuning(self, dma_latency: bool, lift_rt_throttle: bool, cpu: int) -> SshTuning:
        self._tuning = SshTuning(self.link, dma_latency, lift_rt_throttle)
        return self._tuning

    def recover(self, say: Say) -> bool:
        """Reconnect (a few tries, each bounded by the connection timeout), kill what the
        lost command left running, and hold the run's settings again."""
        for attempt in range(1, _RECOVER_TRIES + 1):
            if attempt > 1:
                time.sleep(_RECOVER_PAUSE_S * (attempt - 1))  # let a short outage pass
            say(f"rtbench: reconnecting to {self.spec} (try {attempt} of {_RECOVER_TRIES})")
            try:
                self.link.connect()
            except RtbenchError:
                continue
            try:
                left = self._resume()
            except RtbenchError as e:
                say(f"rtbench: {e}")
                return False
            killed = (
                f"; killed {left} core command(s) the lost session left running" if left else ""
            )
            say(f"rtbench: reconnected to {self.spec}{killed}")
            return True
        return False

    def _resume(self) -> int:
        """After a reconnection: kill what the lost session left, deploy the core again
        (the session that kept its folder ended with the connection), hold the settings
        again. How many core commands were killed."""
        left = 0
        if self._transport is not None:
            left = self._transport.reap()
            self._prepare()
            self._deploy(self._core(self._say))
            assert self.folder is not None
            self._transport.relocate(self.folder)
        if self._tuning is not None:
            self._tuning.renew()
        return left

    def shares_host_cpus(self) -> bool:
        return False  # another machine's CPUs

    def tracing(self) -> Tracing | None:
        from rtbench.targets.ssh.tracefs import SshTracefs  # noqa: PLC0415
        from rtbench.targets.tracing import KernelTracing  # noqa: PLC0415

        return KernelTracing(lambda: SshTracefs(self.link, self.spec), self._need_root)

    def _need_root(self) -> None:
        uid = self.link.must("id -u", "read the user id")
        if uid.strip() != "0":
            raise UsageError(
                f"--trace needs root on {self.spec}: it sets up a tracefs instance "
                "there (connect as root@...)."
            )

    def render_snapshot(self, snap: dict[str, Any], cavs: list[dict[str, str]]) -> str:
        return system.render(snap, cavs)

    def describe(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "spec": self.spec,
            "arch": self.arch,
            "kernel_release": self.release,
            "libc": self.libc,
            "core_path": None if self.folder is None else f"{self.folder}/rtbench-core",
        }

    def close(self) -> None:
        try:
            if self._tuning is not None:
                self._tuning.restore()
            if self._transport is not None:
                self._transport.reap()
            removed = self._end_keeper()
            if self.folder is not None and not removed and self.link.alive():
                self.link.run(remote_shell(_REMOVE, self.folder), timeout_s=15)
        finally:
            self._transport = None
            self._end_keeper()
            self.link.close()

    def _end_keeper(self) -> bool:
        """Close the keeper's input so it removes the folder; whether it did."""
        keeper, self._keeper = self._keeper, None
        if keeper is None:
            return False
        removed = False
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            if keeper.stdin is not None:
                keeper.stdin.close()
            removed = keeper.wait(timeout=10) == 0
        if keeper.poll() is None:
            keeper.kill()
            keeper.wait(timeout=5)
        for pipe in (keeper.stdout, keeper.stderr):
            if pipe is not None:
                pipe.close()
        return removed
