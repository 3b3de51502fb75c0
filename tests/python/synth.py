# SPDX-License-Identifier: Apache-2.0
"""Synthetic results directories with known distributions, for comparison tests.

`write_result` takes a real results.json (the `results-quick` fixture) for the
run and host information and replaces its scenarios with metrics whose
samples the test chooses: exact statistics, a one-value-per-bucket histogram
and the whole raw series as CSV, like a run that stored every sample.
"""

from __future__ import annotations

import copy
import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from conftest import FIXTURES
from rtbench.model.summary import PERCENTILES, percentile_from_histogram

BASE_DOC = FIXTURES / "results-quick" / "results.json"


def lognormal(seed: int, n: int, median_ns: float, sigma: float = 0.15) -> list[int]:
    rng = np.random.default_rng(seed)
    return [int(v) for v in np.round(rng.lognormal(math.log(median_ns), sigma, n))]


def with_tail(values: Sequence[int], seed: int, share: float, low: float, high: float) -> list[int]:
    """`values` with a `share` of them (chosen at random) multiplied by low..high."""
    rng = np.random.default_rng(seed)
    out = list(values)
    picked = rng.choice(len(out), int(len(out) * share), replace=False)
    for i in picked:
        out[int(i)] = int(out[int(i)] * rng.uniform(low, high))
    return out


def result_record(
    scenario: str, metric: str, label: str | None, values: Sequence[int], **params: Any
) -> dict[str, Any]:
    counts = sorted(Counter(values).items())
    buckets = [[v, v, n] for v, n in counts]
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    vmin, vmax = min(values), max(values)
    stats: dict[str, Any] = {
        "count": n,
        "min": vmin,
        "max": vmax,
        "mean": round(mean, 3),
        "stddev": round(math.sqrt(var), 3),
        "max_index": list(values).index(vmax),
        "max_at_ticks": 0,
        "sum": sum(values),
        "sum_sq": sum(v * v for v in values),
        "clamped": 0,
    }
    need = {"p50": 1, "p90": 10, "p99": 100, "p99_9": 1000, "p99_99": 10000}
    for key, q in PERCENTILES:
        stats[key] = (
            percentile_from_histogram(buckets, n, q, vmin, vmax) if n >= need[key] else None
        )
    return {
        "v": 1,
        "type": "result",
        "scenario": scenario,
        "label": label,
        "metric": metric,
        "title": f"synthetic {scenario} {metric}",
        "unit": "ns",
        "params": dict(params),
        "stats": stats,
        "discarded": {"warmup": 0, "invalid": 0},
        "histogram": {"scheme": "exact", "buckets": buckets},
        "raw": {"count": n, "capacity": n, "chunks": 1},
    }


def verdict_record(scenario: str, label: str, outcome: str) -> dict[str, Any]:
    return {
        "v": 1,
        "type": "verdict",
        "scenario": scenario,
        "label": label,
        "check": "order",
        "outcome": outcome,
        "reason": f"synthetic {outcome}",
        "evidence": [],
        "control": {"outcome": "caught", "description": "synthetic control", "evidence": []},
    }


def write_result(
    out: Path,
    metrics: Mapping[tuple[str, str, str | None], Sequence[int]],
    *,
    verdicts: Sequence[dict[str, Any]] = (),
    run: Mapping[str, Any] | None = None,
    host: Mapping[str, Any] | None = None,
    raw: bool = True,
) -> Path:
    """A results directory holding `metrics` ((scenario, metric, label) -> samples);
    `run` and `host` replace keys of the document's run and host."""
    doc = json.loads(BASE_DOC.read_text())
    doc = copy.deepcopy(doc)
    doc["run"]["id"] = out.name
    doc["run"].update(run or {})
    doc["host"].update(host or {})
    (out / "samples").mkdir(parents=True, exist_ok=True)
    scenarios = []
    for (scenario, metric, label), values in metrics.items():
        record = result_record(scenario, metric, label, values)
        samples = []
        if raw:
            name = f"{scenario}-{metric}.csv"
            lines = ["index,value_ns", *(f"{i},{v}.0" for i, v in enumerate(values))]
            (out / "samples" / name).write_text("\n".join(lines) + "\n")
            samples.append(
                {
                    "scenario": scenario,
                    "metric": metric,
                    "params": {},
                    "path": f"samples/{name}",
                    "count": len(values),
                    "unit": "ns",
                }
            )
        scenarios.append(
            {
                "name": scenario,
                "ids": [{"id": scenario, "label": label}],
                "summary": "synthetic",
                "status": "ok",
                "reason": None,
                "elapsed_s": 1.0,
                "exit_code": 0,
                "deadline_ms": 1000,
                "meta": None,
                "records": [record],
                "samples": samples,
                "stderr_tail": "",
                "errors": [],
            }
        )
    if verdicts:
        scenarios.append(
            {
                "name": verdicts[0]["scenario"],
                "ids": [{"id": verdicts[0]["scenario"], "label": verdicts[0]["label"]}],
                "summary": "synthetic",
                "status": "ok",
                "reason": None,
                "elapsed_s": 1.0,
                "exit_code": 0,
                "deadline_ms": 1000,
                "meta": None,
                "records": list(verdicts),
                "samples": [],
                "stderr_tail": "",
                "errors": [],
            }
        )
    doc["scenarios"] = scenarios
    doc["calibration"] = None
    (out / "results.json").write_text(json.dumps(doc, indent=1))
    return out
