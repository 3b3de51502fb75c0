# SPDX-License-Identifier: Apache-2.0
"""The machine rtbench runs on, as a target.

The core is built here (or taken from RTBENCH_CORE) and runs as a child process.
While the run holds its settings, the runner itself moves off the measurement
CPU, so its watchdog never competes with what it measures; the core is still
allowed every CPU (the transport widens the children's affinity).
"""

from __future__ import annotations

import os
import platform
from typing import Any

from rtbench import build, system
from rtbench.errors import UsageError
from rtbench.paths import ROOT
from rtbench.targets.base import Say, Tracing
from rtbench.transport import LocalProcess, Transport
from rtbench.tuning import HostTuning


class LocalTuning:
    """HostTuning, plus the runner pinned away from the measurement CPU."""

    def __init__(self, host: HostTuning, cpu: int) -> None:
        self._host = host
        self._cpu = cpu
        self._affinity: set[int] | None = None

    @property
    def changes(self) -> list[dict[str, Any]]:
        return self._host.changes

    @property
    def skipped(self) -> list[dict[str, str]]:
        return self._host.skipped

    def apply(self) -> None:
        self._affinity = os.sched_getaffinity(0)
        others = self._affinity - {self._cpu}
        if others:
            os.sched_setaffinity(0, others)
        self._host.apply()

    def restore(self) -> None:
        try:
            self._host.restore()
        finally:
            if self._affinity is not None:
                os.sched_setaffinity(0, self._affinity)
                self._affinity = None


class LocalTarget:
    """This machine."""

    kind = "local"
    runs_here = True

    def __init__(self, spec: str = "local", libc: str = "glibc") -> None:
        self.spec = spec
        self.libc = libc
        self._say: Say = lambda _text: None
        self._transport: LocalProcess | None = None

    def open(self, say: Say) -> None:
        # The core is built on first use: `rtbench system` needs no core.
        self._say = say

    def transport(self) -> Transport:
        if self._transport is None:
            if self.libc == "glibc":
                core = build.ensure_core(ROOT, self._say)
            else:
                core = build.ensure_core(ROOT, self._say, libc=self.libc, static=True)
            self._transport = LocalProcess(core, child_cpus=set(os.sched_getaffinity(0)))
        return self._transport

    def check_cpu(self, cpu: int | None) -> int:
        usable = system.usable_cpus()
        if cpu is None:
            return system.default_cpu()
        if cpu not in usable:
            listed = ", ".join(str(c) for c in usable)
            raise UsageError(
                f"CPU {cpu} is not online or not allowed for this process (usable: {listed})."
            )
        return cpu

    def snapshot(self, cpu: int, cpu_given: bool) -> dict[str, Any]:
        return system.snapshot(cpu, cpu_given=cpu_given)

    def caveats(self, snap: dict[str, Any]) -> list[dict[str, str]]:
        return system.caveats(snap)

    def tuning(self, dma_latency: bool, lift_rt_throttle: bool, cpu: int) -> LocalTuning:
        host = HostTuning(cpu_dma_latency=dma_latency, lift_rt_throttle=lift_rt_throttle)
        return LocalTuning(host, cpu)

    def recover(self, say: Say) -> bool:
        return True  # a local child cannot take the machine with it

    def shares_host_cpus(self) -> bool:
        return True

    def tracing(self) -> Tracing | None:
        from rtbench.targets.tracing import KernelTracing, need_local_root  # noqa: PLC0415
        from rtbench.trace.kernel.access import LocalTracefs  # noqa: PLC0415

        return KernelTracing(LocalTracefs, need_local_root)

    def render_snapshot(self, snap: dict[str, Any], cavs: list[dict[str, str]]) -> str:
        return system.render(snap, cavs)

    def describe(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "spec": self.spec,
            "arch": platform.machine(),
            "libc": self.libc,
            "hostname": platform.node(),
        }

    def close(self) -> None:
        self._transport = None
