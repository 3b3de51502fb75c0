# SPDX-License-Identifier: Apache-2.0
"""What the store keeps of one results document.

A run belongs to a testbed (target, board or host, architecture, emulated and
deterministic shift, C library, and a fingerprint of the configuration:
profile, measurement CPU, scenario options and run conditions) and measures
a version under test (kernel release and build, RTOS release and source
digest, rtbench's version). Each metric keeps its summary (count, min,
median, p99, p99.9, max and the histogram) and each verdict its outcome; raw
samples stay in the folder.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rtbench.model.results import ResultsDocument
from rtbench.model.target import TargetView

Json = dict[str, Any]


@dataclass(frozen=True)
class MetricRow:
    name: str  # `scenario metric [params]`
    scenario: str
    label: str | None
    unit: str
    count: int
    min: float | None
    median: float | None
    p99: float | None
    p99_9: float | None
    max: float | None
    histogram: tuple[tuple[float, float, int], ...]


@dataclass(frozen=True)
class VerdictRow:
    name: str  # `scenario check`
    scenario: str
    label: str | None
    outcome: str


@dataclass(frozen=True)
class Extracted:
    testbed_key: str
    testbed: Json
    version: Json
    version_text: str
    order: str  # sorts the runs of one testbed by version under test, then time
    deterministic: bool
    metrics: tuple[MetricRow, ...]
    verdicts: tuple[VerdictRow, ...]


def _meta(doc: ResultsDocument) -> Mapping[str, Any]:
    for s in doc.scenarios:
        if s.meta is not None:
            return s.meta
    return {}


def _natural(text: str) -> str:
    """A sort key where 6.1.0-9 comes before 6.1.0-10 (numbers padded to 12 digits)."""
    return re.sub(r"\d+", lambda m: m.group(0).zfill(12), text)


def testbed_of(doc: ResultsDocument) -> Json:
    run, target, meta = doc.run, TargetView.of(doc), _meta(doc)
    conditions = {
        k: {n: x for n, x in v.items() if n != "units"} if isinstance(v, Mapping) else v
        for k, v in (run.conditions or {}).items()
    }
    options = {k: v for k, v in run.options.items() if k not in ("command_line",)}
    config = {
        "profile": run.profile,
        "cpu": run.cpu,
        "options": options,
        "conditions": conditions,
        "config_dir": target.config_dir,
    }
    digest = hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[
        :12
    ]
    return {
        "target": run.target,
        "machine": target.board or doc.host.get("hostname") or target.hostname or "-",
        "arch": target.arch or meta.get("arch") or "-",
        "emulated": target.is_board or target.emulated,
        "icount_shift": target.icount_shift,
        "libc": meta.get("libc") or target.libc or "-",
        "profile": run.profile,
        "config": digest,
        "imported": run.source.get("tool") if run.source else None,
    }


def testbed_text(testbed: Mapping[str, Any]) -> str:
    parts = [str(testbed.get("target")), str(testbed.get("machine")), str(testbed.get("arch"))]
    if testbed.get("icount_shift") is not None:
        parts.append(f"deterministic shift={testbed['icount_shift']}")
    parts += [str(testbed.get("libc")), str(testbed.get("profile")), f"cfg {testbed['config']}"]
    return " ".join(parts)


def version_of(doc: ResultsDocument) -> tuple[Json, str, str]:
    """The version under test, how it reads, and its sort key."""
    target, meta = TargetView.of(doc), _meta(doc)
    kernel = doc.host.get("kernel") if isinstance(doc.host.get("kernel"), Mapping) else {}
    assert isinstance(kernel, Mapping)
    source = target.kernel_source
    if source is not None or target.is_board:
        os_name = str(target.os or meta.get("os") or "RTOS")
        release = str(target.os_release or (source or {}).get("tag") or "unknown")
        digest = (source or {}).get("digest")
        build = None if digest is None else str(digest)[:12]
        text = f"{os_name} {release}" + (f" ({build})" if build else "")
    else:
        os_name = "kernel"
        release = str(kernel.get("release") or meta.get("os_release") or "unknown")
        build = kernel.get("version")
        text = f"kernel {release}"
    version = {
        "os": os_name,
        "release": release,
        "build": build,
        "rtbench": doc.rtbench_version,
    }
    order = f"{_natural(release)}|{_natural(doc.rtbench_version)}|{doc.run.started}"
    return version, text, order


def extract(doc: ResultsDocument) -> Extracted:
    testbed = testbed_of(doc)
    key = hashlib.sha256(json.dumps(testbed, sort_keys=True).encode()).hexdigest()[:16]
    version, text, order = version_of(doc)
    metrics: list[MetricRow] = []
    verdicts: list[VerdictRow] = []
    seen: set[str] = set()
    for s in doc.scenarios:
        for m in s.metrics():
            if m.name in seen:
                continue
            seen.add(m.name)
            metrics.append(
                MetricRow(
                    m.name,
                    m.scenario,
                    m.label,
                    m.unit,
                    m.count,
                    m.min,
                    m.p50,
                    m.p99,
                    m.p99_9,
                    m.max,
                    tuple((b.lower, b.upper, b.count) for b in m.histogram),
                )
            )
        for v in s.of_type("verdict"):
            name = f"{v['scenario']} {v.get('check', 'verdict')}"
            if name not in seen:
                seen.add(name)
                verdicts.append(VerdictRow(name, str(v["scenario"]), v.get("label"), v["outcome"]))
    return Extracted(
        key,
        testbed,
        version,
        text,
        order,
        # an emulated board's figures repeat exactly; a guest OS's do not (docs/targets.md)
        testbed["icount_shift"] is not None and TargetView.of(doc).is_board,
        tuple(metrics),
        tuple(verdicts),
    )
