# SPDX-License-Identifier: Apache-2.0
"""ser2net serving a board's UART over RFC 2217, as a lab serves its boards.

The board is the FreeRTOS image under QEMU with its UART on a pseudo-terminal
(`PtyBoard`): a real tty device, which ser2net opens and sets up (baud rate,
framing, raw mode) as it would a USB serial adapter. QEMU makes a new
pseudo-terminal at every boot, so the board keeps a symbolic link in its folder
pointing at the current one (removed while the board is off), and ser2net is
configured with the link: it opens the device afresh for each client.

`Ser2net` runs Debian's ser2net (4.3) in the foreground with its own YAML file
and pid file in a private folder, on a free loopback port, and without UUCP lock
files (`-u`): it never reads /etc/ser2net.yaml and never meets the system's
ser2net service, if one runs. `stop()` ends it; nothing else is left behind.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

SBIN = Path("/usr/sbin/ser2net")  # where Debian puts it; not on a user's PATH
BAUD = 115200


def ser2net_path() -> Path | None:
    found = shutil.which("ser2net")
    if found is not None:
        return Path(found)
    return SBIN if SBIN.is_file() else None


def why_unusable() -> str | None:
    """Why ser2net cannot run here, or None."""
    if ser2net_path() is None:
        return "ser2net is not installed (Debian package ser2net)"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def listening(port: int) -> bool:
    """Whether something listens on 127.0.0.1:port (read from /proc/net/tcp, so
    that ser2net never sees a client that would make it open the device)."""
    wanted = f"0100007F:{port:04X}"
    with contextlib.suppress(OSError), Path("/proc/net/tcp").open() as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            if len(fields) > 3 and fields[1] == wanted and fields[3] == "0A":
                return True
    return False


# A lab's boards run all the time, and an emulated FreeRTOS board spins in its
# idle task: each would take a whole CPU from the coordinator, the exporter and
# rtbench (and from the other tests running beside the lab's) on a 2-CPU
# machine. They run below everything else (`nice`); nothing the lab's tests
# check depends on how fast a board answers.
BOARD_NICE = ("nice", "-n", "10")


def _end(process: subprocess.Popen[bytes] | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


class SwitchedQemu:
    """QEMU running an image, switched on and off like a board on a power switch;
    `freeze` stops its CPU (the board hangs). Subclasses start QEMU in `on`."""

    def __init__(self, image: Path, folder: Path) -> None:
        self.image = image
        self.folder = folder
        self.monitor = folder / "qemu-monitor.sock"
        self.process: subprocess.Popen[bytes] | None = None
        self.boots = 0
        self.switches: list[str] = []  # "on", "off" as the switch was told
        self._lock = threading.Lock()

    def _kill(self) -> None:
        """End QEMU at once (the power goes); call with the lock held."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait(timeout=10)

    def powered(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def freeze(self) -> None:
        """Stop the emulated CPU: the board hangs, its UART goes silent."""
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(str(self.monitor))
            s.sendall(b"stop\n")
            time.sleep(0.2)


class PtyBoard(SwitchedQemu):
    """QEMU running an image with its UART on a pseudo-terminal, reached through
    the link `tty` in `folder`; switched on and off like a board on a power switch."""

    def __init__(self, image: Path, folder: Path) -> None:
        super().__init__(image, folder)
        self.tty = folder / "board-tty"
        self.log = folder / "qemu.log"
        # the tty appears this long after the power, as a board's own USB serial port
        # does once the board has enumerated it
        self.tty_delay_s = 0.0
        self._late: threading.Timer | None = None

    def on(self) -> None:
        with self._lock:
            self.switches.append("on")
            if self.powered():
                return
            self.monitor.unlink(missing_ok=True)
            with self.log.open("ab") as log:
                start = log.tell()
                self.process = subprocess.Popen(
                    [
                        *BOARD_NICE,
                        "qemu-system-arm", "-machine", "mps2-an385", "-cpu", "cortex-m3",
                        "-nographic", "-no-reboot", "-kernel", str(self.image),
                        "-monitor", f"unix:{self.monitor},server=on,wait=off",
                        "-chardev", "pty,id=uart", "-serial", "chardev:uart",
                    ],
                    stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                )  # fmt: skip
            self.boots += 1
            device = self._pty(start)
            if self.tty_delay_s > 0:
                self._late = threading.Timer(self.tty_delay_s, self._link, (device,))
                self._late.start()
            else:
                self._link(device)

    def _link(self, device: str) -> None:
        link = self.folder / "board-tty.new"
        link.unlink(missing_ok=True)
        link.symlink_to(device)
        link.replace(self.tty)

    def _pty(self, start: int) -> str:
        """The pseudo-terminal QEMU says it made (in its log, after `start`)."""
        end_by = time.monotonic() + 20
        while time.monotonic() < end_by:
            said = self.log.read_bytes()[start:]
            found = re.search(rb"redirected to (/dev/pts/\d+)", said)
            if found is not None:
                return found.group(1).decode()
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"QEMU ended: {said.decode(errors='replace')[-800:]}")
            time.sleep(0.05)
        raise RuntimeError("QEMU named no pseudo-terminal within 20 s")

    def off(self) -> None:
        with self._lock:
            self.switches.append("off")
            if self._late is not None:
                self._late.cancel()
                self._late.join()
                self._late = None
            # a pseudo-terminal's number is reused: never leave the link to another's
            self.tty.unlink(missing_ok=True)
            self._kill()


def config(device: Path, port: int, baud: int = BAUD) -> str:
    """ser2net's YAML for one serial device served over RFC 2217 on 127.0.0.1:port.
    `local`: ignore the modem control lines (a board's UART has no carrier detect);
    `mdns: false`: announce nothing on the network."""
    return (
        "%YAML 1.1\n"
        "---\n"
        "connection: &board\n"
        f"    accepter: telnet(rfc2217),tcp,127.0.0.1,{port}\n"
        "    enable: on\n"
        "    options:\n"
        "      mdns: false\n"
        f"    connector: serialdev,{device},{baud}n81,local\n"
    )


class Ser2net:
    """ser2net serving `device` over RFC 2217 on a free loopback port; use as a
    context manager (or start and stop)."""

    def __init__(self, device: Path, folder: Path) -> None:
        self.device = device
        self.folder = folder
        self.port = free_port()
        self.url = f"rfc2217://127.0.0.1:{self.port}"
        self.config = folder / "ser2net.yaml"
        self.log = folder / "ser2net.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = ser2net_path()
        if binary is None:
            raise RuntimeError(str(why_unusable()))
        self.config.write_text(config(self.device, self.port))
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [str(binary), "-n", "-u", "-c", str(self.config),
                 "-P", str(self.folder / "ser2net.pid")],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
            )  # fmt: skip
        end_by = time.monotonic() + 20
        while not listening(self.port):
            if self.process.poll() is not None or time.monotonic() > end_by:
                said = self.log.read_text(errors="replace")[-800:]
                self.stop()
                raise RuntimeError(f"ser2net did not listen on port {self.port}: {said}")
            time.sleep(0.05)

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        _end(self.process)

    def __enter__(self) -> Ser2net:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()
