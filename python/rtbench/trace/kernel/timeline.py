# SPDX-License-Identifier: Apache-2.0
"""The HTML report's drawing of a traced metric's worst sample: what ran on the
measurement CPU during it, one lane per kind of context (hard interrupts, softirqs,
other tasks, rtbench-core), with the sample's window shaded and each slice titled with
its name and duration. Idle time is the empty space."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from rtbench.model.results import ScenarioOutcome
from rtbench.model.summary import MetricSummary
from rtbench.model.units import format_duration, time_unit_for
from rtbench.report.svg import Frame, Scale, _n

LANES = (("irq", "hard irq", "k3"), ("softirq", "softirq", "k2"), ("task", "other tasks", "k1"),
         ("self", "rtbench-core", "k0"))  # fmt: skip
LABEL_MIN_PX = 60


def record_of(outcome: ScenarioOutcome, m: MetricSummary) -> Mapping[str, Any] | None:
    """The result record `m` was made from."""
    for record in outcome.of_type("result"):
        if (
            record.get("scenario") == m.scenario
            and record.get("metric") == m.metric
            and dict(record.get("params") or {}) == dict(m.params)
        ):
            return record
    return None


def trace_of(outcome: ScenarioOutcome, m: MetricSummary) -> Mapping[str, Any] | None:
    """The `trace` object of the result record `m` was made from, if traced."""
    record = record_of(outcome, m)
    trace = record.get("trace") if record is not None else None
    return trace if isinstance(trace, Mapping) else None


def worst_sample_svg(trace: Mapping[str, Any]) -> tuple[str, str] | None:
    """(svg, caption) for the worst sample's timeline, or None when it was not covered."""
    sample = next(
        (s for s in trace.get("samples", []) if s.get("kind") == "worst" and s.get("rank") == 0),
        None,
    )
    if sample is None or not sample.get("covered") or "timeline" not in sample:
        return None
    window = float(sample["window_ns"])
    segments = sample["timeline"]
    margin = window * 0.15
    name, size = time_unit_for(window)
    frame = Frame(Scale((-margin) / size, (window + margin) / size), Scale(0, len(LANES)),
                  height=60 + 28 * len(LANES), left=92)  # fmt: skip
    body = frame.axes(
        lambda v: f"{v:g}", lambda v: "", f"time from the sample's start ({name})", "",
        y_ticks=[],
    )  # fmt: skip
    x0, x1 = frame.px(0.0), frame.px(window / size)
    body += (
        f'<rect class="k4" fill-opacity="0.12" stroke-opacity="0.5" x="{_n(x0)}" '
        f'y="{frame.top}" width="{_n(max(x1 - x0, 1))}" height="{_n(frame.plot_h)}">'
        f"<title>the sample: {escape(format_duration(float(sample['value_ns'])))}</title></rect>"
    )
    lane_h = frame.plot_h / len(LANES)
    for i, (kind, title, k) in enumerate(LANES):
        y = frame.top + i * lane_h
        body += f'<text x="{frame.left - 6}" y="{_n(y + lane_h / 2 + 4)}" text-anchor="end">'
        body += f"{escape(title)}</text>"
        for start, end, seg_kind, label in segments:
            if seg_kind != kind:
                continue
            a, b = frame.px(float(start) / size), frame.px(float(end) / size)
            text = f"{label} {format_duration(float(end) - float(start))}"
            body += (
                f'<rect class="{k}" x="{_n(a)}" y="{_n(y + 4)}" width="{_n(max(b - a, 0.8))}" '
                f'height="{_n(lane_h - 8)}"><title>{escape(text)}</title></rect>'
            )
            if b - a >= LABEL_MIN_PX:
                body += (
                    f'<text x="{_n(a + 3)}" y="{_n(y + lane_h / 2 + 4)}" '
                    f'fill="#fff">{escape(str(label)[: int((b - a) / 6.5)])}</text>'
                )
    svg = frame.svg(body, f"Kernel trace of the worst sample: {sample['line']}")
    caption = (
        f"The worst sample on the kernel trace (shaded: the sample, "
        f"{format_duration(window)}). {sample['line']}."
    )
    return svg, caption
