# SPDX-License-Identifier: Apache-2.0
"""Published reference figures (QNX, Windows CE7, Linux-rt, Android; 2011-2012).

The data file `data/published-results.csv` (sources and limits in
`data/published-results.md`) holds the figures of the published evaluations
whose test labels rtbench uses. `for_metric` finds the figures a metric can
be read against; `for_label` every figure of a label. Every figure carries
its OS, platform and year, so no report can show it as a same-machine
result.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from rtbench.model.summary import MetricSummary

DATA_PACKAGE = "rtbench.data"
RESULTS_FILE = "published-results.csv"
SOURCES_FILE = "published-sources.csv"

# (label, printed measurement) -> (scenario, metric, params that must match).
_SIMPLE: dict[tuple[str, str], tuple[str, str]] = {
    ("CAL-P-TRC", "Tracing overhead"): ("cal.timestamp", "timestamp"),
    ("CLK-P-DUR", "Clock interrupt duration"): ("clk.tick.duration", "tick_duration"),
    ("THR-P-NEW", "Thread creation, never run"): ("thr.create.never_run", "create"),
    ("THR-P-NEW", "Thread deletion, never run"): ("thr.create.never_run", "delete"),
    ("THR-P-NEW", "Thread creation, run and terminate"): ("thr.create.run_terminate", "create"),
    ("THR-P-NEW", "Thread deletion, run and terminate"): ("thr.create.run_terminate", "delete"),
    ("THR-P-NEW", "Thread creation, run and block"): ("thr.create.run_block", "create"),
    ("THR-P-NEW", "Thread deletion, run and block"): ("thr.create.run_block", "delete"),
    ("SEM-P-NEW", "Semaphore creation time, used"): ("sem.create", "create"),
    ("SEM-P-NEW", "Semaphore creation time, never used"): ("sem.create", "create"),
    ("SEM-P-NEW", "Semaphore deletion time, used"): ("sem.delete.used", "delete_used"),
    ("SEM-P-NEW", "Semaphore deletion time, never used"): ("sem.delete.unused", "delete_unused"),
    ("SEM-P-ARN", "Semaphore acquisition time, no contention"): ("sem.wait.available", "wait"),
    ("SEM-P-ARN", "Semaphore release time, no contention"): ("sem.signal.no_waiter", "signal"),
    ("SEM-P-ARC", "Semaphore acquisition time, contention"): ("sem.wait.block", "acquire"),
    ("SEM-P-ARC", "Semaphore release time, contention"): ("sem.signal.unblock", "release"),
    ("MUT-P-ARN", "Mutex acquisition time, no contention"): ("mut.lock.uncontended", "lock"),
    ("MUT-P-ARN", "Mutex release time, no contention"): ("mut.unlock.uncontended", "unlock"),
    ("MUT-P-ARC", "Mutex acquisition time, contention"): ("mut.lock.block", "acquire"),
    ("MUT-P-ARC", "Mutex release time, contention"): ("mut.unlock.handoff", "release"),
    ("IRQ-P-LAT", "Interrupt latency"): ("irq.latency", "latency"),
    ("IRQ-P-DLT", "Dispatch latency from interrupt handler"): ("irq.return", "return"),
    ("IRQ-P-TLT", "Latency from ISR to waken-up thread"): ("irq.to_thread", "to_thread"),
}
_SWITCH = re.compile(r"^Thread switch latency, (\d+) threads$")


@dataclass(frozen=True)
class Source:
    key: str
    year: int
    title: str
    document: str


@dataclass(frozen=True)
class Figure:
    """One published line: an OS on a platform, for one label and measurement."""

    sources: tuple[str, ...]
    os: str
    platform: str
    year: int
    label: str
    measurement: str
    samples: str
    avg_us: str
    max_us: str
    min_us: str
    note: str

    @property
    def system(self) -> str:
        """`OS · platform · year`: how every report names the figure."""
        return f"{short_os(self.os)} · {short_platform(self.platform)} · {self.year}"

    @property
    def is_verdict(self) -> bool:
        return self.measurement == "verdict"

    @property
    def is_single(self) -> bool:
        """A single value quoted from the text (a period, a slice), not an average."""
        return bool(self.avg_us) and not self.max_us and not self.min_us

    def value_ns(self, column: str) -> float | None:
        """A figure in nanoseconds, or None (empty, or `<0.1`: below resolution)."""
        text = getattr(self, column)
        try:
            return float(text) * 1000.0
        except ValueError:
            return None

    def target(self) -> tuple[str, str, Mapping[str, Any]] | None:
        """The rtbench metric (scenario, metric, params to match) this figure describes."""
        simple = _SIMPLE.get((self.label, self.measurement))
        if simple is not None:
            return simple[0], simple[1], {}
        match = _SWITCH.match(self.measurement)
        if self.label == "THR-P-SLS" and match:
            return "thr.switch.yield", "switch", {"threads": int(match.group(1))}
        return None


_OS_SHORT = {
    "QNX Neutrino 6.5.0 (patch 2530)": "QNX 6.5.0",
    "Windows Embedded Compact 7": "Windows CE7",
    "Linux 2.6.33.7-rt30": "Linux 2.6.33-rt30",
    "Android Linux 3.0.4": "Android 3.0.4",
}


def short_os(name: str) -> str:
    return _OS_SHORT.get(name, name)


def short_platform(platform: str) -> str:
    """`BeagleBoard-xM Rev C (TI DM3730, ARM Cortex-A8 1 GHz)` -> `Cortex-A8 1 GHz board`."""
    if platform.startswith("BeagleBoard"):
        return "Cortex-A8 1 GHz"
    if "Atom" in platform:
        return "Atom Z530 1.6 GHz"
    return platform.replace(" (DSE reference platform)", " (reference PC)")


def _read(name: str) -> list[dict[str, str]]:
    text = resources.files(DATA_PACKAGE).joinpath(name).read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))


@cache
def sources() -> dict[str, Source]:
    return {
        r["source_report"]: Source(r["source_report"], int(r["year"]), r["title"], r["document"])
        for r in _read(SOURCES_FILE)
    }


@cache
def figures() -> tuple[Figure, ...]:
    """Every published figure. A line printed by two reports (the comparison report
    and the OS's own, which also gives the minimum) is kept once, with both sources."""
    known = sources()
    merged: dict[tuple[str, ...], Figure] = {}
    for r in _read(RESULTS_FILE):
        key: tuple[str, ...] = (
            r["os"],
            r["platform"],
            r["test_id"],
            r["measurement"],
            r["avg_us"],
            r["max_us"],
        )
        year = known[r["source_report"]].year
        old = merged.get(key)
        if old is not None and (not old.min_us or not r["min_us"] or old.min_us == r["min_us"]):
            merged[key] = Figure(
                (*old.sources, r["source_report"]),
                old.os,
                old.platform,
                max(old.year, year),
                old.label,
                old.measurement,
                old.samples or r["sample_qty"],
                old.avg_us,
                old.max_us,
                old.min_us or r["min_us"],
                old.note or r["note"],
            )
            continue
        if old is not None:
            key = (*key, r["min_us"])
        merged[key] = Figure(
            (r["source_report"],),
            r["os"],
            r["platform"],
            year,
            r["test_id"],
            r["measurement"],
            r["sample_qty"],
            r["avg_us"],
            r["max_us"],
            r["min_us"],
            r["note"],
        )
    return tuple(merged.values())


def labels() -> set[str]:
    return {f.label for f in figures()}


def _params_match(want: Mapping[str, Any], params: Mapping[str, Any]) -> bool:
    return all(str(params.get(k)) == str(v) for k, v in want.items())


def for_metric(metric: MetricSummary) -> list[Figure]:
    """The published figures that describe the same measurement as `metric`."""
    out = []
    for f in figures():
        target = f.target()
        if target is None:
            continue
        scenario, name, want = target
        if (scenario, name) == (metric.scenario, metric.metric) and _params_match(
            want, metric.params
        ):
            out.append(f)
    return out


def for_label(label: str) -> list[Figure]:
    return [f for f in figures() if f.label == label]


def unmatched_for_labels(found: Iterable[str]) -> list[Figure]:
    """Figures of these labels that no rtbench metric describes (verdicts, slices, ...)."""
    wanted = {re.sub(r"\s*\(\d+\)$", "", label) for label in found}
    return [f for f in figures() if f.label in wanted and f.target() is None]


def describe(f: Figure) -> str:
    """One line for a figure that stands alone: label, system, what, values, note."""
    values = [
        f"{word} {getattr(f, column)} µs"
        for column, word in (("avg_us", "value" if f.is_single else "avg"), ("max_us", "max"))
        if getattr(f, column)
    ]
    if f.min_us:
        values.append(f"min {f.min_us} µs")
    if f.samples and not f.is_verdict:
        values.append(f"{f.samples} samples")
    what = "verdict" if f.is_verdict else f.measurement
    text = f"{f.label} {f.system}: {what}"
    if values:
        text += " " + ", ".join(values)
    if f.note:
        text += f" ({f.note})"
    return text


def citation() -> str:
    return (
        "Published figures: Dedicated Systems Experts NV with VUB-Brussels and RMA-Brussels "
        "(L. Perneel, H. Fayyad-Kazan, M. Timmerman), evaluation framework 2.9, reports of "
        "2011-2012 (" + "; ".join(f"{s.key}: {s.document}" for s in sources().values()) + "). "
        "Other hardware, other kernels, hardware tracing: a reference point, never a "
        "same-machine comparison."
    )


def format_us(text: str) -> str:
    """A published value for display: the number as printed, `-` when absent."""
    return text if text else "-"
