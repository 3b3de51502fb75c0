# SPDX-License-Identifier: Apache-2.0
"""cyclictest and oslat (rt-tests) `--json` output as rtbench `result` records.

Both tools count every sample in a histogram of whole microseconds (or
nanoseconds with cyclictest -N) and report min, average and max per thread;
neither keeps the samples. The conversion keeps exactly that:

- each histogram line becomes a one-value bucket `[v, v, n]` in the tool's
  unit; samples beyond the histogram (cyclictest counts them as overflows,
  oslat adds them to its last line) become one bucket from the histogram's
  end to the reported maximum, so nothing is dropped and nothing invented;
- min, max, the average and the sample count are the tool's;
- percentiles follow rtbench's rule (the value of the bucket holding the
  sample of rank ceil(q * n)) and are left empty when that sample is in the
  overflow bucket or the tool wrote no histogram; sum, sum of squares and
  the standard deviation are computed only when the histogram holds every
  sample exactly; the index of the maximum is unknown.

`source.fields` and `source.derived` of the result say which is which.
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rtbench.model.summary import PERCENTILES, percentile_from_histogram

# Samples each percentile needs, as the core's recorder does.
_MIN_SAMPLES = {"p50": 1, "p90": 10, "p99": 100, "p99_9": 1000, "p99_99": 10000}


class ImportFormatError(ValueError):
    """The file is JSON but not output this importer understands."""


@dataclass(frozen=True)
class Converted:
    """What an importer produces: records and the facts for the results document."""

    tool: str
    version: str | None
    command_line: str | None
    scenario: str
    summary: str
    records: tuple[dict[str, Any], ...]
    cpu: int
    realtime: bool
    started: str | None
    finished: str | None
    return_code: int | None
    sysinfo: Mapping[str, Any]
    fields: tuple[str, ...]
    derived: tuple[str, ...]
    notes: tuple[str, ...]


def _option(argv: Sequence[str], short: str | None, long: str) -> str | None:
    """The value of `-x V`, `-xV`, `--long V` or `--long=V` in a command line (last wins)."""
    value = None
    for i, arg in enumerate(argv):
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        if arg == f"--{long}" or (short and arg == f"-{short}"):
            value = nxt
        elif arg.startswith(f"--{long}="):
            value = arg.split("=", 1)[1]
        elif short and arg.startswith(f"-{short}") and not arg.startswith("--") and len(arg) > 2:
            value = arg[2:]
    return value


def _has(argv: Sequence[str], short: str | None, long: str) -> bool:
    return any(a == f"--{long}" or a.startswith(f"--{long}=") or a == f"-{short}" for a in argv)


def _int(text: str | None, default: int) -> int:
    try:
        return int(text) if text is not None else default
    except ValueError:
        return default


def _histogram(raw: Mapping[str, Any], scale: float) -> list[tuple[int, int]]:
    """Sorted (value, count) pairs of a tool histogram; keys scaled to integers."""
    pairs: list[tuple[int, int]] = []
    for key, count in raw.items():
        value = float(key) * scale
        if not math.isfinite(value) or value < 0 or not isinstance(count, int) or count < 0:
            raise ImportFormatError(f"histogram line {key!r}: {count!r} is not a sample count")
        if count:
            pairs.append((round(value), count))
    return sorted(pairs)


def result_record(
    *,
    scenario: str,
    metric: str,
    title: str,
    unit: str,
    params: Mapping[str, Any],
    count: int,
    vmin: int,
    vmax: int,
    mean: float | None,
    lines: Sequence[tuple[int, int]],
    overflow: int,
    overflow_from: int,
    scheme: str,
) -> dict[str, Any]:
    """A schema-valid `result` record from a tool's per-thread summary."""
    buckets = [[v, v, n] for v, n in lines]
    if overflow > 0:
        buckets.append([max(overflow_from, buckets[-1][1] + 1 if buckets else 0), vmax, overflow])
    complete = bool(buckets) and sum(b[2] for b in buckets) == count
    stats: dict[str, Any] = {
        "count": count,
        "min": vmin,
        "max": vmax,
        "mean": mean,
        "stddev": None,
        "max_index": None,
        "max_at_ticks": None,
        "sum": None,
        "sum_sq": None,
        "clamped": 0,
    }
    exact = complete and overflow == 0
    if exact and count > 0:
        total = sum(v * n for v, n in lines)
        squares = sum(v * v * n for v, n in lines)
        stats["sum"] = total
        stats["sum_sq"] = squares
        if count > 1:
            var = (squares - total * total / count) / (count - 1)
            stats["stddev"] = round(math.sqrt(max(var, 0.0)), 3)
    for key, q in PERCENTILES:
        value = None
        if complete and count >= _MIN_SAMPLES[key]:
            value = percentile_from_histogram(buckets, count, q, vmin, vmax)
            rank = max(1, math.ceil(q * count))
            if overflow and rank > count - overflow:
                value = None  # that sample lies somewhere in the overflow bucket
        stats[key] = value
    return {
        "v": 1,
        "type": "result",
        "scenario": scenario,
        "label": None,
        "metric": metric,
        "title": title,
        "unit": unit,
        "params": dict(params),
        "stats": stats,
        "discarded": {"warmup": 0, "invalid": 0},
        "histogram": {"scheme": scheme, "buckets": buckets},
        "raw": {"count": 0, "capacity": 0, "chunks": 0},
    }


def _common(data: Mapping[str, Any]) -> tuple[list[str], str | None, str | None]:
    cmdline = data.get("cmdline:", data.get("cmdline"))
    version = data.get("rt_test_version:", data.get("rt_test_version"))
    argv = shlex.split(cmdline) if isinstance(cmdline, str) else []
    return argv, None if version is None else str(version), cmdline


def _threads(data: Mapping[str, Any]) -> list[tuple[int, Mapping[str, Any]]]:
    threads = data.get("thread")
    if not isinstance(threads, Mapping) or not threads:
        raise ImportFormatError("it holds no per-thread results")
    out = []
    for key, value in threads.items():
        if not isinstance(value, Mapping) or not re.fullmatch(r"\d+", str(key)):
            raise ImportFormatError(f"thread {key!r} is not an object")
        out.append((int(key), value))
    return sorted(out, key=lambda kv: kv[0])


def _number(thread: Mapping[str, Any], key: str, index: int) -> float:
    value = thread.get(key)
    if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
        raise ImportFormatError(f"thread {index} has no valid {key!r}")
    return float(value)


def cyclictest(data: Mapping[str, Any]) -> Converted:
    argv, version, cmdline = _common(data)
    threads = _threads(data)
    in_ns = bool(data.get("resolution_in_ns")) or _has(argv, "N", "nsecs")
    unit = "ns" if in_ns else "us"
    interval_us = _int(_option(argv, "i", "interval"), 1000)
    distance_us = _int(_option(argv, "d", "distance"), 500)
    hist_size = _int(_option(argv, "h", "histogram") or _option(argv, "H", "histofall"), 0)
    priority = _int(_option(argv, "p", "priority"), 0)
    policy = _option(argv, None, "policy")
    realtime = priority > 0 and policy not in ("other", "normal", "batch", "idle")
    records = []
    several = len(threads) > 1
    overflows_total = 0
    for index, thread in threads:
        cycles = int(_number(thread, "cycles", index))
        lines = _histogram(thread.get("histogram") or {}, 1.0)
        counted = sum(n for _v, n in lines)
        overflow = cycles - counted if lines or hist_size else 0
        if overflow < 0:
            raise ImportFormatError(f"thread {index}: the histogram holds more samples than cycles")
        overflows_total += overflow
        params: dict[str, Any] = {"interval_ns": (interval_us + index * distance_us) * 1000}
        if several:
            params["thread"] = index
        records.append(
            result_record(
                scenario="timer.periodic.latency",
                metric="latency",
                title=f"Periodic timer wake-up latency, cyclictest thread {index}",
                unit=unit,
                params=params,
                count=cycles,
                vmin=int(_number(thread, "min", index)),
                vmax=int(_number(thread, "max", index)),
                mean=_number(thread, "avg", index),
                lines=lines,
                overflow=overflow,
                overflow_from=hist_size,
                scheme="cyclictest",
            )
        )
    has_hist = any(r["histogram"]["buckets"] for r in records)
    fields = ["cycles", "min", "avg", "max"] + (
        ["histogram (one line per value)"] if has_hist else []
    )
    notes = [
        f"wake-up latency in {'nanoseconds' if in_ns else 'whole microseconds'}, as cyclictest "
        "measures it (its own clock reads, no overhead subtracted)"
    ]
    if overflows_total:
        notes.append(
            f"{overflows_total} samples beyond the {hist_size} {unit} histogram are one bucket "
            "up to the maximum"
        )
    if not has_hist:
        notes.append("no histogram (cyclictest ran without -h): only min, avg and max are known")
    return Converted(
        tool="cyclictest",
        version=version,
        command_line=cmdline,
        scenario="timer.periodic.latency",
        summary="cyclictest: periodic timer wake-up latency (imported)",
        records=tuple(records),
        cpu=max(0, int(threads[0][1].get("cpu", 0) or 0)),
        realtime=realtime,
        started=data.get("start_time"),
        finished=data.get("end_time"),
        return_code=data.get("return_code"),
        sysinfo=data.get("sysinfo") or {},
        fields=tuple(fields),
        derived=_derived(has_hist),
        notes=tuple(notes),
    )


def oslat(data: Mapping[str, Any]) -> Converted:
    argv, version, cmdline = _common(data)
    threads = _threads(data)
    priority = _int(_option(argv, "f", "rtprio"), 0)
    records = []
    several = len(threads) > 1
    fractional = any(
        float(k) != int(float(k)) for _i, t in threads for k in (t.get("histogram") or {})
    )
    unit, scale = ("ns", 1000.0) if fractional else ("us", 1.0)
    for index, thread in threads:
        lines = _histogram(thread.get("histogram") or {}, scale)
        vmin = round(_number(thread, "min", index) * scale)
        vmax = round(_number(thread, "max", index) * scale)
        overflow, overflow_from = 0, 0
        if lines and vmax > lines[-1][0]:
            # oslat's last line also holds every gap beyond it: "this value or more".
            overflow_from, overflow = lines[-1]
            lines = lines[:-1]
        count = sum(n for _v, n in lines) + overflow
        params: dict[str, Any] = {"cpu": int(thread.get("cpu", index))} if several else {}
        records.append(
            result_record(
                scenario="os.noise",
                metric="loop",
                title=f"Loop gap of a busy thread, oslat on CPU {thread.get('cpu', '?')}",
                unit=unit,
                params=params,
                count=count,
                vmin=vmin,
                vmax=vmax,
                mean=_number(thread, "avg", index) * scale,
                lines=lines,
                overflow=overflow,
                overflow_from=overflow_from,
                scheme="oslat",
            )
        )
    duration = threads[0][1].get("duration")
    notes = [
        "every gap between two reads of the counter by a busy loop, rounded up to the next "
        f"{'bucket width' if fractional else 'microsecond'} as oslat counts it",
    ]
    if duration is not None:
        notes.append(f"oslat ran for {duration} s")
    return Converted(
        tool="oslat",
        version=version,
        command_line=cmdline,
        scenario="os.noise",
        summary="oslat: OS noise seen by a busy loop (imported)",
        records=tuple(records),
        cpu=max(0, int(threads[0][1].get("cpu", 0) or 0)),
        realtime=priority > 0,
        started=data.get("start_time"),
        finished=data.get("end_time"),
        return_code=data.get("return_code"),
        sysinfo=data.get("sysinfo") or {},
        fields=("min", "avg", "max", "duration", "histogram (sample count per bucket)"),
        derived=_derived(True),
        notes=tuple(notes),
    )


def _derived(has_hist: bool) -> tuple[str, ...]:
    if not has_hist:
        return ()
    return (
        "percentiles from the histogram (rtbench's rule; empty when in the overflow bucket)",
        "sum, sum of squares and standard deviation from the histogram, when it holds every "
        "sample exactly",
    )


def detect(data: Any) -> str:
    """`cyclictest` or `oslat`, from the command line or the shape of the threads."""
    if not isinstance(data, Mapping) or "thread" not in data:
        raise ImportFormatError("it is not cyclictest or oslat --json output")
    argv, _version, _cmd = _common(data)
    if argv:
        name = argv[0].rsplit("/", 1)[-1]
        if name in ("cyclictest", "oslat"):
            return name
    threads = data.get("thread")
    if isinstance(threads, Mapping) and threads:
        first = next(iter(threads.values()))
        if isinstance(first, Mapping) and "cycles" in first:
            return "cyclictest"
        if isinstance(first, Mapping) and "duration" in first:
            return "oslat"
    raise ImportFormatError("it is not cyclictest or oslat --json output")
