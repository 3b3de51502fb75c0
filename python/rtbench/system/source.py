# SPDX-License-Identifier: Apache-2.0
"""Where system facts are read: the `Source` protocol and the values it returns.

A probe never opens a file or starts a command itself: it asks a Source, so the same
probe reads this machine (`LocalSource`), an SSH board or a QEMU guest (`CommandSource`,
built from one callable that runs a command on the target). Paths are the target's
absolute paths; texts come back stripped of surrounding white space.

`read_many` and `sample` take shell glob patterns ('/proc/[0-9]*/stat') and read every
matching file in one go: over SSH each round trip costs milliseconds, so the snapshot
reads almost everything in a handful of batches (`Prefetched` serves the single reads
of the probes from one such batch).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from rtbench.system.model import Limit

GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class Uname:
    """The five fields of uname(2) on the target."""

    sysname: str | None
    nodename: str | None
    release: str | None
    version: str | None
    machine: str | None


@dataclass(frozen=True)
class ProcessFacts:
    """What a process started on the target may do (real-time policy, limits).

    For this machine that is the rtbench process itself; for a remote target it is a
    process started through the target's channel, as the core will be.
    """

    uid: int | None
    euid: int | None
    cap_eff: int | None  # effective capability mask
    rlimit_rtprio: Limit | None
    rlimit_memlock: Limit | None
    rlimit_rttime: Limit | None
    sched_fifo: bool | None  # None: could not be tried (sched_fifo_error says why)
    sched_fifo_error: str | None
    fifo_priority_max: int | None  # the system's highest SCHED_FIFO priority
    policy: str | None  # scheduling policy of the process ("SCHED_OTHER", ...)
    libc_name: str | None
    libc_version: str | None


@dataclass(frozen=True)
class Sample:
    """The same files read twice, `window_s` apart (measured on the target)."""

    before: dict[str, str | None]
    after: dict[str, str | None]
    window_s: float
    own_pids: frozenset[int]  # processes of the reader: not part of the load
    ticks_per_s: int | None  # USER_HZ, the unit of process times in /proc/<pid>/stat


class Source(Protocol):
    """Read-only access to a Linux system's facts. No method raises for a missing or
    unreadable file or a failed command: the answer is None (or False, or empty)."""

    def read(self, path: str) -> str | None:
        """The text of a file, stripped; None if absent or unreadable."""
        ...

    def read_bytes(self, path: str) -> bytes | None:
        """The raw contents of a file (compressed or binary); None if unreadable."""
        ...

    def listdir(self, path: str) -> list[str] | None:
        """Entry names of a directory; None if it cannot be listed."""
        ...

    def exists(self, path: str) -> bool: ...

    def writable(self, path: str) -> bool:
        """Whether a process started on the target may open the file for writing."""
        ...

    def run(self, argv: Sequence[str], timeout_s: float = 1.0) -> str | None:
        """Output of a short command on the target, stripped (stdout, else stderr; a
        remote source may return the two together); None when it is missing, cannot
        start or runs out of time. A non-zero exit status alone does not make it None
        (`systemd-detect-virt` exits 1 on bare metal)."""
        ...

    def read_many(self, patterns: Sequence[str]) -> dict[str, str | None] | None:
        """Every existing path matching the glob patterns -> its stripped text, or None
        when it exists but cannot be read (a directory, no permission). None when the
        batch itself failed (then nothing can be concluded about any path)."""
        ...

    def sample(self, patterns: Sequence[str], window_s: float) -> Sample | None:
        """`read_many(patterns)` twice, `window_s` apart; None if it failed."""
        ...

    def uname(self) -> Uname: ...

    def process(self) -> ProcessFacts:
        """Privileges and limits of a process started on the target; tries SCHED_FIFO
        in a short-lived thread or process and leaves nothing changed."""
        ...

    def affinity(self) -> list[int] | None:
        """CPUs a process started on the target may run on; None if unknown."""
        ...


def is_pattern(path: str) -> bool:
    return not GLOB_CHARS.isdisjoint(path)


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    """A shell glob as a regular expression: no wildcard matches across '/'."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        end = pattern.find("]", i + 2) if char == "[" else -1
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif end > 0:
            body = pattern[i + 1 : end]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            out.append("[" + ("^/" if negate else "") + body.replace("\\", "\\\\") + "]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out))


def matches(path: str, pattern: str) -> bool:
    """Shell glob matching: a wildcard never matches across '/'."""
    if not is_pattern(pattern):
        return path == pattern
    return _compiled(pattern).fullmatch(path) is not None


def select(files: dict[str, str | None], patterns: Iterable[str]) -> dict[str, str | None]:
    """The entries of `files` whose path matches one of `patterns`."""
    wanted = list(patterns)
    return {p: text for p, text in files.items() if any(matches(p, w) for w in wanted)}


class Prefetched:
    """A Source that answers from one batch read of many files, and asks `base` for
    anything the batch did not cover (or everything, if the batch failed)."""

    def __init__(self, base: Source, patterns: Sequence[str]) -> None:
        self.base = base
        self.patterns = tuple(dict.fromkeys(patterns))
        self.literals = {p for p in self.patterns if not is_pattern(p)}
        self.globs = [p for p in self.patterns if is_pattern(p)]
        self.files = base.read_many(self.patterns)

    def _covered(self, path: str) -> bool:
        return self.files is not None and (
            path in self.literals or any(matches(path, p) for p in self.globs)
        )

    def read(self, path: str) -> str | None:
        if self.files is not None and self._covered(path):
            return self.files.get(path)
        return self.base.read(path)

    def read_bytes(self, path: str) -> bytes | None:
        return self.base.read_bytes(path)

    def listdir(self, path: str) -> list[str] | None:
        return self.base.listdir(path)

    def exists(self, path: str) -> bool:
        if self.files is not None and self._covered(path):
            return path in self.files
        return self.base.exists(path)

    def writable(self, path: str) -> bool:
        return self.base.writable(path)

    def run(self, argv: Sequence[str], timeout_s: float = 1.0) -> str | None:
        return self.base.run(argv, timeout_s)

    def read_many(self, patterns: Sequence[str]) -> dict[str, str | None] | None:
        if self.files is not None and set(patterns) <= set(self.patterns):
            return select(self.files, patterns)
        return self.base.read_many(patterns)

    def sample(self, patterns: Sequence[str], window_s: float) -> Sample | None:
        return self.base.sample(patterns, window_s)

    def uname(self) -> Uname:
        return self.base.uname()

    def process(self) -> ProcessFacts:
        return self.base.process()

    def affinity(self) -> list[int] | None:
        return self.base.affinity()
