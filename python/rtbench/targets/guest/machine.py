# SPDX-License-Identifier: Apache-2.0
"""One QEMU process: its command line, its serial line, and its end.

The protocol's serial line is QEMU's standard input and output (a `stdio`
character device), so the line closes exactly when QEMU ends. Its output goes to
a regular file in the machine's folder, which `follow` reads back as it grows:
QEMU makes its standard output non-blocking, and on a pipe a write the host has
not made room for fails, the emulated UART says "transmitter full" and the guest
waits for as long as rtbench takes to read, so a deterministic (-icount) guest's
timeline would follow the host's. A file takes every byte at once. On x86 the kernel
console is the first serial port, written to a log file, and the protocol uses
the second; `-M virt` on ARM has one PL011, shared with a silenced console
(`quiet loglevel=0`), whose stray lines the link counts as noise.

QEMU runs in its own process group and is killed with it on every path:
`stop()`, the atexit handler, and a second `stop()` are all safe; should
rtbench itself be killed, the kernel kills QEMU too (parent-death signal). KVM is used
only when asked for or when `/dev/kvm` really works for the guest's
architecture (see `kvm_usable`); otherwise TCG.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import fcntl
import os
import platform
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from rtbench.targets.guest.link import Link, request_line

POWER_OFF_S = 10.0
CONSOLE_LOG = "console.log"
SERIAL_OUT = "serial.out"  # the protocol line's output, as QEMU wrote it
# How long the reader of that file pauses when it has read all there is: from
# the first value, doubling while nothing comes, up to the second.
FOLLOW_PAUSE_S = (0.001, 0.01)
_PR_SET_PDEATHSIG = 1
_KVM_GET_API_VERSION = 0xAE00
_KVM_CREATE_VM = 0xAE01


class Launch(Protocol):
    """How one kind of machine is started: its command line in a private folder."""

    def argv(self, folder: Path) -> list[str]:
        """The emulator's command line; `folder` is the machine's private folder
        (pid file, console log)."""
        ...


@dataclass(frozen=True)
class MachineConfig:
    """Everything that decides how the guest is started."""

    qemu: str  # qemu-system-x86_64, -aarch64, -arm
    machine: list[str]  # -M/-cpu arguments
    kernel: Path
    initrd: Path
    append: str  # the kernel command line
    cpus: int
    memory_mib: int
    accel: str  # "kvm" or "tcg"
    icount: int | None  # the -icount shift, None when off
    console_port: bool  # a separate serial port for the kernel console (x86)

    def argv(self, folder: Path) -> list[str]:
        """QEMU's command line; `folder` is this machine's private folder (pid file,
        console log)."""
        args = [
            self.qemu,
            *self.machine,
            "-accel",
            self.accel,
            "-smp",
            str(self.cpus),
            "-m",
            str(self.memory_mib),
            "-nodefaults",
            "-no-user-config",
            "-display",
            "none",
            "-no-reboot",
            "-pidfile",
            str(folder / "qemu.pid"),
            "-kernel",
            str(self.kernel),
            "-initrd",
            str(self.initrd),
            "-append",
            self.append,
            "-chardev",
            "stdio,id=rtb,signal=off",
        ]
        if self.console_port:
            console = folder / CONSOLE_LOG
            args += ["-chardev", f"file,id=con,path={console}", "-serial", "chardev:con"]
        args += ["-serial", "chardev:rtb"]
        if self.icount is not None:
            # The guest clock follows executed instructions; a fixed RTC start makes
            # repeated runs see the same counter values.
            args += [
                "-icount",
                icount_option(self.icount),
                "-rtc",
                "base=2024-01-01T00:00:00,clock=vm",
            ]
        return args


_CLOCK_TICKS = float(os.sysconf("SC_CLK_TCK")) if hasattr(os, "sysconf") else 100.0


def icount_option(shift: int) -> str:
    """QEMU's -icount value of deterministic mode: 2^shift ns of emulated time per
    executed instruction, never adjusted to the host's clock (align=off), idle
    time skipped (sleep=off)."""
    return f"shift={shift},align=off,sleep=off"


def host_arch() -> str:
    """This machine's `uname -m`."""
    return platform.machine()


def kvm_usable(guest_machine: str) -> str | None:
    """None when KVM can run this guest here, else why not (one phrase)."""
    if guest_machine != host_arch():
        return f"the guest is {guest_machine} and this host {host_arch()}"
    try:
        fd = os.open("/dev/kvm", os.O_RDWR | os.O_CLOEXEC)
    except OSError as e:
        return f"/dev/kvm cannot be opened ({e.strerror})"
    try:
        if fcntl.ioctl(fd, _KVM_GET_API_VERSION) != 12:
            return "/dev/kvm speaks an unknown API version"
        vm = fcntl.ioctl(fd, _KVM_CREATE_VM, 0)
        os.close(vm)
    except OSError as e:
        return f"/dev/kvm refuses to create a virtual machine ({e.strerror})"
    finally:
        os.close(fd)
    if guest_machine in ("x86_64", "i686"):
        # A VM without nested virtualisation may still offer /dev/kvm; its guests
        # then never boot. The CPU must have VT-x or AMD-V.
        try:
            flags = Path("/proc/cpuinfo").read_text()
        except OSError:
            flags = ""
        words = set(flags.split())
        if not ({"vmx", "svm"} & words):
            return "the CPU has no virtualisation extension (no vmx/svm flag)"
    return None


def _resolve_prctl() -> Callable[..., int] | None:
    with contextlib.suppress(OSError, AttributeError):
        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
        return prctl
    return None


# Resolved once here: in the forked child only the call itself runs.
_PRCTL = _resolve_prctl()


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL when the process that started QEMU dies, so
    not even a killed rtbench leaves a guest running (Linux's PR_SET_PDEATHSIG)."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, int(signal.SIGKILL))


def follow(path: Path, ended: Callable[[], bool]) -> Iterator[bytes]:
    """The lines of the file `path` (newline included) as another process writes
    them, until `ended()` says it has ended and the file is read to its end; a last
    line without a newline comes as it is."""
    pending = b""
    pause = FOLLOW_PAUSE_S[0]
    with path.open("rb") as out:
        while True:
            chunk = out.read(1 << 16)
            if not chunk:
                done = ended()
                chunk = out.read(1 << 16)  # what it wrote before it ended
                if not chunk and done:
                    break
                if not chunk:
                    time.sleep(pause)
                    pause = min(pause * 2, FOLLOW_PAUSE_S[1])
                    continue
            pause = FOLLOW_PAUSE_S[0]
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                yield line + b"\n"
    if pending:
        yield pending


class Machine:
    """A running QEMU guest and its serial link."""

    def __init__(self, config: Launch) -> None:
        self.config = config
        self._dir = tempfile.TemporaryDirectory(prefix="rtbench-qemu-")
        self.folder = Path(self._dir.name)
        self.console_log = self.folder / CONSOLE_LOG
        self._stderr_path = Path(self._dir.name) / "qemu.stderr"
        self._process: subprocess.Popen[bytes] | None = None
        self._killed = False
        self._kill_reason: str | None = None
        self.link: Link | None = None
        self.started_at = 0.0

    def start(self) -> Link:
        """Start QEMU; returns the link (the agent announces itself on it when booted)."""
        output = self.folder / SERIAL_OUT
        with self._stderr_path.open("wb") as stderr, output.open("wb") as stdout:
            self._process = subprocess.Popen(
                self.config.argv(self.folder),
                stdin=subprocess.PIPE,
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,
                # only a resolved C call between fork and exec
                preexec_fn=_die_with_parent,  # noqa: PLW1509
            )
        process = self._process
        atexit.register(self.stop)
        self.started_at = time.monotonic()
        assert process.stdin is not None
        lines = follow(output, lambda: process.poll() is not None)
        self.link = Link(lines, process.stdin, self.exit_reason)
        return self.link

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def cpu_seconds(self) -> float | None:
        """The CPU time QEMU has used so far (user and system, every thread), or
        None when it cannot be read (not running, no /proc)."""
        pid = self.pid
        if pid is None:
            return None
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return None
        # the fields after the command name, which is in parentheses and may hold spaces
        fields = stat[stat.rfind(")") + 2 :].split()
        try:
            ticks = int(fields[11]) + int(fields[12])  # utime, stime
        except (IndexError, ValueError):
            return None
        return ticks / _CLOCK_TICKS

    def exit_reason(self) -> str:
        """Why the serial line ended, in a few words."""
        process = self._process
        if process is None:
            return "QEMU was not started"
        try:
            code = process.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            return "the guest's serial line closed while QEMU still ran"
        if self._kill_reason is not None:
            return self._kill_reason
        if self._killed:
            return "QEMU was stopped by rtbench"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"QEMU was killed by {name}"
        detail = self.stderr_tail().strip().splitlines()
        why = f": {detail[-1]}" if detail else ""
        return f"QEMU exited with status {code}{why}"

    def stderr_tail(self) -> str:
        with contextlib.suppress(OSError):
            return self._stderr_path.read_text(errors="replace")[-2000:]
        return ""

    def console_tail(self, lines: int = 15) -> str:
        """The last lines of the kernel console (log file, or noise on a shared line)."""
        text = ""
        with contextlib.suppress(OSError):
            text = self.console_log.read_text(errors="replace")
        if not text and self.link is not None:
            text = "\n".join(self.link.noise_tail)
        return "\n".join(text.splitlines()[-lines:])

    def kill(self, reason: str | None = None) -> None:
        """End QEMU and its process group at once; `reason` is what a lost scenario
        will say."""
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            self._killed = True
            if reason is not None and self._kill_reason is None:
                self._kill_reason = reason
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10.0)

    def stop(self) -> None:
        """Power the guest off (the agent's `off`), or kill QEMU when it does not
        end in time. Idempotent; never raises."""
        process = self._process
        try:
            running = process is not None and process.poll() is None
            if running and self.link is not None and self.link.closed is None:
                assert process is not None
                self._killed = True
                self.link.send(request_line("off"))
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=POWER_OFF_S)
        finally:
            self.kill()
            if process is not None:
                with contextlib.suppress(OSError, ValueError):
                    if process.stdin is not None:
                        process.stdin.close()
            atexit.unregister(self.stop)
            self._dir.cleanup()
            self._process = None
