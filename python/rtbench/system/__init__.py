# SPDX-License-Identifier: Apache-2.0
"""What a system does to real-time results: a snapshot, the caveats it implies, a report.

`snapshot()` reads everything on a Linux system that changes how a real-time measurement
comes out (kernel preemption model, RT throttling, CPU isolation, SMT, frequency
governor, idle states, clocksource, virtualisation, privileges, memory settings, load on
the measurement CPU). It reads through a `Source`: this machine by default, or the
target's own channel (`CommandSource` for SSH boards and guests), so every fact describes
the machine under test. Every value is plain JSON; a fact that cannot be read is `None`,
never an exception.

`caveats()` turns a snapshot into sentences that say what each finding does to the
results and what to do about it; `render()` is the text of `rtbench system`.

The package: `source` (the Source protocol), `local` and `remote` (the two sources),
`parse` (pure parsers), `model` (the snapshot's shape), `probes/` (one module per
subject), `snapshot` (assembly), `registry` and `checks/` (caveats), `render`.
"""

from __future__ import annotations

from typing import Any, cast

from rtbench.system import snapshot as _snapshot
from rtbench.system.checks import CAVEAT_CODES, caveats
from rtbench.system.local import LocalSource, probe_sched_fifo
from rtbench.system.model import SNAPSHOT_VERSION, Snapshot
from rtbench.system.parse import (
    format_cpu_list,
    kernel_version_tuple,
    parse_cmdline,
    parse_cpu_list,
    parse_isolcpus,
    parse_kernel_config,
    preempt_model,
)
from rtbench.system.probes import cpus as _cpus
from rtbench.system.probes.load import LOAD_WINDOW_S
from rtbench.system.remote import CommandSource, RunCommand, subprocess_runner
from rtbench.system.render import render
from rtbench.system.source import Source

# The machine the default source reads. Tests point it at a directory tree that stands
# in for a made-up machine; anything else leaves it alone.
ROOT = "/"


def local_source() -> LocalSource:
    """The Source for this machine (or the tree ROOT points at)."""
    return LocalSource(ROOT)


def snapshot(
    cpu: int | None = None, cpu_given: bool | None = None, source: Source | None = None
) -> dict[str, Any]:
    """Everything on the target that affects real-time results, as JSON-ready data.

    `cpu` is the measurement CPU (default: `default_cpu()`); `cpu_given` says whether the
    user chose it (`--cpu`), which defaults to whether `cpu` was passed. `source` is
    where the facts are read (default: this machine). Values that cannot be read are
    None; nothing here raises for a missing or unreadable source. Nothing on the target
    is changed (the SCHED_FIFO probe runs on a thread or process that ends at once).
    """
    taken: Snapshot = _snapshot.take(source or local_source(), cpu, cpu_given)
    return cast("dict[str, Any]", taken)


def usable_cpus(source: Source | None = None) -> list[int]:
    """CPUs that are online and in the affinity mask of a process there, ascending."""
    return _cpus.usable_cpus(source or local_source())


def default_cpu(source: Source | None = None) -> int:
    """The measurement CPU used when none is given: the last usable CPU."""
    return _cpus.default_cpu(source or local_source())


__all__ = [
    "CAVEAT_CODES",
    "LOAD_WINDOW_S",
    "ROOT",
    "SNAPSHOT_VERSION",
    "CommandSource",
    "LocalSource",
    "RunCommand",
    "Source",
    "caveats",
    "default_cpu",
    "format_cpu_list",
    "kernel_version_tuple",
    "local_source",
    "parse_cmdline",
    "parse_cpu_list",
    "parse_isolcpus",
    "parse_kernel_config",
    "preempt_model",
    "probe_sched_fifo",
    "render",
    "snapshot",
    "subprocess_runner",
    "usable_cpus",
]
