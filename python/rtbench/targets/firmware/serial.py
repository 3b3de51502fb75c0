# SPDX-License-Identifier: Apache-2.0
"""A board on a serial port, flashed with an rtbench image:
`serial:DEVICE[,baud=N][,image=PATH]`.

The image speaks the same serial line protocol as on an emulated board
(targets.guest.link); here the line is a real serial port (or anything pyserial
opens by URL: `socket://host:port` for a port a lab serves over TCP, which is
how `labgrid:PLACE` reaches its boards). rtbench neither builds nor flashes the
image: the board is flashed beforehand (docs/porting.md says how to add a board).
`image=PATH` names the ELF that was flashed, so the results record its digest,
its code size and the RTOS sources it was built from (targets.firmware.flashed).

`open` opens the port and waits a moment for the image's `ready` line; a board
that booted before the port was opened said it already, so the image is then
asked for each RTOS's facts file until one answers. The board is one CPU (0);
its facts (release, board, CPU, counter, configuration) come from the image.
A unit lost on a real board cannot be recovered by rtbench (it cannot reset
the board): `recover` reopens the port (for up to REOPEN_S while the port cannot
be opened) and goes on only when the image answers; `labgrid:` power-cycles the
board first.

pyserial (PyPI) is an optional dependency: requirements/serial.txt.
"""

from __future__ import annotations

import contextlib
import datetime
import importlib
import json
import os
import platform
import re
import socket
import threading
import time
import urllib.parse
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from rtbench.errors import RtbenchError, UsageError
from rtbench.system.model import SNAPSHOT_VERSION
from rtbench.targets.base import Say, Tracing
from rtbench.targets.firmware import flashed
from rtbench.targets.firmware.boards import BOARDS
from rtbench.targets.firmware.rtos import Rtos
from rtbench.targets.firmware.rtoses import RTOSES
from rtbench.targets.firmware.target import NoTuning, render
from rtbench.targets.guest.link import (
    KILL_ANSWER_S,
    Link,
    LinkSource,
    LinkStream,
    request_line,
)
from rtbench.transport import TargetLost

DEFAULT_BAUD = 115200
READY_WAIT_S = 2.0  # for a `ready` line from a board that is booting now
PROBE_TIMEOUT_S = 5.0  # for an answer from a board that booted before
REOPEN_S = 15.0  # how long `recover` tries to open the port again
_REOPEN_EVERY_S = 0.5
_SERVER_SAYS_S = 1.0  # how long to listen for why an RFC 2217 server closed
_READ_SLICE_S = 0.2  # how long one read of the port may block (closing waits that long)
INSTALL = ".venv/bin/python -m pip install --require-hashes -r requirements/serial.txt"


def ready() -> str | None:
    """None when pyserial can be imported, else how to get it."""
    try:
        importlib.import_module("serial")
    except ImportError:
        return f"pyserial is not installed (run {INSTALL})"
    return None


def parse_spec(spec: str, kind: str = "serial") -> tuple[str, int, Path | None]:
    """The device, baud rate and flashed image of `serial:DEVICE[,baud=N][,image=PATH]`,
    or UsageError."""
    device, *pairs = spec.removeprefix(f"{kind}:").split(",")
    if not device:
        raise UsageError(f"The target '{spec}' names no serial device (serial:/dev/ttyUSB0).")
    baud, image = DEFAULT_BAUD, None
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if key == "image" and sep and value:
            image = Path(value).expanduser()
            if not image.is_file():
                raise UsageError(f"image={value} in '{spec}' is not a file (the ELF flashed).")
            continue
        if key != "baud" or not sep or not re.fullmatch(r"[1-9]\d{0,7}", value):
            raise UsageError(
                f"Unknown option '{pair}' in '{spec}' (it takes baud=N, a whole number of bits "
                "per second, and image=PATH, the ELF flashed on the board)."
            )
        baud = int(value)
    return device, baud, image


class SerialLine:
    """One open serial port as the two directions of a Link: iterating yields its
    lines (ending when the port is closed or fails), `write` sends bytes."""

    def __init__(self, port: Any) -> None:
        self._port = port
        self._closing = threading.Event()
        self.failure = ""

    @classmethod
    def open(cls, url: str, baud: int) -> SerialLine:
        """The port (a device path, or a pyserial URL such as socket://host:port or
        rfc2217://host:port)."""
        serial = importlib.import_module("serial")
        port = None
        try:
            port = serial.serial_for_url(
                pyserial_url(url), baudrate=baud, timeout=_READ_SLICE_S, do_not_open=True
            )
            if url.startswith("rfc2217://"):
                _quiet_rfc2217_readers()
            port.open()
        except (serial.SerialException, OSError, ValueError) as e:
            said = _server_said(url, e) if port is not None else ""
            why = f"the server there said '{said}' and closed the connection" if said else ""
            why = why or _why(e, baud)
            raise UsageError(f"Cannot open the serial port {url}: {why}.") from None
        return cls(port)

    def __iter__(self) -> Iterator[bytes]:
        pending = b""
        while not self._closing.is_set():
            try:
                chunk = self._port.read(4096)
            except Exception as e:
                if not self._closing.is_set():
                    self.failure = _why(e)
                return
            if not chunk:
                continue
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                yield line + b"\n"

    def write(self, data: bytes, /) -> int | None:
        try:
            written: int | None = self._port.write(data)
        except Exception as e:
            raise OSError(_why(e)) from None
        return written

    def flush(self) -> None:
        try:
            self._port.flush()
        except Exception as e:
            raise OSError(_why(e)) from None

    def close(self) -> None:
        """Close the port; the reader ends within one read. Idempotent."""
        self._closing.set()
        with contextlib.suppress(Exception):
            self._port.close()


def pyserial_url(url: str) -> str:
    """The URL pyserial is given for what the user wrote: an RFC 2217 port
    (`rfc2217://host:port`, what ser2net serves) gets `ign_set_control`, as labgrid's
    own serial driver does. pyserial sets DTR and RTS on opening and waits for the
    server to confirm each; ser2net confirms only what the port carried out, so a
    port without modem control lines (a pseudo-terminal, whose ioctls for them fail)
    never confirms and the port would fail to open after pyserial's 3 s. The line
    protocol uses neither line; the baud rate and framing are still negotiated and
    checked."""
    if not url.startswith("rfc2217://"):
        return url
    parts = urllib.parse.urlsplit(url)
    options = urllib.parse.parse_qs(parts.query, keep_blank_values=True)
    if "ign_set_control" in options:
        return url
    query = "&".join(q for q in (parts.query, "ign_set_control") if q)
    return urllib.parse.urlunsplit(parts._replace(query=query))


def _server_said(url: str, failure: BaseException) -> str:
    """Why an RFC 2217 server closed a connection it would not serve, in its own
    words (ser2net: "Port already in use" when another client has the port, "Device
    open failure: ..." when it cannot open the device), or "". pyserial loses those
    words: its telnet answers reach the closed socket, and the reset that follows
    discards what was not read yet. So a second connection that only listens, for
    at most a second, reads them."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "rfc2217" or parts.hostname is None or "refused" in str(failure):
        return ""  # nothing listens there
    data = b""
    with (
        contextlib.suppress(OSError),
        socket.create_connection((parts.hostname, parts.port or 0), timeout=_SERVER_SAYS_S) as sock,
    ):
        end_by = time.monotonic() + _SERVER_SAYS_S
        while time.monotonic() < end_by:
            sock.settimeout(max(0.01, end_by - time.monotonic()))
            chunk = sock.recv(4096)
            if not chunk:  # the server closed: what it said is its reason
                text = re.sub(rb"\xff\xfa.*?\xff\xf0|\xff[\xfb-\xfe].|\xff.", b"", data, flags=re.S)
                lines = text.decode("ascii", errors="replace").splitlines()
                return " ".join(line.strip() for line in lines if line.strip().isprintable())
            data += chunk
    return ""


_QUIET_READERS = threading.Lock()
_quieted = False


def _quiet_rfc2217_readers() -> None:
    """pyserial's RFC 2217 reader thread answers the server's telnet negotiation, and
    raises BrokenPipeError (printed as a traceback) when the server already closed the
    connection, as ser2net does with a client it will not serve. That end is seen
    anyway (the port fails to open, or its reads end), so such an error of that thread
    is not printed; everything else goes to the hook that was there."""
    global _quieted  # noqa: PLW0603
    with _QUIET_READERS:
        if _quieted:
            return
        _quieted = True
        previous = threading.excepthook

        def hook(args: threading.ExceptHookArgs) -> None:
            name = args.thread.name if args.thread is not None else ""
            if name.startswith("pySerial RFC 2217 reader") and isinstance(args.exc_value, OSError):
                return
            previous(args)

        threading.excepthook = hook


# what pyserial says, and what rtbench says instead (after "Cannot open the serial port X: ")
_PYSERIAL_SAYS = (
    (
        "Remote does not seem to support RFC2217",
        "the server there does not speak RFC 2217 (a raw TCP port is socket://HOST:PORT)",
    ),
    (
        "Remote does not accept parameter change",
        "the server there did not accept {baud} baud, 8 data bits, no parity, 1 stop bit",
    ),
    ("timeout while waiting for option", "the server there stopped answering RFC 2217 requests"),
    ("reader thread died", "the connection closed"),
)


def _why(e: BaseException, baud: int = DEFAULT_BAUD) -> str:
    errno = getattr(e, "errno", None)
    if isinstance(errno, int):
        return os.strerror(errno).lower()
    text = str(e)
    for said, meant in _PYSERIAL_SAYS:
        if said in text:
            return meant.format(baud=baud)
    # pyserial's URL handlers: "Could not open port URL: [Errno 111] Connection refused"
    text = re.sub(r"^Could not open port \S+: ", "", text)
    found = re.fullmatch(r"\[Errno (-?\d+)\] (.*)", text)
    if found:
        text = found.group(2)
        text = text[:1].lower() + text[1:]
    return text.rstrip(".") or type(e).__name__


class SerialTransport:
    """Starts core runs in the image through the open link."""

    def __init__(self, target: SerialTarget) -> None:
        self._target = target
        self.name = target.spec

    def start(self, args: Sequence[str]) -> LinkStream:
        link = self._target.link
        if link is None or link.closed is not None:
            raise TargetLost("the serial line is closed")
        target = self._target

        def end() -> None:
            # the image did not answer a kill: give up the line, so the run sees it lost
            target.drop_line(f"the image did not answer a kill within {KILL_ANSWER_S:.0f} s")

        return LinkStream(link, list(args), end)

    def describe(self) -> dict[str, str | None]:
        return {"path": f"the image on {self._target.where}", "version": None}


class SerialTarget:
    """A board running an rtbench image, measured over a serial line."""

    kind = "serial"
    runs_here = False

    def __init__(
        self,
        spec: str,
        libc: str = "glibc",
        *,
        url: str | None = None,
        baud: int | None = None,
        where: str | None = None,
        image: Path | None = None,
    ) -> None:
        """`url`/`baud`/`where`: given by kinds that find the port themselves (a lab
        place); otherwise read from `serial:DEVICE[,baud=N]`."""
        if libc != "glibc":
            raise UsageError(
                "--libc chooses the C library of a Linux core; a board's image is built "
                "with picolibc."
            )
        self.spec = spec
        if url is None:
            url, baud, image = parse_spec(spec)
        self.image = image
        self.flashed: dict[str, Any] | None = None  # targets.firmware.flashed.describe
        self.url = url
        self.baud = baud or DEFAULT_BAUD
        self.where = where or url  # what messages call the port
        self.line: SerialLine | None = None
        self.link: Link | None = None
        self.rtos: Rtos | None = None
        self.release: str | None = None
        self.board: str | None = None
        self.connects = 0
        self._dropped = ""
        self._transport = SerialTransport(self)

    # ---- the line ---------------------------------------------------------------

    def open(self, say: Say) -> None:
        problem = ready()
        if problem is not None:
            raise UsageError(f"The {self.spec} target cannot be used here: {problem}.")
        self._connect(say)
        if self.image is not None and self.rtos is not None and self.flashed is None:
            self.flashed = flashed.describe(self.rtos, self.image, self.release)
            for note in self.flashed["notes"]:
                say(f"The image {self.image}: {note}.")

    def _connect(self, say: Say) -> None:
        line = SerialLine.open(self.url, self.baud)
        say(f"Talking to the board on {self.where} at {self.baud} baud...")
        self.line = line
        self._dropped = ""
        self.link = Link(line, line, lambda: self._dropped or line.failure or "the port closed")
        try:
            self._identify(self.link)
        except BaseException:
            self.drop_line("closed")
            raise
        self.connects += 1

    def _identify(self, link: Link) -> None:
        announced = link.wait_ready(READY_WAIT_S)
        if announced is not None:
            self.release = announced.text
            self.board = announced.data.decode(errors="replace")
            self.rtos = next(
                (r for r in RTOSES.values() if announced.text.startswith(r.display)), None
            )
        if link.closed is not None:
            raise RtbenchError(f"The serial port {self.where} closed ({link.closed}).")
        # a board that booted before the port was opened said `ready` already: ask it
        for rtos in [self.rtos] if self.rtos else list(RTOSES.values()):
            try:
                events = link.reply(request_line("read", rtos.facts_path), PROBE_TIMEOUT_S)
            except TargetLost:
                break
            if events[-1].kind == "done":
                self.rtos = rtos
                facts = _json(b"".join(e.data for e in events if e.kind == "data"))
                self.release = self.release or str(facts.get("kernel") or rtos.display)
                self.board = self.board or str(facts.get("board") or "")
                return
        raise RtbenchError(
            f"Nothing on {self.where} answered rtbench's serial protocol within "
            f"{READY_WAIT_S + PROBE_TIMEOUT_S:.0f} s; flash the board with an rtbench image "
            f"and check the port and its baud rate ({self.baud})."
        )

    def drop_line(self, why: str) -> None:
        """Close the port (the link then says it closed, with `why`)."""
        self._dropped = self._dropped or why
        if self.line is not None:
            self.line.close()

    def close(self) -> None:
        self.drop_line("closed")
        self.line = None
        self.link = None

    def recover(self, say: Say) -> bool:
        """Reopen the port and go on when the image answers. The port is tried again
        for up to REOPEN_S while it cannot be opened: after a power cycle, a board's
        own USB serial port (and ser2net serving it) comes back a moment later."""
        self.close()
        say(f"Reconnecting to the board on {self.where} after the last unit was lost...")
        end_by = time.monotonic() + REOPEN_S
        while True:
            try:
                self._connect(say)
            except UsageError as e:  # the port did not open
                if time.monotonic() < end_by:
                    time.sleep(_REOPEN_EVERY_S)
                    continue
                say(f"{e} Reset the board to go on.")
                return False
            except RtbenchError as e:  # it opened, but the image did not answer
                say(f"{e} Reset the board to go on.")
                return False
            return True

    # ---- what the runner asks ---------------------------------------------------

    def shares_host_cpus(self) -> bool:
        return False  # the board's own CPU and clock

    def tracing(self) -> Tracing | None:
        return None

    def transport(self) -> SerialTransport:
        return self._transport

    def check_cpu(self, cpu: int | None) -> int:
        if cpu not in (None, 0):
            raise UsageError(f"CPU {cpu} does not exist on the board, which has one CPU (0).")
        return 0

    def _display(self) -> str:
        return self.rtos.display if self.rtos else "the image"

    def facts(self) -> dict[str, Any]:
        if self.link is None or self.rtos is None:
            raise RtbenchError(f"The board on {self.where} is not connected.")
        try:
            text = LinkSource(self.link).read_bytes(self.rtos.facts_path)
        except TargetLost as e:
            raise RtbenchError(f"The board on {self.where} did not answer ({e}).") from None
        return _json(text or b"")

    def snapshot(self, cpu: int, cpu_given: bool) -> dict[str, Any]:
        facts = self.facts()
        display = self._display()
        release = str(facts.get("kernel") or self.release or "")
        board = BOARDS.get(str(facts.get("board") or self.board or ""))
        snap: dict[str, Any] = {
            "snapshot_version": SNAPSHOT_VERSION,
            "taken_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "hostname": str(facts.get("board") or self.board or "board"),
            "kernel": {
                "system": display,
                "release": release.removeprefix(display + " ").strip() or None,
                "machine": board.arch if board else None,
                "port": facts.get("port"),
                "checkout": self.flashed["sources"] if self.flashed else None,
            },
            "cpus": {
                "model": str(facts.get("cpu") or (board.cpu if board else "unknown")),
                "count_online": 1,
                "online": [0],
                "hz": facts.get("cpu_hz"),
            },
            "measurement_cpu": {"cpu": cpu, "chosen_by": "argument" if cpu_given else "default"},
            "counter": facts.get("counter"),
            "serial": {"port": self.where, "baud": self.baud},
            "python": {
                "version": platform.python_version(),
                "implementation": platform.python_implementation(),
            },
        }
        if self.rtos is not None:
            snap[self.rtos.name] = facts
        return snap

    def caveats(self, snap: dict[str, Any]) -> list[dict[str, str]]:
        return []

    def render_snapshot(self, snap: dict[str, Any], cavs: list[dict[str, str]]) -> str:
        lines = [render(snap), f"  serial port: {self.where} at {self.baud} baud\n"]
        lines += [f"  {c.get('severity', 'info')}: {c.get('message', '')}\n" for c in cavs]
        return "".join(lines)

    def tuning(self, dma_latency: bool, lift_rt_throttle: bool, cpu: int) -> NoTuning:
        return NoTuning(self._display(), dma_latency, lift_rt_throttle)

    def describe(self) -> dict[str, Any]:
        board = BOARDS.get(self.board or "")
        return {
            "kind": self.kind,
            "spec": self.spec,
            "os": self.rtos.display if self.rtos else None,
            "os_release": self.release,
            "board": self.board,
            "cpu": board.cpu if board else None,
            "arch": board.arch if board else None,
            "serial_port": self.where,
            "baud": self.baud,
            "emulated": False,
            "deterministic": None,
            "cpus": 1,
            "connects": self.connects,
            **self._image_info(),
        }

    def _image_info(self) -> dict[str, Any]:
        """What the flashed image says of itself (image=PATH), as a built image does."""
        if self.flashed is None or self.rtos is None:
            return {}
        f = self.flashed
        return {
            f"{self.rtos.name}_kernel": f["sources"],
            "image": f["path"],
            "image_sha256": f["sha256"],
            "image_built_at": f["built_at"],
            "image_notes": f["notes"],
            "code_size": f["code_size"],
        }


def _json(data: bytes) -> dict[str, Any]:
    try:
        value = json.loads(data.decode("utf-8", errors="replace"))
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
