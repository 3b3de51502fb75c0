# SPDX-License-Identifier: Apache-2.0
"""One rtbench run per measurement CPU.

Two runs on the same measurement CPU would each measure the other's
real-time threads and both report the result as this system's. A run holds
an advisory lock (`flock`) on a file named for its CPU, in `/run/lock` (or
the temporary directory when that is not usable), for as long as it runs;
the kernel drops the lock when the process ends, however it ends. The file
holds the process id of the holder, so the refusal can name it.
`RTBENCH_LOCK_DIR` puts the files elsewhere (tests).
"""

from __future__ import annotations

import errno
import fcntl
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rtbench.errors import UsageError

LOCK_DIR_ENV = "RTBENCH_LOCK_DIR"


def lock_dir() -> Path:
    """The folder of the lock files."""
    given = os.environ.get(LOCK_DIR_ENV)
    if given:
        return Path(given)
    run_lock = Path("/run/lock")
    if run_lock.is_dir() and os.access(run_lock, os.W_OK | os.X_OK):
        return run_lock
    return Path(tempfile.gettempdir())


def lock_path(cpu: int) -> Path:
    return lock_dir() / f"rtbench-cpu{cpu}.lock"


class CpuLock:
    """The lock of one measurement CPU; `acquire` raises UsageError when it is taken."""

    def __init__(self, cpu: int) -> None:
        self.cpu = cpu
        self.path = lock_path(cpu)
        self._fd: int | None = None

    def _open(self) -> int:
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        except PermissionError:
            # another user's file: a read-only descriptor can still be locked
            try:
                return os.open(self.path, os.O_RDONLY)
            except OSError as e:
                raise UsageError(
                    f"Cannot open the lock file {self.path} of CPU {self.cpu}: {e.strerror or e}."
                ) from None
        except OSError as e:
            raise UsageError(
                f"Cannot create the lock file {self.path} of CPU {self.cpu}: {e.strerror or e}."
            ) from None

    def holder(self) -> str:
        """The process id written by the current holder, or '' when unknown."""
        try:
            return self.path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return ""

    def acquire(
        self,
        wait: bool = False,
        say: Callable[[str], None] | None = None,
        poll_s: float = 0.5,
    ) -> None:
        fd = self._open()
        announced = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as e:
                if e.errno not in (errno.EAGAIN, errno.EACCES):
                    os.close(fd)
                    raise UsageError(
                        f"Cannot lock {self.path} for CPU {self.cpu}: {e.strerror or e}."
                    ) from None
            pid = self.holder()
            who = f"another rtbench run (process {pid})" if pid else "another rtbench run"
            if not wait:
                os.close(fd)
                raise UsageError(
                    f"CPU {self.cpu} is in use by {who}: two runs on one CPU would measure "
                    "each other; wait for it to end, choose another --cpu, or add --wait."
                )
            if not announced and say is not None:
                say(f"CPU {self.cpu} is in use by {who}; waiting for it to end...")
                announced = True
            time.sleep(poll_s)
        self._fd = fd
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        except OSError:
            pass  # a read-only descriptor: the lock holds, the pid is not recorded

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> CpuLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
