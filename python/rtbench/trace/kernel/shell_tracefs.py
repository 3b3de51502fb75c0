# SPDX-License-Identifier: Apache-2.0
"""tracefs on another machine: the steps of trace.kernel.access.TracefsAccess as shell
scripts, one script per step, run there by a `ShellRunner`.

A runner is the one thing that differs between the ways rtbench reaches a Linux
machine: it runs a POSIX sh script with arguments there and gives back its exit
status, standard output and error (or streams the output into a file), and, when
its transport can keep a second session open next to the steps, starts a *guard*.
targets.ssh.tracefs runs the scripts over an SSH target's connection;
targets.guest.tracefs through a QEMU guest's agent on its serial line.

The instance is `instances/rtbench-<pid>-<random>` (the pid is rtbench's here, so
two machines tracing one target do not collide). The guard is a session that waits
for its input to end and then stops and removes the instance (and unmounts tracefs
when rtbench mounted it there): the normal end closes its input and reads what it
did; when rtbench dies or the connection ends, the far end closes that input, so the
instance goes on every path on which the target learns that the session ended.
Without a guard, the runner says what removes the instance instead (`removal`), and
what may be left when the machine cannot be reached at the end (`left_behind`).

The machine's CLOCK_MONOTONIC is not this one's, so the sync readings are taken
there: the script writes a marker, reads the kernel's monotonic clock from the
`now at N nsecs` line of /proc/timer_list (ktime_get(), the clock of
CLOCK_MONOTONIC), and writes a second marker, with shell builtins only.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import secrets
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any, Protocol

from rtbench.trace.kernel.access import SyncRead
from rtbench.trace.kernel.tracefs import EVENTS, TraceError, event_filter, parse_stats

_STEP_TIMEOUT_S = 30.0
_CONFIGURE_TIMEOUT_S = 120.0  # allocating the ring buffers takes a while
_READ_TIMEOUT_S = 600.0
_GUARD_WAIT_S = 15.0
# what a runner's status says when a step ran out of time (as timeout(1) says it)
STATUS_TIMEOUT = 124

# $1: the instance's name. Finds or mounts tracefs, creates the instance, and says
# what it found as `@word ...` lines.
_OPEN = r"""
[ "$(id -u)" = 0 ] || { echo "@not-root"; exit 0; }
root=
while read -r _dev mnt typ _rest; do
  if [ "$typ" = tracefs ] && [ -d "$mnt/instances" ]; then root=$mnt; break; fi
done < /proc/self/mounts
mounted=0
if [ -z "$root" ]; then
  [ -d /sys/kernel/tracing ] || { echo "@no-tracefs"; exit 0; }
  if ! said=$(mount -t tracefs nodev /sys/kernel/tracing 2>&1); then
    echo "@mount-failed $said"; exit 0
  fi
  root=/sys/kernel/tracing mounted=1
fi
echo "@root $mounted $root"
if ! said=$(mkdir "$root/instances/$1" 2>&1); then
  echo "@mkdir-failed $said"
  [ $mounted = 1 ] && umount "$root"
  exit 0
fi
echo "@clocks $(cat "$root/instances/$1/trace_clock")"
while read -r a b now _rest; do
  if [ "$a $b" = "now at" ]; then echo "@now $now"; break; fi
done < /proc/timer_list
command -v gzip > /dev/null 2>&1 && echo "@gzip"
while read -r m _rest; do
  case $m in lttng_*) echo "@lttng"; break ;; esac
done < /proc/modules
echo "@opened"
"""

# $1: the instance; $2: clock; $3: buffer KiB; then pairs of event and filter ("" for
# none). Says `@found`, `@missing` or `@unfiltered` for each event.
_CONFIGURE = r"""
p=$1
echo 0 > "$p/tracing_on" && echo "$2" > "$p/trace_clock" && echo "$3" > "$p/buffer_size_kb" \
  || exit 1
shift 3
while [ $# -ge 2 ]; do
  e=$1 f=$2
  shift 2
  if [ ! -e "$p/events/$e/enable" ]; then echo "@missing $e"; continue; fi
  if [ -n "$f" ] && ! (echo "$f" > "$p/events/$e/filter") 2> /dev/null; then
    echo "@unfiltered $e"
  fi
  echo 1 > "$p/events/$e/enable" || exit 1
  echo "@found $e"
done
"""

# Writes $3 sync readings from marker id $2 on: marker, monotonic clock, marker.
_SYNC = r"""
sync() {
  exec 4> "$p/trace_marker" || return 1
  i=0 id=$1
  while [ $i -lt $2 ]; do
    echo "rtbench-sync $id" >&4
    now=
    while read -r a b t _rest; do
      if [ "$a $b" = "now at" ]; then now=$t; break; fi
    done < /proc/timer_list
    echo "rtbench-sync $((id + 1))" >&4
    echo "@sync $id $((id + 1)) $now"
    id=$((id + 2)) i=$((i + 1))
  done
  exec 4>&-
}
"""

# $1: the instance; $2, $3: the first marker id and how many readings.
_START = (
    _SYNC
    + r"""
p=$1
echo 0 > "$p/tracing_on" && : > "$p/trace" && echo 1 > "$p/tracing_on" || exit 1
sync "$2" "$3"
"""
)
_FINISH = (
    _SYNC
    + r"""
p=$1
sync "$2" "$3"; status=$?
echo 0 > "$p/tracing_on" || exit 1
exit $status
"""
)

_STATS = r"""
for d in "$1"/per_cpu/cpu*; do
  [ -f "$d/stats" ] || continue
  echo "@cpu ${d##*/cpu}"
  cat "$d/stats"
done
"""

_READ = r"""
if command -v gzip > /dev/null 2>&1; then cat "$1/trace" | gzip -1; else cat "$1/trace"; fi
"""

# $1: the instance's folder; $2: tracefs; $3: 1 when rtbench mounted it. Stops and
# removes the instance (a few tries: it may be busy a moment), and unmounts tracefs
# when rtbench mounted it and no other rtbench instance is left there.
_REMOVE = r"""
trap '' PIPE HUP
p=$1 n=0
if [ -d "$p" ]; then
  echo 0 > "$p/tracing_on" 2> /dev/null
  while ! rmdir "$p" 2> /dev/null && [ -d "$p" ] && [ $n -lt 50 ]; do
    n=$((n + 1))
    sleep 0.1
  done
fi
if [ -d "$p" ]; then echo "@left"; else echo "@removed"; fi
if [ "$3" = 1 ]; then
  others=
  for i in "$2"/instances/rtbench-*; do [ -d "$i" ] && others=1; done
  if [ -z "$others" ] && umount "$2" 2> /dev/null; then echo "@unmounted"; fi
fi
"""
_GUARD = "trap '' PIPE HUP\nwhile read -r _l; do :; done\n" + _REMOVE


class Guard(Protocol):
    """A session next to the steps that removes the instance when its input ends."""

    def ended(self) -> bool:
        """Whether the session ended (its connection was lost)."""
        ...

    def end(self, wait_s: float) -> bytes:
        """Close its input, wait up to `wait_s` for it to end (ending it then), and
        give back what it wrote."""
        ...


class ShellRunner(Protocol):
    """Runs sh scripts on one machine."""

    @property
    def where(self) -> str:
        """How the machine is reached: "ssh", "guest"."""
        ...

    @property
    def removal(self) -> str:
        """What removes the instance when rtbench's end does not (one sentence)."""
        ...

    def run(self, script: str, args: Sequence[str], timeout_s: float) -> tuple[int, bytes, bytes]:
        """Run `script` with `args` as $1...: (status, stdout, stderr); never raises for
        the script (STATUS_TIMEOUT: out of time)."""
        ...

    def run_to(
        self, script: str, args: Sequence[str], out: IO[bytes], timeout_s: float
    ) -> tuple[int, bytes]:
        """Run `script`, its standard output streamed into `out`: (status, stderr)."""
        ...

    def guard(self, script: str, args: Sequence[str]) -> Guard | None:
        """Start `script` as a guard, or None when the transport cannot hold one."""
        ...

    def alive(self) -> bool:
        """Whether the machine can still be reached."""
        ...

    def why_down(self) -> str:
        """Why it cannot be reached, in a few words."""
        ...

    def generation(self) -> int:
        """Changes when the machine was replaced (a fresh guest booted): its tracefs
        then holds no instance of this run."""
        ...

    def left_behind(self, path: str) -> str | None:
        """What to tell the user when the instance at `path` could not be removed and
        the machine cannot be reached (None: nothing can be left)."""
        ...


def _said(out: bytes) -> dict[str, list[str]]:
    """`@word rest` lines: word -> the rests, in order."""
    found: dict[str, list[str]] = {}
    for line in out.decode("utf-8", errors="replace").splitlines():
        if line.startswith("@"):
            word, _, rest = line[1:].partition(" ")
            found.setdefault(word, []).append(rest.strip())
    return found


class ShellTracefs:
    """tracefs on the machine `runner` reaches (`spec` names it in messages)."""

    def __init__(self, runner: ShellRunner, spec: str) -> None:
        self._runner = runner
        self._spec = spec
        self.name = f"rtbench-{os.getpid()}-{secrets.token_hex(2)}"
        self.root = ""
        self.path = ""
        self.mounted_here = False
        self.clock = ""
        self.events: tuple[str, ...] = ()
        self.missing_events: tuple[str, ...] = ()
        self.unfiltered: tuple[str, ...] = ()
        self._clocks: list[str] = []
        self._gzip = False
        self._lttng = False
        self._sync_id = 0
        self._guard: Guard | None = None
        self._generation = runner.generation()
        self._settings: tuple[str, int, tuple[int, ...]] | None = None
        self._closed = False
        self.reopened = 0

    @property
    def where(self) -> str:
        return self._runner.where

    # -- running the steps ---------------------------------------------------------------

    def _step(
        self, script: str, what: str, *args: str, timeout_s: float = _STEP_TIMEOUT_S
    ) -> dict[str, list[str]]:
        status, out, err = self._runner.run(script, args, timeout_s)
        if status != 0:
            raise TraceError(f"--trace could not {what} on {self._spec}: {self._why(status, err)}.")
        return _said(out)

    def _why(self, status: int, err: bytes) -> str:
        if not self._runner.alive():
            return self._runner.why_down()
        said = [line for line in err.decode("utf-8", errors="replace").splitlines() if line]
        if said:
            return said[-1].strip().rstrip(".")
        return "out of time" if status == STATUS_TIMEOUT else f"exit status {status}"

    # -- TracefsAccess -------------------------------------------------------------------

    def open(self) -> None:
        self._generation = self._runner.generation()
        said = self._step(_OPEN, "set up tracefs", self.name)
        if "not-root" in said:
            raise TraceError(
                f"--trace needs root on {self._spec}: it sets up a tracefs instance there."
            )
        if "no-tracefs" in said:
            raise TraceError(
                f"--trace needs tracefs, and /sys/kernel/tracing does not exist on {self._spec}."
            )
        if "mount-failed" in said:
            raise TraceError(
                f"--trace could not mount tracefs on {self._spec} "
                f"({said['mount-failed'][0] or 'mount failed'})."
            )
        if "root" not in said:
            raise TraceError(f"--trace could not set up tracefs on {self._spec}.")
        mounted, _, root = said["root"][0].partition(" ")
        self.root, self.mounted_here = root, mounted == "1"
        self.path = f"{root}/instances/{self.name}"
        if "mkdir-failed" in said:
            raise TraceError(
                f"--trace could not create the tracefs instance {self.path} on {self._spec} "
                f"({said['mkdir-failed'][0]})."
            )
        self._start_guard()
        if "opened" not in said:
            raise TraceError(f"--trace could not set up tracefs on {self._spec}.")
        if "now" not in said or not said["now"][0].isdigit():
            raise TraceError(
                f"--trace cannot read the monotonic clock of {self._spec} from "
                "/proc/timer_list, which ties the samples to the trace."
            )
        self._clocks = said["clocks"][0].replace("[", "").replace("]", "").split()
        self._gzip = "gzip" in said
        self._lttng = "lttng" in said

    def _start_guard(self) -> None:
        self._end_guard()
        self._guard = self._runner.guard(_GUARD, self._remove_args())

    def _remove_args(self) -> tuple[str, str, str]:
        return (self.path, self.root, "1" if self.mounted_here else "0")

    def clocks(self) -> list[str]:
        return list(self._clocks)

    def configure(self, clock: str, buffer_kb: int, cpus: tuple[int, ...]) -> None:
        pairs: list[str] = []
        for event in EVENTS:
            pairs += [event, event_filter(event, cpus) if cpus else ""]
        said = self._step(
            _CONFIGURE,
            "configure the tracefs instance",
            self.path,
            clock,
            str(buffer_kb),
            *pairs,
            timeout_s=_CONFIGURE_TIMEOUT_S,
        )
        self.clock = clock
        self.events = tuple(said.get("found", []))
        self.missing_events = tuple(said.get("missing", []))
        self.unfiltered = tuple(said.get("unfiltered", []))
        self._settings = (clock, buffer_kb, cpus)

    def ensure(self) -> str | None:
        if self._settings is None:
            return None
        if self._runner.generation() != self._generation:
            why = "a fresh machine was booted after the last one was lost"
        elif self._guard is not None and self._guard.ended():
            why = "the target removed it when the connection ended"
        else:
            return None
        # Set it up again on the new connection or machine.
        self._end_guard()
        self.open()
        self.configure(*self._settings)
        self.reopened += 1
        return f"--trace: set up tracefs instance {self.name} on {self._spec} again ({why})."

    def _sync(self, script: str, what: str, count: int) -> list[SyncRead]:
        first = self._sync_id + 1
        self._sync_id += 2 * count
        said = self._step(script, what, self.path, str(first), str(count))
        reads = []
        for rest in said.get("sync", []):
            parts = rest.split()
            if len(parts) == 3 and all(p.isdigit() for p in parts):
                a, b, now = (int(p) for p in parts)
                reads.append(SyncRead(a, b, now, now))
        return reads

    def start(self, count: int) -> list[SyncRead]:
        return self._sync(_START, "start the trace", count)

    def finish(self, count: int) -> list[SyncRead]:
        return self._sync(_FINISH, "stop the trace", count)

    def cpu_stats(self) -> dict[int, dict[str, int]]:
        status, out, err = self._runner.run(_STATS, (self.path,), _STEP_TIMEOUT_S)
        if status != 0:
            raise TraceError(
                f"--trace could not read the ring buffer statistics on {self._spec}: "
                f"{self._why(status, err)}."
            )
        stats: dict[int, dict[str, int]] = {}
        cpu: int | None = None
        lines: list[str] = []
        for line in [*out.decode("utf-8", errors="replace").splitlines(), "@cpu end"]:
            if line.startswith("@cpu "):
                if cpu is not None:
                    stats[cpu] = parse_stats("\n".join(lines))
                rest = line[5:].strip()
                cpu, lines = (int(rest) if rest.isdigit() else None), []
            else:
                lines.append(line)
        return stats

    def read_trace(self, dest: Path) -> None:
        """Streamed back compressed on the target (gzip -1) when it has gzip, else
        compressed here."""
        raw = dest.with_name(f".{dest.name}.part")
        try:
            with raw.open("wb") as out:
                status, err = self._runner.run_to(_READ, (self.path,), out, _READ_TIMEOUT_S)
            if status == STATUS_TIMEOUT and self._runner.alive():
                raise TraceError(
                    f"--trace could not read the trace on {self._spec} within "
                    f"{_READ_TIMEOUT_S:g} s."
                )
            if status != 0:
                raise TraceError(
                    f"--trace could not read the trace on {self._spec}: {self._why(status, err)}."
                )
            with raw.open("rb") as f:
                compressed = f.read(2) == b"\x1f\x8b"
            if compressed:
                raw.replace(dest)
            else:
                with raw.open("rb") as src, gzip.open(dest, "wb", compresslevel=3) as out:
                    shutil.copyfileobj(src, out, 1 << 20)
        finally:
            with contextlib.suppress(OSError):
                raw.unlink()

    def lttng_loaded(self) -> bool:
        return self._lttng

    def describe(self) -> dict[str, Any]:
        return {
            "where": self.where,
            "target": self._spec,
            "instance_path": self.path or None,
            "sync_method": "a CLOCK_MONOTONIC read on the target (/proc/timer_list, "
            "`now at`) between two markers",
            "compressed_on_target": self._gzip,
            "removal": self._runner.removal,
            "set_up_again": self.reopened,
        }

    def close(self) -> str | None:
        if self._closed:
            return None
        self._closed = True
        if not self.path:
            return None
        said = self._end_guard()
        if "removed" in said:
            return None
        if self._runner.alive():
            with contextlib.suppress(TraceError):
                said = self._step(_REMOVE, "remove the tracefs instance", *self._remove_args())
            if "removed" in said:
                return None
        return self._runner.left_behind(self.path)

    def _end_guard(self) -> dict[str, list[str]]:
        """Close the guard's input so it removes the instance; what it said."""
        guard, self._guard = self._guard, None
        return _said(guard.end(_GUARD_WAIT_S)) if guard is not None else {}
