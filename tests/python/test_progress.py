# SPDX-License-Identifier: Apache-2.0
"""Progress display: plain lines off a terminal, a bar with ETA on one."""

import io
import re

import pytest

from rtbench.run.measure import live_text
from rtbench.run.progress import Progress


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_plain_lines_one_per_scenario() -> None:
    out = io.StringIO()
    clock = Clock()
    p = Progress(out, interactive=False, clock=clock)
    p.start([1.0, 2.0])
    p.begin(0, "cal.timestamp")
    p.end("ok", 1.2)
    p.begin(1, "sem.wait.block")
    p.message("warning: something")
    p.end("timeout", 65.0)
    p.close()
    assert out.getvalue().splitlines() == [
        "[1/2] cal.timestamp ... ok (1.2 s)",
        "warning: something",
        "[2/2] sem.wait.block ... timeout (65.0 s)",
    ]
    assert "\r" not in out.getvalue()


def test_eta_is_corrected_by_observed_time() -> None:
    clock = Clock()
    p = Progress(io.StringIO(), interactive=False, clock=clock)
    p.start([1.0, 1.0, 1.0, 1.0])
    assert p.eta_s() == pytest.approx(4.0)
    p.begin(0, "a")
    clock.now += 2.0
    p.end("ok", 2.0)  # twice as slow as estimated
    p.begin(1, "b")
    assert p.eta_s() == pytest.approx(6.0)
    clock.now += 1.0
    p.fraction(0.5)
    assert p.eta_s() == pytest.approx(1.0 + 4.0)


def test_bar_is_drawn_and_erased_on_a_terminal() -> None:
    out = io.StringIO()
    p = Progress(out, interactive=True, clock=Clock())
    p.start([1.0])
    p.begin(0, "cal.timestamp")
    assert "ETA" in out.getvalue() and "[1/1]" in out.getvalue()
    p.end("ok", 1.0)
    p.close()
    assert out.getvalue().endswith("\r\x1b[K")


def test_line_shows_elapsed_time_eta_and_the_running_scenario() -> None:
    clock = Clock()
    out = io.StringIO()
    p = Progress(out, interactive=True, clock=clock)
    p.start([2.0, 30.0])
    clock.now += 1.5
    p.begin(0, "cal.timestamp", "CAL-P-TRC")
    clock.now += 0.5
    p.end("ok", 0.5)
    p.begin(1, "thr.switch.yield", "THR-P-SLS")
    clock.now += 3.0
    line = p.line(200)
    assert line.startswith("[2/2] [")
    assert "5.0 s elapsed" in line
    # 30 s planned for the running scenario, 3 s of it gone; the first took a
    # quarter of its estimate, so the rest is expected to be quicker too.
    assert re.search(r"ETA \d+\.\d s", line)
    assert line.endswith("THR-P-SLS thr.switch.yield (3.0 s)")
    assert len(p.line(40)) == 39
    p.tick()
    assert out.getvalue().rsplit("\r\x1b[K", 1)[1].startswith("[2/2]")


def test_plain_output_has_no_progress_line() -> None:
    out = io.StringIO()
    p = Progress(out, interactive=False, clock=Clock())
    p.start([1.0])
    p.begin(0, "cal.timestamp", "CAL-P-TRC")
    p.tick()
    p.fraction(0.5)
    assert out.getvalue() == ""


def test_live_latency_on_the_terminal_line_only() -> None:
    """A per-CPU scenario's latency so far shows on a terminal's line and nowhere
    when the stream is not a terminal."""
    record = {"live": [{"cpu": 0, "now_ns": 12_100, "max_ns": 48_000}, {"cpu": 1, "now_ns": 900,
              "max_ns": 2_000_000}]}  # fmt: skip
    text = live_text(record)
    assert text == "CPU0 now 12.1 µs max 48.0 µs  CPU1 now 900 ns max 2.00 ms"
    assert live_text({"progress": 0.5}) is None
    tty = io.StringIO()
    shown = Progress(tty, interactive=True, clock=lambda: 10.0)
    shown.start([5.0])
    shown.begin(0, "timer.periodic.latency")
    shown.fraction(0.5, text, live=True)
    assert "CPU1 now 900 ns max 2.00 ms" in shown.line(200)
    quiet = io.StringIO()
    plain = Progress(quiet, interactive=False, clock=lambda: 100.0)
    plain.start([5.0])
    plain.begin(0, "timer.periodic.latency")
    plain.fraction(0.5, text, live=True)
    assert "CPU0" not in quiet.getvalue()
