/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CLK: what core/scenarios/clk.c (the clk.tick unit: every measurement, and
 * CLK-P-DUR's records) and core/scenarios/clk_config.c (CLK-B-CFG's
 * conclusion) share. The unit is described at the top of clk.c.
 */
#ifndef RTB_SCENARIO_CLK_H
#define RTB_SCENARIO_CLK_H

#include "rtb/check_clk.h"
#include "rtb/core.h"

#define CLK_LOOP_TARGET_NS 20000u /* one busy loop, once the count is tuned */
#define CLK_SLEEPS 5		  /* requested sleep durations */
#define CLK_SLEEP_1US 1		  /* index of the 1 us request */
/* The timed sleeps start at points spread over the stated tick period, or
 * over this without one; at most over CLK_PHASE_MAX_NS (a 10 Hz tick). */
#define CLK_PHASE_DEFAULT_NS 10000000u
#define CLK_PHASE_MAX_NS 100000000u

/* The sleep durations CLK-B-CFG times: 0, 1 us, 10 us, 100 us, 1 ms. */
extern const uint64_t rtb_clk_sleep_requests_ns[CLK_SLEEPS];

/* A run of back-to-back busy loops and its analysis. */
struct tick_run {
	uint32_t loop_count;
	uint64_t planned_ns;
	uint64_t *loops; /* raw durations (ticks), loops[0 .. n) */
	size_t cap;
	size_t n;
	size_t warm; /* first loops not analysed */
	uint64_t *scratch;
	uint8_t *kinds; /* of loops[warm ..] */
	bool cut;	/* ended by the budget or a stop request */
	bool raised;	/* ran at prio_max */
	struct rtb_clk_analysis a;
};

/* The timed sleeps, by requested duration. */
struct sleep_stats {
	bool measured;
	uint64_t phase_period_ns; /* their starts are spread over this (0: not spread) */
	uint64_t median_ns[CLK_SLEEPS];
	uint64_t high_ns[CLK_SLEEPS]; /* 90th percentile */
	uint64_t min_ns[CLK_SLEEPS];
	uint64_t count[CLK_SLEEPS];
};

/* What the OS states about its tick (0 / UNKNOWN when it does not say). */
struct os_statement {
	uint64_t hz;	/* the rate judged against: the OS's, or the option's */
	uint64_t os_hz; /* the OS's own statement */
	bool hz_from_option;
	enum rtb_clk_nohz nohz;
	uint64_t resolution_ns;
	char hz_text[32], nohz_text[32], res_text[32];
};

static inline uint64_t clk_ns(uint64_t ticks)
{
	return rtb_ticks_to_ns(ticks);
}

static inline void clk_fmt_ticks(char *buf, size_t len, uint64_t ticks)
{
	rtb_fmt_ns(buf, len, clk_ns(ticks));
}

/* CLK-B-CFG's verdict and table from the statement, the sleeps and the
 * analysed run (clk_config.c). It runs last: its negative control reuses
 * the run's buffers. */
void rtb_clk_config_report(const struct os_statement *os, const struct sleep_stats *st,
			   struct tick_run *r);

#endif /* RTB_SCENARIO_CLK_H */
