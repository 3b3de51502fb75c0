# SPDX-License-Identifier: Apache-2.0
"""The snapshot: every probe, run against one Source, assembled into the stored JSON.

The files the probes read are fetched first in one batch (each probe module lists its
own in `prefetch`), so a remote target answers a snapshot in about ten round trips
whatever the number of files. The load on the measurement CPU is sampled over a 0.1 s
window on the target; the rest only reads.
"""

from __future__ import annotations

import datetime
import platform
import time

from rtbench.system import parse
from rtbench.system.model import SNAPSHOT_VERSION, Snapshot
from rtbench.system.probes import background, cpus, kernel, load, power, privileges, virt
from rtbench.system.source import Prefetched, Source


def prefetch_patterns(cpu: int, release: str | None) -> list[str]:
    """Every file the probes read for measurement CPU `cpu`, as glob patterns."""
    return [
        *kernel.prefetch(release),
        *cpus.prefetch(cpu),
        *power.prefetch(cpu),
        *virt.prefetch(),
        privileges.CPU_DMA_LATENCY,
        *background.prefetch(),
        *load.prefetch(),
    ]


def take(source: Source, cpu: int | None = None, cpu_given: bool | None = None) -> Snapshot:
    """Everything on the target that affects real-time results, as JSON-ready data.

    `cpu` is the measurement CPU (default: the last usable CPU); `cpu_given` says
    whether the user chose it (`--cpu`), which defaults to whether `cpu` was passed.
    """
    started = time.monotonic()
    uname = source.uname()
    given = cpu is not None if cpu_given is None else cpu_given
    measured = cpu if cpu is not None else cpus.default_cpu(source)
    src = Prefetched(source, prefetch_patterns(measured, uname.release))

    cmdline = src.read(kernel.CMDLINE)
    params = parse.parse_cmdline(cmdline)
    config, config_source = kernel.read_config(src, uname.release)
    fields, cpu_flags = parse.parse_cpuinfo(src.read("/proc/cpuinfo"))
    usable = cpus.usable_cpus(src)
    cpu_facts = cpus.cpus_section(src, cpu_flags, parse.cpu_model(fields), uname.machine, usable)
    cpus.add_cmdline(cpu_facts, params)
    facts = src.process()
    sampled = load.load(src, measured)
    snap: Snapshot = {
        "snapshot_version": SNAPSHOT_VERSION,
        "taken_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "hostname": uname.nodename,
        "kernel": kernel.kernel_facts(src, uname, params, cmdline, config, config_source),
        "rt_throttling": kernel.rt_throttling(src, uname.release, measured),
        "cpus": cpu_facts,
        "measurement_cpu": cpus.measurement_cpu(
            src, measured, "argument" if given else "default", cpu_facts, params
        ),
        "frequency": power.frequency(src, cpu_facts["online"]),
        "cpuidle": power.cpuidle(src),
        "clocksource": power.clocksource(src),
        "virtualization": virt.virtualization(src, cpu_flags, uname.machine),
        "libc": privileges.libc(facts),
        # the Python that runs rtbench (on the controller, whatever the target)
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
        },
        "privileges": privileges.privileges(facts),
        "cpu_dma_latency": privileges.cpu_dma_latency(src, uname.machine),
        "memory": background.memory(src),
        "kernel_knobs": background.kernel_knobs(src),
        "tracing": background.tracing(src),
        "irqbalance": background.irqbalance(src),
        "load": sampled,
    }
    snap["elapsed_s"] = round(time.monotonic() - started, 3)
    return snap
