# SPDX-License-Identifier: Apache-2.0
"""The Source for the machine rtbench runs on.

Files are read directly; process facts are this process's own (its resource limits,
capabilities and a SCHED_FIFO probe on a short-lived thread). `root` points every path
into another tree, which lets tests describe a made-up machine with plain files; commands
are then not run (they would describe the real host).
"""

from __future__ import annotations

import contextlib
import os
import platform
import resource
import shutil
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from rtbench.system import parse
from rtbench.system.model import Limit
from rtbench.system.source import ProcessFacts, Sample, Uname, is_pattern


def probe_sched_fifo() -> tuple[bool, str | None]:
    """Try SCHED_FIFO priority 1 on a short-lived thread, then put the thread back.

    The policy is per thread on Linux, so this process's own threads never change.
    """
    outcome: list[tuple[bool, str | None]] = []

    def probe() -> None:
        try:
            policy = os.sched_getscheduler(0)
            param = os.sched_getparam(0)
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
        except OSError as exc:
            outcome.append((False, exc.strerror or str(exc)))
            return
        try:
            outcome.append((os.sched_getscheduler(0) == os.SCHED_FIFO, None))
        finally:
            with contextlib.suppress(OSError):  # the thread ends now anyway
                os.sched_setscheduler(0, policy, param)

    thread = threading.Thread(target=probe, name="rtbench-fifo-probe", daemon=True)
    thread.start()
    thread.join(2.0)
    if not outcome:
        return False, "the probe thread did not finish"
    return outcome[0]


def _rlimit(which: int) -> Limit | None:
    try:
        soft, hard = resource.getrlimit(which)
    except (OSError, ValueError):
        return None

    def show(value: int) -> int | str:
        return "unlimited" if value == resource.RLIM_INFINITY else value

    return {"soft": show(soft), "hard": show(hard)}


class LocalSource:
    """This machine (or, with `root`, a directory tree standing in for one)."""

    def __init__(self, root: str = "/") -> None:
        self.root = root
        self.faked = root not in ("", "/")

    def _path(self, path: str) -> Path:
        if not self.faked:
            return Path(path)
        return Path(self.root) / path.lstrip("/")

    def read(self, path: str) -> str | None:
        try:
            return self._path(path).read_text(encoding="utf-8", errors="replace").strip()
        except (OSError, ValueError):
            return None

    def read_bytes(self, path: str) -> bytes | None:
        try:
            return self._path(path).read_bytes()
        except OSError:
            return None

    def listdir(self, path: str) -> list[str] | None:
        try:
            return [entry.name for entry in self._path(path).iterdir()]
        except OSError:
            return None

    def exists(self, path: str) -> bool:
        return self._path(path).exists()

    def writable(self, path: str) -> bool:
        return os.access(self._path(path), os.W_OK)

    def run(self, argv: Sequence[str], timeout_s: float = 1.0) -> str | None:
        if self.faked and not argv[0].startswith(self.root):
            return None  # a fake tree: do not ask the real host
        if shutil.which(argv[0]) is None:
            return None
        try:
            done = subprocess.run(
                list(argv),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=timeout_s,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() or done.stderr.strip() or None

    def _expand(self, pattern: str) -> list[str]:
        if not is_pattern(pattern):
            return [pattern] if self.exists(pattern) else []
        root = Path(self.root if self.faked else "/")
        found = sorted(root.glob(pattern.lstrip("/")))
        return ["/" + str(p.relative_to(root)) for p in found]

    def read_many(self, patterns: Sequence[str]) -> dict[str, str | None] | None:
        files: dict[str, str | None] = {}
        for pattern in patterns:
            for path in self._expand(pattern):
                if path not in files:
                    # as CommandSource: only regular files are read (never a device)
                    files[path] = self.read(path) if self._path(path).is_file() else None
        return files

    def sample(self, patterns: Sequence[str], window_s: float) -> Sample | None:
        before = self.read_many(patterns) or {}
        start = time.monotonic()
        time.sleep(window_s)
        after = self.read_many(patterns) or {}
        window = time.monotonic() - start
        return Sample(before, after, window, frozenset({os.getpid()}), os.sysconf("SC_CLK_TCK"))

    def uname(self) -> Uname:
        u = os.uname()
        return Uname(u.sysname, u.nodename, u.release, u.version, u.machine)

    def affinity(self) -> list[int] | None:
        try:
            return sorted(os.sched_getaffinity(0))
        except OSError:
            return list(range(os.cpu_count() or 1))

    def process(self) -> ProcessFacts:
        caps = parse.parse_capabilities(self.read("/proc/self/status"))
        fifo, error = probe_sched_fifo()
        try:
            policy: str | None = parse.POLICY_NAMES.get(os.sched_getscheduler(0), "other")
        except OSError:
            policy = None
        libc_name, libc_version = self._libc()
        return ProcessFacts(
            uid=os.getuid(),
            euid=os.geteuid(),
            cap_eff=caps,
            rlimit_rtprio=_rlimit(resource.RLIMIT_RTPRIO),
            rlimit_memlock=_rlimit(resource.RLIMIT_MEMLOCK),
            rlimit_rttime=_rlimit(resource.RLIMIT_RTTIME),
            sched_fifo=fifo,
            sched_fifo_error=error,
            fifo_priority_max=os.sched_get_priority_max(os.SCHED_FIFO),
            policy=policy,
            libc_name=libc_name,
            libc_version=libc_version,
        )

    def _libc(self) -> tuple[str | None, str | None]:
        try:
            gnu = os.confstr("CS_GNU_LIBC_VERSION")
        except (ValueError, OSError):
            gnu = None
        if gnu:
            return parse.parse_gnu_libc(gnu)
        name, version = platform.libc_ver()
        if name:
            return name, version or None
        for loader in sorted(self._path("/lib").glob("ld-musl-*.so.1")):
            return "musl", parse.parse_musl_version(self.run([str(loader)]))
        return None, None
