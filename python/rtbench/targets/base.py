# SPDX-License-Identifier: Apache-2.0
"""What the runner needs from the machine under test: the Target protocol.

A target owns everything that is about the machine being measured: it builds or
picks the core for itself, deploys it, opens the transport that starts core
commands there, reads its own system facts, applies and restores its own
settings, and describes itself. The runner gets a target and never asks where it
is. `local` is this machine; SSH boards and QEMU guests are further kinds.

When the target disappears under a command (guest ended, connection dropped),
its stream raises `transport.TargetLost`; the runner ends that unit as `lost`
and calls `recover()`, which reconnects or reboots, or says the run cannot go on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from rtbench.transport import Transport

if TYPE_CHECKING:
    from rtbench.run.hooks import RunHook

Say = Callable[[str], None]


class Tuning(Protocol):
    """Settings changed on the target for a run (see tuning.HostTuning)."""

    @property
    def changes(self) -> list[dict[str, Any]]:
        """What was changed: {"setting", "original", "applied", "restored", "note"}."""
        ...

    @property
    def skipped(self) -> list[dict[str, str]]:
        """What was asked for but not done: {"setting", "reason"}."""
        ...

    def apply(self) -> None:
        """Change the settings; what could not be done goes to `skipped`."""
        ...

    def restore(self) -> None:
        """Put everything back; idempotent, never raises."""
        ...


class Tracing(Protocol):
    """What `rtbench run --trace` takes on a target, offered by the target itself:
    a kernel trace through tracefs on Linux (here, over SSH, in a guest), the code
    path of the kept samples on an emulated RTOS board."""

    @property
    def deadline_factor(self) -> float:
        """How much longer a unit may take while traced (1.0: no longer)."""
        ...

    def prepare(self) -> None:
        """Before `open`: ask the target for what tracing needs (a monitor socket)."""
        ...

    def hooks(self, cpus: tuple[int, ...]) -> list[RunHook]:
        """After `open`: the run hooks that trace (`cpus`: the CPUs the run measures
        on). UsageError in one sentence when the opened target cannot be traced
        (no root there)."""
        ...


class Target(Protocol):
    """One machine under test."""

    spec: str  # as the user wrote it: "local", "ssh://user@host:port", "qemu:debian-amd64"
    kind: str  # "local", "ssh", "qemu", ...
    # The core runs on this machine's own OS: its CPUs are this machine's
    # (--cpus all, the CPU locks that keep two runs apart) and so is --load.
    runs_here: bool

    def shares_host_cpus(self) -> bool:
        """Whether the figures depend on what else runs on this machine's CPUs: this
        machine itself, and emulators unless their clock follows instructions.
        Targets that do not may be measured side by side."""
        ...

    def tracing(self) -> Tracing | None:
        """What --trace takes on this target; None when it cannot be traced."""
        ...

    def render_snapshot(self, snap: dict[str, Any], cavs: list[dict[str, str]]) -> str:
        """`rtbench system` for this target: its snapshot and caveats as text."""
        ...

    def open(self, say: Say) -> None:
        """Build or pick the core, deploy it, boot or connect. Raises RtbenchError
        (one sentence) when the target cannot be used."""
        ...

    def transport(self) -> Transport:
        """Starts core commands on the target (valid after `open`)."""
        ...

    def check_cpu(self, cpu: int | None) -> int:
        """The measurement CPU: `cpu` checked against the target, or its default."""
        ...

    def snapshot(self, cpu: int, cpu_given: bool) -> dict[str, Any]:
        """System facts read on the target (stored as results.json `host`)."""
        ...

    def caveats(self, snap: dict[str, Any]) -> list[dict[str, str]]:
        """What in `snap` may disturb measurements."""
        ...

    def tuning(self, dma_latency: bool, lift_rt_throttle: bool, cpu: int) -> Tuning:
        """The settings to hold on the target during the run."""
        ...

    def recover(self, say: Say) -> bool:
        """After TargetLost: reconnect or reboot. False: the run cannot go on."""
        ...

    def describe(self) -> dict[str, Any]:
        """What results.json records as `run.target_info` (kind, spec, arch, ...)."""
        ...

    def close(self) -> None:
        """Release everything (guests, connections, deployed files); idempotent."""
        ...


@runtime_checkable
class Deterministic(Protocol):
    """A target that can run in deterministic mode (`rtbench run --deterministic`):
    its clock follows executed instructions (QEMU's -icount)."""

    def use_deterministic(self) -> None:
        """Switch deterministic mode on before `open`; UsageError when the spec
        asked for something it cannot go with."""
        ...


@runtime_checkable
class Waits(Protocol):
    """A target whose `open` may wait a long time for the machine (a lab's
    reservation): a signal that stops a run of several targets at once calls
    `cancel` from the main thread, and the waiting `open` ends with
    KeyboardInterrupt."""

    def cancel(self) -> None:
        """End a wait in `open` (safe from another thread, idempotent)."""
        ...
