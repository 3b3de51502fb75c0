/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CLK checks: pure functions behind clk.tick.duration (CLK-P-DUR) and
 * clk.tick.config (CLK-B-CFG).
 *
 * The input is a series of back-to-back busy-loop durations: loop i starts
 * where loop i-1 ended, so the start time of loop i is the sum of the
 * durations before it. Undisturbed loops form a tight lower line; a loop in
 * which the OS ran (the clock tick, another interrupt) lasts longer.
 *
 * rtb_clk_analyse() splits the loops into normal and disturbed ones, looks
 * for a period in the times of the disturbed loops, and marks the disturbed
 * loops that lie on that period as tick loops (the rest are "other").
 * rtb_clk_decide() turns what was measured and what the OS states about its
 * tick into the CLK-B-CFG verdict.
 */
#ifndef RTB_CHECK_CLK_H
#define RTB_CHECK_CLK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtb/core.h"

/* ---- loop classification and period ----------------------------------- */

enum rtb_clk_kind {
	RTB_CLK_NORMAL = 0, /* undisturbed: the lower line */
	RTB_CLK_TICK = 1,   /* disturbed, on the period found: the upper line */
	RTB_CLK_OTHER = 2,  /* disturbed, not on the period */
	RTB_CLK_GAP = 3,    /* disturbed far beyond a tick: the CPU was taken away */
};

/* Fewest loops rtb_clk_analyse() accepts. */
#define RTB_CLK_LOOPS_MIN 64u
/* Fewest pairs of disturbances one period apart that make a period. */
#define RTB_CLK_PAIRS_MIN 16u

/* uint64_t words of scratch space rtb_clk_analyse() needs for n loops. */
size_t rtb_clk_scratch_words(size_t n);

struct rtb_clk_analysis {
	bool valid; /* false: too few loops (the rest is zero) */
	size_t loops;
	uint64_t span_ticks; /* sum of all durations */
	/* holes: loops of 9 normal loops or more, the CPU taken away (they
	 * hide the ticks inside them; the period is judged without them) */
	size_t holes;
	uint64_t hole_ticks;

	/* classification (same unit as the durations) */
	uint64_t normal_ticks;	  /* median loop: the normal loop time */
	uint64_t spread_ticks;	  /* median - 1st percentile: the lower line's width below */
	uint64_t threshold_ticks; /* a loop longer than this is disturbed */
	size_t normal;
	size_t disturbed; /* tick + other */
	size_t tick;
	size_t other;
	bool too_dense; /* more disturbance clusters than a period search can use */

	/* period of the disturbances */
	bool periodic;
	uint64_t period_ticks; /* median distance of the pairs one period apart */
	uint64_t period_min_ticks;
	uint64_t period_max_ticks;
	uint64_t tolerance_ticks; /* a pair is on the period within +- this */
	size_t period_pairs;	  /* disturbances followed by one a period later */
	size_t chance_pairs;	  /* of which random disturbances would form by chance */
	size_t expected_pairs;	  /* span / period - 1 */

	/* loops hit by the tick (excess = loop - normal) */
	uint64_t tick_loop_typical_ticks; /* median */
	uint64_t tick_loop_min_ticks;
	uint64_t tick_loop_worst_ticks;
	uint64_t tick_excess_typical_ticks;
	uint64_t tick_excess_min_ticks;
	uint64_t tick_excess_worst_ticks;

	/* other disturbed loops (long gaps excluded) */
	uint64_t other_loop_typical_ticks;
	uint64_t other_loop_worst_ticks;

	/* long gaps: loops whose excess is above gap_limit_ticks, on the
	 * period or not (RT throttling, a hypervisor, another task) */
	uint64_t gap_limit_ticks;
	size_t gap;
	uint64_t gap_excess_longest_ticks;
	uint64_t gap_excess_total_ticks;
};

/*
 * Classify n back-to-back loop durations and find the period of their
 * disturbances.
 *
 *  - normal = the median loop (valid while fewer than half the loops are
 *    disturbed, which a loop much shorter than the tick period ensures).
 *    The lower line ends where the density of loop times above the median
 *    falls below 1/64 of its peak (bins normal / 128 wide, four bins in a
 *    row). A loop is disturbed when it exceeds that end, and at least
 *    normal + max(normal / 32, min_excess_ticks).
 *  - period: disturbed loops less than four normal loops apart form one
 *    cluster (a burst), represented by its first loop; the distances
 *    between all pairs of clusters (up to a seventeenth of the run) are
 *    counted in a histogram. For each lag, the pairs within
 *    +- (2 * normal + lag / 64) beyond the local background (the density
 *    four window widths on either side) are the pairs that lag explains.
 *    The candidate is the shortest lag of at least four loops that
 *    explains at least RTB_CLK_PAIRS_MIN pairs, half of span / lag, and
 *    three standard deviations of its background: each tick pairs with the
 *    next one whatever else happens in between, random disturbances add
 *    background, not excess, and multiples of the period are longer.
 *  - every cluster is paired with the one closest to a period
 *    later (within +- the tolerance, then again within the spread the
 *    pairs really show: max(2 * normal, 10th to 90th percentile of their
 *    distances)); the period is the median distance of the pairs. It is
 *    a period when the pairs beyond those the same number of random
 *    disturbances would form by chance are at least RTB_CLK_PAIRS_MIN,
 *    half of span / period - 1, and five standard deviations of the chance
 *    count. The span here is the time the loop ran: loops of 9 normal
 *    loops or more (holes: the CPU was taken away, by an emulator's busy
 *    host, a hypervisor) hide the ticks inside them, so their time is left
 *    out and each breaks one chain of pairs (one pair fewer expected); the
 *    candidate's "half of span / lag" and the chance density use that
 *    span too.
 *  - clusters with a neighbour one period away (either side) are tick
 *    loops (their first loop); all other disturbed loops are "other".
 *  - a disturbed loop whose excess over the normal loop is above
 *    gap_limit = max(16 x the median excess of the tick loops, 8 normal
 *    loops) is a long gap, on the period or not: the CPU was taken away
 *    for far longer than a tick takes (RT throttling, which Linux enforces
 *    from the tick, a hypervisor, another task). Long gaps are counted
 *    apart and never enter the tick or "other" figures.
 *
 * scratch: rtb_clk_scratch_words(n) words. kinds: n entries (may be NULL),
 * filled with enum rtb_clk_kind. Returns out->valid.
 */
bool rtb_clk_analyse(const uint64_t *loop_ticks, size_t n, uint64_t min_excess_ticks,
		     uint64_t *scratch, uint8_t *kinds, struct rtb_clk_analysis *out);

/* ---- CLK-B-CFG decision ------------------------------------------------- */

enum rtb_clk_nohz {
	RTB_CLK_NOHZ_UNKNOWN = 0,  /* the OS does not say */
	RTB_CLK_NOHZ_PERIODIC = 1, /* the tick always runs */
	RTB_CLK_NOHZ_IDLE = 2,	   /* stopped on idle CPUs only: runs on a busy one */
	RTB_CLK_NOHZ_FULL = 3,	   /* may stop on a busy CPU with one task */
};

/* "periodic", "idle", "full" -> enum; anything else UNKNOWN. */
enum rtb_clk_nohz rtb_clk_nohz_parse(const char *s);
const char *rtb_clk_nohz_name(enum rtb_clk_nohz m);

/* Most sleep requests rtb_clk_facts holds. */
#define RTB_CLK_SLEEPS_MAX 8u

/* One requested sleep duration and the time it really took: the median and
 * the 90th percentile (high_ns; below typical_ns it counts as typical_ns). */
struct rtb_clk_sleep {
	uint64_t requested_ns;
	uint64_t typical_ns;
	uint64_t high_ns;
};

/*
 * Where the timed sleeps start in the tick. A sleep bound to the tick ends
 * at a tick, so a sleep that starts at once after the previous one ends
 * always starts at the same point of the tick, and a short one lasts a
 * whole tick or almost nothing depending on the code path before it. The
 * sleeps are therefore started at points spread over the whole tick: before
 * sleep i the caller busy-waits rtb_clk_phase_offset(i, period), the
 * fraction frac(i * 0.618...) of the period (the golden-ratio sequence:
 * any run of n consecutive i splits the period into gaps of at most about
 * 2.6 / n of it, whatever i the run starts at). From a spread start, a
 * short sleep that returns at the next tick lasts anywhere from nothing to
 * one tick (median about half a tick, 90th percentile about 0.9 tick);
 * the rules below judge such sleeps by their 90th percentile.
 */
uint64_t rtb_clk_phase_offset(uint64_t i, uint64_t period);

struct rtb_clk_facts {
	/* measured */
	bool periodic;		/* a periodic disturbance was found */
	uint64_t period_ns;	/* its period */
	uint64_t period_tol_ns; /* the period search's tolerance */
	uint64_t loop_ns;	/* normal loop time: the time resolution */
	uint64_t span_ns;	/* the busy loops' whole time (0: not known) */
	uint64_t hole_ns;	/* of which the CPU was taken away (holes) */
	size_t holes;
	bool sleep_measured;	   /* short sleeps were timed */
	uint64_t sleep_typical_ns; /* median wake-up of a 1 us sleep */
	uint64_t sleep_high_ns;	   /* its 90th percentile (below the median: the median) */
	/* every request timed, shortest first (0 entries: only the 1 us one
	 * above is known) */
	size_t sleeps;
	struct rtb_clk_sleep sleep[RTB_CLK_SLEEPS_MAX];
	/* stated by the OS (0 / UNKNOWN when it does not say) */
	uint64_t stated_hz;
	enum rtb_clk_nohz nohz;
	uint64_t stated_resolution_ns;
};

struct rtb_clk_decision {
	enum rtb_outcome outcome;
	char reason[RTB_LINE_MAX];
	uint64_t tick_period_ns; /* concluded tick period, 0 when none was found */
	bool tickless;		 /* no periodic tick seen on the busy CPU */
	bool sleep_tick_bound;	 /* 1 us sleeps last up to about a tick period */
};

/*
 * The verdict:
 *  - pass: the tick configuration could be determined and agrees with what
 *    the OS states (or the OS states nothing): a period measured within
 *    max(5 %, 2 loops + the search tolerance) of 1/stated_hz. Under full
 *    dynticks also a longer period or none at all.
 *  - fail: the measurement contradicts the statement: a periodic
 *    disturbance at a period that is neither the stated tick's nor
 *    harmonic with it (a faster one under full dynticks alike); or a
 *    stated fine timer resolution (below a tenth of the tick) while 1 us
 *    sleeps are bound to the tick (their 90th percentile at least half a
 *    tick: from starts spread over the tick they last up to a tick); or a
 *    stated coarse resolution (half a tick or more) while a short sleep
 *    ends sooner than half that resolution (its 90th percentile below half
 *    of it: a timer of that resolution makes a tenth of the sleeps started
 *    at spread points last 0.9 of it or more, a finer one none). Judging
 *    the median instead would depend on where in the tick the sleeps
 *    start. The short sleep judged there is the longest
 *    request of at most a quarter of the resolution (of those in sleep[];
 *    the 1 us one when sleep[] is empty): a request shorter than the sleep
 *    call's own path ends when that path does, without waiting for any
 *    timer (1 us is some 30 instructions on a 30 MHz microcontroller, or
 *    under QEMU's -icount at 32 ns an instruction), so it says nothing of
 *    the timer's granularity; a request the timer must round up does.
 *  - inconclusive: the OS states a tick that runs on a busy CPU but no
 *    periodic disturbance was found (the tick may cost less than the
 *    detection threshold; when holes took a tenth of the span or more, the
 *    reason says the CPU was taken away instead); or the period found is an integer multiple or
 *    fraction of the stated one (k = 2..64, within max(5 %, 2 loops + the
 *    search tolerance)): the stated tick may hide among a faster periodic
 *    disturbance from elsewhere (a hypervisor's timer), or only every k-th
 *    tick costs enough to be seen, so it is neither confirmed nor
 *    contradicted, and no tick period is concluded.
 */
void rtb_clk_decide(const struct rtb_clk_facts *f, struct rtb_clk_decision *d);

#endif /* RTB_CHECK_CLK_H */
