# SPDX-License-Identifier: Apache-2.0
"""Settings a run changes inside a guest, through its agent.

RT throttling is lifted on request (`--lift-rt-throttle`) by writing -1 to the
guest's `sched_rt_runtime_us` and put back at the end of the run.

The serial line is how rtbench stops a scenario, so the agent and what the line
depends on are kept able to answer while the scenario's real-time threads run
(`SerialLineTuning`, on every run): the line's interrupt is moved off the
measurement CPU when the guest has another one, PREEMPT_RT's interrupt thread of
the line runs at SCHED_FIFO 99 and the agent at SCHED_FIFO 98, on the other CPUs,
above every scenario thread (the core's highest is the system's maximum less two).
Each change is in the run's settings with what it was, and put back at the end.

The guest is powered off after the run anyway, so a setting that could not be put
back (the guest was lost) ends with it; the record says so. A fresh guest booted
after a lost one gets every setting again (`reapply`), and the record then
describes that guest's. `cpu_dma_latency` is
not held: a guest's virtual CPUs have no idle states the host would leave for
it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from typing import Any

from rtbench.targets.guest.link import LinkSource
from rtbench.transport import TargetLost

RT_RUNTIME = "/proc/sys/kernel/sched_rt_runtime_us"
AGENT_PID = 1  # the agent is the guest's /init
AGENT_PRIORITY = 98
SERIAL_IRQ_PRIORITY = 99  # above the agent, which waits on it for every byte
_SETTLE_S = 10.0  # each command's time limit in the guest


def cpu_list(cpus: list[int]) -> str:
    """`0,2-3` for [0, 2, 3] (the kernel's list format)."""
    parts: list[str] = []
    for cpu in sorted(set(cpus)):
        if parts and re.fullmatch(rf"(\d+-)?{cpu - 1}", parts[-1]):
            parts[-1] = f"{parts[-1].split('-')[0]}-{cpu}"
        else:
            parts.append(str(cpu))
    return ",".join(parts)


class _Settings:
    """What a tuning changed and skipped, and how to put each change back."""

    def __init__(self, source: Callable[[], LinkSource]) -> None:
        self.source = source
        self.changes: list[dict[str, Any]] = []
        self.skipped: list[dict[str, str]] = []
        self._undo: list[tuple[dict[str, Any], Callable[[], bool]]] = []

    def run(self, argv: list[str]) -> tuple[bool, str]:
        """A command in the guest: (it succeeded, its output)."""
        status, out = self.source().command(argv, timeout_s=_SETTLE_S)
        return status == 0, out.decode(errors="replace").strip()

    def changed(self, change: dict[str, Any], undo: Callable[[], bool]) -> None:
        self.changes.append({**change, "restored": False})
        self._undo.append((self.changes[-1], undo))

    def skip(self, setting: str, reason: str) -> None:
        self.skipped.append({"setting": setting, "reason": reason})

    def restore(self) -> None:
        """Put every change back, the last first. Never raises: the guest may be gone."""
        while self._undo:
            change, undo = self._undo.pop()
            try:
                change["restored"] = bool(undo())
            except Exception:
                change["restored"] = False
            if not change["restored"]:
                change["note"] += "; not put back (the guest ended), and it ends with the guest"


class SerialLineTuning:
    """Keeps the agent and the protocol's serial line answering during a scenario.

    `port`: the protocol's tty in the guest (`ttyS1`, `ttyAMA0`); `cpu`: the
    measurement CPU; `cpus`: how many the guest has."""

    def __init__(self, settings: _Settings, port: str, cpu: int, cpus: int) -> None:
        self._s = settings
        self._port = port
        self._others = [c for c in range(cpus) if c != cpu]

    def apply(self) -> None:
        try:
            irq = self._irq()
            if irq is not None:
                self._irq_affinity(irq)
                self._irq_threads(irq)
            self._agent()
        except (TargetLost, ValueError) as e:
            self._s.skip("serial line", f"the guest did not answer ({e})")

    def _irq(self) -> int | None:
        text = self._s.source().read(f"/sys/class/tty/{self._port}/irq")
        if text is None or not text.isdigit() or int(text) == 0:
            self._s.skip("serial_irq", f"the guest does not say which interrupt {self._port} uses")
            return None
        return int(text)

    def _irq_affinity(self, irq: int) -> None:
        setting = "serial_irq_affinity"
        path = f"/proc/irq/{irq}/smp_affinity_list"
        if not self._others:
            return  # one CPU: the line's interrupt has nowhere else to go
        original = self._s.source().read(path)
        applied = cpu_list(self._others)
        if original is None:
            self._s.skip(setting, f"{path} is unreadable")
            return
        if original == applied:
            return

        def write(value: str) -> bool:
            return self._s.run(["sh", "-c", f"echo {value} > {shlex.quote(path)}"])[0]

        if not write(applied):
            self._s.skip(setting, f"the guest refused {applied} in {path}")
            return
        self._s.changed(
            {
                "setting": setting,
                "original": original,
                "applied": applied,
                "note": f"interrupt {irq} of the serial line ({self._port}) kept off the "
                "measurement CPU",
            },
            lambda: write(original),
        )

    def _irq_threads(self, irq: int) -> None:
        """PREEMPT_RT runs the line's handler in a kernel thread (`irq/3-ttyS1`,
        SCHED_FIFO 50): below a scenario's busy top-priority thread it would never
        run, and the agent would hear nothing."""
        script = (
            "for d in /proc/[0-9]*; do read -r c < $d/comm 2>/dev/null || continue; "
            f'case $c in irq/{irq}-*) echo "${{d#/proc/}} $c";; esac; done'
        )
        ok, out = self._s.run(["sh", "-c", script])
        if not ok:
            self._s.skip("serial_irq_thread_priority", "the guest's processes are unreadable")
            return
        for line in out.splitlines():
            pid, name = line.split(" ", 1)
            self._priority(
                "serial_irq_thread_priority", int(pid), SERIAL_IRQ_PRIORITY,
                f"{name}, the kernel thread handling the serial line's interrupt, above "
                "every scenario thread",
            )  # fmt: skip

    def _agent(self) -> None:
        setting = "agent_affinity"
        if self._others:
            status = self._s.source().read(f"/proc/{AGENT_PID}/status") or ""
            found = re.search(r"^Cpus_allowed_list:\s*(\S+)", status, re.MULTILINE)
            applied = cpu_list(self._others)
            if found is None:
                self._s.skip(setting, "the agent's CPUs are unreadable")
            elif found.group(1) != applied:
                original = found.group(1)

                def pin(cpus: str) -> bool:
                    return self._s.run(["taskset", "-p", "-c", cpus, str(AGENT_PID)])[0]

                if pin(applied):
                    self._s.changed(
                        {
                            "setting": setting,
                            "original": original,
                            "applied": applied,
                            "note": "the guest agent kept off the measurement CPU (the core "
                            "and commands it starts may use every CPU)",
                        },
                        lambda: pin(original),
                    )
                else:
                    self._s.skip(setting, f"the guest refused CPUs {applied} for the agent")
        self._priority(
            "agent_priority", AGENT_PID, AGENT_PRIORITY,
            "the guest agent, which answers the serial line, above every scenario thread "
            "(the core and commands it starts run as ordinary processes)",
        )  # fmt: skip

    def _priority(self, setting: str, pid: int, priority: int, note: str) -> None:
        ok, text = self._s.run(["chrt", "-p", str(pid)])
        words = text.split()
        if not ok or len(words) != 2 or not words[1].isdigit():
            self._s.skip(setting, f"the policy of pid {pid} is unreadable ({text or 'no answer'})")
            return
        policy, original = words[0], int(words[1])
        if policy == "SCHED_FIFO" and original >= priority:
            return
        if policy not in ("SCHED_FIFO", "SCHED_OTHER"):
            self._s.skip(setting, f"pid {pid} runs under {policy}, left as it is")
            return

        def set_policy(flag: str, value: int) -> bool:
            return self._s.run(["chrt", flag, "-p", str(value), str(pid)])[0]

        if not set_policy("-f", priority):
            self._s.skip(setting, f"the guest refused SCHED_FIFO {priority} for pid {pid}")
            return
        back = ("-f", original) if policy == "SCHED_FIFO" else ("-o", 0)
        self._s.changed(
            {
                "setting": setting,
                "original": f"{policy} {original}",
                "applied": f"SCHED_FIFO {priority}",
                "note": note,
            },
            lambda: set_policy(*back),
        )


class GuestTuning:
    """The Tuning of a QEMU guest (see targets.base.Tuning).

    `serial_port`, `cpu`, `cpus`: the protocol's tty, the measurement CPU and the
    guest's CPU count, for `SerialLineTuning` (None: the line is left alone)."""

    def __init__(
        self,
        source: Callable[[], LinkSource],
        dma_latency: bool,
        lift_rt_throttle: bool,
        serial_port: str | None = None,
        cpu: int = 0,
        cpus: int = 1,
    ) -> None:
        self._source = source
        self._settings = _Settings(source)
        self._lift = lift_rt_throttle
        self._dma = dma_latency
        self._serial_args = (serial_port, cpu, cpus)
        self._applied = False

    @property
    def changes(self) -> list[dict[str, Any]]:
        return self._settings.changes

    @property
    def skipped(self) -> list[dict[str, str]]:
        return self._settings.skipped

    def apply(self) -> None:
        self._applied = True
        if self._dma:
            self._settings.skip(
                "cpu_dma_latency",
                "not held in a QEMU guest: its virtual CPUs have no idle states the host "
                "would leave for it",
            )
        if self._lift:
            self._lift_rt_throttle()
        port, cpu, cpus = self._serial_args
        if port:
            SerialLineTuning(self._settings, port, cpu, cpus).apply()

    def reapply(self) -> None:
        """A fresh guest booted after the last one was lost: the settings ended with
        that guest, so they are made again on this one (and the record describes
        this one's)."""
        if self._applied:
            self._settings = _Settings(self._source)
            self.apply()

    def _lift_rt_throttle(self) -> None:
        setting = "sched_rt_runtime_us"
        s = self._settings

        def write(value: int) -> bool:
            return s.run(["sh", "-c", f"echo {value} > {shlex.quote(RT_RUNTIME)}"])[0]

        try:
            text = s.source().read(RT_RUNTIME)
            original = int(text) if text is not None else None
            if original is None:
                s.skip(setting, f"{RT_RUNTIME} is unreadable")
                return
            if original == -1:
                s.skip(setting, "RT throttling is already lifted in the guest")
                return
            if not write(-1):
                s.skip(setting, f"the guest refused -1 in {RT_RUNTIME}")
                return
        except (TargetLost, ValueError) as e:
            s.skip(setting, f"the guest did not answer ({e})")
            return
        s.changed(
            {
                "setting": setting,
                "original": original,
                "applied": -1,
                "note": "RT throttling lifted in the guest for the run",
            },
            lambda: write(original),
        )

    def restore(self) -> None:
        self._settings.restore()
