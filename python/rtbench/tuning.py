# SPDX-License-Identifier: Apache-2.0
"""Host settings that rtbench changes for a run, and puts back on every exit path.

Two settings, both optional:

- `/dev/cpu_dma_latency` held at 0 µs, which keeps every CPU out of idle states whose
  exit latency would add to a measurement. The kernel keeps the request only while the
  file stays open, so the descriptor is held for the whole run and closing it (or the
  process dying, however it dies) withdraws the request.
- RT throttling lifted (`/proc/sys/kernel/sched_rt_runtime_us` set to -1), so that a
  real-time thread busy for longer than the budget is not stopped for the rest of the
  period. The original value is written back by `restore()`, which also runs from an
  `atexit` hook as a last resort. Only SIGKILL or a power cut can leave it at -1.

Nothing here raises for a missing file or a missing permission: the setting is listed in
`skipped` with the reason, and the run goes on without it.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import struct
from pathlib import Path
from types import TracebackType
from typing import Any, Self

CPU_DMA_LATENCY_PATH = "/dev/cpu_dma_latency"
RT_RUNTIME_PATH = "/proc/sys/kernel/sched_rt_runtime_us"

_LATENCY = struct.Struct("i")


def _reason(exc: OSError, path: Path) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"{path} does not exist"
    if isinstance(exc, PermissionError):
        return f"no permission to write {path} (run as root)"
    return f"{path}: {exc.strerror or exc}"


class HostTuning:
    """Apply host settings for a run and restore them.

    Use as a context manager (`__enter__` applies, `__exit__` restores) or call
    `apply()` and `restore()` yourself, `restore()` in a `finally` block or a signal
    handler. Both are idempotent; `restore()` is safe after a partial `apply()` and
    never raises.

    `changes` lists what was changed: {"setting", "original", "applied", "restored",
    "note"}. `skipped` lists what was requested but not done: {"setting", "reason"}.
    The paths are parameters so that tests can use stand-in files.
    """

    def __init__(
        self,
        *,
        cpu_dma_latency: bool = True,
        lift_rt_throttle: bool = False,
        cpu_dma_latency_path: str | os.PathLike[str] = CPU_DMA_LATENCY_PATH,
        rt_runtime_path: str | os.PathLike[str] = RT_RUNTIME_PATH,
    ) -> None:
        self.cpu_dma_latency = cpu_dma_latency
        self.lift_rt_throttle = lift_rt_throttle
        self.cpu_dma_latency_path = Path(cpu_dma_latency_path)
        self.rt_runtime_path = Path(rt_runtime_path)
        self.changes: list[dict[str, Any]] = []
        self.skipped: list[dict[str, str]] = []
        self._applied = False
        self._owner_pid: int | None = None
        self._dma_fd: int | None = None
        self._dma_change: dict[str, Any] | None = None
        self._rt_original: int | None = None
        self._rt_change: dict[str, Any] | None = None
        self._atexit_registered = False

    # -- context manager ----------------------------------------------------------------

    def __enter__(self) -> Self:
        try:
            self.apply()
        except BaseException:
            # `with` does not call __exit__ when __enter__ fails (e.g. Ctrl-C mid-apply).
            self.restore()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.restore()

    # -- apply --------------------------------------------------------------------------

    def apply(self) -> None:
        """Apply the requested settings; a second call does nothing."""
        if self._applied:
            return
        self._applied = True
        self._owner_pid = os.getpid()
        if self.lift_rt_throttle:
            self._lift_rt_throttle()
        if self.cpu_dma_latency:
            self._hold_cpu_dma_latency()

    def _skip(self, setting: str, reason: str) -> None:
        self.skipped.append({"setting": setting, "reason": reason})

    def _read_dma_latency(self) -> int | None:
        """The value in force (the smallest request), in µs."""
        with self.cpu_dma_latency_path.open("rb") as f:
            raw = f.read(_LATENCY.size)
        return int(_LATENCY.unpack(raw)[0]) if len(raw) == _LATENCY.size else None

    def _hold_cpu_dma_latency(self) -> None:
        setting, path = "cpu_dma_latency", self.cpu_dma_latency_path
        try:
            original = self._read_dma_latency()
        except OSError as exc:
            self._skip(setting, _reason(exc, path))
            return
        try:
            fd = os.open(path, os.O_WRONLY)
        except OSError as exc:
            self._skip(setting, _reason(exc, path))
            return
        try:
            written = os.write(fd, _LATENCY.pack(0))
        except OSError as exc:
            os.close(fd)
            self._skip(setting, _reason(exc, path))
            return
        if written != _LATENCY.size:
            os.close(fd)
            self._skip(setting, f"short write to {path}")
            return
        self._dma_fd = fd
        note = "held open for the run; closing the file withdraws the request"
        effective = None
        with contextlib.suppress(OSError):
            effective = self._read_dma_latency()
        if effective not in (None, 0):
            note += f"; the kernel still reports {effective} µs"
        self._dma_change = {
            "setting": setting,
            "original": original,
            "applied": 0,
            "restored": False,
            "note": note,
        }
        self.changes.append(self._dma_change)

    def _lift_rt_throttle(self) -> None:
        setting, path = "sched_rt_runtime_us", self.rt_runtime_path
        try:
            original = int(path.read_text(encoding="ascii").strip())
        except OSError as exc:
            self._skip(setting, _reason(exc, path))
            return
        except ValueError:
            self._skip(setting, f"{path} does not hold a number")
            return
        if original == -1:
            self._skip(setting, "RT throttling is already lifted (sched_rt_runtime_us is -1)")
            return
        # Registered before the write: if the process ends between the two, the hook's
        # write of the original value is harmless.
        self._rt_original = original
        self._register_atexit()
        try:
            self._write_rt_runtime(-1)
        except OSError as exc:
            self._rt_original = None
            self._skip(setting, _reason(exc, path))
            return
        note = "RT throttling lifted for the run"
        with contextlib.suppress(OSError, ValueError):
            now = int(path.read_text(encoding="ascii").strip())
            if now != -1:
                note += f"; the kernel still reports {now}"
        self._rt_change = {
            "setting": setting,
            "original": original,
            "applied": -1,
            "restored": False,
            "note": note,
        }
        self.changes.append(self._rt_change)

    def _write_rt_runtime(self, value: int) -> None:
        with self.rt_runtime_path.open("w", encoding="ascii") as f:
            f.write(f"{value}\n")

    def _register_atexit(self) -> None:
        if not self._atexit_registered:
            atexit.register(self.restore)
            self._atexit_registered = True

    # -- restore ------------------------------------------------------------------------

    def restore(self) -> None:
        """Put back whatever apply() changed. Idempotent; never raises.

        Ordering makes it safe to re-enter from a signal handler: the RT runtime is
        written before it is marked done (writing it twice is harmless), and the
        descriptor is forgotten before it is closed (closing it twice could close an
        unrelated file that reused the number).
        """
        if self._owner_pid is not None and os.getpid() != self._owner_pid:
            return  # a forked child: the settings belong to the parent
        if self._rt_original is not None:
            original = self._rt_original
            try:
                self._write_rt_runtime(original)
            except OSError as exc:
                # Kept pending: a later call (the atexit hook at the latest) tries again.
                if self._rt_change is not None:
                    self._rt_change["note"] = (
                        f"could not write {original} back to {self.rt_runtime_path}: "
                        f"{exc.strerror or exc}"
                    )
            else:
                self._rt_original = None
                if self._rt_change is not None:
                    self._rt_change["restored"] = True
        fd = self._dma_fd
        if fd is not None:
            self._dma_fd = None
            with contextlib.suppress(OSError):
                os.close(fd)  # the kernel drops the request with the descriptor either way
            if self._dma_change is not None:
                self._dma_change["restored"] = True
        if self._atexit_registered and self._rt_original is None:
            atexit.unregister(self.restore)
            self._atexit_registered = False
