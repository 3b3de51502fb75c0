/* SPDX-License-Identifier: Apache-2.0 */
/*
 * IRQ-S-SUS: the search for the smallest loss-free period of a periodic
 * interrupt source, as a pure state machine (no timing, no port calls), so
 * unit tests can drive it with synthetic loss tables.
 *
 * The scenario asks rtb_irq_search_next() what to run (a period and a phase
 * size), runs that phase, and feeds the counts back with
 * rtb_irq_search_record(), until rtb_irq_search_next() returns false.
 *
 * Level 0 (phase size counts[0], e.g. 1,000 interrupts) finds the region:
 * starting at start_period_ns it halves the period while phases are
 * loss-free (down to min_period_ns) or doubles it while they lose (up to
 * max_period_ns), then bisects between the smallest loss-free and the
 * largest lossy period until they are within 1/resolution_div of each
 * other. Each further level (e.g. 1,000,000 then 100,000,000 interrupts)
 * runs the previous level's result; a phase that loses backs off by a
 * quarter of the period, at most max_backoffs times per level.
 *
 * A phase is loss-free when it lost nothing and the source generated at
 * least the interrupts requested (a phase cut short proves nothing). The
 * search's result_* is the smallest loss-free period at the largest phase
 * size that had a loss-free run; the headline (rtb_irq_search_headline) is
 * the answer at the largest phase size that was run at all, which is "not
 * found" when every phase of that size lost interrupts.
 */
#ifndef RTB_CHECK_IRQ_H
#define RTB_CHECK_IRQ_H

#include <stdbool.h>
#include <stdint.h>

#define RTB_IRQ_LEVELS_MAX 4
/* Hard limit on phases per search, whatever the configuration. */
#define RTB_IRQ_SEARCH_STEPS_MAX 200u

struct rtb_irq_search_config {
	uint64_t start_period_ns; /* first period tried */
	uint64_t min_period_ns;	  /* never below (> 0) */
	uint64_t max_period_ns;	  /* never above; giving up there means "no loss-free period" */
	uint32_t resolution_div;  /* bisect until lossy..loss-free gap <= loss-free / div */
	uint32_t max_backoffs;	  /* per confirmation level */
	uint64_t counts[RTB_IRQ_LEVELS_MAX]; /* interrupts per phase at each level */
	uint32_t nlevels;		     /* 1 .. RTB_IRQ_LEVELS_MAX */
};

enum rtb_irq_stage {
	RTB_IRQ_STAGE_DOWN = 0, /* level 0: halving while loss-free */
	RTB_IRQ_STAGE_UP,	/* level 0: doubling while lossy */
	RTB_IRQ_STAGE_BISECT,	/* level 0: between lossy and loss-free */
	RTB_IRQ_STAGE_CONFIRM,	/* levels >= 1: the candidate at a larger phase */
	RTB_IRQ_STAGE_DONE,
};

struct rtb_irq_search {
	struct rtb_irq_search_config cfg;
	enum rtb_irq_stage stage;
	uint32_t level;
	uint64_t period_ns;    /* the phase to run next (or just run) */
	uint64_t good_ns;      /* level 0: smallest loss-free period so far, 0 = none */
	uint64_t bad_ns;       /* level 0: largest lossy period below good_ns, 0 = none */
	uint32_t backoffs;     /* at the current confirmation level */
	uint32_t steps;	       /* phases recorded */
	bool aborted;	       /* stopped early (time budget) */
	bool found;	       /* a loss-free period exists */
	uint64_t result_ns;    /* smallest loss-free period at the largest phase size run */
	uint64_t result_count; /* that phase size */
	uint32_t result_level; /* its level */
	bool at_floor;	       /* result == min_period_ns: the real limit is lower */
	bool lossy_at_ceiling; /* level 0 lost even at max_period_ns */
	bool confirm_failed;   /* a confirmation level ran out of back-offs */
	uint32_t run_level;    /* the largest level with a recorded phase */
	uint64_t run_lossy_ns; /* largest period that lost at run_level, 0 = none */
};

/* What a reader is told: the answer at the largest phase size that was run.
 * A period that was loss-free only in smaller phases is not the answer; it
 * is kept apart (smaller_*) so the report can say what the smaller phases
 * showed. */
struct rtb_irq_headline {
	uint64_t phase_count;	    /* the largest phase size run; 0 = no phase ran */
	bool found;		    /* a loss-free period at phase_count */
	uint64_t period_ns;	    /* found: the smallest loss-free period at phase_count */
	bool at_floor;		    /* found at the smallest period tried: the limit is lower */
	uint64_t lossy_up_to_ns;    /* !found: the largest period that lost at phase_count */
	bool smaller_found;	    /* !found: loss-free in smaller phases */
	uint64_t smaller_period_ns; /* that period */
	uint64_t smaller_count;	    /* and that phase size */
};

/* Start a search. Invalid settings are corrected: min >= 1, max >= min,
 * start within [min, max], div >= 2, nlevels within 1..RTB_IRQ_LEVELS_MAX. */
void rtb_irq_search_init(struct rtb_irq_search *s, const struct rtb_irq_search_config *cfg);

/* The next phase to run; false once the search is over. */
bool rtb_irq_search_next(const struct rtb_irq_search *s, uint64_t *period_ns, uint64_t *count);

/* Feed the outcome of the phase rtb_irq_search_next() asked for. */
void rtb_irq_search_record(struct rtb_irq_search *s, uint64_t generated, uint64_t lost);

/* End the search now (time budget used up), keeping what was found. */
void rtb_irq_search_abort(struct rtb_irq_search *s);

/* The headline of a finished (or aborted) search. */
void rtb_irq_search_headline(const struct rtb_irq_search *s, struct rtb_irq_headline *h);

/* "halving", "doubling", "bisecting", "confirming", "done". */
const char *rtb_irq_stage_name(enum rtb_irq_stage stage);

#endif /* RTB_CHECK_IRQ_H */
