# SPDX-License-Identifier: Apache-2.0
"""Words and numbers every comparison format shares: cells, differences, rules."""

from __future__ import annotations

from rtbench import reference
from rtbench.compare import exact as cexact
from rtbench.compare import significance as cstats
from rtbench.compare.model import Comparison, MetricRow
from rtbench.compare.rating import RULES as RATING_RULES
from rtbench.model import units
from rtbench.model.summary import MetricSummary

OUTCOME_WORDS = {
    "worse": "WORSE",
    "better": "better",
    "mixed": "MIXED",
    "same": "same",
    "higher": "higher",
    "lower": "lower",
    "untested": "not tested",
    "identical": "identical",
    "differs": "differs",
}


def outcome_word(diff: cstats.Difference) -> str:
    """The word of a difference in a table: WORSE, same...; SLOWER, identical... when exact."""
    if diff.exact is not None:
        return cexact.WORDS[diff.outcome]
    return OUTCOME_WORDS[diff.outcome]


def exact_rules() -> list[str]:
    return [
        "Deterministic runs (--deterministic: QEMU -icount on an emulated board) count "
        "instructions and give the same figures run after run. Two of them with the same "
        "-icount shift on the same board, emulator and emulator version are compared "
        "exactly, without statistics: equal statistics and samples (or histograms, when "
        "raw samples are missing) are 'identical'; every statistic that differs is given "
        "exactly, in counter ticks when the metric was recorded in ticks (else ns), in "
        "instructions (one instruction is 2^shift ns: '=' when exact, '≈' when the counter "
        "step is coarser than an instruction) and in per cent. The shortest, typical and "
        "longest path decide: SLOWER when the min, median or max is higher (lower for "
        "throughput) and none of them lower; faster the other way round; MIXED some each "
        "way; differs when they are the same and only other statistics (which move with how "
        "many samples the tick interrupt lands in) or the samples differ. A guest operating "
        "system under -icount does not repeat exactly and is tested by statistics.",
        "Path difference (runs traced with --trace on an emulated board): the functions "
        "whose instructions or calls differ between the typical samples (and the worst "
        "samples, when they tell more) of both runs, largest change first.",
    ]


def difference_rules(min_change: float) -> list[str]:
    pct = f"{min_change * 100:g}"
    return [
        "Each system is tested against the first one (A, the baseline), metric by metric.",
        "Location: Mann-Whitney U on the raw samples when both runs stored every sample, "
        "otherwise on the histograms (every sample, at bucket resolution). A shift counts when "
        f"p < {cstats.ALPHA:g}, the 95% bootstrap interval of the median ratio excludes 1, and "
        f"the median ratio is beyond ±{pct}% (below that it is reported as within the noise).",
        "Tail: the share of each system's samples above the other system's p99 (and p99.9 "
        f"with at least 10,000 samples each) raised by the same {pct}% band, in both "
        "directions. A tail counts as heavier when more than 1% (0.1%) of its samples lie "
        "above that threshold, i.e. its own p99 (p99.9) is beyond the other's by more than "
        f"the band, and Fisher's exact test gives p < {cstats.ALPHA:g}: this sees a change of "
        "p99 and mean whose median does not move.",
        "WORSE or better (lower is better for times): for real-time work the tail comes "
        "first, so a significantly heavier tail makes a result WORSE even when its median is "
        "lower (the line says so); the median decides when the tails do not differ. MIXED: "
        "each side has the heavier tail at one threshold.",
        "Maxima are single samples: shown, never called significant.",
        "Between runs: a system can be given as several runs of one configuration "
        "(compare A1 A2 A3 --vs B1 B2 B3); its figures are then those of all its runs' "
        "samples together. The tests above treat samples as independent draws, but a whole "
        "run moves from one run to the next, so a shift or a heavier tail counts only when it "
        "also exceeds the between-run spread: every run of one system lies beyond every run "
        f"of the other by more than the {pct}% band (and two counter steps) in the statistic "
        "that moved (each run's median, p99 or p99.9). Otherwise it is reported as within the "
        "run-to-run spread. Identical configurations separate like this by chance at most "
        "2 / C(k+j, k) of the time for k and j runs (1 in 10 for 3 and 3). With one run per "
        "system the between-run spread is not measured and the verdicts may be optimistic.",
    ]


def rules(min_change: float, exact: bool = False) -> list[str]:
    """The rules a comparison prints; `exact`: with those of deterministic runs."""
    return [*difference_rules(min_change), *(exact_rules() if exact else []), *RATING_RULES]


def alone(comparison: Comparison) -> bool:
    """One result beside the published figures (`compare DIR --reference`): no other
    system, so nothing is tested or rated."""
    return len(comparison.systems) == 1


def heading(comparison: Comparison) -> str:
    """What is compared, for the first line of every format."""
    if alone(comparison):
        return "1 result and the published figures"
    return f"{len(comparison.systems)} results, baseline A"


def intro(comparison: Comparison) -> str:
    """One sentence under the heading: what the comparison does."""
    if alone(comparison):
        return (
            "A is shown beside the published figures of other systems: other hardware, "
            "other years, never a same-machine comparison; nothing is tested or rated."
        )
    if len(comparison.groups) > 1:
        return (
            "A is the baseline; times are tested only between results timed by one "
            'clock (the answer\'s "timed by" row), behaviour and services across all.'
        )
    return "A is the baseline; every other result is tested against it."


def base_word(comparison: Comparison) -> str:
    """The outcome cell of A's line: nothing when A is alone."""
    return "" if alone(comparison) else "baseline"


def row_scale(row: MetricRow) -> tuple[str, float]:
    """The display unit and divisor of a metric, chosen from the baseline's median."""
    reference_cell = next((c for c in row.cells if c is not None), None)
    value = None
    if reference_cell is not None:
        value = reference_cell.p50 if reference_cell.p50 is not None else reference_cell.mean
    return units.row_scale(row.unit, value)


def value(cell: MetricSummary | None, attribute: str, row: MetricRow, divisor: float) -> str:
    if cell is None:
        return "-"
    return units.format_in(getattr(cell, attribute), row.unit, divisor)


# The statistics columns every comparison table shows, after the system's name.
STAT_HEADERS = ["samples", "min", "median", "avg", "p99", "max", "×median", "×p99"]


DETAILS_TITLE = "Other differences (they follow from the systems and machines compared)"
NOT_COMPARED = "not compared"  # another clock than the baseline's: no test, no ratio


def stat_cells(
    row: MetricRow, index: int, divisor: float, comparison: Comparison | None = None
) -> list[str]:
    """One system's cells under STAT_HEADERS (ratios to the baseline, index 0; none
    for a system timed by another clock than the baseline's)."""
    cell = row.cells[index]
    if comparison is not None and index > 0 and not comparison.timed_with_base(index):
        return [
            "-" if cell is None else f"{cell.count:,}",
            *(value(cell, k, row, divisor) for k in ("min", "p50", "mean", "p99", "max")),
            "",
            "",
        ]
    return [
        "-" if cell is None else f"{cell.count:,}",
        *(value(cell, k, row, divisor) for k in ("min", "p50", "mean", "p99", "max")),
        "" if index == 0 else ratio(row.ratio(index, "p50")),
        "" if index == 0 else ratio(row.ratio(index, "p99")),
    ]


def ratio(value_: float | None) -> str:
    if value_ is None:
        return "-"
    return f"{value_:.2f}"


def _pct(ratio_: float) -> str:
    return f"{(ratio_ - 1.0) * 100:+.0f}%"


def _chance(chance: float) -> str:
    return f"1 in {round(1 / chance):,}" if chance > 0 else "never"


def spread_text(diff: cstats.Difference, letter: str, row: MetricRow | None = None) -> str:
    """The runs' statistics that decided the between-run check, e.g.
    'runs' medians A 1.61..2.15, B 1.70..2.02 µs: they overlap'."""
    if not diff.spreads:
        return ""
    unit, div = ("", 1.0) if row is None else row_scale(row)
    base_unit = "" if row is None else row.unit

    def span(values: tuple[float, ...]) -> str:
        lo, hi = min(values), max(values)
        if lo == hi:
            return units.format_in(lo, base_unit, div)
        return f"{units.format_in(lo, base_unit, div)}..{units.format_in(hi, base_unit, div)}"

    parts = []
    for sp in diff.spreads:
        word = "overlap" if sp.separated == "none" else "separate"
        parts.append(
            f"runs' {sp.statistic}s A {span(sp.base)}, {letter} {span(sp.other)}"
            f"{' ' + unit if unit and unit != 'count' else ''}: they {word}"
        )
    k, j = diff.runs
    chance = cstats.separation_chance(k, j)
    return "; ".join(parts) + f" ({k} and {j} runs: by chance {_chance(chance)})"


def location_text(diff: cstats.Difference) -> str:
    t = diff.loc_test
    if t is None:
        return ""
    ci = ""
    if t.ci_low is not None and t.ci_high is not None:
        ci = f", 95% CI {_pct(t.ci_low)}..{_pct(t.ci_high)}"
    median = "median ratio -" if t.ratio is None else f"median {_pct(t.ratio)}"
    return f"{median}{ci}, Mann-Whitney {cstats.format_p(t.p_value)} ({t.source})"


def tail_text(diff: cstats.Difference, letter: str) -> str:
    if not diff.tails:
        return ""
    # The most telling test: a significant one if any, else the p99 test against the baseline.
    chosen = next((t for t in diff.tails if t.heavier()), diff.tails[0])
    if chosen.reference == "base":
        return (
            f"{chosen.frac_other * 100:.2f}% of {letter} above A's {chosen.quantile}+band "
            f"(A {chosen.frac_base * 100:.2f}%), Fisher {cstats.format_p(chosen.p_value)}"
        )
    return (
        f"{chosen.frac_base * 100:.2f}% of A above {letter}'s {chosen.quantile}+band "
        f"({letter} {chosen.frac_other * 100:.2f}%), Fisher {cstats.format_p(chosen.p_value)}"
    )


def difference_text(
    diff: cstats.Difference | None, letter: str, row: MetricRow | None = None
) -> str:
    """One sentence: the outcome and the evidence behind it (`row`: for the units
    of the runs' statistics)."""
    if diff is None:
        return "not measured by both"
    if diff.exact is not None:
        return cexact.text(diff.exact, letter)
    note = f" ({diff.note})" if diff.note else ""
    return _tested_text(diff, letter, row) + note


def _tested_text(diff: cstats.Difference, letter: str, row: MetricRow | None) -> str:
    if diff.outcome == "untested":
        return f"not tested: {diff.reason}"
    parts = []
    loc_words = {
        "higher": "median higher",
        "lower": "median lower",
        "noise": "median shift within the noise band",
        "spread": "median shift within the run-to-run spread",
        "none": "median: no significant shift",
    }
    tail_words = {
        "higher": f"tail heavier in {letter}",
        "lower": "tail heavier in A",
        "mixed": "tails cross",
        "spread": "tail change within the run-to-run spread",
        "none": "tail: no significant change",
    }
    if diff.location in loc_words:
        words = loc_words[diff.location]
        if diff.location == "none" and diff.loc_test and diff.loc_test.p_value < cstats.ALPHA:
            words = "median unchanged though the ranks differ"
        parts.append(f"{words} ({location_text(diff)})")
    if diff.tail in tail_words:
        parts.append(f"{tail_words[diff.tail]} ({tail_text(diff, letter)})")
    spread = spread_text(diff, letter, row)
    if spread:
        parts.append(spread)
    word = OUTCOME_WORDS[diff.outcome]
    if diff.outcome == "same":
        word = "no significant difference"
    return f"{word}: " + "; ".join(parts)


def path_lines(row: MetricRow, index: int, letter: str, limit: int | None) -> list[str]:
    """The path difference of system `index` against A for one metric, a line per
    sample compared (`limit`: changes named before "(+N more)"; None: all)."""
    return [f"{letter} path difference, {d.line(letter, limit)}" for d in row.path_changes(index)]


def verdict_word(outcome: str | None) -> str:
    return "-" if outcome is None else outcome.upper()


def _published(text: str, divisor: float) -> str:
    """A published µs figure in the row's unit; `<0.1` (below resolution) keeps its sign."""
    if not text:
        return "-"
    below = text.startswith("<")
    try:
        number = float(text.lstrip("<")) * 1000.0 / divisor
    except ValueError:
        return text
    return ("<" if below else "") + units.format_number(number)


def reference_rows(row: MetricRow, divisor: float) -> list[tuple[str, str, str, str, str]]:
    """(published system, min, avg, max, measurement) for a metric, in its row unit."""
    cell = next((c for c in row.cells if c is not None), None)
    if cell is None:
        return []
    found = reference.for_metric(cell)
    several = len({f.measurement for f in found}) > 1
    return [
        (
            f.system,
            _published(f.min_us, divisor),
            _published(f.avg_us, divisor),
            _published(f.max_us, divisor),
            f.measurement if several else "",
        )
        for f in found
    ]


def result_labels(comparison: Comparison) -> set[str]:
    """The classic labels of every scenario any compared system ran."""
    return {
        i.label
        for s in comparison.systems
        for o in s.doc.scenarios
        if o.status != "not_implemented"
        for i in o.ids
        if i.label
    }


def other_published(comparison: Comparison) -> list[str]:
    """Published figures of these labels that no metric row shows (verdicts, periods...)."""
    return [
        reference.describe(f) for f in reference.unmatched_for_labels(result_labels(comparison))
    ]


def run_notes(comparison: Comparison) -> list[str]:
    """How far the verdicts account for run-to-run variance, per compared pair."""
    systems = comparison.systems
    base = systems[0]
    if alone(comparison):
        return []
    # Deterministic runs compared exactly have no run-to-run variance to measure.
    tested = [
        s
        for i, s in enumerate(systems)
        if i > 0 and not comparison.exact_with(i) and comparison.timed_with_base(i)
    ]
    if not tested:
        return []
    if all(s.n_runs == 1 for s in systems):
        return [
            "Run-to-run variance was not measured (one run per system): the tests see only "
            "the spread within each run, and on a busy or virtual machine whole runs of one "
            "configuration differ by more, so the verdicts may be optimistic. Give several "
            "runs of each system (rtbench compare A1 A2 A3 --vs B1 B2 B3) to measure it."
        ]
    out = []
    for other in tested:
        k, j = base.n_runs, other.n_runs
        if k + j <= 2:
            out.append(
                f"A and {other.letter}: one run each, so run-to-run variance was not measured "
                "and this pair's verdicts may be optimistic."
            )
            continue
        chance = cstats.separation_chance(k, j)
        runs_a, runs_b = f"{k} run{'s' if k > 1 else ''}", f"{j} run{'s' if j > 1 else ''}"
        out.append(
            f"A ({runs_a}) and {other.letter} ({runs_b}): "
            "a difference counts only beyond the between-run spread; identical configurations "
            f"pass that check by chance at most {_chance(chance)}"
            + ("; more runs make it firmer." if chance > 0.02 else ".")
        )
    return out


# The words of the summary line, worst first.
_SUMMARY_ORDER = (
    "WORSE", "SLOWER", "MIXED", "better", "faster", "higher", "lower", "differs", "same",
    "identical", "not tested",
)  # fmt: skip


def summary_counts(comparison: Comparison) -> list[str]:
    """Per compared system: how many metrics are worse, better, mixed, the same."""
    out = []
    for index, system in enumerate(comparison.systems[1:], start=1):
        if not comparison.timed_with_base(index):
            out.append(
                f"{system.letter} against A: {NOT_COMPARED} (timed by another clock)"
                + (
                    f"; FAILS {', '.join(comparison.failing[index])}"
                    if comparison.failing[index]
                    else ""
                )
            )
            continue
        counts: dict[str, int] = {}
        for row in comparison.metrics:
            diff = row.differences[index]
            if diff is not None:
                word = outcome_word(diff)
                counts[word] = counts.get(word, 0) + 1
        parts = [f"{counts[w]} {w}" for w in _SUMMARY_ORDER if counts.get(w)]
        failing = comparison.failing[index]
        how = " (exact, deterministic)" if comparison.exact_with(index) else ""
        text = f"{system.letter} against A{how}: " + (", ".join(parts) or "no common metric")
        if failing:
            text += f"; FAILS {', '.join(failing)}"
        out.append(text)
    if comparison.failing[0]:
        out.append(f"A FAILS {', '.join(comparison.failing[0])}")
    return out
