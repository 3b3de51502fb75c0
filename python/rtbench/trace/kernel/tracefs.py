# SPDX-License-Identifier: Apache-2.0
"""tracefs: finding (or mounting) it, rtbench's own instance, and a listing of its state.

rtbench never touches the top level of tracefs: it creates an instance of its own
(`instances/rtbench-<pid>`), which has its own clock, events, buffer and marker, and
removes it when the run ends. When tracefs is not mounted, rtbench mounts it and
unmounts it again at the end; a tracefs that was mounted before stays mounted.
`state()` lists everything a user could have set (clock, tracer, tracing_on, buffer
sizes, enabled events, options, instances), so that tests can check the machine is
left exactly as it was.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from rtbench.errors import RtbenchError

DEFAULT_MOUNT = Path("/sys/kernel/tracing")
MOUNT_TIMEOUT_S = 10.0

# The events rtbench enables (when they exist): scheduler switches, wake-ups and
# migrations, hard and soft interrupts, the local-timer and IPI vectors, hrtimers,
# workqueues.
EVENTS: tuple[str, ...] = (
    "sched/sched_switch",
    "sched/sched_waking",
    "sched/sched_wakeup",
    "sched/sched_wakeup_new",
    "sched/sched_migrate_task",
    "irq/irq_handler_entry",
    "irq/irq_handler_exit",
    "irq/softirq_entry",
    "irq/softirq_exit",
    "irq_vectors/local_timer_entry",
    "irq_vectors/local_timer_exit",
    "irq_vectors/reschedule_entry",
    "irq_vectors/reschedule_exit",
    "irq_vectors/call_function_entry",
    "irq_vectors/call_function_exit",
    "irq_vectors/call_function_single_entry",
    "irq_vectors/call_function_single_exit",
    "irq_vectors/irq_work_entry",
    "irq_vectors/irq_work_exit",
    "timer/hrtimer_expire_entry",
    "timer/hrtimer_expire_exit",
    "workqueue/workqueue_execute_start",
    "workqueue/workqueue_execute_end",
)

# Per-CPU ring buffer size by profile (KiB). A longer run overwrites its oldest
# events; the per-CPU statistics say how many, and the explanation says which
# samples the kept trace no longer covers.
BUFFER_KB = {"quick": 16384, "standard": 65536, "endurance": 131072}


class TraceError(RtbenchError):
    """Tracing could not be set up (no tracefs, no permission, ...)."""


def event_filter(event: str, cpus: tuple[int, ...]) -> str:
    """The tracefs filter that keeps what `event` says about `cpus`: what happens on
    them, and the wake-ups and migrations that target them from elsewhere."""
    name = event.rsplit("/", 1)[1]
    if name in ("sched_waking", "sched_wakeup", "sched_wakeup_new"):
        fields: tuple[str, ...] = ("target_cpu", "CPU")
    elif name == "sched_migrate_task":
        fields = ("dest_cpu", "orig_cpu")
    else:
        fields = ("CPU",)
    return " || ".join(f"{f} == {c}" for f in fields for c in sorted(set(cpus)))


def parse_stats(text: str) -> dict[str, int]:
    """One CPU's `per_cpu/cpuN/stats` (`entries: 12`, `oldest event ts: 1.5`, ...)."""
    stats: dict[str, int] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        with contextlib.suppress(ValueError):
            stats[key.strip().replace(" ", "_")] = int(float(value.strip()))
    return stats


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError as e:
        return f"<unreadable: {e.strerror or e}>"


def _write(path: Path, text: str) -> None:
    with path.open("w", encoding="ascii") as f:
        f.write(text)


def _mounted_at() -> Path | None:
    """Where tracefs is mounted, from /proc/self/mounts (None: nowhere)."""
    try:
        lines = Path("/proc/self/mounts").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split()
        if len(parts) >= 3 and parts[2] == "tracefs":
            return Path(parts[1].replace("\\040", " "))
    return None


@dataclass
class Mount:
    """tracefs, mounted by rtbench only when it was not mounted before."""

    root: Path
    mounted_here: bool = False

    @classmethod
    def find_or_mount(cls, where: Path = DEFAULT_MOUNT) -> Mount:
        found = _mounted_at()
        if found is not None and (found / "instances").is_dir():
            return cls(found)
        if not where.is_dir():
            raise TraceError(f"--trace needs tracefs, and {where} does not exist on this kernel.")
        try:
            done = subprocess.run(
                ["mount", "-t", "tracefs", "nodev", str(where)],
                capture_output=True,
                text=True,
                timeout=MOUNT_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            raise TraceError(f"--trace could not mount tracefs on {where}: {e}.") from None
        if done.returncode != 0:
            why = (done.stderr or done.stdout).strip().splitlines()
            raise TraceError(
                f"--trace could not mount tracefs on {where} "
                f"({why[-1] if why else 'mount failed'}); run as root."
            )
        return cls(where, mounted_here=True)

    def release(self) -> None:
        """Unmount what this object mounted, unless another rtbench run still traces
        there (its instance is present); never raises."""
        if not self.mounted_here:
            return
        with contextlib.suppress(OSError):
            if any(p.name.startswith("rtbench-") for p in (self.root / "instances").iterdir()):
                self.mounted_here = False
                return
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            subprocess.run(
                ["umount", str(self.root)],
                capture_output=True,
                timeout=MOUNT_TIMEOUT_S,
                check=False,
            )
        self.mounted_here = False


def state(root: Path | None = None) -> dict[str, object]:
    """Everything a user of tracefs could have set, as a comparable listing.

    {"mounted": bool} alone when tracefs is not mounted; else the top level's tracer,
    clock, tracing_on, buffer sizes (total and per CPU), cpumask, options, enabled
    events, the set_event list, and the instance names."""
    root = root or _mounted_at()
    if root is None or not (root / "trace_clock").exists():
        return {"mounted": False}
    listing: dict[str, object] = {"mounted": True, "root": str(root)}
    for name in (
        "current_tracer",
        "trace_clock",
        "tracing_on",
        "buffer_size_kb",
        "buffer_total_size_kb",
        "tracing_cpumask",
        "trace_options",
        "set_event",
        "set_event_pid",
        "set_ftrace_pid",
        "set_ftrace_filter",
    ):
        if (root / name).exists():
            listing[name] = _read(root / name)
    per_cpu = root / "per_cpu"
    if per_cpu.is_dir():
        listing["per_cpu_buffer_size_kb"] = {
            cpu.name: _read(cpu / "buffer_size_kb")
            for cpu in sorted(per_cpu.iterdir())
            if (cpu / "buffer_size_kb").exists()
        }
    events = root / "events"
    enabled = []
    if events.is_dir():
        for system in sorted(events.iterdir()):
            if not system.is_dir():
                continue
            for event in sorted(system.iterdir()):
                flag = event / "enable"
                if flag.exists() and _read(flag) not in ("0", ""):
                    enabled.append(f"{system.name}/{event.name}")
    listing["events_enabled"] = enabled
    instances = root / "instances"
    listing["instances"] = sorted(p.name for p in instances.iterdir()) if instances.is_dir() else []
    return listing


@dataclass
class Instance:
    """rtbench's own tracefs instance: created, configured, removed."""

    mount: Mount
    name: str
    path: Path = field(init=False)
    events: tuple[str, ...] = ()
    missing_events: tuple[str, ...] = ()
    unfiltered: tuple[str, ...] = ()  # events the kernel would not filter by CPU
    clock: str = ""

    def __post_init__(self) -> None:
        self.path = self.mount.root / "instances" / self.name

    @classmethod
    def create(cls, mount: Mount, name: str | None = None) -> Instance:
        inst = cls(mount, name or f"rtbench-{os.getpid()}")
        try:
            inst.path.mkdir()
        except FileExistsError:
            raise TraceError(
                f"tracefs instance {inst.name} already exists; another rtbench is tracing."
            ) from None
        except OSError as e:
            raise TraceError(
                f"--trace could not create tracefs instance {inst.path}: {e.strerror or e}."
            ) from None
        return inst

    def clocks(self) -> list[str]:
        return _read(self.path / "trace_clock").replace("[", "").replace("]", "").split()

    def configure(self, clock: str, buffer_kb: int, cpus: tuple[int, ...] = ()) -> None:
        """Clock, buffer size and the events (those this kernel has); with `cpus`, each
        event filtered to what happens on those CPUs, and wake-ups and migrations that
        target them from elsewhere (a filter the kernel refuses leaves its event whole)."""
        try:
            _write(self.path / "tracing_on", "0")
            _write(self.path / "trace_clock", clock)
            self.clock = clock
            _write(self.path / "buffer_size_kb", str(buffer_kb))
            found, missing = [], []
            for event in EVENTS:
                flag = self.path / "events" / event / "enable"
                if flag.exists():
                    if cpus:
                        self._filter(event, cpus)
                    _write(flag, "1")
                    found.append(event)
                else:
                    missing.append(event)
            self.events, self.missing_events = tuple(found), tuple(missing)
        except OSError as e:
            raise TraceError(
                f"--trace could not configure {self.path}: {e.strerror or e}."
            ) from None

    def _filter(self, event: str, cpus: tuple[int, ...]) -> None:
        try:
            _write(self.path / "events" / event / "filter", event_filter(event, cpus))
        except OSError:
            self.unfiltered += (event,)

    def set_clock(self, clock: str) -> None:
        _write(self.path / "trace_clock", clock)
        self.clock = clock

    def clear(self) -> None:
        _write(self.path / "trace", "")

    def on(self, enabled: bool) -> None:
        _write(self.path / "tracing_on", "1" if enabled else "0")

    def marker(self, text: str) -> None:
        fd = os.open(self.path / "trace_marker", os.O_WRONLY)
        try:
            os.write(fd, text.encode("ascii"))
        finally:
            os.close(fd)

    def read_trace(self, dest: Path) -> None:
        """Copy the (stopped) trace to `dest`, gzip-compressed, in bounded chunks."""
        with (self.path / "trace").open("rb") as src, gzip.open(dest, "wb", compresslevel=3) as out:
            shutil.copyfileobj(src, out, 1 << 20)

    def cpu_stats(self) -> dict[int, dict[str, int]]:
        """Per-CPU ring buffer statistics: entries, overrun, dropped events, ..."""
        out: dict[int, dict[str, int]] = {}
        per_cpu = self.path / "per_cpu"
        for cpu in sorted(per_cpu.iterdir()) if per_cpu.is_dir() else []:
            out[int(cpu.name.removeprefix("cpu"))] = parse_stats(_read(cpu / "stats"))
        return out

    def remove(self) -> None:
        """Stop tracing and remove the instance (a few tries: it may be busy a moment);
        never raises."""
        with contextlib.suppress(OSError):
            _write(self.path / "tracing_on", "0")
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.1)
