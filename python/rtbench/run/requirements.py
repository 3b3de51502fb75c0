# SPDX-License-Identifier: Apache-2.0
"""Requirements: the user's own limits, checked before a run and judged after it.

A requirement is one expression (`--require`, repeatable, or a TOML file given to
`--require-file`):

    ID:STAT OP VALUE        timer.periodic.latency:max<=100us, irq.to_thread:p99.99<=50us
    ID/METRIC:STAT OP VALUE os.noise/noise:max<=20us (one metric of the scenario)
    ID:pass                 mut.behavior.pi:pass (every verdict of the id passes)
    NAME OP VALUE           missed_periods==0 (a named count, summed over the run)

STAT is min, median (p50), avg (mean), p90, p99, p99.9, p99.99 or max; VALUE a
number with a time unit (ns, us, µs, ms, s) for times, a plain number for counts.
OP is <=, <, >=, > or ==. ID is a catalog id or classic label. Parsing and the
check against the catalog happen before anything runs; evaluation reads the
results document afterwards and says, for each requirement and each metric it
covers (one per CPU when a scenario measured several), met, missed or not
measured, by how much, and for a maximum which sample it was and when.
"""

from __future__ import annotations

import math
import operator
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtbench.errors import UsageError
from rtbench.model import units
from rtbench.model.summary import MetricSummary

# statistic spelling -> (MetricSummary attribute, quantile or None)
STATS: dict[str, tuple[str, float | None]] = {
    "min": ("min", None),
    "median": ("p50", 0.50),
    "p50": ("p50", 0.50),
    "avg": ("mean", None),
    "mean": ("mean", None),
    "p90": ("p90", 0.90),
    "p99": ("p99", 0.99),
    "p99.9": ("p99_9", 0.999),
    "p99.99": ("p99_99", 0.9999),
    "max": ("max", None),
}
TIME_UNITS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9}
OPS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    "<": operator.lt,
    ">=": operator.ge,
    ">": operator.gt,
    "==": operator.eq,
}
# Named counts: name -> (scenario id, table name, column), summed over the run.
COUNTS: dict[str, tuple[str, str, str]] = {
    "missed_periods": ("timer.periodic.latency", "periods", "missed"),
    "late_wakes": ("timer.periodic.latency", "periods", "late_wakes"),
    "early_wakes": ("timer.periodic.latency", "periods", "early_wakes"),
}

MET, MISSED, NOT_MEASURED = "met", "missed", "not measured"

_EXPR = re.compile(
    r"^\s*(?P<subject>[^\s:<>=]+)\s*"
    r"(?::\s*(?P<stat>[A-Za-z0-9.]+)\s*)?"
    r"(?:(?P<op><=|>=|==|<|>)\s*(?P<value>[-+0-9.eE]+)\s*(?P<unit>[a-zA-Zµμ]*)\s*)?$"
)


@dataclass(frozen=True)
class Requirement:
    """One parsed requirement."""

    text: str
    kind: str  # "stat", "verdict" or "count"
    subject: str  # catalog id, or the count's name
    metric: str | None = None
    stat: str | None = None  # spelling as in STATS
    op: str | None = None
    limit: float | None = None  # ns for times, the count otherwise
    time: bool = False

    def holds(self, value: float) -> bool:
        assert self.op is not None and self.limit is not None
        return OPS[self.op](value, self.limit)

    def margin(self, value: float) -> float:
        """How far the value is from the limit, positive on the wrong side."""
        assert self.op is not None and self.limit is not None
        if self.op in ("<=", "<"):
            return value - self.limit
        if self.op in (">=", ">"):
            return self.limit - value
        return abs(value - self.limit)

    def to_json(self) -> dict[str, Any]:
        return {
            "expr": self.text,
            "kind": self.kind,
            "subject": self.subject,
            "metric": self.metric,
            "stat": self.stat,
            "op": self.op,
            "limit": self.limit,
            "unit": "ns" if self.time else ("" if self.kind != "verdict" else None),
        }


def _bad(text: str, why: str) -> UsageError:
    return UsageError(f"--require '{text}': {why}.")


def parse(text: str) -> Requirement:
    """One expression; UsageError (one sentence) when it is not understood."""
    m = _EXPR.match(text)
    if m is None or not text.strip():
        raise _bad(
            text,
            "not understood (use ID:STAT<=VALUE like timer.periodic.latency:max<=100us, "
            "ID:pass, or a count like missed_periods==0)",
        )
    subject, stat, op = m["subject"], m["stat"], m["op"]
    if stat is not None and stat.lower() == "pass":
        if op is not None:
            raise _bad(text, "ID:pass takes no comparison")
        return Requirement(text, "verdict", subject)
    if op is None:
        raise _bad(text, "a comparison is missing (<=, <, >=, > or ==, then a value)")
    try:
        number = float(m["value"])
    except ValueError:
        raise _bad(text, f"'{m['value']}' is not a number") from None
    if not math.isfinite(number):
        raise _bad(text, f"'{m['value']}' is not a finite number")
    unit = m["unit"]
    if stat is None:
        if subject not in COUNTS:
            names = ", ".join(sorted(COUNTS))
            raise _bad(
                text, f"'{subject}' is no count rtbench knows ({names}); a statistic needs ID:STAT"
            )
        if unit:
            raise _bad(text, f"{subject} is a count and takes no unit")
        if number < 0:
            raise _bad(text, f"{subject} is a count, never below 0, so {m['value']} is no limit")
        if number == 0 and op == "<":
            raise _bad(text, f"{subject} is never below 0, so it could never be met")
        return Requirement(text, "count", subject, op=op, limit=number)
    if stat.lower() not in STATS:
        raise _bad(text, f"unknown statistic '{stat}' (use {', '.join(STATS)} or pass)")
    if not unit:
        raise _bad(text, "the value needs a time unit (ns, us, µs, ms or s)")
    if unit not in TIME_UNITS:
        raise _bad(text, f"unknown unit '{unit}' (use ns, us, µs, ms or s)")
    if number < 0:
        raise _bad(text, f"a time is never negative, so {m['value']}{unit} is no limit")
    if number == 0 and op == "<":
        raise _bad(text, "no time is below 0, so it could never be met")
    scenario, _, metric = subject.partition("/")
    return Requirement(
        text,
        "stat",
        scenario,
        metric=metric or None,
        stat=stat.lower(),
        op=op,
        limit=number * TIME_UNITS[unit],
        time=True,
    )


def read_file(path: Path) -> list[str]:
    """The expressions of a TOML file: `require = ["...", ...]`, or a table
    `[require]` of `name = "expr"` (the name is only for people)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise UsageError(f"--require-file {path}: {e.strerror or e}.") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise UsageError(f"--require-file {path} is not valid TOML ({e}).") from None
    value = data.get("require")
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        return list(value.values())
    raise UsageError(
        f'--require-file {path} needs `require = ["EXPR", ...]` or a [require] table of strings.'
    )


def gather(exprs: Sequence[str], files: Sequence[Path]) -> list[Requirement]:
    """Every requirement from the command line and the files, parsed."""
    texts = list(exprs)
    for f in files:
        texts += read_file(f)
    return [parse(t) for t in texts]


def check(
    reqs: Sequence[Requirement], known: Mapping[str, Sequence[str]], selected: Iterable[str]
) -> list[Requirement]:
    """Check ids before the run. `known` maps every id to itself and every classic
    label to the ids it names; `selected` holds the ids the run will measure. A label
    stays the subject (it covers every metric and verdict of that label)."""
    chosen = set(selected)
    out: list[Requirement] = []
    for r in reqs:
        scenario = COUNTS[r.subject][0] if r.kind == "count" else r.subject
        key = scenario if scenario in known else scenario.upper()
        ids = known.get(key)
        if not ids:
            raise _bad(r.text, f"no scenario id or label '{scenario}' (see `rtbench list`)")
        missing = [i for i in ids if i not in chosen]
        if len(missing) == len(ids):
            raise _bad(r.text, f"{missing[0]} is not among the scenarios this run selects")
        out.append(r if r.kind == "count" else _with_subject(r, key))
    return out


def _with_subject(r: Requirement, subject: str) -> Requirement:
    return Requirement(r.text, r.kind, subject, r.metric, r.stat, r.op, r.limit, r.time)


def time_limit_ns(reqs: Sequence[Requirement], scenario: str) -> float | None:
    """The tightest `max <= / <` limit on a scenario's latency (for --break)."""
    limits = [
        r.limit
        for r in reqs
        if r.kind == "stat"
        and r.subject == scenario
        and r.stat == "max"
        and r.op in ("<=", "<")
        and r.limit is not None
    ]
    return min(limits) if limits else None


def format_value(r: Requirement, value: float | None) -> str:
    if value is None:
        return "-"
    if r.time:
        return units.format_duration(value)
    return units.format_count(value)


def min_samples(quantile: float | None) -> int:
    """The fewest samples that put a sample above the quantile: 1/(1-q)."""
    if quantile is None:
        return 1
    return math.ceil(round(1.0 / (1.0 - quantile), 6))


def all_requirements_met(evaluated: Sequence[Mapping[str, Any]]) -> bool:
    return all(e.get("status") == MET for e in evaluated)


def any_missed(evaluated: Sequence[Mapping[str, Any]]) -> bool:
    return any(e.get("status") == MISSED for e in evaluated)


def overall(rows: Sequence[Mapping[str, Any]]) -> str:
    statuses = [str(r["status"]) for r in rows]
    if MISSED in statuses:
        return MISSED
    if not statuses or NOT_MEASURED in statuses:
        return NOT_MEASURED
    return MET


def stat_value(
    summary: MetricSummary, stat: str, exact: Sequence[float] | None
) -> tuple[float | None, str | None]:
    """The statistic, exact from every raw sample when they were all kept, else the
    core's (histogram percentiles); a note when the sample count cannot support it."""
    attr, quantile = STATS[stat]
    if summary.count == 0:
        return None, "no samples"
    need = min_samples(quantile)
    if summary.count < need:
        return None, f"{summary.count} samples cannot support {stat}, which needs at least {need}"
    if quantile is not None and exact is not None and len(exact) == summary.count:
        ordered = sorted(exact)
        rank = min(max(math.ceil(quantile * len(ordered) - 1e-9), 1), len(ordered))
        return ordered[rank - 1], "from every raw sample"
    value = getattr(summary, attr)
    note = "histogram estimate (the bucket's middle)" if quantile is not None else None
    return (None if value is None else float(value)), note


# ---- evaluation on a results document ----------------------------------------

SeriesReader = Callable[[Any], Sequence[float] | None]


def evaluate(
    reqs: Sequence[Requirement], doc: Any, read_series: SeriesReader | None = None
) -> list[dict[str, Any]]:
    """Judge every requirement on a ResultsDocument: one entry per requirement with
    its overall status and one row per metric (or verdict, or count) it covers."""
    out: list[dict[str, Any]] = []
    for r in reqs:
        if r.kind == "stat":
            rows = _stat_rows(r, doc, read_series)
        elif r.kind == "verdict":
            rows = _verdict_rows(r, doc)
        else:
            rows = _count_rows(r, doc)
        entry = r.to_json()
        entry["status"] = overall(rows)
        entry["rows"] = rows
        if not rows:
            entry["note"] = "nothing in this run measured it"
        out.append(entry)
    return out


def _covers(outcome: Any, subject: str) -> bool:
    """Does a unit cover the id or classic label?"""
    return bool(outcome.name == subject or any(subject in (i.id, i.label) for i in outcome.ids))


def _stat_rows(r: Requirement, doc: Any, read_series: SeriesReader | None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    assert r.stat is not None
    for outcome in doc.scenarios:
        if not _covers(outcome, r.subject):
            continue
        metrics = [
            m
            for m in outcome.metrics()
            if r.subject in (m.scenario, m.label)
            and units.is_time(m.unit)
            and (r.metric is None or m.metric == r.metric)
        ]
        if not metrics:
            rows.append(
                {
                    "what": r.subject,
                    "params": {},
                    "value": None,
                    "status": NOT_MEASURED,
                    "note": f"the scenario ended '{outcome.status}' without this metric",
                }
            )
        for m in metrics:
            exact = None
            sf = outcome.samples_for(m)
            if read_series is not None and sf is not None and sf.count == m.count:
                exact = read_series(sf)
                hz = outcome.counter_hz
                # the CSV holds ns already for tick metrics (sf.unit says which)
                if exact is not None and sf.unit == "ticks" and hz:
                    exact = [units.ticks_to_ns(v, hz) for v in exact]
            value, note = stat_value(m, r.stat, exact)
            row: dict[str, Any] = {
                "what": f"{m.scenario} {m.metric}",
                "params": dict(m.params),
                "value": value,
                "status": NOT_MEASURED if value is None else (MET if r.holds(value) else MISSED),
                "note": note,
            }
            if value is not None:
                row["margin"] = r.margin(value)
            if r.stat == "max" and m.count > 0:
                row["worst"] = _worst(outcome, m)
            rows.append(row)
    return rows


def _worst(outcome: Any, m: MetricSummary) -> dict[str, Any]:
    """Which sample was the maximum and when, from the result record."""
    for record in outcome.of_type("result"):
        if (
            record["scenario"] == m.scenario
            and record["metric"] == m.metric
            and dict(record.get("params", {})) == dict(m.params)
        ):
            stats = record["stats"]
            at = stats.get("max_at_ticks")
            hz = outcome.counter_hz
            return {
                "index": stats.get("max_index"),
                "at_s": None if at is None or not hz else round(float(at) / hz, 6),
            }
    return {"index": None, "at_s": None}


def _verdict_rows(r: Requirement, doc: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for outcome in doc.scenarios:
        if not _covers(outcome, r.subject):
            continue
        found = [
            v
            for v in outcome.of_type("verdict")
            if r.subject in (v.get("scenario"), v.get("label"))
        ]
        for v in found:
            result = str(v.get("outcome", "")).lower()
            rows.append(
                {
                    "what": f"{r.subject} {v.get('check') or 'verdict'}",
                    "params": {},
                    "value": result,
                    "status": MET
                    if result == "pass"
                    else (MISSED if result == "fail" else NOT_MEASURED),
                    "note": None if result in ("pass", "fail") else f"the verdict is {result}",
                }
            )
        if not found:
            rows.append(
                {
                    "what": r.subject,
                    "params": {},
                    "value": None,
                    "status": NOT_MEASURED,
                    "note": f"no verdict (the scenario ended '{outcome.status}')",
                }
            )
    return rows


def _count_rows(r: Requirement, doc: Any) -> list[dict[str, Any]]:
    scenario, table, column = COUNTS[r.subject]
    rows: list[dict[str, Any]] = []
    for outcome in doc.scenarios:
        if not _covers(outcome, scenario):
            continue
        tables = [t for t in outcome.of_type("table") if t.get("name") == table]
        for t in tables:
            names = [c["name"] for c in t["columns"]]
            if column not in names:
                continue
            at = names.index(column)
            # one row per CPU when the table has a cpu column, else the sum
            groups: dict[Any, float] = {}
            for row in t["rows"]:
                cpu = row[names.index("cpu")] if "cpu" in names else None
                groups[cpu] = groups.get(cpu, 0.0) + float(row[at])
            for cpu, total in groups.items():
                rows.append(
                    {
                        "what": f"{scenario} {r.subject}",
                        "params": {} if cpu is None else {"cpu": cpu},
                        "value": total,
                        "status": MET if r.holds(total) else MISSED,
                        "margin": r.margin(total),
                        "note": None,
                    }
                )
        if not tables:
            rows.append(
                {
                    "what": f"{scenario} {r.subject}",
                    "params": {},
                    "value": None,
                    "status": NOT_MEASURED,
                    "note": f"not reported (the scenario ended '{outcome.status}')",
                }
            )
    return rows
