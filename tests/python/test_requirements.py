# SPDX-License-Identifier: Apache-2.0
"""Requirements: the parser (good and bad expressions), the TOML file, the
evaluation on a results document, and the exit statuses of `rtbench run`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import RunCli
from rtbench.errors import UsageError
from rtbench.model.results import load, read_samples
from rtbench.run import requirements
from synth import result_record, verdict_record, write_result


@pytest.mark.parametrize(
    ("text", "kind", "subject", "stat", "op", "limit"),
    [
        ("timer.periodic.latency:max<=100us", "stat", "timer.periodic.latency", "max", "<=", 1e5),
        ("irq.to_thread:p99.99<=50us", "stat", "irq.to_thread", "p99.99", "<=", 5e4),
        ("irq.to_thread:p99.99 <= 50 µs", "stat", "irq.to_thread", "p99.99", "<=", 5e4),
        ("os.noise/noise:median<2ms", "stat", "os.noise", "median", "<", 2e6),
        ("sem.wait.block:avg>=1.5ns", "stat", "sem.wait.block", "avg", ">=", 1.5),
        ("timer.periodic.latency:min>0s", "stat", "timer.periodic.latency", "min", ">", 0.0),
        ("mut.behavior.pi:pass", "verdict", "mut.behavior.pi", None, None, None),
        ("missed_periods==0", "count", "missed_periods", None, "==", 0.0),
    ],
)
def test_good_expressions(
    text: str, kind: str, subject: str, stat: str | None, op: str | None, limit: float | None
) -> None:
    r = requirements.parse(text)
    assert (r.kind, r.subject, r.stat, r.op, r.limit) == (kind, subject, stat, op, limit)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "not understood"),
        ("timer.periodic.latency", "comparison is missing"),
        ("timer.periodic.latency:max", "comparison is missing"),
        ("timer.periodic.latency:max<=100", "needs a time unit"),
        ("timer.periodic.latency:max<=100parsecs", "unknown unit"),
        ("timer.periodic.latency:p42<=1us", "unknown statistic"),
        ("timer.periodic.latency:max=<1us", "not understood"),
        ("timer.periodic.latency:max<=abc", "not understood"),
        ("mut.behavior.pi:pass<=1", "takes no comparison"),
        ("missed_periods==0us", "takes no unit"),
        ("missed_everything==0", "no count rtbench knows"),
    ],
)
def test_bad_expressions(text: str, says: str) -> None:
    with pytest.raises(UsageError) as e:
        requirements.parse(text)
    message = str(e.value)
    assert says in message
    assert message.count("\n") == 0 and message.endswith(".")


def test_check_against_the_catalog() -> None:
    known = {
        "timer.periodic.latency": ["timer.periodic.latency"],
        "sem.wait.block": ["sem.wait.block"],
        "SEM-P-ARC": ["sem.wait.block", "sem.signal.unblock"],
    }
    reqs = [requirements.parse("sem-p-arc:max<=1ms")]
    checked = requirements.check(reqs, known, {"sem.wait.block"})
    assert checked[0].subject == "SEM-P-ARC"  # the label: every metric it names
    with pytest.raises(UsageError, match=r"no scenario id or label 'nope\.x'"):
        requirements.check([requirements.parse("nope.x:max<=1ms")], known, {"sem.wait.block"})
    with pytest.raises(UsageError, match=r"not among the scenarios this run selects"):
        requirements.check([requirements.parse("missed_periods==0")], known, {"sem.wait.block"})


def test_require_file(tmp_path: Path) -> None:
    good = tmp_path / "req.toml"
    good.write_text('require = ["timer.periodic.latency:max<=100us", "missed_periods==0"]\n')
    assert [r.kind for r in requirements.gather([], [good])] == ["stat", "count"]
    table = tmp_path / "table.toml"
    table.write_text('[require]\nlatency = "timer.periodic.latency:p99<=20us"\n')
    assert requirements.gather([], [table])[0].stat == "p99"
    bad = tmp_path / "bad.toml"
    bad.write_text("require = [1, 2]\n")
    with pytest.raises(UsageError, match="needs `require"):
        requirements.gather([], [bad])
    broken = tmp_path / "broken.toml"
    broken.write_text("require = [\n")
    with pytest.raises(UsageError, match="not valid TOML"):
        requirements.gather([], [broken])
    with pytest.raises(UsageError, match="No such file"):
        requirements.gather([], [tmp_path / "missing.toml"])


# ---- evaluation ---------------------------------------------------------------


def _doc(tmp_path: Path, values: list[int]) -> tuple[Any, Path]:
    out = tmp_path / "run"
    write_result(out, {("timer.periodic.latency", "latency", None): values})
    return load(out), out


def _judge(doc: Any, out: Path, *exprs: str) -> list[dict[str, Any]]:
    reqs = [requirements.parse(e) for e in exprs]
    return requirements.evaluate(reqs, doc, lambda sf: read_samples(out, sf))


def test_maximum_met_and_missed_with_the_worst_sample(tmp_path: Path) -> None:
    values = [1000 + (i % 7) for i in range(500)]
    values[321] = 80_000  # the worst sample
    doc, out = _doc(tmp_path, values)
    met, missed = _judge(
        doc, out, "timer.periodic.latency:max<=100us", "timer.periodic.latency:max<=50us"
    )
    assert met["status"] == "met" and met["rows"][0]["margin"] == pytest.approx(-20_000)
    assert missed["status"] == "missed"
    row = missed["rows"][0]
    assert row["value"] == 80_000 and row["margin"] == pytest.approx(30_000)
    assert row["worst"]["index"] == 321


def test_percentiles_exact_from_raw_samples_or_not_supported(tmp_path: Path) -> None:
    values = list(range(1, 1001))  # 1..1000 ns
    doc, out = _doc(tmp_path, values)
    p99, p9999 = _judge(
        doc, out, "timer.periodic.latency:p99<=990ns", "timer.periodic.latency:p99.99<=1ms"
    )
    assert p99["rows"][0]["value"] == 990 and p99["status"] == "met"
    assert p99["rows"][0]["note"] == "from every raw sample"
    # 1000 samples cannot put one above the 99.99th percentile
    assert p9999["status"] == "not measured"
    assert "needs at least 10000" in p9999["rows"][0]["note"]
    (strict,) = _judge(doc, out, "timer.periodic.latency:p99<990ns")
    assert strict["status"] == "missed"


def test_verdicts_and_counts(tmp_path: Path) -> None:
    out = tmp_path / "run"
    write_result(out, {("timer.periodic.latency", "latency", None): [5, 6, 7]})
    data = json.loads((out / "results.json").read_text())
    scenario = data["scenarios"][0]
    scenario["records"].append(
        {
            "v": 1,
            "type": "table",
            "scenario": "timer.periodic.latency",
            "name": "periods",
            "title": "t",
            "columns": [{"name": "missed", "unit": "count"}, {"name": "cpu", "unit": ""}],
            "rows": [[0, 0], [4, 1]],
        }
    )
    (out / "results.json").write_text(json.dumps(data))
    doc = load(out)
    (count,) = _judge(doc, out, "missed_periods==0")
    assert count["status"] == "missed"
    assert [(r["params"], r["status"]) for r in count["rows"]] == [
        ({"cpu": 0}, "met"),
        ({"cpu": 1}, "missed"),
    ]
    (absent,) = _judge(doc, out, "mut.behavior.pi:pass")
    assert absent["status"] == "not measured"


def test_verdict_pass_and_fail(tmp_path: Path) -> None:
    for outcome, status in (("pass", "met"), ("fail", "missed"), ("inconclusive", "not measured")):
        out = tmp_path / outcome
        write_result(
            out,
            {("timer.periodic.latency", "latency", None): [1, 2, 3]},
            verdicts=[verdict_record("mut.behavior.pi", "MUT-B-PI", outcome)],
        )
        (entry,) = _judge(load(out), out, "mut.behavior.pi:pass")
        assert entry["status"] == status, outcome


def test_result_record_round_trip() -> None:
    # the evaluation only reads what the schema stores
    rec = result_record("timer.periodic.latency", "latency", None, [1, 2, 3])
    assert rec["stats"]["max_index"] == 2


# ---- the command line ------------------------------------------------------------


def test_bad_requirement_exits_2_before_the_run(run_cli: RunCli, tmp_path: Path) -> None:
    for expr, says in (
        ("timer.periodic.latency:max<=100", "needs a time unit"),
        ("no.such.id:max<=1ms", "no scenario id or label"),
        ("sem.wait.block:max<=1ms", "not among the scenarios this run selects"),
    ):
        done = run_cli(
            "run", "--only", "timer.periodic.latency", "--require", expr, "--out", "never"
        )
        assert done.returncode == 2, done.stderr
        assert says in done.stderr and "Traceback" not in done.stderr
        assert not (tmp_path / "never").exists()
    done = run_cli("run", "--only", "timer.periodic.latency", "--break", "--out", "never")
    assert done.returncode == 2 and "--break needs a requirement" in done.stderr


def test_exit_status_follows_the_requirements(run_cli: RunCli, tmp_path: Path) -> None:
    """A limit no wake-up can meet (1 ns) is missed: exit 1; one every sample meets
    (10 s, longer than the run) is met: exit 0."""
    common = ("run", "--only", "timer.periodic.latency", "--duration", "300ms")
    missed = run_cli(*common, "--require", "timer.periodic.latency:max<=1ns", "--out", "a")
    assert missed.returncode == 1, missed.stderr
    assert "Requirements: 0 of 1 met, 1 MISSED" in missed.stdout
    stored = json.loads((tmp_path / "a" / "results.json").read_text())
    assert stored["requirements"][0]["status"] == "missed"
    assert stored["requirements"][0]["rows"][0]["worst"]["index"] is not None
    met = run_cli(*common, "--require", "timer.periodic.latency:max<=10s", "--out", "b")
    assert met.returncode == 0, met.stderr
    assert "Requirements: 1 of 1 met" in met.stdout
    assert "report" in (tmp_path / "b" / "report.html").read_text()


def test_break_stops_at_the_first_violation(run_cli: RunCli, tmp_path: Path) -> None:
    done = run_cli(
        "run", "--only", "timer.periodic.latency", "os.noise", "--duration", "20s",
        "--require", "timer.periodic.latency:max<=1ns", "--break", "--out", "r",
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    doc = json.loads((tmp_path / "r" / "results.json").read_text())
    names = [s["name"] for s in doc["scenarios"]]
    assert "os.noise" not in names  # the run stopped after the timer
    timer = next(s for s in doc["scenarios"] if s["name"] == "timer.periodic.latency")
    # the scenario stopped at its first sample after the warm-up, far short of 20 s
    assert timer["elapsed_s"] < 15
    assert any("break_ns" in r.get("message", "") for r in timer["records"])
    assert doc["run"]["complete"] is False


def test_tick_metrics_from_a_real_run(run_cli: RunCli, tmp_path: Path) -> None:
    """For a metric in counter ticks, the percentile from the raw samples (stored in
    ns) agrees with the core's histogram percentile (1 % buckets) to a few percent:
    no second conversion."""
    done = run_cli("run", "--only", "sem.wait.block", "--out", "r")
    assert done.returncode == 0, done.stderr
    out = tmp_path / "r"
    doc = load(out)
    outcome = next(s for s in doc.scenarios if s.name == "sem.wait.block")
    m = next(m for m in outcome.metrics() if m.source_unit == "ticks" and m.count >= 100)
    sf = outcome.samples_for(m)
    assert sf is not None and sf.count == m.count and m.p99 is not None
    r = requirements.Requirement("x", "stat", m.scenario, m.metric, "p99", "<=", 1e12, True)
    (entry,) = requirements.evaluate([r], doc, lambda f: read_samples(out, f))
    row = next(x for x in entry["rows"] if x["params"] == dict(m.params))
    assert row["note"] == "from every raw sample"
    assert abs(row["value"] - m.p99) <= 0.05 * m.p99 + 20
