/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of the CLK checks on synthetic busy-loop series: a clean
 * periodic tick, a jittery one, one with missed ticks, no disturbance at all
 * (tickless), random spikes that are not periodic, a tick plus random
 * spikes, a series too disturbed to search, a tick with RT-throttling
 * gaps on its period; then the CLK-B-CFG decision, also on sleeps timed the
 * way clk.tick times them (starts spread over the tick) on models of an OS
 * whose sleeps end at a tick, of one whose shortest sleep returns before
 * any tick, and of one with a finer timer.
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
	f.sleep[0] = (struct rtb_clk_sleep){1000, 60000, 60000};
	f.sleep[1] = (struct rtb_clk_sleep){10000, 3990000, 3990000};
	f.sleep[2] = (struct rtb_clk_sleep){100000, 3990000, 3990000};
	f.sleep[3] = (struct rtb_clk_sleep){1000000, 3990000, 3990000};
	f.sleep[4] = (struct rtb_clk_sleep){10000000, 60000, 60000};
	CHECK(decide(&f) == RTB_PASS);
	/* a timer finer than stated still fails (the negative case) */
	f.sleep[3].typical_ns = f.sleep[3].high_ns = 1160000;
	CHECK(decide(&f) == RTB_FAIL);
	rtb_clk_decide(&f, &d);
	CHECK(strstr(d.reason, "a 1.000 ms sleep lasts only 1.160 ms") != NULL);
	f.sleeps = 0;
	f.sleep_measured = false;
	CHECK(decide(&f) == RTB_PASS);
}

/* ---- sleeps started at spread points of the tick ------------------------ */

/* Any n consecutive offsets split the period into gaps of at most 3 / n of
 * it (the golden-ratio sequence: about 2.6 / n), wherever the run starts. */
static void test_phase_offsets(void)
{
	static const uint64_t firsts[] = {0, 10, 60, 1000, (1ull << 32) + 5};
	const uint64_t period = 25000; /* 1 ms of a 25 MHz counter */
	const size_t n = 50;
	uint64_t v[50];

	CHECK_EQ_U64(rtb_clk_phase_offset(0, period), 0);
	CHECK_EQ_U64(rtb_clk_phase_offset(7, 0), 0);
	for (size_t k = 0; k < sizeof(firsts) / sizeof(firsts[0]); k++) {
		for (size_t i = 0; i < n; i++) {
			v[i] = rtb_clk_phase_offset(firsts[k] + i, period);
			CHECK(v[i] < period);
		}
		for (size_t i = 1; i < n; i++) /* insertion sort */
			for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
				uint64_t x = v[j];
				v[j] = v[j - 1];
				v[j - 1] = x;
			}
		uint64_t widest = v[0] + period - v[n - 1];
		for (size_t i = 1; i < n; i++)
			widest = v[i] - v[i - 1] > widest ? v[i] - v[i - 1] : widest;
		CHECK(widest * n <= 3 * period);
	}
	/* large periods (a 64-bit counter at GHz) keep their precision */
	uint64_t big = 1ull << 40;
	CHECK(near(rtb_clk_phase_offset(1, big), big * 618034 / 1000000, big / 1000000));
}

enum os_kind {
	OS_TICK_BOUND,	  /* every sleep ends at the first tick after its deadline */
	OS_SHORT_RETURNS, /* the same, but a request shorter than the sleep call's
			     own path returns with it (FreeRTOS, uC/OS-III) */
	OS_FINE_TIMER,	  /* the deadline itself, and a few sleeps a tick late */
};

struct os_model {
	enum os_kind kind;
	uint64_t tick; /* ticks at every multiple of this, from time 0 */
	uint64_t path; /* the sleep call's own path */
};

static const uint64_t requests[] = {0, 1000, 10000, 100000, 1000000};

/* How long sleep number i of `req` ns started at time `start` lasts. */
static uint64_t model_sleep(const struct os_model *m, uint64_t start, uint64_t req, uint64_t i)
{
	uint64_t due = start + m->path + req;

	if (m->kind == OS_FINE_TIMER)
		return due - start + (i % 20 == 7 ? m->tick : 0); /* 5 % a tick late */
	if (m->kind == OS_SHORT_RETURNS && req != 0 && req < m->path)
		return m->path;
	return (due / m->tick + 1) * m->tick - start;
}

/* clk.tick's procedure on a model: per request, 10 warm-up sleeps and 50
 * timed ones, each started `code` after the previous one ended, plus a
 * fixed `shift` (a longer code path), plus the phase offset when spread.
 * Median and 90th percentile as the recorder ranks them (within a bucket's
 * width does not matter here: the values are exact). */
static void timed_sleeps(const struct os_model *m, uint64_t code, uint64_t shift, bool spread,
			 struct rtb_clk_facts *f)
{
	uint64_t t = 0, v[50];

	f->sleeps = 0;
	for (size_t k = 0; k < sizeof(requests) / sizeof(requests[0]); k++) {
		for (uint64_t i = 0; i < 60; i++) {
			t += code + shift + (spread ? rtb_clk_phase_offset(i, m->tick) : 0);
			uint64_t d = model_sleep(m, t, requests[k], i);
			t += d;
			if (i >= 10)
				v[i - 10] = d;
		}
		for (size_t i = 1; i < 50; i++)
			for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
				uint64_t x = v[j];
				v[j] = v[j - 1];
				v[j - 1] = x;
			}
		f->sleep[f->sleeps++] = (struct rtb_clk_sleep){requests[k], v[24], v[44]};
	}
	f->sleep_measured = true;
	f->sleep_typical_ns = f->sleep[1].typical_ns;
	f->sleep_high_ns = f->sleep[1].high_ns;
}

struct judged {
	enum rtb_outcome outcome;
	bool tick_bound;
};

/* The decision on a model's sleeps: its tick found and stated, a stated
 * resolution. */
static struct judged judge(const struct os_model *m, uint64_t code, uint64_t shift, bool spread,
			   uint64_t resolution)
{
	struct rtb_clk_facts f = facts(true, m->tick, 1000000000u / m->tick, RTB_CLK_NOHZ_PERIODIC);
	struct rtb_clk_decision d;

	f.period_tol_ns = m->tick / 64;
	f.stated_resolution_ns = resolution;
	timed_sleeps(m, code, shift, spread, &f);
	rtb_clk_decide(&f, &d);
	return (struct judged){d.outcome, d.sleep_tick_bound};
}

#define SHIFTS 64

/* Wherever the code path before the sleeps puts their start in the tick
 * (64 shifts over one tick, from just after a tick to just before the
 * next), spread starts give one decision, the expected one; starts at one
 * fixed point (the procedure before) give decisions that depend on it. */
static void test_decide_spread_phases(void)
{
	static const uint64_t ticks[] = {1000000, 4000000, 10000000};
	static const struct {
		enum os_kind kind;
		uint64_t resolution; /* 0: the tick's */
		enum rtb_outcome outcome;
		bool tick_bound;
	} cases[] = {
		{OS_TICK_BOUND, 0, RTB_PASS, true},
		{OS_TICK_BOUND, 1000, RTB_FAIL, true}, /* states a finer timer */
		{OS_SHORT_RETURNS, 0, RTB_PASS, false},
		{OS_FINE_TIMER, 1, RTB_PASS, false},
		{OS_FINE_TIMER, 0, RTB_FAIL, false}, /* states a coarser timer */
	};

	for (size_t t = 0; t < sizeof(ticks) / sizeof(ticks[0]); t++) {
		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			struct os_model m = {cases[c].kind, ticks[t], 9280};
			uint64_t res = cases[c].resolution ? cases[c].resolution : m.tick;
			size_t fixed_pass = 0;
			for (uint64_t s = 0; s < SHIFTS; s++) {
				/* from 1 us after a tick to 1 us before the next */
				uint64_t shift = 1000 + s * (m.tick - 2000) / (SHIFTS - 1);
				struct judged j = judge(&m, 640, shift, true, res);
				CHECK(j.outcome == cases[c].outcome);
				CHECK(j.tick_bound == cases[c].tick_bound);
				fixed_pass += judge(&m, 640, shift, false, res).outcome == RTB_PASS;
			}
			/* the bound sleeps' verdicts flipped with the fixed start */
			if (cases[c].kind == OS_TICK_BOUND)
				CHECK(fixed_pass > 0 && fixed_pass < SHIFTS);
		}
	}
}

/* The cases of the brief rule, figures as a 1 ms tick gives them: a bound
 * sleep from spread starts has a median of about half a tick, which the
 * rules must not read as "not bound" or "finer than stated". */
static void test_decide_half_tick_median(void)
{
	struct rtb_clk_facts f = facts(true, 1000000, 1000, RTB_CLK_NOHZ_PERIODIC);
	struct rtb_clk_decision d;

	f.stated_resolution_ns = 1000000;
	f.sleep_typical_ns = 480000; /* 1 us sleeps: median under half a tick */
	f.sleep_high_ns = 905000;
	f.sleeps = 2;
	f.sleep[0] = (struct rtb_clk_sleep){1000, 480000, 905000};
	f.sleep[1] = (struct rtb_clk_sleep){100000, 470000, 910000};
	rtb_clk_decide(&f, &d);
	CHECK(d.outcome == RTB_PASS);
	CHECK(d.sleep_tick_bound);
	f.stated_resolution_ns = 1000;
	rtb_clk_decide(&f, &d);
	CHECK(d.outcome == RTB_FAIL);
	CHECK(strstr(d.reason, "up to 905.000 us (90th percentile)") != NULL);
	/* a finer timer whose few late sleeps reach a tick: 90th percentile
	 * low, not bound to the tick, and finer than a stated 1 ms */
	f.sleep_typical_ns = 12000;
	f.sleep_high_ns = 14000;
	f.sleep[0] = (struct rtb_clk_sleep){1000, 12000, 14000};
	f.sleep[1] = (struct rtb_clk_sleep){100000, 111000, 115000};
	rtb_clk_decide(&f, &d);
	CHECK(d.outcome == RTB_PASS);
	CHECK(!d.sleep_tick_bound);
	f.stated_resolution_ns = 1000000;
	rtb_clk_decide(&f, &d);
	CHECK(d.outcome == RTB_FAIL);
	CHECK(strstr(d.reason, "a 100.000 us sleep lasts only 115.000 us") != NULL);
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
	test_phase_offsets();
	test_decide_spread_phases();
	test_decide_half_tick_median();
	test_helpers();
	return check_exit();
}
