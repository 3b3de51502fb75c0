# SPDX-License-Identifier: Apache-2.0
"""Settings a run changes inside a guest, through its agent.

RT throttling is lifted on request (`--lift-rt-throttle`) by writing -1 to the
guest's `sched_rt_runtime_us` and put back at the end of the run. The guest is
powered off after the run anyway, so a setting that could not be put back
(the guest was lost) ends with it; the record says so. `cpu_dma_latency` is
not held: a guest's virtual CPUs have no idle states the host would leave for
it.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Any

from rtbench.targets.guest.link import LinkSource
from rtbench.transport import TargetLost

RT_RUNTIME = "/proc/sys/kernel/sched_rt_runtime_us"


class GuestTuning:
    """The Tuning of a QEMU guest (see targets.base.Tuning)."""

    def __init__(
        self, source: Callable[[], LinkSource], dma_latency: bool, lift_rt_throttle: bool
    ) -> None:
        self._source = source
        self._lift = lift_rt_throttle
        self._dma = dma_latency
        self._changes: list[dict[str, Any]] = []
        self._skipped: list[dict[str, str]] = []
        self._original: int | None = None

    @property
    def changes(self) -> list[dict[str, Any]]:
        return self._changes

    @property
    def skipped(self) -> list[dict[str, str]]:
        return self._skipped

    def _write(self, value: int) -> bool:
        script = f"echo {value} > {shlex.quote(RT_RUNTIME)}"
        status, _out = self._source().command(["sh", "-c", script], timeout_s=10.0)
        return status == 0

    def apply(self) -> None:
        if self._dma:
            self._skipped.append(
                {
                    "setting": "cpu_dma_latency",
                    "reason": "not held in a QEMU guest: its virtual CPUs have no idle "
                    "states the host would leave for it",
                }
            )
        if not self._lift:
            return
        setting = "sched_rt_runtime_us"
        try:
            text = self._source().read(RT_RUNTIME)
            original = int(text) if text is not None else None
            if original is None:
                self._skipped.append({"setting": setting, "reason": f"{RT_RUNTIME} is unreadable"})
                return
            if original == -1:
                self._skipped.append(
                    {"setting": setting, "reason": "RT throttling is already lifted in the guest"}
                )
                return
            if not self._write(-1):
                self._skipped.append(
                    {"setting": setting, "reason": f"the guest refused -1 in {RT_RUNTIME}"}
                )
                return
        except (TargetLost, ValueError) as e:
            self._skipped.append({"setting": setting, "reason": f"the guest did not answer ({e})"})
            return
        self._original = original
        self._changes.append(
            {
                "setting": setting,
                "original": original,
                "applied": -1,
                "restored": False,
                "note": "RT throttling lifted in the guest for the run",
            }
        )

    def restore(self) -> None:
        if self._original is None:
            return
        change = self._changes[-1]
        try:
            change["restored"] = self._write(self._original)
        except Exception:  # never raises: the guest may be gone
            change["restored"] = False
        if not change["restored"]:
            change["note"] += "; not put back (the guest ended), and it ends with the guest"
        self._original = None
