# SPDX-License-Identifier: Apache-2.0
"""`rtbench run --parallel N`: several targets measured at the same time.

Only targets whose figures do not depend on this machine's CPUs may run side by
side (`Target.shares_host_cpus()` is False: boards reached over SSH or a serial
line, emulated boards and guests whose clock follows instructions). A run that
asks for --parallel with a target that does share them (this machine, an
emulator on the host's clock) is refused in one sentence rather than run one
target at a time behind the user's back: the user then either drops --parallel
or makes the emulators deterministic.

While targets run at once, every line a target's run writes to the error stream
goes out whole, prefixed with its target (`[qemu:...] [2/5] sem.wait ... ok`),
and the progress is plain lines, never a bar redrawn in place; each target's
report is written to the standard output in one piece when its run ends. The
signals that stop a run are taken here, in the main thread, and stop every
target's run.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import io
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TextIO, cast

from rtbench.errors import RtbenchError
from rtbench.run.runner import StopFlag
from rtbench.targets.base import Target, Waits
from rtbench.ui import color, width

_POLL_S = 0.2  # how often the main thread looks at the runs (signals arrive between)


@dataclass(frozen=True)
class Console:
    """Where one target's run speaks: its error lines, its progress, its report."""

    err: Callable[[str], None]
    stderr: TextIO
    stdout: TextIO
    interactive: bool  # progress redrawn in place on a terminal
    color_err: bool
    color_out: bool
    width_out: int
    stop: StopFlag | None = None  # None: the run takes the signals itself

    def warn(self, text: str) -> None:
        self.err(("\x1b[33mwarning:\x1b[0m " if self.color_err else "warning: ") + text)


def plain_console() -> Console:
    """The console of a run of one target at a time: the process's own streams."""

    def err(text: str) -> None:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()

    return Console(
        err=err,
        stderr=sys.stderr,
        stdout=sys.stdout,
        interactive=sys.stderr.isatty(),
        color_err=color(sys.stderr),
        color_out=color(sys.stdout),
        width_out=width(sys.stdout),
    )


class PrefixedStream(io.TextIOBase):
    """A text stream that writes whole lines to `out`, each after `prefix`, under
    a lock shared by every target so lines of two targets never mix."""

    def __init__(self, out: TextIO, prefix: str, lock: threading.Lock) -> None:
        super().__init__()
        self._out = out
        self._prefix = prefix
        self._lock = lock
        self._pending = ""

    def write(self, text: str) -> int:
        # a carriage return or an erase sequence would redraw another target's line
        self._pending += text.replace("\r", "").replace("\x1b[K", "")
        *lines, self._pending = self._pending.split("\n")
        if lines:
            with self._lock:
                self._out.write("".join(f"{self._prefix}{line}\n" for line in lines))
                self._out.flush()
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self.write("\n")

    def isatty(self) -> bool:
        return False


def refusal(chosen: Sequence[Target], parallel: int) -> str | None:
    """Why these targets cannot run `parallel` at a time, in one sentence; None when
    they can (or when one at a time was asked)."""
    if parallel <= 1 or len(chosen) <= 1:
        return None
    sharing = [t.spec for t in chosen if t.shares_host_cpus()]
    if not sharing:
        return None
    return (
        f"--parallel measures targets side by side only when none of them runs on this "
        f"machine's CPUs, and {', '.join(sharing)} "
        f"{'does' if len(sharing) == 1 else 'do'} (this machine, or an emulator on its "
        "clock), so drop --parallel or give emulators --deterministic."
    )


RunOne = Callable[[Target, Console], int]


def run_all(chosen: Sequence[Target], parallel: int, run_one: RunOne) -> list[int | None]:
    """Run `run_one` on every target, up to `parallel` at a time; the exit status of
    each (None: never started, because a signal stopped the run before)."""
    lock = threading.Lock()
    stop = StopFlag()
    out_color, err_color = color(sys.stdout), color(sys.stderr)
    out_width = width(sys.stdout)

    def one(target: Target) -> int | None:
        if stop.requested():
            return None
        prefix = f"[{target.spec}] "
        stream = PrefixedStream(sys.stderr, prefix, lock)
        report = io.StringIO()

        def err(text: str) -> None:
            stream.write(text + "\n")

        console = Console(
            err=err,
            stderr=cast(TextIO, stream),
            stdout=report,
            interactive=False,
            color_err=err_color,
            color_out=out_color,
            width_out=out_width,
            stop=stop,
        )
        try:
            return run_one(target, console)
        except RtbenchError as e:
            err(f"rtbench run: {e}")
            return e.exit_status
        except KeyboardInterrupt:
            return 130  # a waiting target cancelled by a signal
        finally:
            stream.flush()
            with lock:
                sys.stdout.write(report.getvalue())
                sys.stdout.flush()

    previous = {
        signo: signal.signal(signo, stop.handler)
        for signo in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    }
    try:
        with concurrent.futures.ThreadPoolExecutor(
            max_workers=parallel, thread_name_prefix="rtbench-target"
        ) as pool:
            futures = [pool.submit(one, t) for t in chosen]
            pending = set(futures)
            while pending:
                # bounded, so the signal handlers run in between
                _done, pending = concurrent.futures.wait(pending, timeout=_POLL_S)
                if stop.requested():
                    for target in chosen:
                        if isinstance(target, Waits):
                            target.cancel()  # a target still waiting to open stops
            return [f.result() for f in futures]
    finally:
        for signo, handler in previous.items():
            signal.signal(signo, handler)


def count(text: str) -> int:
    """--parallel N: a whole number from 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number from 1")
    return int(text)
