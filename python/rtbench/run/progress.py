# SPDX-License-Identifier: Apache-2.0
"""Progress of a run on the error stream.

On a terminal: one line, redrawn in place and erased at the end, with the
scenario's number, a bar, the elapsed time of the run, the ETA and the
scenario running (its label and how long it has run). Otherwise: plain lines,
one per finished scenario. Messages (warnings from the core, the runner's own
notes) go above the bar in both cases.

The ETA starts from the catalog's estimates for the profile and is corrected
by how long the finished scenarios really took compared to their estimates.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from typing import TextIO

from rtbench.model.units import format_seconds

_BAR_WIDTH = 24
_PLAIN_PROGRESS_EVERY_S = 10.0


class Progress:
    """Progress display of a run; `start` gives the estimate (seconds) of each scenario."""

    def __init__(
        self,
        stream: TextIO,
        *,
        interactive: bool,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream = stream
        self._estimates: list[float] = []
        self._interactive = interactive
        self._clock = clock
        self._index = -1
        self._name = ""
        self._label = ""
        self._run_started: float | None = None
        self._started = 0.0
        self._fraction: float | None = None
        self._done_estimate = 0.0
        self._done_actual = 0.0
        self._bar_shown = False
        self._last_plain_progress = 0.0
        self._live = ""

    def start(self, estimates_s: Sequence[float]) -> None:
        """The run will execute these scenarios, estimated to take these seconds each."""
        self._estimates = list(estimates_s)
        self._index = -1
        self._done_estimate = 0.0
        self._done_actual = 0.0
        self._run_started = self._clock()

    @property
    def total(self) -> int:
        return len(self._estimates)

    def eta_s(self) -> float:
        """Seconds the rest of the run should take."""
        factor = 1.0
        if self._done_estimate > 0 and self._done_actual > 0:
            factor = min(max(self._done_actual / self._done_estimate, 0.25), 20.0)
        remaining = sum(self._estimates[self._index + 1 :]) * factor
        if 0 <= self._index < self.total:
            elapsed = self._clock() - self._started
            if self._fraction is not None and self._fraction > 0.02:
                current = elapsed / self._fraction - elapsed
            else:
                current = max(self._estimates[self._index] * factor - elapsed, 0.0)
            remaining += max(current, 0.0)
        return remaining

    def elapsed_s(self) -> float:
        """Seconds since `start`."""
        return 0.0 if self._run_started is None else self._clock() - self._run_started

    def line(self, width: int = 80) -> str:
        """The progress line as drawn on a terminal (at most `width` - 1 characters)."""
        done = self._index + (self._fraction or 0.0)
        share = done / self.total if self.total else 1.0
        filled = min(round(share * _BAR_WIDTH), _BAR_WIDTH)
        bar = "#" * filled + "-" * (_BAR_WIDTH - filled)
        running = self._clock() - self._started
        what = f"{self._label} {self._name}" if self._label else self._name
        text = (
            f"[{self._index + 1}/{self.total}] [{bar}] {share:4.0%}  "
            f"{format_seconds(self.elapsed_s())} elapsed, ETA {format_seconds(self.eta_s())}  "
            f"{what} ({format_seconds(running)})"
        )
        if self._live:
            # the latency so far, per CPU: what a long run is watched for (the
            # scenario's name was on the line before its first progress record)
            text = (
                f"[{self._index + 1}/{self.total}] {share:4.0%} ETA "
                f"{format_seconds(self.eta_s())}  {self._live}"
            )
        return text[: max(width - 1, 10)]

    def begin(self, index: int, name: str, label: str = "") -> None:
        """Scenario `index` (0-based) starts; `label` is its classic label, if any."""
        self._index = index
        self._name = name
        self._label = label
        self._started = self._clock()
        self._fraction = None
        self._live = ""
        self._last_plain_progress = self._started
        self._draw()

    def fraction(self, value: float, message: str = "", *, live: bool = False) -> None:
        """The running scenario says how far it is (a `progress` log record); a
        `live` message (latency so far) is shown on the terminal's line only."""
        self._fraction = min(max(value, 0.0), 1.0)
        self._live = message if live else ""
        if live and not self._interactive:
            return
        if self._interactive:
            self._draw()
        elif self._clock() - self._last_plain_progress >= _PLAIN_PROGRESS_EVERY_S:
            self._last_plain_progress = self._clock()
            text = f"  {self._name}: {self._fraction:.0%}"
            self.message(text + (f" ({message})" if message else ""))

    def tick(self) -> None:
        """Time passes (redraw the bar)."""
        if self._interactive:
            self._draw()

    def end(self, status: str, elapsed_s: float) -> None:
        """The running scenario ended with `status`."""
        if 0 <= self._index < self.total:
            self._done_estimate += self._estimates[self._index]
            self._done_actual += elapsed_s
        line = f"[{self._index + 1}/{self.total}] {self._name} ... {status} ({elapsed_s:.1f} s)"
        if not self._interactive or status not in ("ok", "stopped"):
            self.message(line)
        else:
            self._draw()

    def message(self, text: str) -> None:
        """A line above the bar."""
        self._erase()
        self._stream.write(text + "\n")
        self._stream.flush()
        if self._interactive and 0 <= self._index < self.total:
            self._draw()

    def close(self) -> None:
        """Remove the bar."""
        self._erase()
        self._index = self.total

    def _erase(self) -> None:
        if self._bar_shown:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._bar_shown = False

    def _draw(self) -> None:
        if not self._interactive or not (0 <= self._index < self.total):
            return
        width = shutil.get_terminal_size((80, 24)).columns
        self._stream.write("\r\x1b[K" + self.line(width))
        self._stream.flush()
        self._bar_shown = True
