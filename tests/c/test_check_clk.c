/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of the CLK checks on synthetic busy-loop series: a clean
 * periodic tick, a jittery one, one with missed ticks, no disturbance at all
 * (tickless), random spikes that are not periodic, a tick plus random
 * spikes, a series too disturbed to search, a tick with RT-throttling
 * gaps on its period; then the CLK-B-CFG decision.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rtb/check_clk.h"

#define NORMAL 50000u	 /* 20 us at 2.5 GHz */
#define PERIOD 10000000u /* 4 ms at 2.5 GHz */
#define EXCESS 5000u	 /* 2 us */

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* uniform in [-span, +span] */
static int64_t jitter(uint64_t span)
{
	return span == 0 ? 0 : (int64_t)(rnd() % (2 * span + 1)) - (int64_t)span;
}

struct series_spec {
	size_t n;
	uint64_t noise;	       /* +- on every loop */
	uint64_t period;       /* 0: no tick */
	uint64_t period_noise; /* +- on each tick time */
	uint64_t excess;       /* tick cost */
	uint64_t excess_noise; /* +- on the tick cost */
	uint32_t missed_pct;   /* ticks that cost nothing */
	uint32_t spike_every;  /* 0: none; else a random spike about every N loops */
	uint32_t gap_every;    /* 0: none; else every N-th tick takes `gap` (throttling) */
	uint64_t gap;
	uint32_t host_every; /* 0: none; else the CPU is taken away about every N loops */
	uint64_t host_gap;   /* for host_gap / 2 to 3 host_gap / 2 */
};

static uint64_t *make_series(const struct series_spec *s)
{
	uint64_t *v = malloc(sizeof(uint64_t) * s->n);
	uint64_t t = 0;
	uint64_t next_tick = s->period ? s->period / 3 : UINT64_MAX;
	uint32_t ticks = 0;

	for (size_t i = 0; i < s->n; i++) {
		uint64_t d = (uint64_t)((int64_t)NORMAL + jitter(s->noise));
		while (next_tick < t + d) {
			if (rnd() % 100 >= s->missed_pct)
				d += (uint64_t)((int64_t)s->excess + jitter(s->excess_noise));
			if (s->gap_every != 0 && ++ticks % s->gap_every == 0)
				d += s->gap;
			next_tick += (uint64_t)((int64_t)s->period + jitter(s->period_noise));
		}
		if (s->spike_every != 0 && rnd() % s->spike_every == 0)
			d += 4000 + rnd() % 200000;
		if (s->host_every != 0 && rnd() % s->host_every == 0) {
			uint64_t lost = s->host_gap / 2 + rnd() % (s->host_gap + 1);
			/* the ticks inside cost nothing visible: they are in the gap */
			while (next_tick < t + d + lost)
				next_tick += s->period;
			d += lost;
		}
		v[i] = d;
		t += d;
	}
	return v;
}

static bool analyse(const struct series_spec *s, struct rtb_clk_analysis *a, uint8_t **kinds_out)
{
	uint64_t *v = make_series(s);
	uint64_t *scratch = malloc(sizeof(uint64_t) * rtb_clk_scratch_words(s->n));
	uint8_t *kinds = malloc(s->n);
	bool ok = rtb_clk_analyse(v, s->n, 0, scratch, kinds, a);

	/* kinds agree with the counts */
	size_t c[4] = {0, 0, 0, 0};
	for (size_t i = 0; i < s->n; i++)
		c[kinds[i]]++;
	CHECK_EQ_U64(c[RTB_CLK_NORMAL], a->normal);
	CHECK_EQ_U64(c[RTB_CLK_TICK], a->tick);
	CHECK_EQ_U64(c[RTB_CLK_OTHER], a->other);
	CHECK_EQ_U64(c[RTB_CLK_GAP], a->gap);
	CHECK_EQ_U64(a->tick + a->other + a->gap, a->disturbed);
	free(v);
	free(scratch);
	if (kinds_out != NULL)
		*kinds_out = kinds;
	else
		free(kinds);
	return ok;
}

static bool near(uint64_t a, uint64_t b, uint64_t tol)
{
	return (a > b ? a - b : b - a) <= tol;
}

static void test_clean_periodic(void)
{
	struct series_spec s = {.n = 150000, .period = PERIOD, .excess = EXCESS};
	struct rtb_clk_analysis a;

	CHECK(analyse(&s, &a, NULL));
	CHECK_EQ_U64(a.normal_ticks, NORMAL);
	CHECK(a.periodic);
	CHECK(near(a.period_ticks, PERIOD, 2 * NORMAL));
	uint64_t ticks = a.span_ticks / PERIOD;
	CHECK(near(a.tick, ticks, 2));
	CHECK_EQ_U64(a.other, 0);
	CHECK_EQ_U64(a.tick_excess_typical_ticks, EXCESS);
	CHECK_EQ_U64(a.tick_loop_typical_ticks, NORMAL + EXCESS);
	CHECK(a.period_pairs + 2 >= a.expected_pairs);
}

/* RT throttling: every 250th tick (once a second at 250 Hz) the CPU is taken
 * away for 50 ms. Linux enforces it from the tick, so the gap lies on the
 * tick's period; it is a long gap, not tick processing. */
static void test_throttling_gap(void)
{
	struct series_spec s = {.n = 400000,
				.period = PERIOD,
				.excess = EXCESS,
				.gap_every = 250,
				.gap = 125000000u};
	struct rtb_clk_analysis a;

	CHECK(analyse(&s, &a, NULL));
	CHECK(a.periodic);
	CHECK(near(a.period_ticks, PERIOD, 2 * NORMAL));
	uint64_t gaps = (a.span_ticks - a.gap * s.gap) / (PERIOD * s.gap_every);
	CHECK(a.gap >= 1 && near(a.gap, gaps, 1));
	CHECK(a.gap_excess_longest_ticks >= s.gap);
	/* the ticks that fall into the gap add to it */
	CHECK(a.gap_excess_longest_ticks <= s.gap + (s.gap / PERIOD + 2) * EXCESS);
	CHECK_EQ_U64(a.tick_excess_worst_ticks, EXCESS); /* the gap is not a tick */
	CHECK(a.gap_limit_ticks < s.gap);
	CHECK(a.gap_limit_ticks > 100 * EXCESS / 10);
}

static void test_jitter(void)
{
	struct series_spec s = {.n = 150000,
				.noise = NORMAL / 100,
				.period = PERIOD,
				.period_noise = PERIOD / 50,
				.excess = EXCESS,
				.excess_noise = EXCESS / 2};
	struct rtb_clk_analysis a;

	CHECK(analyse(&s, &a, NULL));
	CHECK(near(a.normal_ticks, NORMAL, NORMAL / 100));
	CHECK(a.periodic);
	CHECK(near(a.period_ticks, PERIOD, PERIOD / 25));
	CHECK(a.tick_excess_worst_ticks <= EXCESS + EXCESS / 2 + NORMAL / 50);
	CHECK(a.tick_excess_min_ticks + NORMAL / 50 >= EXCESS / 2);
	CHECK(a.tick > a.span_ticks / PERIOD * 9 / 10);
}

/* An emulator on a busy host: the CPU is taken away for 20 ticks or so
 * every 10 ticks of loops, hiding the ticks inside. Judged over the time
 * the loop ran, the tick is still found; over the whole span it was not. */
static void test_busy_host(void)
{
	struct series_spec s = {.n = 150000,
				.period = PERIOD,
				.excess = EXCESS,
				.host_every = 2000,
				.host_gap = 20 * PERIOD};
	struct rtb_clk_analysis a;

	CHECK(analyse(&s, &a, NULL));
	CHECK(a.holes > 40 && a.hole_ticks > a.span_ticks / 3);
	CHECK(a.periodic);
	CHECK(near(a.period_ticks, PERIOD, 2 * NORMAL));
	CHECK(a.expected_pairs < (a.span_ticks - a.hole_ticks) / PERIOD);
	CHECK(a.gap == a.holes);
}

static void test_missed_ticks(void)
{
	/* one tick in five costs nothing: the others still make the period,
	 * and the doubled distances do not make it twice as long */
	struct series_spec s = {.n = 150000, .period = PERIOD, .excess = EXCESS, .missed_pct = 20};
	struct rtb_clk_analysis a;

	CHECK(analyse(&s, &a, NULL));
	CHECK(a.periodic);
	CHECK(near(a.period_ticks, PERIOD, 2 * NORMAL));
}

static void test_tickless(void)
{
	struct series_spec s = {.n = 150000, .noise = NORMAL / 200};
	struct rtb_clk_analysis a;

	CHECK(analyse(&s, &a, NULL));
	CHECK(!a.periodic);
	CHECK_EQ_U64(a.disturbed, 0);
	CHECK_EQ_U64(a.tick, 0);
	CHECK_EQ_U64(a.period_ticks, 0);
}

static void test_random_spikes(void)
{
	/* sparse, medium and dense random disturbances, many seeds: never a
	 * period */
	static const uint32_t every[] = {3000, 300, 30, 8};
	struct rtb_clk_analysis a;

	for (size_t k = 0; k < sizeof(every) / sizeof(every[0]); k++) {
		for (int seed = 0; seed < 5; seed++) {
			struct series_spec s = {
				.n = 60000, .noise = NORMAL / 200, .spike_every = every[k]};
			rng = 0x2545F4914F6CDD1Dull * (uint64_t)(seed + 1 + 100 * (int)k);
			CHECK(analyse(&s, &a, NULL));
			CHECK(a.disturbed > s.n / every[k] / 2);
			CHECK(!a.periodic);
			CHECK_EQ_U64(a.tick, 0);
			CHECK_EQ_U64(a.other, a.disturbed);
			CHECK(a.other_loop_worst_ticks > NORMAL);
		}
	}
}

static void test_tick_among_bursts(void)
{
	/* a tick every 1 ms among dense bursts of slowed loops (every loop
	 * of a 2 ms burst every 10 ms is disturbed), as seen on a virtual
	 * machine whose host shares the core */
	size_t n = 120000;
	uint64_t period = PERIOD / 4;
	uint64_t *v = malloc(sizeof(uint64_t) * n);
	uint64_t *scratch = malloc(sizeof(uint64_t) * rtb_clk_scratch_words(n));
	struct rtb_clk_analysis a;
	uint64_t t = 0, next = period / 3;

	for (size_t i = 0; i < n; i++) {
		uint64_t d = NORMAL - NORMAL / 200 + rnd() % (NORMAL / 100);
		if (t % (25 * period / 2) < period * 2 && i % 2 == 0)
			d += NORMAL / 2;
		while (next < t + d) {
			d += EXCESS;
			next += period;
		}
		v[i] = d;
		t += d;
	}
	CHECK(rtb_clk_analyse(v, n, 0, scratch, NULL, &a));
	CHECK(!a.too_dense);
	CHECK(a.other > 1000);
	CHECK(a.periodic);
	CHECK(near(a.period_ticks, period, 2 * NORMAL));
	free(v);
	free(scratch);
}

static void test_tick_and_spikes(void)
{
	struct series_spec s = {.n = 150000,
				.noise = NORMAL / 200,
				.period = PERIOD,
				.excess = EXCESS,
				.spike_every = 500};
	struct rtb_clk_analysis a;
	uint8_t *kinds;

	CHECK(analyse(&s, &a, &kinds));
	CHECK(a.periodic);
	CHECK(near(a.period_ticks, PERIOD, 2 * NORMAL));
	CHECK(a.tick >= a.span_ticks / PERIOD * 9 / 10);
	CHECK(a.other > 100);
	/* the tick line is the tick's cost, not the spikes' */
	CHECK(near(a.tick_excess_typical_ticks, EXCESS, NORMAL / 50));
	free(kinds);
}

static void test_too_dense(void)
{
	/* a disturbance every fifth loop: too many for a period search */
	size_t n = 10000;
	uint64_t *v = malloc(sizeof(uint64_t) * n);
	uint64_t *scratch = malloc(sizeof(uint64_t) * rtb_clk_scratch_words(n));
	struct rtb_clk_analysis a;

	for (size_t i = 0; i < n; i++)
		v[i] = NORMAL + (i % 5 == 0 ? EXCESS : 0);
	CHECK(rtb_clk_analyse(v, n, 0, scratch, NULL, &a));
	CHECK(a.too_dense);
	CHECK(!a.periodic);
	CHECK(a.other == a.disturbed && a.disturbed == n / 5);
	/* every third loop: one long burst, not a period */
	for (size_t i = 0; i < n; i++)
		v[i] = NORMAL + (i % 3 == 0 ? EXCESS : 0);
	CHECK(rtb_clk_analyse(v, n, 0, scratch, NULL, &a));
	CHECK(!a.too_dense);
	CHECK(!a.periodic);
	CHECK(a.other == a.disturbed && a.disturbed > n / 4);
	CHECK(!rtb_clk_analyse(v, RTB_CLK_LOOPS_MIN - 1, 0, scratch, NULL, &a));
	CHECK(!a.valid);
	free(v);
	free(scratch);
}

static void test_min_excess(void)
{
	/* a tick costing 1 % of a loop is found with a small floor and
	 * ignored with a floor above its cost */
	struct series_spec s = {.n = 50000, .period = PERIOD, .excess = NORMAL / 20};
	uint64_t *v = make_series(&s);
	uint64_t *scratch = malloc(sizeof(uint64_t) * rtb_clk_scratch_words(s.n));
	struct rtb_clk_analysis a;

	CHECK(rtb_clk_analyse(v, s.n, 0, scratch, NULL, &a));
	CHECK(a.periodic);
	CHECK(rtb_clk_analyse(v, s.n, NORMAL / 10, scratch, NULL, &a));
	CHECK(!a.periodic);
	CHECK_EQ_U64(a.disturbed, 0);
	free(v);
	free(scratch);
}

/* ---- decision ------------------------------------------------------------ */

static struct rtb_clk_facts facts(bool periodic, uint64_t period_ns, uint64_t hz,
				  enum rtb_clk_nohz nohz)
{
	struct rtb_clk_facts f = {
		.periodic = periodic,
		.period_ns = period_ns,
		.period_tol_ns = 2 * 20000 + period_ns / 64,
		.loop_ns = 20000,
		.sleep_measured = true,
		.sleep_typical_ns = 60000,
		.stated_hz = hz,
		.nohz = nohz,
	};
	return f;
}

static enum rtb_outcome decide(const struct rtb_clk_facts *f)
{
	struct rtb_clk_decision d;

	rtb_clk_decide(f, &d);
	CHECK(d.reason[0] != '\0');
	return d.outcome;
}

static void test_decide(void)
{
	struct rtb_clk_facts f;
	struct rtb_clk_decision d;

	/* agreement */
	f = facts(true, 4000000, 250, RTB_CLK_NOHZ_IDLE);
	CHECK(decide(&f) == RTB_PASS);
	f = facts(true, 4030000, 250, RTB_CLK_NOHZ_PERIODIC);
	CHECK(decide(&f) == RTB_PASS);
	rtb_clk_decide(&f, &d);
	CHECK_EQ_U64(d.tick_period_ns, 4030000);
	CHECK(!d.tickless);
	/* contradiction */
	f = facts(true, 4000000, 300, RTB_CLK_NOHZ_IDLE);
	CHECK(decide(&f) == RTB_FAIL);
	f = facts(true, 3000000, 250, RTB_CLK_NOHZ_UNKNOWN);
	CHECK(decide(&f) == RTB_FAIL);
	f = facts(true, 10000000, 250, RTB_CLK_NOHZ_PERIODIC);
	CHECK(decide(&f) == RTB_FAIL);
	f = facts(true, 3000000, 250, RTB_CLK_NOHZ_FULL);
	CHECK(decide(&f) == RTB_FAIL);
	rtb_clk_decide(&f, &d);
	CHECK(strstr(d.reason, "contradicts") != NULL);
	/* harmonic: a faster rhythm from elsewhere (every 4th may be the
	 * tick), or only every 2nd tick visible: neither confirmed nor
	 * contradicted, and no tick period concluded */
	f = facts(true, 1000500, 250, RTB_CLK_NOHZ_IDLE);
	CHECK(decide(&f) == RTB_INCONCLUSIVE);
	rtb_clk_decide(&f, &d);
	CHECK_EQ_U64(d.tick_period_ns, 0);
	CHECK(strstr(d.reason, "masks the tick") != NULL);
	f = facts(true, 8000000, 250, RTB_CLK_NOHZ_IDLE);
	CHECK(decide(&f) == RTB_INCONCLUSIVE);
	rtb_clk_decide(&f, &d);
	CHECK_EQ_U64(d.tick_period_ns, 0);
	CHECK(strstr(d.reason, "not seen") != NULL);
	f = facts(true, 1000000, 250, RTB_CLK_NOHZ_FULL);
	CHECK(decide(&f) == RTB_INCONCLUSIVE);
	f = facts(true, 6000000, 250, RTB_CLK_NOHZ_IDLE); /* 1.5 ticks */
	CHECK(decide(&f) == RTB_FAIL);
	f = facts(true, 2011000, 1300, RTB_CLK_NOHZ_IDLE); /* 2.6 ticks */
	CHECK(decide(&f) == RTB_FAIL);
	/* full dynticks may slow or stop the tick on a busy CPU */
	f = facts(true, 1000000000, 250, RTB_CLK_NOHZ_FULL);
	CHECK(decide(&f) == RTB_PASS);
	f = facts(false, 0, 250, RTB_CLK_NOHZ_FULL);
	CHECK(decide(&f) == RTB_PASS);
	/* a stated running tick that was not seen */
	f = facts(false, 0, 250, RTB_CLK_NOHZ_IDLE);
	CHECK(decide(&f) == RTB_INCONCLUSIVE);
	/* nothing stated */
	f = facts(true, 4000000, 0, RTB_CLK_NOHZ_UNKNOWN);
	CHECK(decide(&f) == RTB_PASS);
	f = facts(false, 0, 0, RTB_CLK_NOHZ_UNKNOWN);
	CHECK(decide(&f) == RTB_PASS);
	rtb_clk_decide(&f, &d);
	CHECK(d.tickless && d.tick_period_ns == 0);

	/* resolution against short sleeps */
	f = facts(true, 4000000, 250, RTB_CLK_NOHZ_IDLE);
	f.stated_resolution_ns = 1;
	CHECK(decide(&f) == RTB_PASS);
	f.sleep_typical_ns = 4000000;
	CHECK(decide(&f) == RTB_FAIL);
	rtb_clk_decide(&f, &d);
	CHECK(d.sleep_tick_bound);
	f.stated_resolution_ns = 4000000;
	CHECK(decide(&f) == RTB_PASS);
	f.sleep_typical_ns = 60000;
	CHECK(decide(&f) == RTB_FAIL);
	rtb_clk_decide(&f, &d);
	CHECK(strstr(d.reason, "a 1.000 us sleep lasts only") != NULL);
	/* a 1 us request shorter than the sleep call's own path ends with it,
	 * waiting for no timer: the longest request of at most a quarter of
	 * the resolution is judged (4 ms here: 1 ms, not the 10 ms one) */
	f.sleeps = 5;
	f.sleep[0] = (struct rtb_clk_sleep){1000, 60000};
	f.sleep[1] = (struct rtb_clk_sleep){10000, 3990000};
	f.sleep[2] = (struct rtb_clk_sleep){100000, 3990000};
	f.sleep[3] = (struct rtb_clk_sleep){1000000, 3990000};
	f.sleep[4] = (struct rtb_clk_sleep){10000000, 60000};
	CHECK(decide(&f) == RTB_PASS);
	/* a timer finer than stated still fails (the negative case) */
	f.sleep[3].typical_ns = 1160000;
	CHECK(decide(&f) == RTB_FAIL);
	rtb_clk_decide(&f, &d);
	CHECK(strstr(d.reason, "a 1.000 ms sleep lasts only 1.160 ms") != NULL);
	f.sleeps = 0;
	f.sleep_measured = false;
	CHECK(decide(&f) == RTB_PASS);
}

static void test_helpers(void)
{
	CHECK(rtb_clk_nohz_parse("idle") == RTB_CLK_NOHZ_IDLE);
	CHECK(rtb_clk_nohz_parse("full") == RTB_CLK_NOHZ_FULL);
	CHECK(rtb_clk_nohz_parse("periodic") == RTB_CLK_NOHZ_PERIODIC);
	CHECK(rtb_clk_nohz_parse("x") == RTB_CLK_NOHZ_UNKNOWN);
	CHECK(rtb_clk_nohz_parse(NULL) == RTB_CLK_NOHZ_UNKNOWN);
	CHECK(strcmp(rtb_clk_nohz_name(RTB_CLK_NOHZ_IDLE), "idle") == 0);
}

int main(void)
{
	test_clean_periodic();
	test_throttling_gap();
	test_jitter();
	test_missed_ticks();
	test_busy_host();
	test_tickless();
	test_random_spikes();
	test_tick_and_spikes();
	test_tick_among_bursts();
	test_too_dense();
	test_min_excess();
	test_decide();
	test_helpers();
	return check_exit();
}
