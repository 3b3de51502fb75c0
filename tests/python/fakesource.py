# SPDX-License-Identifier: Apache-2.0
"""A made-up Linux system for the system probes: files, commands and process facts.

`FakeSource` implements `rtbench.system.Source` from plain data (a dict of paths ->
contents, a dict of commands -> outputs), so a test can describe a board or a guest
that this machine is not, and count what the probes asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rtbench.system.source import ProcessFacts, Sample, Uname, matches


def process_facts(**changes: object) -> ProcessFacts:
    """Root with SCHED_FIFO and unlimited limits, with `changes` applied."""
    values: dict[str, object] = {
        "uid": 0,
        "euid": 0,
        "cap_eff": (1 << 41) - 1,
        "rlimit_rtprio": {"soft": 0, "hard": 0},
        "rlimit_memlock": {"soft": "unlimited", "hard": "unlimited"},
        "rlimit_rttime": {"soft": "unlimited", "hard": "unlimited"},
        "sched_fifo": True,
        "sched_fifo_error": None,
        "fifo_priority_max": 99,
        "policy": "SCHED_OTHER",
        "libc_name": "glibc",
        "libc_version": "2.36",
    }
    values.update(changes)
    return ProcessFacts(**values)  # type: ignore[arg-type]


@dataclass
class FakeSource:
    """A Source answering from data; `asked` records every path and command asked for."""

    files: dict[str, str | bytes]
    uname_value: Uname
    commands: dict[tuple[str, ...], str] = field(default_factory=dict)
    facts: ProcessFacts = field(default_factory=process_facts)
    cpus: list[int] | None = None  # the affinity; None: unknown
    after: dict[str, str] = field(default_factory=dict)  # file contents after the window
    writable_paths: set[str] = field(default_factory=set)
    asked: list[str] = field(default_factory=list)

    def _text(self, path: str) -> str | None:
        value = self.files.get(path)
        if value is None:
            return None
        return value.decode(errors="replace") if isinstance(value, bytes) else value.strip()

    def _dirs(self) -> set[str]:
        dirs: set[str] = set()
        for path in self.files:
            parts = path.split("/")
            dirs.update("/".join(parts[:i]) or "/" for i in range(1, len(parts)))
        return dirs

    def read(self, path: str) -> str | None:
        self.asked.append(path)
        return self._text(path)

    def read_bytes(self, path: str) -> bytes | None:
        self.asked.append(path)
        value = self.files.get(path)
        return value.encode() if isinstance(value, str) else value

    def listdir(self, path: str) -> list[str] | None:
        self.asked.append(path)
        if path not in self._dirs():
            return None
        prefix = path.rstrip("/") + "/"
        return sorted({p[len(prefix) :].split("/")[0] for p in self.files if p.startswith(prefix)})

    def exists(self, path: str) -> bool:
        self.asked.append(path)
        return path in self.files or path in self._dirs()

    def writable(self, path: str) -> bool:
        return path in self.writable_paths

    def run(self, argv: Sequence[str], timeout_s: float = 1.0) -> str | None:
        self.asked.append(" ".join(argv))
        return self.commands.get(tuple(argv))

    def read_many(self, patterns: Sequence[str]) -> dict[str, str | None] | None:
        self.asked.extend(patterns)
        found: dict[str, str | None] = {}
        for path in sorted(self.files):
            if any(matches(path, p) for p in patterns):
                found[path] = self._text(path)
        found.update(
            dict.fromkeys((d for d in self._dirs() if any(matches(d, p) for p in patterns)), None)
        )
        return found

    def sample(self, patterns: Sequence[str], window_s: float) -> Sample | None:
        before = self.read_many(patterns) or {}
        after = {p: self.after.get(p, text) for p, text in before.items()}
        return Sample(before, after, window_s, frozenset(), 100)

    def uname(self) -> Uname:
        return self.uname_value

    def process(self) -> ProcessFacts:
        return self.facts

    def affinity(self) -> list[int] | None:
        return self.cpus
