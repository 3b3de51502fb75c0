# SPDX-License-Identifier: Apache-2.0
"""How the trace hook reaches tracefs: the seam between `rtbench run --trace` and
the machine whose kernel is traced.

The hook (trace.kernel.hook) does the same steps on every Linux target: open tracefs and
rtbench's own instance, configure it, start it before each unit with sync markers,
stop it after with more sync markers, read the per-CPU statistics and the trace,
and close it on every exit path. `TracefsAccess` is those steps. `LocalTracefs`
does them on this machine's files (trace.kernel.tracefs); `ShellTracefs`
(trace.kernel.shell_tracefs) does them with one shell script per step on another machine,
run over an SSH target's connection (targets.ssh.tracefs) or by a QEMU guest's agent
(targets.guest.tracefs).

A sync reading ties the machine's CLOCK_MONOTONIC to the trace clock: here, a
marker written between two monotonic reads; on a remote machine (whose monotonic
clock is not this one's), a monotonic read on that machine between two markers.
Either way, `SyncRead` holds the marker ids and the monotonic bracket, and the
hook turns it into a clockmap.SyncPoint once the markers' timestamps are read.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from rtbench.trace.kernel import clockmap
from rtbench.trace.kernel.tracefs import Instance, Mount


@dataclass(frozen=True)
class SyncRead:
    """Markers `first_id`..`last_id` and the monotonic reads around (or between) them."""

    first_id: int
    last_id: int
    mono_before: int
    mono_after: int

    def point(self, markers: dict[int, int], units_per_ns: float) -> clockmap.SyncPoint | None:
        """The sync point, given the markers' trace timestamps (None: a marker is missing)."""
        if self.first_id not in markers or self.last_id not in markers:
            return None
        first, last = markers[self.first_id], markers[self.last_id]
        spread_ns = (last - first) / units_per_ns if units_per_ns > 0 else 0.0
        return clockmap.SyncPoint(
            mono_ns=(self.mono_before + self.mono_after) / 2,
            error_ns=max((self.mono_after - self.mono_before) / 2, spread_ns / 2),
            trace_ts=(first + last) / 2,
        )


class TracefsAccess(Protocol):
    """The tracefs steps of a traced run, on one machine."""

    @property
    def where(self) -> str:
        """ "local", "ssh" or "guest"."""
        ...

    @property
    def name(self) -> str:
        """The instance's name (after open)."""
        ...

    @property
    def clock(self) -> str:
        """The trace clock (after configure)."""
        ...

    @property
    def events(self) -> tuple[str, ...]:
        """The events enabled."""
        ...

    @property
    def missing_events(self) -> tuple[str, ...]:
        """The events this kernel lacks."""
        ...

    @property
    def unfiltered(self) -> tuple[str, ...]:
        """The events whose CPU filter the kernel refused (traced whole)."""
        ...

    @property
    def mounted_here(self) -> bool:
        """Whether rtbench mounted tracefs for the run."""
        ...

    def open(self) -> None:
        """Find tracefs (mounting it when it is not mounted) and create the instance;
        TraceError in one sentence when that cannot be done."""
        ...

    def clocks(self) -> list[str]:
        """The trace clocks the kernel offers."""
        ...

    def configure(self, clock: str, buffer_kb: int, cpus: tuple[int, ...]) -> None:
        """Clock, buffer size, events (filtered to `cpus` when given); TraceError."""
        ...

    def ensure(self) -> str | None:
        """Before a unit: make sure the instance is still there (a lost connection
        may have removed it); what was done about it, or None."""
        ...

    def start(self, count: int) -> list[SyncRead]:
        """Stop, clear and start the trace, then write `count` sync readings."""
        ...

    def finish(self, count: int) -> list[SyncRead]:
        """Write `count` sync readings, then stop the trace (stopped even on error)."""
        ...

    def cpu_stats(self) -> dict[int, dict[str, int]]:
        """Per-CPU ring buffer statistics of the stopped trace."""
        ...

    def read_trace(self, dest: Path) -> None:
        """The stopped trace, gzip-compressed, into `dest`."""
        ...

    def lttng_loaded(self) -> bool:
        """Whether LTTng's kernel modules are loaded there."""
        ...

    def describe(self) -> dict[str, Any]:
        """How tracefs was reached and how the clocks were tied (results.json)."""
        ...

    def close(self) -> str | None:
        """Remove the instance, unmount what was mounted; never raises. A warning when
        something may be left behind."""
        ...


class LocalTracefs:
    """tracefs on this machine, through its files."""

    where = "local"

    def __init__(self) -> None:
        self._mount: Mount | None = None
        self._instance: Instance | None = None
        self._sync_id = 0
        self.name = ""
        self.mounted_here = False

    def _inst(self) -> Instance:
        if self._instance is None:
            raise OSError("the tracefs instance is not open")
        return self._instance

    @property
    def clock(self) -> str:
        return self._instance.clock if self._instance else ""

    @property
    def events(self) -> tuple[str, ...]:
        return self._instance.events if self._instance else ()

    @property
    def missing_events(self) -> tuple[str, ...]:
        return self._instance.missing_events if self._instance else ()

    @property
    def unfiltered(self) -> tuple[str, ...]:
        return self._instance.unfiltered if self._instance else ()

    def open(self) -> None:
        self._mount = Mount.find_or_mount()
        self.mounted_here = self._mount.mounted_here
        self._instance = Instance.create(self._mount)
        self.name = self._instance.name

    def clocks(self) -> list[str]:
        return self._inst().clocks()

    def configure(self, clock: str, buffer_kb: int, cpus: tuple[int, ...]) -> None:
        self._inst().configure(clock, buffer_kb, cpus=cpus)

    def ensure(self) -> str | None:
        return None

    def start(self, count: int) -> list[SyncRead]:
        inst = self._inst()
        inst.on(False)
        inst.clear()
        inst.on(True)
        return self._markers(inst, count)

    def finish(self, count: int) -> list[SyncRead]:
        inst = self._inst()
        try:
            return self._markers(inst, count)
        finally:
            inst.on(False)

    def _markers(self, inst: Instance, count: int) -> list[SyncRead]:
        reads = []
        for _ in range(count):
            self._sync_id += 1
            before = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
            inst.marker(f"{clockmap.SYNC_PREFIX} {self._sync_id}")
            after = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
            reads.append(SyncRead(self._sync_id, self._sync_id, before, after))
        return reads

    def cpu_stats(self) -> dict[int, dict[str, int]]:
        return self._inst().cpu_stats()

    def read_trace(self, dest: Path) -> None:
        self._inst().read_trace(dest)

    def lttng_loaded(self) -> bool:
        try:
            modules = Path("/proc/modules").read_text(encoding="utf-8")
        except OSError:
            return False
        return any(line.startswith("lttng_") for line in modules.splitlines())

    def describe(self) -> dict[str, Any]:
        return {
            "where": self.where,
            "sync_method": "a marker between two CLOCK_MONOTONIC reads of rtbench "
            f"(pid {os.getpid()})",
        }

    def close(self) -> str | None:
        try:
            if self._instance is not None:
                self._instance.remove()
        finally:
            if self._mount is not None:
                self._mount.release()
        return None
