# SPDX-License-Identifier: Apache-2.0
"""The rating section of a comparison: per family, which system is best and by how much.

Computed from the comparison, never written by hand; `RULES` states the rules
in the words the reports print.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rtbench.model.families import FAMILIES

if TYPE_CHECKING:
    from rtbench.compare.model import MetricRow, System, VerdictRow

RULES: tuple[str, ...] = (
    "A system that fails any behaviour test is marked FAILING, whatever its latencies.",
    "Behaviour: the best systems are those with no failed verdict and the most passes.",
    "Other families: only time metrics measured by every system count. A system's score is "
    "the geometric mean, over those metrics, of its median and its p99 each divided by the "
    "baseline's (1.00 = the baseline; lower is better).",
    "A family names a best system only when at least one of its metrics differs "
    "significantly from the baseline (location or tail rule); otherwise it reads "
    "'no significant difference'.",
    "Systems whose score is within the noise band of the best one share the first place "
    "(when all do, no system is named); 'by how much' is the next system's score divided "
    "by the best one's. Deterministic pairs carry no noise: they share a place only "
    "with equal scores.",
    "Calibration, throughput and other metrics without a family are shown but not rated.",
)


@dataclass(frozen=True)
class FamilyRating:
    family: str
    what: str
    best: tuple[str, ...]  # letters of the best systems (empty: none named)
    sentence: str
    scores: tuple[float | None, ...]  # per system (performance families)
    metrics: int  # metrics that counted
    significant: int  # metrics with a significant difference against the baseline


def _geomean(values: Sequence[float]) -> float | None:
    if not values or any(v <= 0 for v in values):
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def _failing_note(letter: str, failing: Sequence[str]) -> str:
    return f" (but {letter} FAILS {', '.join(failing)})" if failing else ""


def _behaviour(
    systems: Sequence[System], verdicts: Sequence[VerdictRow], failing: Sequence[Sequence[str]]
) -> FamilyRating:
    what = FAMILIES[0][1]
    if not verdicts:
        return FamilyRating("behaviour", what, (), "no behaviour verdicts", (), 0, 0)
    passes = [sum(1 for r in verdicts if r.outcome(i) == "pass") for i in range(len(systems))]
    outcomes = [tuple(None if c is None else c.outcome for c in r.cells) for r in verdicts]
    differ = sum(1 for o in outcomes if len(set(o)) > 1)
    clean = [i for i in range(len(systems)) if not failing[i]]
    fails = "; ".join(
        f"{systems[i].letter} FAILS {', '.join(failing[i])}"
        for i in range(len(systems))
        if failing[i]
    )
    if differ == 0:
        sentence = f"same verdicts in all {len(verdicts)} checks"
        if fails:
            sentence += f"; {fails}"
        return FamilyRating("behaviour", what, (), sentence, (), len(verdicts), 0)
    if not clean:
        return FamilyRating(
            "behaviour", what, (), f"every system fails: {fails}", (), len(verdicts), differ
        )
    top = max(passes[i] for i in clean)
    best = tuple(systems[i].letter for i in clean if passes[i] == top)
    sentence = f"best: {', '.join(best)} ({top} of {len(verdicts)} checks pass)"
    if fails:
        sentence += f"; {fails}"
    return FamilyRating("behaviour", what, best, sentence, (), len(verdicts), differ)


def _performance(
    name: str,
    what: str,
    systems: Sequence[System],
    rows: Sequence[MetricRow],
    failing: Sequence[Sequence[str]],
    min_change: float,
    members: Sequence[int],
) -> FamilyRating:
    counted = [
        r
        for r in rows
        if r.family == name
        and r.lower_is_better is True
        and all((c := r.cells[i]) is not None and c.p50 and c.p50 > 0 for i in members)
    ]
    if not counted:
        measured = any(r.family == name for r in rows)
        sentence = "no time metric measured by every system" if measured else "not measured"
        return FamilyRating(name, what, (), sentence, (), 0, 0)
    scores: list[float | None] = []
    for i in range(len(systems)):
        if i not in members:
            scores.append(None)
            continue
        logs: list[float] = []
        for r in counted:
            med = r.ratio(i, "p50")
            p99 = r.ratio(i, "p99")
            if med is not None:
                logs.append(med)
            if p99 is not None:
                logs.append(p99)
        scores.append(_geomean(logs))
    significant = sum(
        1
        for r in counted
        if any(
            d is not None and d.outcome not in ("same", "untested", "identical", "differs")
            for i, d in enumerate(r.differences)
            if i in members
        )
    )
    base = f"{len(counted)} metric{'s' if len(counted) != 1 else ''}"
    exact = all(
        d is None or d.exact is not None
        for r in counted
        for i, d in enumerate(r.differences)
        if i in members and i > 0
    )
    if significant == 0 and exact:
        same = all(
            d is None or d.outcome == "identical"
            for r in counted
            for i, d in enumerate(r.differences)
            if i in members
        )
        found = "identical figures" if same else "the same min, median and max"
        sentence = f"no difference: {found} ({base}, compared exactly)"
        return FamilyRating(name, what, (), sentence, tuple(scores), len(counted), 0)
    if significant == 0:
        return FamilyRating(
            name, what, (), f"no significant difference ({base})", tuple(scores), len(counted), 0
        )
    ranked = sorted((s, i) for i, s in enumerate(scores) if s is not None)
    if not ranked:
        return FamilyRating(
            name, what, (), f"cannot score ({base})", tuple(scores), len(counted), significant
        )
    best_score = ranked[0][0]
    listed = ", ".join(
        f"{systems[i].letter} {s:.2f}" for i, s in enumerate(scores) if s is not None
    )
    kind = "an exact" if exact else "a significant"
    details = f"scores {listed}; {base}, {significant} with {kind} difference"
    # Systems within the noise band of the best one share the first place; an
    # exact comparison has no noise, so there only an equal score ties.
    band = 0.0 if exact else min_change
    top = sorted(i for s, i in ranked if s <= best_score * (1.0 + band))
    if len(top) == len(ranked) and len(ranked) > 1:
        if exact:
            sentence = f"equal scores ({details})"
        else:
            sentence = f"no system is more than {band * 100:g}% better overall ({details})"
        return FamilyRating(name, what, (), sentence, tuple(scores), len(counted), significant)
    letters = tuple(systems[i].letter for i in top)
    if len(ranked) > len(top):
        runner_score, runner = ranked[len(top)]
        how = f"{runner_score / best_score:.2f}× better score than {systems[runner].letter}"
    else:
        how = "the only system with a score"
    tie = ""
    if len(top) > 1:
        tie = " (equal scores)" if exact else " (within the noise band of each other)"
    notes = "".join(_failing_note(systems[i].letter, failing[i]) for i in top)
    sentence = f"best: {', '.join(letters)}{tie}, {how} ({details}){notes}"
    return FamilyRating(name, what, letters, sentence, tuple(scores), len(counted), significant)


def rate(
    systems: Sequence[System],
    rows: Sequence[MetricRow],
    verdicts: Sequence[VerdictRow],
    failing: Sequence[Sequence[str]],
    min_change: float,
    members: Sequence[int] | None = None,
) -> list[FamilyRating]:
    """Behaviour over every system; the other families over `members` (default:
    every system), the systems whose times are comparable with the baseline's."""
    chosen = range(len(systems)) if members is None else members
    out = [_behaviour(systems, verdicts, failing)]
    for name, what, _prefixes in FAMILIES[1:]:
        out.append(_performance(name, what, systems, rows, failing, min_change, chosen))
    return out


def combine(
    letters: Sequence[str], parts: Sequence[tuple[Sequence[str], Sequence[FamilyRating]]]
) -> list[FamilyRating]:
    """One rating per family from the ratings of each comparable group (`parts`:
    the letters of a group and its ratings, whose behaviour line is dropped):
    each group's sentence, prefixed with its letters when there are several."""
    out = []
    for name, what, _prefixes in FAMILIES[1:]:
        found = [(who, next(r for r in rs if r.family == name)) for who, rs in parts]
        if not found:
            sentence = "not rated: no two systems were timed by the same clock"
            out.append(FamilyRating(name, what, (), sentence, (), 0, 0))
            continue
        several = len(found) > 1 or len(found[0][0]) < len(letters)
        sentence = "; ".join(
            (f"among {', '.join(who)}: " if several else "") + r.sentence for who, r in found
        )
        best = tuple(b for _who, r in found for b in r.best)
        scores = tuple(
            next((r.scores[list(who).index(x)] for who, r in found if x in who and r.scores), None)
            for x in letters
        )
        metrics = sum(r.metrics for _who, r in found)
        significant = sum(r.significant for _who, r in found)
        out.append(FamilyRating(name, what, best, sentence, scores, metrics, significant))
    return out
