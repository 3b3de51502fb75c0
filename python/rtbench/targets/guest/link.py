# SPDX-License-Identifier: Apache-2.0
"""The host side of rtbench's serial line protocol (docs/targets.md).

A guest agent, or later a bare-metal RTOS image, speaks it on one serial line:
record lines (JSON, starting with `{`) pass unchanged, everything else the host
and the agent say to each other is a control line starting with `#rtb `, whose
fields are percent-encoded (no space, no newline inside a field). Any other
line is noise (kernel console messages on a line shared with the console) and
is counted, never taken for a record.

`Link` reads the line from a thread and hands events to one request at a time;
`LinkStream` is a runner `CoreStream` over it (a core run: records, error lines,
exit status; terminate and kill become requests, and a guest that does not
answer a kill is ended from outside); `LinkSource` reads files, lists folders
and runs commands on the target for the system probes.

Test hook: RTBENCH_SERIAL_JITTER_MS=N makes the host's timing ragged on purpose,
for the tests that deterministic figures do not follow it: each run's command is
sent after a random 0..N ms, and the reader then stops reading for another
random 0..N ms while the run goes on.
"""

from __future__ import annotations

import collections
import os
import queue
import random
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Protocol

from rtbench.transport import EndOfStream, TargetLost

PREFIX = b"#rtb "
PROTOCOL_VERSION = 1
REQUEST_TIMEOUT_S = 20.0
KILL_ANSWER_S = 5.0
COMMAND_TIMEOUT_S = 30.0
_STDERR_TAIL_BYTES = 8192
_SAFE = frozenset(range(0x21, 0x7F)) - {ord("%")}
JITTER_ENV = "RTBENCH_SERIAL_JITTER_MS"


def jitter_s() -> float:
    """A random pause of the test hook JITTER_ENV, in seconds (0 without it)."""
    text = os.environ.get(JITTER_ENV, "").strip()
    try:
        limit_ms = float(text) if text else 0.0
    except ValueError:
        return 0.0
    return random.uniform(0.0, limit_ms) / 1000.0 if limit_ms > 0 else 0.0


def encode(data: bytes | str) -> str:
    """A field: every byte outside '!'..'~', and '%', written as %XX."""
    raw = data.encode() if isinstance(data, str) else data
    return "".join(chr(b) if b in _SAFE else f"%{b:02X}" for b in raw)


def decode(field: str) -> bytes:
    """The bytes of an encoded field (a malformed escape is kept as it is)."""
    out = bytearray()
    i = 0
    raw = field.encode("latin-1", errors="replace")
    while i < len(raw):
        if raw[i] == ord("%") and i + 3 <= len(raw):
            try:
                out.append(int(raw[i + 1 : i + 3], 16))
                i += 3
                continue
            except ValueError:
                pass
        out.append(raw[i])
        i += 1
    return bytes(out)


def request_line(word: str, *fields: str | bytes) -> bytes:
    """One host request, newline included."""
    return PREFIX + " ".join([word, *(encode(f) for f in fields)]).encode() + b"\n"


@dataclass(frozen=True)
class Event:
    """One line of the target, classified.

    kind: record (text is the line), err (text decoded), exit (code), data (raw
    bytes), done, fail (code, text), ready (text: release, arg: machine), closed
    (text: why)."""

    kind: str
    text: str = ""
    data: bytes = b""
    code: int = 0


def classify(line: bytes) -> Event | None:
    """The event of one line without its newline; None for noise."""
    line = line.rstrip(b"\r")
    if line.startswith(b"{"):
        return Event("record", line.decode("utf-8", errors="replace"))
    if not line.startswith(PREFIX):
        return None
    fields = line[len(PREFIX) :].decode("latin-1").split(" ")
    word, rest = fields[0], fields[1:]
    try:
        if word == "data":
            return Event("data", data=decode(rest[0]) if rest else b"")
        if word == "err":
            text = decode(rest[0]).decode("utf-8", errors="replace") if rest else ""
            return Event("err", text)
        if word == "exit":
            return Event("exit", code=int(rest[0]))
        if word == "done":
            return Event("done")
        if word == "fail":
            text = decode(rest[1]).decode("utf-8", errors="replace") if len(rest) > 1 else ""
            return Event("fail", text, code=int(rest[0]))
        if word == "ready":
            release = decode(rest[1]).decode(errors="replace")
            machine = decode(rest[2]).decode(errors="replace")
            return Event("ready", release, machine.encode(), code=int(rest[0]))
    except (IndexError, ValueError):
        return None
    return None


class Writer(Protocol):
    """The host-to-target direction of a line: QEMU's standard input, a serial port."""

    def write(self, data: bytes, /) -> int | None: ...

    def flush(self) -> None: ...


class Link:
    """One serial line to an agent: a reader thread, requests one at a time.

    `reader`/`writer`: the line's two directions, whatever carries them: for
    QEMU its standard output and input, for a board a serial port or a TCP
    connection to one (targets.firmware.serial). `reader` yields the target's lines,
    newline included, and ends when the line does. `why_closed` says in a few
    words why the line ended (QEMU's exit status, ...), for the TargetLost reason.
    """

    def __init__(
        self, reader: Iterable[bytes], writer: Writer, why_closed: Callable[[], str]
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._why_closed = why_closed
        self._events: queue.Queue[Event] = queue.Queue()
        self._write_lock = threading.Lock()
        self.busy = threading.Lock()  # held by the one request or run under way
        self.noise = 0
        self.noise_tail: collections.deque[str] = collections.deque(maxlen=20)
        self.closed: str | None = None
        self.ready: Event | None = None
        self._ready_seen = threading.Event()
        self.stall_s = 0.0  # the reader's next pause (the test hook JITTER_ENV)
        self._thread = threading.Thread(target=self._read, name="rtbench-link", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for raw in self._reader:
                if self.stall_s > 0:
                    stall, self.stall_s = self.stall_s, 0.0
                    time.sleep(stall)
                event = classify(raw.rstrip(b"\n"))
                if event is None:
                    if raw.strip():
                        self.noise += 1
                        self.noise_tail.append(raw.decode("utf-8", errors="replace").rstrip())
                    continue
                if event.kind == "ready":
                    self.ready = event
                    self._ready_seen.set()
                    continue
                self._events.put(event)
        except (OSError, ValueError):
            pass
        finally:
            self.closed = self._why_closed()
            self._events.put(Event("closed", self.closed))
            self._ready_seen.set()

    def wait_ready(self, timeout_s: float) -> Event | None:
        """The agent's `ready` line, or None when the line closed or time ran out."""
        self._ready_seen.wait(max(timeout_s, 0.0))
        return self.ready

    def send(self, line: bytes) -> bool:
        """Write one request; False when the line is gone."""
        with self._write_lock:
            try:
                self._writer.write(line)
                self._writer.flush()
            except (OSError, ValueError):
                return False
        return True

    def next_event(self, timeout_s: float) -> Event | None:
        """The next event, or None after `timeout_s`. A closed line keeps saying so."""
        try:
            event = self._events.get(timeout=max(timeout_s, 0.0))
        except queue.Empty:
            return None
        if event.kind == "closed":
            self._events.put(event)
        return event

    def drain(self) -> None:
        """Forget events left over from an earlier request (never the closed one)."""
        while True:
            try:
                event = self._events.get_nowait()
            except queue.Empty:
                return
            if event.kind == "closed":
                self._events.put(event)
                return

    def replies(self, line: bytes, timeout_s: float = REQUEST_TIMEOUT_S) -> Iterator[Event]:
        """Send a request and yield its reply's events as they come, the last one
        `done`, `fail` or `exit` (the line is held until that one is yielded).
        Raises TargetLost when the line closes or nothing answers in time."""
        with self.busy:
            self.drain()
            if self.closed is not None or not self.send(line):
                raise TargetLost(self.closed or "the serial line is closed")
            end_by = time.monotonic() + timeout_s
            while True:
                left = end_by - time.monotonic()
                if left <= 0:
                    raise TargetLost(f"the agent did not answer within {timeout_s:.0f} s")
                event = self.next_event(min(left, 1.0))
                if event is None:
                    continue
                if event.kind == "closed":
                    raise TargetLost(event.text)
                if event.kind in ("done", "fail", "exit"):
                    break
                yield event
        yield event  # the last one, with the line free again

    def reply(self, line: bytes, timeout_s: float = REQUEST_TIMEOUT_S) -> list[Event]:
        """Send a request and collect its reply up to `done`, `fail` or `exit`."""
        return list(self.replies(line, timeout_s))


class LinkStream:
    """A core run on the target, as the runner's CoreStream.

    `end_target`: ends the target from outside (kills QEMU), used when the agent
    does not answer a kill within KILL_ANSWER_S."""

    def __init__(self, link: Link, args: Sequence[str], end_target: Callable[[], None]) -> None:
        if not link.busy.acquire(timeout=REQUEST_TIMEOUT_S):
            raise TargetLost("the agent is still busy with an earlier request")
        self._link = link
        self._end_target = end_target
        self._exit: int | None = None
        self._eof = False
        self._lost: str | None = None
        self._tail: collections.deque[str] = collections.deque()
        self._tail_size = 0
        self._kill_timer: threading.Timer | None = None
        self._released = False
        link.drain()
        time.sleep(jitter_s())
        if link.closed is not None or not link.send(request_line("run", *args)):
            self._release()
            raise TargetLost(link.closed or "the serial line is closed")
        link.stall_s = jitter_s()

    def _note_err(self, text: str) -> None:
        self._tail.append(text + "\n")
        self._tail_size += len(text) + 1
        while self._tail_size > _STDERR_TAIL_BYTES and len(self._tail) > 1:
            self._tail_size -= len(self._tail.popleft())

    def _next(self, timeout_s: float) -> Event | None:
        """The next record, exit or closed event (error lines are kept aside)."""
        end_by = time.monotonic() + max(timeout_s, 0.0)
        while True:
            event = self._link.next_event(max(end_by - time.monotonic(), 0.0))
            if event is None:
                return None
            if event.kind == "err":
                self._note_err(event.text)
            elif event.kind == "fail":
                self._note_err(f"the agent could not start the core: {event.text}")
                return Event("exit", code=127)
            elif event.kind in ("record", "exit", "closed"):
                return event

    def _take(self, event: Event) -> None:
        if event.kind == "exit":
            self._exit = event.code
            self._eof = True
            self._cancel_timer()
        elif event.kind == "closed":
            self._lost = event.text
            self._eof = True
            self._cancel_timer()

    def read_line(self, timeout_s: float) -> str | None:
        if self._eof:
            if self._lost is not None:
                raise TargetLost(self._lost)
            raise EndOfStream
        event = self._next(timeout_s)
        if event is None:
            return None
        if event.kind == "record":
            return event.text
        self._take(event)
        return self.read_line(0.0)

    def terminate(self) -> None:
        if not self._eof:
            self._link.send(request_line("term"))

    def kill(self) -> None:
        if self._eof or self._kill_timer is not None:
            return
        self._link.send(request_line("kill"))
        self._kill_timer = threading.Timer(KILL_ANSWER_S, self._end_target)
        self._kill_timer.daemon = True
        self._kill_timer.start()

    def _cancel_timer(self) -> None:
        if self._kill_timer is not None:
            self._kill_timer.cancel()

    def wait(self, timeout_s: float) -> int | None:
        end_by = time.monotonic() + max(timeout_s, 0.0)
        while not self._eof:
            event = self._next(max(end_by - time.monotonic(), 0.0))
            if event is None:
                return None
            self._take(event)  # records after the runner stopped reading are dropped
        return self._exit

    def stderr_tail(self) -> str:
        return "".join(self._tail)[-_STDERR_TAIL_BYTES:]

    def _release(self) -> None:
        if not self._released:
            self._released = True
            self._link.busy.release()

    def close(self) -> None:
        self._cancel_timer()
        self._release()


class LinkSource:
    """System facts read on the target through the agent (the system probes' Source)."""

    def __init__(self, link: Link) -> None:
        self._link = link

    def _data(self, word: str, *fields: str) -> bytes | None:
        events = self._link.reply(request_line(word, *fields))
        if events[-1].kind != "done":
            return None
        return b"".join(e.data for e in events if e.kind == "data")

    def read(self, path: str) -> str | None:
        data = self._data("read", path)
        return None if data is None else data.decode("utf-8", errors="replace").strip()

    def read_bytes(self, path: str) -> bytes | None:
        return self._data("read", path)

    def listdir(self, path: str) -> list[str] | None:
        events = self._link.reply(request_line("list", path))
        if events[-1].kind != "done":
            return None
        return [e.data.decode("utf-8", errors="replace") for e in events if e.kind == "data"]

    def exists(self, path: str) -> bool:
        events = self._link.reply(request_line("stat", path))
        return events[-1].kind == "done"

    def command(
        self, argv: Sequence[str], timeout_s: float = COMMAND_TIMEOUT_S
    ) -> tuple[int, bytes]:
        """Run a command on the target: (exit status, standard output). 127: missing,
        124: out of time (as a shell and timeout(1) say them)."""
        timeout_ms = str(max(int(timeout_s * 1000), 1))
        events = self._link.reply(
            request_line("exec", timeout_ms, *argv), timeout_s=timeout_s + REQUEST_TIMEOUT_S
        )
        last = events[-1]
        code = last.code if last.kind == "exit" else 127
        if code < 0:
            code = 128 - code  # killed by a signal, as a shell reports it
        return code, b"".join(e.data for e in events if e.kind == "data")

    def stream(
        self, argv: Sequence[str], out: IO[bytes], timeout_s: float = COMMAND_TIMEOUT_S
    ) -> tuple[int, str]:
        """Run a command on the target, its standard output written to `out` as it
        comes (not held here): (exit status, its error lines). 127: missing, 124: out
        of time (the agent kills it). TargetLost when the line closes or the agent
        stops answering."""
        timeout_ms = str(max(int(timeout_s * 1000), 1))
        said: list[str] = []
        request = request_line("exec", timeout_ms, *argv)
        for event in self._link.replies(request, timeout_s=timeout_s + REQUEST_TIMEOUT_S):
            if event.kind == "data":
                out.write(event.data)
            elif event.kind == "err":
                said.append(event.text)
            elif event.kind == "exit":
                code = event.code if event.code >= 0 else 128 - event.code
                return code, "\n".join(said)
            elif event.kind == "fail":
                return 127, "\n".join([*said, event.text])
        return 127, "\n".join(said)  # a reply ended by `done`: no command ran

    def run(self, argv: Sequence[str], timeout_s: float = 1.0) -> str | None:
        """The output of a short command on the target, or None (missing, failed, too slow)."""
        timeout_ms = str(max(int(timeout_s * 1000), 1))
        events = self._link.reply(
            request_line("exec", timeout_ms, *argv), timeout_s=timeout_s + REQUEST_TIMEOUT_S
        )
        last = events[-1]
        if last.kind != "exit" or last.code == 127 or last.code < 0:
            return None
        out = b"".join(e.data for e in events if e.kind == "data").decode(errors="replace")
        err = "\n".join(e.text for e in events if e.kind == "err")
        return out.strip() or err.strip() or None
